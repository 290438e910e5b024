/*
 * mix.h - instruction-mix metrics (mix.c): samples fused with the class of
 * the instruction they hit, as xprof synthesized retired FLOPs and memory
 * operations from ProfileMe samples and the decoded binary.
 *
 * Invariants:
 *  1. Mix metrics exist only when a structure file read carries an
 *     instruction mix (hpcstruct(5), INSTRUCTION MIX); without one there
 *     are none, and the database holds the measured metrics alone.
 *  2. Each time metric (cycles, cpu-clock, task-clock, CPUTIME, REALTIME,
 *     and HPCToolkit's PAPI_TOT_CYC) and each instruction-count metric
 *     (instructions, PAPI_TOT_INS) M gets MIX_NGROUPS raw metrics
 *     M.fp, M.mem, M.int, M.branch, registered one after the other right
 *     after the metrics read from the profiles: the part of M's value
 *     sampled at an instruction of that group (insn-mix.h), classified by
 *     the instruction that retired before the sample: the one ending at
 *     the sample's address, as hpcrun --data first takes it (datacentric-memop.c),
 *     else (none ends there, or a branch or other instruction does: not
 *     what ran) the one at the address (mix.c, leaf_class).  They sum to
 *     at most M (other instructions and code without a mix are in no
 *     group).  For an
 *     instruction count they are the estimated retired FP, memory,
 *     integer and branch instructions.  Their columns start hidden: they
 *     are the inputs of the shares and of the user's formulas.
 *  3. Each such M also gets derived metrics M.fp_share, M.mem_share,
 *     M.int_share, M.branch_share = 100 * M.GROUP / M: the percentage of
 *     M's value at a scope that was sampled at instructions of the group.
 *     They are defined before the user's derived metrics (-M, --metric),
 *     which can name them and the raw ones.
 */
#ifndef HPCPROF_MIX_H
#define HPCPROF_MIX_H

#include <stddef.h>

#include "insn-mix.h"
#include "metrics.h"
#include "structfile.h"

/* Adding a profile: code samples split by class (experiment.h, struct
 * profile_hook). */
extern const struct profile_hook mix_profile_hook;

/*
 * Registers the mix metrics of invariants 2 and 3 in m when one of the
 * nstructs structures has a mix.  Call after the profiles' metrics are
 * registered and before any accumulator is made (metrics.h).
 */
void mix_register(struct metrics *m, struct structure *const *structs,
		 size_t nstructs);

/* The number of raw metrics measured (read from profiles): those before
 * the mix metrics (invariant 2). */
static inline size_t mix_measured(const struct metrics *m)
{
	return m->mix ? m->nmix : m->nraw;
}

/*
 * The raw metric that receives raw metric raw's values sampled at an
 * instruction of class cls (enum insn_class, or -1 for unknown), or -1
 * when there is none.
 */
static inline long mix_metric(const struct metrics *m, size_t raw, int cls)
{
	enum mix_group g;

	if (cls < 0 || raw >= m->nmix || m->mix[raw] < 0)
		return -1;
	g = insn_mix_group((enum insn_class)cls);
	return g == MIX_NONE ? -1 : m->mix[raw] + (long)g;
}

#endif
