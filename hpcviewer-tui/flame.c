/*
 * flame.c - the flame-graph tree of a model (flame.h).
 *
 * One pass over the scopes in index order (parents first, model.h
 * invariant 1) maps each scope to the flame node it belongs to: a frame
 * scope (procedure, inlined code, loop) to the child of its parent's node
 * with its kind and label, found in a hash map keyed by (parent node,
 * kind, label), any other scope to its parent's node.  Then the children
 * are gathered per parent (counting sort on the parent) and each list
 * sorted by label.
 */
#include <stdlib.h>
#include <string.h>

#include "error.h"
#include "flame.h"
#include "hashmap.h"
#include "stdio-out.h"
#include "strbuf.h"

int flame_metric(struct browser *b, const char *name)
{
	const struct model *m = b->m;
	int c = name ? browser_find_column(b, name) :
		b->ncols ? (int)b->sort_col : -1;
	int met, sum;

	if (c < 0 && !name)
		hpc_seterr("the database has no metric to draw");
	if (c < 0)
		return -1;
	met = b->cols[c].metric;
	if (met < 0) {
		hpc_seterr("'%s': a derived column cannot be drawn",
			   b->cols[c].name);
		return -1;
	}
	if (m->metrics[met].type == MT_EXCLUSIVE) {
		int p = m->metrics[met].partner;

		if (p < 0 || m->metrics[p].type != MT_INCLUSIVE) {
			hpc_seterr("'%s': an exclusive metric without an "
				   "inclusive partner cannot be drawn",
				   b->cols[c].name);
			return -1;
		}
		met = p;
	}
	if (!m->metrics[met].additive) {
		sum = stdio_sum_metric(m, met);
		if (sum >= 0 && sum != met && m->metrics[sum].additive)
			hpc_seterr("'%s': a statistic over threads is not a sum "
				   "of its parts; draw '%s'",
				   m->metrics[met].name, m->metrics[sum].name);
		else
			hpc_seterr("'%s': a statistic over threads is not a sum "
				   "of its parts", m->metrics[met].name);
		return -1;
	}
	return met;
}

/* node_of[] of the scopes left out (invariant 6). */
#define SKIPPED UINT32_MAX

/* The hash key of a frame: its parent node, kind and label. */
struct frame_key {
	uint32_t parent, kind, label;
};

struct builder {
	struct flame *f;
	struct hmap *label_ids;		/* label -> index + 1 */
	struct hmap *frames;		/* frame_key -> node + 1 */
	size_t nodes_alloc, labels_alloc;
};

static uint32_t intern_label(struct builder *bd, const char *s)
{
	struct flame *f = bd->f;
	void *v = hmap_get_str(bd->label_ids, s);

	if (v)
		return (uint32_t)((uintptr_t)v - 1);
	HPC_GROW(f->labels, f->nlabels + 1, bd->labels_alloc);
	f->labels[f->nlabels] = xstrdup(s);
	hmap_put_str(bd->label_ids, s, (void *)(uintptr_t)(f->nlabels + 1));
	return (uint32_t)f->nlabels++;
}

static uint32_t add_node(struct builder *bd, uint32_t parent, int kind,
			 uint32_t label)
{
	struct flame *f = bd->f;
	struct flame_node *n;

	HPC_GROW(f->nodes, f->nnodes + 1, bd->nodes_alloc);
	n = &f->nodes[f->nnodes];
	memset(n, 0, sizeof(*n));
	n->parent = parent;
	n->kind = (uint8_t)kind;
	n->label = label;
	return (uint32_t)f->nnodes++;
}

/* The node of frame scope s under node parent, made on first sight. */
static uint32_t frame_node(struct builder *bd, struct view *v, uint32_t s,
			   uint32_t parent, struct strbuf *sb)
{
	const struct model *m = v->b->m;
	const struct scope *sc = &m->scopes[s];
	struct frame_key key;
	void *p;

	strbuf_reset(sb);
	if (sc->kind == SK_INLINE)	/* invariant 4: the bare name */
		strbuf_addstr(sb, *model_str(m, sc->name) ?
			      model_str(m, sc->name) : "<unknown>");
	else
		view_scope_label(v, s, sb);
	memset(&key, 0, sizeof(key));
	key.parent = parent;
	key.kind = sc->kind;
	key.label = intern_label(bd, sb->buf);
	p = hmap_get(bd->frames, &key, sizeof(key));
	if (p)
		return (uint32_t)((uintptr_t)p - 1);
	p = (void *)(uintptr_t)(add_node(bd, parent, sc->kind, key.label) + 1);
	hmap_put(bd->frames, &key, sizeof(key), p);
	return (uint32_t)((uintptr_t)p - 1);
}

static int is_frame_kind(int kind)
{
	return kind == SK_PROC || kind == SK_INLINE || kind == SK_LOOP;
}

static int cmp_children(const void *pa, const void *pb, void *arg)
{
	const struct flame *f = arg;
	const struct flame_node *a = &f->nodes[*(const uint32_t *)pa];
	const struct flame_node *b = &f->nodes[*(const uint32_t *)pb];
	int r = strcmp(f->labels[a->label], f->labels[b->label]);

	return r ? r : (int)a->kind - (int)b->kind;
}

/* Invariant 2: children gathered by parent, then sorted; invariant 3:
 * self from the children's totals. */
static void link_children(struct flame *f)
{
	size_t i, n = f->nnodes;
	uint32_t *fill = xcalloc(n, sizeof(*fill));

	f->kids = xmalloc((n > 1 ? n - 1 : 1) * sizeof(*f->kids));
	for (i = 1; i < n; i++)
		f->nodes[f->nodes[i].parent].nchildren++;
	for (i = 1; i < n; i++)
		f->nodes[i].child_start = f->nodes[i - 1].child_start +
					  f->nodes[i - 1].nchildren;
	for (i = 1; i < n; i++) {
		struct flame_node *p = &f->nodes[f->nodes[i].parent];

		f->kids[p->child_start + fill[f->nodes[i].parent]++] =
			(uint32_t)i;
	}
	free(fill);
	for (i = 0; i < n; i++) {
		struct flame_node *p = &f->nodes[i];
		double rest = p->total;
		uint32_t k;

		if (p->nchildren > 1)
			qsort_r(f->kids + p->child_start, p->nchildren,
				sizeof(*f->kids), cmp_children, f);
		for (k = 0; k < p->nchildren; k++)
			rest -= f->nodes[f->kids[p->child_start + k]].total;
		p->self = rest > 0 ? rest : 0;
	}
}

struct flame *flame_build(struct browser *b, int met)
{
	const struct model *m = b->m;
	struct view *v = browser_view(b, VIEW_TOP_DOWN);
	struct flame *f = xcalloc(1, sizeof(*f));
	struct builder bd;
	struct strbuf sb = STRBUF_INIT;
	uint32_t *node_of = xmalloc(m->nscopes * sizeof(*node_of));
	size_t s, c;

	memset(&bd, 0, sizeof(bd));
	bd.f = f;
	bd.label_ids = hmap_new();
	bd.frames = hmap_new();
	f->metric = met;
	f->unit = m->metrics[met].unit;
	for (c = 0; c < b->ncols && b->cols[c].metric != met; c++)
		;
	f->heading = xstrdup(c < b->ncols ? b->cols[c].name :
			     m->metrics[met].name);
	add_node(&bd, UINT32_MAX, SK_ROOT, intern_label(&bd, "all"));
	f->nodes[0].total = m->total[met];
	node_of[0] = 0;
	for (s = 1; s < m->nscopes; s++) {
		uint32_t up = node_of[m->scopes[s].parent], n;

		if (up == SKIPPED || m->scopes[s].phase) {
			node_of[s] = SKIPPED;	/* invariant 6 */
			continue;
		}
		if (!is_frame_kind(m->scopes[s].kind)) {
			node_of[s] = up;
			continue;
		}
		n = frame_node(&bd, v, (uint32_t)s, up, &sb);
		f->nodes[n].total += model_value(m, (uint32_t)s, (size_t)met);
		node_of[s] = n;
	}
	link_children(f);
	strbuf_release(&sb);
	free(node_of);
	hmap_free(bd.label_ids);
	hmap_free(bd.frames);
	return f;
}

void flame_free(struct flame *f)
{
	size_t i;

	if (!f)
		return;
	for (i = 0; i < f->nlabels; i++)
		free(f->labels[i]);
	free(f->labels);
	free(f->nodes);
	free(f->kids);
	free(f->heading);
	free(f);
}
