/*
 * runtime.c - configuration and lifecycle of the preloaded runtime, and
 * its log.
 *
 * Lifecycle of the process (state in rt_active / finished):
 *
 *   load --constructor rt_init()--> ACTIVE --exit, _exit, quick_exit,
 *   exec, fatal signal: rt_process_finish()--> FINISHED (every thread's
 *   profile and the log written; later samples are dropped as "stopped")
 *   FINISHED --exec failed--> ACTIVE again, every live thread with a new,
 *   empty tree written to new files (rt_resume_after_failed)
 *   ACTIVE --seccomp filter--> FINISHED and sealed for good: no system
 *   call of hpcrun's from then on (runtime.h, THE SANDBOX), unless the
 *   call fails (then ACTIVE again as after a failed exec)
 *   ACTIVE --fork--> the child resets to ACTIVE with only the forking
 *   thread, an empty tree and fresh counters (rt_after_fork_child).
 *   ACTIVE --unshare, setns needing one thread--> hpcrun's own threads end
 *   and are made again after the call (rt_own_pause, rt_own_resume).
 *
 * Lifecycle of a thread: rt_thread_begin() (arena, tree, sources, then
 * registered) ... samples ... rt_thread_end() at thread exit, or
 * rt_process_finish() for threads still running at process end.  Either
 * path first sets td->closed under rt_threads_lock, so each profile is
 * written once.  A task made without pthread_create is adopted from
 * outside instead (rt_thread_adopt, by raw-threads.c) and ended from
 * outside (rt_thread_end_other), never running any of this itself.
 *
 * Capabilities (synchronization, the hang detector, --data, --sharing, -t,
 * kernel time)
 * are called through their tables of hooks, capabilities[], at the
 * points capability.h names, never by name.
 *
 * Files: each thread's tree lives in its live file while it runs, the
 * process's header, metrics and load map in its proc file (hpcrun-live.h,
 * cct.c, output.c); a profile written frees its live file (to cct.c's pool
 * of free files, removed when the process ends: cct.h, invariant 4), a
 * process that wrote everything removes its proc file.  Every write of
 * ours, our messages on stderr too (rt_say, the only writer of fd 2), goes
 * as output.h's invariants say: inside rt_io_begin and rt_io_end (the
 * log composed in memory, then its file written on a fd thread) or, for
 * the files of threads, which begin and end many at once, rt_io_private
 * (the limits lifted, on a fd thread: no gate to wait for); a file that
 * cannot be written whole is said on stderr ("hpcrun: 'FILE': why:
 * profile lost") and removed, never left cut short.
 *
 * Configuration comes from the environment the launcher sets (hpcrun(1)):
 * HPCRUN_OUT_PATH, HPCRUN_EVENT_LIST, HPCRUN_NO_UNWIND, HPCRUN_NO_PYTHON,
 * HPCRUN_NO_STACK_COPY, HPCRUN_STACK_COPY, HPCRUN_VERBOSE (and sync.c's HPCRUN_SYNC...,
 * datacentric.c's HPCRUN_DATA, sharing.c's HPCRUN_SHARING, trace.c's
 * HPCRUN_TRACE..., kernel-time.c's HPCRUN_NO_KERNEL).
 * Everything that can fail is reported (stderr once per run, and the log);
 * nothing here ever stops the program.
 */
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/perf_event.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "capability.h"
#include "cct.h"
#include "datacentric.h"
#include "fd-gate.h"
#include "futex.h"
#include "interpose.h"
#include "kernel-time.h"
#include "loadmap.h"
#include "output.h"
#include "python-argv.h"
#include "python-find.h"
#include "runtime.h"
#include "seccomp-filters.h"
#include "signals.h"
#include "source.h"
#include "unwind.h"

struct rt_config rt_cfg;
char rt_env_path[4096];
volatile int rt_active;
pid_t rt_pid;
__thread struct rt_thread *rt_self __attribute__((tls_model("initial-exec")));

/* A thread's state and its unwind cache, one mapping. */
#define TD_BYTES (sizeof(struct rt_thread) + rt_unwind_cache_size())

static pthread_mutex_t threads_lock = PTHREAD_MUTEX_INITIALIZER;
static struct rt_thread *threads;
static int next_index = 1;
static int inited, finished;
int rt_sealed;
/* rt_process_finish's end: a futex word, 1 once it wrote everything, on
 * which a fatal signal arriving meanwhile on another thread waits
 * (rt_process_finish_wait); finisher, the thread writing. */
static unsigned finish_done;
static pid_t finisher;
/* Threads writing their profiles in rt_thread_end: a futex word, on which
 * rt_process_finish sleeps (how long, end_wait_ms, for the log). */
static unsigned writers;
static uint64_t end_wait_ms;
/* Threads the end held still (THE PARK AT EXIT), for the log. */
static uint64_t parked;
static pthread_key_t thread_key;
static struct rt_counts totals;
static uint64_t nthreads, write_errors, start_failures, blocked_attempts,
	live_left, threads_unmeasured;
/* Threads that ended before their first sample, and their CPU time: a
 * thread's sampling starts from zero, so one shorter than a period never
 * takes a sample (said at the end: unsampled_say). */
static uint64_t unsampled_threads, unsampled_ns;
#define UNSAMPLED_SAY_PERCENT 5
#define UNSAMPLED_SAY_NS 10000000ULL
/* Threads on their way from pthread_create to rt_thread_begin, and own
 * threads to own_tids. */
static int starting;
/* Own threads were made to stand aside this many times (rt_own_pause). */
static uint64_t own_paused;
unsigned rt_own_stop;
/* hpcrun's own threads (rt_own_thread), a slot freed when its thread
 * leaves its function (rt_own_pause). */
#define OWN_MAX 64
static pid_t own_tids[OWN_MAX];
/* The threads whose profiles were written last, which may still run
 * (their key destructors, glibc's exit), and those of pthread_create that
 * had no memory to be measured: a ring under threads_lock. */
#define ENDED_MAX 1024
static pid_t ended[ENDED_MAX];
static unsigned ended_next;
static char notes[4096];
static size_t notes_len;
static int show_notes;

static void verbose_report(void);
static void rt_thread_end(struct rt_thread *td);
static void rt_after_fork_child(void);

/* The capabilities, in the order their hooks are called (capability.h,
 * invariant 1). */
static const struct rt_capability *const capabilities[] = {
	&sync_capability, &hang_capability, &data_capability, &sharing_capability,
	&trace_capability, &python_capability, &pyframes_capability,
	&raw_capability, &kernel_capability,
};

/* Calls hook (with the arguments that follow) of every capability that
 * has one, in table order. */
#define CAPS_CALL(hook, ...) do { \
	size_t c_; \
	for (c_ = 0; c_ < sizeof(capabilities) / sizeof(capabilities[0]); c_++) \
		if (capabilities[c_]->hook) \
			capabilities[c_]->hook(__VA_ARGS__); \
} while (0)

/* Records a notice for the log, and shows it on stderr once per run. */
void rt_note(const char *msg)
{
	size_t n = strlen(msg);

	if (notes_len + n + 2 < sizeof(notes)) {
		memcpy(notes + notes_len, msg, n);
		notes_len += n;
		notes[notes_len++] = '\n';
		notes[notes_len] = '\0';
	}
	if (show_notes)
		rt_say(msg, NULL);
}

void rt_count_blocked_signal(void)
{
	__atomic_add_fetch(&blocked_attempts, 1, __ATOMIC_RELAXED);
}

void rt_count_write_error(void)
{
	__atomic_add_fetch(&write_errors, 1, __ATOMIC_RELAXED);
}

/* threads holds td, in O(1): threads end by the thousand (threads_lock
 * held). */
static void threads_add(struct rt_thread *td)
{
	td->next = threads;
	if (threads)
		threads->pprev = &td->next;
	td->pprev = &threads;
	threads = td;
}

static void threads_del(struct rt_thread *td)
{
	*td->pprev = td->next;
	if (td->next)
		td->next->pprev = td->pprev;
}

void rt_threads_apply(void (*fn)(struct rt_thread *td))
{
	struct rt_thread *td;

	pthread_mutex_lock(&threads_lock);
	for (td = threads; td; td = td->next)
		if (!td->closed)
			fn(td);
	pthread_mutex_unlock(&threads_lock);
}

RT_REAL_DEFINE(pthread_create);

/* What an own thread starts with; ready once it is in own_tids. */
struct own_start {
	void *(*fn)(void *);
	void *arg;
	unsigned ready;
};

/* Every signal another process can send, into set: all but a fault of
 * the thread's own (and glibc's own, which sigfillset leaves out). */
void rt_async_set(sigset_t *set)
{
	static const int own[] = { SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGTRAP,
				   SIGSYS };
	size_t i;

	sigfillset(set);
	for (i = 0; i < sizeof(own) / sizeof(own[0]); i++)
		sigdelset(set, own[i]);
}

/* Blocks every signal another process can send (the caller's mask before
 * into old); a fault of the thread's own stays deliverable.  The thread
 * writing the process's end keeps them blocked, so that a SIGTERM
 * arriving then (multiprocessing's terminate() of a worker that is
 * exiting) waits for the writing to end instead of cutting it short;
 * hpcrun's own threads are made with them blocked, so that none is ever
 * taken on one. */
void rt_block_async(sigset_t *old)
{
	sigset_t set;

	rt_async_set(&set);
	rt_real_sigmask(SIG_BLOCK, &set, old);
}

static void *own_start(void *p)
{
	struct own_start *o = p;
	void *(*fn)(void *) = o->fn;
	void *arg = o->arg;
	pid_t tid = (pid_t)syscall(SYS_gettid), zero;
	int i;

	for (i = 0; i < OWN_MAX; i++) {
		zero = 0;
		if (__atomic_compare_exchange_n(&own_tids[i], &zero, tid, 0,
						__ATOMIC_SEQ_CST, __ATOMIC_RELAXED))
			break;
	}
	__atomic_store_n(&o->ready, 1, __ATOMIC_SEQ_CST);
	rt_futex_wake(&o->ready, 1);
	fn(arg);
	/* a thread that left its loop (rt_own_pause) frees its slot */
	if (i < OWN_MAX)
		__atomic_store_n(&own_tids[i], 0, __ATOMIC_SEQ_CST);
	return NULL;
}

int rt_own_thread(void *(*fn)(void *), void *arg, size_t stack)
{
	struct own_start o = { fn, arg, 0 };
	pthread_attr_t attr;
	sigset_t mask;
	pthread_t t;
	int err, quiet;

	if ((err = pthread_attr_init(&attr)))
		return -err;
	/* Making the thread is hpcrun's work (a sample in a constructor's
	 * thread start would otherwise be a partial path of the program). */
	rt_own_begin();
	pthread_attr_setstacksize(&attr, stack);
	pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
	/* on its way until it is in own_tids: the raw-thread watcher must
	 * not take the new task for a raw one meanwhile (raw-threads.h) */
	rt_thread_starting(1);
	quiet = rt_data_own_begin();
	rt_block_async(&mask);		/* the thread's mask from its start */
	err = RT_REAL(pthread_create)(&t, &attr, own_start, &o);
	rt_real_sigmask(SIG_SETMASK, &mask, NULL);
	rt_data_own_end(quiet);
	pthread_attr_destroy(&attr);
	/* o lives on this stack: the thread has copied it once ready */
	while (!err && !__atomic_load_n(&o.ready, __ATOMIC_SEQ_CST))
		rt_futex_wait(&o.ready, 0, 0);
	rt_thread_starting(-1);
	rt_own_end();
	return -err;
}

/* The own threads alive (in own_tids). */
static int own_live(void)
{
	int i, n = 0;

	for (i = 0; i < OWN_MAX; i++)
		if (__atomic_load_n(&own_tids[i], __ATOMIC_SEQ_CST))
			n++;
	return n;
}

long rt_task_count(void)
{
	struct stat st;

	if (stat("/proc/self/task", &st))
		return -1;
	return (long)st.st_nlink - 2;
}

/* Sleeps until ready() or about 2 s went by; ready() then. */
static int own_wait(int (*ready)(void))
{
	struct timespec us = { 0, 100000 };
	int i;

	for (i = 0; i < 20000 && !ready(); i++)
		nanosleep(&us, NULL);
	return ready();
}

static int loops_gone(void)
{
	return own_live() <= rt_fd_threads_live();
}

static int none_starting(void)
{
	return !__atomic_load_n(&starting, __ATOMIC_SEQ_CST);
}

static int all_gone(void)
{
	return !own_live() && rt_task_count() == 1;
}

/* Ends hpcrun's own threads, the watcher and the detector first (they
 * use the fd threads), and waits until gone() or about 2 s each. */
static void own_stop(int (*gone)(void))
{
	__atomic_store_n(&rt_own_stop, 1, __ATOMIC_SEQ_CST);
	rt_futex_wake(&rt_own_stop, INT_MAX);
	if (own_wait(loops_gone)) {
		rt_fd_threads_stop();
		own_wait(gone);
	}
}

/* hpcrun's own threads when they were told to end (own_end_all): their
 * tasks, until gone. */
static pid_t own_ending[OWN_MAX];

static int own_tasks_gone(void)
{
	int i;

	if (own_live())
		return 0;
	for (i = 0; i < OWN_MAX; i++)
		if (own_ending[i] &&
		    !syscall(SYS_tgkill, rt_pid, own_ending[i], 0))
			return 0;
	return 1;
}

/* Ends hpcrun's own threads for good, and waits until their tasks are
 * gone (THE SANDBOX, THE LAST THREAD). */
static void own_end_all(void)
{
	int i;

	for (i = 0; i < OWN_MAX; i++)
		own_ending[i] = __atomic_load_n(&own_tids[i], __ATOMIC_SEQ_CST);
	own_stop(own_tasks_gone);
}

/*
 * THE LAST THREAD.  A program whose main thread leaves by pthread_exit
 * ends when its last thread does: glibc calls exit(0) as the last of the
 * threads it counts (__nptl_nthreads) finishes.  hpcrun's own threads are
 * among them, so such a program never ended, its output never flushed,
 * and no signal but SIGKILL reached it (they block them all).  So when a
 * thread of the program ends (rt_thread_end, its profile written) and
 * glibc counts no other thread but hpcrun's, hpcrun's threads end and
 * their tasks go first: the count then reaches 0 as the thread
 * finishes, and exit(0) writes the rest.  Without glibc's count
 * (another C library), nothing is done.
 */
static unsigned *nptl_nthreads;

static void last_thread_check(void)
{
	int own;

	if (!nptl_nthreads || !(own = own_live()) ||
	    __atomic_load_n(nptl_nthreads, __ATOMIC_SEQ_CST) != 1u + (unsigned)own)
		return;
	own_end_all();
}

/* Is the caller the program's only task?  A thread the program joined
 * may still be ending: CPython's join returns as the thread's Python
 * state goes, before the thread writes its profile (rt_thread_end,
 * counted in leaving), and pthread_join before the kernel has torn its
 * perf events down.  While the only other tasks are such, the count is
 * read again, for 50 ms at most; a live thread gives no after 2 ms (the
 * time a thread past its join takes to reach rt_thread_end), a raw clone
 * task (which glibc does not count) after 10 ms. */
static unsigned leaving;

static int one_program_task(void)
{
	struct timespec us = { 0, 100000 };
	unsigned glibc;
	long tasks;
	int i, own, grace = 20, alone = 0;

	for (i = 0; i < 500; i++) {
		tasks = rt_task_count();
		own = own_live();
		if (tasks - own == 1)
			return 1;
		if (tasks < 0 || !nptl_nthreads)
			return 0;
		glibc = __atomic_load_n(nptl_nthreads, __ATOMIC_SEQ_CST);
		if (__atomic_load_n(&leaving, __ATOMIC_SEQ_CST))
			grace = 20;	/* then glibc's count drops */
		else if (glibc == 1u + (unsigned)own ? ++alone > 100 : !grace--)
			return 0;	/* 10 ms: a raw task, not a teardown */
		nanosleep(&us, NULL);
	}
	return 0;
}

int rt_own_pause(sigset_t *old)
{
	rt_fd_block_signals(old);
	if (!rt_active || !own_live() ||
	    __atomic_load_n(&starting, __ATOMIC_SEQ_CST) ||
	    !one_program_task())
		return 0;
	own_stop(all_gone);
	__atomic_add_fetch(&own_paused, 1, __ATOMIC_RELAXED);
	return 1;
}

unsigned rt_own_away;

int rt_own_away_stat(int fd)
{
	char path[64], link[64], stat_path[64];
	ssize_t n;
	int err = errno;

	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	snprintf(stat_path, sizeof(stat_path), "/proc/%d/stat", (int)getpid());
	n = readlink(path, link, sizeof(link) - 1);
	errno = err;
	if (n <= 0)
		return 0;
	link[n] = '\0';
	return !strcmp(link, stat_path);
}

void rt_own_back_now(void)
{
	sigset_t old;

	if (!__atomic_exchange_n(&rt_own_away, 0, __ATOMIC_ACQ_REL))
		return;
	rt_fd_block_signals(&old);
	rt_own_resume(1, &old);
}

void rt_own_resume(int paused, const sigset_t *old)
{
	int err = errno;

	if (paused) {
		__atomic_store_n(&rt_own_stop, 0, __ATOMIC_SEQ_CST);
		rt_fd_thread_start();
		CAPS_CALL(own_resume);
	}
	rt_real_sigmask(SIG_SETMASK, old, NULL);
	errno = err;
}

/* own_since is stored before own_depth, own_lo and own_hi before
 * own_depth drops (seq_cst): the thread's handler, nested anywhere in
 * between, sees since or [lo, hi] cover the work.  The rings are
 * drained inside the work, which covers the drain's own samples too. */
void rt_own_begin(void)
{
	struct rt_thread *td = rt_self;

	if (!td)
		return;
	if (!td->own_depth)
		__atomic_store_n(&td->own_since, rt_clock_ns(CLOCK_MONOTONIC),
				 __ATOMIC_RELAXED);
	__atomic_store_n(&td->own_depth, td->own_depth + 1, __ATOMIC_SEQ_CST);
}

void rt_own_end(void)
{
	struct rt_thread *td = rt_self;

	if (!td || !td->own_depth)
		return;
	if (td->own_depth == 1) {
		rt_perf_drain_self();
		__atomic_store_n(&td->own_lo, td->own_since, __ATOMIC_RELAXED);
		__atomic_store_n(&td->own_hi, rt_clock_ns(CLOCK_MONOTONIC),
				 __ATOMIC_RELAXED);
	}
	__atomic_store_n(&td->own_depth, td->own_depth - 1, __ATOMIC_SEQ_CST);
	if (!td->own_depth && __atomic_load_n(&td->park_due, __ATOMIC_SEQ_CST))
		rt_exit_park(td);
}

void rt_own_drain(void)
{
	struct rt_thread *td = rt_self;

	if (td && td->own_depth) {
		rt_perf_drain_self();	/* inside the work already */
		return;
	}
	rt_own_begin();
	rt_own_end();		/* which drains, inside the work */
}

int rt_is_own_time(const struct rt_thread *td, uint64_t t)
{
	if (__atomic_load_n(&td->own_depth, __ATOMIC_SEQ_CST) &&
	    t >= __atomic_load_n(&td->own_since, __ATOMIC_RELAXED))
		return 1;
	return t >= __atomic_load_n(&td->own_lo, __ATOMIC_RELAXED) &&
	       t <= __atomic_load_n(&td->own_hi, __ATOMIC_RELAXED);
}

void rt_thread_starting(int delta)
{
	__atomic_add_fetch(&starting, delta, __ATOMIC_SEQ_CST);
}

int rt_threads_starting(void)
{
	return __atomic_load_n(&starting, __ATOMIC_SEQ_CST);
}

/* tids[0..n), sorted, marked known where it holds tid. */
static void mark_known(const pid_t *tids, unsigned char *known, size_t n, pid_t tid)
{
	size_t lo = 0, hi = n, mid;

	while (tid && lo < hi) {
		mid = lo + (hi - lo) / 2;
		if (tids[mid] == tid) {
			known[mid] = 1;
			return;
		}
		if (tids[mid] < tid)
			lo = mid + 1;
		else
			hi = mid;
	}
}

void rt_threads_known(const pid_t *tids, unsigned char *known, size_t n)
{
	struct rt_thread *td;
	size_t i;

	pthread_mutex_lock(&threads_lock);
	for (td = threads; td; td = td->next)
		mark_known(tids, known, n, td->tid);
	for (i = 0; i < ENDED_MAX; i++)
		mark_known(tids, known, n, ended[i]);
	pthread_mutex_unlock(&threads_lock);
	for (i = 0; i < OWN_MAX; i++)
		mark_known(tids, known, n, __atomic_load_n(&own_tids[i], __ATOMIC_SEQ_CST));
}

int rt_is_own_tid(pid_t tid)
{
	int i;

	for (i = 0; i < OWN_MAX; i++)
		if (tid && __atomic_load_n(&own_tids[i], __ATOMIC_SEQ_CST) == tid)
			return 1;
	return 0;
}

void rt_count_unmeasured(void)
{
	__atomic_add_fetch(&threads_unmeasured, 1, __ATOMIC_RELAXED);
}

int rt_next_thread_index(void)
{
	return __atomic_fetch_add(&next_index, 1, __ATOMIC_RELAXED);
}

/* "event 'x' is not available here (why); <tail>" */
static void note_event(const char *name, int err, const char *tail)
{
	char msg[512];

	snprintf(msg, sizeof(msg), "warning: event '%s' is not available here (%s); %s",
		 name, err == -ENOENT ? "no such event on this machine's PMU" :
		 err == -EACCES || err == -EPERM ?
		 "not permitted: see /proc/sys/kernel/perf_event_paranoid" :
		 strerror(-err), tail);
	rt_note(msg);
}

/* Adds an event, falling back as a user would expect when unavailable. */
static void add_event(struct hpcrun_evspec spec, const char *asked)
{
	struct rt_event *ev;
	char tail[128];
	int i, err;

	for (;;) {
		const struct sample_source *src =
			spec.ev->kind == HPCRUN_EV_TIMER ? &timer_source : &perf_source;

		err = src->probe(&spec);
		if (!err)
			break;
		if (spec.ev->fallback) {
			snprintf(tail, sizeof(tail), "sampling '%s' instead",
				 spec.ev->fallback);
			note_event(asked, err, tail);
			spec.ev = hpcrun_event_find(spec.ev->fallback,
						    (int)strlen(spec.ev->fallback));
			asked = spec.ev->name;
			continue;
		}
		if (spec.ev->kind == HPCRUN_EV_SW) {
			note_event(asked, err, "sampling 'CPUTIME' instead");
			spec.ev = hpcrun_event_find("CPUTIME", 7);
			spec.period = spec.period ? (spec.period + 999) / 1000 :
				1000000 / spec.freq;
			if (spec.period < 1000)
				spec.period = 1000;
			spec.freq = 0;
			asked = "CPUTIME";
			continue;
		}
		note_event(asked, err, "not sampled");
		return;
	}
	for (i = 0; i < rt_cfg.nev; i++)
		if (rt_cfg.ev[i].spec.ev == spec.ev &&
		    rt_cfg.ev[i].spec.raw_config == spec.raw_config) {
			snprintf(tail, sizeof(tail),
				 "warning: event '%s' given twice; sampled once", asked);
			rt_note(tail);
			return;
		}
	ev = &rt_cfg.ev[rt_cfg.nev++];
	memset(ev, 0, sizeof(*ev));
	ev->spec = spec;
	ev->desc = spec.ev->desc;
	if (spec.ev->kind == HPCRUN_EV_TIMER) {
		ev->src = &timer_source;
		snprintf(ev->metric, sizeof(ev->metric), "%s", spec.ev->desc);
		ev->metric_period = 1;
		return;
	}
	ev->src = &perf_source;
	if (spec.ev->kind == HPCRUN_EV_RAW)
		snprintf(ev->metric, sizeof(ev->metric), "perf::r%llx",
			 (unsigned long long)spec.raw_config);
	else
		snprintf(ev->metric, sizeof(ev->metric), "perf::%s", spec.ev->name);
	if (spec.period) {
		ev->metric_period = spec.period;
		ev->threshold = 1.0;
	} else {
		ev->metric_period = 1;
		ev->is_frequency = 1;
		ev->threshold = (spec.ev->type == PERF_TYPE_SOFTWARE &&
				 (spec.ev->config == PERF_COUNT_SW_CPU_CLOCK ||
				  spec.ev->config == PERF_COUNT_SW_TASK_CLOCK)) ?
			1e9 / (double)spec.freq : (double)spec.freq;
	}
}

static void configure_events(void)
{
	const char *list = getenv("HPCRUN_EVENT_LIST");
	char buf[1024], *save = NULL, *tok;
	struct hpcrun_evspec spec;
	const char *why;

	if (!list || !*list) {
		hpcrun_evspec_parse(HPCRUN_DEFAULT_EVENT, &spec, &why);
		add_event(spec, HPCRUN_DEFAULT_EVENT);
	} else {
		snprintf(buf, sizeof(buf), "%s", list);
		for (tok = strtok_r(buf, " ", &save); tok;
		     tok = strtok_r(NULL, " ", &save)) {
			char msg[300];

			if (rt_cfg.nev == HPCRUN_MAX_EVENTS)
				break;
			if (hpcrun_evspec_parse(tok, &spec, &why)) {
				snprintf(msg, sizeof(msg), "warning: '%s': %s", tok, why);
				rt_note(msg);
				continue;
			}
			add_event(spec, tok);
		}
	}
	if (rt_cfg.nev == 0) {
		rt_note("warning: none of the events can be sampled; sampling 'CPUTIME'");
		hpcrun_evspec_parse("CPUTIME", &spec, &why);
		add_event(spec, "CPUTIME");
	}
}

/* Host id: /etc/hostid when present, else a hash of the host name. */
static uint32_t host_id(void)
{
	char name[256];
	uint32_t h = 2166136261u, id;
	int fd = open("/etc/hostid", O_RDONLY | O_CLOEXEC);
	size_t i;

	if (fd >= 0) {
		ssize_t n = read(fd, &id, sizeof(id));

		close(fd);
		if (n == sizeof(id))
			return id;
	}
	if (gethostname(name, sizeof(name)))
		return 0;
	name[sizeof(name) - 1] = '\0';
	for (i = 0; name[i]; i++)
		h = (h ^ (unsigned char)name[i]) * 16777619u;
	return h;
}

int rt_nmetrics(void)
{
	return rt_cfg.nev + (rt_data.on ? RT_DATA_NMETRICS : 0);
}

static void key_destructor(void *arg)
{
	rt_thread_end(arg);
}

/* The forking thread's mask before its fork, and whether its fork made
 * hpcrun's own threads stand aside (runtime.h, A FORK IN CPYTHON): -1
 * when it did not try. */
static __thread sigset_t fork_mask __attribute__((tls_model("initial-exec")));
static __thread int fork_paused __attribute__((tls_model("initial-exec")));

void rt_fork_prepare(void)
{
	sigset_t s;

	if (rt_sealed)
		return;
	fork_paused = -1;
	if (rt_active && rt_python_counts_threads())
		fork_paused = rt_own_pause(&fork_mask);
	sigemptyset(&s);
	sigaddset(&s, rt_cfg.signo);
	rt_real_sigmask(SIG_BLOCK, &s, NULL);
	pthread_mutex_lock(&threads_lock);
}

void rt_fork_parent(void)
{
	sigset_t s;

	if (rt_sealed)
		return;
	pthread_mutex_unlock(&threads_lock);
	if (fork_paused == 1)
		__atomic_store_n(&rt_own_away, 1, __ATOMIC_SEQ_CST);
	if (fork_paused >= 0)
		rt_real_sigmask(SIG_SETMASK, &fork_mask, NULL);
	sigemptyset(&s);
	sigaddset(&s, rt_cfg.signo);
	rt_real_sigmask(SIG_UNBLOCK, &s, NULL);
}

void rt_fork_child(void)
{
	sigset_t s;

	if (rt_sealed)
		return;
	pthread_mutex_init(&threads_lock, NULL);
	rt_after_fork_child();
	if (fork_paused >= 0)
		rt_real_sigmask(SIG_SETMASK, &fork_mask, NULL);
	sigemptyset(&s);
	sigaddset(&s, rt_cfg.signo);
	rt_real_sigmask(SIG_UNBLOCK, &s, NULL);
}

/* rt_cfg.stack_copy from HPCRUN_NO_STACK_COPY and HPCRUN_STACK_COPY. */
static void stack_copy_config(void)
{
	const char *v = getenv("HPCRUN_NO_STACK_COPY"), *why;
	char msg[256];

	rt_cfg.stack_copy = HPCRUN_STACK_COPY;
	if (v && *v == '1') {
		rt_cfg.stack_copy = 0;
		return;
	}
	v = getenv("HPCRUN_STACK_COPY");
	if (v && *v && hpcrun_stack_copy_parse(v, &rt_cfg.stack_copy, &why)) {
		snprintf(msg, sizeof(msg), "warning: HPCRUN_STACK_COPY='%.64s': %s; "
			 "copying %d bytes", v, why, HPCRUN_STACK_COPY);
		rt_note(msg);
		rt_cfg.stack_copy = HPCRUN_STACK_COPY;
	}
}

/* The MPI rank its launcher gave this process (Open MPI, PMIx, PMI, MVAPICH,
 * Slurm), or 0. */
static uint32_t mpi_rank(void)
{
	static const char *const vars[] = {
		"OMPI_COMM_WORLD_RANK", "PMIX_RANK", "PMI_RANK", "MV2_COMM_WORLD_RANK",
		"SLURM_PROCID",
	};
	const char *v;
	size_t i;

	for (i = 0; i < sizeof(vars) / sizeof(vars[0]); i++)
		if ((v = getenv(vars[i])) && *v) {
			rt_cfg.rank_known = 1;
			return (uint32_t)strtoul(v, NULL, 10);
		}
	return 0;
}

/*
 * The name of a Python interpreter's process: its script, or -m's module
 * (hpcrun(1)).  The launcher's for the process it started, "PID NAME" in
 * HPCRUN_PROGRAM: taken by that process alone, and so by its forked
 * children, which copy it.  An interpreter the program execs (a
 * subprocess running another script) is named from its own command line;
 * any other program by its executable.
 */
static void launched_name(void)
{
	static char name[256], cmdline[8192];
	char *argv[128], *end;
	const char *v = getenv("HPCRUN_PROGRAM"), *script;
	size_t len = 0;
	ssize_t got;
	int fd, argc = 0;

	if (v && strtol(v, &end, 10) == (long)rt_pid && *end == ' ' && end[1] &&
	    !strchr(end + 1, '/') && strlen(end + 1) < sizeof(name)) {
		snprintf(name, sizeof(name), "%s", end + 1);
		rt_cfg.progname = name;
		return;
	}
	if (strncmp(rt_cfg.progname, "python", 6) ||
	    (fd = open("/proc/self/cmdline", O_RDONLY | O_CLOEXEC)) < 0)
		return;
	got = read(fd, cmdline, sizeof(cmdline) - 1);
	rt_sys_close(fd);
	if (got <= 0)
		return;
	cmdline[got] = '\0';	/* a cut last argument still ends */
	for (end = cmdline; end < cmdline + got && argc < 127; end += strlen(end) + 1)
		argv[argc++] = end;
	argv[argc] = NULL;
	script = hpc_python_program(rt_cfg.exe, argv, &len);
	if (!script || len >= sizeof(name) || memchr(script, '\n', len))
		return;
	memcpy(name, script, len);
	name[len] = '\0';
	rt_cfg.progname = name;
}

/* quick_exit(3) runs no destructor: registered first, this runs after
 * the program's at_quick_exit handlers, before the process ends. */
static void rt_quick_fini(void)
{
	rt_process_finish("quick_exit", 0);
}

void rt_init(void)
{
	const char *out = getenv("HPCRUN_OUT_PATH"), *v, *slash;
	ssize_t n;

	if (inited)
		return;
	inited = 1;
	rt_interpose_init();
	nptl_nthreads = rt_optional_symbol(RTLD_DEFAULT, "__nptl_nthreads");
	if (!out || !*out || strlen(out) >= sizeof(rt_cfg.outdir))
		return;		/* preloaded without the launcher: stay out */
	v = getenv("HPCRUN_SECCOMP_FILTERS");
	if (v && hpc_seccomp_filters() > atoi(v))
		return;		/* exec'd once sealed (runtime.h, THE SANDBOX) */
	rt_say_init();
	show_notes = !getenv("HPCRUN_NOTICES_SHOWN") && !rt_quiet;
	rt_pid = getpid();
	snprintf(rt_cfg.outdir, sizeof(rt_cfg.outdir), "%s", out);
	n = readlink("/proc/self/exe", rt_cfg.exe, sizeof(rt_cfg.exe) - 1);
	rt_cfg.exe[n > 0 ? n : 0] = '\0';
	slash = strrchr(rt_cfg.exe, '/');
	rt_cfg.progname = slash ? slash + 1 : rt_cfg.exe;
	launched_name();
	v = getenv("PATH");
	snprintf(rt_env_path, sizeof(rt_env_path), "%s", v ? v : "");
	rt_cfg.hostid = host_id();
	rt_cfg.rank = mpi_rank();
	v = getenv("HPCRUN_VERBOSE");
	rt_cfg.verbose = v ? atoi(v) : 0;
	v = getenv("HPCRUN_NO_UNWIND");
	rt_cfg.no_unwind = v && *v == '1';
	v = getenv("HPCRUN_NO_PYTHON");
	rt_cfg.python = !(v && *v == '1');
	stack_copy_config();
	CAPS_CALL(init);
	if (rt_signal_take()) {
		rt_note("no free real-time signal to sample with; not measuring");
		return;
	}
	if (rt_kernel.trap && rt_signal_take_trap())
		rt_kernel.trap = 0;	/* kernel-time.h, invariant 6 */

	configure_events();
	rt_loadmap_refresh();
	CAPS_CALL(modules);	/* its notices are shown with the events' */
	if (show_notes && notes_len)
		setenv("HPCRUN_NOTICES_SHOWN", "1", 1);
	show_notes = 0;

	rt_live_proc_begin();
	pthread_key_create(&thread_key, key_destructor);
	pthread_atfork(rt_fork_prepare, rt_fork_parent, rt_fork_child);
	at_quick_exit(rt_quick_fini);
	rt_install_fatal_handlers();
	rt_active = 1;
	rt_thread_begin(0);
	CAPS_CALL(start);
	if (rt_cfg.verbose)
		verbose_report();
}

/* -v: what this process samples, on stderr. */
static void verbose_report(void)
{
	char msg[256];
	int i;

	for (i = 0; i < rt_cfg.nev; i++) {
		const struct rt_event *e = &rt_cfg.ev[i];

		snprintf(msg, sizeof(msg), "pid %d samples %s (%s) %s %llu on signal %d",
			 (int)rt_pid, e->metric, e->src->name,
			 e->spec.period ? "period" : "frequency",
			 (unsigned long long)(e->spec.period ? e->spec.period : e->spec.freq),
			 rt_cfg.signo);
		rt_say(msg, NULL);
	}
}

/* PROCMAP_QUERY of /proc/PID/maps (Linux 6.11, <linux/fs.h>): the
 * mapping that holds an address, found by the kernel without writing the
 * text of the mappings before it. */
struct maps_query {
	uint64_t size, query_flags, query_addr;
	uint64_t vma_start, vma_end, vma_flags, vma_page_size, vma_offset, inode;
	uint32_t dev_major, dev_minor, vma_name_size, build_id_size;
	uint64_t vma_name_addr, build_id_addr;
};
#define MAPS_QUERY _IOWR('f', 17, struct maps_query)

/*
 * The mapping in /proc/self/maps that holds addr, into [*lo, *hi); 0, or
 * -ENOENT (none holds it) or the negative errno of the open.  Asked with
 * PROCMAP_QUERY (the text grows by two lines per thread's stack: read
 * at every thread's start, it made a thousand threads' starts quadratic),
 * else read through a stack buffer: no malloc (a thread's first malloc
 * gives it a malloc arena of its own, 64 MiB of address space).
 */
static int mapping_of(uintptr_t addr, uintptr_t *lo, uintptr_t *hi)
{
	struct maps_query q = { .size = sizeof(q), .query_addr = addr };
	char buf[4096], *line, *nl, *end;
	size_t have = 0;
	int fd = open("/proc/self/maps", O_RDONLY | O_CLOEXEC), rc = -ENOENT;

	if (fd < 0)
		return -errno;
	if (!ioctl(fd, MAPS_QUERY, &q) || errno == ENOENT) {
		*lo = (uintptr_t)q.vma_start;
		*hi = (uintptr_t)q.vma_end;
		close(fd);
		return q.vma_end ? 0 : -ENOENT;
	}
	for (;;) {
		ssize_t n = read(fd, buf + have, sizeof(buf) - 1 - have);

		if (n <= 0)
			break;
		have += (size_t)n;
		buf[have] = '\0';
		for (line = buf; (nl = strchr(line, '\n')); line = nl + 1) {
			uintptr_t a = strtoul(line, &end, 16), b;

			if (*end != '-')
				continue;
			b = strtoul(end + 1, NULL, 16);
			if (addr >= a && addr < b) {
				*lo = a;
				*hi = b;
				rc = 0;
				goto out;
			}
		}
		have -= (size_t)(line - buf);
		memmove(buf, line, have);
		if (have == sizeof(buf) - 1)
			have = 0;		/* no line is that long */
	}
out:
	close(fd);
	return rc;
}

/* Stack bounds of the calling thread as glibc gives them: the main
 * thread's (another's would malloc: begin_job reads its mapping). */
static void stack_bounds(struct rt_thread *td)
{
	pthread_attr_t attr;
	void *addr;
	size_t size;

	if (pthread_getattr_np(pthread_self(), &attr))
		return;
	if (!pthread_attr_getstack(&attr, &addr, &size)) {
		td->stack_lo = (uintptr_t)addr;
		td->stack_hi = (uintptr_t)addr + size;
	}
	pthread_attr_destroy(&attr);
}

/* A thread that cannot be had memory for runs unmeasured: counted for the
 * log, said once. */
static void unmeasured(int index)
{
	char msg[160];

	if (__atomic_fetch_add(&threads_unmeasured, 1, __ATOMIC_RELAXED))
		return;
	snprintf(msg, sizeof(msg), "warning: thread %d not measured: no memory for "
		 "its state (%s)", index, strerror(ENOMEM));
	rt_note(msg);
}

/* Says once why trees are not (all) kept in live files. */
static void note_live(const struct cct *c)
{
	static int said;
	char msg[4600];

	if (!c->live_err || __atomic_exchange_n(&said, 1, __ATOMIC_RELAXED))
		return;
	snprintf(msg, sizeof(msg), "warning: %s (%s): a killed process loses %s",
		 c->path[0] ? "a live profile stopped growing" :
		 "no live profile could be kept", strerror(c->live_err),
		 c->path[0] ? "the paths recorded since" : "its profile");
	rt_note(msg);
}

/* td's tree, its samples counted in its live file; 0 or negative errno. */
static int tree_new(struct rt_thread *td)
{
	int err = cct_init(&td->cct, (size_t)rt_nmetrics(), td->index);

	if (err)
		return err;
	td->nsamples = td->cct.hdr->nsamples;
	memset(td->ring_call, 0, sizeof(td->ring_call));
	note_live(&td->cct);
	return 0;
}

/* What a thread's beginning needs of files, in one turn on a fd thread
 * (fd-gate.c, THE PRIVATE TABLE): a thread but the main one gets its
 * stack's mapping (the one holding sp) as its stack bounds, then its tree
 * (tree_new), whose live file never takes a number of the program's
 * table; tree_new's result. */
struct begin_job {
	struct rt_thread *td;
	uintptr_t sp;
};

static int begin_job(void *p)
{
	struct begin_job *j = p;
	uintptr_t lo, hi;

	if (j->td->index && j->sp && !mapping_of(j->sp, &lo, &hi)) {
		j->td->stack_lo = lo;
		j->td->stack_hi = hi;
	}
	return tree_new(j->td);
}

/* A new struct rt_thread for thread index, task tid, whose stack holds
 * sp (0: not known), with its tree; NULL when there is no memory. */
static struct rt_thread *td_new(int index, pid_t tid, uintptr_t sp)
{
	struct begin_job job;
	struct rt_thread *td;
	int i;

	td = mmap(NULL, TD_BYTES, PROT_READ | PROT_WRITE,
		  MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (td == MAP_FAILED)
		return NULL;
	td->uwc = (struct uw_cache *)(void *)(td + 1);
	td->index = index;
	td->tid = tid;
	for (i = 0; i < HPCRUN_MAX_EVENTS; i++)
		td->fd[i] = -1;
	job.td = td;
	job.sp = sp;
	if (rt_fd_private(begin_job, &job)) {
		munmap(td, TD_BYTES);
		return NULL;
	}
	return td;
}

struct rt_thread *rt_thread_begin(int index)
{
	struct rt_thread *td;
	int i, err;

	if (!rt_active)
		return NULL;
	td = td_new(index, (pid_t)syscall(SYS_gettid), (uintptr_t)&td);
	if (!td) {
		unmeasured(index);
		pthread_mutex_lock(&threads_lock);
		ended[ended_next++ % ENDED_MAX] = (pid_t)syscall(SYS_gettid);
		pthread_mutex_unlock(&threads_lock);
		return NULL;
	}
	if (!td->stack_hi)
		stack_bounds(td);
	pthread_mutex_lock(&threads_lock);
	if (finished) {		/* the process ended meanwhile: not measured */
		pthread_mutex_unlock(&threads_lock);
		cct_unlink(&td->cct);
		cct_release(&td->cct);
		munmap(td, TD_BYTES);
		return NULL;
	}
	threads_add(td);
	pthread_mutex_unlock(&threads_lock);
	if (index)
		pthread_setspecific(thread_key, td);
	rt_self = td;
	rt_own_begin();		/* the sources' start: perf_event_open, mmap */
	CAPS_CALL(thread_begin, td);
	for (i = 0; i < rt_cfg.nev; i++) {
		err = rt_cfg.ev[i].src->start(td, i);
		if (!err) {
			td->started[i] = 1;
		} else if (__atomic_fetch_add(&start_failures, 1, __ATOMIC_RELAXED) == 0) {
			char msg[256];

			snprintf(msg, sizeof(msg),
				 "warning: event '%s' could not start in thread %d (%s)",
				 rt_cfg.ev[i].metric, index, strerror(-err));
			rt_note(msg);
		}
	}
	rt_own_end();
	return td;
}

static void stop_sources(struct rt_thread *td)
{
	int i;

	for (i = 0; i < rt_cfg.nev; i++)
		if (td->started[i]) {
			rt_cfg.ev[i].src->stop(td, i);
			td->started[i] = 0;
		}
}

struct rt_thread *rt_thread_adopt(pid_t tid)
{
	/* its stack is not known: samples unwind from their copies */
	struct rt_thread *td = td_new(rt_next_thread_index(), tid, 0);
	int i, n = 0;

	if (!td)
		return NULL;
	td->raw = 1;
	pthread_mutex_lock(&threads_lock);
	if (!rt_active || finished) {
		pthread_mutex_unlock(&threads_lock);
		cct_unlink(&td->cct);
		cct_release(&td->cct);
		munmap(td, TD_BYTES);
		return NULL;
	}
	threads_add(td);
	pthread_mutex_unlock(&threads_lock);
	for (i = 0; i < rt_cfg.nev; i++)
		if (!rt_cfg.ev[i].src->start(td, i))
			n = td->started[i] = 1;
	if (n)
		return td;
	/* nothing measures it: gone without a profile, unless the process
	 * ended meanwhile and writes it (then it is that writer's) */
	pthread_mutex_lock(&threads_lock);
	if (td->closed) {
		pthread_mutex_unlock(&threads_lock);
		return NULL;
	}
	td->closed = 1;
	threads_del(td);
	pthread_mutex_unlock(&threads_lock);
	cct_unlink(&td->cct);
	cct_release(&td->cct);
	munmap(td, TD_BYTES);
	return NULL;
}

static void add_counts(const struct rt_counts *c)
{
	const uint64_t *s = (const uint64_t *)c;
	uint64_t *d = (uint64_t *)&totals;
	size_t i;

	for (i = 0; i < sizeof(*c) / sizeof(uint64_t); i++)
		__atomic_add_fetch(&d[i], s[i], __ATOMIC_RELAXED);
}

/* Writes td's profile and folds its counts into the totals (rt_io_private:
 * the program can neither close the file's number under us nor make the
 * write fail or signal with its limits).  A profile that cannot be
 * written is said on stderr and counted for the log; its live file stays
 * for hpcprof to recover, unless there is none. */
/* rt_profile_write on the fd thread: the file never takes a number of
 * the program's table (fd-gate.c, THE PRIVATE TABLE). */
struct profile_job {
	struct rt_thread *td;
	char path[4400];
};

static int write_profile(void *p)
{
	struct profile_job *j = p;

	return rt_profile_write(j->td, j->path, sizeof(j->path));
}

static void write_thread(struct rt_thread *td)
{
	struct profile_job job = { td, "" };
	char *path = job.path;
	int err;

	err = rt_io_private(write_profile, &job);
	if (err) {
		rt_count_write_error();
		if (td->cct.live)
			__atomic_add_fetch(&live_left, 1, __ATOMIC_RELAXED);
		rt_say_lost(path[0] ? path : rt_cfg.outdir, -err,
			 td->cct.live ? "profile not written (hpcprof recovers "
			 "it from its .hpcrun-live file)" : "profile lost");
	}
	/* side files beside the profile, or where hpcprof recovers it */
	if (!err || td->cct.live)
		CAPS_CALL(thread_written, td, path);
	if (!err)	/* after every reader of the tree */
		cct_done(&td->cct);
	note_live(&td->cct);
	add_counts(&td->counts);
	__atomic_add_fetch(&nthreads, 1, __ATOMIC_RELAXED);
}

/* The calling thread, ending without a sample, counted with its CPU
 * time. */
static void unsampled_add(void)
{
	uint64_t t = rt_clock_ns(CLOCK_THREAD_CPUTIME_ID);

	if (t == UINT64_MAX)
		return;
	__atomic_add_fetch(&unsampled_threads, 1, __ATOMIC_RELAXED);
	__atomic_add_fetch(&unsampled_ns, t, __ATOMIC_RELAXED);
}

/* Ends td (sources stopped, profile written, memory freed) on its own
 * thread (own: thread_end hooks run there, capability.h invariant 2) or
 * on another (an adopted task). */
static void thread_end(struct rt_thread *td, int own)
{
	pthread_mutex_lock(&threads_lock);
	if (td->closed || finished) {
		pthread_mutex_unlock(&threads_lock);
		return;
	}
	td->closed = 1;
	threads_del(td);
	ended[ended_next++ % ENDED_MAX] = td->tid;
	__atomic_add_fetch(&writers, 1, __ATOMIC_ACQ_REL);
	pthread_mutex_unlock(&threads_lock);
	if (own)
		rt_self = NULL;
	stop_sources(td);
	if (own && !td->counts.taken && !td->counts.low_stack)
		unsampled_add();
	write_thread(td);
	if (!__atomic_sub_fetch(&writers, 1, __ATOMIC_SEQ_CST) &&
	    __atomic_load_n(&finished, __ATOMIC_SEQ_CST))
		rt_futex_wake(&writers, 1);
	if (own)
		CAPS_CALL(thread_end, td);
	cct_release(&td->cct);
	CAPS_CALL(thread_release, td);
	munmap(td, TD_BYTES);
}

/* Threads that ended with the sampling signal blocked by a handler's
 * mask (rt_signal_stuck). */
static uint64_t threads_stuck;

static void count_stuck(void)
{
	if (rt_signal_stuck())
		__atomic_add_fetch(&threads_stuck, 1, __ATOMIC_RELAXED);
}

static void rt_thread_end(struct rt_thread *td)
{
	if (!td)
		return;
	__atomic_add_fetch(&leaving, 1, __ATOMIC_SEQ_CST);
	count_stuck();
	rt_own_begin();		/* never ended: td goes */
	thread_end(td, 1);
	last_thread_check();
	__atomic_sub_fetch(&leaving, 1, __ATOMIC_SEQ_CST);
}

void rt_thread_end_other(struct rt_thread *td)
{
	thread_end(td, 0);
}

/* The log's text, composed on the finishing thread, where its messages
 * go to the program's stderr, then written whole on a fd thread
 * (write_log); mapped, not malloc'ed, as the end may come in a fatal
 * signal's handler.  log_errno: the first error of composing or writing
 * it (write_log runs once, under the gate). */
#define LOG_FIRST_SIZE 16384
static char *log_text;
static size_t log_len, log_size;
static int log_errno;

/* Room for n more bytes in log_text; 0 or -errno. */
static int log_room(size_t n)
{
	size_t size = log_size ? log_size : LOG_FIRST_SIZE;
	char *p;

	if (log_len + n <= log_size)
		return 0;
	while (size < log_len + n)
		size *= 2;
	p = mmap(NULL, size, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED)
		return -errno;
	if (log_text) {
		memcpy(p, log_text, log_len);
		munmap(log_text, log_size);
	}
	log_text = p;
	log_size = size;
	return 0;
}

static void log_put(const char *s)
{
	size_t n = strlen(s);
	int err;

	if (log_errno)
		return;
	err = log_room(n);
	if (err) {
		log_errno = err;
		return;
	}
	memcpy(log_text + log_len, s, n);
	log_len += n;
}

/* The log's file, on a fd thread (fd-gate.c, THE PRIVATE TABLE): it
 * takes no number of the program's table, so a program that filled its
 * table to a hard RLIMIT_NOFILE still gets its log. */
struct log_job {
	char path[4400];
};

static int log_file_job(void *p)
{
	struct log_job *j = p;
	int fd = rt_create_file(0, ".log", j->path, sizeof(j->path)), err;

	if (fd < 0)
		return fd;
	err = hpc_write_all(fd, log_text, log_len);
	if (close(fd) && !err)
		err = -errno;
	if (err)
		unlink(j->path);
	return err;
}

static void log_line(const char *key, uint64_t v)
{
	char num[24];

	rt_fmt_u64(num, v, 10, 0);
	log_put(key);
	log_put(": ");
	log_put(num);
	log_put("\n");
}

/* At the end: when the threads that took no sample had at least
 * UNSAMPLED_SAY_PERCENT of the process's CPU time and UNSAMPLED_SAY_NS,
 * a line in the log and, once a launch, on stderr (hpcrun(1), Threads,
 * processes and signals). */
static void unsampled_say(void)
{
	char line[256], *p = line;
	struct rusage ru;
	uint64_t all;

	if (unsampled_ns < UNSAMPLED_SAY_NS || getrusage(RUSAGE_SELF, &ru))
		return;
	all = ((uint64_t)ru.ru_utime.tv_sec + (uint64_t)ru.ru_stime.tv_sec) *
	      1000000000u + ((uint64_t)ru.ru_utime.tv_usec +
			     (uint64_t)ru.ru_stime.tv_usec) * 1000u;
	if (!all || unsampled_ns * 100 < all * UNSAMPLED_SAY_PERCENT)
		return;
	/* no stdio: the end may come in a fatal signal's handler */
	p += rt_fmt_u64(p, (unsampled_ns * 100 + all / 2) / all, 10, 0);
	p = rt_append(p, "% of CPU time was in ");
	p += rt_fmt_u64(p, unsampled_threads, 10, 0);
	p = rt_append(p, unsampled_threads == 1 ?
		      " thread that ended before its first sample (" :
		      " threads that ended before their first sample (");
	p += rt_fmt_seconds(p, unsampled_ns);
	rt_append(p, " s), not measured; see hpcrun(1)");
	log_put("warning: ");
	log_put(line);
	log_put("\n");
	if (rt_first_to_say("threads"))
		rt_say(line, NULL);
}

/* The program's pthread_create refused for want of a task
 * (EAGAIN), and the most threads of hpcrun's alive at one of them. */
static uint64_t threads_refused;
static int refused_own;

void rt_thread_refused(void)
{
	int own = own_live();

	__atomic_add_fetch(&threads_refused, 1, __ATOMIC_RELAXED);
	if (own > __atomic_load_n(&refused_own, __ATOMIC_RELAXED))
		__atomic_store_n(&refused_own, own, __ATOMIC_RELAXED);
}

/* At the end, when a refusal came while hpcrun had threads of its own
 * (which count against RLIMIT_NPROC as the program's do): a line in the
 * log and, once a launch, on stderr. */
static void refused_say(void)
{
	char line[256], *p = line;

	if (!threads_refused || !refused_own)
		return;
	p = rt_append(p, "the program could not make a thread ");
	p += rt_fmt_u64(p, threads_refused, 10, 0);
	p = rt_append(p, threads_refused == 1 ? " time" : " times");
	p = rt_append(p, " (EAGAIN) while hpcrun had ");
	p += rt_fmt_u64(p, (uint64_t)refused_own, 10, 0);
	rt_append(p, " threads of its own, which count against RLIMIT_NPROC; "
		  "see hpcrun(1)");
	log_put("warning: ");
	log_put(line);
	log_put("\n");
	if (rt_first_to_say("nproc"))
		rt_say(line, NULL);
}

/* At the end, when a thread ended with the sampling signal blocked by
 * the mask of a handler the program left by longjmp: a line in the log
 * and, once a launch, on stderr. */
static void stuck_say(void)
{
	char line[256], *p = line;

	if (!threads_stuck)
		return;
	p += rt_fmt_u64(p, threads_stuck, 10, 0);
	p = rt_append(p, threads_stuck == 1 ? " thread" : " threads");
	rt_append(p, " left a signal handler on the alternate stack by longjmp, "
		  "keeping its mask: sampling stopped there; see hpcrun(1)");
	log_put("warning: ");
	log_put(line);
	log_put("\n");
	if (rt_first_to_say("stuck"))
		rt_say(line, NULL);
}

/* At the end, when part of the samples (of all) is at least
 * SHARE_SAY_PERCENT of them and SHARE_SAY_MIN: "P% of samples (N) " and
 * tail, a line in the log and, once a launch (marker), on stderr. */
#define SHARE_SAY_PERCENT 5
#define SHARE_SAY_MIN 10
static void share_say(uint64_t part, uint64_t all, const char *tail,
		      const char *marker)
{
	char line[256], *p = line;

	if (part < SHARE_SAY_MIN || part * 100 < all * SHARE_SAY_PERCENT)
		return;
	p += rt_fmt_u64(p, (part * 100 + all / 2) / all, 10, 0);
	p = rt_append(p, "% of samples (");
	p += rt_fmt_u64(p, part, 10, 0);
	p = rt_append(p, ") ");
	rt_append(p, tail);
	log_put("warning: ");
	log_put(line);
	log_put("\n");
	if (rt_first_to_say(marker))
		rt_say(line, NULL);
}

/* The samples whose pc lay in no file the process mapped (code made at
 * run time: a JIT's): the profile's shares leave them out (hpcrun(1),
 * How samples are taken).  The signals dropped for want of stack (the
 * handler's room, sample.c). */
static void dropped_say(void)
{
	share_say(totals.dropped_nomodule,
		  totals.dropped_nomodule + totals.recorded,
		  "were in code outside every file mapped (made at run time: a "
		  "JIT's), not in the profile; see hpcrun(1)", "outside");
	share_say(totals.low_stack, totals.low_stack + totals.recorded,
		  "came on a stack with less than 12 KiB left (a small thread "
		  "stack), dropped, not in the profile; see hpcrun(1)", "lowstack");
}

/* Composes the log and writes it as the profiles are written (inside
 * rt_io_begin and rt_io_end: the limits lifted), on a fd thread as
 * write_thread's; in a fatal signal's handler too, as theirs.  A log
 * that cannot be written whole is removed and said lost on stderr. */
static void write_log(const char *why)
{
	struct log_job job = { "" };
	char num[24];
	int i, err;
	uint64_t dropped, held, held_left;

	log_len = 0;
	log_errno = 0;
	log_put("hpcrun-log: 1\nprogram: ");
	log_put(rt_cfg.exe);
	log_put("\n");
	log_line("process-id", (uint64_t)rt_pid);
	log_put("end: ");
	log_put(why);
	log_put("\n");
	log_line("signal", (uint64_t)rt_cfg.signo);
	log_put("unwind: ");
	log_put(rt_cfg.no_unwind ? "none (--no-unwind)\n" : "eh_frame\n");
	for (i = 0; i < rt_cfg.nev; i++)
		if (rt_cfg.ev[i].src == &perf_source &&
		    rt_perf_is_ring_event(&rt_cfg.ev[i].spec))
			break;
	log_line("stack-copy", i < rt_cfg.nev ? rt_cfg.stack_copy : 0);
	for (i = 0; i < rt_cfg.nev; i++) {
		const struct rt_event *e = &rt_cfg.ev[i];

		log_put("event: ");
		log_put(e->metric);
		if (e->spec.period) {
			rt_fmt_u64(num, e->spec.period, 10, 0);
			log_put(" period ");
		} else {
			rt_fmt_u64(num, e->spec.freq, 10, 0);
			log_put(" frequency ");
		}
		log_put(num);
		log_put("\n");
	}
	log_put(notes);
	log_line("threads", nthreads);
	log_line("threads-unmeasured", threads_unmeasured);
	log_line("threads-unsampled", unsampled_threads);
	log_line("threads-unsampled-cpu-ns", unsampled_ns);
	unsampled_say();
	log_line("own-threads-paused", own_paused);
	log_line("end-wait-ms", end_wait_ms);
	log_line("end-parked", parked);
	log_line("samples-taken", totals.taken);
	log_line("samples-recorded", totals.recorded);
	log_line("samples-in-hpcrun", totals.in_hpcrun);
	log_line("samples-partial", totals.partial);
	log_line("unwind-faults", totals.unwind_faults);
	dropped = totals.dropped_busy + totals.dropped_nomodule +
		  totals.dropped_full + totals.dropped_stopped + totals.dropped_ring;
	log_line("samples-dropped", dropped);
	log_line("dropped-nested", totals.dropped_busy);
	log_line("dropped-outside-modules", totals.dropped_nomodule);
	dropped_say();
	log_line("threads-refused", threads_refused);
	refused_say();
	stuck_say();
	log_line("dropped-arena-full", totals.dropped_full);
	log_line("dropped-after-end", totals.dropped_stopped);
	log_line("dropped-ring-full", totals.dropped_ring);
	log_line("ring-full-in-call", totals.ring_in_call);
	log_line("stack-copy-continued", totals.copy_live);
	log_line("samples-behind", totals.behind);
	log_line("dropped-low-stack", totals.low_stack);
	log_line("foreign-signals", totals.dropped_foreign);
	log_line("blocked-signal-attempts", blocked_attempts);
	rt_signal_held(&held, &held_left);
	log_line("signals-held", held);
	log_line("signals-held-left", held_left);
	log_line("sampling-rearmed", rt_sampling_rearmed);
	log_line("sampling-stopped", rt_sampling_stopped);
	log_line("sampling-blocked", threads_stuck);
	log_line("write-errors", write_errors);
	log_line("stderr-withheld", rt_say_withheld());
	log_line("live-files-left", live_left);
	log_line("handler-ns", totals.handler_ns);
	CAPS_CALL(log, log_put);
	err = log_errno ? log_errno : rt_fd_private(log_file_job, &job);
	if (log_text) {
		munmap(log_text, log_size);
		log_text = NULL;
		log_size = 0;
	}
	if (err)
		rt_say_lost(job.path[0] ? job.path : rt_cfg.outdir, -err,
			    "log lost");
}

void rt_process_finish_wait(void)
{
	int i;

	if (!__atomic_load_n(&finished, __ATOMIC_ACQUIRE) ||
	    __atomic_load_n(&finisher, __ATOMIC_ACQUIRE) ==
	    (pid_t)syscall(SYS_gettid))
		return;
	for (i = 0; i < 1000 && !__atomic_load_n(&finish_done, __ATOMIC_ACQUIRE); i++)
		rt_futex_wait(&finish_done, 0, 10000000);
}

/*
 * THE PARK AT EXIT.  Writing the process's end takes milliseconds in
 * which, natively, the program's other threads would have had the
 * microseconds before exit_group.  A program whose threads touch what its
 * exit has freed then fails in them: CPython 3.10's daemon threads, whose
 * wait for the interpreter lock wakes every 5 ms and reads the
 * interpreter Py_FinalizeEx freed, crashed 4-6 runs in 20 (17 in 20 with
 * --no-python, whose rings take longer to drain).  So at exit, _exit and
 * quick_exit the finisher first sends each other thread of the program
 * the sampling signal with RT_EXIT_PARK; its handler waits there, running
 * nothing, until the process is gone.  A thread in hpcrun's own work (a sync
 * wrapper's path, a drain, its own end) parks when that work ends, its
 * locks let go.  A parked thread may hold a lock the rest of the exit
 * wants (a malloc arena, a stream): after PARK_NS it goes on, as it
 * would have natively.  Not at exec (a failed one measures on) nor at a
 * fatal signal.
 */
#define PARK_NS 250000000u
static unsigned park_word;

void rt_exit_park(struct rt_thread *td)
{
	uint64_t t0, t;

	if (!td)
		return;
	if (td->own_depth) {
		__atomic_store_n(&td->park_due, 1, __ATOMIC_SEQ_CST);
		return;		/* rt_own_end parks it */
	}
	__atomic_store_n(&td->park_due, 0, __ATOMIC_SEQ_CST);
	t0 = rt_clock_ns(CLOCK_MONOTONIC);
	while ((t = rt_clock_ns(CLOCK_MONOTONIC) - t0) < PARK_NS)
		rt_futex_wait(&park_word, 0, PARK_NS - t);
}

/* Parks every other thread of the program (threads_lock held). */
static void park_others(void)
{
	pid_t self = (pid_t)syscall(SYS_gettid);
	struct rt_thread *td;
	siginfo_t si;

	for (td = threads; td; td = td->next) {
		if (td->closed || td->raw || td->tid == self)
			continue;
		memset(&si, 0, sizeof(si));
		si.si_signo = rt_cfg.signo;
		si.si_code = SI_QUEUE;
		si.si_pid = rt_pid;
		si.si_uid = getuid();
		si.si_value.sival_ptr = (void *)(((uintptr_t)RT_SIGVAL_TAG << 32) |
						 (uint32_t)RT_EXIT_PARK);
		if (!syscall(SYS_rt_tgsigqueueinfo, rt_pid, td->tid,
			     rt_cfg.signo, &si))
			parked++;
	}
}

void rt_process_finish(const char *why, int from_signal)
{
	struct rt_thread *td;
	int locked, spins, i;
	unsigned w;
	struct rt_io io;
	sigset_t mask;

	if (!rt_active || getpid() != rt_pid)
		return;
	if (!from_signal && rt_self && !__atomic_load_n(&finished, __ATOMIC_SEQ_CST))
		count_stuck();
	/* Blocked before finished is set: a fatal signal taken on this
	 * thread between the two would wait in rt_process_finish_wait for
	 * the end it interrupted (finisher not yet this thread). */
	rt_block_async(&mask);
	if (__atomic_exchange_n(&finished, 1, __ATOMIC_ACQ_REL)) {
		rt_real_sigmask(SIG_SETMASK, &mask, NULL);
		return;
	}
	__atomic_store_n(&finisher, (pid_t)syscall(SYS_gettid), __ATOMIC_RELEASE);
	rt_own_begin();
	rt_active = 0;
	cct_pool_close(!from_signal);	/* live files written from now on go */
	locked = from_signal ? !pthread_mutex_trylock(&threads_lock) :
		 !pthread_mutex_lock(&threads_lock);
	for (td = threads; locked && td; td = td->next)
		if (!td->closed && !td->raw && td != rt_self && !td->busy &&
		    rt_signal_stuck_other(td->tid))
			threads_stuck++;
	if (locked && !from_signal &&
	    (!strcmp(why, "exit") || !strcmp(why, "_exit") ||
	     !strcmp(why, "quick_exit")))
		park_others();
	for (td = threads; td; td = td->next) {
		if (td->closed)
			continue;
		td->closed = 1;
		stop_sources(td);
		for (spins = 0; td->busy && td != rt_self && spins < 10000; spins++)
			rt_wait_idle_once(td);
		write_thread(td);
	}
	/* threads ending meanwhile: a second at most */
	for (i = 0; (w = __atomic_load_n(&writers, __ATOMIC_SEQ_CST)) && i < 1000; i++)
		rt_futex_wait(&writers, w, 1000000);
	end_wait_ms = (uint64_t)i;
	rt_io_begin(&io);		/* as in write_thread */
	write_log(why);
	rt_live_proc_end(!live_left);	/* removed: nothing left to recover */
	rt_io_end(&io);
	if (locked)
		pthread_mutex_unlock(&threads_lock);
	rt_own_end();	/* balanced, for a failed exec's resumption */
	__atomic_store_n(&finish_done, 1, __ATOMIC_RELEASE);
	rt_futex_wake(&finish_done, INT32_MAX);
	rt_real_sigmask(SIG_SETMASK, &mask, NULL);
}

void rt_resume_after_failed(const char *call, int err)
{
	struct rt_thread *td, *next;
	pid_t self = (pid_t)syscall(SYS_gettid);
	char msg[160];
	int i;

	if (!__atomic_load_n(&finished, __ATOMIC_ACQUIRE) || rt_active ||
	    rt_sealed || getpid() != rt_pid)
		return;
	pthread_mutex_lock(&threads_lock);
	memset(&totals, 0, sizeof(totals));
	nthreads = write_errors = blocked_attempts = live_left = threads_stuck = 0;
	unsampled_threads = unsampled_ns = 0;
	rt_sampling_rearmed = rt_sampling_stopped = 0;
	rt_live_proc_begin();
	cct_pool_open();
	CAPS_CALL(exec_failed);
	for (td = threads; td; td = next) {
		next = td->next;
		if (td->tid != self && syscall(SYS_tgkill, rt_pid, td->tid, 0)) {
			threads_del(td);	/* ended while nothing was measured */
			continue;
		}
		cct_release(&td->cct);
		if (tree_new(td)) {
			threads_del(td);
			continue;
		}
		memset(&td->counts, 0, sizeof(td->counts));
		CAPS_CALL(exec_failed_thread, td);	/* before appends resume */
		td->closed = 0;
		for (i = 0; i < rt_cfg.nev; i++)
			td->started[i] = !rt_cfg.ev[i].src->start(td, i);
	}
	snprintf(msg, sizeof(msg),
		 "%s failed (%s): measurement goes on in new files", call,
		 strerror(err));
	rt_note(msg);
	__atomic_store_n(&finish_done, 0, __ATOMIC_RELEASE);
	__atomic_store_n(&finished, 0, __ATOMIC_RELEASE);
	rt_active = 1;
	pthread_mutex_unlock(&threads_lock);
}

int rt_sandbox_enter(void)
{
	char line[320];

	if (!rt_active || getpid() != rt_pid)
		return 0;
	snprintf(line, sizeof(line), "%.200s (process %d) installs a seccomp "
		 "filter: measured until then, not after; see hpcrun(1)",
		 rt_cfg.progname, (int)rt_pid);
	rt_note(line);
	if (rt_first_to_say("seccomp"))
		rt_say(line, NULL);
	rt_process_finish("seccomp", 0);
	rt_sealed = 1;
	own_wait(none_starting);	/* their rt_thread_begin sees the end */
	own_end_all();
	rt_release_fatal_handlers();
	return 1;
}

void rt_sandbox_failed(int err)
{
	sigset_t old;

	rt_sealed = 0;
	rt_install_fatal_handlers();
	rt_real_sigmask(SIG_BLOCK, NULL, &old);
	rt_resume_after_failed("seccomp", err);
	rt_own_resume(1, &old);
}

/* In a fork child (pthread_atfork): see the lifecycle above. */
static void rt_after_fork_child(void)
{
	struct rt_thread *self = rt_self;
	int i;

	rt_pid = getpid();
	starting = 0;		/* none of the parent's come here */
	writers = 0;		/* nor do those writing their profiles */
	leaving = 0;
	memset(own_tids, 0, sizeof(own_tids));
	own_paused = 0;
	rt_own_stop = 0;	/* a parent standing aside (rt_own_pause) */
	rt_own_away = 0;
	memset(ended, 0, sizeof(ended));
	rt_fd_gate_after_fork();
	rt_signal_after_fork();
	rt_io_after_fork();
	cct_pool_after_fork();
	rt_perf_after_fork(threads);
	CAPS_CALL(fork_child);
	if (!self || !rt_active)
		return;
	threads = NULL;
	memset(&totals, 0, sizeof(totals));
	nthreads = write_errors = blocked_attempts = live_left = threads_stuck = 0;
	unsampled_threads = unsampled_ns = 0;
	rt_live_proc_begin();		/* a proc file of the child's own */
	cct_release(&self->cct);	/* the parent's file stays the parent's */
	CAPS_CALL(thread_release, self);	/* the parent's state */
	CAPS_CALL(fork_child_measuring);
	memset(&self->counts, 0, sizeof(self->counts));
	memset(self->started, 0, sizeof(self->started));
	rt_self = NULL;
	if (tree_new(self))
		return;
	self->tid = (pid_t)syscall(SYS_gettid);
	threads_add(self);
	rt_self = self;
	rt_own_begin();
	for (i = 0; i < rt_cfg.nev; i++)
		if (!rt_cfg.ev[i].src->start(self, i))
			self->started[i] = 1;
	rt_own_end();
}

__attribute__((destructor)) static void rt_fini(void)
{
	rt_process_finish("exit", 0);
}
