/*
 * pf-mkprofile.c - writes a synthetic .hpcrun profile from a text spec on
 * stdin, with lib/hpcrun-fmt-write.c, so hpcprof tests know every value.
 *
 * cc -I"$SRC_ROOT/lib" -o mkprofile "$TEST_PROGS/pf-mkprofile.c" "$HPC_BUILD/obj/libhpc.a"
 * (add -fsanitize=address,undefined when HPC_BUILD is a SANITIZE=1 build)
 *
 * Usage: mkprofile OUT.hpcrun <spec
 * Spec lines (one record each, in this order of kinds is not required):
 *   header NAME VALUE
 *   lm ID PATH
 *   metric NAME int|real          (period 1, description NAME)
 *   metric NAME int|real PERIOD DESCRIPTION
 *                                 (NAME and DESCRIPTION: both words, or
 *                                 both in double quotes: "CPUTIME (sec)")
 *   node ID PARENT LM ADDR [FLAGS] (ADDR hex; LM 0: ADDR is 8 characters,
 *                                 "_" for a space; FLAGS: the node's
 *                                 HPCRUN_NODE_* flags, default 0)
 *   value NODE METRIC VALUE       (values of one node on consecutive lines)
 *   thread N                      (the identity tuple's THREAD logical id)
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "hpcrun-fmt.h"

#define MAX (1 << 20)	/* records of each kind */

static struct hpcrun_kv header[MAX];
static struct hpcrun_lm lms[MAX];
static struct hpcrun_node nodes[MAX];
static struct hpcrun_metric metrics[16];
static struct hpcrun_value values[MAX];
static struct hpcrun_ctx_values ctxs[MAX];
static const struct hpcrun_idkind_name kinds[] = {
	{ 0, "SUMMARY" }, { 1, "NODE" }, { 2, "RANK" }, { 3, "THREAD" },
	{ 4, "GPUDEVICE" }, { 5, "GPUCONTEXT" }, { 6, "GPUSTREAM" },
	{ 7, "CORE" },
};

int main(int argc, char **argv)
{
	struct hpcrun_profile p = { 0 };
	struct hpcrun_id_elem tuple[2] = {
		{ 0x4000 | HPCRUN_ID_NODE, 0x1234, 0 },
		{ 0xc000 | HPCRUN_ID_THREAD, 0, 0 },
	};
	char line[4096], a[1024], b[1024], c[1024];
	int fd, rc;

	if (argc != 2) {
		fprintf(stderr, "usage: mkprofile OUT.hpcrun <spec\n");
		return 2;
	}
	p.header = header;
	p.lms = lms;
	p.nodes = nodes;
	p.metrics = metrics;
	p.values = values;
	p.ctxs = ctxs;
	p.idkinds = (struct hpcrun_idkind_name *)kinds;
	p.nidkinds = 8;
	p.idtuple = tuple;
	p.nidtuple = 2;
	while (fgets(line, sizeof(line), stdin)) {
		unsigned long id, parent, lm, metric, period = 1, flags = 0;
		double v;
		int n;

		if (p.nheader == MAX || p.nlms == MAX || p.nnodes == MAX ||
		    p.nvalues == MAX || p.nmetrics == 16) {
			fprintf(stderr, "mkprofile: too many records\n");
			return 1;
		}
		if (sscanf(line, "header %1023s %1023s", a, b) == 2) {
			header[p.nheader].name = strdup(a);
			header[p.nheader++].value = strdup(b);
		} else if (sscanf(line, "lm %lu %1023s", &id, a) == 2) {
			lms[p.nlms].id = (uint16_t)id;
			lms[p.nlms].flags = HPCRUN_LM_ANALYZE;
			lms[p.nlms++].path = strdup(a);
		} else if ((n = sscanf(line, "metric \"%1023[^\"]\" %1023s %lu \"%1023[^\"]\"",
				       a, b, &period, c)) == 4 ||
			   (n = sscanf(line, "metric %1023s %1023s %lu %1023s",
				       a, b, &period, c)) >= 2) {
			struct hpcrun_metric *m = &metrics[p.nmetrics++];

			m->name = strdup(a);
			m->description = strdup(n == 4 ? c : a);
			m->formula = "";
			m->format = "";
			m->flags[0] = 1;
			m->flags[2] = strcmp(b, "int") ? 2 : 1;
			m->flags[6] = 1;
			m->period = period;
		} else if ((n = sscanf(line, "node %lu %lu %lu %1023s %lu",
				       &id, &parent, &lm, a, &flags)) >= 4) {
			struct hpcrun_node *nd = &nodes[p.nnodes++];

			nd->id = (uint32_t)id;
			nd->flags = n == 5 ? (uint8_t)flags : 0;
			nd->parent = (uint32_t)parent;
			nd->lm = (uint16_t)lm;
			if (lm) {
				nd->addr = strtoull(a, NULL, 16);
			} else {
				size_t k, len = strlen(a);

				for (k = 0; k < 8; k++)
					nd->addr = nd->addr << 8 |
						   (unsigned char)(k >= len || a[k] == '_' ? ' ' : a[k]);
			}
		} else if (sscanf(line, "value %lu %lu %lf", &id, &metric,
				  &v) == 3 && metric < p.nmetrics) {
			struct hpcrun_value *val = &values[p.nvalues];

			if (!p.nctxs || ctxs[p.nctxs - 1].ctx != id) {
				ctxs[p.nctxs].ctx = (uint32_t)id;
				ctxs[p.nctxs++].first = p.nvalues;
			}
			val->metric = (uint16_t)metric;
			if (metrics[metric].flags[2] == 1)
				val->bits = (uint64_t)v;
			else
				memcpy(&val->bits, &v, sizeof(v));
			p.nvalues++;
		} else if (sscanf(line, "thread %lu", &id) == 1) {
			tuple[1].logical = id;
		} else if (line[0] != '\n' && line[0] != '#') {
			fprintf(stderr, "mkprofile: bad spec line: %s", line);
			return 1;
		}
	}
	fd = open(argv[1], O_WRONLY | O_CREAT | O_EXCL, 0644);
	if (fd < 0) {
		perror(argv[1]);
		return 1;
	}
	rc = hpcrun_fmt_write(fd, &p);
	if (rc || close(fd)) {
		fprintf(stderr, "mkprofile: write failed (%d)\n", rc);
		return 1;
	}
	return 0;
}
