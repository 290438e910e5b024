/*
 * source-perf.c - sample source for Linux perf events, and the fds it owns.
 *
 * One counter per event per thread (pid = the thread, user mode only),
 * with no ring buffer: each overflow raises the sampling signal through
 * fasync, routed to the owning thread with F_SETOWN_EX.  With a period the
 * value of a sample is 1 (hpcprof multiplies by the period, as HPCToolkit
 * does); in frequency mode the kernel varies the period, so the value is
 * the counter's increase since the previous sample (read(2) in the
 * handler) -- except for cpu-clock and task-clock, whose frequency the
 * kernel turns into the fixed period 1e9/FREQ ns anyway: we ask for that
 * period directly and the value is the period, without a system call.
 *
 * THE FDS.  A perf fd is the only fd hpcrun keeps open while the program
 * runs, and programs close fds they did not open (daemons close every fd
 * above 2; a dup2 lands on a number).  A closed number is soon reused by the
 * program's next open(), so touching "our" number after that would touch
 * the program's file.  Invariants:
 *  1. Our fds live high: moved with F_DUPFD_CLOEXEC to fd_base() or above
 *     (1024, or 3/4 of a smaller RLIMIT_NOFILE: fd_base) before anything else is
 *     done with them, so the program's open() returns the numbers it would
 *     return without us.  O_ASYNC is set on the high number (fasync names
 *     the signal's si_fd after the number it was set on).
 *  2. owner[fd] names the thread and event of each fd we own (fd < RT_FD_MAX);
 *     a number is ours exactly while owner[fd] is set, and td->fd[idx] is
 *     that number or -1.
 *  3. The fd gate.  hpcrun opens, moves, configures and closes its fds (and
 *     writes its files, runtime.c) only while holding the gate exclusively
 *     (rt_fd_gate_lock: all signals blocked on that thread, then it waits
 *     until no program call below is in progress).  The program's close,
 *     close_range, closefrom, dup2 and dup3 hold it shared
 *     (rt_fd_close_begin/end, process-interpose.c).  So no program call closes a
 *     number of ours between perf_event_open and the move, or between our
 *     last use and our close.  A thread that already holds it (shared or
 *     exclusive) never waits for it again, so a signal handler calling
 *     close inside close, or our own close of a file we write, cannot
 *     deadlock.
 *  4. Before a program call that closes one of ours runs, rt_fd_close_begin
 *     clears owner[fd], sets td->fd[idx] = -1 and waits until that thread's
 *     handler is not running (the handler stores td->busy, then loads
 *     td->fd; we store td->fd, then load td->busy; both sequentially
 *     consistent, so one of the two sees the other).  From then on nothing
 *     of hpcrun touches the number; the program's call runs as asked.  If
 *     it fails (a dup2 from a bad fd) nothing was closed and the fd is
 *     ours again.  Otherwise rt_fd_close_end re-opens the event for that
 *     thread on a new high fd ("sampling-rearmed" in the log); if that
 *     fails, that thread's sampling of the event stops ("sampling-stopped",
 *     and one warning on stderr).
 *  5. Everything here is async-signal-safe, as close(2) is: system calls,
 *     atomics, and waiting with sched_yield.
 * Not seen: fds closed with a raw system call (syscall(SYS_close, ...)).
 * A program call that never returns to us (a signal handler that
 * siglongjmps out of close) would hold the gate shared for ever: after
 * waiting a second, rt_fd_gate_lock says so on stderr and stops waiting
 * for program calls (degraded to invariants 1, 2 and 4).
 *
 * THE RING.  A signal per sample costs the program more than the sample
 * itself (docs/BENCHMARKS.md), so the events whose rate follows the
 * thread's CPU time -- cpu-clock, task-clock, hardware and raw events --
 * are sampled through a ring buffer instead (unless --no-stack-copy or
 * --no-unwind): at each sample the kernel writes the user registers and a
 * copy of the top rt_cfg.stack_copy bytes of the user stack into a per-thread
 * ring, with no signal; a per-thread timer on the thread's CPU clock
 * (RT_DRAIN_NS) raises the sampling signal with RT_DRAIN_TIMER, and the
 * handler unwinds each waiting sample from its copy (rt_sample_copy).
 * Invariants:
 *  R1. Such an event has no fd: it is opened, mapped, enabled and closed
 *      under the gate, and lives as long as its mapping; so the program
 *      cannot close it, and fork (the mapping is not inherited) and exec
 *      end it.  td->fd[idx] stays -1.
 *  R2. td->ring[idx] is the mapping or NULL.  The handler loads it after
 *      setting td->busy; perf_stop takes it (exchange with NULL), waits
 *      for the handler as take() does, takes what is left in it and
 *      unmaps it.
 *  R3. Samples are taken out of a ring only on its thread's handler, or by
 *      perf_stop on the thread itself or once the thread is closed (its
 *      handler then records nothing), so a thread's tree is only ever
 *      changed by one party at a time.
 *  R4. A ring the kernel finds full loses samples: PERF_RECORD_LOST, counted
 *      ("dropped-ring-full").  When the ring cannot be mapped (unprivileged
 *      users are limited by perf_event_mlock_kb), that thread's event takes
 *      one signal per sample as above, said once.
 *
 * THE PRIVATE TABLE.  A fd hpcrun opens takes the lowest free number of
 * the fd table it is opened in.  Opened in the program's table, even for a
 * moment (a ring event between perf_event_open and its close, a file being
 * written), it is a number the program's open() on another thread cannot
 * have at that moment: the program gets another number than it would
 * without hpcrun, and with a low RLIMIT_NOFILE, EMFILE (1 run in 53, #13:
 * each thread start opened its ring event there).  So such fds are opened
 * in a table of their own: rt_fd_private runs a function on hpcrun's fd
 * thread, which shares everything with the process but its fd table
 * (unshare(CLONE_FILES), the copy of the program's fds closed at once).
 *  P1. Only what needs no fd afterwards runs there: the mapping of a ring
 *      event and the files hpcrun writes (opened, written, closed).  A fd
 *      that must stay open in the program's table (a perf event with a
 *      signal per sample, read in the handler) is opened there and moved
 *      high at once (invariant 1).
 *  P2. The fd thread blocks every signal, is never sampled, and is made
 *      when a source first starts in each process (rt_fd_thread_start;
 *      a fork child makes its own), never in a handler; where it cannot be
 *      made the function runs on the caller, as before.
 *  P3. Callers take turns, one job at a time; a caller whose own turn a
 *      signal interrupted runs its function itself.
 *  P4. The fd thread never takes the gate (the caller may hold it), and
 *      its close() calls, of its own fds, bypass the bookkeeping of
 *      invariant 4: the program's calls cannot reach its table.
 */
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/futex.h>
#include <linux/perf_event.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "datacentric.h"
#include "runtime.h"

/* Numbers at or above this are never ours (owner[] covers the rest). */
#define RT_FD_MAX 65536
/* Losses waiting for rt_fd_close_end to re-arm them. */
#define LOST_MAX 1024

uint64_t rt_sampling_rearmed, rt_sampling_stopped;

/* (uintptr_t)td | (idx + 1) for each fd we own (td is page-aligned), or 0. */
static uintptr_t owner[RT_FD_MAX];
static unsigned owned_end;		/* every fd we own is below it */

/* A fd the program closed, its event not re-armed yet. */
static struct lost {
	struct rt_thread *td;		/* NULL: a free entry */
	int idx, fd;
	unsigned token;			/* the program call that closed it */
} lost[LOST_MAX];
static unsigned lost_pending, next_token;
static int warned_stop;

/* The fd gate (invariant 3). */
static int gate, gate_degraded;
static unsigned closers;
static __thread int held_shared __attribute__((tls_model("initial-exec")));
static __thread int held_excl __attribute__((tls_model("initial-exec")));

/* Not interposed and not a cancellation point. */
static void sys_close(int fd)
{
	syscall(SYS_close, fd);
}

/* The fd thread (THE PRIVATE TABLE); its closes are of its own table. */
static __thread int on_fd_thread __attribute__((tls_model("initial-exec")));
/* The fd thread (THE PRIVATE TABLE). */
static struct {
	pid_t pid;		/* the process it serves; 0: none yet */
	int broken;		/* it could not be made in this process */
	pid_t lock;		/* the thread whose turn it is, 0 */
	unsigned req, done;	/* futex words: jobs asked and done */
	int (*fn)(void *);
	void *arg;
	int result;
} fdt;

static void futex_wait(unsigned *addr, unsigned val)
{
	syscall(SYS_futex, addr, FUTEX_WAIT_PRIVATE, val, NULL, NULL, 0);
}

static void futex_wake(unsigned *addr)
{
	syscall(SYS_futex, addr, FUTEX_WAKE_PRIVATE, 1, NULL, NULL, 0);
}

static void *fd_thread(void *ready)
{
	unsigned seen = 0, r;
	sigset_t all;

	on_fd_thread = 1;
	sigfillset(&all);
	rt_real_sigmask(SIG_SETMASK, &all, NULL);
	if (syscall(SYS_unshare, CLONE_FILES) ||
	    syscall(SYS_close_range, 0U, ~0U, 0)) {
		__atomic_store_n((int *)ready, -1, __ATOMIC_SEQ_CST);
		futex_wake(ready);
		return NULL;
	}
	__atomic_store_n((int *)ready, 1, __ATOMIC_SEQ_CST);
	futex_wake(ready);
	for (;;) {
		while ((r = __atomic_load_n(&fdt.req, __ATOMIC_SEQ_CST)) == seen)
			futex_wait(&fdt.req, seen);
		fdt.result = fdt.fn(fdt.arg);
		seen = r;
		__atomic_store_n(&fdt.done, r, __ATOMIC_SEQ_CST);
		futex_wake(&fdt.done);
	}
	return NULL;
}

void rt_fd_thread_start(void)
{
	typedef int (*create_fn)(pthread_t *, const pthread_attr_t *,
				 void *(*)(void *), void *);
	static create_fn create;
	pthread_attr_t attr;
	pthread_t t;
	int ready = 0, ok;

	if (fdt.pid == rt_pid || fdt.broken == rt_pid)
		return;
	if (!create)
		*(void **)&create = dlsym(RTLD_NEXT, "pthread_create");
	fdt.broken = rt_pid;
	if (!create || pthread_attr_init(&attr))
		return;
	pthread_attr_setstacksize(&attr, 65536);
	pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
	fdt.req = fdt.done = 0;		/* a fork child's counts start over */
	ok = !create(&t, &attr, fd_thread, &ready);
	pthread_attr_destroy(&attr);
	if (!ok)
		return;
	while (!__atomic_load_n(&ready, __ATOMIC_SEQ_CST))
		futex_wait((unsigned *)&ready, 0);
	if (ready > 0) {
		fdt.broken = 0;
		__atomic_store_n(&fdt.pid, rt_pid, __ATOMIC_SEQ_CST);
	}
}

int rt_fd_private(int (*fn)(void *), void *arg)
{
	pid_t self = (pid_t)syscall(SYS_gettid), none = 0;
	unsigned r;
	int result;

	if (__atomic_load_n(&fdt.pid, __ATOMIC_SEQ_CST) != rt_pid ||
	    __atomic_load_n(&fdt.lock, __ATOMIC_SEQ_CST) == self)
		return fn(arg);		/* no fd thread; or a handler of ours
					 * interrupted our own turn */
	while (!__atomic_compare_exchange_n(&fdt.lock, &none, self, 0,
					    __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST)) {
		none = 0;
		sched_yield();
	}
	fdt.fn = fn;
	fdt.arg = arg;
	r = __atomic_add_fetch(&fdt.req, 1, __ATOMIC_SEQ_CST);
	futex_wake(&fdt.req);
	while (__atomic_load_n(&fdt.done, __ATOMIC_SEQ_CST) != r)
		futex_wait(&fdt.done, r - 1);
	result = fdt.result;
	__atomic_store_n(&fdt.lock, 0, __ATOMIC_SEQ_CST);
	return result;
}

void rt_fd_gate_lock(sigset_t *old)
{
	struct timespec t0, t;
	sigset_t all;

	sigfillset(&all);
	sigdelset(&all, SIGSEGV);	/* faults still reach process-interpose.c */
	sigdelset(&all, SIGBUS);
	sigdelset(&all, SIGILL);
	sigdelset(&all, SIGFPE);
	rt_real_sigmask(SIG_BLOCK, &all, old);
	if (held_excl++ || on_fd_thread)
		return;		/* the fd thread's table is its own (P4) */
	while (__atomic_exchange_n(&gate, 1, __ATOMIC_SEQ_CST))
		sched_yield();
	clock_gettime(CLOCK_MONOTONIC, &t0);
	while (__atomic_load_n(&closers, __ATOMIC_SEQ_CST) > (unsigned)held_shared &&
	       !__atomic_load_n(&gate_degraded, __ATOMIC_RELAXED)) {
		sched_yield();
		clock_gettime(CLOCK_MONOTONIC, &t);
		if (t.tv_sec - t0.tv_sec > 1 &&
		    !__atomic_exchange_n(&gate_degraded, 1, __ATOMIC_RELAXED))
			rt_write_str(2, "hpcrun: warning: a close() of the program has not "
				     "returned for a second; no longer waiting for them\n");
	}
}

void rt_fd_gate_unlock(const sigset_t *old)
{
	if (--held_excl == 0 && !on_fd_thread)
		__atomic_store_n(&gate, 0, __ATOMIC_SEQ_CST);
	rt_real_sigmask(SIG_SETMASK, old, NULL);
}

static void shared_enter(void)
{
	for (;;) {
		__atomic_add_fetch(&closers, 1, __ATOMIC_SEQ_CST);
		if (held_shared || held_excl || !__atomic_load_n(&gate, __ATOMIC_SEQ_CST))
			break;
		__atomic_sub_fetch(&closers, 1, __ATOMIC_SEQ_CST);
		while (__atomic_load_n(&gate, __ATOMIC_SEQ_CST))
			sched_yield();
	}
	held_shared++;
}

static void shared_exit(void)
{
	held_shared--;
	__atomic_sub_fetch(&closers, 1, __ATOMIC_SEQ_CST);
}

/* Where our fds go: above the numbers the program uses (invariant 1):
 * 1024, or 3/4 of a smaller soft RLIMIT_NOFILE -- but a program that
 * lowered it below 256 (to 4, say) would find our fd at 3/4 of it, the
 * number its next open() should get: then 1024, or 3/4 of a smaller hard
 * limit, above the soft one (move_high). */
static int fd_base(const struct rlimit *rl)
{
	if (rl->rlim_cur > 2048 || (rl->rlim_cur < 256 && rl->rlim_max > 2048))
		return 1024;
	if (rl->rlim_cur >= 256)
		return (int)(rl->rlim_cur - rl->rlim_cur / 4);
	return (int)(rl->rlim_max - rl->rlim_max / 4);
}

/* Moves fd to fd_base() or above; the fd to use, or -EMFILE.  F_DUPFD
 * stays below the soft limit, so a soft limit under the base is lifted
 * for the call and put back (unless the program changed it meanwhile). */
static int move_high(int fd)
{
	struct rlimit rl, lifted, now;
	int h, base, lift;

	if (prlimit(0, RLIMIT_NOFILE, NULL, &rl))
		return fd;
	base = fd_base(&rl);
	lifted = rl;
	lifted.rlim_cur = rl.rlim_max;
	lift = rl.rlim_cur <= (rlim_t)base && !prlimit(0, RLIMIT_NOFILE, &lifted, NULL);
	h = fcntl(fd, F_DUPFD_CLOEXEC, base);
	if (lift && !prlimit(0, RLIMIT_NOFILE, NULL, &now) &&
	    now.rlim_cur == lifted.rlim_cur && now.rlim_max == lifted.rlim_max)
		prlimit(0, RLIMIT_NOFILE, &rl, NULL);
	if (h >= 0 && h < RT_FD_MAX) {
		sys_close(fd);
		return h;
	}
	if (h >= 0)
		sys_close(h);
	if (fd < RT_FD_MAX)
		return fd;		/* no room up there: it stays where it is */
	sys_close(fd);
	return -EMFILE;
}

/* Waits until the handler of td, another thread, is not running; 0 when
 * it gave up: a handler busy for over a second has crashed (its thread is
 * writing everything out in process-interpose.c's fatal handler) and will not go
 * on. */
static int wait_idle(struct rt_thread *td)
{
	struct timespec t0, t;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	while (__atomic_load_n(&td->busy, __ATOMIC_SEQ_CST)) {
		sched_yield();
		clock_gettime(CLOCK_MONOTONIC, &t);
		if (t.tv_sec - t0.tv_sec > 1)
			return 0;
	}
	return 1;
}

/* Takes td's fd of event idx from it: td->fd[idx] is -1 and its handler
 * has let go of the number (invariant 4); the fd, or -1. */
static int take(struct rt_thread *td, int idx)
{
	int fd = __atomic_exchange_n(&td->fd[idx], -1, __ATOMIC_SEQ_CST);

	if (td != rt_self)
		wait_idle(td);
	return fd;
}

/* cpu-clock and task-clock: software events counting ns of CPU time. */
static int sw_clock(const struct hpcrun_evspec *s)
{
	return s->ev->type == PERF_TYPE_SOFTWARE &&
	       (s->ev->config == PERF_COUNT_SW_CPU_CLOCK ||
		s->ev->config == PERF_COUNT_SW_TASK_CLOCK);
}

/* Software clocks in frequency mode: sampled with a fixed period in ns. */
static uint64_t clock_period(const struct hpcrun_evspec *s)
{
	if (s->period || !sw_clock(s))
		return 0;
	return 1000000000ULL / s->freq;
}

/* The x86-64 user registers a ring sample carries: ax..ip, r8..r15. */
#define RING_REGS 0xff01ffULL

/* Page faults under hpcrun --data: sampled with their data address
 * (PERF_SAMPLE_ADDR) through a ring, whose samples taken in hpcrun's own
 * handler (its first touches of its memory) are known by their
 * registers and not charged to the program. */
static int data_fault(const struct hpcrun_evspec *s)
{
	return rt_data.on && s->ev->type == PERF_TYPE_SOFTWARE &&
	       (s->ev->config == PERF_COUNT_SW_PAGE_FAULTS ||
		s->ev->config == PERF_COUNT_SW_PAGE_FAULTS_MIN ||
		s->ev->config == PERF_COUNT_SW_PAGE_FAULTS_MAJ);
}

int rt_perf_ring_event(const struct hpcrun_evspec *s)
{
	if (!rt_cfg.stack_copy || rt_cfg.no_unwind)
		return 0;
	return s->ev->type != PERF_TYPE_SOFTWARE || sw_clock(s) || data_fault(s);
}

/* Bytes of ring data for s: twice the samples of one drain period at its
 * rate (5000/s assumed for a hardware event with a period), a power of two
 * from 64 KiB to 1 MiB, or to 8 MiB for copies larger than the default;
 * 8 MiB for page faults under --data (a burst of first touches). */
static size_t ring_data_bytes(const struct hpcrun_evspec *s)
{
	uint64_t rate = s->freq ? s->freq : 5000, need;
	size_t bytes = 65536, most = (size_t)1 << 20;

	if (s->period && sw_clock(s))
		rate = 1000000000ULL / s->period;
	if (rt_cfg.stack_copy > HPCRUN_STACK_COPY || data_fault(s))
		most = (size_t)8 << 20;
	need = 2 * (rate * (uint64_t)RT_DRAIN_NS / 1000000000ULL + 1) *
	       (rt_cfg.stack_copy + 256);
	if (data_fault(s))
		need = most;
	while (bytes < need && bytes < most)
		bytes *= 2;
	return bytes;
}

static void fill_attr(struct perf_event_attr *a, const struct hpcrun_evspec *s,
		      int ring)
{
	memset(a, 0, sizeof(*a));
	a->size = sizeof(*a);
	a->type = s->ev->type;
	a->config = s->ev->kind == HPCRUN_EV_RAW ? s->raw_config : s->ev->config;
	if (s->period) {
		a->sample_period = s->period;
	} else if (clock_period(s)) {
		a->sample_period = clock_period(s);
	} else {
		a->freq = 1;
		a->sample_freq = s->freq;
	}
	a->wakeup_events = 1;
	if (ring) {
		/* The time, on the clock that stamps the load map's
		 * snapshots (rt_module_at). */
		a->sample_type = PERF_SAMPLE_TIME | PERF_SAMPLE_REGS_USER |
				 PERF_SAMPLE_STACK_USER;
		a->use_clockid = 1;
		a->clockid = CLOCK_MONOTONIC;
		if (a->freq)
			a->sample_type |= PERF_SAMPLE_PERIOD;
		if (data_fault(s))
			a->sample_type |= PERF_SAMPLE_ADDR;
		a->sample_regs_user = RING_REGS;
		a->sample_stack_user = rt_cfg.stack_copy;
		a->wakeup_events = 0;
	}
	a->disabled = 1;
	a->exclude_kernel = 1;
	a->exclude_hv = 1;
}

/* The event for thread tid (0: the calling thread), disabled. */
static int perf_open(const struct hpcrun_evspec *s, pid_t tid, int ring)
{
	struct perf_event_attr a;
	long fd;

	fill_attr(&a, s, ring);
	fd = syscall(SYS_perf_event_open, &a, tid, -1, -1, PERF_FLAG_FD_CLOEXEC);
	return fd < 0 ? -errno : (int)fd;
}

static int perf_probe(const struct hpcrun_evspec *s)
{
	rt_fd_thread_start();
	int fd = perf_open(s, 0, 0);

	if (fd < 0)
		return fd;
	sys_close(fd);
	return 0;
}

/* Opens event idx of td on a high fd, publishes it, enables it; the gate
 * is held.  0 or negative errno. */
static int arm(struct rt_thread *td, int idx)
{
	struct f_owner_ex own = { F_OWNER_TID, td->tid };
	int fd = perf_open(&rt_cfg.ev[idx].spec, td->tid, 0), err;

	if (fd < 0 || (fd = move_high(fd)) < 0)
		return fd;
	if (fcntl(fd, F_SETFL, O_ASYNC | O_NONBLOCK) ||
	    fcntl(fd, F_SETSIG, rt_cfg.signo) ||
	    fcntl(fd, F_SETOWN_EX, &own)) {
		err = -errno;
		sys_close(fd);
		return err;
	}
	td->last_count[idx] = 0;
	__atomic_store_n(&owner[fd], (uintptr_t)td | (uintptr_t)(idx + 1),
			 __ATOMIC_SEQ_CST);
	if ((unsigned)fd >= __atomic_load_n(&owned_end, __ATOMIC_RELAXED))
		__atomic_store_n(&owned_end, (unsigned)fd + 1, __ATOMIC_SEQ_CST);
	__atomic_store_n(&td->fd[idx], fd, __ATOMIC_SEQ_CST);
	if (ioctl(fd, PERF_EVENT_IOC_RESET, 0) ||
	    ioctl(fd, PERF_EVENT_IOC_ENABLE, 0)) {
		err = -errno;
		__atomic_store_n(&owner[take(td, idx)], 0, __ATOMIC_SEQ_CST);
		sys_close(fd);
		return err;
	}
	return 0;
}

/* A ring event to open in the private table (THE PRIVATE TABLE). */
struct ring_job {
	const struct hpcrun_evspec *s;
	pid_t tid;
	size_t bytes;
	void *ring;
};

/* The event of j with its ring buffer, mapped and enabled, its fd closed
 * again (R1); 0 or negative errno. */
static int open_ring(void *p)
{
	struct ring_job *j = p;
	int fd = perf_open(j->s, j->tid, 1), err = 0;

	if (fd < 0)
		return fd;
	j->ring = mmap(NULL, j->bytes, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (j->ring == MAP_FAILED) {
		err = -errno;
		j->ring = NULL;
	} else if (ioctl(fd, PERF_EVENT_IOC_RESET, 0) ||
		   ioctl(fd, PERF_EVENT_IOC_ENABLE, 0)) {
		err = -errno;
		munmap(j->ring, j->bytes);
		j->ring = NULL;
	}
	sys_close(fd);
	return err;
}

/* Opens event idx of td with a ring buffer (THE RING, R1), its fd never in
 * the program's table; the gate is held.  0 or negative errno. */
static int arm_ring(struct rt_thread *td, int idx)
{
	struct ring_job j = {
		&rt_cfg.ev[idx].spec, td->tid,
		(size_t)sysconf(_SC_PAGESIZE) + ring_data_bytes(&rt_cfg.ev[idx].spec),
		NULL,
	};
	int err;

	/* the timer first: no sample of the ring is taken in its making
	 * (the first call of timer_create goes through ld.so, which the
	 * unwinder cannot leave) */
	if (td->nrings == 0 &&
	    (err = rt_timer_create(td->tid, rt_thread_clock(td->tid), RT_DRAIN_TIMER,
				   RT_DRAIN_NS, &td->drain_timer)))
		return err;
	err = rt_fd_private(open_ring, &j);
	if (err) {
		if (td->nrings == 0)
			timer_delete(td->drain_timer);
		return err;
	}
	td->nrings++;
	td->ring_bytes[idx] = j.bytes;
	__atomic_store_n(&td->ring[idx], j.ring, __ATOMIC_SEQ_CST);
	return 0;
}

static int perf_start(struct rt_thread *td, int idx)
{
	static int warned;
	sigset_t old;
	int err = -1;

	rt_fd_thread_start();
	rt_fd_gate_lock(&old);
	if (rt_perf_ring_event(&rt_cfg.ev[idx].spec)) {
		err = arm_ring(td, idx);
		if (err && !__atomic_exchange_n(&warned, 1, __ATOMIC_RELAXED)) {
			char msg[256];

			snprintf(msg, sizeof(msg), "warning: event '%s': no ring buffer "
				 "for thread %d (%s%s); one signal per sample instead",
				 rt_cfg.ev[idx].metric, td->index, strerror(-err),
				 err == -EPERM ? ": see /proc/sys/kernel/perf_event_mlock_kb" : "");
			rt_note(msg);	/* the log; stderr only during start-up */
			rt_write_str(2, "hpcrun: ");
			rt_write_str(2, msg);
			rt_write_str(2, "\n");
		}
	}
	if (err)
		err = arm(td, idx);
	rt_fd_gate_unlock(&old);
	return err;
}

/*
 * One PERF_RECORD_SAMPLE of event idx in [p, end), after its header, as
 * fill_attr asked for it: the time, the data address (page faults under
 * --data), the period (frequency mode only), the
 * registers (abi, then ax bx cx dx si di bp sp ip r8..r15), the stack copy
 * (size, bytes, dyn_size).  Recorded by rt_sample_copy, uc and self as it
 * wants.
 */
static void take_sample(struct rt_thread *td, struct rt_thread *self, int idx,
			const unsigned char *p, const unsigned char *end,
			const void *uc)
{
	static const int dw[17] = {	/* DWARF number of each register */
		0, 3, 2, 1, 4, 5, 6, 7, 16, 8, 9, 10, 11, 12, 13, 14, 15
	};
	const struct hpcrun_evspec *s = &rt_cfg.ev[idx].spec;
	uint64_t cp = clock_period(s);
	double val = s->period ? 1.0 : (double)cp;
	/* the time, the address of a fault, the period in frequency mode */
	long head = (!s->period && !cp ? 16 : 8) + (data_fault(s) ? 8 : 0);
	struct rt_copy c = { .has_addr = 0 };
	uint64_t g[17], len, dyn = 0;
	int i;

	if (end - p < head + 8 + (long)sizeof(g) + 8) {
		td->counts.taken++;
		td->counts.dropped_nomodule++;	/* no user registers */
		td->nsamples[idx]++;
		return;
	}
	memcpy(&c.time, p, 8);
	if (data_fault(s)) {
		memcpy(&c.addr, p + 8, 8);
		c.has_addr = 1;
	}
	if (!s->period && !cp) {
		memcpy(&len, p + head - 8, 8);
		val = (double)len;
	}
	p += head;
	memcpy(g, p + 8, sizeof(g));
	p += 8 + sizeof(g);
	memcpy(&len, p, 8);
	p += 8;
	if (len > (uint64_t)(end - p))
		len = 0;
	if (len && (uint64_t)(end - p) >= len + 8)
		memcpy(&dyn, p + len, 8);
	if (dyn > len)
		dyn = len;
	for (i = 0; i < 17; i++)
		c.regs[dw[i]] = (uintptr_t)g[i];
	c.stack = p;
	c.len = (size_t)dyn;
	rt_sample_copy(td, self, idx, &c, uc, val);
}

/* Takes the samples waiting in ring (event idx of td), and counts those
 * the kernel lost. */
static void drain_ring(struct rt_thread *td, struct rt_thread *self, int idx,
		       void *ring, const void *uc)
{
	struct perf_event_mmap_page *mp = ring;
	const unsigned char *data = (const unsigned char *)ring + mp->data_offset;
	uint64_t size = mp->data_size, tail = mp->data_tail, head;

	head = __atomic_load_n(&mp->data_head, __ATOMIC_ACQUIRE);
	if (!size || (size & (size - 1)) || head - tail > size)
		tail = head;		/* not a ring we understand: skip it */
	while (tail + sizeof(struct perf_event_header) <= head) {
		struct perf_event_header h;
		uint64_t off = tail & (size - 1), nlost[2];
		const unsigned char *r;

		memcpy(&h, data + off, sizeof(h));
		if (h.size < sizeof(h) || tail + h.size > head)
			break;
		if (off + h.size <= size) {
			r = data + off;
		} else {
			memcpy(td->rec, data + off, (size_t)(size - off));
			memcpy(td->rec + (size - off), data, (size_t)(h.size - (size - off)));
			r = td->rec;
		}
		tail += h.size;
		if (h.type == PERF_RECORD_SAMPLE) {
			take_sample(td, self, idx, r + sizeof(h), r + h.size, uc);
		} else if (h.type == PERF_RECORD_LOST && h.size >= sizeof(h) + 16) {
			memcpy(nlost, r + sizeof(h), 16);	/* id, lost */
			td->counts.taken += nlost[1];
			td->counts.dropped_ring += nlost[1];
		}
	}
	__atomic_store_n(&mp->data_tail, tail, __ATOMIC_RELEASE);
}

void rt_perf_drain(struct rt_thread *td, const void *uc)
{
	int i;

	for (i = 0; i < rt_cfg.nev; i++) {
		void *ring = __atomic_load_n(&td->ring[i], __ATOMIC_SEQ_CST);

		if (ring)
			drain_ring(td, td, i, ring, uc);
	}
}

void rt_perf_drain_self(void)
{
	struct rt_thread *td = rt_self;

	/* A signal arriving after busy is set finds it set and leaves the
	 * tree alone; one arriving before finishes before we go on. */
	if (!td || !td->nrings || td->busy || td->closed)
		return;
	__atomic_store_n(&td->busy, 1, __ATOMIC_SEQ_CST);
	rt_perf_drain(td, NULL);
	__atomic_store_n(&td->busy, 0, __ATOMIC_SEQ_CST);
}

void rt_perf_resignal(struct rt_thread *td)
{
	sigset_t mask;
	timer_t t;
	int i;

	rt_fd_gate_lock(&mask);
	for (i = 0; i < rt_cfg.nev; i++) {
		int fd = __atomic_load_n(&td->fd[i], __ATOMIC_SEQ_CST);

		if (fd >= 0)
			fcntl(fd, F_SETSIG, rt_cfg.signo);
	}
	if (td->nrings && !rt_timer_create(td->tid, rt_thread_clock(td->tid),
					   RT_DRAIN_TIMER, RT_DRAIN_NS, &t)) {
		timer_delete(td->drain_timer);
		td->drain_timer = t;
	}
	rt_fd_gate_unlock(&mask);
}

/* Ends td's ring of event idx (R2, R3); the gate is held. */
static void stop_ring(struct rt_thread *td, int idx)
{
	void *ring = __atomic_exchange_n(&td->ring[idx], NULL, __ATOMIC_SEQ_CST);
	struct rt_thread *self = rt_self;

	if (!ring)
		return;
	if (td == self || td->tid == (pid_t)syscall(SYS_gettid)) {
		/* Its own thread, signals blocked by the gate: rt_self may be
		 * cleared already (rt_thread_end); a fault in the unwinder
		 * must find td there.  Not from inside its handler. */
		if (!td->busy) {
			rt_self = td;
			drain_ring(td, td, idx, ring, NULL);
			rt_self = self;
		}
	} else if (wait_idle(td) && td->closed) {
		/* No unwinding on a thread whose own handler was interrupted:
		 * its fault recovery is in use; leaf addresses only. */
		drain_ring(td, self && !self->busy ? self : NULL, idx, ring, NULL);
	}
	munmap(ring, td->ring_bytes[idx]);
	if (--td->nrings == 0)
		timer_delete(td->drain_timer);
}

/* Drops the pending losses of td's event idx (gate held). */
static void drop_lost(struct rt_thread *td, int idx)
{
	int i;

	for (i = 0; i < LOST_MAX && __atomic_load_n(&lost_pending, __ATOMIC_SEQ_CST); i++)
		if (lost[i].td == td && lost[i].idx == idx) {
			__atomic_store_n(&lost[i].td, NULL, __ATOMIC_SEQ_CST);
			__atomic_sub_fetch(&lost_pending, 1, __ATOMIC_SEQ_CST);
		}
}

static void perf_stop(struct rt_thread *td, int idx)
{
	sigset_t old;
	int fd;

	rt_fd_gate_lock(&old);
	stop_ring(td, idx);
	fd = take(td, idx);
	if (fd >= 0) {
		__atomic_store_n(&owner[fd], 0, __ATOMIC_SEQ_CST);
		ioctl(fd, PERF_EVENT_IOC_DISABLE, 0);
		sys_close(fd);
	}
	drop_lost(td, idx);
	rt_fd_gate_unlock(&old);
}

static double perf_value(struct rt_thread *td, int idx, const siginfo_t *si)
{
	const struct hpcrun_evspec *s = &rt_cfg.ev[idx].spec;
	int fd = __atomic_load_n(&td->fd[idx], __ATOMIC_SEQ_CST);
	uint64_t count;

	(void)si;
	if (s->period)
		return 1.0;
	if (clock_period(s))
		return (double)clock_period(s);
	if (fd < 0 || read(fd, &count, sizeof(count)) != sizeof(count))
		return 0;
	{
		uint64_t d = count - td->last_count[idx];

		td->last_count[idx] = count;
		return (double)d;
	}
}

const struct sample_source perf_source = {
	.name = "perf",
	.probe = perf_probe,
	.start = perf_start,
	.stop = perf_stop,
	.value = perf_value,
};

/* td's event idx will not be sampled again; said once on stderr. */
static void sampling_stops(const struct rt_thread *td, int idx, int err)
{
	char num[24];

	__atomic_add_fetch(&rt_sampling_stopped, 1, __ATOMIC_RELAXED);
	if (__atomic_exchange_n(&warned_stop, 1, __ATOMIC_RELAXED))
		return;
	rt_fmt_u64(num, (uint64_t)td->index, 10, 0);
	rt_write_str(2, "hpcrun: warning: the program closed the fd on which hpcrun "
		     "samples thread ");
	rt_write_str(2, num);
	rt_write_str(2, " and it could not be opened again (");
	rt_write_str(2, strerrorname_np(-err) ? strerrorname_np(-err) : "?");
	rt_write_str(2, "); that thread's '");
	rt_write_str(2, rt_cfg.ev[idx].metric);
	rt_write_str(2, "' samples stop there (the log counts such threads)\n");
}

/* Forgets td's event idx on fd, which the program is about to close. */
static void forget(struct rt_thread *td, int idx, int fd, unsigned token)
{
	int i;

	if (take(td, idx) != fd)
		return;
	for (i = 0; i < LOST_MAX; i++) {
		struct rt_thread *none = NULL;

		if (__atomic_compare_exchange_n(&lost[i].td, &none, td, 0,
						__ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST)) {
			lost[i].idx = idx;
			lost[i].fd = fd;
			lost[i].token = token;
			__atomic_add_fetch(&lost_pending, 1, __ATOMIC_SEQ_CST);
			return;
		}
	}
	sampling_stops(td, idx, -ENOSPC);
}

int rt_fd_close_begin(struct rt_fd_call *c, unsigned lo, unsigned hi)
{
	unsigned fd, end;

	c->token = 0;
	c->forgot = 0;
	if (on_fd_thread)
		return 0;	/* its own table: none of the program's fds */
	shared_enter();
	end = __atomic_load_n(&owned_end, __ATOMIC_SEQ_CST);
	for (fd = lo; fd < end && fd <= hi; fd++) {
		uintptr_t o;

		if (!__atomic_load_n(&owner[fd], __ATOMIC_SEQ_CST))
			continue;
		/* A vfork child closes its own copies; ours stay ours. */
		if (getpid() != rt_pid)
			break;
		o = __atomic_exchange_n(&owner[fd], 0, __ATOMIC_SEQ_CST);
		if (!o)
			continue;
		while (!c->token)
			c->token = __atomic_add_fetch(&next_token, 1, __ATOMIC_RELAXED);
		forget((struct rt_thread *)(o & ~(uintptr_t)4095), (int)(o & 4095) - 1,
		       (int)fd, c->token);
		c->forgot++;
	}
	return c->forgot;
}

/* The program's call failed, so closed nothing: c's fds are ours again. */
static void restore(const struct rt_fd_call *c)
{
	int i;

	for (i = 0; i < LOST_MAX; i++) {
		struct lost *l = &lost[i];
		struct rt_thread *td = __atomic_load_n(&l->td, __ATOMIC_SEQ_CST);

		if (!td || l->token != c->token)
			continue;
		__atomic_store_n(&td->fd[l->idx], l->fd, __ATOMIC_SEQ_CST);
		__atomic_store_n(&owner[l->fd], (uintptr_t)td | (uintptr_t)(l->idx + 1),
				 __ATOMIC_SEQ_CST);
		__atomic_store_n(&l->td, NULL, __ATOMIC_SEQ_CST);
		__atomic_sub_fetch(&lost_pending, 1, __ATOMIC_SEQ_CST);
	}
}

/* Opens again every event the program closed (invariant 4). */
static void rearm_lost(void)
{
	sigset_t old;
	int i, err;

	if (!__atomic_load_n(&lost_pending, __ATOMIC_SEQ_CST))
		return;
	rt_fd_gate_lock(&old);
	for (i = 0; i < LOST_MAX && __atomic_load_n(&lost_pending, __ATOMIC_SEQ_CST); i++) {
		struct lost *l = &lost[i];

		if (!l->td)
			continue;
		err = arm(l->td, l->idx);
		if (err)
			sampling_stops(l->td, l->idx, err);
		else
			__atomic_add_fetch(&rt_sampling_rearmed, 1, __ATOMIC_RELAXED);
		__atomic_store_n(&l->td, NULL, __ATOMIC_SEQ_CST);
		__atomic_sub_fetch(&lost_pending, 1, __ATOMIC_SEQ_CST);
	}
	rt_fd_gate_unlock(&old);
}

void rt_fd_close_end(struct rt_fd_call *c, int failed)
{
	if (on_fd_thread)
		return;
	if (c->forgot && failed)
		restore(c);
	shared_exit();
	if (!held_shared && !held_excl)
		rearm_lost();
}

void rt_fds_after_fork(struct rt_thread *threads)
{
	struct rt_thread *td;
	unsigned fd;
	int i;

	gate = 0;
	held_excl = 0;
	fdt.lock = 0;		/* the fd thread was not forked (P2) */
	closers = (unsigned)held_shared;
	memset(lost, 0, sizeof(lost));
	lost_pending = 0;
	for (fd = 0; fd < owned_end; fd++)
		owner[fd] = 0;
	for (td = threads; td; td = td->next) {
		for (i = 0; i < rt_cfg.nev; i++) {
			if (td->started[i] && td->fd[i] >= 0) {
				sys_close(td->fd[i]);
				td->fd[i] = -1;
				td->started[i] = 0;
			}
			if (td->ring[i]) {	/* not inherited: nothing mapped */
				td->ring[i] = NULL;
				td->started[i] = 0;
			}
		}
		td->nrings = 0;		/* timers are not inherited either */
	}
	rt_sampling_rearmed = rt_sampling_stopped = 0;
}
