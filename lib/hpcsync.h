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
 *
 * The format's three parts (textrec.h's pattern): this header's
 * vocabulary and model; hpcsync-write.c, the kinds' names and a writer
 * per record, async-signal-safe, which libhpcrun.so calls (sync.c);
 * hpcsync-read.c, the reader.  The writer writes what it is given: a
 * model that breaks the invariants above makes a file the reader refuses.
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

/* The records' keywords (hpcrun(5)); the first line is "hpcsync: 1". */
#define HPCSYNC_MAGIC "hpcsync:"
#define HPCSYNC_VERSION "1"
#define HPCSYNC_THREAD "thread:"
#define HPCSYNC_RANK "rank:"
#define HPCSYNC_CLOCK "clock:"
#define HPCSYNC_SITE "site"
#define HPCSYNC_SYNC "sync"
#define HPCSYNC_LOCK "lock"
#define HPCSYNC_PHASE "phase"
#define HPCSYNC_EPISODE "episode"
#define HPCSYNC_EPISODES "episodes:"

/* The site kinds, the barrier kinds first (hpcsync_is_barrier); the
 * runtime's and the files' one numbering. */
enum hpcsync_kind {
	HPCSYNC_BARRIER, HPCSYNC_OMP_BARRIER, HPCSYNC_OMP_LOOP_END,
	HPCSYNC_OMP_SECTIONS_END, HPCSYNC_OMP_SINGLE_END, HPCSYNC_OMP_JOIN,
	HPCSYNC_KMP_BARRIER, HPCSYNC_KMP_JOIN, HPCSYNC_MPI_BARRIER,
	HPCSYNC_MUTEX, HPCSYNC_COND, HPCSYNC_SEM,
	HPCSYNC_NKINDS
};

/* Whose clock an MPI rank's times are on ("clock:" record). */
enum hpcsync_clock {
	HPCSYNC_CLOCK_NONE,		/* no "clock:" record */
	HPCSYNC_CLOCK_SAME_HOST,	/* "same-host": rank 0's, offset ~0 */
	HPCSYNC_CLOCK_OTHER_HOST,	/* "other-host" */
};
#define HPCSYNC_SAME_HOST "same-host"
#define HPCSYNC_OTHER_HOST "other-host"

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
	 * CLOCK_MONOTONIC minus rank 0's, ns, and its error bound */
	enum hpcsync_clock clock;
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

/* "barrier", "omp-loop-end", ... (the file's spelling); "?" for a
 * number that is no kind.  Async-signal-safe (hpcsync-write.c). */
const char *hpcsync_kind_name(enum hpcsync_kind k);
/* The interposed function a kind stands for: "pthread_barrier_wait". */
const char *hpcsync_kind_function(enum hpcsync_kind k);
/* 1 for the barrier kinds (they bound phases), 0 for the lock kinds. */
static inline int hpcsync_is_barrier(enum hpcsync_kind k)
{
	return k <= HPCSYNC_MPI_BARRIER;
}

/*
 * The .hpcsync path beside a profile: "d/p-0.hpcrun" -> "d/p-0.hpcsync".
 * Caller frees.
 */
char *hpcsync_path_for(const char *profile);

/*
 * Writing (hpcsync-write.c): each function puts one record, or for head
 * and tail the records of s's scalar fields, into o (textrec.h: W1-W3,
 * async-signal-safe).  A file is head, then site records, then sync and
 * lock records of those sites (in any order), phases, episodes, and the
 * tail.  The times are written as the model has them (seconds as
 * "%.9f").
 */
struct textrec_out;
/* "hpcsync: 1", then thread and rank (when >= 0) and clock (when set). */
void hpcsync_write_head(struct textrec_out *o, const struct hpcsync *s);
void hpcsync_write_site(struct textrec_out *o, const struct hpcsync_site *x);
/* The orders "-" when there are none (norders 0). */
void hpcsync_write_sync(struct textrec_out *o, const struct hpcsync_sync *x);
void hpcsync_write_lock(struct textrec_out *o, const struct hpcsync_lock *x);
void hpcsync_write_phase(struct textrec_out *o,
			 const struct hpcsync_phase *x);
void hpcsync_write_episode(struct textrec_out *o,
			   const struct hpcsync_episode *x);
/* "episodes: KEPT TOTAL" (s->kept, s->total). */
void hpcsync_write_tail(struct textrec_out *o, const struct hpcsync *s);
/* The whole of s in the order above, syncs before locks; the file
 * hpcsync_read() returns s from (read(write(s)) = s). */
void hpcsync_write(struct textrec_out *o, const struct hpcsync *s);

#endif
