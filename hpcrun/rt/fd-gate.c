/*
 * fd-gate.c - hpcrun's fds kept safe from the program: the fd gate, the
 * owner table of the perf fds, and the private fd table of the fd thread.
 *
 * THE FDS.  A perf fd is the only fd hpcrun keeps open while the program
 * runs, and programs close fds they did not open (daemons close every fd
 * above 2; a dup2 lands on a number).  A closed number is soon reused by the
 * program's next open(), so touching "our" number after that would touch
 * the program's file.  Invariants:
 *  1. Our fds live high: moved with F_DUPFD_CLOEXEC to fd_base() or above
 *     (above a soft RLIMIT_NOFILE of 2048 or less, else 1024 or 3/4 of
 *     the limit: fd_base) before anything else is
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
 *     atomics, and sleeping on futex words (futex.h), never spinning: the
 *     gate's holders sleep on closers, the program's calls on opened
 *     while the gate is held.  Only rt_fd_wait_idle yields in a loop,
 *     for a handler (a few microseconds, and it cannot wake anyone).
 * Not seen: fds closed with a raw system call (syscall(SYS_close, ...)).
 * A program call that never returns to us (a signal handler that
 * siglongjmps out of close) would hold the gate shared for ever: after
 * waiting a second, rt_fd_gate_lock says so on stderr and stops waiting
 * for program calls (degraded to invariants 1, 2 and 4).
 *
 * THE PRIVATE TABLE.  A fd hpcrun opens takes the lowest free number of
 * the fd table it is opened in.  Opened in the program's table, even for a
 * moment (a ring event between perf_event_open and its close, a file being
 * written), it is a number the program's open() on another thread cannot
 * have at that moment: the program gets another number than it would
 * without hpcrun, and with a low RLIMIT_NOFILE, EMFILE (a ring event is
 * opened at each thread start).  So such fds are opened
 * in a table of their own: rt_fd_private runs a function on one of
 * hpcrun's fd threads, each of which shares everything with the process
 * but its fd table (unshare(CLONE_FILES), the copy of the program's fds
 * closed at once).
 *  P1. Only what needs no fd afterwards runs there: the mapping of a ring
 *      event and the files hpcrun writes (opened, written, closed).  A fd
 *      that must stay open in the program's table (a perf event with a
 *      signal per sample, read in the handler) is opened there and moved
 *      high at once (invariant 1).
 *  P2. An fd thread blocks every signal and is never sampled.  The first
 *      is made when a source first starts in each process
 *      (rt_fd_thread_start; a fork child makes its own), never in a
 *      handler; where it cannot be made the function runs on the caller,
 *      its fds in the program's table, under the gate.
 *  P3. Each fd thread runs one caller's job at a time (its turn, taken
 *      with a compare-and-swap); a caller that finds every one busy sleeps
 *      until a turn ends, and the process's next pthread_create makes
 *      one more, up to FDT_MAX: threads that begin and end at once
 *      (writing their profiles) do not queue behind one thread.  A caller
 *      whose own turn a signal interrupted runs its function itself.
 *      Made there, by the program's thread that makes one of its own:
 *      pthread_create allocates (the new thread's TLS), so that thread's
 *      malloc arena is one it would have anyway.  A thread that never
 *      allocates natively (a compute worker) made it before, and its
 *      first allocation reserved a glibc arena of 64 MiB of address space
 *      that the program lost under RLIMIT_AS.
 *  P4. The fd threads never take the gate (the caller may hold it), and
 *      their close() calls, of their own fds, bypass the bookkeeping of
 *      invariant 4: the program's calls cannot reach their tables.
 *
 * THE WRITER.  The sampling handler needs files too (a thread's full
 * trace buffer written out, its tree's next live-file chunk mapped) but
 * may neither wait for a turn nor open a fd in the program's table.  So
 * it posts a job (rt_fd_post) to the writer, one more thread with a table
 * of its own (as P2, made with the first fd thread), and goes on.
 *  W1. Posting is a compare-and-swap onto a stack and a futex wake: no
 *      lock, no allocation, no wait; the job is the caller's memory.  A
 *      job posted again before it runs runs once; one posted while it
 *      runs runs again after.
 *  W2. The writer takes the whole stack at once (an exchange, so no ABA)
 *      and runs its jobs oldest first, one at a time, with every signal
 *      blocked; a job's fn sees everything its poster stored before it.
 *  W3. A job's memory stays alive until rt_fd_post_wait(job) has returned
 *      (outside handlers): the writer no longer holds it.
 *  W4. No writer (it could not be made, a fork child before its first
 *      source starts, or ended by rt_fd_threads_stop after its queue
 *      until rt_fd_thread_start makes it again): rt_fd_post fails and the
 *      caller does without.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "fd-gate.h"
#include "output.h"
#include "futex.h"
#include "runtime.h"
#include "source.h"

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

/* The fd gate (invariant 3): gate is an rt_lock (futex.h) among hpcrun's
 * holders; closers counts the program calls in progress, on which a
 * holder sleeps; program calls sleep on opened (bumped at each unlock),
 * waiting ones counted in shut_out. */
static unsigned gate, closers, gate_degraded, opened, shut_out;
static __thread int held_shared __attribute__((tls_model("initial-exec")));
static __thread int held_excl __attribute__((tls_model("initial-exec")));

/* The fd threads (THE PRIVATE TABLE); their closes are of their own
 * tables. */
static __thread int on_fd_thread __attribute__((tls_model("initial-exec")));
#define FDT_MAX 4
static struct fdt {
	pid_t turn;		/* the thread whose job it runs, or 0 */
	unsigned req, done;	/* futex words: jobs asked and done */
	unsigned ready;		/* futex word: 1 serving, 2 failed */
	int (*fn)(void *);
	void *arg;
	int result;
} fdts[FDT_MAX];
static struct {
	pid_t pid;		/* the process they serve; 0: none yet */
	pid_t broken;		/* the first could not be made in this process */
	unsigned n;		/* fdts[0..n) serve */
	unsigned freed;		/* futex word: bumped at the end of each turn */
	unsigned sleepers;	/* callers asleep on freed */
	unsigned crowded;	/* a caller found every fd thread busy */
	unsigned making;	/* one caller at a time makes one */
} pool;

/* The writer (THE WRITER): posted jobs, newest first; seq is bumped at
 * each post. */
enum { POST_QUEUED = 1, POST_RUNNING = 2 };
static struct {
	pid_t pid;		/* the process it serves; 0: none */
	struct rt_fd_post *head;
	unsigned seq;		/* futex word */
	unsigned ready;		/* futex word: 1 serving, 2 failed */
	unsigned stop;		/* leave once the queue is empty */
	unsigned live;		/* it runs */
} writer;

/* The calling hpcrun thread leaves the program's fd table for one of its
 * own, every signal blocked (P2); 0 or -1. */
static int private_table(void)
{
	sigset_t all;

	on_fd_thread = 1;
	sigfillset(&all);
	rt_real_sigmask(SIG_SETMASK, &all, NULL);
	if (syscall(SYS_unshare, CLONE_FILES) ||
	    syscall(SYS_close_range, 0U, ~0U, 0))
		return -1;
	return 0;
}

static void *writer_thread(void *arg)
{
	struct rt_fd_post *p, *next, *fifo;
	unsigned seq;

	(void)arg;
	if (private_table()) {
		__atomic_store_n(&writer.ready, 2, __ATOMIC_SEQ_CST);
		rt_futex_wake(&writer.ready, 1);
		return NULL;
	}
	__atomic_store_n(&writer.ready, 1, __ATOMIC_SEQ_CST);
	rt_futex_wake(&writer.ready, 1);
	for (;;) {
		seq = __atomic_load_n(&writer.seq, __ATOMIC_SEQ_CST);
		p = __atomic_exchange_n(&writer.head, NULL, __ATOMIC_SEQ_CST);
		if (!p) {
			if (__atomic_load_n(&writer.stop, __ATOMIC_SEQ_CST))
				break;		/* its queue empty (rt_fd_threads_stop) */
			rt_futex_wait(&writer.seq, seq, 0);
			continue;
		}
		for (fifo = NULL; p; p = next) {	/* oldest first (W2) */
			next = p->next;
			p->next = fifo;
			fifo = p;
		}
		for (p = fifo; p; p = next) {
			/* next is read before a poster may push p again (W1) */
			next = p->next;
			__atomic_store_n(&p->state, POST_RUNNING, __ATOMIC_SEQ_CST);
			p->fn(p);
			__atomic_and_fetch(&p->state, ~(unsigned)POST_RUNNING,
					   __ATOMIC_SEQ_CST);
			rt_futex_wake(&p->state, INT_MAX);
		}
	}
	return NULL;
}

/* Makes the process's writer and waits until it serves (W4 otherwise). */
static void writer_make(void)
{
	unsigned r;

	writer.head = NULL;
	writer.ready = writer.stop = 0;
	if (rt_own_thread(writer_thread, NULL, 65536))
		return;
	while (!(r = __atomic_load_n(&writer.ready, __ATOMIC_SEQ_CST)))
		rt_futex_wait(&writer.ready, 0, 0);
	if (r == 1) {
		writer.live = 1;
		__atomic_store_n(&writer.pid, rt_pid, __ATOMIC_SEQ_CST);
	}
}

int rt_fd_post(struct rt_fd_post *p)
{
	struct rt_fd_post *head;

	if (__atomic_load_n(&writer.pid, __ATOMIC_SEQ_CST) != rt_pid)
		return -EAGAIN;
	if (__atomic_fetch_or(&p->state, POST_QUEUED, __ATOMIC_SEQ_CST) & POST_QUEUED)
		return 0;
	head = __atomic_load_n(&writer.head, __ATOMIC_SEQ_CST);
	do
		p->next = head;
	while (!__atomic_compare_exchange_n(&writer.head, &head, p, 1,
					    __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST));
	__atomic_add_fetch(&writer.seq, 1, __ATOMIC_SEQ_CST);
	rt_futex_wake(&writer.seq, 1);
	return 0;
}

void rt_fd_post_wait(struct rt_fd_post *p)
{
	unsigned s;

	if (__atomic_load_n(&writer.pid, __ATOMIC_SEQ_CST) != rt_pid) {
		/* a fork child: the parent's writer is not here */
		__atomic_store_n(&p->state, 0, __ATOMIC_SEQ_CST);
		return;
	}
	while ((s = __atomic_load_n(&p->state, __ATOMIC_SEQ_CST)))
		rt_futex_wait(&p->state, s, 0);
}

static void *fd_thread(void *p)
{
	struct fdt *f = p;
	unsigned seen = 0, r;

	if (private_table()) {
		__atomic_store_n(&f->ready, 2, __ATOMIC_SEQ_CST);
		rt_futex_wake(&f->ready, 1);
		return NULL;
	}
	__atomic_store_n(&f->ready, 1, __ATOMIC_SEQ_CST);
	rt_futex_wake(&f->ready, 1);
	for (;;) {
		while ((r = __atomic_load_n(&f->req, __ATOMIC_SEQ_CST)) == seen)
			rt_futex_wait(&f->req, seen, 0);
		if (!f->fn)
			break;		/* rt_fd_threads_stop */
		f->result = f->fn(f->arg);
		seen = r;
		__atomic_store_n(&f->done, r, __ATOMIC_SEQ_CST);
		rt_futex_wake(&f->done, 1);
	}
	return NULL;
}

/* Makes fd thread fdts[i] and waits until it serves; 0 or -1. */
static int fd_thread_make(unsigned i)
{
	struct fdt *f = &fdts[i];
	unsigned r;

	memset(f, 0, sizeof(*f));	/* a fork child's counts start over */
	if (rt_own_thread(fd_thread, f, 65536))
		return -1;
	while (!(r = __atomic_load_n(&f->ready, __ATOMIC_SEQ_CST)))
		rt_futex_wait(&f->ready, 0, 0);
	return r == 1 ? 0 : -1;
}

/* The first fd thread in each process; with grow, one more when callers
 * had to wait for a turn (P3), up to FDT_MAX. */
static void fd_threads_make(int grow)
{
	int first = __atomic_load_n(&pool.pid, __ATOMIC_SEQ_CST) != rt_pid;
	unsigned n = first ? 0 : __atomic_load_n(&pool.n, __ATOMIC_SEQ_CST);

	if (pool.broken == rt_pid || n >= FDT_MAX ||
	    (!first && (!grow || !__atomic_load_n(&pool.crowded, __ATOMIC_RELAXED))) ||
	    __atomic_exchange_n(&pool.making, 1, __ATOMIC_SEQ_CST))
		return;
	if (first && __atomic_load_n(&pool.pid, __ATOMIC_SEQ_CST) != rt_pid) {
		pool.n = pool.crowded = 0;
		if (fd_thread_make(0)) {
			pool.broken = rt_pid;
		} else {
			pool.n = 1;
			__atomic_store_n(&pool.pid, rt_pid, __ATOMIC_SEQ_CST);
			writer_make();
		}
	} else if (!first && !fd_thread_make(n)) {
		__atomic_store_n(&pool.crowded, 0, __ATOMIC_RELAXED);
		__atomic_store_n(&pool.n, n + 1, __ATOMIC_SEQ_CST);
	}
	__atomic_store_n(&pool.making, 0, __ATOMIC_SEQ_CST);
}

void rt_fd_thread_start(void)
{
	fd_threads_make(0);
}

void rt_fd_threads_grow(void)
{
	fd_threads_make(1);
}

int rt_fd_threads_live(void)
{
	if (__atomic_load_n(&pool.pid, __ATOMIC_SEQ_CST) != rt_pid)
		return 0;
	return (int)__atomic_load_n(&pool.n, __ATOMIC_SEQ_CST) +
		(int)writer.live;
}

void rt_fd_threads_stop(void)
{
	unsigned i, n = (unsigned)rt_fd_threads_live() - writer.live;

	if (__atomic_load_n(&pool.pid, __ATOMIC_SEQ_CST) != rt_pid)
		return;
	/* no new turn nor post from here on: no job can be in progress, the
	 * only caller being this thread */
	__atomic_store_n(&pool.pid, 0, __ATOMIC_SEQ_CST);
	__atomic_store_n(&writer.pid, 0, __ATOMIC_SEQ_CST);
	for (i = 0; i < n; i++) {
		fdts[i].fn = NULL;
		__atomic_add_fetch(&fdts[i].req, 1, __ATOMIC_SEQ_CST);
		rt_futex_wake(&fdts[i].req, 1);
	}
	pool.n = 0;
	if (writer.live) {
		writer.live = 0;
		__atomic_store_n(&writer.stop, 1, __ATOMIC_SEQ_CST);
		__atomic_add_fetch(&writer.seq, 1, __ATOMIC_SEQ_CST);
		rt_futex_wake(&writer.seq, 1);
	}
}

/* fn(arg) on the caller, its fds in the program's table: under the gate
 * (P2). */
static int run_here(int (*fn)(void *), void *arg)
{
	sigset_t old;
	int result;

	rt_fd_gate_lock(&old);
	result = fn(arg);
	rt_fd_gate_unlock(&old);
	return result;
}

int rt_fd_private(int (*fn)(void *), void *arg)
{
	pid_t self = (pid_t)syscall(SYS_gettid);
	unsigned n = 0, i, k, seq, r;
	struct fdt *f;
	int result;

	if (on_fd_thread)
		return fn(arg);		/* its table is private already */
	if (__atomic_load_n(&pool.pid, __ATOMIC_SEQ_CST) == rt_pid)
		n = __atomic_load_n(&pool.n, __ATOMIC_SEQ_CST);
	if (!n)
		return run_here(fn, arg);
	for (i = 0; i < n; i++)
		if (__atomic_load_n(&fdts[i].turn, __ATOMIC_SEQ_CST) == self)
			return fn(arg);		/* a handler of ours interrupted
						 * our own turn (P3) */
	for (;;) {
		seq = __atomic_load_n(&pool.freed, __ATOMIC_SEQ_CST);
		for (k = 0; k < n; k++) {
			pid_t none = 0;

			f = &fdts[((unsigned)self + k) % n];
			if (__atomic_compare_exchange_n(&f->turn, &none, self, 0,
							__ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST))
				goto turn;
		}
		__atomic_store_n(&pool.crowded, 1, __ATOMIC_RELAXED);
		__atomic_add_fetch(&pool.sleepers, 1, __ATOMIC_SEQ_CST);
		rt_futex_wait(&pool.freed, seq, 0);
		__atomic_sub_fetch(&pool.sleepers, 1, __ATOMIC_SEQ_CST);
	}
turn:
	f->fn = fn;
	f->arg = arg;
	r = __atomic_add_fetch(&f->req, 1, __ATOMIC_SEQ_CST);
	rt_futex_wake(&f->req, 1);
	while (__atomic_load_n(&f->done, __ATOMIC_SEQ_CST) != r)
		rt_futex_wait(&f->done, r - 1, 0);
	result = f->result;
	__atomic_store_n(&f->turn, 0, __ATOMIC_SEQ_CST);
	__atomic_add_fetch(&pool.freed, 1, __ATOMIC_SEQ_CST);
	if (__atomic_load_n(&pool.sleepers, __ATOMIC_SEQ_CST))
		rt_futex_wake(&pool.freed, 1);
	return result;
}

/* Wakes a gate holder asleep on closers (after closers went down). */
static void closers_changed(void)
{
	if (__atomic_load_n(&gate, __ATOMIC_SEQ_CST))
		rt_futex_wake(&closers, 1);
}

void rt_fd_block_signals(sigset_t *old)
{
	sigset_t all;

	sigfillset(&all);
	sigdelset(&all, SIGSEGV);	/* faults still reach signals.c */
	sigdelset(&all, SIGBUS);
	sigdelset(&all, SIGILL);
	sigdelset(&all, SIGFPE);
	rt_real_sigmask(SIG_BLOCK, &all, old);
}

void rt_fd_gate_lock(sigset_t *old)
{
	struct timespec t0, t;
	unsigned c;

	rt_fd_block_signals(old);
	if (held_excl++ || on_fd_thread)
		return;		/* the fd thread's table is its own (P4) */
	rt_lock_take(&gate);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	while ((c = __atomic_load_n(&closers, __ATOMIC_SEQ_CST)) > (unsigned)held_shared &&
	       !__atomic_load_n(&gate_degraded, __ATOMIC_RELAXED)) {
		rt_futex_wait(&closers, c, 100000000);
		clock_gettime(CLOCK_MONOTONIC, &t);
		if (t.tv_sec - t0.tv_sec > 1 &&
		    !__atomic_exchange_n(&gate_degraded, 1, __ATOMIC_RELAXED))
			rt_say("warning: a close() of the program has not returned "
			       "for a second; no longer waiting for them", NULL);
	}
}

void rt_fd_gate_unlock(const sigset_t *old)
{
	if (--held_excl == 0 && !on_fd_thread) {
		rt_lock_drop(&gate);
		/* every program call waiting goes on */
		__atomic_add_fetch(&opened, 1, __ATOMIC_SEQ_CST);
		if (__atomic_load_n(&shut_out, __ATOMIC_SEQ_CST))
			rt_futex_wake(&opened, INT_MAX);
	}
	rt_real_sigmask(SIG_SETMASK, old, NULL);
}

static void shared_enter(void)
{
	unsigned seq;

	for (;;) {
		__atomic_add_fetch(&closers, 1, __ATOMIC_SEQ_CST);
		if (held_shared || held_excl || !__atomic_load_n(&gate, __ATOMIC_SEQ_CST))
			break;
		__atomic_sub_fetch(&closers, 1, __ATOMIC_SEQ_CST);
		closers_changed();
		__atomic_add_fetch(&shut_out, 1, __ATOMIC_SEQ_CST);
		seq = __atomic_load_n(&opened, __ATOMIC_SEQ_CST);
		if (__atomic_load_n(&gate, __ATOMIC_SEQ_CST))
			rt_futex_wait(&opened, seq, 0);
		__atomic_sub_fetch(&shut_out, 1, __ATOMIC_SEQ_CST);
	}
	held_shared++;
}

static void shared_exit(void)
{
	held_shared--;
	__atomic_sub_fetch(&closers, 1, __ATOMIC_SEQ_CST);
	closers_changed();
}

/* Where our fds go: above the numbers the program uses (invariant 1).
 * At the soft RLIMIT_NOFILE where the hard one leaves room above it
 * (rt_fd_move_high) and it is at most 2048, as the common 1024 is: no
 * open() of the program's can have those numbers, however full its
 * table.  Else 1024, or 3/4 of a smaller soft limit -- but a program
 * that lowered it below 256 (to 4, say) would find our fd at 3/4 of it,
 * the number its next open() should get: then 1024, or 3/4 of a smaller
 * hard limit, above the soft one. */
static int fd_base(const struct rlimit *rl)
{
	if (rl->rlim_cur >= 256 && rl->rlim_cur <= 2048 &&
	    rl->rlim_max >= rl->rlim_cur + 64)
		return (int)rl->rlim_cur;
	if (rl->rlim_cur > 2048 || (rl->rlim_cur < 256 && rl->rlim_max > 2048))
		return 1024;
	if (rl->rlim_cur >= 256)
		return (int)(rl->rlim_cur - rl->rlim_cur / 4);
	return (int)(rl->rlim_max - rl->rlim_max / 4);
}

/* Moves fd to fd_base() or above; the fd to use, or -EMFILE.  F_DUPFD
 * stays below the soft limit, so a soft limit under the base is lifted
 * for the call and put back (output.h, rt_limit_take: unless the program
 * set it meanwhile). */
int rt_fd_move_high(int fd)
{
	struct rlimit rl;
	int h, base;

	if (getrlimit(RLIMIT_NOFILE, &rl))
		return fd;
	base = fd_base(&rl);
	rt_limit_take(RLIMIT_NOFILE, (rlim_t)base + 1);
	h = fcntl(fd, F_DUPFD_CLOEXEC, base);
	rt_limit_drop(RLIMIT_NOFILE);
	if (h >= 0 && h < RT_FD_MAX) {
		rt_sys_close(fd);
		return h;
	}
	if (h >= 0)
		rt_sys_close(h);
	if (fd < RT_FD_MAX)
		return fd;		/* no room up there: it stays where it is */
	rt_sys_close(fd);
	return -EMFILE;
}

/* Waits until the handler of td, another thread, is not running; 0, or
 * -ETIMEDOUT when it gave up: a handler busy for over a second has crashed
 * (its thread is writing everything out in signals.c's fatal
 * handler) and will not go on. */
int rt_fd_wait_idle(struct rt_thread *td)
{
	struct timespec t0, t;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	while (__atomic_load_n(&td->busy, __ATOMIC_SEQ_CST)) {
		rt_wait_idle_once(td);
		clock_gettime(CLOCK_MONOTONIC, &t);
		if (t.tv_sec - t0.tv_sec > 1)
			return -ETIMEDOUT;
	}
	return 0;
}

/* Takes td's fd of event idx from it: td->fd[idx] is -1 and its handler
 * has let go of the number (invariant 4); the fd, or -1. */
static int take(struct rt_thread *td, int idx)
{
	int fd = __atomic_exchange_n(&td->fd[idx], -1, __ATOMIC_SEQ_CST);

	if (td != rt_self)
		rt_fd_wait_idle(td);
	return fd;
}

void rt_fd_own(struct rt_thread *td, int idx, int fd)
{
	__atomic_store_n(&owner[fd], (uintptr_t)td | (uintptr_t)(idx + 1),
			 __ATOMIC_SEQ_CST);
	if ((unsigned)fd >= __atomic_load_n(&owned_end, __ATOMIC_RELAXED))
		__atomic_store_n(&owned_end, (unsigned)fd + 1, __ATOMIC_SEQ_CST);
	__atomic_store_n(&td->fd[idx], fd, __ATOMIC_SEQ_CST);
}

int rt_fd_release(struct rt_thread *td, int idx)
{
	int fd = take(td, idx);

	if (fd >= 0)
		__atomic_store_n(&owner[fd], 0, __ATOMIC_SEQ_CST);
	return fd;
}

/* Drops the pending losses of td's event idx (gate held). */
void rt_fd_drop_lost(struct rt_thread *td, int idx)
{
	int i;

	for (i = 0; i < LOST_MAX && __atomic_load_n(&lost_pending, __ATOMIC_SEQ_CST); i++)
		if (lost[i].td == td && lost[i].idx == idx) {
			__atomic_store_n(&lost[i].td, NULL, __ATOMIC_SEQ_CST);
			__atomic_sub_fetch(&lost_pending, 1, __ATOMIC_SEQ_CST);
		}
}

/* td's event idx will not be sampled again; said once on stderr. */
static void sampling_stops(const struct rt_thread *td, int idx, int err)
{
	char num[24];

	__atomic_add_fetch(&rt_sampling_stopped, 1, __ATOMIC_RELAXED);
	if (__atomic_exchange_n(&warned_stop, 1, __ATOMIC_RELAXED))
		return;
	rt_fmt_u64(num, (uint64_t)td->index, 10, 0);
	rt_say("warning: the program closed the fd on which hpcrun samples "
	       "thread ", num, " and it could not be opened again (",
	       strerrorname_np(-err) ? strerrorname_np(-err) : "?",
	       "); that thread's '", rt_cfg.ev[idx].metric,
	       "' samples stop there (the log counts such threads)", NULL);
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
		err = rt_perf_arm(l->td, l->idx);
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

void rt_fd_gate_after_fork(void)
{
	unsigned fd;

	gate = shut_out = 0;
	held_excl = 0;
	memset(fdts, 0, sizeof(fdts));	/* the fd threads were not forked (P2) */
	memset(&writer, 0, sizeof(writer));	/* nor the writer (W4) */
	pool.n = pool.sleepers = pool.crowded = pool.making = 0;
	closers = (unsigned)held_shared;
	memset(lost, 0, sizeof(lost));
	lost_pending = 0;
	for (fd = 0; fd < owned_end; fd++)
		owner[fd] = 0;
	rt_sampling_rearmed = rt_sampling_stopped = 0;
}
