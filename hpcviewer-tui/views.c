/*
 * views.c - top-down, bottom-up and flat trees over a model; sorting,
 * expansion, hot path, find, zoom, flatten and derived columns.
 *
 * Design note:
 *  1. Top-down vnodes mirror model scopes one to one, built lazily when a
 *     node's children are first asked for, so opening a database with a
 *     million scopes builds only the rows on screen.
 *  2. Bottom-up vnodes carry "instances": (bottom frame, current frame,
 *     counted).  A level-1 node holds every frame of one procedure; a
 *     child groups the instances by the procedure of the frame that called
 *     cur.  An instance is "counted" for inclusive metrics when no frame of
 *     the same procedure encloses it (so recursion is not counted twice);
 *     exclusive metrics add every instance.
 *  3. The flat tree is built in one pass: each scope maps to a static node
 *     (load module > file > procedure > inlined/loop > line).  Scopes arrive
 *     in pre-order, so a stack of open scopes gives enter/exit events, and a
 *     per-node "active" count says whether an enclosing scope already added
 *     its inclusive value to that node.
 */
#include <regex.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "error.h"
#include "hashmap.h"
#include "formula.h"
#include "views.h"

struct bu_inst {
	uint32_t bottom, cur;
	uint32_t counted;
};

/* ---- nodes ---- */

static size_t nmet(const struct view *v)
{
	return v->b->m->nmetrics;
}

static double *vnode_vals(struct view *v, uint32_t n)
{
	return v->vals + (size_t)n * nmet(v);
}

static uint32_t add_node(struct view *v, uint32_t parent, int kind,
			 uint32_t name, uint32_t file, uint32_t line,
			 uint32_t scope)
{
	struct vnode *nd;
	uint32_t idx = (uint32_t)v->nnodes;

	HPC_GROW(v->nodes, v->nnodes + 1, v->nodes_alloc);
	if (nmet(v)) {
		HPC_GROW(v->vals, (v->nnodes + 1) * nmet(v), v->vals_alloc);
		memset(v->vals + v->nnodes * nmet(v), 0,
		       nmet(v) * sizeof(double));
	}
	nd = &v->nodes[v->nnodes++];
	memset(nd, 0, sizeof(*nd));
	nd->parent = parent;
	nd->kind = (uint8_t)kind;
	nd->name = name;
	nd->file = file;
	nd->line = line;
	nd->scope = scope;
	return idx;
}

static uint32_t add_scope_node(struct view *v, uint32_t parent, uint32_t s)
{
	const struct model *m = v->b->m;
	const struct scope *sc = &m->scopes[s];
	uint32_t n = add_node(v, parent, sc->kind, sc->name, sc->file,
			      sc->line, s);
	double *vals = vnode_vals(v, n);
	uint32_t k;

	for (k = 0; k < sc->nval; k++)
		vals[m->vals[sc->val_start + k].metric] =
			m->vals[sc->val_start + k].v;
	return n;
}

static void set_children(struct view *v, uint32_t n, const uint32_t *c,
			 uint32_t count)
{
	struct vnode *nd = &v->nodes[n];

	free(nd->children);
	nd->children = count ? xmalloc(count * sizeof(*c)) : NULL;
	if (count)
		memcpy(nd->children, c, count * sizeof(*c));
	nd->nchildren = count;
	nd->built = 1;
	nd->sort_gen = 0;
}

static void root_values(struct view *v)
{
	if (nmet(v))
		memcpy(vnode_vals(v, 0), v->b->m->total,
		       nmet(v) * sizeof(double));
}

/* ---- top-down ---- */

static void build_top_down(struct view *v, uint32_t n)
{
	const struct model *m = v->b->m;
	uint32_t s = v->nodes[n].scope, c, *kids = NULL;
	size_t nk = 0, alloc = 0;

	for (c = m->scopes[s].first_child; c != MODEL_NONE;
	     c = m->scopes[c].next_sibling) {
		uint32_t k = add_scope_node(v, n, c);

		HPC_GROW(kids, nk + 1, alloc);
		kids[nk++] = k;
	}
	set_children(v, n, kids, (uint32_t)nk);
	free(kids);
}

/* ---- bottom-up ---- */

struct proc_key {
	uint32_t name, file, lm;
};

static struct proc_key key_of(const struct model *m, uint32_t s)
{
	struct proc_key k;

	k.name = m->scopes[s].name;
	k.file = m->scopes[s].file;
	k.lm = m->scopes[s].lm;
	return k;
}

static int same_proc(const struct model *m, uint32_t a, uint32_t b)
{
	struct proc_key ka = key_of(m, a), kb = key_of(m, b);

	return !memcmp(&ka, &kb, sizeof(ka));
}

/*
 * Groups candidate instances (cand[i] is the frame that becomes cur) into
 * new child nodes of n, keyed by the procedure of the frame.
 */
static void bu_group(struct view *v, uint32_t n, const struct bu_inst *cand,
		     size_t ncand)
{
	const struct model *m = v->b->m;
	struct hmap *groups = hmap_new();
	uint32_t *grp = xmalloc((ncand ? ncand : 1) * sizeof(*grp));
	uint32_t *kids = NULL, *fill;
	size_t nk = 0, alloc = 0, i, base;

	for (i = 0; i < ncand; i++) {
		struct proc_key k = key_of(m, cand[i].cur);
		void *p = hmap_get(groups, &k, sizeof(k));

		if (!p) {
			const struct scope *sc = &m->scopes[cand[i].cur];
			uint32_t c = add_node(v, n, SK_PROC, sc->name,
					      sc->file, sc->line, cand[i].cur);

			HPC_GROW(kids, nk + 1, alloc);
			kids[nk++] = c;
			p = (void *)(uintptr_t)nk;
			hmap_put(groups, &k, sizeof(k), p);
		}
		grp[i] = (uint32_t)((uintptr_t)p - 1);
		v->nodes[kids[grp[i]]].ninst++;
	}
	/* lay the instances out contiguously per child */
	base = v->ninst;
	HPC_GROW(v->inst, v->ninst + ncand, v->inst_alloc);
	fill = xcalloc(nk ? nk : 1, sizeof(*fill));
	for (i = 0; i < nk; i++) {
		v->nodes[kids[i]].inst_start = (uint32_t)base;
		base += v->nodes[kids[i]].ninst;
	}
	for (i = 0; i < ncand; i++) {
		struct vnode *c = &v->nodes[kids[grp[i]]];
		size_t met;
		double *vals = vnode_vals(v, kids[grp[i]]);

		v->inst[c->inst_start + fill[grp[i]]++] = cand[i];
		for (met = 0; met < nmet(v); met++)
			if (m->metrics[met].additive &&
			    (cand[i].counted ||
			     m->metrics[met].type != MT_INCLUSIVE))
				vals[met] += model_value(m, cand[i].bottom, met);
	}
	v->ninst += ncand;
	set_children(v, n, kids, (uint32_t)nk);
	free(fill);
	free(kids);
	free(grp);
	hmap_free(groups);
}

static void build_bottom_up(struct view *v, uint32_t n)
{
	const struct model *m = v->b->m;
	struct bu_inst *cand = NULL;
	size_t nc = 0, alloc = 0, i;

	if (n == 0) {
		for (i = 1; i < m->nscopes; i++) {
			uint32_t s = (uint32_t)i, p;

			if (!model_is_frame(m, s))
				continue;
			HPC_GROW(cand, nc + 1, alloc);
			cand[nc].bottom = cand[nc].cur = s;
			cand[nc].counted = 1;
			for (p = model_caller_frame(m, s); p != MODEL_NONE;
			     p = model_caller_frame(m, p))
				if (same_proc(m, p, s)) {
					cand[nc].counted = 0;
					break;
				}
			nc++;
		}
	} else {
		struct vnode nd = v->nodes[n];

		for (i = 0; i < nd.ninst; i++) {
			struct bu_inst in = v->inst[nd.inst_start + i];
			uint32_t c = model_caller_frame(m, in.cur);

			if (c == MODEL_NONE)
				continue;
			HPC_GROW(cand, nc + 1, alloc);
			in.cur = c;
			cand[nc++] = in;
		}
	}
	bu_group(v, n, cand, nc);
	free(cand);
}

/* ---- flat ---- */

struct flat_key {
	uint32_t parent, kind, name, file, line;
};

static uint32_t flat_child(struct view *v, struct hmap *h, uint32_t parent,
			   int kind, uint32_t name, uint32_t file,
			   uint32_t line, uint32_t scope)
{
	struct flat_key k;
	void *p;

	memset(&k, 0, sizeof(k));
	k.parent = parent;
	k.kind = (uint32_t)kind;
	k.name = name;
	k.file = file;
	k.line = line;
	p = hmap_get(h, &k, sizeof(k));
	if (p)
		return (uint32_t)((uintptr_t)p - 1);
	p = (void *)(uintptr_t)(add_node(v, parent, kind, name, file, line,
					 scope) + 1);
	hmap_put(h, &k, sizeof(k), p);
	return (uint32_t)((uintptr_t)p - 1);
}

/* The flat nodes scope s adds its values to (own node first). */
static size_t flat_targets(struct view *v, const uint32_t *flat_of,
			   uint32_t s, uint32_t out[3])
{
	const struct model *m = v->b->m;
	size_t n = 0;

	if (m->scopes[s].kind == SK_ALIEN_SITE)
		return 0;
	out[n++] = flat_of[s];
	if (m->scopes[s].kind == SK_PROC) {
		out[n] = v->nodes[out[n - 1]].parent;	/* file */
		n++;
		out[n] = v->nodes[out[n - 1]].parent;	/* module */
		n++;
	}
	return n;
}

static void flat_enter(struct view *v, const uint32_t *flat_of,
		       uint32_t *active, uint32_t s)
{
	const struct model *m = v->b->m;
	uint32_t t[3];
	size_t nt = flat_targets(v, flat_of, s, t), i, met;

	for (i = 0; i < nt; i++) {
		double *vals = vnode_vals(v, t[i]);

		for (met = 0; met < nmet(v); met++)
			if (m->metrics[met].additive &&
			    (!active[t[i]] ||
			     m->metrics[met].type != MT_INCLUSIVE))
				vals[met] += model_value(m, s, met);
		active[t[i]]++;
	}
}

static void flat_exit(struct view *v, const uint32_t *flat_of,
		      uint32_t *active, uint32_t s)
{
	uint32_t t[3];
	size_t nt = flat_targets(v, flat_of, s, t), i;

	for (i = 0; i < nt; i++)
		active[t[i]]--;
}

static void build_flat(struct view *v)
{
	const struct model *m = v->b->m;
	struct hmap *h = hmap_new();
	uint32_t *flat_of = xmalloc(m->nscopes * sizeof(*flat_of));
	uint32_t *active, *stack, *count, *fill;
	size_t i, depth = 0;

	flat_of[0] = 0;
	for (i = 1; i < m->nscopes; i++) {
		const struct scope *sc = &m->scopes[i];
		uint32_t up = flat_of[sc->parent], lmn, fn;

		switch (sc->kind) {
		case SK_PROC:
			lmn = flat_child(v, h, 0, SK_MODULE, sc->lm, 0, 0,
					 MODEL_NONE);
			fn = flat_child(v, h, lmn, SK_FILE, sc->file, sc->file,
					0, MODEL_NONE);
			up = flat_child(v, h, fn, SK_PROC, sc->name, sc->file,
					0, (uint32_t)i);
			break;
		case SK_MODULE:
			up = flat_child(v, h, 0, SK_MODULE, sc->name, 0, 0,
					MODEL_NONE);
			break;
		case SK_FILE:
			if (v->nodes[up].kind != SK_MODULE)
				up = flat_child(v, h, 0, SK_MODULE, sc->lm, 0,
						0, MODEL_NONE);
			up = flat_child(v, h, up, SK_FILE, sc->name, sc->name,
					0, (uint32_t)i);
			break;
		case SK_ALIEN_SITE:
			break;
		case SK_INLINE:
			up = flat_child(v, h, up, SK_INLINE, sc->name, sc->file,
					0, (uint32_t)i);
			break;
		default:
			up = flat_child(v, h, up, sc->kind, 0, sc->file,
					sc->line, (uint32_t)i);
			break;
		}
		flat_of[i] = up;
	}
	hmap_free(h);

	/* values: pre-order walk with enter/exit events */
	active = xcalloc(v->nnodes, sizeof(*active));
	stack = xmalloc(m->nscopes * sizeof(*stack));
	for (i = 1; i < m->nscopes; i++) {
		uint32_t parent = m->scopes[i].parent;

		while (depth && stack[depth - 1] != parent)
			flat_exit(v, flat_of, active, stack[--depth]);
		flat_enter(v, flat_of, active, (uint32_t)i);
		stack[depth++] = (uint32_t)i;
	}
	free(stack);
	free(active);
	free(flat_of);
	root_values(v);

	/* children lists from parent links */
	count = xcalloc(v->nnodes + 1, sizeof(*count));
	for (i = 1; i < v->nnodes; i++)
		count[v->nodes[i].parent]++;
	for (i = 0; i < v->nnodes; i++) {
		v->nodes[i].children = count[i] ?
			xmalloc(count[i] * sizeof(uint32_t)) : NULL;
		v->nodes[i].built = 1;
	}
	fill = count;
	memset(fill, 0, (v->nnodes + 1) * sizeof(*fill));
	for (i = 1; i < v->nnodes; i++) {
		struct vnode *p = &v->nodes[v->nodes[i].parent];

		p->children[p->nchildren++] = (uint32_t)i;
	}
	free(count);
}

/* ---- view ---- */

static struct view *view_new(struct browser *b, enum view_kind kind)
{
	struct view *v = xcalloc(1, sizeof(*v));
	uint32_t root;

	v->b = b;
	v->kind = kind;
	root = add_node(v, VNONE, SK_ROOT, 0, 0, 0, 0);
	root_values(v);
	v->nodes[root].expanded = 1;
	HPC_GROW(v->zoom, 1, v->zoom_alloc);
	v->zoom[v->nzoom++] = root;
	if (kind == VIEW_FLAT)
		build_flat(v);
	view_rows(v);
	return v;
}

static void view_free(struct view *v)
{
	size_t i;

	if (!v)
		return;
	for (i = 0; i < v->nnodes; i++)
		free(v->nodes[i].children);
	free(v->nodes);
	free(v->vals);
	free(v->inst);
	free(v->zoom);
	free(v->flat_top);
	free(v->rows);
	free(v);
}

const char *view_name(enum view_kind kind)
{
	static const char *const names[] = { "top-down", "bottom-up", "flat" };

	return names[kind];
}

const char *view_kind_name(int kind)
{
	switch (kind) {
	case SK_ROOT: return "root";
	case SK_PROC: return "procedure";
	case SK_INLINE: return "inlined";
	case SK_LOOP: return "loop";
	case SK_STMT: return "line";
	case SK_CALL: return "call";
	case SK_FILE: return "file";
	case SK_MODULE: return "module";
	default: return "inline-site";
	}
}

static const char *base_name(const char *p)
{
	const char *s = strrchr(p, '/');

	return s ? s + 1 : p;
}

/* Appends PREFIX "file:line", "file" or "line N", or nothing if unknown. */
static void add_loc(struct strbuf *out, const char *prefix, const char *file,
		    uint32_t line)
{
	if (*file && line)
		strbuf_addf(out, "%s%s:%u", prefix, file, line);
	else if (*file)
		strbuf_addf(out, "%s%s", prefix, file);
	else if (line)
		strbuf_addf(out, "%sline %u", prefix, line);
}

void view_label(struct view *v, uint32_t n, struct strbuf *out)
{
	const struct model *m = v->b->m;
	const struct vnode *nd = &v->nodes[n];
	const char *name = model_str(m, nd->name);
	const char *file = base_name(model_str(m, nd->file));

	switch (nd->kind) {
	case SK_ROOT:
		strbuf_addstr(out, "Experiment Aggregate Metrics");
		break;
	case SK_PROC:
		strbuf_addstr(out, *name ? name : "<unknown procedure>");
		break;
	case SK_INLINE:
		strbuf_addf(out, "[I] %s", *name ? name : "<unknown>");
		break;
	case SK_LOOP:
		strbuf_addstr(out, "loop");
		add_loc(out, " at ", file, nd->line);
		break;
	case SK_STMT:
		if (!*file && !nd->line)
			strbuf_addstr(out, "<unknown line>");
		add_loc(out, "", file, nd->line);
		break;
	case SK_CALL:
		strbuf_addstr(out, "call");
		add_loc(out, " at ", file, nd->line);
		break;
	case SK_MODULE:
		strbuf_addstr(out, *name ? base_name(name) : "<unknown module>");
		break;
	case SK_FILE:
		strbuf_addstr(out, *name ? name : "<unknown file>");
		break;
	default:
		strbuf_addstr(out, "inlined");
		add_loc(out, " at ", file, nd->line);
		break;
	}
}

static void ensure_built(struct view *v, uint32_t n)
{
	if (v->nodes[n].built)
		return;
	if (v->kind == VIEW_TOP_DOWN)
		build_top_down(v, n);
	else
		build_bottom_up(v, n);
}

static int cmp_nodes(const void *pa, const void *pb, void *arg)
{
	struct view *v = arg;
	uint32_t a = *(const uint32_t *)pa, b = *(const uint32_t *)pb;
	double va = view_value(v, a, v->b->sort_col);
	double vb = view_value(v, b, v->b->sort_col);
	struct strbuf la = STRBUF_INIT, lb = STRBUF_INIT;
	int r;

	if (va != vb)
		return (va < vb) == !v->b->sort_ascending ? 1 : -1;
	view_label(v, a, &la);
	view_label(v, b, &lb);
	r = strcmp(la.buf, lb.buf);
	strbuf_release(&la);
	strbuf_release(&lb);
	if (r)
		return r;
	return a < b ? -1 : a > b;
}

static void sort_list(struct view *v, uint32_t *list, size_t n)
{
	if (n > 1 && v->b->ncols)
		qsort_r(list, n, sizeof(*list), cmp_nodes, v);
}

const uint32_t *view_children(struct view *v, uint32_t n, uint32_t *count)
{
	struct vnode *nd;

	if (v->flatten && n == view_display_root(v)) {
		*count = (uint32_t)v->nflat_top;
		sort_list(v, v->flat_top, v->nflat_top);
		return v->flat_top;
	}
	ensure_built(v, n);
	nd = &v->nodes[n];
	if (nd->sort_gen != v->b->sort_gen) {
		sort_list(v, nd->children, nd->nchildren);
		nd->sort_gen = v->b->sort_gen;
	}
	*count = nd->nchildren;
	return nd->children;
}

int view_has_children(struct view *v, uint32_t n)
{
	uint32_t c;

	view_children(v, n, &c);
	return c > 0;
}

struct eval_at {
	struct view *v;
	uint32_t n;
};

static double column_at(void *arg, size_t col)
{
	struct eval_at *at = arg;

	return view_value(at->v, at->n, col);
}

double view_value(struct view *v, uint32_t n, size_t col)
{
	const struct column *c = &v->b->cols[col];

	struct eval_at at = { v, n };
	double x;

	if (c->metric >= 0)
		return vnode_vals(v, n)[c->metric];
	x = formula_eval(c->f, column_at, &at);
	return isfinite(x) ? x : 0;	/* division by zero: no value */
}

double view_percent(struct view *v, uint32_t n, size_t col)
{
	double total = view_value(v, 0, col);

	if (!v->b->cols[col].show_percent || total == 0)
		return -1;
	return 100.0 * view_value(v, n, col) / total;
}

uint32_t view_display_root(const struct view *v)
{
	return v->zoom[v->nzoom - 1];
}

void view_rows(struct view *v)
{
	uint32_t root = view_display_root(v);
	struct row *stack = NULL;
	size_t sp = 0, salloc = 0;

	v->nrows = 0;
	HPC_GROW(stack, 1, salloc);
	stack[sp].node = root;
	stack[sp++].depth = 0;
	while (sp) {
		struct row r = stack[--sp];
		const uint32_t *kids;
		uint32_t nk, i;

		HPC_GROW(v->rows, v->nrows + 1, v->rows_alloc);
		v->rows[v->nrows++] = r;
		if (!v->nodes[r.node].expanded)
			continue;
		kids = view_children(v, r.node, &nk);
		HPC_GROW(stack, sp + nk, salloc);
		for (i = nk; i > 0; i--) {
			stack[sp].node = kids[i - 1];
			stack[sp++].depth = r.depth + 1;
		}
	}
	free(stack);
	if (v->sel >= v->nrows)
		v->sel = v->nrows ? v->nrows - 1 : 0;
}

void view_expand_depth(struct view *v, long depth)
{
	struct row *stack = NULL;
	size_t sp = 0, salloc = 0;

	HPC_GROW(stack, 1, salloc);
	stack[sp].node = view_display_root(v);
	stack[sp++].depth = 0;
	while (sp) {
		struct row r = stack[--sp];
		const uint32_t *kids;
		uint32_t nk, i;

		if (depth >= 0 && r.depth >= (uint32_t)depth) {
			v->nodes[r.node].expanded = 0;
			continue;
		}
		v->nodes[r.node].expanded = 1;
		kids = view_children(v, r.node, &nk);
		HPC_GROW(stack, sp + nk, salloc);
		for (i = 0; i < nk; i++) {
			stack[sp].node = kids[i];
			stack[sp++].depth = r.depth + 1;
		}
	}
	free(stack);
	view_rows(v);
}

uint32_t view_hot_path(struct view *v, uint32_t n, double threshold)
{
	size_t col = v->b->sort_col;

	for (;;) {
		const uint32_t *kids;
		uint32_t nk, i, best = VNONE;
		double pv = view_value(v, n, col), bv = 0;

		kids = view_children(v, n, &nk);
		if (!nk)
			break;
		v->nodes[n].expanded = 1;
		for (i = 0; i < nk; i++) {
			double cv = view_value(v, kids[i], col);

			if (best == VNONE || cv > bv) {
				best = kids[i];
				bv = cv;
			}
		}
		if (pv <= 0 || bv < threshold * pv)
			break;
		n = best;
	}
	return n;
}

static int in_flat_top(const struct view *v, uint32_t n)
{
	size_t i;

	for (i = 0; v->flatten && i < v->nflat_top; i++)
		if (v->flat_top[i] == n)
			return 1;
	return 0;
}

size_t view_reveal(struct view *v, uint32_t n)
{
	uint32_t root = view_display_root(v), p = n;
	size_t i;

	while (p != root && !in_flat_top(v, p) && p != VNONE) {
		p = v->nodes[p].parent;
		if (p != VNONE)
			v->nodes[p].expanded = 1;
	}
	v->nodes[root].expanded = 1;
	view_rows(v);
	for (i = 0; i < v->nrows; i++)
		if (v->rows[i].node == n)
			return i;
	return 0;
}

/* Position of x in kids[0..nk), or nk when absent. */
static uint32_t index_in(const uint32_t *kids, uint32_t nk, uint32_t x)
{
	uint32_t i;

	for (i = 0; i < nk && kids[i] != x; i++)
		;
	return i;
}

struct find_frame {
	uint32_t node;
	uint32_t next;		/* index of the next child to visit */
};

struct find_walk {
	struct view *v;
	uint32_t root;
	struct find_frame *st;
	size_t sp, alloc;
};

static void walk_push(struct find_walk *w, uint32_t node, uint32_t next)
{
	HPC_GROW(w->st, w->sp + 1, w->alloc);
	w->st[w->sp].node = node;
	w->st[w->sp++].next = next;
}

/* The next node in pre-order of the display tree, wrapping to the root. */
static uint32_t walk_next(struct find_walk *w)
{
	while (w->sp) {
		struct find_frame *f = &w->st[w->sp - 1];
		uint32_t nk;
		const uint32_t *kids = view_children(w->v, f->node, &nk);

		if (f->next < nk) {
			uint32_t c = kids[f->next++];

			walk_push(w, c, 0);
			return c;
		}
		w->sp--;
	}
	walk_push(w, w->root, 0);
	return w->root;
}

/*
 * Sets up the walk so that walk_next() continues after n: one frame per
 * ancestor, each positioned after the child on n's path.  Returns 0, or -1
 * when n is not in the display tree.  Only the path is visited, so a find
 * that matches nearby never builds the rest of a large tree.
 */
static int walk_start_at(struct find_walk *w, uint32_t n)
{
	uint32_t *path = NULL, x = n, nk, rk;
	size_t np = 0, alloc = 0, i;
	const uint32_t *rkids = view_children(w->v, w->root, &rk);

	for (;;) {
		HPC_GROW(path, np + 1, alloc);
		path[np++] = x;
		if (x == w->root)
			break;
		if (index_in(rkids, rk, x) < rk) {	/* a (flattened) top row */
			HPC_GROW(path, np + 1, alloc);
			path[np++] = w->root;
			break;
		}
		x = w->v->nodes[x].parent;
		if (x == VNONE || x >= w->v->nnodes) {
			free(path);
			return -1;
		}
	}
	for (i = np; i-- > 1;) {
		const uint32_t *kids = view_children(w->v, path[i], &nk);

		walk_push(w, path[i], index_in(kids, nk, path[i - 1]) + 1);
	}
	walk_push(w, n, 0);
	free(path);
	return 0;
}

static int label_matches(struct view *v, const void *re, uint32_t x,
			 struct strbuf *sb)
{
	strbuf_reset(sb);
	view_label(v, x, sb);
	return !regexec(re, sb->buf, 0, NULL, 0);
}

uint32_t view_find(struct view *v, const void *re, uint32_t n)
{
	struct find_walk w = { v, view_display_root(v), NULL, 0, 0 };
	struct strbuf sb = STRBUF_INIT;
	uint32_t x, found = VNONE;

	if (n == VNONE || walk_start_at(&w, n) < 0) {
		/* Not shown: search from the top, the root first. */
		n = w.root;
		w.sp = 0;
		walk_push(&w, n, 0);
		if (label_matches(v, re, n, &sb))
			found = n;
	}
	while (found == VNONE) {
		x = walk_next(&w);
		if (label_matches(v, re, x, &sb))
			found = x;
		else if (x == n)
			break;		/* back where we started */
	}
	strbuf_release(&sb);
	free(w.st);
	return found;
}

static void compute_flat_top(struct view *v)
{
	uint32_t *list = NULL, *next = NULL;
	size_t n = 0, alloc = 0, nn, nalloc = 0, i;
	const uint32_t *kids;
	uint32_t nk, k;
	int level, saved = v->flatten;

	v->flatten = 0;
	kids = view_children(v, view_display_root(v), &nk);
	HPC_GROW(list, nk + 1, alloc);
	memcpy(list, kids, nk * sizeof(*kids));
	n = nk;
	for (level = 0; level < saved; level++) {
		nn = 0;
		for (i = 0; i < n; i++) {
			kids = view_children(v, list[i], &nk);
			if (!nk) {
				HPC_GROW(next, nn + 1, nalloc);
				next[nn++] = list[i];
			}
			for (k = 0; k < nk; k++) {
				HPC_GROW(next, nn + 1, nalloc);
				next[nn++] = kids[k];
			}
		}
		free(list);
		list = next;
		n = nn;
		alloc = nalloc;
		next = NULL;
		nalloc = 0;
	}
	v->flatten = saved;
	free(v->flat_top);
	v->flat_top = list;
	v->nflat_top = n;
	v->flat_top_alloc = alloc;
}

int view_flatten(struct view *v)
{
	size_t before = v->nflat_top;
	uint32_t nk;

	if (v->kind != VIEW_FLAT)
		return -1;
	if (!v->flatten)
		view_children(v, view_display_root(v), &nk), before = nk;
	v->flatten++;
	compute_flat_top(v);
	if (v->nflat_top == before) {
		v->flatten--;
		compute_flat_top(v);
		return -1;
	}
	view_rows(v);
	return 0;
}

int view_unflatten(struct view *v)
{
	if (v->kind != VIEW_FLAT || !v->flatten)
		return -1;
	v->flatten--;
	compute_flat_top(v);
	view_rows(v);
	return 0;
}

int view_zoom_in(struct view *v, uint32_t n)
{
	if (n == view_display_root(v) || !view_has_children(v, n))
		return -1;
	HPC_GROW(v->zoom, v->nzoom + 1, v->zoom_alloc);
	v->zoom[v->nzoom++] = n;
	v->nodes[n].expanded = 1;
	if (v->flatten)
		compute_flat_top(v);
	v->sel = 0;
	view_rows(v);
	return 0;
}

int view_zoom_out(struct view *v)
{
	uint32_t n;

	if (v->nzoom == 1)
		return -1;
	n = v->zoom[--v->nzoom];
	if (v->flatten)
		compute_flat_top(v);
	v->sel = view_reveal(v, n);
	return 0;
}

/* ---- browser ---- */

static char *column_name(const struct model_metric *mm)
{
	struct strbuf sb = STRBUF_INIT;
	size_t len = strlen(mm->name);

	strbuf_addstr(&sb, mm->name);
	if (mm->type == MT_INCLUSIVE &&
	    (len < 3 || strcmp(mm->name + len - 3, "(I)")))
		strbuf_addstr(&sb, " (I)");
	if (mm->type == MT_EXCLUSIVE &&
	    (len < 3 || strcmp(mm->name + len - 3, "(E)")))
		strbuf_addstr(&sb, " (E)");
	return strbuf_detach(&sb, NULL);
}

struct browser *browser_new(struct model *m)
{
	struct browser *b = xcalloc(1, sizeof(*b));
	size_t i, alloc = 0;

	b->m = m;
	b->sort_gen = 1;
	for (i = 0; i < m->nmetrics; i++) {
		const struct model_metric *mm = &m->metrics[i];
		struct column *c;

		if (mm->show == 4)
			continue;
		HPC_GROW(b->cols, b->ncols + 1, alloc);
		c = &b->cols[b->ncols++];
		memset(c, 0, sizeof(*c));
		c->name = column_name(mm);
		c->metric = (int)i;
		c->hidden = mm->show == 0;
		c->show_percent = mm->show_percent;
	}
	return b;
}

void browser_free(struct browser *b)
{
	size_t i;

	if (!b)
		return;
	for (i = 0; i < VIEW_COUNT; i++)
		view_free(b->views[i]);
	for (i = 0; i < b->ncols; i++) {
		free(b->cols[i].name);
		formula_free(b->cols[i].f);
	}
	free(b->cols);
	free(b);
}

struct view *browser_view(struct browser *b, enum view_kind kind)
{
	if (!b->views[kind])
		b->views[kind] = view_new(b, kind);
	return b->views[kind];
}

void browser_sort(struct browser *b, size_t c, int ascending)
{
	size_t i;

	b->sort_col = c;
	b->sort_ascending = ascending;
	b->sort_gen++;
	for (i = 0; i < VIEW_COUNT; i++)
		if (b->views[i])
			view_rows(b->views[i]);
}

/* ---- derived columns ---- */

/* "$N" is column N (from 1); any other name is a column's header. */
static struct formula *resolve_column(void *arg, const char *name)
{
	struct browser *b = arg;
	size_t i;

	if (name[0] == '$') {
		unsigned long c = strtoul(name + 1, NULL, 10);

		return c >= 1 && c <= b->ncols ? formula_raw(c - 1) : NULL;
	}
	for (i = 0; i < b->ncols; i++)
		if (!strcmp(b->cols[i].name, name))
			return formula_raw(i);
	return NULL;
}

int browser_add_derived(struct browser *b, const char *name,
			const char *formula)
{
	struct formula *f = formula_parse(formula, resolve_column, b);
	struct column *c;
	size_t alloc = b->ncols;

	if (!f)
		return -1;
	HPC_GROW(b->cols, b->ncols + 1, alloc);
	c = &b->cols[b->ncols++];
	memset(c, 0, sizeof(*c));
	c->name = xstrdup(name);
	c->metric = -1;
	c->f = f;
	c->show_percent = 1;
	return 0;
}
