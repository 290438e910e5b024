/*
 * phasesfile.h - the viewer's one reader of DBDIR/phases.tsv
 * (hpcprof-database(5)): its sites, threads, phase kinds and their
 * threads, episodes and hidden lock sites, with the threads' names from
 * DBDIR/threads.tsv.  The phases view (phaseview.h) and the flame graph's
 * timeline (timeline.h) both draw what it returns.
 *
 * Invariants:
 *  1. The file is read only as a regular file of at most PHASES_MAX_BYTES
 *     with lines of at most PHASES_MAX_LINE bytes (lib/textrec); its first
 *     line is "# hpcprof phases 1"; every number is checked, and every
 *     thread, phase and episode row names a site of an earlier site row.
 *     A row has at least its kind's fields (later fields are a later
 *     version's and are ignored), and rows of kinds the reader does not
 *     know are skipped.  Anything else is refused in one line naming the
 *     file and the line: "'DB/phases.tsv': line 12: expected a number".
 *     threads.tsv is read by the rules of lib/threadname.h, invariant 3,
 *     and a bad one is refused the same way.
 *  2. Memory is linear in the file: no site x thread or thread x episode
 *     matrix is ever allocated.
 *  3. Sites keep the file's order; a site's threads and episodes are
 *     grouped under it, and a phase kind's threads under it, each in the
 *     file's order (hpcprof sorts them by site, thread, episode number):
 *     a site's threads are threads[first_thread, + nthreads), and so on.
 */
#ifndef HPCVIEWER_PHASESFILE_H
#define HPCVIEWER_PHASESFILE_H

#include <stddef.h>
#include <stdint.h>

#include "threadname.h"

struct hmap;

#define PHASES_MAX_BYTES ((uint64_t)1 << 30)
#define PHASES_MAX_LINE 65536

struct phase_site {
	uint32_t id;
	char *kind, *function, *location;
	uint32_t node, participants, threads;
	uint64_t episodes, last, lock_calls, lock_blocked;
	double wait, completion, work, lb, gain, lock_wait;
	size_t first_thread, nthreads;		/* into ph->threads */
	size_t first_episode, nepisodes;	/* into ph->episodes */
	double max_wait;			/* over its kept episodes */
};

struct phase_thread {
	uint32_t site, thread;
	uint64_t episodes, last, lock_calls, lock_blocked;
	double wait, completion, work, lock_wait;
};

struct phase_kind {
	uint32_t start, end, node, threads;
	uint64_t count;
	double work, wall, lb;
	size_t first_thread, nthreads;		/* into ph->kthreads */
};

struct phase_kthread {
	uint32_t thread;
	uint64_t count;
	double work, wall;
};

struct phase_episode {
	uint32_t site, thread;
	uint64_t n;
	double wait, work;		/* seconds */
	int32_t order;			/* arrival position, -1 unknown */
	int last;			/* this thread arrived last */
};

struct phases {
	struct phase_site *sites;	size_t nsites;
	struct hmap *ids;		/* site id -> index + 1 */
	struct phase_thread *threads;	size_t nthreads;
	struct phase_kind *kinds;	size_t nkinds;
	struct phase_kthread *kthreads;	size_t nkthreads;
	struct phase_episode *episodes;	size_t nepisodes;
	/* the MPI runtime's lock sites hpcprof left out, and their wait */
	uint64_t hidden_locks;		double hidden_wait;
	/* DBDIR/threads.tsv: "thread 3", or "rank 1 thread 3" for MPI
	 * (threadname.h); empty when the database has no such file */
	struct thread_names names;
};

/*
 * Reads DBDIR/phases.tsv and DBDIR/threads.tsv.  Returns the tables (free
 * with phases_free), or NULL: with *missing set when the database has no
 * phases.tsv (hpcprof found no synchronization data), else with
 * hpc_lasterr() naming the file and what is wrong (invariant 1).
 */
struct phases *phases_load(const char *dbdir, int *missing);
/* Frees ph (NULL accepted). */
void phases_free(struct phases *ph);

/* The site of id, or NULL; valid until phases_free. */
const struct phase_site *phases_site(const struct phases *ph, uint32_t id);

#endif
