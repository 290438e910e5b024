/*
 * hpcsync.h - the per-thread synchronization file hpcrun writes beside a
 * thread's profile (PROFILE-STEM.hpcsync, hpcrun(5) "Synchronization
 * files"): the sites the thread waited at, exact aggregates per site and
 * per phase kind, and its first barrier episodes.  Read by hpcprof.
 *
 * Invariants of a struct hpcsync that hpcsync_read() returns:
 *  1. Every site id is >= 1 and appears once in sites[]; every sync, lock
 *     and episode record names one of them, and every phase's START is 0
 *     (thread start) or one of them, its END one of them.
 *  2. sync records name barrier-kind sites (hpcsync_is_barrier), lock
 *     records lock-kind sites; orders[] holds norders <= HPCSYNC_MAX_ORDERS
 *     counts (0 for an MPI barrier, whose arrival order is unknown).
 *  3. Times are seconds (doubles, finite, 0 to HPCSYNC_MAX_SECONDS) in the
 *     aggregates and CLOCK_MONOTONIC / thread-CPU nanoseconds in episodes;
 *     a site's NTHREADS is at most HPCSYNC_MAX_THREADS.  Larger values are
 *     no measurement's: the file is refused.
 *  4. The file was a regular file of at most HPCSYNC_MAX_BYTES, and no
 *     line is longer than HPCSYNC_MAX_LINE: the memory used is linear in
 *     the file's size.  Unknown record keywords are skipped (the format
 *     may grow); unknown site kinds and malformed fields are refused.
 *  5. thread is the THREAD of the file's name when the name has hpcrun's
 *     form PROGRAM-RANK-THREAD-HOSTID-PID-GEN.hpcsync (any other name is
 *     not checked); whether it and the sites' nodes fit the thread's
 *     profile is the caller's to check (hpcprof: phases.h).
 */
#ifndef HPC_HPCSYNC_H
#define HPC_HPCSYNC_H

#include <stddef.h>
#include <stdint.h>

struct hmap;

#define HPCSYNC_SUFFIX ".hpcsync"
#define HPCSYNC_MAX_BYTES ((uint64_t)256 << 20)
#define HPCSYNC_MAX_LINE 4096
#define HPCSYNC_MAX_ORDERS 64
/* Seconds of one aggregate: about 116 days of waiting, more than any
 * thread runs under measurement. */
#define HPCSYNC_MAX_SECONDS 1e7
/* Participants of one site: 2^24, more ranks than the largest machines'
 * cores (a flat-MPI communicator) and threads than any process has. */
#define HPCSYNC_MAX_THREADS (UINT32_C(1) << 24)

enum hpcsync_kind {
	HPCSYNC_BARRIER, HPCSYNC_OMP_BARRIER, HPCSYNC_OMP_LOOP_END,
	HPCSYNC_OMP_SECTIONS_END, HPCSYNC_OMP_SINGLE_END, HPCSYNC_OMP_JOIN,
	HPCSYNC_KMP_BARRIER, HPCSYNC_KMP_JOIN, HPCSYNC_MPI_BARRIER,
	HPCSYNC_MUTEX, HPCSYNC_COND, HPCSYNC_SEM,
	HPCSYNC_NKINDS
};

struct hpcsync_site {
	uint32_t id;
	enum hpcsync_kind kind;
	uint64_t object;
	uint32_t node;		/* CCT node id in the thread's profile, 0 */
	uint32_t nthreads;
};

struct hpcsync_sync {
	uint32_t site;
	uint64_t episodes, last;
	double wait, completion;	/* seconds */
	uint32_t norders;
	uint64_t orders[HPCSYNC_MAX_ORDERS];
};

struct hpcsync_lock {
	uint32_t site;
	uint64_t calls, blocked;
	double wait;
};

struct hpcsync_phase {
	uint32_t start, end;	/* start 0: from thread start */
	uint64_t count;
	double work, wall;	/* thread CPU and wall seconds */
};

struct hpcsync_episode {
	uint32_t site;
	uint64_t n;		/* the object's episode number */
	uint64_t arrive, depart, lastarr;	/* ns; lastarr 0: unknown */
	int32_t order;		/* 0-based arrival position, -1 unknown */
	uint64_t cpu_arrive, cpu_depart;	/* thread CPU ns */
};

struct hpcsync {
	char *path;
	long thread, rank;	/* -1 when the file does not say */
	struct hpcsync_site *sites;	size_t nsites;
	struct hpcsync_sync *syncs;	size_t nsyncs;
	struct hpcsync_lock *locks;	size_t nlocks;
	struct hpcsync_phase *phases;	size_t nphases;
	struct hpcsync_episode *episodes;	size_t nepisodes;
	uint64_t kept, total;	/* "episodes: KEPT TOTAL" */
	/* "clock: OFFSET ERR same-host|other-host" (MPI): the rank's
	 * CLOCK_MONOTONIC minus rank 0's, ns, and its error bound; clock 0
	 * when the file does not say, 1 same host (offset ~0), 2 other */
	int clock;
	int64_t clock_offset;
	uint64_t clock_err;
	struct hmap *index;	/* site id -> index in sites + 1 */
};

/*
 * Reads the file at path.  Returns a struct the caller frees with
 * hpcsync_free(), or NULL with hpc_lasterr() set to one line naming the
 * file and what is wrong ("'t.hpcsync': line 4: sync names unknown site
 * 9").
 */
struct hpcsync *hpcsync_read(const char *path);
/* Frees s (NULL accepted). */
void hpcsync_free(struct hpcsync *s);

/* The site of id in s, or NULL.  Valid while s lives. */
const struct hpcsync_site *hpcsync_site(const struct hpcsync *s,
					uint32_t id);

/* "barrier", "omp-loop-end", ... (the file's spelling). */
const char *hpcsync_kind_name(enum hpcsync_kind k);
/* The interposed function a kind stands for: "pthread_barrier_wait". */
const char *hpcsync_kind_function(enum hpcsync_kind k);
/* 1 for the barrier kinds (they bound phases), 0 for the lock kinds. */
int hpcsync_is_barrier(enum hpcsync_kind k);

/*
 * The .hpcsync path beside a profile: "d/p-0.hpcrun" -> "d/p-0.hpcsync".
 * Caller frees.
 */
char *hpcsync_path_for(const char *profile);

#endif
