/* loops.c - Havlak's loop nesting (see loops.h). */
#include <stdlib.h>
#include <string.h>

#include "loops.h"
#include "strbuf.h"

struct vec {
	uint32_t *v;
	size_t n, alloc;
};

static void vec_push(struct vec *x, uint32_t e)
{
	HPC_GROW(x->v, x->n + 1, x->alloc);
	x->v[x->n++] = e;
}

static uint32_t uf_find(uint32_t *uf, uint32_t x)
{
	while (uf[x] != x) {
		uf[x] = uf[uf[x]];
		x = uf[x];
	}
	return x;
}

struct havlak {
	size_t n;
	uint32_t *pre;		/* block -> preorder number */
	uint32_t *node;		/* preorder -> block */
	uint32_t *last;		/* preorder -> last preorder in its subtree */
	uint32_t *uf, *mark, *pool;
	int32_t *header, *loop_of;
	struct vec *back, *nonback;
};

#define UNVISITED UINT32_MAX

/* Iterative DFS from the entry, then from unvisited blocks in order. */
static void dfs(struct havlak *h, const struct cfg *g)
{
	uint32_t *stack = xmalloc(h->n * sizeof(*stack));
	size_t *next = xcalloc(h->n, sizeof(*next));
	uint32_t count = 0;

	for (size_t r = 0; r <= h->n; r++) {
		size_t sp = 0, root = r == 0 ? g->entry : r - 1;

		if (h->pre[root] != UNVISITED)
			continue;
		h->pre[root] = count;
		h->node[count++] = (uint32_t)root;
		stack[sp++] = (uint32_t)root;
		while (sp > 0) {
			uint32_t b = stack[sp - 1];
			const struct block *bl = &g->blocks[b];

			if (next[b] < bl->nsucc) {
				uint32_t s = g->succs[bl->succ + next[b]++];

				if (h->pre[s] == UNVISITED) {
					h->pre[s] = count;
					h->node[count++] = s;
					stack[sp++] = s;
				}
			} else {
				h->last[h->pre[b]] = count - 1;
				sp--;
			}
		}
	}
	free(stack);
	free(next);
}

static int is_ancestor(const struct havlak *h, uint32_t w, uint32_t v)
{
	return w <= v && v <= h->last[w];
}

int loops_find(struct loopnest *ln, const struct cfg *g, uint64_t work_cap)
{
	struct havlak h;
	uint64_t work = 0;
	uint32_t stamp = 0;
	int rc = 0;

	ln->nloops = 0;
	h.n = g->nblocks;
	HPC_GROW(ln->block_loop, h.n, ln->block_alloc);
	for (size_t b = 0; b < h.n; b++)
		ln->block_loop[b] = -1;
	if (h.n == 0)
		return 0;
	h.pre = xmalloc(h.n * sizeof(*h.pre));
	memset(h.pre, 0xff, h.n * sizeof(*h.pre));
	h.node = xmalloc(h.n * sizeof(*h.node));
	h.last = xmalloc(h.n * sizeof(*h.last));
	h.uf = xmalloc(h.n * sizeof(*h.uf));
	h.mark = xcalloc(h.n, sizeof(*h.mark));
	h.pool = xmalloc(h.n * sizeof(*h.pool));
	h.header = xmalloc(h.n * sizeof(*h.header));
	h.loop_of = xmalloc(h.n * sizeof(*h.loop_of));
	h.back = xcalloc(h.n, sizeof(*h.back));
	h.nonback = xcalloc(h.n, sizeof(*h.nonback));
	dfs(&h, g);
	for (uint32_t w = 0; w < h.n; w++) {
		h.uf[w] = w;
		h.header[w] = -1;
		h.loop_of[w] = -1;
	}
	/* classify each edge v -> w by the DFS tree */
	for (size_t b = 0; b < h.n; b++) {
		const struct block *bl = &g->blocks[b];
		uint32_t v = h.pre[b];

		for (size_t e = 0; e < bl->nsucc; e++) {
			uint32_t w = h.pre[g->succs[bl->succ + e]];

			if (is_ancestor(&h, w, v))
				vec_push(&h.back[w], v);
			else
				vec_push(&h.nonback[w], v);
		}
	}
	for (uint32_t w = (uint32_t)h.n; w-- > 0;) {
		size_t npool = 0;
		int self = 0, irreducible = 0;

		stamp++;
		for (size_t k = 0; k < h.back[w].n; k++) {
			uint32_t v = h.back[w].v[k], x;

			if (v == w) {
				self = 1;
				continue;
			}
			x = uf_find(h.uf, v);
			if (x != w && h.mark[x] != stamp) {
				h.mark[x] = stamp;
				h.pool[npool++] = x;
			}
		}
		for (size_t k = 0; k < npool; k++) {
			uint32_t x = h.pool[k];

			for (size_t e = 0; e < h.nonback[x].n; e++) {
				uint32_t y = uf_find(h.uf, h.nonback[x].v[e]);

				if (++work > work_cap) {
					rc = -1;
					goto out;
				}
				if (!is_ancestor(&h, w, y)) {
					irreducible = 1;
					vec_push(&h.nonback[w], y);
				} else if (y != w && h.mark[y] != stamp) {
					h.mark[y] = stamp;
					h.pool[npool++] = y;
				}
			}
		}
		if (npool > 0 || self) {
			struct loop *l;
			int32_t id = (int32_t)ln->nloops;

			HPC_GROW(ln->loops, ln->nloops + 1, ln->loops_alloc);
			l = &ln->loops[ln->nloops++];
			l->header = h.node[w];
			l->parent = -1;
			l->irreducible = irreducible;
			h.loop_of[w] = id;
			for (size_t k = 0; k < npool; k++) {
				uint32_t x = h.pool[k];

				h.header[x] = (int32_t)w;
				h.uf[x] = w;
				if (h.loop_of[x] >= 0)
					ln->loops[h.loop_of[x]].parent = id;
			}
		}
	}
	for (uint32_t w = 0; w < h.n; w++) {
		int32_t l = h.loop_of[w];

		if (l < 0 && h.header[w] >= 0)
			l = h.loop_of[h.header[w]];
		ln->block_loop[h.node[w]] = l;
	}
out:
	if (rc < 0)
		ln->nloops = 0;
	for (size_t b = 0; b < h.n; b++) {
		if (rc < 0)
			ln->block_loop[b] = -1;
		free(h.back[b].v);
		free(h.nonback[b].v);
	}
	free(h.back);
	free(h.nonback);
	free(h.pre);
	free(h.node);
	free(h.last);
	free(h.uf);
	free(h.mark);
	free(h.pool);
	free(h.header);
	free(h.loop_of);
	return rc;
}

void loopnest_release(struct loopnest *ln)
{
	free(ln->loops);
	free(ln->block_loop);
	memset(ln, 0, sizeof(*ln));
}
