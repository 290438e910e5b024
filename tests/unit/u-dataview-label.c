/* u-dataview-label.c - unit tests for hpcviewer-tui/dataview.c: kinds of
 * the data tree's objects and the labels the data view shows for them. */
#include <stdlib.h>
#include <string.h>

#include "../../hpcviewer-tui/dataview.h"
#include "unit.h"

/*
 * A model holding a data tree by hand: root 0, data root 1 with groups
 * <heap> (2), <static> (4), <odd> (6), objects 3, 5, 7 below them; the
 * metrics DATA:bytes (0), DATA:blocks (1), DATA:offset-lo (2),
 * DATA:offset-hi (3), DATA:threads (4), cycles (5).
 */
static char names[8][40] = {
	"", "<data objects>", "<heap>", "alloc_b prog.c:31 < main prog.c:13",
	"<static>", "sarr [vars]", "<odd>", "x",
};
static char metric_names[6][16] = {
	"DATA:bytes", "DATA:blocks", "DATA:offset-lo", "DATA:offset-hi",
	"DATA:threads", "cycles",
};
static char *strs[8];
static struct model_metric metrics[6];

static void build(struct model *m, struct scope *sc, struct scope_val *v,
		  size_t nv)
{
	uint32_t i;

	memset(m, 0, sizeof(*m));
	memset(sc, 0, 8 * sizeof(*sc));
	for (i = 0; i < 6; i++)
		metrics[i].name = metric_names[i];
	for (i = 0; i < 8; i++) {
		strs[i] = names[i];
		sc[i].name = i;
		sc[i].first_child = sc[i].next_sibling = MODEL_NONE;
		sc[i].kind = SK_PROC;
		sc[i].parent = i ? i - 1 : MODEL_NONE;
	}
	sc[1].first_child = 2;
	sc[2].next_sibling = 4;
	sc[4].next_sibling = 6;
	sc[2].first_child = 3;
	sc[4].first_child = 5;
	sc[6].first_child = 7;
	sc[3].val_start = 0;
	sc[3].nval = (uint16_t)nv;
	m->strs = strs;
	m->nstrs = 8;
	m->scopes = sc;
	m->nscopes = 1;
	m->nscopes_all = 8;
	m->data_root = 1;
	m->metrics = metrics;
	m->nmetrics = 6;
	m->vals = v;
	m->nvals = nv;
}

static void kinds_by_group(void)
{
	struct model m;
	struct scope sc[8];

	build(&m, sc, NULL, 0);
	dataview_classify(&m);
	CHECK_INT(sc[2].kind, SK_DATA);
	CHECK_INT(sc[3].kind, SK_OBJ_HEAP);
	CHECK_INT(sc[5].kind, SK_OBJ_STATIC);
	CHECK_INT(sc[7].kind, SK_OBJ_UNKNOWN);	/* a group we do not know */
	CHECK_INT(m.data_attr[0], 0);
	CHECK_INT(m.data_attr[4], 4);
	CHECK_STR(dataview_kind_name(SK_OBJ_HEAP), "heap");
	CHECK_STR(dataview_kind_name(SK_OBJ_SMALL), "small");
	CHECK(dataview_kind_name(SK_LOOP) == NULL);
	CHECK(dataview_is_object(SK_OBJ_STACK) && !dataview_is_object(SK_DATA));
}

static void label(struct scope_val *v, size_t nv, const char *want)
{
	struct model m;
	struct scope sc[8];
	struct strbuf sb = STRBUF_INIT;

	build(&m, sc, v, nv);
	dataview_classify(&m);
	dataview_label(&m, 3, &sb);
	CHECK_STR(sb.buf, want);
	strbuf_release(&sb);
}

static void labels(void)
{
	struct scope_val all[] = {
		{ 5, 40 }, { 0, 16384 }, { 1, 4 }, { 2, 0 }, { 3, 16384 },
		{ 4, 2 },
	};
	struct scope_val one[] = { { 0, 4096 }, { 1, 1 }, { 4, 1 } };
	struct scope_val range[] = { { 3, 800 }, { 2, 8 } };

	label(all, 6, "alloc_b prog.c:31 < main prog.c:13 (16384 bytes in 4 "
		      "blocks, 2 threads, offsets [0, 16384))");
	label(one, 3, "alloc_b prog.c:31 < main prog.c:13 (4096 bytes in 1 "
		      "block, 1 thread)");
	label(range, 2, "alloc_b prog.c:31 < main prog.c:13 (offsets [8, 800))");
	label(NULL, 0, "alloc_b prog.c:31 < main prog.c:13");
}

static void no_data_tree(void)
{
	struct model m;
	struct scope sc[8];

	build(&m, sc, NULL, 0);
	m.data_root = MODEL_NONE;
	m.nmetrics = 2;		/* only DATA:bytes and DATA:blocks */
	dataview_classify(&m);
	CHECK_INT(sc[3].kind, SK_PROC);
	CHECK_INT(m.data_attr[1], 1);
	CHECK_INT(m.data_attr[2], -1);
}

int main(void)
{
	unit_run("objects take their kind from their group", kinds_by_group);
	unit_run("labels: name, bytes, blocks, threads, offsets", labels);
	unit_run("no data tree: kinds kept, attributes absent", no_data_tree);
	return unit_done();
}
