/*
 * rt-folded.c - test helper: prints a .hpcrun profile as folded call paths,
 * one line per (context, metric): "frame;frame;...;leaf METRIC VALUE".
 * Frames in the module named EXE are given function names from NMFILE
 * (the output of "nm -S --defined-only EXE"); return addresses (every frame
 * but the leaf) are looked up at address-1, variable nodes (hpcrun --data's
 * static variables) at their address, among the data symbols.  Integer
 * metrics (hpcrun --data's DATA:*) print as integers.  Other frames print as
 * "basename+0xOFFSET", placeholders as their text ("^Primary", "|Main").
 * First lines: per metric "# metric NAME period P samples N", per module
 * "# lm ID FLAGS PATH".
 *
 * Build: cc -I$SRC_ROOT/lib -o rt-folded rt-folded.c $HPC_BUILD/obj/libhpc.a -lm
 *        (plus -fsanitize=address,undefined for a SANITIZE=1 build)
 * Usage: rt-folded PROFILE [EXE NMFILE]
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "error.h"
#include "hpcrun-fmt.h"

struct sym {
	uint64_t lo, hi;
	char name[128];
};

static struct sym *syms;
static size_t nsyms;

static void load_nm(const char *path)
{
	FILE *f = fopen(path, "r");
	char line[512], name[128], type;
	unsigned long long a, s;

	if (!f) {
		perror(path);
		exit(2);
	}
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%llx %llx %c %127s", &a, &s, &type, name) != 4)
			continue;
		if (!strchr("TtDdBbRr", type))
			continue;
		syms = realloc(syms, (nsyms + 1) * sizeof(*syms));
		syms[nsyms].lo = a;
		syms[nsyms].hi = a + s;
		snprintf(syms[nsyms].name, sizeof(syms[nsyms].name), "%s", name);
		nsyms++;
	}
	fclose(f);
}

static const char *sym_name(uint64_t a)
{
	size_t i;

	for (i = 0; i < nsyms; i++)
		if (a >= syms[i].lo && a < syms[i].hi)
			return syms[i].name;
	return NULL;
}

static const struct hpcrun_profile *prof;
static const char *exe;

static const struct hpcrun_node *node_by_id(uint32_t id)
{
	uint64_t i;

	for (i = 0; i < prof->nnodes; i++)
		if (prof->nodes[i].id == id)
			return &prof->nodes[i];
	return NULL;
}

static void print_frame(const struct hpcrun_node *n, int leaf)
{
	size_t i;
	const char *path = "?", *base, *name;

	if (n->lm == 0) {
		char txt[9];
		int j, k = 0;

		for (j = 0; j < 8; j++) {
			char c = (char)(n->addr >> (56 - 8 * j));

			if (c != ' ')
				txt[k++] = c;
		}
		txt[k] = '\0';
		printf("%s", txt);
		return;
	}
	for (i = 0; i < prof->nlms; i++)
		if (prof->lms[i].id == n->lm)
			path = prof->lms[i].path;
	if (exe && !strcmp(path, exe) &&
	    (name = sym_name(leaf || (n->flags & HPCRUN_NODE_VARIABLE) ?
			     n->addr : n->addr - 1))) {
		printf("%s", name);
		return;
	}
	base = strrchr(path, '/');
	printf("%s+0x%" PRIx64, base ? base + 1 : path, n->addr);
}

static void print_path(const struct hpcrun_node *n, int leaf)
{
	if (n->parent) {
		print_path(node_by_id(n->parent), 0);
		putchar(';');
	}
	print_frame(n, leaf);
}

int main(int argc, char **argv)
{
	struct hpcrun_profile *p;
	uint32_t c, m;

	if (argc != 2 && argc != 4) {
		fprintf(stderr, "usage: rt-folded PROFILE [EXE NMFILE]\n");
		return 2;
	}
	p = hpcrun_fmt_read(argv[1]);
	if (!p) {
		fprintf(stderr, "rt-folded: %s\n", hpc_lasterr());
		return 1;
	}
	prof = p;
	if (argc == 4) {
		exe = argv[2];
		load_nm(argv[3]);
	}
	for (m = 0; m < p->nmetrics; m++)
		printf("# metric %s period %" PRIu64 " samples %" PRIu64 "\n",
		       p->metrics[m].name, p->metrics[m].period,
		       p->metrics[m].nsamples);
	for (c = 0; c < p->nlms; c++)
		printf("# lm %u %" PRIu64 " %s\n", p->lms[c].id, p->lms[c].flags,
		       p->lms[c].path);
	for (c = 0; c < p->nctxs; c++) {
		uint64_t v, end = c + 1 < p->nctxs ? p->ctxs[c + 1].first : p->nvalues;
		const struct hpcrun_node *n = node_by_id(p->ctxs[c].ctx);

		for (v = p->ctxs[c].first; v < end; v++) {
			double d;

			const struct hpcrun_metric *met = &p->metrics[p->values[v].metric];

			memcpy(&d, &p->values[v].bits, sizeof(d));
			print_path(n, 1);
			if (met->flags[2] == 1)
				printf(" %s %" PRIu64 "\n", met->name, p->values[v].bits);
			else
				printf(" %s %.9g\n", met->name, d);
		}
	}
	hpcrun_profile_free(p);
	return 0;
}
