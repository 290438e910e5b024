/*
 * fd-gate.h - hpcrun's fds kept safe from the program (fd-gate.c).
 *
 * Two mechanisms, each with its design note in fd-gate.c:
 *   THE FDS           the fds hpcrun keeps open (the perf events with a
 *                     signal per sample) live high, are named in an owner
 *                     table, and are forgotten before a program call that
 *                     closes them (close, close_range, closefrom, dup2,
 *                     dup3) and re-opened after; the fd gate keeps hpcrun's
 *                     own opens and closes apart from those calls.
 *   THE PRIVATE TABLE the fds hpcrun needs only for a moment (a ring event
 *                     being mapped, a file being written) are opened on
 *                     one of hpcrun's fd threads, in a fd table of its own.
 *   THE WRITER        the handler's file work (a full trace buffer, the
 *                     next chunk of a live file) is posted to one more
 *                     such thread, never waited for.
 *
 * Invariants (fd-gate.c says how each is kept):
 *  1. Every function here but rt_fd_private, rt_fd_post_wait,
 *     rt_fd_thread_start, rt_fd_threads_grow and rt_fd_gate_after_fork
 *     is async-signal-safe.
 *  2. A number is hpcrun's exactly between rt_fd_own and rt_fd_release
 *     (or a program call's rt_fd_close_begin); td->fd[idx] is that number
 *     or -1.
 *  3. hpcrun opens, moves, configures and closes the fds it keeps only
 *     while holding the gate exclusively (rt_fd_gate_lock).
 */
#ifndef HPCRUN_FD_GATE_H
#define HPCRUN_FD_GATE_H

#include <signal.h>
#include <stdint.h>
#include <sys/syscall.h>
#include <unistd.h>

struct rt_thread;

/* close(2) neither interposed nor a cancellation point. */
static inline void rt_sys_close(int fd)
{
	syscall(SYS_close, fd);
}

/* Blocks every signal but the synchronous faults (SIGSEGV, SIGBUS, SIGILL,
 * SIGFPE: they still reach signals.c), the old mask in *old. */
void rt_fd_block_signals(sigset_t *old);

/* Holds the fd gate exclusively (blocking signals as rt_fd_block_signals,
 * the old mask in *old): no program close/dup2 runs until unlock, so a fd
 * hpcrun opens stays its own.  Nests on one thread. */
void rt_fd_gate_lock(sigset_t *old);
void rt_fd_gate_unlock(const sigset_t *old);

/* Around a program call that may close fds lo..hi (close, close_range,
 * closefrom, dup2, dup3): begin holds the gate shared and makes hpcrun
 * forget its fds in the range, returning how many; end (failed: the call
 * closed nothing) gives them back or re-opens their events on new fds. */
struct rt_fd_call {
	unsigned token;
	int forgot;
};
int rt_fd_close_begin(struct rt_fd_call *c, unsigned lo, unsigned hi);
void rt_fd_close_end(struct rt_fd_call *c, int failed);

/* Moves fd above the numbers the program uses (fd-gate.c,
 * invariant 1);
 * the fd to use, or -EMFILE (fd closed).  The gate is held. */
int rt_fd_move_high(int fd);
/* fd becomes td's fd of event idx (fd-gate.c, invariant 2); the
 * gate is held. */
void rt_fd_own(struct rt_thread *td, int idx, int fd);
/* Takes td's fd of event idx back: td->fd[idx] is -1, the owner table
 * forgets it, and td's handler has let go of it (fd-gate.c,
 * invariant 4); the fd
 * for the caller to close, or -1.  The gate is held. */
int rt_fd_release(struct rt_thread *td, int idx);
/* Drops the re-opening pending for td's event idx (the gate is held). */
void rt_fd_drop_lost(struct rt_thread *td, int idx);
/* Waits until the handler of td, another thread, is not running; 0, or
 * -ETIMEDOUT when it gave up after a second. */
int rt_fd_wait_idle(struct rt_thread *td);
/* Events of a thread re-opened after the program closed their fd, and
 * those that could not be (for the log). */
extern uint64_t rt_sampling_rearmed, rt_sampling_stopped;

/* Runs fn(arg) on one of hpcrun's fd threads, whose fd tables are their
 * own, and returns its result: the fds fn opens never take a number in
 * the program's table (fd-gate.c, THE PRIVATE TABLE).  Callers on several
 * threads run at once, one per fd thread. */
int rt_fd_private(int (*fn)(void *), void *arg);
/* A job for the writer (fd-gate.c, THE WRITER), in its poster's memory,
 * zeroed before its first post; fn is set once and runs on the writer,
 * in its private fd table, every signal blocked. */
struct rt_fd_post {
	struct rt_fd_post *next;
	void (*fn)(struct rt_fd_post *p);
	unsigned state;		/* futex word: queued, running */
};
/* Has the writer run p->fn(p) soon, without waiting for it; 0, or
 * -EAGAIN when the process has no writer.  Async-signal-safe. */
int rt_fd_post(struct rt_fd_post *p);
/* Waits until p is neither queued nor running: its memory may go.
 * Outside handlers. */
void rt_fd_post_wait(struct rt_fd_post *p);
/* Makes the process's first fd thread (and its writer) if it has none
 * (outside handlers). */
void rt_fd_thread_start(void);
/* The same, or one more when callers found them all busy: from the
 * program's pthread_create alone (fd-gate.c, P3). */
void rt_fd_threads_grow(void);
/* The fd threads and the writer alive. */
int rt_fd_threads_live(void);
/* Ends the fd threads (each after its job) and the writer (after its
 * queue): callers run their functions themselves (P2), posts fail (W4)
 * until rt_fd_thread_start makes them again.  Only the calling thread
 * may use them meanwhile, its signals blocked (rt_own_pause). */
void rt_fd_threads_stop(void);
/* Fork child: the gate free, no fd owned or waiting to be re-opened, no
 * turn taken on the fd thread (the child makes its own). */
void rt_fd_gate_after_fork(void);

#endif
