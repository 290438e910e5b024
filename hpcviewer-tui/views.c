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
 *     cur, passing over callers whose procedure is already on the node's
 *     path to level 1 (recursion folded: f called by f ... by main is f
 *     called by main), so no path repeats a procedure and a recursion
 *     N deep costs N instances, not N^2/2.  An instance is "counted" for
 *     inclusive metrics when no other instance of its node encloses its
 *     bottom frame (so recursion is not counted twice, and a node's
 *     inclusive value is never below its exclusive one); exclusive metrics
 *     add every instance.  A node's instances are kept in pre-order of
 *     their bottom frames, so one sweep with each frame's subtree end
 *     decides that.  Level 1 is one pre-order pass; each build of callers
 *     walks each frame once (struct bu_state), so the time and memory of a
 *     view are linear in the rows it shows.
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
#include "hpcpy.h"
#include "units.h"
#include "dataview.h"
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

/* Invariant 3: a row that sums scopes computes its derived metrics from
 * its sums (an instruction-mix share is its class's samples over its
 * samples, not a sum of the scopes' shares). */
static void derive_values(struct view *v, uint32_t n)
{
	const struct model *m = v->b->m;
	double *vals = vnode_vals(v, n);
	size_t met;

	for (met = 0; met < nmet(v); met++)
		if (m->metrics[met].view)
			vals[met] = model_derive(m, met, vals);
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
	const struct model *m = v->b->m;
	const struct scope *sc;
	double *vals;
	uint32_t k;

	if (!nmet(v))
		return;
	vals = vnode_vals(v, 0);
	if (v->kind != VIEW_DATA) {
		memcpy(vals, m->total, nmet(v) * sizeof(double));
		return;
	}
	/* dataview.h invariant 2: the data root's values */
	if (m->data_root == MODEL_NONE)
		return;
	sc = &m->scopes[m->data_root];
	for (k = 0; k < sc->nval; k++)
		vals[m->vals[sc->val_start + k].metric] =
			m->vals[sc->val_start + k].v;
}

/* ---- top-down ---- */

/* Invariant 3: the row over the per-phase profiles, a child of the root,
 * with the nphase top-down nodes of phases[] as its children. */
static uint32_t phases_row(struct view *v, const uint32_t *phases,
			   size_t nphase)
{
	uint32_t g = add_node(v, 0, SK_PHASES, 0, 0, 0, MODEL_NONE);
	size_t i;

	for (i = 0; i < nphase; i++)
		v->nodes[phases[i]].parent = g;
	set_children(v, g, phases, (uint32_t)nphase);
	return g;
}

static void build_top_down(struct view *v, uint32_t n)
{
	const struct model *m = v->b->m;
	uint32_t s = v->nodes[n].scope, c, *kids = NULL, *phases = NULL;
	size_t nk = 0, alloc = 0, nphase = 0, phase_alloc = 0;

	/* a data view without a data tree is empty */
	for (c = s == MODEL_NONE ? MODEL_NONE : m->scopes[s].first_child; c != MODEL_NONE;
	     c = m->scopes[c].next_sibling) {
		uint32_t k;

		if (m->scopes[c].kind == SK_DATA) {
			/* the data view's level 1: a kind's objects */
			uint32_t o;

			for (o = m->scopes[c].first_child; o != MODEL_NONE;
			     o = m->scopes[o].next_sibling) {
				k = add_scope_node(v, n, o);
				HPC_GROW(kids, nk + 1, alloc);
				kids[nk++] = k;
			}
			continue;
		}
		k = add_scope_node(v, n, c);
		if (m->scopes[c].phase && n == 0) {
			HPC_GROW(phases, nphase + 1, phase_alloc);
			phases[nphase++] = k;
			continue;
		}
		HPC_GROW(kids, nk + 1, alloc);
		kids[nk++] = k;
	}
	if (nphase) {
		HPC_GROW(kids, nk + 1, alloc);
		kids[nk++] = phases_row(v, phases, nphase);
	}
	set_children(v, n, kids, (uint32_t)nk);
	free(kids);
	free(phases);
}

uint32_t view_scope_node(struct view *v, uint32_t s)
{
	const struct model *m = v->b->m;
	uint32_t *chain = NULL, n = 0, k, x;
	size_t nc = 0, alloc = 0;

	if (v->kind != VIEW_TOP_DOWN)
		return VNONE;
	for (x = s; x != 0 && x != MODEL_NONE; x = m->scopes[x].parent) {
		HPC_GROW(chain, nc + 1, alloc);
		chain[nc++] = x;
	}
	while (nc-- > 0 && n != VNONE) {
		uint32_t count;
		const uint32_t *kids = view_children(v, n, &count);

		if (n == 0 && m->scopes[chain[nc]].phase) {
			/* invariant 3: the phases' row, last */
			n = count ? kids[count - 1] : VNONE;
			if (n == VNONE || v->nodes[n].kind != SK_PHASES) {
				n = VNONE;
				break;
			}
			kids = view_children(v, n, &count);
		}
		for (k = 0; k < count && v->nodes[kids[k]].scope != chain[nc];
		     k++)
			;
		n = k < count ? kids[k] : VNONE;
	}
	free(chain);
	return n;
}

/* ---- bottom-up ---- */

/*
 * What the bottom-up builds share: each frame's procedure as a dense id,
 * and per-build stamps (design note 2).  on_path[p] == stamp marks the
 * procedures on the path being extended; skip_stamp[s] == stamp says that
 * skip_to[s] is the first frame at or above frame s whose procedure is not
 * on that path, so the instances of one build walk each frame once.
 */
struct bu_state {
	uint32_t *proc_of;		/* [nscopes] */
	uint32_t *end;			/* [nscopes]: the last scope of each
					 * scope's subtree (pre-order) */
	uint32_t *on_path;		/* [nprocs] */
	uint32_t *skip_stamp, *skip_to;	/* [nscopes] */
	uint32_t nprocs;
	uint32_t *walk;			/* frames visited by one skip */
	size_t walk_alloc;
	uint32_t stamp;
};

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

static struct bu_state *bu_state_new(const struct model *m)
{
	struct bu_state *bu = xcalloc(1, sizeof(*bu));
	struct hmap *ids = hmap_new();
	uint32_t nprocs = 0;
	size_t s;

	bu->proc_of = xcalloc(m->nscopes, sizeof(*bu->proc_of));
	for (s = 1; s < m->nscopes; s++) {
		struct proc_key k;
		void *p;

		if (!model_is_frame(m, (uint32_t)s))
			continue;
		k = key_of(m, (uint32_t)s);
		p = hmap_get(ids, &k, sizeof(k));
		if (!p) {
			p = (void *)(uintptr_t)++nprocs;
			hmap_put(ids, &k, sizeof(k), p);
		}
		bu->proc_of[s] = (uint32_t)((uintptr_t)p - 1);
	}
	hmap_free(ids);
	bu->end = xmalloc(m->nscopes * sizeof(*bu->end));
	for (s = 0; s < m->nscopes; s++)
		bu->end[s] = (uint32_t)s;
	for (s = m->nscopes - 1; s > 0; s--) {
		uint32_t p = m->scopes[s].parent;

		if (bu->end[s] > bu->end[p])
			bu->end[p] = bu->end[s];
	}
	bu->nprocs = nprocs;
	bu->on_path = xcalloc(nprocs ? nprocs : 1, sizeof(*bu->on_path));
	bu->skip_stamp = xcalloc(m->nscopes, sizeof(*bu->skip_stamp));
	bu->skip_to = xcalloc(m->nscopes, sizeof(*bu->skip_to));
	return bu;
}

static void bu_state_free(struct bu_state *bu)
{
	if (!bu)
		return;
	free(bu->proc_of);
	free(bu->end);
	free(bu->on_path);
	free(bu->skip_stamp);
	free(bu->skip_to);
	free(bu->walk);
	free(bu);
}

/*
 * Groups candidate instances (cand[i] is the frame that becomes cur, in
 * pre-order of their bottom frames) into new child nodes of n, keyed by
 * the procedure of the frame, and decides which are counted (design
 * note 2).
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
		uint32_t proc = v->bu->proc_of[cand[i].cur];
		void *p = hmap_get(groups, &proc, sizeof(proc));

		if (!p) {
			const struct scope *sc = &m->scopes[cand[i].cur];
			uint32_t c = add_node(v, n, SK_PROC, sc->name,
					      sc->file, sc->line, cand[i].cur);

			HPC_GROW(kids, nk + 1, alloc);
			kids[nk++] = c;
			p = (void *)(uintptr_t)nk;
			hmap_put(groups, &proc, sizeof(proc), p);
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

		v->inst[c->inst_start + fill[grp[i]]++] = cand[i];
	}
	for (i = 0; i < nk; i++) {
		const struct vnode *c = &v->nodes[kids[i]];
		double *vals = vnode_vals(v, kids[i]);
		uint32_t reach = 0, k;
		size_t met;

		for (k = 0; k < c->ninst; k++) {
			struct bu_inst *in = &v->inst[c->inst_start + k];

			in->counted = in->bottom > reach;
			if (in->counted)
				reach = v->bu->end[in->bottom];
			for (met = 0; met < nmet(v); met++)
				if (m->metrics[met].additive &&
				    (in->counted ||
				     m->metrics[met].type != MT_INCLUSIVE))
					vals[met] += model_value(m, in->bottom,
								 met);
		}
		derive_values(v, kids[i]);
	}
	v->ninst += ncand;
	set_children(v, n, kids, (uint32_t)nk);
	free(fill);
	free(kids);
	free(grp);
	hmap_free(groups);
}

/* Every frame outside the per-phase profiles (model.h invariant 8), in
 * pre-order. */
static struct bu_inst *bu_frames(struct view *v, size_t *ncand)
{
	const struct model *m = v->b->m;
	struct bu_inst *cand = NULL;
	size_t nc = 0, alloc = 0, i;

	for (i = 1; i < m->nscopes; i++) {
		if (!model_is_frame(m, (uint32_t)i) || m->scopes[i].phase)
			continue;
		HPC_GROW(cand, nc + 1, alloc);
		cand[nc].bottom = cand[nc].cur = (uint32_t)i;
		cand[nc++].counted = 0;
	}
	*ncand = nc;
	return cand;
}

/* The first frame above s whose procedure is not on the marked path, or
 * MODEL_NONE; remembers the answer for every frame it passes. */
static uint32_t bu_skip(struct bu_state *bu, const struct model *m,
			uint32_t s)
{
	uint32_t x = model_caller_frame(m, s), to = MODEL_NONE;
	size_t nw = 0, i;

	while (x != MODEL_NONE) {
		if (bu->skip_stamp[x] == bu->stamp) {
			to = bu->skip_to[x];
			break;
		}
		if (bu->on_path[bu->proc_of[x]] != bu->stamp) {
			to = x;
			break;
		}
		HPC_GROW(bu->walk, nw + 1, bu->walk_alloc);
		bu->walk[nw++] = x;
		x = model_caller_frame(m, x);
	}
	for (i = 0; i < nw; i++) {
		bu->skip_stamp[bu->walk[i]] = bu->stamp;
		bu->skip_to[bu->walk[i]] = to;
	}
	return to;
}

static void build_bottom_up(struct view *v, uint32_t n)
{
	const struct model *m = v->b->m;
	struct bu_inst *cand = NULL;
	size_t nc = 0, alloc = 0, i;

	if (!v->bu)
		v->bu = bu_state_new(m);
	if (n == 0) {
		cand = bu_frames(v, &nc);
	} else {
		struct bu_state *bu = v->bu;
		uint32_t p;

		/* Recursion folded: callers whose procedure is already on
		 * the path from n to level 1 are passed over. */
		if (++bu->stamp == 0) {
			memset(bu->skip_stamp, 0,
			       m->nscopes * sizeof(*bu->skip_stamp));
			memset(bu->on_path, 0,
			       bu->nprocs * sizeof(*bu->on_path));
			bu->stamp = 1;
		}
		for (p = n; p != 0; p = v->nodes[p].parent)
			bu->on_path[bu->proc_of[v->nodes[p].scope]] = bu->stamp;
		for (i = 0; i < v->nodes[n].ninst; i++) {
			struct bu_inst in = v->inst[v->nodes[n].inst_start + i];

			in.cur = bu_skip(bu, m, in.cur);
			if (in.cur == MODEL_NONE)
				continue;
			HPC_GROW(cand, nc + 1, alloc);
			cand[nc++] = in;
		}
	}
	bu_group(v, n, cand, nc);
	free(cand);
}

/* ---- flat ---- */

/* A loop, statement or call without a line is told apart by its address
 * (stripped code: two loops of one procedure are two rows). */
struct flat_key {
	uint32_t parent, kind, name, file, line, addr;
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
	if (!line && (kind == SK_LOOP || kind == SK_STMT || kind == SK_CALL))
		k.addr = v->b->m->scopes[scope].addr;
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

		if (sc->phase) {	/* model.h invariant 8 */
			flat_of[i] = VNONE;
			continue;
		}
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

		if (m->scopes[i].phase)
			continue;
		while (depth && stack[depth - 1] != parent)
			flat_exit(v, flat_of, active, stack[--depth]);
		flat_enter(v, flat_of, active, (uint32_t)i);
		stack[depth++] = (uint32_t)i;
	}
	free(stack);
	free(active);
	for (i = 1; i < v->nnodes; i++)
		derive_values(v, (uint32_t)i);
	v->flat_of = flat_of;
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

/* The child of n with the largest value in the sort column, or VNONE. */
static uint32_t hottest_child(struct view *v, uint32_t n)
{
	const uint32_t *kids;
	uint32_t nk, i, best = VNONE;
	double bv = 0;

	kids = view_children(v, n, &nk);
	for (i = 0; i < nk; i++) {
		double cv = view_value(v, kids[i], v->b->sort_col);

		if (best == VNONE || cv > bv) {
			best = kids[i];
			bv = cv;
		}
	}
	return best;
}

/* Invariant 5: the first expansion of a view. */
static void open_hot(struct view *v)
{
	uint32_t n = 0;

	if (!v->b->ncols)
		return;
	if (v->kind == VIEW_TOP_DOWN) {
		view_hot_path(v, 0, VIEW_OPEN_HOT);
		return;
	}
	while (v->kind == VIEW_FLAT && n != VNONE &&
	       v->nodes[n].kind != SK_PROC) {
		v->nodes[n].expanded = 1;
		n = hottest_child(v, n);
	}
}

static struct view *view_new(struct browser *b, enum view_kind kind)
{
	struct view *v = xcalloc(1, sizeof(*v));
	uint32_t root;

	v->b = b;
	v->kind = kind;
	root = add_node(v, VNONE, SK_ROOT, 0, 0, 0,
			kind == VIEW_DATA ? b->m->data_root : 0);
	root_values(v);
	v->nodes[root].expanded = 1;
	HPC_GROW(v->zoom, 1, v->zoom_alloc);
	v->zoom[v->nzoom++] = root;
	if (kind == VIEW_FLAT)
		build_flat(v);
	open_hot(v);
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
	bu_state_free(v->bu);
	free(v->zoom);
	free(v->flat_top);
	free(v->flat_of);
	free(v->rows);
	free(v);
}

const char *view_name(enum view_kind kind)
{
	static const char *const names[] = {
		"top-down", "bottom-up", "flat", "functions", "data"
	};

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
	case SK_DATA: return "data";
	case SK_PHASES: return "phases";
	case SK_OBJ_HEAP: case SK_OBJ_STATIC: case SK_OBJ_STACK:
	case SK_OBJ_SMALL: case SK_OBJ_UNKNOWN:
		return dataview_kind_name(kind);
	default: return "inline-site";
	}
}

static const char *base_name(const char *p)
{
	const char *s = strrchr(p, '/');

	return s ? s + 1 : p;
}

/*
 * Where a loop, call or statement is: " at file.c:12", or for code without
 * a line (stripped binaries) its address in its module, " at
 * libfoo.so.1+0x1234", as hpcprof --text places it, so that nested loops
 * stay apart; the file alone when the address is unknown too.
 */
static void add_loc(struct view *v, const struct vnode *nd,
		    struct strbuf *out, const char *prefix)
{
	const struct model *m = v->b->m;
	const char *file = base_name(model_str(m, nd->file));
	uint32_t line = nd->line;
	const struct scope *sc = nd->scope == MODEL_NONE ? NULL :
				 &m->scopes[nd->scope];

	if (!line && sc && sc->addr && sc->lm)
		strbuf_addf(out, "%s%s+0x%x", prefix,
			    base_name(model_str(m, sc->lm)), sc->addr);
	else if (*file && line)
		strbuf_addf(out, "%s%s:%u", prefix, file, line);
	else if (*file)
		strbuf_addf(out, "%s%s", prefix, file);
	else if (line)
		strbuf_addf(out, "%sline %u", prefix, line);
}

/* " [libc.so.6]" after a procedure of a library, or of any module but
 * Python's in the bottom-up and functions views (invariant 3); the flat
 * view shows modules as rows. */
static void add_module(struct view *v, const struct vnode *nd,
		       struct strbuf *out)
{
	const struct model *m = v->b->m;
	uint32_t lm;

	if (v->kind == VIEW_FLAT || nd->scope == MODEL_NONE)
		return;
	lm = m->scopes[nd->scope].lm;
	if (lm && !strcmp(model_str(m, lm), HPCPY_MODULE))
		return;
	if (lm && (v->kind == VIEW_FUNCTIONS || v->kind == VIEW_BOTTOM_UP ||
		   model_lm_is_library(m, lm)))
		strbuf_addf(out, " [%s]", base_name(model_str(m, lm)));
}

static void node_label(struct view *v, const struct vnode *nd,
		       struct strbuf *out)
{
	const struct model *m = v->b->m;
	const char *name = model_str(m, nd->name);
	size_t start;

	switch (nd->kind) {
	case SK_ROOT:
		strbuf_addstr(out, "Experiment Aggregate Metrics");
		break;
	case SK_PROC:
		strbuf_addstr(out, *name ? name : "<unknown procedure>");
		add_module(v, nd, out);
		break;
	case SK_INLINE:
		strbuf_addf(out, "[I] %s", *name ? name : "<unknown>");
		break;
	case SK_LOOP:
		strbuf_addstr(out, "loop");
		add_loc(v, nd, out, " at ");
		break;
	case SK_STMT:
		start = out->len;
		add_loc(v, nd, out, "");
		if (out->len == start)
			strbuf_addstr(out, "<unknown line>");
		break;
	case SK_CALL:
		strbuf_addstr(out, "call");
		add_loc(v, nd, out, " at ");
		break;
	case SK_MODULE:
		strbuf_addstr(out, *name ? base_name(name) : "<unknown module>");
		break;
	case SK_OBJ_HEAP: case SK_OBJ_STATIC: case SK_OBJ_STACK:
	case SK_OBJ_SMALL: case SK_OBJ_UNKNOWN:
		dataview_label(m, nd->scope, out);
		break;
	case SK_FILE:
		strbuf_addstr(out, *name ? name : "<unknown file>");
		break;
	case SK_PHASES:
		strbuf_addstr(out, "<per-phase profiles (the samples above "
			      "again by phase; in no total)>");
		break;
	default:
		strbuf_addstr(out, "inlined");
		add_loc(v, nd, out, " at ");
		break;
	}
}

void view_label(struct view *v, uint32_t n, struct strbuf *out)
{
	node_label(v, &v->nodes[n], out);
}

void view_scope_label(struct view *v, uint32_t s, struct strbuf *out)
{
	const struct scope *sc = &v->b->m->scopes[s];
	struct vnode nd;

	memset(&nd, 0, sizeof(nd));
	nd.kind = sc->kind;
	nd.name = sc->name;
	nd.file = sc->file;
	nd.line = sc->line;
	nd.scope = s;
	node_label(v, &nd, out);
}

/* Flat view: the scopes of node n, with build_flat's rule (an inclusive
 * value counts where no enclosing scope of the same node counted it). */
static size_t flat_scopes(struct view *v, uint32_t n, int inclusive,
			  uint32_t **out)
{
	const struct model *m = v->b->m;
	uint32_t *stack = xmalloc(m->nscopes * sizeof(*stack)), t[3], *s = NULL;
	size_t depth = 0, active = 0, ns = 0, alloc = 0, i, k, nt;

	for (i = 1; i < m->nscopes; i++) {
		if (m->scopes[i].phase)
			continue;
		while (depth && stack[depth - 1] != m->scopes[i].parent) {
			nt = flat_targets(v, v->flat_of, stack[--depth], t);
			for (k = 0; k < nt; k++)
				active -= t[k] == n;
		}
		nt = flat_targets(v, v->flat_of, (uint32_t)i, t);
		for (k = 0; k < nt; k++) {
			if (t[k] != n)
				continue;
			if (!inclusive || !active) {
				HPC_GROW(s, ns + 1, alloc);
				s[ns++] = (uint32_t)i;
			}
			active++;
		}
		stack[depth++] = (uint32_t)i;
	}
	free(stack);
	*out = s;
	return ns;
}

size_t view_node_scopes(struct view *v, uint32_t n, int inclusive,
			uint32_t **out)
{
	const struct vnode *nd = &v->nodes[n];
	uint32_t *s = NULL;
	size_t ns = 0, alloc = 0, i;

	if (n == 0 || v->kind == VIEW_TOP_DOWN || v->kind == VIEW_DATA) {
		s = xmalloc(sizeof(*s));
		if (nd->kind != SK_PHASES)	/* invariant 3: no value */
			s[ns++] = n || v->kind == VIEW_DATA ? nd->scope : 0;
	} else if (v->kind == VIEW_FLAT) {
		return flat_scopes(v, n, inclusive, out);
	} else if (!nd->ninst) {	/* a node standing for one scope */
		s = xmalloc(sizeof(*s));
		if (nd->scope != MODEL_NONE)
			s[ns++] = nd->scope;
	} else {
		for (i = 0; i < nd->ninst; i++) {
			const struct bu_inst *in = &v->inst[nd->inst_start + i];

			if (inclusive && !in->counted)
				continue;
			HPC_GROW(s, ns + 1, alloc);
			s[ns++] = in->bottom;
		}
	}
	*out = s;
	return ns;
}

static void ensure_built(struct view *v, uint32_t n)
{
	if (v->nodes[n].built)
		return;
	if (v->kind == VIEW_TOP_DOWN || v->kind == VIEW_DATA)
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

	if ((v->nodes[a].kind == SK_PHASES) != (v->nodes[b].kind == SK_PHASES))
		return v->nodes[a].kind == SK_PHASES ? 1 : -1;	/* inv. 3 */
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

double view_metric_value(struct view *v, uint32_t n, size_t met)
{
	return vnode_vals(v, n)[met];
}

double view_percent(struct view *v, uint32_t n, size_t col)
{
	double total = view_value(v, 0, col);

	if (!v->b->cols[col].show_percent || total == 0 ||
	    v->nodes[n].kind == SK_PHASES)	/* invariant 3 */
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

	while (v->b->ncols) {
		uint32_t best = hottest_child(v, n);
		double pv = view_value(v, n, col);

		if (best == VNONE)
			break;
		v->nodes[n].expanded = 1;
		if (pv <= 0 || view_value(v, best, col) < threshold * pv)
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

/* Does the name end with " (I)" or " (E)" (HPCToolkit's names do)? */
static int has_type_suffix(const char *name)
{
	size_t len = strlen(name);

	return len >= 4 && name[len - 4] == ' ' && name[len - 3] == '(' &&
	       (name[len - 2] == 'I' || name[len - 2] == 'E') &&
	       name[len - 1] == ')';
}

/* The heading of metric i (struct column): (I)/(E) added only when another
 * metric has the same name, so a display name heads its column as
 * written. */
static char *column_name(const struct model *m, size_t i)
{
	const struct model_metric *mm = &m->metrics[i];
	struct strbuf sb = STRBUF_INIT;
	size_t k, len = strlen(mm->name);

	/* the unit goes before " (I)" too: "cpu clock (s) (I)" */
	if (has_type_suffix(mm->name)) {
		char *bare = xstrndup(mm->name, len - 4);

		units_heading(bare, mm->unit, &sb);
		strbuf_addstr(&sb, mm->name + len - 4);
		free(bare);
	} else {
		units_heading(mm->name, mm->unit, &sb);
	}
	for (k = 0; k < m->nmetrics && !has_type_suffix(mm->name); k++) {
		if (k == i || strcmp(m->metrics[k].name, mm->name))
			continue;
		if (mm->type == MT_INCLUSIVE)
			strbuf_addstr(&sb, " (I)");
		if (mm->type == MT_EXCLUSIVE)
			strbuf_addstr(&sb, " (E)");
		break;
	}
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
		c->name = column_name(m, i);
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

/* ---- metric names ---- */

static const char *const statistics[] = {
	"Sum", "Mean", "Min", "Max", "StdDev", "CoefVar", NULL
};

/* The length of the metric a name is a statistic of: "perf::cpu-clock"
 * in "perf::cpu-clock:Sum (I)", "cpi" in "cpi (I)". */
static size_t metric_base_len(const char *name)
{
	size_t len = strlen(name), i;
	const char *colon;

	if (has_type_suffix(name))
		len -= 4;
	colon = memrchr(name, ':', len);
	for (i = 0; colon && statistics[i]; i++)
		if ((size_t)(name + len - colon - 1) == strlen(statistics[i]) &&
		    !strncmp(colon + 1, statistics[i], strlen(statistics[i])))
			return (size_t)(colon - name);
	return len;
}

/* Takes a trailing inclusive/exclusive word off q (in place); returns
 * MT_INCLUSIVE, MT_EXCLUSIVE or MT_NIL. */
static enum metric_type type_word(char *q)
{
	static const struct { const char *w; enum metric_type t; } words[] = {
		{ "(i)", MT_INCLUSIVE }, { "(e)", MT_EXCLUSIVE },
		{ "inclusive", MT_INCLUSIVE }, { "exclusive", MT_EXCLUSIVE },
		{ "i", MT_INCLUSIVE }, { "e", MT_EXCLUSIVE },
	};
	size_t len = strlen(q), i, wl;

	for (i = 0; i < sizeof(words) / sizeof(words[0]); i++) {
		wl = strlen(words[i].w);
		if (len < wl || strcasecmp(q + len - wl, words[i].w))
			continue;
		if (len > wl && !strchr(" :", q[len - wl - 1]))
			continue;
		q[len - wl] = '\0';
		while (*q && strchr(" :", q[strlen(q) - 1]))
			q[strlen(q) - 1] = '\0';
		return words[i].t;
	}
	return MT_NIL;
}

static int column_is(const struct browser *b, size_t c, const char *name,
		     int (*cmp)(const char *, const char *))
{
	const struct model_metric *mm = b->cols[c].metric >= 0 ?
		&b->m->metrics[b->cols[c].metric] : NULL;

	return !cmp(b->cols[c].name, name) ||
	       (mm && (!cmp(mm->name, name) || !cmp(mm->id, name)));
}

static int column_contains(const struct browser *b, size_t c, const char *q)
{
	int met = b->cols[c].metric;

	return strcasestr(b->cols[c].name, q) ||
	       (met >= 0 && strcasestr(b->m->metrics[met].name, q));
}

/* Sets "'NAME': WHAT (A, B, ...)" listing the columns in list[0..n). */
static int column_error(const struct browser *b, const char *name,
			const char *what, const size_t *list, size_t n)
{
	struct strbuf sb = STRBUF_INIT;
	size_t i;

	for (i = 0; i < n; i++)
		strbuf_addf(&sb, "%s%s", i ? ", " : "", b->cols[list[i]].name);
	hpc_seterr("'%s': %s (%s)", name, what, n ? sb.buf : "none");
	strbuf_release(&sb);
	return -1;
}

/* Are the columns list[0..n) statistics of one metric? */
static int one_metric(const struct browser *b, const size_t *list, size_t n)
{
	const char *a, *x;
	size_t i, len;

	if (b->cols[list[0]].metric < 0)
		return n == 1;
	a = b->m->metrics[b->cols[list[0]].metric].name;
	len = metric_base_len(a);
	for (i = 1; i < n; i++) {
		if (b->cols[list[i]].metric < 0)
			return 0;
		x = b->m->metrics[b->cols[list[i]].metric].name;
		if (metric_base_len(x) != len || strncmp(a, x, len))
			return 0;
	}
	return 1;
}

/* Is column c's metric, without its statistic, q or "PREFIX:q" (any
 * case): "cpu-clock" for "perf::cpu-clock:Sum (I)", not for
 * "perf::cpu-clock.fp:Sum (I)"? */
static int base_is(const struct browser *b, size_t c, const char *q)
{
	const char *name;
	size_t len, ql = strlen(q);

	if (b->cols[c].metric < 0)
		return 0;
	name = b->m->metrics[b->cols[c].metric].name;
	len = metric_base_len(name);
	return len >= ql && !strncasecmp(name + len - ql, q, ql) &&
	       (len == ql || name[len - ql - 1] == ':');
}

/* Narrows cand[0..*nc) to the columns whose metric is q itself
 * (base_is) when they are statistics of one metric. */
static void prefer_base(const struct browser *b, const char *q, size_t *cand,
			size_t *nc)
{
	size_t *keep = xmalloc((*nc + 1) * sizeof(*keep)), n = 0, i;

	for (i = 0; i < *nc; i++)
		if (base_is(b, cand[i], q))
			keep[n++] = cand[i];
	if (n && one_metric(b, keep, n)) {
		memcpy(cand, keep, n * sizeof(*keep));
		*nc = n;
	}
	free(keep);
}

int browser_find_column(struct browser *b, const char *name)
{
	size_t *cand = xmalloc((b->ncols + 1) * sizeof(*cand));
	size_t nc = 0, c;
	enum metric_type type;
	char *q;
	int found = -1;

	for (c = 0; c < b->ncols; c++)
		if (column_is(b, c, name, strcmp)) {
			free(cand);
			return (int)c;
		}
	for (c = 0; c < b->ncols; c++)
		if (column_is(b, c, name, strcasecmp))
			cand[nc++] = c;
	if (nc == 1) {
		found = (int)cand[0];
		free(cand);
		return found;
	}
	q = xstrdup(name);
	type = type_word(q);
	for (c = 0, nc = 0; c < b->ncols; c++) {
		int met = b->cols[c].metric;

		if (column_contains(b, c, q) &&
		    (type == MT_NIL ||
		     (met >= 0 && b->m->metrics[met].type == type)))
			cand[nc++] = c;
	}
	if (nc > 1 && *q && !one_metric(b, cand, nc))
		prefer_base(b, q, cand, &nc);
	if (!nc) {
		for (c = 0; c < b->ncols; c++)
			cand[c] = c;
		column_error(b, name, "no such metric", cand, b->ncols);
	} else if (*q && !one_metric(b, cand, nc)) {
		column_error(b, name, "ambiguous metric", cand, nc);
	} else {
		found = (int)cand[0];
		for (c = 0; c < nc; c++)
			if (!b->cols[cand[c]].hidden) {
				found = (int)cand[c];
				break;
			}
	}
	free(q);
	free(cand);
	return found;
}

int browser_sort_exclusive(struct browser *b)
{
	const struct model *m = b->m;
	int met = b->ncols ? b->cols[b->sort_col].metric : -1;
	size_t c;

	if (met >= 0 && m->metrics[met].type == MT_INCLUSIVE)
		met = m->metrics[met].partner;
	for (c = 0; c < b->ncols; c++) {
		int cm = b->cols[c].metric;

		if (cm >= 0 && cm == met && m->metrics[cm].type == MT_EXCLUSIVE)
			break;
	}
	for (c = c < b->ncols ? c : 0; c < b->ncols; c++) {
		int cm = b->cols[c].metric;

		if (cm >= 0 && m->metrics[cm].type == MT_EXCLUSIVE &&
		    (cm == met || !b->cols[c].hidden))
			break;
	}
	if (c == b->ncols)
		return -1;
	browser_sort(b, c, 0);
	return 0;
}

/* ---- shown columns ---- */

/* After the shown columns changed: the sort column is a shown one. */
static void sort_shown(struct browser *b)
{
	size_t c;

	if (!b->ncols || !b->cols[b->sort_col].hidden)
		return;
	for (c = 0; c < b->ncols && b->cols[c].hidden; c++)
		;
	if (c < b->ncols)
		browser_sort(b, c, 0);
}

void browser_show_default(struct browser *b)
{
	const struct model *m = b->m;
	size_t c, pick = b->ncols;
	int met, partner;

	for (c = 0; c < b->ncols && pick == b->ncols; c++)
		if (!b->cols[c].hidden)
			pick = c;
	if (pick == b->ncols)
		return;
	met = b->cols[pick].metric;
	partner = met >= 0 ? m->metrics[met].partner : -1;
	for (c = 0; c < b->ncols; c++)
		b->cols[c].hidden = !(c == pick || (partner >= 0 &&
						   b->cols[c].metric == partner));
	sort_shown(b);
}

int browser_show_columns(struct browser *b, const char *list)
{
	unsigned char *want = xcalloc(b->ncols + 1, 1);
	char *copy = xstrdup(list), *name, *save = NULL;
	size_t c, n = 0;
	int ret = 0;

	for (name = strtok_r(copy, ",", &save); name && !ret;
	     name = strtok_r(NULL, ",", &save)) {
		int k;

		if (!strcmp(name, "all")) {
			for (c = 0; c < b->ncols; c++)
				want[c] |= b->cols[c].metric < 0 ||
					   b->m->metrics[b->cols[c].metric].show;
			n++;
			continue;
		}
		k = browser_find_column(b, name);
		if (k < 0)
			ret = -1;
		else
			want[k] = 1;
		n++;
	}
	if (!ret && !n)
		ret = hpc_seterr("'%s': no metric named", list);
	for (c = 0; c < b->ncols && !ret; c++)
		b->cols[c].hidden = !want[c];
	if (!ret)
		sort_shown(b);
	free(copy);
	free(want);
	return ret;
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
