/* dataview.c - see dataview.h. */
#include <inttypes.h>
#include <string.h>

#include "dataview.h"

static const struct {
	const char *group, *kind;
} kinds[] = {
	[SK_OBJ_HEAP - SK_OBJ_HEAP] = { "<heap>", "heap" },
	[SK_OBJ_STATIC - SK_OBJ_HEAP] = { "<static>", "static" },
	[SK_OBJ_STACK - SK_OBJ_HEAP] = { "<stack>", "stack" },
	[SK_OBJ_SMALL - SK_OBJ_HEAP] = { "<small heap blocks>", "small" },
	[SK_OBJ_UNKNOWN - SK_OBJ_HEAP] = { "<unknown data>", "unknown" },
};
#define NKINDS (sizeof(kinds) / sizeof(kinds[0]))

static const char *const attr_names[7] = {
	"DATA:bytes", "DATA:blocks", "DATA:offset-lo", "DATA:offset-hi",
	"DATA:threads", "DATA:sharing", "DATA:remote%",
};

/* The label of a DATA:sharing code (hpcprof-database(5)), "" if none. */
static const char *sharing_name(double v)
{
	static const char *const labels[] = {
		"", "private", "read-shared", "producer-consumer",
		"migratory", "write-shared", "false-sharing",
	};

	return v >= 1 && v <= 6 ? labels[(int)v] : "";
}

int dataview_is_object(int kind)
{
	return kind >= SK_OBJ_HEAP && kind <= SK_OBJ_UNKNOWN;
}

const char *dataview_kind_name(int kind)
{
	return dataview_is_object(kind) ? kinds[kind - SK_OBJ_HEAP].kind : NULL;
}

void dataview_classify(struct model *m)
{
	uint32_t g, o;
	size_t i, k;

	for (k = 0; k < 7; k++) {
		m->data_attr[k] = -1;
		for (i = 0; i < m->nmetrics; i++)
			if (!strcmp(m->metrics[i].name, attr_names[k]))
				m->data_attr[k] = (int)i;
	}
	if (m->data_root == MODEL_NONE)
		return;
	for (g = m->scopes[m->data_root].first_child; g != MODEL_NONE;
	     g = m->scopes[g].next_sibling) {
		const char *name = model_str(m, m->scopes[g].name);
		int kind = SK_OBJ_UNKNOWN;

		for (k = 0; k < NKINDS; k++)
			if (!strcmp(name, kinds[k].group))
				kind = SK_OBJ_HEAP + (int)k;
		m->scopes[g].kind = SK_DATA;
		for (o = m->scopes[g].first_child; o != MODEL_NONE;
		     o = m->scopes[o].next_sibling)
			m->scopes[o].kind = (uint8_t)kind;
	}
}

/* Attribute k of scope s: 1 and *v when the database has it there. */
static int attr(const struct model *m, uint32_t s, int k, double *v)
{
	const struct scope *sc = &m->scopes[s];
	uint32_t i;

	if (m->data_attr[k] < 0)
		return 0;
	for (i = 0; i < sc->nval; i++)
		if (m->vals[sc->val_start + i].metric ==
		    (uint32_t)m->data_attr[k]) {
			*v = m->vals[sc->val_start + i].v;
			return 1;
		}
	return 0;
}

void dataview_label(const struct model *m, uint32_t s, struct strbuf *out)
{
	double bytes = 0, blocks = 0, lo = 0, hi = 0, threads = 0, v;
	int has_bytes = attr(m, s, 0, &bytes), has_blocks = attr(m, s, 1, &blocks);
	int has_range = attr(m, s, 3, &hi), has_threads = attr(m, s, 4, &threads);
	const char *sep = " (";

	strbuf_addstr(out, model_str(m, m->scopes[s].name));
	if (has_bytes) {
		strbuf_addf(out, "%s%.0f bytes", sep, bytes);
		if (has_blocks)
			strbuf_addf(out, " in %.0f block%s", blocks,
				    blocks == 1 ? "" : "s");
		sep = ", ";
	}
	if (has_threads) {
		strbuf_addf(out, "%s%.0f thread%s", sep, threads,
			    threads == 1 ? "" : "s");
		sep = ", ";
	}
	if (has_range) {
		if (!attr(m, s, 2, &lo))
			lo = 0;
		strbuf_addf(out, "%soffsets [%.0f, %.0f)", sep, lo, hi);
		sep = ", ";
	}
	if (attr(m, s, 5, &v)) {
		strbuf_addf(out, "%s%s", sep, sharing_name(v));
		sep = ", ";
	}
	if (attr(m, s, 6, &v)) {
		strbuf_addf(out, "%s%.1f%% remote", sep, v);
		sep = ", ";
	}
	if (sep[0] == ',')
		strbuf_addch(out, ')');
}

const char *dataview_sharing(const struct model *m, uint32_t s)
{
	double v;

	return dataview_is_object(m->scopes[s].kind) && attr(m, s, 5, &v) ?
	       sharing_name(v) : "";
}

/* Is name the bare name of an object named full (full up to its first
 * space: "c" of "c [fs]")? */
static int is_bare_name(const char *name, const char *full)
{
	size_t len = strlen(name);

	return len && !strncmp(full, name, len) && full[len] == ' ';
}

uint32_t dataview_find(const struct model *m, const char *name,
		       struct strbuf *others)
{
	uint32_t s, found = MODEL_NONE;
	size_t n = 0;

	for (s = 0; s < m->nscopes_all; s++)
		if (dataview_is_object(m->scopes[s].kind) &&
		    !strcmp(model_str(m, m->scopes[s].name), name))
			return s;
	for (s = 0; s < m->nscopes_all; s++) {
		if (!dataview_is_object(m->scopes[s].kind) ||
		    !is_bare_name(name, model_str(m, m->scopes[s].name)))
			continue;
		strbuf_addf(others, "%s'%s'", n++ ? ", " : "",
			    model_str(m, m->scopes[s].name));
		found = s;
	}
	if (n == 1) {
		strbuf_reset(others);
		return found;
	}
	return MODEL_NONE;
}

int dataview_has_sharing(const struct model *m)
{
	return m->data_attr[5] >= 0;
}
