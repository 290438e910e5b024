/* sharingview.c - see sharingview.h. */
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "error.h"
#include "sharingview.h"
#include "textrec.h"

/* An object, line or page row: its fields, kept as the file gave them. */
struct srow {
	uint32_t node, thread;
	int64_t offset;
	char *text[12];		/* the row's fields after node */
	int ntext;
};

struct sharingview {
	struct srow *objs;	size_t nobjs, objs_alloc;
	uint32_t *pooled;	size_t npooled, pooled_alloc;	/* nodes */
	struct srow *lines;	size_t nlines, lines_alloc;
	struct srow *pages;	size_t npages, pages_alloc;
};

static void rows_free(struct srow *r, size_t n)
{
	size_t i;
	int k;

	for (i = 0; i < n; i++)
		for (k = 0; k < r[i].ntext; k++)
			free(r[i].text[k]);
	free(r);
}

void sharingview_free(struct sharingview *sv)
{
	if (!sv)
		return;
	rows_free(sv->objs, sv->nobjs);
	rows_free(sv->lines, sv->nlines);
	rows_free(sv->pages, sv->npages);
	free(sv->pooled);
	free(sv);
}

static int parse_row(struct textrec *r, void *arg)
{
	struct sharingview *sv = arg;
	struct srow row, **v;
	size_t *n, *alloc;
	int want, k;
	long off = 0, thread = 0;

	if (r->f[0][0] == '#')
		return 0;
	if (!strcmp(r->f[0], "pooled")) {
		uint32_t node;

		if (r->nf != 2)
			return textrec_bad(r, "wrong number of fields");
		if (textrec_u32(r, 1, &node))
			return -1;
		HPC_GROW(sv->pooled, sv->npooled + 1, sv->pooled_alloc);
		sv->pooled[sv->npooled++] = node;
		return 0;
	}
	if (!strcmp(r->f[0], "object")) {
		want = 14, v = &sv->objs, n = &sv->nobjs;
		alloc = &sv->objs_alloc;
	} else if (!strcmp(r->f[0], "line")) {
		want = 10, v = &sv->lines, n = &sv->nlines;
		alloc = &sv->lines_alloc;
	} else if (!strcmp(r->f[0], "page")) {
		want = 9, v = &sv->pages, n = &sv->npages;
		alloc = &sv->pages_alloc;
	} else {
		return 0;	/* a kind of a later version */
	}
	if (r->nf != want)
		return textrec_bad(r, "wrong number of fields");
	memset(&row, 0, sizeof(row));
	if (textrec_u32(r, 1, &row.node))
		return -1;
	if (v == &sv->lines &&
	    (textrec_long(r, 4, -64, LONG_MAX, &off) ||
	     textrec_long(r, 6, 0, INT32_MAX, &thread)))
		return -1;
	row.offset = off;
	row.thread = (uint32_t)thread;
	for (k = 2; k < want && row.ntext < 12; k++)
		row.text[row.ntext++] = xstrdup(r->f[k]);
	HPC_GROW(*v, *n + 1, *alloc);
	(*v)[(*n)++] = row;
	return 0;
}

struct sharingview *sharingview_load(const char *dbdir, int *missing)
{
	struct strbuf path = STRBUF_INIT;
	struct sharingview *sv = xcalloc(1, sizeof(*sv));
	long n;

	*missing = 0;
	strbuf_addf(&path, "%s/sharing.tsv", dbdir);
	if (access(path.buf, F_OK) && errno == ENOENT) {
		*missing = 1;
		strbuf_release(&path);
		free(sv);
		return NULL;
	}
	n = textrec_read_tsv(path.buf, SHARINGVIEW_MAX_BYTES,
			     SHARINGVIEW_MAX_LINE, "a sharing table",
			     parse_row, sv);
	strbuf_release(&path);
	if (n < 0) {
		sharingview_free(sv);
		return NULL;
	}
	return sv;
}

/* The line key of a line row: process and start, then offset. */
static int same_line(const struct srow *a, const struct srow *b)
{
	return !strcmp(a->text[0], b->text[0]) &&
	       !strcmp(a->text[1], b->text[1]) && a->offset == b->offset;
}

/* Threads x lines of node: one column per thread, "R/W" cells. */
static void lines_table(const struct sharingview *sv, uint32_t node,
			struct strbuf *out)
{
	uint32_t threads[SHARINGVIEW_MAX_THREADS];
	size_t nt = 0, i, j, k, shown = 0, more = 0, extra = 0;

	for (i = 0; i < sv->nlines; i++) {
		if (sv->lines[i].node != node)
			continue;
		for (k = 0; k < nt && threads[k] != sv->lines[i].thread; k++)
			;
		if (k < nt)
			continue;
		if (nt == SHARINGVIEW_MAX_THREADS) {
			extra = 1;
			continue;
		}
		for (k = nt++; k > 0 && threads[k - 1] > sv->lines[i].thread;
		     k--)
			threads[k] = threads[k - 1];
		threads[k] = sv->lines[i].thread;
	}
	strbuf_addstr(out, "threads x lines (reads/writes):\n");
	strbuf_addf(out, "  %-18s %7s  %-17s", "block", "offset", "label");
	for (k = 0; k < nt; k++) {
		char head[32];

		snprintf(head, sizeof(head), "thread %" PRIu32, threads[k]);
		strbuf_addf(out, " %12s", head);
	}
	strbuf_addstr(out, extra ? "  (more threads)\n" : "\n");
	for (i = 0; i < sv->nlines; i = j) {
		const struct srow *l = &sv->lines[i];

		for (j = i + 1; j < sv->nlines && sv->lines[j].node == l->node &&
		     same_line(&sv->lines[j], l); j++)
			;
		if (l->node != node)
			continue;
		if (shown == SHARINGVIEW_MAX_ROWS) {
			more++;
			continue;
		}
		shown++;
		strbuf_addf(out, "  %-18s %7" PRId64 "  %-17s", l->text[1],
			    l->offset, l->text[3]);
		for (k = 0; k < nt; k++) {
			char cell[48] = "-";
			size_t m;

			for (m = i; m < j; m++)
				if (sv->lines[m].thread == threads[k])
					snprintf(cell, sizeof(cell), "%s/%s",
						 sv->lines[m].text[5],
						 sv->lines[m].text[6]);
			strbuf_addf(out, " %12s", cell);
		}
		strbuf_addch(out, '\n');
	}
	if (more)
		strbuf_addf(out, "  (%zu more lines)\n", more);
}

/* Page x node of node: the accesses per node of the accessing CPU. */
static void pages_table(const struct sharingview *sv, uint32_t node,
			struct strbuf *out)
{
	size_t i, shown = 0, more = 0;

	strbuf_addstr(out, "page x node (accesses by the CPU's node):\n");
	strbuf_addf(out, "  %-18s %-17s %5s %7s  %s\n", "page", "label",
		    "home", "remote", "per node (0,1,...)");
	for (i = 0; i < sv->npages; i++) {
		const struct srow *p = &sv->pages[i];

		if (p->node != node)
			continue;
		if (shown++ == SHARINGVIEW_MAX_ROWS) {
			more++;
			continue;
		}
		strbuf_addf(out, "  %-18s %-17s %5s %7s  %s\n", p->text[1],
			    p->text[2], p->text[3], p->text[5], p->text[6]);
	}
	if (more)
		strbuf_addf(out, "  (%zu more pages)\n", more);
}

int sharingview_detail(const struct sharingview *sv, uint32_t node,
		       struct strbuf *out)
{
	const struct srow *o = NULL;
	size_t i;
	int pooled = 0;

	for (i = 0; i < sv->nobjs && !o; i++)
		if (sv->objs[i].node == node)
			o = &sv->objs[i];
	if (!o)
		return -1;
	for (i = 0; i < sv->npooled; i++)
		pooled |= sv->pooled[i] == node;
	/* label latent threads accesses reads writes transfers remote% homed
	 * toucher advice name */
	strbuf_addf(out, "sharing: %s%s, latent false sharing at alignment %s, "
		    "%s threads, %s accesses (%s reads, %s writes), %s "
		    "transfers\n", o->text[0],
		    pooled ? " (pooled from all its lines)" : "", o->text[1],
		    o->text[2], o->text[3], o->text[4], o->text[5],
		    o->text[6]);
	if (strcmp(o->text[7], "-"))
		strbuf_addf(out, "NUMA: %s%% remote of %s with a home, first "
			    "toucher thread %s; %s\n", o->text[7], o->text[8],
			    o->text[9], o->text[10]);
	else
		strbuf_addstr(out, "NUMA: no access with a known home on "
			      "another node\n");
	lines_table(sv, node, out);
	pages_table(sv, node, out);
	return 0;
}
