/* cfg.c - basic blocks and edges of one procedure (see cfg.h). */
#include <stdlib.h>
#include <string.h>

#include "addrsearch.h"
#include "cfg.h"
#include "strbuf.h"

static int insn_before(const void *elem, const void *key)
{
	return ((const struct insn *)elem)->addr < *(const uint64_t *)key;
}

ptrdiff_t cfg_insn_at(const struct cfg *g, uint64_t addr)
{
	size_t lo = addrsearch_partition(g->insns, g->ninsns, sizeof(*g->insns),
					 insn_before, &addr);

	return lo < g->ninsns && g->insns[lo].addr == addr ? (ptrdiff_t)lo : -1;
}

static int ends_block(const struct insn *in, const struct binary *b,
		      const unsigned char *noreturn)
{
	const struct proc *callee;

	switch (in->kind) {
	case INSN_JUMP: case INSN_CJUMP: case INSN_IJUMP:
	case INSN_RET: case INSN_STOP:
		return 1;
	case INSN_CALL:
		callee = in->target ? binary_find_proc(b, in->target) : NULL;
		return callee && callee->lo == in->target &&
			noreturn[callee - b->procs];
	default:
		return 0;
	}
}

/* Appends a successor, as an instruction index (mapped to blocks later). */
static void add_succ(struct cfg *g, size_t insn)
{
	HPC_GROW(g->succs, g->nsuccs + 1, g->succs_alloc);
	g->succs[g->nsuccs++] = (uint32_t)insn;
}

struct tables {
	uint64_t *targets;
	size_t n, alloc;
	size_t *first, *count;	/* per instruction with a table */
	size_t nt, alloc_first, alloc_count;
};

void cfg_build(struct cfg *g, struct decoder *d, const struct binary *b,
	       size_t pi, const unsigned char *noreturn, size_t cap)
{
	const struct proc *p = &b->procs[pi];
	unsigned char *leader;
	size_t *tab_of;		/* insn -> table index + 1, 0 = none */
	struct tables t = { 0 };

	g->ninsns = g->nblocks = g->nsuccs = 0;
	g->entry = 0;
	/* both parts, in address order (gcc puts .cold parts first) */
	if (p->cold_hi && p->cold_lo < p->lo)
		g->truncated = x86_decode(d, b, p->cold_lo, p->cold_hi, &g->insns,
					  &g->ninsns, &g->insns_alloc, cap);
	g->truncated |= x86_decode(d, b, p->lo, p->hi, &g->insns, &g->ninsns,
				   &g->insns_alloc, cap);
	if (p->cold_hi && p->cold_lo > p->lo)
		g->truncated |= x86_decode(d, b, p->cold_lo, p->cold_hi, &g->insns,
					   &g->ninsns, &g->insns_alloc, cap);
	if (g->ninsns == 0)
		return;
	leader = xcalloc(g->ninsns + 1, 1);
	tab_of = xcalloc(g->ninsns, sizeof(*tab_of));
	leader[0] = 1;
	if (cfg_insn_at(g, p->lo) > 0)
		leader[cfg_insn_at(g, p->lo)] = 1;
	for (size_t i = 0; i < g->ninsns; i++) {
		const struct insn *in = &g->insns[i];
		ptrdiff_t k;

		if (in->kind == INSN_JUMP || in->kind == INSN_CJUMP) {
			k = cfg_insn_at(g, in->target);
			if (k >= 0)
				leader[k] = 1;
		} else if (in->kind == INSN_IJUMP) {
			size_t before = t.n, found;

			found = x86_jump_table(b, g->insns, i, p->lo, p->hi,
					       &t.targets, &t.n, &t.alloc);
			if (!found && p->cold_hi)
				found = x86_jump_table(b, g->insns, i, p->cold_lo,
						       p->cold_hi, &t.targets,
						       &t.n, &t.alloc);
			if (found) {
				HPC_GROW(t.first, t.nt + 1, t.alloc_first);
				HPC_GROW(t.count, t.nt + 1, t.alloc_count);
				t.first[t.nt] = before;
				t.count[t.nt] = found;
				tab_of[i] = ++t.nt;
				for (size_t e = before; e < t.n; e++) {
					k = cfg_insn_at(g, t.targets[e]);
					if (k >= 0)
						leader[k] = 1;
				}
			}
		}
		if (ends_block(in, b, noreturn))
			leader[i + 1] = 1;
		else if (i + 1 < g->ninsns &&
			 g->insns[i + 1].addr != in->addr + in->len)
			leader[i + 1] = 1;
	}
	for (size_t i = 0; i < g->ninsns; i++) {
		struct block *bl;
		const struct insn *last;
		ptrdiff_t k;

		if (!leader[i])
			continue;
		HPC_GROW(g->blocks, g->nblocks + 1, g->blocks_alloc);
		if (g->insns[i].addr == p->lo)
			g->entry = g->nblocks;
		bl = &g->blocks[g->nblocks++];
		bl->first = i;
		bl->last = i;
		while (bl->last + 1 < g->ninsns && !leader[bl->last + 1])
			bl->last++;
		bl->succ = g->nsuccs;
		last = &g->insns[bl->last];
		if (last->kind == INSN_JUMP || last->kind == INSN_CJUMP) {
			k = cfg_insn_at(g, last->target);
			if (k >= 0)
				add_succ(g, (size_t)k);
		}
		if (last->kind == INSN_IJUMP && tab_of[bl->last]) {
			size_t ti = tab_of[bl->last] - 1;

			for (size_t e = 0; e < t.count[ti]; e++) {
				k = cfg_insn_at(g, t.targets[t.first[ti] + e]);
				if (k >= 0)
					add_succ(g, (size_t)k);
			}
		}
		if ((last->kind == INSN_CJUMP || !ends_block(last, b, noreturn)) &&
		    bl->last + 1 < g->ninsns &&
		    g->insns[bl->last + 1].addr == last->addr + last->len)
			add_succ(g, bl->last + 1);
		bl->nsucc = g->nsuccs - bl->succ;
	}
	/* instruction index -> block index (leaders are block starts) */
	{
		uint32_t *blk = xmalloc(g->ninsns * sizeof(*blk));

		for (size_t k = 0; k < g->nblocks; k++)
			for (size_t i = g->blocks[k].first; i <= g->blocks[k].last; i++)
				blk[i] = (uint32_t)k;
		for (size_t s = 0; s < g->nsuccs; s++)
			g->succs[s] = blk[g->succs[s]];
		free(blk);
	}
	free(leader);
	free(tab_of);
	free(t.targets);
	free(t.first);
	free(t.count);
}

void cfg_release(struct cfg *g)
{
	free(g->insns);
	free(g->blocks);
	free(g->succs);
	memset(g, 0, sizeof(*g));
}
