/*
 * flame.h - the calling-context tree as flame graphs draw it, for one
 * metric: the frames of the top-down view (procedures, inlined code,
 * loops), with the scopes between them (call sites, statements, the call
 * sites of inlined code) passed through, and siblings of one kind and
 * label merged, as the flame-graph tools merge equal stacks.  folded.c
 * writes it as folded stacks, flamegraph.c draws it as an SVG picture.
 *
 * Invariants:
 *  1. Node 0 is the root ("all"); every other node's parent has a smaller
 *     index.  Its kind is SK_PROC, SK_INLINE or SK_LOOP (model.h).
 *  2. A node's children, kids[child_start .. child_start + nchildren),
 *     are sorted by label (byte order), kind breaking ties; no two of them
 *     have the same kind and label.
 *  3. total is the metric's inclusive value summed over the scopes merged
 *     into the node (the root: the model's total of the metric); self is
 *     total less the children's totals, never negative (a negative
 *     difference, rounding in the database, is 0), so the selves of all
 *     nodes add up to the root's total wherever the database's inclusive
 *     values add up.
 *  4. A label is the viewer's (view_label: "main", "memcpy [libc.so.6]",
 *     "loop at app.c:8"), except inlined code's: the callee's bare name
 *     ("vec_add"), which each writer marks in its own way.
 *  5. Built in one pass over the scopes and a sort of each child list: time
 *     O(n log n) and memory linear in the scopes, no recursion (any depth).
 *  6. hpcprof's per-phase profiles (model.h invariant 8) are left out:
 *     they repeat samples the code tree holds and are outside the root's
 *     totals.
 */
#ifndef HPCVIEWER_FLAME_H
#define HPCVIEWER_FLAME_H

#include <stddef.h>
#include <stdint.h>

#include "views.h"

struct flame_node {
	uint32_t parent;		/* UINT32_MAX for the root */
	uint32_t label;			/* index into flame->labels */
	uint32_t child_start, nchildren;	/* into flame->kids */
	uint8_t kind;			/* enum scope_kind; SK_ROOT for 0 */
	double total, self;		/* in the metric's shown unit */
};

struct flame {
	struct flame_node *nodes;
	size_t nnodes;
	uint32_t *kids;			/* [nnodes - 1] */
	char **labels;
	size_t nlabels;
	int metric;			/* the model metric drawn */
	char *heading;			/* its column heading, with its unit */
	struct unit unit;		/* its shown unit (units.h) */
};

/*
 * The model metric a flame graph of the user's metric name draws (NULL:
 * the browser's sort column), by browser_find_column's rules: an
 * exclusive metric stands for its inclusive partner.  Returns -1 with
 * hpc_lasterr() set when there is no such metric, or when it cannot be
 * drawn: an exclusive metric without an inclusive partner, or a statistic
 * over threads (Min, Max, StdDev, ...), which is not a sum of its parts.
 */
int flame_metric(struct browser *b, const char *name);

/* Builds the tree of metric met (flame_metric's) over browser b's model.
 * Free with flame_free(). */
struct flame *flame_build(struct browser *b, int met);
void flame_free(struct flame *f);

/* Node n's label (invariant 4); valid until flame_free(). */
static inline const char *flame_label(const struct flame *f, uint32_t n)
{
	return f->labels[f->nodes[n].label];
}

#endif
