/* scopes.c - build and normalize one procedure's scope tree (see scopes.h). */
#include <stdlib.h>
#include <string.h>

#include "error.h"
#include "hashmap.h"
#include "scopes.h"
#include "strbuf.h"

struct key {
	uintptr_t parent;
	uint32_t kind, file, line, name;
};

struct builder {
	struct proc_tree *t;
	const struct scope_ctx *c;
	const struct cfg *g;
	const struct loopnest *ln;
	struct hmap *index;
	int32_t *node_of;	/* insn -> inline node, -1 = none */
	int32_t *ctx;		/* loop -> inline node it sits under */
	uint32_t *lfile, *lline;	/* loop -> file, line */
	struct scope **lscope;	/* loop -> its scope, once met */
	int32_t *path;		/* scratch: inline nodes (descend) */
	size_t path_alloc;
	int32_t *chain;		/* scratch: loops, innermost first */
	size_t chain_alloc;
};

static int32_t node_parent(const struct builder *bd, int32_t n)
{
	return bd->c->d->nodes[n].parent;
}

static uint32_t node_depth(const struct builder *bd, int32_t n)
{
	return n < 0 ? 0 : bd->c->d->nodes[n].depth;
}

static int32_t lca(const struct builder *bd, int32_t a, int32_t b)
{
	while (a != b) {
		if (node_depth(bd, a) >= node_depth(bd, b))
			a = node_parent(bd, a);
		else
			b = node_parent(bd, b);
	}
	return a;
}

/* Scopes below the root are carved from chunks the tree frees at once. */
#define CHUNK_SCOPES 256

struct scope_chunk {
	struct scope_chunk *next;
	size_t used;
	struct scope s[CHUNK_SCOPES];
};

static struct scope *scope_new(struct proc_tree *t)
{
	struct scope_chunk *c = t->chunks;
	struct scope *s;

	if (!c || c->used == CHUNK_SCOPES) {
		c = xmalloc(sizeof(*c));
		c->next = t->chunks;
		c->used = 0;
		t->chunks = c;
	}
	s = &c->s[c->used++];
	memset(s, 0, sizeof(*s));
	return s;
}

static struct scope *child(struct builder *bd, struct scope *parent,
			   enum scope_kind kind, uint32_t file, uint32_t line,
			   uint32_t name)
{
	struct key k;
	struct scope *s;

	memset(&k, 0, sizeof(k));
	k.parent = (uintptr_t)parent;
	k.kind = kind;
	k.file = file;
	k.line = line;
	k.name = name;
	s = hmap_get(bd->index, &k, sizeof(k));
	if (s)
		return s;
	s = scope_new(bd->t);
	s->kind = kind;
	s->file = file;
	s->line = line;
	s->name = name;
	s->parent = parent;
	HPC_GROW(parent->kids, parent->nkids + 1, parent->kids_alloc);
	parent->kids[parent->nkids++] = s;
	hmap_put(bd->index, &k, sizeof(k), s);
	return s;
}

static void add_range(struct scope *s, uint64_t lo, uint64_t hi)
{
	if (s->nv > 0 && s->v[s->nv - 1].hi == lo) {
		s->v[s->nv - 1].hi = hi;
		return;
	}
	HPC_GROW(s->v, s->nv + 1, s->v_alloc);
	s->v[s->nv].lo = lo;
	s->v[s->nv].hi = hi;
	s->nv++;
}

/*
 * Rule 5: a statement, loop or call site at (file, line) placed in s; the
 * callee alien around s, through loops, keeps the lowest such line.
 */
static void note_line(struct scope *s, uint32_t file, uint32_t line)
{
	while (s->kind == SCOPE_LOOP)
		s = s->parent;
	if (s->kind != SCOPE_ALIEN || line == 0 || file == 0)
		return;
	if (s->file == 0)
		s->file = file;
	if (file == s->file && (s->first_line == 0 || line < s->first_line))
		s->first_line = line;
}

/* Descends from cur (at inline node from) to inline node to, a descendant. */
static struct scope *descend(struct builder *bd, struct scope *cur,
			     int32_t from, int32_t to)
{
	size_t n = 0;

	for (int32_t x = to; x != from && x >= 0; x = node_parent(bd, x)) {
		HPC_GROW(bd->path, n + 1, bd->path_alloc);
		bd->path[n++] = x;
	}
	while (n-- > 0) {
		const struct inline_node *in = &bd->c->d->nodes[bd->path[n]];

		note_line(cur, in->call_file, in->call_line);
		cur = child(bd, cur, SCOPE_CALLSITE, in->call_file,
			    in->call_line, 0);
		cur = child(bd, cur, SCOPE_ALIEN, in->callee_file,
			    in->callee_line, in->callee);
	}
	return cur;
}

static void insn_line(const struct builder *bd, uint64_t addr, uint32_t *file,
		      uint32_t *line)
{
	const struct linemap *m = &bd->c->d->lines;
	ptrdiff_t r = linemap_find(m, addr);

	*file = r < 0 ? 0 : m->rows[r].file;
	*line = r < 0 ? 0 : m->rows[r].line;
}

void scopes_proc_home(const struct scope_ctx *c, size_t pi, uint32_t *file,
		      uint32_t *line)
{
	const struct proc *p = &c->b->procs[pi];
	const struct subprog *s = debuginfo_subprog(c->d, p->lo);
	ptrdiff_t r;

	if (s && s->file) {
		*file = s->file;
		*line = s->line;
		return;
	}
	r = linemap_find(&c->d->lines, p->lo);
	if (r >= 0 && c->d->lines.rows[r].file) {
		*file = c->d->lines.rows[r].file;
		*line = c->d->lines.rows[r].line;
		return;
	}
	*file = c->nofile;
	*line = 0;
}

static int range_depth_cmp(const void *a, const void *b, void *arg)
{
	const struct debuginfo *d = arg;
	const struct inline_range *x = a, *y = b;

	return (int)d->nodes[x->node].depth - (int)d->nodes[y->node].depth;
}

/* Paints each instruction of [lo, hi) with its innermost inline node. */
static void paint_inlines(struct builder *bd, uint64_t lo, uint64_t hi)
{
	const struct debuginfo *d = bd->c->d;
	const struct cfg *g = bd->g;
	size_t first = debuginfo_first_range(d, lo), n = 0;
	struct inline_range *rs;

	while (first + n < d->nranges && d->ranges[first + n].lo < hi)
		n++;
	if (n == 0)
		return;
	rs = xmalloc(n * sizeof(*rs));
	memcpy(rs, d->ranges + first, n * sizeof(*rs));
	if (n > 1)
		qsort_r(rs, n, sizeof(*rs), range_depth_cmp, (void *)d);
	for (size_t k = 0; k < n; k++) {
		size_t a = 0, z = g->ninsns;

		while (a < z) {
			size_t mid = a + (z - a) / 2;

			if (g->insns[mid].addr < rs[k].lo)
				a = mid + 1;
			else
				z = mid;
		}
		for (; a < g->ninsns && g->insns[a].addr < rs[k].hi; a++)
			bd->node_of[a] = rs[k].node;
	}
	free(rs);
}

static int loop_within(const struct loopnest *ln, int32_t l, int32_t outer)
{
	for (; l >= 0; l = ln->loops[l].parent)
		if (l == outer)
			return 1;
	return 0;
}

/* The file and line of insn i seen from inline level ctx. */
static void line_at_level(const struct builder *bd, size_t i, int32_t ctx,
			  uint32_t *file, uint32_t *line)
{
	int32_t n = bd->node_of[i];

	if (node_depth(bd, n) > node_depth(bd, ctx)) {
		const struct inline_node *in;

		while (node_depth(bd, n) > node_depth(bd, ctx) + 1)
			n = node_parent(bd, n);
		in = &bd->c->d->nodes[n];
		*file = in->call_file;
		*line = in->call_line;
		return;
	}
	insn_line(bd, bd->g->insns[i].addr, file, line);
}

/* Whether inline node a is b or one of b's ancestors (-1 is the root). */
static int node_covers(const struct builder *bd, int32_t a, int32_t b)
{
	while (node_depth(bd, b) > node_depth(bd, a))
		b = node_parent(bd, b);
	return a == b;
}

struct node_count {
	int32_t node;
	uint32_t count;
};

/* Instructions of the loop under each inline node, for the vote. */
struct loop_votes {
	struct node_count *v;
	size_t n, alloc;
	size_t total;
};

#define VOTE_NODES_MAX 256

static void vote(struct loop_votes *lv, int32_t node)
{
	for (size_t k = 0; k < lv->n; k++)
		if (lv->v[k].node == node) {
			lv->v[k].count++;
			return;
		}
	if (lv->n >= VOTE_NODES_MAX)
		return;
	HPC_GROW(lv->v, lv->n + 1, lv->alloc);
	lv->v[lv->n].node = node;
	lv->v[lv->n].count = 1;
	lv->n++;
}

static uint32_t loop_depth(const struct loopnest *ln, int32_t l)
{
	uint32_t d = 0;

	for (; l >= 0; l = ln->loops[l].parent)
		d++;
	return d;
}

/*
 * Rule 2 refined: line tables give a few instructions of an inlined loop
 * to the caller (register copies, hoisted code), which would pull the loop
 * out of the callee.  A loop whose loop test (latch[l] - 1, the latest
 * back-edge branch) is inside an inlined callee that holds at least 3/4 of
 * its instructions sits inside that callee instead, but never outside its
 * parent loop's level.  (A loop around an inlined call keeps its test in
 * the caller, so it stays there.)  Loops are settled outer to inner.
 */
static void deepen_loop_levels(struct builder *bd, const size_t *latch)
{
	const struct cfg *g = bd->g;
	const struct loopnest *ln = bd->ln;
	size_t nl = ln->nloops;
	struct loop_votes *votes;
	int32_t *order;

	if (nl == 0 || bd->c->d->nnodes == 0)
		return;
	votes = xcalloc(nl, sizeof(*votes));
	order = xmalloc(nl * sizeof(*order));
	for (size_t b = 0; b < g->nblocks; b++) {
		for (size_t i = g->blocks[b].first; i <= g->blocks[b].last; i++) {
			for (int32_t l = ln->block_loop[b]; l >= 0;
			     l = ln->loops[l].parent) {
				votes[l].total++;
				for (int32_t x = bd->node_of[i]; x >= 0;
				     x = node_parent(bd, x))
					vote(&votes[l], x);
			}
		}
	}
	/* outer loops first: sort by nesting depth (counting sort) */
	{
		size_t k = 0;

		for (uint32_t d = 1; k < nl; d++)
			for (size_t l = 0; l < nl; l++)
				if (loop_depth(ln, (int32_t)l) == d)
					order[k++] = (int32_t)l;
	}
	for (size_t k = 0; k < nl; k++) {
		int32_t l = order[k], p = ln->loops[l].parent;
		int32_t c = bd->ctx[l];
		int deeper = 1;

		if (p >= 0 && !node_covers(bd, bd->ctx[p], c))
			c = bd->ctx[p];
		while (deeper) {
			deeper = 0;
			for (size_t e = 0; e < votes[l].n; e++) {
				const struct node_count *nc = &votes[l].v[e];

				if (node_parent(bd, nc->node) == c && latch[l] &&
				    node_covers(bd, nc->node, bd->node_of[latch[l] - 1]) &&
				    (uint64_t)nc->count * 4 >= (uint64_t)votes[l].total * 3) {
					c = nc->node;
					deeper = 1;
					break;
				}
			}
		}
		bd->ctx[l] = c;
	}
	for (size_t l = 0; l < nl; l++)
		free(votes[l].v);
	free(votes);
	free(order);
}

/*
 * Rule 3: a loop's line is the lowest line of its exit tests at its inline
 * level: branches with a successor inside the loop and one outside it.
 * The condition of a for or while loop is such a test wherever the
 * compiler puts it (top or bottom), and it sits on the loop's first line;
 * the latch need not (gcc -O0 ends the body with the increment, which
 * falls into the bottom test, and a for statement may put its increment on
 * a line of its own).  A test inside a deeper inlined callee counts with
 * its call site's line; a test outside the loop's level (a loop's ctx can
 * be deeper than some of its instructions) or in another file than the
 * loop's does not count.  The line never exceeds a subloop's at the same
 * level and file: a loop's header comes before the loops it holds.  A loop
 * without such a test keeps the line it has.
 */
static void exit_test_lines(struct builder *bd)
{
	const struct cfg *g = bd->g;
	const struct loopnest *ln = bd->ln;
	size_t nl = ln->nloops;
	uint32_t *best = xcalloc(nl + 1, sizeof(*best));

	for (size_t b = 0; b < g->nblocks; b++) {
		const struct block *bl = &g->blocks[b];
		size_t i = bl->last;

		for (int32_t l = ln->block_loop[b]; l >= 0; l = ln->loops[l].parent) {
			int in = 0, out = 0;
			uint32_t file, line;

			for (size_t e = 0; e < bl->nsucc; e++) {
				uint32_t s = g->succs[bl->succ + e];

				if (loop_within(ln, ln->block_loop[s], l))
					in = 1;
				else
					out = 1;
			}
			if (!in || !out)
				continue;
			if (!node_covers(bd, bd->ctx[l], bd->node_of[i]))
				continue;
			line_at_level(bd, i, bd->ctx[l], &file, &line);
			if (line == 0 || file != bd->lfile[l])
				continue;
			if (best[l] == 0 || line < best[l])
				best[l] = line;
		}
	}
	for (size_t l = 0; l < nl; l++)
		if (best[l])
			bd->lline[l] = best[l];
	/* children first: a loop's parent has a higher index (loops.h) */
	for (size_t l = 0; l < nl; l++) {
		int32_t p = ln->loops[l].parent;

		if (p < 0 || bd->ctx[p] != bd->ctx[l] ||
		    bd->lfile[p] != bd->lfile[l] || bd->lline[l] == 0)
			continue;
		if (bd->lline[p] == 0 || bd->lline[l] < bd->lline[p])
			bd->lline[p] = bd->lline[l];
	}
	free(best);
}

/*
 * Each loop's inline level (the deepest inline node common to all its
 * instructions) and its file and line (rule 3): the file of the latest
 * back-edge branch, else of the header's first instruction, and the
 * line of its exit tests there (exit_test_lines), else of that branch or
 * instruction.
 */
static void loop_attributes(struct builder *bd)
{
	const struct cfg *g = bd->g;
	const struct loopnest *ln = bd->ln;
	int32_t *head_loop = xmalloc(g->nblocks * sizeof(*head_loop));
	size_t *latch = xcalloc(ln->nloops, sizeof(*latch));

	for (size_t b = 0; b < g->nblocks; b++)
		head_loop[b] = -1;
	for (size_t l = 0; l < ln->nloops; l++) {
		head_loop[ln->loops[l].header] = (int32_t)l;
		bd->ctx[l] = -2;
	}
	for (size_t b = 0; b < g->nblocks; b++) {
		const struct block *bl = &g->blocks[b];
		int32_t bl_loop = ln->block_loop[b];

		for (size_t i = bl->first; i <= bl->last; i++) {
			for (int32_t l = bl_loop; l >= 0; l = ln->loops[l].parent) {
				int32_t c = bd->ctx[l] == -2 ? bd->node_of[i] :
					lca(bd, bd->ctx[l], bd->node_of[i]);

				if (c == bd->ctx[l])
					break;
				bd->ctx[l] = c;
			}
		}
		for (size_t e = 0; e < bl->nsucc; e++) {
			int32_t l = head_loop[g->succs[bl->succ + e]];

			if (l >= 0 && loop_within(ln, bl_loop, l) &&
			    bl->last + 1 > latch[l])
				latch[l] = bl->last + 1;
		}
	}
	deepen_loop_levels(bd, latch);
	for (size_t l = 0; l < ln->nloops; l++) {
		size_t head = g->blocks[ln->loops[l].header].first;

		bd->lfile[l] = bd->lline[l] = 0;
		if (latch[l])
			line_at_level(bd, latch[l] - 1, bd->ctx[l], &bd->lfile[l],
				      &bd->lline[l]);
		if (bd->lline[l] == 0)
			line_at_level(bd, head, bd->ctx[l], &bd->lfile[l],
				      &bd->lline[l]);
		if (bd->lfile[l] == 0)
			bd->lfile[l] = bd->c->nofile;
	}
	exit_test_lines(bd);
	free(head_loop);
	free(latch);
}

/* Loops below a scope searched for rule 4, at most (deeper ones are not). */
#define HOIST_DEPTH 64

/*
 * Rule 4's targets below x, for every line at once: walks the loops below
 * x (through loops only) in post-order, children in order, and records in
 * m, for each line not yet there, the statement of that line in the loop
 * being left, unless a loop on the way (path[], x's child first) has that
 * line.  So m[line] is the first match in post-order: the innermost loop.
 */
static void hoist_targets(struct hmap *m, const struct scope *x,
			  uint32_t *path, size_t depth)
{
	if (depth >= HOIST_DEPTH)
		return;
	for (size_t k = 0; k < x->nkids; k++) {
		const struct scope *c = x->kids[k];

		if (c->kind != SCOPE_LOOP)
			continue;
		path[depth] = c->line;
		hoist_targets(m, c, path, depth + 1);
		for (size_t j = 0; j < c->nkids; j++) {
			struct scope *s = c->kids[j];
			size_t d = 0;

			if (s->kind != SCOPE_STMT || hmap_get_u64(m, s->line))
				continue;
			while (d <= depth && path[d] != s->line)
				d++;
			if (d > depth)
				hmap_put_u64(m, s->line, s);
		}
	}
}

/*
 * Applies rule 4 top-down.  Moved statements are emptied first and freed
 * after the scan (the targets were found before it).
 */
static void hoisted_into_loops(struct builder *bd, struct scope *x)
{
	struct hmap *targets = NULL;
	uint32_t path[HOIST_DEPTH];
	size_t out = 0;
	int loops = 0;

	for (size_t k = 0; k < x->nkids; k++)
		loops |= x->kids[k]->kind == SCOPE_LOOP;
	for (size_t k = 0; loops && k < x->nkids; k++) {
		struct scope *c = x->kids[k], *to;

		if (c->kind != SCOPE_STMT || c->line == 0)
			continue;
		if (!targets) {
			targets = hmap_new();
			hoist_targets(targets, x, path, 0);
		}
		to = hmap_get_u64(targets, c->line);
		if (to) {
			for (size_t r = 0; r < c->nv; r++)
				add_range(to, c->v[r].lo, c->v[r].hi);
			c->nv = 0;	/* a statement always has ranges */
		}
	}
	hmap_free(targets);
	for (size_t k = 0; k < x->nkids; k++) {
		struct scope *c = x->kids[k];

		if (c->kind == SCOPE_STMT && c->nv == 0) {
			free(c->v);	/* c itself goes with the tree */
			continue;
		}
		x->kids[out++] = c;
	}
	x->nkids = out;
	for (size_t k = 0; k < x->nkids; k++)
		if (x->kids[k]->kind != SCOPE_STMT)
			hoisted_into_loops(bd, x->kids[k]);
}

static int range_cmp(const void *a, const void *b)
{
	const struct range *x = a, *y = b;

	return x->lo < y->lo ? -1 : x->lo > y->lo;
}

static int kid_cmp(const void *a, const void *b)
{
	const struct scope *x = *(struct scope *const *)a;
	const struct scope *y = *(struct scope *const *)b;
	int xs = x->kind == SCOPE_STMT, ys = y->kind == SCOPE_STMT;

	if (xs != ys)
		return ys - xs;
	if (xs && x->line != y->line)
		return x->line < y->line ? -1 : 1;
	return x->minaddr < y->minaddr ? -1 : x->minaddr > y->minaddr;
}

/* Sorts and merges ranges, computes minaddr, orders children. */
static void finish(struct scope *s)
{
	s->minaddr = UINT64_MAX;
	if (s->nv > 1) {
		size_t out = 0;

		qsort(s->v, s->nv, sizeof(*s->v), range_cmp);
		for (size_t r = 1; r < s->nv; r++) {
			if (s->v[r].lo <= s->v[out].hi) {
				if (s->v[r].hi > s->v[out].hi)
					s->v[out].hi = s->v[r].hi;
			} else {
				s->v[++out] = s->v[r];
			}
		}
		s->nv = out + 1;
	}
	if (s->nv > 0)
		s->minaddr = s->v[0].lo;
	if (s->first_line)
		s->line = s->first_line;	/* rule 5 */
	for (size_t k = 0; k < s->nkids; k++) {
		finish(s->kids[k]);
		if (s->kids[k]->minaddr < s->minaddr)
			s->minaddr = s->kids[k]->minaddr;
	}
	if (s->nkids > 1)
		qsort(s->kids, s->nkids, sizeof(*s->kids), kid_cmp);
}

/*
 * The line of addr, for addresses visited in increasing order: *cur keeps
 * the row of the previous call, so a procedure costs one binary search.
 */
static void next_line(const struct builder *bd, uint64_t addr, ptrdiff_t *cur,
		      uint32_t *file, uint32_t *line)
{
	const struct linemap *m = &bd->c->d->lines;
	ptrdiff_t r = *cur;

	if (r < 0 || m->rows[r].addr > addr ||
	    ((size_t)r + 1 < m->n && m->rows[r + 1].addr <= addr &&
	     (size_t)r + 8 < m->n && m->rows[r + 8].addr <= addr))
		r = linemap_find(m, addr);
	else
		while ((size_t)r + 1 < m->n && m->rows[r + 1].addr <= addr)
			r++;
	*cur = r;
	if (r >= 0 && (m->rows[r].file != 0 || m->rows[r].line != 0)) {
		*file = m->rows[r].file;
		*line = m->rows[r].line;
	} else {
		*file = *line = 0;
	}
}

static void build_statements(struct builder *bd, struct scope *root)
{
	const struct cfg *g = bd->g;
	ptrdiff_t row = -1;
	const struct loopnest *ln = bd->ln;
	struct scope *last = NULL;
	int32_t last_loop = -3, last_node = -3;
	uint32_t last_line = UINT32_MAX;

	for (size_t b = 0; b < g->nblocks; b++) {
		const struct block *bl = &g->blocks[b];
		int32_t loop = ln->block_loop[b];

		for (size_t i = bl->first; i <= bl->last; i++) {
			const struct insn *in = &g->insns[i];
			int32_t node = bd->node_of[i], curctx = -1;
			uint32_t file, line;
			struct scope *cur = root;
			size_t depth = 0;

			next_line(bd, in->addr, &row, &file, &line);
			if (last && loop == last_loop && node == last_node &&
			    line == last_line) {
				add_range(last, in->addr, in->addr + in->len);
				continue;
			}
			if (last && loop == last_loop && node == last_node) {
				/* the same loops and inlines: the same path */
				last = child(bd, last->parent, SCOPE_STMT, 0, line, 0);
				note_line(last->parent, file, line);
				add_range(last, in->addr, in->addr + in->len);
				last_line = line;
				continue;
			}
			for (int32_t l = loop; l >= 0; l = ln->loops[l].parent) {
				HPC_GROW(bd->chain, depth + 1, bd->chain_alloc);
				bd->chain[depth++] = l;
			}
			while (depth-- > 0) {
				int32_t l = bd->chain[depth];

				cur = descend(bd, cur, curctx, bd->ctx[l]);
				curctx = bd->ctx[l];
				note_line(cur, bd->lfile[l], bd->lline[l]);
				/* rule 3; loops without a line never merge */
				cur = child(bd, cur, SCOPE_LOOP, bd->lfile[l],
					    bd->lline[l],
					    bd->lline[l] ? 0 : (uint32_t)l + 1);
				bd->lscope[l] = cur;
			}
			cur = descend(bd, cur, curctx, node);
			last = child(bd, cur, SCOPE_STMT, 0, line, 0);
			note_line(cur, file, line);
			add_range(last, in->addr, in->addr + in->len);
			last_loop = loop;
			last_node = node;
			last_line = line;
		}
	}
	for (size_t l = 0; l < ln->nloops; l++) {
		struct scope *s = bd->lscope[l];
		uint64_t h = g->insns[g->blocks[ln->loops[l].header].first].addr;
		int dup = 0;

		if (!s)
			continue;
		for (size_t r = 0; r < s->nv; r++)
			dup |= s->v[r].lo == h;
		if (!dup) {
			HPC_GROW(s->v, s->nv + 1, s->v_alloc);
			s->v[s->nv].lo = h;
			s->v[s->nv].hi = h + 1;
			s->nv++;
		}
	}
}

struct proc_tree *scopes_build(const struct scope_ctx *c, size_t pi,
			       const struct cfg *g, const struct loopnest *ln)
{
	const struct proc *p = &c->b->procs[pi];
	struct proc_tree *t = xcalloc(1, sizeof(*t));
	struct builder bd = { 0 };

	t->root = xcalloc(1, sizeof(*t->root));
	t->root->kind = SCOPE_PROC;
	scopes_proc_home(c, pi, &t->root->file, &t->root->line);
	t->name = p->name;
	t->entry = p->lo;
	t->linkname = p->linkname;
	t->libname = c->libname;
	t->truncated = g->truncated;
	bd.t = t;
	bd.c = c;
	bd.g = g;
	bd.ln = ln;
	bd.index = hmap_new();
	bd.node_of = xmalloc((g->ninsns + 1) * sizeof(*bd.node_of));
	bd.ctx = xmalloc((ln->nloops + 1) * sizeof(*bd.ctx));
	bd.lfile = xmalloc((ln->nloops + 1) * sizeof(*bd.lfile));
	bd.lline = xmalloc((ln->nloops + 1) * sizeof(*bd.lline));
	bd.lscope = xcalloc(ln->nloops + 1, sizeof(*bd.lscope));
	for (size_t i = 0; i < g->ninsns; i++)
		bd.node_of[i] = -1;
	paint_inlines(&bd, p->lo, p->hi);
	if (p->cold_hi)
		paint_inlines(&bd, p->cold_lo, p->cold_hi);
	loop_attributes(&bd);
	build_statements(&bd, t->root);
	hoisted_into_loops(&bd, t->root);
	finish(t->root);
	hmap_free(bd.index);
	free(bd.node_of);
	free(bd.ctx);
	free(bd.lfile);
	free(bd.lline);
	free(bd.lscope);
	free(bd.path);
	free(bd.chain);
	return t;
}

/* Frees the arrays of s and of the scopes below it (not the scopes). */
static void scope_release(struct scope *s)
{
	for (size_t k = 0; k < s->nkids; k++)
		scope_release(s->kids[k]);
	free(s->kids);
	free(s->v);
}

void proc_tree_free(struct proc_tree *t)
{
	if (!t)
		return;
	scope_release(t->root);
	free(t->root);
	while (t->chunks) {
		struct scope_chunk *next = t->chunks->next;

		free(t->chunks);
		t->chunks = next;
	}
	free(t->xml);
	free(t);
}
