/*
 * parallel.h - hpcprof's profiles read and correlated on N threads, into a
 * database identical byte for byte to the one a single thread writes.
 *
 * Invariants:
 *  1. The profiles are split into N contiguous ranges in input order;
 *     worker w adds its range, in order, to an experiment of its own
 *     (experiment_new_worker), so no worker waits for another, and the
 *     shared modules and structures are only read while workers run.  A
 *     thread whose range is done takes the second half of what another
 *     has not started (when that is 4 profiles or more) as a range and
 *     experiment of its own, at most N such in all: the ranges stay
 *     contiguous, and are merged in profile order.
 *  2. The workers' trees are merged into the experiment up a binary tree
 *     of workers (par_merge, experiment_merge): node ids, children order
 *     and name tables are those of adding every profile in order to one
 *     tree.
 *  3. A worker's per-thread values leave it as records (node, metric,
 *     value) in a temporary file, and par_correlate's workers also fold
 *     them into their own nodes' accumulators.  Where every value of a
 *     metric (inclusive or exclusive) is a non-negative integer and no
 *     sum of it reaches 2^53 (metrics.h, accum_add), its sums are exact:
 *     added up worker by worker they are, bit for bit, what folding each
 *     value in thread order gives.  The values of the other metrics
 *     (seconds of waiting, say) are folded again, one thread reading the
 *     records in thread order (by node id, into e's block of
 *     accumulators, experiment.h).  The records are written
 *     (e->thread_id_cb, else e->thread_cb; with e->thread_lines, on N
 *     threads, each worker's records a piece formatted once at the
 *     offset that the lengths workers counted as they went give) by
 *     other threads meanwhile: from N = 2 on when only some metrics are
 *     folded again, from N = 3 on when all are.  So floating-point sums
 *     are the same whatever N is, and thread-values.tsv has the same
 *     bytes.
 *  4. Memory: a worker holds one profile at a time and a tree no larger
 *     than the merged one, with its nodes' accumulators (kept until they
 *     are added up); the records wait on disk.  There are at most 2N
 *     such trees (invariant 1).
 *  5. Messages about profiles are printed by the calling thread, in
 *     profile order, after the workers are done.
 *  6. Data-centric measurements are added as the others are: each worker
 *     builds a data tree, experiment_merge() merges them (datatree.h,
 *     invariant 6), and a worker's thread numbers are its profiles'
 *     indices (a thread stack's object is named by it).  So are
 *     synchronization and sharing measurements: each worker has phases
 *     and sharing of its own (phases.h, invariant 5; sharing.h,
 *     invariant 8).
 *  N = 1 runs the same steps on the calling thread.
 */
#ifndef HPCPROF_PARALLEL_H
#define HPCPROF_PARALLEL_H

#include <stddef.h>
#include <stdint.h>

#include "experiment.h"

/* The CPUs this process may run on (its affinity mask; taskset, mpirun's
 * binding), and hpcprof -j's default: those, at most PAR_DEFAULT_MAX. */
#define PAR_DEFAULT_MAX 16
unsigned par_allowed_cpus(void);
unsigned par_default_threads(void);

/*
 * Reads the n profiles at paths on nthreads threads, and each
 * capability's file beside them (capability.h: read).  out[i] is profile
 * i without its CCT and values (free with hpcrun_profile_free), or NULL
 * and err[i] what is wrong with it (caller frees).  side[i * NCAPS + c]
 * is its file of capability c, NULL for none; when one is malformed,
 * NULL and side_err[i * NCAPS + c] what is wrong (caller frees).
 */
void par_read_heads(const char *const *paths, size_t n, unsigned nthreads,
		    struct hpcrun_profile **out, char **err, void **side,
		    char **side_err);

/*
 * Adds the n profiles to e as its threads 0..n-1 (e registered them with
 * experiment_register) on nthreads threads, folds their values into the
 * statistics and reports each thread's to e->thread_cb.  Each thread is
 * added by prof_thread_add (capability.h) and what it says is said
 * after the workers, in profile order (prof_thread_say).  Returns the
 * number of profiles whose messages make the exit status 1, -1 with hpc_lasterr() when a
 * temporary file fails, or PAR_ONE_THREAD, having added and said
 * nothing, when the workers' data trees cannot be merged into the one of
 * adding in order (prof_mergeable): add them on one thread then.
 */
#define PAR_ONE_THREAD (-2)
long par_correlate(struct experiment *e, const struct prof_input *in,
		   size_t n, unsigned nthreads);

/*
 * par_correlate() in steps, for hpcprof-mpi (which merges the trees of
 * ranks between par_merge and par_records):
 * par_start runs the workers over in[lo, hi) (thread numbers stay the
 * indices in in); par_mergeable is 0 when their data trees cannot be
 * merged (par_correlate's PAR_ONE_THREAD); par_failures says what
 * par_correlate says about the profiles, in order, and returns that
 * number (-1 with hpc_lasterr() when a temporary file failed); par_merge merges the workers' trees, in
 * order, into into (e itself or a worker's experiment of e) and frees
 * them;
 * par_records calls fn for each per-thread value in thread order, with its
 * node in into (0, or -1 with hpc_lasterr() on a read error); par_fold is
 * the fn that folds a value into e's statistics (arg e) and reports it to
 * e->thread_cb; par_inexact sets inexact[k] for each (metric, ie) k with a
 * value that is not accum_exact_value's (metrics.h).  par_free accepts
 * NULL.
 */
struct par_job;
typedef void par_record_fn(void *arg, uint32_t thread, struct node *n,
			   uint32_t k, double v);
struct par_job *par_start(struct experiment *e, const struct prof_input *in,
			  size_t lo, size_t hi, unsigned nthreads);
int par_mergeable(const struct par_job *j);
long par_failures(struct par_job *j);
void par_merge(struct par_job *j, struct experiment *into);
int par_records(struct par_job *j, par_record_fn *fn, void *arg);
void par_inexact(const struct par_job *j, uint8_t *inexact);
par_record_fn par_fold;
void par_free(struct par_job *j);

#endif
