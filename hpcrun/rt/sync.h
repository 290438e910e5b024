/*
 * sync.h - synchronization measurement inside libhpcrun.so:
 * barrier episodes, lock waits, phases and the hang detector.
 *
 *   sync-interpose.c  the wrappers (pthread barriers, mutexes, condition
 *                     variables, semaphores, libgomp, libomp, MPI_Barrier)
 *   sync.c          sites, barrier objects, episodes, phases and their
 *                     exact aggregates; the .hpcsync files (hpcrun(5))
 *   sync-region.c   OpenMP regions: one site per construct for the whole
 *                     team, episode numbers across its regions
 *   sync-hang.c            the hang detector's thread and its reports
 *
 * Invariants:
 *  1. Everything here runs in the program's threads outside any signal
 *     handler, or on hpcrun's detector thread -- except sync_phase_sample
 *     and sync_probe_take, which the sample handler calls (sample.c's
 *     rules: they only touch the thread's own state and tree).
 *  2. A barrier object counts arrivals (sync-episode.h).
 *  3. Storage is bounded: SYNC_MAX_SITES sites and SYNC_MAX_OBJS objects
 *     per process, per thread SYNC_THREAD_SITES site and phase aggregates
 *     and the first SYNC_EPISODES episode records; what does not fit is
 *     counted, never written past.
 *  4. No malloc: per-thread state and tables are mmap'ed (a thread's first
 *     malloc would give it a glibc arena of its own).
 */
#ifndef HPCRUN_SYNC_H
#define HPCRUN_SYNC_H

#include <stdint.h>

#include "hpcsync.h"
#include "runtime.h"
#include "sync-episode.h"

#define SYNC_MAX_SITES 4096
#define SYNC_MAX_OBJS 4096
#define SYNC_THREAD_SITES 512
#define SYNC_EPISODES 4096
#define SYNC_PROBE_FRAMES 64
#define SYNC_TOUCHED 64
#define SYNC_SPANS 512

struct cct_node;

/* What a thread is blocked in, for the hang detector: written by its
 * thread under the sequence count seq (odd while being written), read
 * whole by the detector when seq is even and the same before and after. */
struct sync_wait {
	uint64_t seq;
	uint32_t site;			/* 0: not waiting */
	uint32_t kind;
	uint32_t how;			/* SYNC_WAIT_* */
	struct sync_obj *obj;		/* barrier kinds */
	uintptr_t lock;			/* lock kinds: the lock; join: the
					 * pthread_t joined */
	uintptr_t ra;			/* join: its call's return address
					 * (it has no site) */
	uint64_t episode;
	uint64_t since;			/* CLOCK_MONOTONIC ns */
};

/* How a lock wait waits (sync_wait.how), for the stall report
 * (sync-hang.c invariant 7): with a timeout, or on an object another
 * process may share. */
#define SYNC_WAIT_TIMED 1u
#define SYNC_WAIT_SHARED 2u

/* A thread's aggregates of one site (exact; invariant 3). */
struct sync_agg {
	uint32_t site, node;		/* site 0: free slot */
	uint64_t episodes, last, calls, blocked;
	uint64_t wait_ns, completion_ns;
	uint32_t orders[SYNC_ORDERS];
};

/* A thread's aggregates of one phase kind. */
struct sync_phase {
	uint32_t start, end;		/* end 0: free slot */
	uint64_t count, work_ns, wall_ns;
};

/* One kept episode record. */
struct sync_erec {
	uint32_t site;
	int32_t order;
	uint64_t n, arrive, depart, last, cpu_arrive, cpu_depart;
};

/* A thread's synchronization state (mmap'ed at its first sync call,
 * td->sync; freed by its own thread at its end). */
struct sync_thread {
	struct sync_wait wait;		/* published for the detector */
	uint32_t phase_start;		/* site the thread left last; 0 none */
	uint64_t phase_cpu, phase_wall;	/* when it left */
	uint64_t cpu_last, cpu_wall;	/* the last read of its CPU clock */
	/* the current phase's samples under its start (sync.c invariant
	 * 7): their nodes, or all of the start's code when over */
	int in_barrier;			/* from arrival to leaving: no phase */
	uint64_t barrier_since;		/* its arrival (ns) */
	uint32_t ntouched;
	int touched_over;
	struct cct_node *touched[SYNC_TOUCHED];
	/* the thread's last ended phases, for samples taken before they
	 * ended (sync.c invariant 7): the nspans-th in nspans % SYNC_SPANS */
	struct {
		uint64_t from, to;	/* CLOCK_MONOTONIC ns */
		uint32_t start, end;
	} span[SYNC_SPANS];
	uint64_t nspans, lost_phase_samples;
	struct {
		uintptr_t ra, objkey;
		uint64_t py;		/* rt_py_key */
		uint32_t kind;
		struct sync_agg *agg;
	} cache[64];
	struct sync_agg agg[SYNC_THREAD_SITES];
	struct sync_phase phase[SYNC_THREAD_SITES];
	uint64_t dur_hist[64];		/* episode durations, log2 ns buckets */
	uint64_t lost_sites, lost_phases, total_episodes;
	uint32_t nkept;
	struct sync_erec ep[SYNC_EPISODES];
	/* the detector's: the thread's CPU time at its ticks */
	struct {
		uint64_t t, cpu;
	} cpu_hist[128];
	unsigned cpu_pos;
	/* the detector's: while the thread is missing at a barrier, the
	 * signature of its probed path (sync-hang.c invariant 2), since
	 * when it has been that, over how many probes, for which wait
	 * (key) */
	struct {
		uint64_t key, sig, since;
		unsigned probes;
		int moved;		/* sig changed during this wait */
	} watch;
	/* the path probe (sync-hang.c): 1 asked, 2 taken */
	volatile int probe_state;
	int probe_n;
	uintptr_t probe_frames[SYNC_PROBE_FRAMES];
};

/* Configuration (HPCRUN_SYNC, HPCRUN_SYNC_WARN_MS, HPCRUN_HANG_TIMEOUT,
 * HPCRUN_HANG_ACTION; hpcrun(1)). */
struct sync_config {
	int on;
	uint64_t warn_ns;		/* 0: no warnings */
	uint64_t hang_ns;		/* 0: no detector */
	int hang_abort;
	uint64_t start_ns;		/* CLOCK_MONOTONIC at hpcrun's start */
	/* MPI: this rank's CLOCK_MONOTONIC minus rank 0's, and the bound
	 * of its error (sync-interpose.c invariant 6) */
	enum hpcsync_clock clock;
	int64_t clock_offset;
	uint64_t clock_err;
};
extern struct sync_config sync_cfg;

/* sync.c */
uint64_t sync_now(void);		/* CLOCK_MONOTONIC ns */
/* td's state, made when missing (by its thread, or by the detector for
 * a thread still without it; sync.h invariant 4); NULL without memory. */
struct sync_thread *sync_thread_state(struct rt_thread *td);
/* The object of key (a barrier's address, a region) with n participants,
 * made when missing (n: 0 keeps a known count); NULL when the pool is full. */
struct sync_obj *sync_obj_get(uintptr_t key, uint32_t n);
/* The barrier of key was destroyed: its episodes start over at the next
 * init (the key stays in the table). */
void sync_obj_reset(uintptr_t key);
/* A fresh object for a key used once (an OpenMP region), and its end. */
struct sync_obj *sync_obj_new(uintptr_t key);
void sync_obj_free(struct sync_obj *o);

/* Where an OpenMP team's episodes hang (sync-region.c): the team's
 * master's path to the construct's call (frames[0] its return address,
 * outermost last, as the master's unwind ended), which every team thread
 * puts its site's path below, so that a site is one whichever thread
 * starts it; and the base the object's episode numbers are counted from,
 * so that they go on across the construct's regions. */
#define SYNC_GRAFT_FRAMES 256
struct sync_graft {
	int n, end;			/* n 0: no path (the thread's own) */
	uintptr_t frames[SYNC_GRAFT_FRAMES];
};
#define SYNC_PLACE_CALL ((uintptr_t)-1)
struct sync_place {
	const struct sync_graft *graft;	/* NULL: the thread's own path */
	uintptr_t leaf;			/* nonzero: the site's leaf is this code
					 * address, right below graft, or
					 * (SYNC_PLACE_CALL) graft's own call;
					 * 0: the thread's frames up to the
					 * runtime */
	uint64_t base;			/* added to the object's episode numbers */
};

/* One barrier episode of the calling thread, around the real call:
 * begin before it (kind, site key ra/objkey, object o; cut: the return
 * address up to which the site's path is unwound), end after it.
 * sync_barrier_begin_at: the same, the site and numbers placed by pl
 * (NULL: as sync_barrier_begin). */
struct sync_episode {
	struct rt_thread *td;
	struct sync_obj *o;
	uint32_t site;
	int kind;
	uint64_t c, e, base, arrive, cpu_arrive;
};
int sync_barrier_begin(struct sync_episode *ep, int kind, uintptr_t ra,
		       uintptr_t objkey, struct sync_obj *o, uintptr_t cut);
int sync_barrier_begin_at(struct sync_episode *ep, int kind, uintptr_t ra,
			  uintptr_t objkey, struct sync_obj *o, uintptr_t cut,
			  const struct sync_place *pl);
void sync_barrier_end(struct sync_episode *ep);

/* The end of ep at depart with the thread's CPU time cpu, by another
 * thread while ep's waits idle in the runtime, which orders this before
 * its next sync call (sync.c invariant 3); that thread then calls
 * sync_phase_restart when it leaves the runtime: its next phase starts
 * there. */
void sync_barrier_end_for(struct sync_episode *ep, uint64_t depart,
			  uint64_t cpu);
void sync_phase_restart(void);

/* A lock wait of the calling thread: begin when the try failed (publishes
 * the wait for the detector, how its SYNC_WAIT_* bits), end when it got
 * the lock. */
struct sync_lockwait {
	struct rt_thread *td;
	uint32_t site;
	uint64_t since;
};
void sync_lock_begin(struct sync_lockwait *w, int kind, unsigned how,
		     uintptr_t ra, uintptr_t obj, uintptr_t cut);
void sync_lock_end(struct sync_lockwait *w);

/* A pthread_join of the calling thread that blocks (its thread still
 * runs), from ra, of thread: published for the detector alone, kind
 * SYNC_KIND_JOIN at site SYNC_JOIN_SITE (none: a join is not measured),
 * until sync_join_end. */
#define SYNC_KIND_JOIN HPCSYNC_NKINDS
#define SYNC_JOIN_SITE UINT32_MAX
void sync_join_begin(struct sync_lockwait *w, uintptr_t ra, uintptr_t thread);
void sync_join_end(struct sync_lockwait *w);

/* In the sample handler: records the sample's path td->frames[0..n)
 * under ^Phases for the thread's current phase, below its start until
 * the phase's end moves it below its kind (sync.c invariant 7;
 * sample.c). */
void sync_phase_sample(struct rt_thread *td, int n, uint64_t time, int idx,
		       double val);
/* The site's kind, object and call (for reports); 0 or -ENOENT. */
int sync_site_info(uint32_t site, int *kind, uintptr_t *obj, uintptr_t *ra);

/* sync-region.c: an OpenMP region of one construct, begun and ended by
 * the team's master around the runtime's fork and join. */
struct sync_region {
	uintptr_t ra;			/* this call's return address */
	uintptr_t site_ra;		/* the construct's first call's, which
					 * keys its sites and objects
					 * (sync-region.c, invariant 1) */
	uintptr_t fn;			/* its outlined function; 0 unknown */
	struct sync_obj *obj;		/* the team's object, NULL without */
	struct sync_place inner;	/* the team's barriers in the region */
	struct sync_place join;		/* its join: leaf fn (else ra - 1) */
	void *entry;			/* the construct's (sync-region.c) */
};
/* Before the team starts (master; cut: the return address up to which
 * the master's path is unwound for the construct's first region). */
void sync_region_begin(struct sync_region *r, uintptr_t ra, uintptr_t fn,
		       uintptr_t cut);
/* The same for a runtime whose threads may end their join episode after
 * the region's end (libomp through OMPT): no object and no base; the
 * join's leaf is the construct's first call (fn 0: the outlined function
 * unknown, the construct is this call's). */
void sync_region_begin_graft(struct sync_region *r, uintptr_t ra,
			     uintptr_t fn, uintptr_t cut);
/* After every team thread has left the region (master). */
void sync_region_end(struct sync_region *r);
/* The region's object with the team's size n set by its first caller
 * (n 0: leaves it unknown); NULL without one. */
struct sync_obj *sync_region_obj(struct sync_region *r, uint32_t n);
/* Is pc in the OpenMP runtime or in libhpcrun.so (where a team thread's
 * own frames end)?  Outside handlers. */
int sync_region_runtime_pc(uintptr_t pc);
/* The calling thread's team size (omp_get_num_threads); 0 without an
 * OpenMP runtime. */
uint32_t sync_team_size(void);

/* sync-ompt.c: are libomp's barriers measured through OMPT (so the
 * __kmpc_barrier wrapper only calls the real one)? */
int sync_ompt_active(void);

/* sync-hang.c */
/* "FUNC+0xOFF (MODULE+0xOFF)" of code address pc into buf (outside
 * handlers; symbols from the module's .symtab, else .dynsym). */
void sync_describe_pc(uintptr_t pc, char *buf, size_t size);
/* Starts the detector thread once per process (outside handlers). */
void sync_hang_start(void);
/* In the sample handler: the path probe of the detector (RT_PATH_PROBE). */
void sync_probe_take(struct rt_thread *td, int n);
uint64_t sync_hang_reports(void);

#endif
