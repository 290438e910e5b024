/*
 * runtime.h - the threads, the configuration and the lifecycle of
 * libhpcrun.so, the preloaded sampling runtime, and the map of its files.
 *
 * Pieces (one file each):
 *   runtime.c      configuration from the environment, events and their
 *                  fallbacks, per-thread and per-process lifecycle, the log
 *   output.c       hpcrun's files: names, the guard around writes, the
 *                  profile, the proc file, side files (output.h)
 *   interpose.c    how every wrapper reaches its real function (interpose.h:
 *                  the table of the wrapped families)
 *   process-interpose.c    the libc entry points we wrap for the process
 *                  and its threads (main, threads, exec, exit, dlopen, the
 *                  calls that close fds)
 *   signals.c      every signal hpcrun handles: the sampling signal, the
 *                  fatal signals, the program's sigaction and masks
 *                  (signals.h: the table)
 *   sample.c       the sampling signal handler (its rules are at its top)
 *   unwind.c       async-signal-safe .eh_frame unwinder for x86-64
 *                  (unwind.h)
 *   loadmap.c      the modules mapped in the process, prepared outside the
 *                  handler and published as immutable snapshots (loadmap.h)
 *   cct.c          per-thread arena and calling context tree (cct.h)
 *   source-perf.c, source-timer.c   the sample sources (source.h)
 *   fd-gate.c      hpcrun's fds kept safe from the program: the fd gate
 *                  and the fd thread's private table (fd-gate.h)
 *   capability.h   the hooks through which runtime.c calls the capabilities
 *                  below at each point of its lifecycle
 *   sync-interpose.c, sync.c, sync-hang.c   barriers, lock waits, phases and
 *                  the hang detector (sync.h, sync-episode.h)
 *   datacentric.c, datacentric-memop.c, datacentric-alloc.c   hpcrun --data
 *                  (datacentric.h)
 *   sharing.c      hpcrun --sharing: the data samples as access records,
 *                  the .hpcshare files (sharing.h)
 *   trace.c        hpcrun -t: each thread's samples in time order, the
 *                  .hpctrace files (trace.h)
 *   raw-threads.c  the tasks made without pthread_create (a raw clone),
 *                  found in /proc/self/task and measured from outside
 *                  (raw-threads.h)
 *   kernel-time.c  the kernel's time: counted, or its share said at the
 *                  end (kernel-time.h)
 *   python-frames.c  the Python frames of the paths in a process running
 *                  CPython, the .hpcpy files (python-frames.h)
 *
 * Invariants:
 *  1. The signal handler only touches its own thread's struct rt_thread,
 *     the published load-map snapshot and the stack and text it unwinds.
 *  2. Every struct rt_thread is registered in the thread list (under
 *     rt_threads_lock, never taken in the handler) from the moment its
 *     sources start until its profile is written.
 *  3. A thread's CCT is written exactly once (closed is set first).
 *
 * Return values, one convention: a function that can fail returns 0 (or
 * what it made: a fd, a count) or a negative errno; a predicate returns
 * 1 or 0 and is named as a question (rt_is_..., rt_in_...,
 * rt_perf_is_ring_event).  Kept apart, in signals.c: rt_signal_take (0 or
 * -1) and rt_fault_recovery (1 or 0); in output.h: rt_file_path and
 * rt_say_lost.
 */
#ifndef HPCRUN_RUNTIME_H
#define HPCRUN_RUNTIME_H

#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <stdint.h>
#include <sys/types.h>
#include <time.h>

#include "cct.h"
#include "futex.h"
#include "hpcrun-events.h"
#include "signals.h"

#define RT_API __attribute__((visibility("default")))
/* Frames of one path (struct rt_thread's frames). */
#define RT_MAX_FRAMES 8192

struct rt_thread;
struct sample_source;
struct uw_cache;
struct sync_thread;
struct py_thread;

/* One configured event, process-wide. */
struct rt_event {
	struct hpcrun_evspec spec;
	const struct sample_source *src;
	char metric[64];		/* "perf::cpu-clock", "CPUTIME (sec)" */
	const char *desc;
	uint64_t metric_period;		/* written in the metric table */
	int is_frequency;
	double threshold;
};

struct rt_config {
	struct rt_event ev[HPCRUN_MAX_EVENTS];
	int nev;
	int no_unwind;
	int python;			/* Python frames (0: --no-python;
					 * python-find.h) */
	uint32_t stack_copy;		/* bytes of stack per ring sample; 0: no rings */
	int verbose;
	int signo;			/* the sampling signal */
	char outdir[4096];
	char exe[4096];			/* absolute path of the program */
	const char *progname;		/* basename of exe */
	uint32_t hostid;
	uint32_t rank;
	int rank_known;			/* a launcher gave the rank */
};
extern struct rt_config rt_cfg;
/* Metrics of a profile: the events', then hpcrun --data's (hpcrun(5)). */
#define RT_MAX_METRICS (HPCRUN_MAX_EVENTS + 4)
int rt_nmetrics(void);
extern char rt_env_path[];		/* PATH at start, for the header */
extern volatile int rt_active;		/* 0 before init and after finish */
extern pid_t rt_pid;

/* Clock clk in ns; UINT64_MAX when it cannot be read (the CPU clock of a
 * thread that has ended).  Async-signal-safe. */
static inline uint64_t rt_clock_ns(clockid_t clk)
{
	struct timespec t;

	if (clock_gettime(clk, &t))
		return UINT64_MAX;
	return (uint64_t)t.tv_sec * 1000000000u + (uint64_t)t.tv_nsec;
}

/* Per-thread sample accounting. */
struct rt_counts {
	uint64_t taken, recorded, partial, dropped_busy, dropped_nomodule,
		dropped_full, dropped_stopped, dropped_foreign, unwind_faults,
		handler_ns,	/* time spent in the handler (clock_gettime) */
		dropped_ring,	/* lost by the kernel: a ring buffer was full */
		ring_in_call,	/* ... in a system call: counted there */
		in_hpcrun,	/* taken in libhpcrun.so's code: hpcrun's cost */
		copy_live,	/* copies continued on the live stack */
		kernel,		/* recorded with a kernel leaf (kernel-time.h) */
		behind,		/* leaf alone: the handler fell behind (sample.c) */
		low_stack;	/* signals dropped: no room on the stack (sample.c) */
};

struct rt_thread {
	int index;			/* 0 = main thread */
	pid_t tid;
	uintptr_t stack_lo, stack_hi;
	int fd[HPCRUN_MAX_EVENTS];	/* perf fds, -1 when not perf or lost;
					 * atomic (fd-gate.c, THE FDS) */
	uint64_t last_count[HPCRUN_MAX_EVENTS];
	timer_t timer[HPCRUN_MAX_EVENTS];
	void *ring[HPCRUN_MAX_EVENTS];	/* perf ring buffers, or NULL; atomic
					 * (source-perf.c, THE RING) */
	size_t ring_bytes[HPCRUN_MAX_EVENTS];
	/* the node and value of a ring's last sample when it was taken in a
	 * system call, else NULL: the samples the kernel then lost to a full
	 * ring were that call's (source-perf.c, R4) */
	struct cct_node *ring_call[HPCRUN_MAX_EVENTS];
	double ring_call_val[HPCRUN_MAX_EVENTS];
	unsigned char ring_full[HPCRUN_MAX_EVENTS];	/* at its last drain */
	int nrings;			/* rings, and rings being made */
	timer_t drain_timer;		/* while nrings > 0 */
	unsigned ev_lock;		/* nrings, drain_timer (source-perf.c) */
	int started[HPCRUN_MAX_EVENTS];
	uint64_t *nsamples;		/* per event: in the live file's header */
	volatile int busy;		/* inside the handler (set seq_cst) */
	int own_depth;			/* in hpcrun's own work, how deep, and
					 * since when (CLOCK_MONOTONIC ns); the
					 * last such work, [own_lo, own_hi]:
					 * rt_own_begin (sample.c) */
	uint64_t own_since, own_lo, own_hi;
	int park_due;			/* parked at own work's end (runtime.c,
					 * THE PARK AT EXIT) */
	int late;			/* perf samples in a row that ended with
					 * the next one queued (sample.c) */
	volatile int in_unwind;		/* unwinding: a fault jumps to unwind_jmp */
	sigjmp_buf unwind_jmp;
	volatile int closed;		/* written or being written */
	struct rt_counts counts;
	/* REALTIME's clocks at its last off-CPU sample, and how long before
	 * the handler that sample's context began (source-timer.c, O2) */
	uint64_t off_wall, off_cpu, sample_back_ns;
	struct cct cct;
	struct uw_cache *uwc;		/* unwinder's cache, after the struct */
	struct sync_thread *sync;	/* sync.h; NULL until its first sync */
	struct rt_data_thread *data;	/* hpcrun --data, or NULL */
	struct rt_share_thread *share;	/* hpcrun --sharing, or NULL */
	struct rt_trace_thread *trace;	/* hpcrun -t (trace.h), or NULL */
	int raw;			/* a task made without pthread_create:
					 * never signalled, its rings drained
					 * from outside (raw-threads.h) */
	struct py_thread *py;		/* Python frames (python-frames.c), or
					 * NULL before the thread's first */
	uintptr_t py_self;		/* pthread_self(), for the above */
	uintptr_t frames[RT_MAX_FRAMES];
	/* with Python frames on, each frame's sp (unwind.h, rt_unwind): the
	 * eval calls' frames are told apart by it (python-frames.c); sps_ok
	 * when they are those of frames */
	uintptr_t sps[RT_MAX_FRAMES];
	int sps_ok;
	unsigned char rec[65536];	/* a ring record that wraps around */
	struct rt_thread *next, **pprev;	/* runtime.c's list of threads */
};

/* Sleeps a moment (50 us at most) while td's handler runs, for a thread
 * waiting for it: nothing wakes the waiter (the handler would need a
 * system call a sample), and its work takes microseconds (futex.h: why
 * not sched_yield). */
static inline void rt_wait_idle_once(struct rt_thread *td)
{
	unsigned v = (unsigned)td->busy;

	if (v)
		rt_futex_wait((unsigned *)&td->busy, v, 50000);
}

extern __thread struct rt_thread *rt_self
	__attribute__((tls_model("initial-exec")));

/* runtime.c */
void rt_init(void);
struct rt_thread *rt_thread_begin(int index);
/* Writes every thread and the log; why: "exit", "_exit", "quick_exit",
 * "exec", "signal N".
 * The writing thread blocks every signal but its own faults meanwhile. */
void rt_process_finish(const char *why, int from_signal);
/* Called by a fatal signal's end of the process after rt_process_finish:
 * while another thread still writes the process's end, waits for it (10 s
 * at most), so that the signal ends the process after its files are
 * whole. */
void rt_process_finish_wait(void);
/* In the sample handler: the finisher's RT_EXIT_PARK (runtime.c, THE PARK
 * AT EXIT); td may be NULL. */
void rt_exit_park(struct rt_thread *td);
/* After a call that ends the measurement (rt_process_finish) returned
 * failing with errno err (an exec, a seccomp filter): measure on, in new
 * files; the log says "CALL failed (why): measurement goes on in new
 * files". */
void rt_resume_after_failed(const char *call, int err);
/*
 * THE SANDBOX.  A program that installs a seccomp filter after its start
 * (seccomp(2) or prctl PR_SET_SECCOMP, a filter or strict mode) has the
 * kernel refuse, or punish with death, every system call the filter does
 * not allow, hpcrun's too, on every thread the filter covers (with TSYNC,
 * all of them).  Which of hpcrun's calls a filter allows cannot be known,
 * so rt_sandbox_enter, before the call: ends the measurement of the whole
 * process as exec does (rt_process_finish "seccomp": every profile and
 * the log written, every source stopped), lets the threads on their way
 * to rt_thread_begin through it (they find it finished), ends hpcrun's
 * own threads and waits until their tasks are gone, and gives the fatal
 * signals back to the program's actions (rt_release_fatal_handlers); 1
 * if it did (the process was measured).  From then on the process is
 * sealed: every wrapper finds rt_active 0 and makes only the program's
 * call, a wait that began before ends without hpcrun's bookkeeping
 * (rt_sealed), the fork handlers do nothing (a child inherits the
 * filter), and a failed exec does not resume.  A program exec'd then
 * starts under the filter: rt_init stays out when the process has more
 * filters (seccomp-filters.h) than the launcher had
 * (HPCRUN_SECCOMP_FILTERS).  rt_sandbox_failed(err), when the call
 * failed, undoes it all: the measurement goes on in new files.
 * Not covered: a filter installed with the system call instruction
 * itself (not through libc's prctl or syscall), a thread of the program
 * in the midst of a wrapper's own work at that very moment (not its
 * wait).
 */
int rt_sandbox_enter(void);
void rt_sandbox_failed(int err);
/* fork's handlers (pthread_atfork), and around a fork the program makes
 * with the clone or clone3 system call through syscall(3)
 * (process-interpose.c): the child measured as after fork. */
void rt_fork_prepare(void);
void rt_fork_parent(void);
void rt_fork_child(void);
/* 1 while sealed: what a wrapper does after a wait that began before
 * (a barrier's end, its CPU clock read) is not done. */
extern int rt_sealed;
int rt_next_thread_index(void);
void rt_note(const char *msg);
void rt_count_blocked_signal(void);
/* Counts a thread the program could not make (EAGAIN: the log's
 * threads-refused, said when hpcrun's own threads were alive). */
void rt_thread_refused(void);
/* Counts a file of hpcrun's not written (the log's write-errors). */
void rt_count_write_error(void);
/* Starts fn(arg) on a thread of hpcrun's own (made with the real
 * pthread_create, so never measured; detached; a stack of stack bytes);
 * 0 or negative errno.  Outside handlers. */
int rt_own_thread(void *(*fn)(void *), void *arg, size_t stack);
/* STANDING ASIDE.  Some system calls (unshare with CLONE_NEWUSER, setns
 * into a user namespace) fail while the process has more than one
 * thread.  rt_own_pause, on the program's only thread (no other task but
 * hpcrun's own), blocks its signals, sets rt_own_stop (a futex word the
 * own threads' loops wait on and leave when set), ends the fd threads
 * and the writer after their work, and waits (up to about 2 s each) until
 * the kernel shows none left; 1 if it did so (counted in the log's
 * own-threads-paused), else 0 and nothing stopped but the signals.
 * rt_own_resume(paused, old) makes them again if paused, restores the
 * mask, and keeps errno.  Outside handlers. */
extern unsigned rt_own_stop;
int rt_own_pause(sigset_t *old);
void rt_own_resume(int paused, const sigset_t *old);
/* A FORK IN CPYTHON 3.12 OR LATER.  Its os.fork() counts the process's
 * threads (/proc/self/stat) as fork returns in the parent and warns
 * "multi-threaded" when there are several (a DeprecationWarning on
 * stderr; an error under -W error).  So when the program's only thread
 * forks there (rt_python_counts_threads; a thread it joined and that is
 * still ending is waited for), hpcrun's own threads stand
 * aside in the fork's prepare handler (rt_own_pause) and stay away in
 * the parent, rt_own_away set, until rt_own_back makes them again: on
 * the program's fclose() of the /proc/self/stat it read, or its next
 * pthread_create or blocking wait, whichever comes first (never in a
 * handler, which cannot make threads).  Not at a dlopen: 3.13 runs the
 * program's after-fork hooks before it counts, and a hook that imports
 * a C extension would count them.  Meanwhile the handler does
 * without the writer (fd-gate.c, W4) and files are written on the
 * caller (fd-gate.c, P2).  The child starts as after any fork. */
extern unsigned rt_own_away;
void rt_own_back_now(void);
/* Is fd the process's /proc/self/stat?  (keeps errno) */
int rt_own_away_stat(int fd);
static inline void rt_own_back(void)
{
	if (__builtin_expect(__atomic_load_n(&rt_own_away, __ATOMIC_RELAXED), 0))
		rt_own_back_now();
}
/* HPCRUN'S OWN WORK on a program's thread (sample.c's rules say which):
 * from rt_own_begin to its rt_own_end (they nest), the samples the
 * calling thread takes, by signal or stamped in a ring, are hpcrun's
 * (samples-in-hpcrun), not the program's.  rt_own_end drains the
 * thread's rings when it can; the last work's bounds stay, for a ring
 * drained later.  A thread ending does not end its own work: its
 * measurement ends with it.  No-ops on a thread not measured.  Outside
 * handlers; rt_is_own_time in them (a predicate). */
void rt_own_begin(void);
void rt_own_end(void);
/* Every signal but the synchronous faults (SIGSEGV, SIGBUS, SIGFPE,
 * SIGILL, SIGTRAP, SIGSYS) and glibc's own, into set. */
void rt_async_set(sigset_t *set);
/* Blocks the signals of rt_async_set on the calling thread; its mask
 * before in old. */
void rt_block_async(sigset_t *old);
/* The calling thread's rings drained now, as hpcrun's own work: the
 * drain decodes and unwinds (Capstone, called through a pointer, would
 * read as the program's call), and the samples it takes meanwhile are
 * hpcrun's.  Outside handlers. */
void rt_own_drain(void);
/* Was td in hpcrun's own work at time t (CLOCK_MONOTONIC ns, a ring
 * sample's stamp)? */
int rt_is_own_time(const struct rt_thread *td, uint64_t t);
/* The process's tasks, had without a fd: the link count of
 * /proc/self/task less 2; -1 if it cannot be read. */
long rt_task_count(void);
/* Calls fn for every thread still sampled, under the thread list's lock
 * (outside the handler). */
void rt_threads_apply(void (*fn)(struct rt_thread *td));

/* The threads as raw-threads.c sees them (outside handlers). */
/* A thread made by pthread_create or thrd_create, or one of hpcrun's own
 * (rt_own_thread), is on its way from rt_thread_starting(1), before the
 * real call, to rt_thread_starting(-1) once it is registered (or the call
 * failed). */
void rt_thread_starting(int delta);
/* How many are on their way. */
int rt_threads_starting(void);
/* Sets known[i] to 1 for each tids[i] (sorted, n of them) that is a
 * thread hpcrun measures, one of hpcrun's own (rt_own_thread), one whose
 * profile was written lately (a thread between its end and its exit) or
 * one of pthread_create's that had no memory to be measured; leaves the
 * others alone. */
void rt_threads_known(const pid_t *tids, unsigned char *known, size_t n);
/* Is task tid one of hpcrun's own threads (rt_own_thread)? */
int rt_is_own_tid(pid_t tid);
/* A struct rt_thread for task tid of this process, which never passed
 * through rt_thread_begin: td->raw set, registered, its tree made, the
 * sources that can measure it without a signal started (source.h,
 * invariant 4), nothing run on the task itself; NULL when no source
 * could start or there was no memory.  Freed by rt_thread_end_other or
 * at process end. */
struct rt_thread *rt_thread_adopt(pid_t tid);
/* Ends td, a thread rt_thread_adopt made, from another thread: its
 * sources stopped, its profile written, its memory freed. */
void rt_thread_end_other(struct rt_thread *td);
/* Counts a thread hpcrun could not measure (the log's threads-unmeasured). */
void rt_count_unmeasured(void);

#endif
