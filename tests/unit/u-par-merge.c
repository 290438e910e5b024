/*
 * u-par-merge.c - unit tests for hpcprof's tree merge (experiment.c
 * experiment_merge) and trees on the wire (experiment-wire.c): trees of
 * profile ranges merged in order are the tree of all profiles added in
 * order.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "experiment-wire.h"
#include "experiment.h"
#include "strbuf.h"
#include "unit.h"

#define NPROF 5

static struct hpcrun_kv header[] = { { "program-name", "prog" } };
static struct hpcrun_lm lms[] = {
	{ 1, "/nonexistent/prog", 0, 0 }, { 2, "/nonexistent/libgone.so", 0, 0 },
};
static struct hpcrun_metric metric = { .name = "cycles",
				       .description = "cycles",
				       .flags = { [2] = 1 } };

/*
 * Profile t: a chain main -> work -> the library, and calls that differ
 * per profile (so each range adds nodes of its own), a placeholder with
 * values, and values at every leaf.
 */
static void make_profile(int t, struct hpcrun_profile *p,
			 struct hpcrun_node *nodes, struct hpcrun_value *vals,
			 struct hpcrun_ctx_values *ctxs)
{
	uint32_t i;

	memset(p, 0, sizeof(*p));
	nodes[0] = (struct hpcrun_node){ 2, 0, 0, 0x5072696d61727920ULL, 0 };
	nodes[1] = (struct hpcrun_node){ 4, 0, 1, 0x1005, 0 };
	nodes[2] = (struct hpcrun_node){ 6, 4, 1, 0x2005 + 16 * (uint32_t)(t % 3), 0 };
	nodes[3] = (struct hpcrun_node){ 8, 6, 2, 0x100 + 8 * (uint32_t)t, 0 };
	nodes[4] = (struct hpcrun_node){ 10, 4, 1, 0x2025, 0 };
	for (i = 0; i < 5; i++) {
		ctxs[i] = (struct hpcrun_ctx_values){ nodes[i].id, i };
		vals[i] = (struct hpcrun_value){ 0, 1 + i + 10 * (uint64_t)t };
	}
	p->header = header;
	p->nheader = 1;
	p->lms = lms;
	p->nlms = 2;
	p->nodes = nodes;
	p->nnodes = 5;
	p->metrics = &metric;
	p->nmetrics = 1;
	p->values = vals;
	p->nvalues = 5;
	p->ctxs = ctxs;
	p->nctxs = 5;
}

static struct hpcrun_profile prof[NPROF];
static struct hpcrun_node nodes[NPROF][5];
static struct hpcrun_value vals[NPROF][5];
static struct hpcrun_ctx_values ctxs[NPROF][5];
static const int map[] = { 0 };
static char structfile[] = "/tmp/u-par-merge-XXXXXX";

/* An experiment with the profiles registered, and a structure for prog. */
static struct experiment *new_experiment(void)
{
	struct experiment *e = experiment_new();
	int t, fd = mkstemp(structfile);
	FILE *f = fd >= 0 ? fdopen(fd, "w") : NULL;

	CHECK(f != NULL);
	if (!f)
		return e;
	fputs("<HPCToolkitStructure i=\"0\" version=\"4.9\">"
	      "<LM i=\"1\" n=\"/nonexistent/prog\"><F i=\"2\" n=\"p.c\">"
	      "<P i=\"3\" n=\"main\" l=\"1\" v=\"{[0x1000-0x1001)}\">"
	      "<S i=\"4\" l=\"2\" v=\"{[0x1000-0x1010)}\"/></P>"
	      "<P i=\"5\" n=\"work\" l=\"10\" v=\"{[0x2000-0x2001)}\">"
	      "<L i=\"6\" l=\"11\" v=\"{[0x2000-0x2001)}\">"
	      "<S i=\"7\" l=\"12\" v=\"{[0x2000-0x2030)}\"/></L></P>"
	      "</F></LM></HPCToolkitStructure>\n", f);
	fclose(f);
	CHECK_INT(experiment_add_structfile(e, structfile), 0);
	remove(structfile);
	strcpy(structfile + sizeof(structfile) - 7, "XXXXXX");
	metrics_raw(&e->metrics, "cycles", "cycles", 1);
	for (t = 0; t < NPROF; t++)
		experiment_add_program(e, &prof[t]);
	for (t = 0; t < NPROF; t++)
		experiment_register(e, &prof[t], ".");
	experiment_check_modules(e);
	return e;
}

/* Profiles [lo, hi) added to a worker of e. */
static struct experiment *worker(struct experiment *e, int lo, int hi)
{
	struct experiment *w = experiment_new_worker(e);
	int t;

	for (t = lo; t < hi; t++)
		experiment_add_profile(w, &prof[t], map);
	return w;
}

/* The tree as text: per node id, kind, parent, flat, names, line, vma. */
static void describe(const struct experiment *e, struct strbuf *sb)
{
	uint32_t i;

	for (i = 0; i < e->next_id; i++) {
		const struct node *n = e->nodes[i];
		int named = n->kind == NODE_PF || n->kind == NODE_PROC ||
			    n->kind == NODE_ALIEN;

		strbuf_addf(sb, "%u %d %u %u %s %s %s %u %llx\n", n->id,
			    (int)n->kind, n->parent ? n->parent->id : 0,
			    n->flat ? n->flat->id : 0,
			    n->kind == NODE_ROOT || n->kind == NODE_FLAT_ROOT ?
			    "" : e->lms.names[n->lm],
			    e->files.n ? e->files.names[n->file] : "",
			    named ? e->procs.names[n->proc] : "", n->line,
			    (unsigned long long)n->vma);
	}
}

/* e's tree from workers over the ranges cut at cuts[] (in order), each
 * sent over the wire first when wire is set. */
static void merged(const int *cuts, int ncuts, int wire, struct strbuf *out)
{
	struct experiment *e = new_experiment();
	int k;

	for (k = 0; k + 1 < ncuts; k++) {
		struct experiment *w = worker(e, cuts[k], cuts[k + 1]);

		if (wire) {
			struct strbuf sb = STRBUF_INIT;
			struct experiment *d;

			experiment_wire_write(w, &sb, 0);
			d = experiment_wire_read(e, sb.buf, sb.len);
			CHECK(d != NULL);
			CHECK(experiment_wire_read(e, sb.buf, sb.len - 1) ==
			      NULL);
			experiment_free(w);
			w = d;
			strbuf_release(&sb);
		}
		free(experiment_merge(e, w));
		experiment_free(w);
	}
	describe(e, out);
	experiment_free(e);
}

static void ranges_merge_as_one(void)
{
	static const int one[] = { 0, NPROF }, two[] = { 0, 2, NPROF },
			 each[] = { 0, 1, 2, 3, 4, NPROF };
	struct strbuf a = STRBUF_INIT, b = STRBUF_INIT, c = STRBUF_INIT;

	merged(one, 2, 0, &a);
	merged(two, 3, 0, &b);
	merged(each, 6, 0, &c);
	CHECK(a.len > 0);
	CHECK_STR(b.buf, a.buf);
	CHECK_STR(c.buf, a.buf);
	/* the library without binary: a procedure per address, made on
	 * demand in each worker and found again by content */
	CHECK(strstr(a.buf, "<unknown> 0x108 [libgone.so]") != NULL);
	CHECK(strstr(a.buf, "<Primary>") != NULL);
	strbuf_release(&a);
	strbuf_release(&b);
	strbuf_release(&c);
}

static void wire_round_trip(void)
{
	static const int one[] = { 0, NPROF }, three[] = { 0, 1, 3, NPROF };
	struct strbuf a = STRBUF_INIT, b = STRBUF_INIT;

	merged(one, 2, 0, &a);
	merged(three, 4, 1, &b);
	CHECK_STR(b.buf, a.buf);
	strbuf_release(&a);
	strbuf_release(&b);
}

int main(void)
{
	int t;

	for (t = 0; t < NPROF; t++)
		make_profile(t, &prof[t], nodes[t], vals[t], ctxs[t]);
	unit_run("profile ranges merged in order are the tree of all", ranges_merge_as_one);
	unit_run("a tree sent over the wire merges as the sender's", wire_round_trip);
	return unit_done();
}
