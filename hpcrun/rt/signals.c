/*
 * signals.c - every signal hpcrun handles, and the program's calls that
 * set or read actions and masks.  THE TABLE, below this note, has one
 * entry per signal: hpcrun's role in it, what happens next, and what the
 * program set for it.
 *
 * Two kinds of signals, each with its design below: THE SAMPLING SIGNAL,
 * a real-time signal taken so that the program cannot observe it, and
 * THE FATAL SIGNALS, caught so that no profile is lost when one ends the
 * process.  sigaction() and signal() of a signal of either kind go to its
 * part here; sigprocmask() and pthread_sigmask() only ever change the
 * sampling signal's bit (THE SAMPLING SIGNAL, 5).  glibc's System V and
 * BSD calls (sigset, sighold, sigpause, sysv_signal, ...) reach the
 * kernel through its internal sigaction and sigprocmask, past those
 * wrappers: they are made here anew, of the wrappers.  Every other signal is
 * never touched (role OFF): its action and mask calls go straight to libc,
 * but for the mask of a handler on the alternate stack (THE SAMPLING
 * SIGNAL, 9).
 *
 * Handlers run in signal context: async-signal-safe calls only (sample.c's
 * rules apply to what rt_signal_entry reaches).
 *
 * THE SAMPLING SIGNAL.  Every sample and every drain of a ring buffer
 * arrives as one real-time signal, rt_cfg.signo, but those of perf's trap
 * (6).  The program may want that very signal, block it or read its masks
 * back; it must see what it would see without hpcrun.
 *
 *  1. The choice.  At start the highest real-time signal whose action is
 *     the default and which the starting thread does not block (programs
 *     number theirs up from SIGRTMIN).  rt_signal_entry is installed for it.
 *  2. Ours or the program's.  hpcrun's signals are told apart by their
 *     origin, never by their number: its timers carry RT_SIGVAL_TAG in the
 *     high half of their value (SI_TIMER), its perf fds raise theirs
 *     through fasync (si_code POLL_IN..POLL_HUP), perf's trap with the tag
 *     in the high half of its data (TRAP_PERF, 6), and the process's end
 *     queues its park (runtime.c, THE PARK AT EXIT) from its own pid with
 *     the tag in its value (SI_QUEUE).  Every other arrival
 *     (raise, kill, sigqueue, the program's own timers) is the program's and
 *     gets the program's action: its handler (sa_mask and flags as it set
 *     them, SA_RESETHAND emulated), nothing for SIG_IGN, and for the
 *     default action the end of the process (profiles written first).
 *  3. The program's actions.  For every signal hpcrun samples or has
 *     sampled with ("managed"), sigaction() records and reports the
 *     program's action (its entry's act), and the kernel keeps
 *     rt_signal_entry with the program's sa_mask and flags.
 *  4. The move.  When the program claims the sampling signal -- installs a
 *     handler or SIG_IGN for it, or blocks it while leaving some free
 *     real-time signal unblocked (it means to wait for it) -- sampling moves
 *     to another free one (as in 1): every thread's perf fds get the new
 *     F_SETSIG, its timers are made anew, and the old signal stays managed
 *     (2, 3), so the samples already queued on it are still recorded and
 *     the program's own get the program's action.  With no free signal
 *     left the two share the signal (2 keeps them apart).  Each move is
 *     noted in the log.
 *  5. Masks.  The sampling signal is never really blocked by the program:
 *     a request to block it is carried out without it, and the thread
 *     remembers (hidden) that the program believes it blocked.  The old
 *     sets of sigprocmask and pthread_sigmask report the mask as the
 *     program set it; a new thread starts with its creator's hidden bits
 *     (as it starts with its creator's mask).  A signal moved away from
 *     becomes the program's own: a later mask call makes it real, and
 *     until then one of the program's arriving on a thread that hides it is
 *     blocked there (its uc_sigmask) and queued again for the process.
 *  6. Perf's trap.  A perf event with a signal per sample that counts
 *     kernel mode signals through perf's trap (kernel-time.h, invariant
 *     6), whose signal is always SIGTRAP.  Where the kernel has it,
 *     rt_signal_take_trap makes SIGTRAP managed from the start, before the
 *     fatal signals are installed (its act is the program's, 3), and masks
 *     hide it as they hide the sampling signal (5); the program's own
 *     SIGTRAP (a breakpoint, raise, kill) gets the program's action as in
 *     2, the default one ending the process by it after every profile is
 *     written.  It never moves (4): it is the only signal the trap sends.
 *     It and the sampling signal block each other while either is
 *     handled (install), so neither's sample finds the other's handler
 *     as its context; the trap's handler blocks every signal but the
 *     synchronous faults, and restarts a call the program's signal
 *     behind it interrupted as that signal's action says
 *     (restart_as_program).
 *  7. Held.  One of the program's own arrivals of the current sampling
 *     signal on a thread that believes it blocked is held, as the kernel
 *     holds a blocked signal pending: its siginfo goes to the stash
 *     (STASH_MAX of them, oldest first; one more is counted as
 *     foreign-signals), the process's, or the thread's when it was sent
 *     to that thread (SI_TKILL); a timer's that finds one of the same
 *     timer held adds to its overruns; SIG_IGN discards them; sigpending
 *     reports them.  A mask call that unblocks the signal queues the held
 *     ones again to its own thread, which takes them with the program's
 *     action; so does a sigsuspend whose mask unblocks it (the signal is
 *     the program's for the call); a wait (8) takes them first.
 *  8. Waits.  sigwait, sigwaitinfo and sigtimedwait of a set with a
 *     managed signal never return one of hpcrun's, which the kernel's
 *     wait would dequeue as the program's: the wait goes on for what is
 *     left of its time, a park at exit parks there, and a sample or drain
 *     of the waiting thread is dropped (a perf sample stays in its ring).
 *     Such a wait takes a held signal (7) first; while it waits it blocks
 *     the sampling signal on its thread and is listed, so that a signal
 *     held by another thread wakes it (RT_STASH_WAKE), never lost between
 *     its look at the stash and its system call.  signalfd's mask never
 *     has the sampling signal: a read of the fd would dequeue hpcrun's.
 *     The program's sets, masks, timeouts and siginfo are read and
 *     written through the kernel (rt_user_copy): a bad pointer or timeout
 *     gives the errors the program's own call would.
 *  9. The alternate stack.  The kernel never pushes a frame of hpcrun's
 *     signals on the program's alternate signal stack, which the program
 *     sized for its own handlers (an 8 KiB stack holds two frames of
 *     3.4 KiB with AVX-512, and one that does not fit kills the process
 *     with SIGSEGV): every action the program sets with a handler,
 *     SA_ONSTACK and no SA_NODEFER reaches the kernel with the sampling
 *     signal and perf's trap in its sa_mask (onstack_bits), anew when the
 *     sampling signal moves (4).  Its signals wait meanwhile: a sample
 *     in a ring buffer keeps its time and place, one taken by the signal
 *     (timers, --no-stack-copy) is taken when the handler returns.  The
 *     program reads back its own mask with sigaction (the thread's mask,
 *     read in such a handler, has them).  A handler with SA_NODEFER (which
 *     a program sets to leave it by longjmp, keeping the mask it found)
 *     is left as it is.  One left by longjmp without SA_NODEFER keeps the
 *     handler's mask, the sampling signal's bit with it, until the
 *     thread's next mask call; the thread's samples stop meanwhile, which
 *     its end finds (rt_signal_stuck) and the log and stderr tell.
 * Not covered: a held signal reaches no signalfd, nor a ppoll, pselect
 * or epoll_pwait whose mask unblocks it, nor the program after exec,
 * nor a wait beyond the first WAITERS_MAX at once until it wakes;
 * the hidden bits and ignored managed signals do not survive exec; a
 * program's SIGTRAP raised while it believes SIGTRAP blocked leaves it
 * really blocked on that thread, whose trap samples wait until the program
 * unblocks it.
 *
 * THE FATAL SIGNALS (roles FATAL, FAULT and ABORT: every signal whose
 * default action ends the process, but SIGPROF, SIGIO and the real-time
 * ones).  A signal that ends the process unseen loses every profile not
 * written, so:
 *  1. The entry's act is the action the program set (or found at start),
 *     and sigaction reads it back exactly as without hpcrun (glibc's
 *     SA_RESTORER and restorer included) -- unless the kernel holds an
 *     action set behind our back (raw system call), which is then told.
 *  2. The kernel holds: the program's handler or SIG_IGN as it set them
 *     (its handler runs, and is unwound, as without hpcrun; SIG_IGN is
 *     kept across exec); for the default action fatal_handler, which
 *     writes everything and re-raises with the default action, so the
 *     program dies as it would have; for a handler with SA_RESETHAND
 *     fatal_handler with the handler's mask and flags, which resets and
 *     calls it (the kernel's reset would be unseen; samples taken in such
 *     a handler count as nested, its frames being below hpcrun's).
 *  3. So a program that catches a signal and later does signal(s,
 *     SIG_DFL); raise(s) (xz, CPython's KeyboardInterrupt) goes through
 *     fatal_handler, which writes everything before the default action
 *     ends it.  A fault in the unwinder jumps back to the sample
 *     (sample.c) while fatal_handler holds SIGSEGV and SIGBUS
 *     (rt_fault_recovery; without it the unwinder reads no stack of
 *     unknown bounds).
 *  4. One end.  The thread writing the process's end (rt_process_finish)
 *     blocks every signal but its own faults meanwhile, and a fatal
 *     signal that reaches another thread then waits (10 s at most) for the
 *     writing to end before it ends the process: a pool's SIGTERM to a
 *     worker that is exiting never leaves its files cut short.
 *  5. The first one.  A fatal signal with the default action ends the
 *     process as it is sent, natively, and a second one sent right after
 *     finds it gone; here the first is handled, and the second must not
 *     end it instead.  fatal_handler runs with every signal another
 *     process can send blocked (install_fatal), and rt_die_of_signal
 *     keeps them blocked through the writing and the re-raise, the
 *     signal it dies of alone unblocked: the others stay pending until
 *     the process is gone.  A second thread's fatal signal meanwhile
 *     waits for the writing (4), then ends the process by the first
 *     (dying).
 * What no handler sees (SIGKILL, the OOM killer, glibc's internal reset
 * of SIGABRT past a handler that returns in assert) leaves the live files
 * (hpcrun-live.h) for hpcprof to recover.  Not covered (5): a SIGKILL
 * sent right after the first signal ends the process by SIGKILL, the
 * files unwritten; of two fatal signals pending at once, before the
 * process runs again, the kernel delivers the lower-numbered first,
 * which ends it, whichever was sent first; a signal hpcrun leaves alone
 * (OFF, an unmanaged real-time one) ends the process at once, as the
 * kernel's own default action, when it comes before fatal_handler
 * starts or reaches another thread that does not block it.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/signalfd.h>
#include <sys/uio.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "fd-gate.h"
#include "interpose.h"
#include "output.h"
#include "raw-threads.h"
#include "runtime.h"
#include "source.h"

RT_REAL_DEFINE(abort);
RT_REAL_DEFINE(sigaction);
RT_REAL_DEFINE(sigprocmask);
RT_REAL_DEFINE(pthread_sigmask);
RT_REAL_DEFINE(sigtimedwait);
RT_REAL_DEFINE(sigpending);
RT_REAL_DEFINE(sigsuspend);
RT_REAL_DEFINE(signalfd);

int rt_real_sigaction(int sig, const struct sigaction *sa, struct sigaction *old)
{
	return RT_REAL(sigaction)(sig, sa, old);
}

int rt_real_sigmask(int how, const sigset_t *set, sigset_t *old)
{
	int err = errno, ret = 0;
	sigset_t s;

	if (set && how != SIG_UNBLOCK) {
		/* glibc's own signals (SIGCANCEL 32, SIGSETXID 33: bits 31
		 * and 32) stay unblocked, as pthread_sigmask keeps them */
		s = *set;
		((unsigned long *)(void *)&s)[0] &= ~(3UL << 31);
		set = &s;
	}
	if (syscall(SYS_rt_sigprocmask, how, set, old, (size_t)(_NSIG / 8)))
		ret = errno;
	errno = err;
	return ret;
}

/* The kernel's flag glibc adds to every action (x86-64). */
#ifndef SA_RESTORER
#define SA_RESTORER 0x04000000
#endif

/* ---- THE TABLE ---- */

/*
 * The roles: hpcrun's part in an arrival -> what happens next.
 *
 *   REALTIME  nothing until hpcrun samples with it; from then on it is
 *             managed, for good: rt_signal_entry takes every arrival
 *             (THE SAMPLING SIGNAL).  -> hpcrun's own (timer tag, perf
 *             fasync): a sample, a drain of the rings or a hang probe
 *             (sample.c); the program's: its action, the default one
 *             after every profile is written.
 *   FATAL     fatal_handler while the program's action is the default or
 *             has SA_RESETHAND, else nothing: the kernel holds the
 *             program's action (THE FATAL SIGNALS).  -> the default:
 *             every profile written, then the process dies of the signal;
 *             SA_RESETHAND: reset, then the program's handler; any other
 *             action: the program's, as without hpcrun.
 *   FAULT     as FATAL, and while fatal_handler holds it
 *             (rt_fault_recovery) own_fault comes first: a fault of
 *             hpcrun's unwinder -> back to the sample, a partial path
 *             (sample.c); any other -> as FATAL.  Without fatal_handler
 *             the unwinder reads no stack of unknown bounds.
 *   ABORT     as FATAL, and abort() is hpcrun's -> past a handler of the
 *             program that returns, every profile written before glibc's
 *             abort.
 *   OFF       nothing: its action and mask calls go straight to libc ->
 *             the program's and the kernel's alone.
 */
enum sig_role { OFF, REALTIME, FATAL, FAULT, ABORT };

struct sig {
	const enum sig_role role;
	/* REALTIME: hpcrun samples with it now (rt_cfg.signo) or did until
	 * the program claimed it (THE SAMPLING SIGNAL, 4); set once, under
	 * act_lock, read by any thread (atomic). */
	int managed;
	/* The program's action as it reads it back: what it set, or what
	 * hpcrun found (a managed signal's when hpcrun took it, a fatal
	 * one's at rt_init). */
	struct sigaction act;
	/* The bits of hpcrun's signals the kernel's sa_mask has for the
	 * program's action and the program's own mask has not (9); under
	 * act_lock. */
	uint64_t onstack;
};

/*
 * THE TABLE: every signal's role, then its state.  (The masks the program
 * believes it set are per thread: hidden, THE SAMPLING SIGNAL, 5.)
 */
static struct sig sigs[_NSIG] = {
	[SIGHUP]    = { FATAL },
	[SIGINT]    = { FATAL },
	[SIGQUIT]   = { FATAL },
	[SIGILL]    = { FATAL },
	[SIGTRAP]   = { FATAL },	/* managed for perf's trap, where the
				 * kernel has it (THE SAMPLING SIGNAL, 6) */
	[SIGABRT]   = { ABORT },
	[SIGBUS]    = { FAULT },
	[SIGFPE]    = { FATAL },
	[SIGKILL]   = { OFF },	/* never seen: the live files stay for hpcprof */
	[SIGUSR1]   = { FATAL },
	[SIGSEGV]   = { FAULT },
	[SIGUSR2]   = { FATAL },
	[SIGPIPE]   = { FATAL },	/* but one that a message of hpcrun's raises
				 * never arrives (rt_io_end, runtime.c) */
	[SIGALRM]   = { FATAL },
	[SIGTERM]   = { FATAL },
	[SIGSTKFLT] = { FATAL },
	[SIGCHLD]   = { OFF },	/* default: ignored */
	[SIGCONT]   = { OFF },	/* default: continues */
	[SIGSTOP]   = { OFF },	/* never seen: stops */
	[SIGTSTP]   = { OFF },	/* default: stops */
	[SIGTTIN]   = { OFF },	/* default: stops */
	[SIGTTOU]   = { OFF },	/* default: stops */
	[SIGURG]    = { OFF },	/* default: ignored */
	[SIGXCPU]   = { FATAL },
	[SIGXFSZ]   = { FATAL },	/* but one that hpcrun's own writes raise
				 * never arrives (rt_io_end, runtime.c) */
	[SIGVTALRM] = { FATAL },
	[SIGPROF]   = { OFF },	/* a profiler of the program's own */
	[SIGWINCH]  = { OFF },	/* default: ignored */
	[SIGIO]     = { OFF },	/* its default ends the process unseen: the
				 * live files stay for hpcprof */
	[SIGPWR]    = { FATAL },
	[SIGSYS]    = { FATAL },
	/* the kernel's real-time signals; those below SIGRTMIN (34) are
	 * glibc's own, never chosen (THE SAMPLING SIGNAL, 1) */
	[32 ... 64] = { REALTIME },
};

/* Is act the default action?  As the kernel reads it: whatever the
 * flags (SA_SIGINFO and SA_RESETHAND stay past the reset to SIG_DFL). */
static int is_default(const struct sigaction *act)
{
	return act->sa_handler == SIG_DFL;
}

/* Is act SIG_IGN (the kernel's reading, as is_default)? */
static int is_ignore(const struct sigaction *act)
{
	return act->sa_handler == SIG_IGN;
}

/* ---- THE SAMPLING SIGNAL ---- */

/* Signals this thread's program believes blocked but are not (5). */
static __thread uint64_t hidden __attribute__((tls_model("initial-exec")));
/* Serializes sigaction and moves; made anew in a fork's child, whose
 * other threads are gone.  Taken with act_take. */
static pthread_mutex_t act_lock = PTHREAD_MUTEX_INITIALIZER;
/* The mask of the thread holding act_lock before act_take (pick_free's). */
static sigset_t act_mask;

/* Takes act_lock, the thread's signals held off meanwhile but its
 * synchronous faults (old: its mask before): a handler of the program's
 * that calls sigaction (as System V's handlers set themselves again)
 * never runs on a thread that holds it, to wait for itself. */
static void act_take(sigset_t *old)
{
	rt_block_async(old);
	pthread_mutex_lock(&act_lock);
	act_mask = *old;
}

static void act_give(const sigset_t *old)
{
	pthread_mutex_unlock(&act_lock);
	rt_real_sigmask(SIG_SETMASK, old, NULL);
}
static int shared_noted;

#define BIT(sig) (1ULL << ((sig) - 1))

/* A real-time signal with the default action that the calling thread does
 * not block (mask, or its own mask when NULL) and that was never
 * hpcrun's, highest first; 0 when none.  skip: signals the caller is
 * about to block. */
static int pick_free(const sigset_t *mask_in, const sigset_t *skip)
{
	sigset_t mask;
	int s;

	if (mask_in)
		mask = *mask_in;
	else if (rt_real_sigmask(SIG_BLOCK, NULL, &mask))
		return 0;
	for (s = SIGRTMAX; s >= SIGRTMIN; s--) {
		struct sigaction cur;

		if (sigs[s].role != REALTIME || sigs[s].managed ||
		    sigismember(&mask, s) || (skip && sigismember(skip, s)))
			continue;
		if (!rt_real_sigaction(s, NULL, &cur) && is_default(&cur))
			return s;
	}
	return 0;
}

static int is_managed(int sig);
static int is_fatal(int sig);
static void reinstall_onstack(void);
static void stash_release(void);
static void stash_discard(int sig);

/* Some action of the program's got onstack_bits (9) since the start. */
static int onstack_seen;

/* The bits of hpcrun's signals that the kernel's sa_mask of act, the
 * program's action for sig, gets (9): the sampling signal's and perf's
 * trap's but sig's own and those act's mask has, for a handler on the
 * alternate stack without SA_NODEFER; none before sampling starts. */
static uint64_t onstack_bits(int sig, const struct sigaction *act)
{
	int cur = __atomic_load_n(&rt_cfg.signo, __ATOMIC_SEQ_CST);
	uint64_t bits = 0;

	if ((act->sa_flags & (SA_ONSTACK | SA_NODEFER)) != SA_ONSTACK ||
	    is_default(act) || is_ignore(act))
		return 0;
	if (cur > 0 && cur != sig && !sigismember(&act->sa_mask, cur))
		bits |= BIT(cur);
	if (is_managed(SIGTRAP) && sig != SIGTRAP &&
	    !sigismember(&act->sa_mask, SIGTRAP))
		bits |= BIT(SIGTRAP);
	if (bits)
		__atomic_store_n(&onstack_seen, 1, __ATOMIC_RELAXED);
	return bits;
}

/* Adds bits (onstack_bits) to set. */
static void add_bits(sigset_t *set, uint64_t bits)
{
	int s;

	for (s = 1; s < _NSIG && s <= 64; s++)
		if (bits & BIT(s))
			sigaddset(set, s);
}

/* Takes bits (onstack_bits) out of set. */
static void del_bits(sigset_t *set, uint64_t bits)
{
	int s;

	for (s = 1; s < _NSIG && s <= 64; s++)
		if (bits & BIT(s))
			sigdelset(set, s);
}

/* Puts rt_signal_entry in the kernel for managed signal sig, with the
 * program's mask and flags (no SA_RESETHAND: emulated); a signal that still
 * carries samples restarts the program's system calls.  The sampling
 * signal and perf's trap (6) block each other while one is handled: both
 * can be pending at one return to user mode (a CPU timer's sample and a
 * context switch's), and the one delivered second would otherwise run
 * first, its context the other's handler, its sample lost as hpcrun's. */
static int install(int sig)
{
	const struct sigaction *p = &sigs[sig].act;
	struct sigaction k;

	memset(&k, 0, sizeof(k));
	k.sa_sigaction = rt_signal_entry;
	k.sa_mask = p->sa_mask;
	sigs[sig].onstack = onstack_bits(sig, p);
	add_bits(&k.sa_mask, sigs[sig].onstack);
	k.sa_flags = (p->sa_flags & (SA_ONSTACK | SA_NODEFER | SA_RESTART)) |
		     SA_SIGINFO;
	if (sig == rt_cfg.signo) {
		k.sa_flags |= SA_RESTART;
		if (is_managed(SIGTRAP))
			sigaddset(&k.sa_mask, SIGTRAP);
	}
	if (sig == SIGTRAP && rt_cfg.signo > 0) {
		/* (6): every signal but the synchronous faults waits for the
		 * trap's handler, which restarts a call as the program's
		 * signal behind it would (restart_as_program) */
		static const int faults[] = { SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGSYS };
		size_t i;

		sigfillset(&k.sa_mask);
		for (i = 0; i < sizeof(faults) / sizeof(faults[0]); i++)
			sigdelset(&k.sa_mask, faults[i]);
		k.sa_flags |= SA_RESTART;
	}
	return rt_real_sigaction(sig, &k, NULL);
}

/* Makes sig managed, its current action the program's. */
static int manage(int sig)
{
	if (rt_real_sigaction(sig, NULL, &sigs[sig].act))
		return -1;
	__atomic_store_n(&sigs[sig].managed, 1, __ATOMIC_RELAXED);
	return install(sig);
}

int rt_signal_take(void)
{
	int sig = pick_free(NULL, NULL);

	if (!sig)
		return -1;
	rt_cfg.signo = sig;
	return manage(sig);
}

int rt_signal_take_trap(void)
{
	if (manage(SIGTRAP))
		return -1;
	install(rt_cfg.signo);		/* masking SIGTRAP now */
	return 0;
}

static void resignal(struct rt_thread *td)
{
	rt_perf_resignal(td);
	rt_timer_resignal(td);
}

/* Moves sampling off the current signal (4); act_lock held.  why: what
 * the program did, for the log. */
static void move(const sigset_t *skip, const char *why)
{
	int from = rt_cfg.signo, to = pick_free(&act_mask, skip);
	char msg[160];

	if (!to || manage(to)) {
		if (!shared_noted++) {
			snprintf(msg, sizeof(msg), "the program %s signal %d and no other "
				 "real-time signal is free: hpcrun shares it", why, from);
			rt_note(msg);
		}
		return;
	}
	__atomic_store_n(&rt_cfg.signo, to, __ATOMIC_SEQ_CST);
	install(from);		/* the program's flags from now on */
	install(to);		/* the sampling signal's */
	if (is_managed(SIGTRAP))
		install(SIGTRAP);	/* masking the new one */
	reinstall_onstack();
	rt_threads_apply(resignal);
	snprintf(msg, sizeof(msg), "the program %s signal %d: hpcrun samples with "
		 "signal %d from now on", why, from, to);
	rt_note(msg);
}

/* Is sig one hpcrun samples with, or did (3)? */
static int is_managed(int sig)
{
	return sig > 0 && sig < _NSIG && __atomic_load_n(&sigs[sig].managed, __ATOMIC_RELAXED);
}

/* sigaction() of a managed signal (3, 4). */
static int managed_sigaction(int sig, const struct sigaction *sa,
			     struct sigaction *old)
{
	struct sigaction *act = &sigs[sig].act, prev, now;
	sigset_t blocked;
	int err = errno;	/* a success leaves it as it was */

	act_take(&blocked);
	prev = *act;
	if (sa) {
		*act = *sa;
		act->sa_flags &= ~SA_RESTORER;
		if (sig == rt_cfg.signo && rt_active && !is_default(sa))
			move(NULL, "installed an action for");
		if (is_ignore(sa))
			stash_discard(sig);	/* (7) */
		install(sig);
		/* read back as without hpcrun: with glibc's restorer */
		if (!rt_real_sigaction(sig, NULL, &now) && (now.sa_flags & SA_RESTORER)) {
			act->sa_flags |= SA_RESTORER;
			act->sa_restorer = now.sa_restorer;
		}
	}
	act_give(&blocked);
	if (old)
		*old = prev;
	errno = err;
	return 0;
}

/* 1 when set blocks every real-time signal. */
static int blocks_all_rt(const sigset_t *set)
{
	int s;

	for (s = SIGRTMIN; s <= SIGRTMAX; s++)
		if (!sigismember(set, s))
			return 0;
	return 1;
}

/* sigprocmask / pthread_sigmask (fn, the real one) as the program sees
 * it (5). */
static int program_mask(int (*fn)(int, const sigset_t *, sigset_t *), int how,
			const sigset_t *set, sigset_t *old)
{
	uint64_t before = hidden, after = hidden, bit;
	int cur = __atomic_load_n(&rt_cfg.signo, __ATOMIC_SEQ_CST), s, r;
	const sigset_t *req = set;
	sigset_t copy;

	if (!cur || !set || (how != SIG_BLOCK && how != SIG_UNBLOCK && how != SIG_SETMASK))
		goto call;
	if (how != SIG_UNBLOCK && sigismember(set, cur) && rt_active &&
	    !blocks_all_rt(set)) {
		/* the program means to have it blocked: it is its own (4) */
		sigset_t blocked;

		act_take(&blocked);
		if (cur == rt_cfg.signo)
			move(set, "blocked");
		act_give(&blocked);
		cur = __atomic_load_n(&rt_cfg.signo, __ATOMIC_SEQ_CST);
	}
	for (s = 1; s < _NSIG; s++) {
		int ours = s == cur || (s == SIGTRAP && is_managed(SIGTRAP));

		bit = BIT(s);
		if (!ours && !(before & bit))
			continue;
		if (how == SIG_SETMASK || sigismember(set, s))
			after &= ~bit;		/* said explicitly: real from now */
		if (ours && how != SIG_UNBLOCK && sigismember(set, s)) {
			after |= bit;		/* never really blocked */
			if (req != &copy) {	/* one attempt per call */
				copy = *set;
				rt_count_blocked_signal();
			}
			sigdelset(&copy, s);
			req = &copy;
		}
	}
call:
	r = fn(how, req, old);
	if (r)
		return r;
	hidden = after;
	if (old)
		for (s = 1; s < _NSIG; s++)
			if (before & BIT(s))
				sigaddset(old, s);
	if (cur && (before & BIT(cur)) && !(after & BIT(cur)))
		stash_release();
	return 0;
}

uint64_t rt_signal_hidden(void)
{
	return hidden;
}

/* A thread's SigBlk and SigPnd, asked for by tid (on a fd thread). */
struct stuck_job {
	pid_t tid;
	unsigned long long blk, pnd;
};

static int read_stuck(void *p)
{
	struct stuck_job *j = p;
	char buf[4096], *b, *q;
	ssize_t n = rt_task_read(j->tid, "status", buf, sizeof(buf));

	if (n <= 0)
		return n < 0 ? (int)n : -EIO;
	if (!(b = strstr(buf, "\nSigBlk:")) || !(q = strstr(buf, "\nSigPnd:")))
		return -EIO;
	j->blk = strtoull(b + 8, NULL, 16);
	j->pnd = strtoull(q + 8, NULL, 16);
	return 0;
}

int rt_signal_stuck_other(pid_t tid)
{
	int cur = __atomic_load_n(&rt_cfg.signo, __ATOMIC_SEQ_CST);
	struct stuck_job j = { tid, 0, 0 };

	return cur > 0 && __atomic_load_n(&onstack_seen, __ATOMIC_RELAXED) &&
	       !rt_fd_private(read_stuck, &j) &&
	       (j.blk & j.pnd & BIT(cur));
}

int rt_signal_stuck(void)
{
	int cur = __atomic_load_n(&rt_cfg.signo, __ATOMIC_SEQ_CST);
	sigset_t now;

	return cur > 0 && !(hidden & BIT(cur)) &&
	       !rt_real_sigmask(SIG_BLOCK, NULL, &now) && sigismember(&now, cur);
}

void rt_signal_inherit(uint64_t bits)
{
	hidden = bits;
}

#ifndef TRAP_PERF
#define TRAP_PERF 6
#endif

uint64_t rt_signal_trap_data(const siginfo_t *si)
{
	/* the kernel's _sigfault._perf._data, after si_addr (x86-64) */
	uint64_t data;

	memcpy(&data, (const char *)&si->si_addr + sizeof(void *), sizeof(data));
	return data;
}

/* Only hpcrun's timers, perf fds, perf's trap and its end's park send
 * these (2, 6). */
int rt_signal_is_own(const siginfo_t *si)
{
	if (si->si_signo == SIGTRAP)
		return si->si_code == TRAP_PERF &&
		       rt_signal_trap_data(si) >> 32 == RT_SIGVAL_TAG;
	if (si->si_code == SI_TIMER || (si->si_code == SI_QUEUE && si->si_pid == rt_pid))
		return ((uintptr_t)si->si_value.sival_ptr >> 32) == RT_SIGVAL_TAG;
	return si->si_code >= POLL_IN && si->si_code <= POLL_HUP;
}

/*
 * The stash of held signals (7): a slot is claimed (FREE -> BUSY), filled
 * and published (FULL) with its order; the oldest FULL one a thread may
 * take is taken back to BUSY, copied and freed.  Any thread, in a handler
 * or not.  A signal sent to one thread (SI_TKILL: raise, pthread_kill)
 * is that thread's alone, as the kernel keeps it pending for that thread;
 * one of a timer the program made, while one of the same timer is held,
 * adds to that one's overruns, as the kernel counts them.
 */
#define STASH_MAX 1024
enum { STASH_FREE, STASH_BUSY, STASH_FULL };
static struct held {
	unsigned state;
	pid_t tid;			/* the thread it was sent to, or 0 */
	uint64_t order;
	siginfo_t si;
} stash[STASH_MAX];
static uint64_t stash_order;
/* Threads in a wait of the sampling signal (8), 0 where none. */
#define WAITERS_MAX 16
static pid_t waiters[WAITERS_MAX];
/* Held since the start, and taken by a wait or an unblock. */
static uint64_t held, held_taken;

static pid_t self_tid(void)
{
	return (pid_t)syscall(SYS_gettid);
}

/* Queues sig with value RT_STASH_WAKE or si itself to thread tid. */
static void queue_to(pid_t tid, int sig, const siginfo_t *si)
{
	siginfo_t wake;

	if (!si) {
		memset(&wake, 0, sizeof(wake));
		wake.si_signo = sig;
		wake.si_code = SI_QUEUE;
		wake.si_pid = rt_pid;
		wake.si_uid = getuid();
		wake.si_value.sival_ptr = (void *)(((uintptr_t)RT_SIGVAL_TAG << 32) |
						   (uint32_t)RT_STASH_WAKE);
		si = &wake;
	}
	syscall(SYS_rt_tgsigqueueinfo, rt_pid, tid, sig, si);
}

/* Slot i, FULL, taken to BUSY; 0 when another thread took it first. */
static int slot_claim(int i)
{
	unsigned full = STASH_FULL;

	return __atomic_compare_exchange_n(&stash[i].state, &full, STASH_BUSY, 0,
					   __ATOMIC_ACQUIRE, __ATOMIC_RELAXED);
}

/* A timer's signal while one of the same timer is held: its overruns. */
static int timer_coalesce(const siginfo_t *si)
{
	int i;

	if (si->si_code != SI_TIMER)
		return 0;
	for (i = 0; i < STASH_MAX; i++)
		if (__atomic_load_n(&stash[i].state, __ATOMIC_ACQUIRE) == STASH_FULL &&
		    stash[i].si.si_code == SI_TIMER &&
		    stash[i].si.si_signo == si->si_signo &&
		    stash[i].si.si_timerid == si->si_timerid && slot_claim(i)) {
			stash[i].si.si_overrun += 1 + si->si_overrun;
			__atomic_store_n(&stash[i].state, STASH_FULL, __ATOMIC_RELEASE);
			return 1;
		}
	return 0;
}

static void stash_put(const siginfo_t *si)
{
	unsigned free_ = STASH_FREE;
	pid_t tid = si->si_code == SI_TKILL ? self_tid() : 0;
	int i;

	if (timer_coalesce(si))
		return;
	for (i = 0; i < STASH_MAX; i++)
		if (__atomic_compare_exchange_n(&stash[i].state, &free_, STASH_BUSY, 0,
						__ATOMIC_ACQUIRE, __ATOMIC_RELAXED))
			break;
		else
			free_ = STASH_FREE;
	if (i == STASH_MAX) {
		if (rt_self)
			rt_self->counts.dropped_foreign++;
		return;
	}
	__atomic_add_fetch(&held, 1, __ATOMIC_RELAXED);
	stash[i].si = *si;
	stash[i].tid = tid;
	stash[i].order = __atomic_add_fetch(&stash_order, 1, __ATOMIC_RELAXED);
	__atomic_store_n(&stash[i].state, STASH_FULL, __ATOMIC_RELEASE);
	for (i = 0; i < WAITERS_MAX; i++) {
		pid_t w = __atomic_load_n(&waiters[i], __ATOMIC_ACQUIRE);

		if (w && (!tid || w == tid))
			queue_to(w, si->si_signo, NULL);
	}
}

/* Takes into *si the oldest held signal that thread tid may take (the
 * process's, or its own); 0 when none. */
static int stash_take(siginfo_t *si, pid_t tid)
{
	for (;;) {
		uint64_t best = UINT64_MAX;
		int i, at = -1;

		for (i = 0; i < STASH_MAX; i++)
			if (__atomic_load_n(&stash[i].state, __ATOMIC_ACQUIRE) == STASH_FULL &&
			    stash[i].order < best &&
			    (!stash[i].tid || stash[i].tid == tid)) {
				best = stash[i].order;
				at = i;
			}
		if (at < 0)
			return 0;
		if (!slot_claim(at))
			continue;	/* taken by another thread: look again */
		*si = stash[at].si;
		__atomic_store_n(&stash[at].state, STASH_FREE, __ATOMIC_RELEASE);
		__atomic_add_fetch(&held_taken, 1, __ATOMIC_RELAXED);
		return 1;
	}
}

/* The program ignores sig: what is held of it goes, as the kernel
 * discards a pending signal whose action becomes SIG_IGN. */
static void stash_discard(int sig)
{
	int i;

	for (i = 0; i < STASH_MAX; i++)
		if (__atomic_load_n(&stash[i].state, __ATOMIC_ACQUIRE) == STASH_FULL &&
		    stash[i].si.si_signo == sig && slot_claim(i)) {
			__atomic_store_n(&stash[i].state, STASH_FREE, __ATOMIC_RELEASE);
			__atomic_add_fetch(&held_taken, 1, __ATOMIC_RELAXED);
		}
}

void rt_signal_held(uint64_t *all, uint64_t *left)
{
	*all = __atomic_load_n(&held, __ATOMIC_RELAXED);
	*left = *all - __atomic_load_n(&held_taken, __ATOMIC_RELAXED);
}

void rt_signal_after_fork(void)
{
	pthread_mutex_t fresh = PTHREAD_MUTEX_INITIALIZER;

	/* a child starts with no signal pending, nor waits */
	memset(stash, 0, sizeof(stash));
	memset(waiters, 0, sizeof(waiters));
	held = held_taken = 0;
	act_lock = fresh;
}

/* The calling thread unblocked the sampling signal (7): every held
 * signal is queued to it, under its own number (the sampling signal's
 * when held, or a signal since moved from, 4). */
static void stash_release(void)
{
	siginfo_t si;
	pid_t self = self_tid();

	while (stash_take(&si, self))
		queue_to(self, si.si_signo, &si);
}

/* One of the program's own signals reached rt_signal_entry (2, 5). */
static void program_signal(int sig, siginfo_t *si, ucontext_t *uc)
{
	struct sigaction act = sigs[sig].act;

	if (hidden & BIT(sig)) {
		if (sig == rt_cfg.signo) {
			stash_put(si);
			return;
		}
		/* blocked here as the program asked, pending again for the
		 * process (queued to itself, its siginfo kept) */
		hidden &= ~BIT(sig);
		sigaddset(&uc->uc_sigmask, sig);
		syscall(SYS_rt_sigqueueinfo, getpid(), sig, si);
		return;
	}
	if (is_ignore(&act))
		return;
	if (is_default(&act)) {
		/* a real-time signal's default action ends the process */
		rt_die_of_signal(sig);
		return;
	}
	if (act.sa_flags & SA_RESETHAND)
		sigs[sig].act.sa_handler = SIG_DFL;	/* flags kept */
	if (sig == SIGTRAP) {
		/* the kernel's mask is perf's trap's (install): the program's
		 * action's instead */
		sigset_t m = uc->uc_sigmask;

		sigorset(&m, &m, &act.sa_mask);
		if (!(act.sa_flags & SA_NODEFER))
			sigaddset(&m, SIGTRAP);
		if (rt_cfg.signo > 0)
			sigaddset(&m, rt_cfg.signo);
		rt_real_sigmask(SIG_SETMASK, &m, NULL);
	}
	if (act.sa_flags & SA_SIGINFO)
		act.sa_sigaction(sig, si, uc);
	else
		act.sa_handler(sig);
}

/* Will a signal of the program's pending for this thread (blocked while
 * the trap's handler runs, install), not blocked in the context
 * interrupted (uc), run a handler without SA_RESTART? */
static int pending_interrupts(const ucontext_t *uc)
{
	int cur = __atomic_load_n(&rt_cfg.signo, __ATOMIC_SEQ_CST), s;
	struct sigaction act;
	sigset_t pend;

	if (syscall(SYS_rt_sigpending, &pend, (size_t)(_NSIG / 8)))
		return 0;
	for (s = 1; s < _NSIG; s++) {
		if (!sigismember(&pend, s) || sigismember(&uc->uc_sigmask, s) ||
		    s == SIGTRAP || s == cur)
			continue;
		if (is_managed(s) || is_fatal(s))
			act = sigs[s].act;	/* the program's (3, FATAL 1) */
		else if (rt_real_sigaction(s, NULL, &act))
			continue;
		if (!is_default(&act) && !is_ignore(&act) &&
		    !(act.sa_flags & SA_RESTART))
			return 1;
	}
	return 0;
}

/*
 * Perf's trap arrives as its thread returns to user mode after running
 * again (6), with any signal of the program's that woke it from a
 * blocking call: SIGTRAP comes first, so its action's flags decide
 * whether the kernel restarts the call, and the program's signal waits
 * (install).  Its action has SA_RESTART; when the call was restarted (the
 * context at a syscall instruction, rax its number) and the program's
 * signal, delivered once this handler returns, runs a handler without
 * SA_RESTART, the call ends with EINTR here, as the program's action
 * would have ended it.
 */
static void restart_as_program(ucontext_t *uc)
{
	greg_t *g = uc->uc_mcontext.gregs;
	unsigned char insn[2];

	/* the pending signals first: one system call, and in most traps
	 * none is pending, so the code is not read */
	if (!pending_interrupts(uc) ||
	    rt_user_copy(insn, (const void *)(uintptr_t)g[REG_RIP], 2, 0) ||
	    insn[0] != 0x0f || insn[1] != 0x05)
		return;
	g[REG_RAX] = -EINTR;
	g[REG_RIP] += 2;
}

void rt_signal_entry(int sig, siginfo_t *si, void *uc)
{
	if (rt_signal_is_own(si)) {
		if (sig == SIGTRAP && rt_active)	/* none once sealed */
			restart_as_program(uc);
		rt_sample_handler(sig, si, uc);
	} else {
		program_signal(sig, si, uc);
	}
}

/* ---- THE FATAL SIGNALS ---- */

static void fatal_handler(int sig, siginfo_t *si, void *uc);

/* Is sig's role FATAL, FAULT or ABORT? */
static int is_fatal(int sig)
{
	return sig > 0 && sig < _NSIG && sigs[sig].role >= FATAL;
}

/*
 * Gives the kernel the program's action act for the fatal signal sig
 * (THE FATAL SIGNALS, 2): SIG_IGN and the program's handlers as they are;
 * the default action as fatal_handler; a handler with SA_RESETHAND (whose
 * reset the kernel would do unseen) as fatal_handler with its mask and
 * flags, which resets and calls it.  A handler's mask gets onstack_bits
 * (THE SAMPLING SIGNAL, 9).
 */
static int install_fatal(int sig, const struct sigaction *act)
{
	struct sigaction k;

	sigs[sig].onstack = onstack_bits(sig, act);
	if (!is_default(act) && !(act->sa_flags & SA_RESETHAND)) {
		k = *act;
		add_bits(&k.sa_mask, sigs[sig].onstack);
		return rt_real_sigaction(sig, &k, NULL);
	}
	memset(&k, 0, sizeof(k));
	k.sa_sigaction = fatal_handler;
	if (is_default(act)) {
		/* (5): every other signal of another process's waits, from
		 * the handler's first instruction on; NODEFER, the faults
		 * outside it: hpcrun's own fault in the unwinder while one
		 * is handled still jumps back (own_fault). */
		k.sa_flags = SA_SIGINFO | SA_ONSTACK | SA_NODEFER;
		rt_async_set(&k.sa_mask);
	} else {
		k.sa_flags = (act->sa_flags & ~SA_RESETHAND) | SA_SIGINFO;
		k.sa_mask = act->sa_mask;
		add_bits(&k.sa_mask, sigs[sig].onstack);
	}
	return rt_real_sigaction(sig, &k, NULL);
}

/*
 * A fault of hpcrun's unwinder (THE FATAL SIGNALS, 3): the sample being
 * taken ends there as a partial path (sample.c, unwind_guarded), never
 * returning here.  Any other arrival of sig returns: the program's.
 */
static void own_fault(int sig, const ucontext_t *uc)
{
	if (sigs[sig].role == FAULT && rt_self && rt_self->in_unwind) {
		/* the mask of the fault's place: the handler's (the
		 * program's, or fatal_handler's with every other signal in
		 * it) would stay past the jump */
		rt_real_sigmask(SIG_SETMASK, &uc->uc_sigmask, NULL);
		siglongjmp(rt_self->unwind_jmp, 1);
	}
}

/* The kernel's handler of the fatal signals it does not leave to the
 * program's own handler (THE FATAL SIGNALS, 2). */
static void fatal_handler(int sig, siginfo_t *si, void *uc)
{
	struct sigaction act, dfl;

	own_fault(sig, uc);
	act = sigs[sig].act;
	if (is_ignore(&act))
		return;		/* set while this signal was on its way */
	if (!is_default(&act)) {
		if (act.sa_flags & SA_RESETHAND) {
			/* SA_RESETHAND, done here: as the kernel's, the
			 * handler alone */
			dfl = act;
			dfl.sa_handler = SIG_DFL;
			sigs[sig].act = dfl;
			install_fatal(sig, &dfl);
		}
		if (act.sa_flags & SA_SIGINFO)
			act.sa_sigaction(sig, si, uc);
		else
			act.sa_handler(sig);
		return;
	}
	rt_die_of_signal(sig);
}

/* The first signal that is ending the process (THE FATAL SIGNALS, 5),
 * or 0. */
static int dying;

void rt_die_of_signal(int sig)
{
	struct sigaction dfl;
	sigset_t set;
	char why[32] = "signal ";
	int first = 0;

	rt_block_async(&set);
	if (!__atomic_compare_exchange_n(&dying, &first, sig, 0, __ATOMIC_SEQ_CST,
					 __ATOMIC_SEQ_CST))
		sig = first;
	rt_fmt_u64(why + 7, (uint64_t)sig, 10, 0);
	rt_process_finish(why, 1);
	rt_process_finish_wait();
	memset(&dfl, 0, sizeof(dfl));
	dfl.sa_handler = SIG_DFL;
	rt_real_sigaction(sig, &dfl, NULL);
	syscall(SYS_tgkill, getpid(), syscall(SYS_gettid), sig);
	sigemptyset(&set);
	sigaddset(&set, sig);
	rt_real_sigmask(SIG_UNBLOCK, &set, NULL);
}

int rt_fault_recovery(void)
{
	struct sigaction segv, bus;

	/* Asked of the kernel: the program may have replaced ours through
	 * a raw system call. */
	return !rt_real_sigaction(SIGSEGV, NULL, &segv) &&
	       !rt_real_sigaction(SIGBUS, NULL, &bus) &&
	       (segv.sa_flags & SA_SIGINFO) && segv.sa_sigaction == fatal_handler &&
	       (bus.sa_flags & SA_SIGINFO) && bus.sa_sigaction == fatal_handler;
}

void rt_install_fatal_handlers(void)
{
	int sig;

	for (sig = 1; sig < _NSIG; sig++)
		if (is_fatal(sig) && !is_managed(sig) &&
		    !rt_real_sigaction(sig, NULL, &sigs[sig].act) &&
		    is_default(&sigs[sig].act))
			install_fatal(sig, &sigs[sig].act);
}

void rt_release_fatal_handlers(void)
{
	int sig;

	for (sig = 1; sig < _NSIG; sig++)
		if (is_fatal(sig) && !is_managed(sig))
			rt_real_sigaction(sig, &sigs[sig].act, NULL);
}

/*
 * sigaction() of a fatal signal (THE FATAL SIGNALS): the program's action
 * goes into its entry and to the kernel through install_fatal; old
 * reports what the program set before.
 */
static int fatal_sigaction(int sig, const struct sigaction *sa,
			   struct sigaction *old)
{
	struct sigaction *act = &sigs[sig].act, cur;
	sigset_t blocked;

	act_take(&blocked);
	if (RT_REAL(sigaction)(sig, NULL, &cur)) {
		act_give(&blocked);
		return -1;
	}
	if (cur.sa_sigaction == fatal_handler || cur.sa_sigaction == act->sa_sigaction)
		cur = *act;		/* else set behind our back */
	if (sa) {
		struct sigaction now;
		int r;

		*act = *sa;
		r = install_fatal(sig, sa);
		if (r) {
			act_give(&blocked);
			return r;
		}
		/* as glibc hands it to the kernel, so that it reads back as
		 * it would without hpcrun */
		if (!RT_REAL(sigaction)(sig, NULL, &now)) {
			act->sa_flags |= now.sa_flags & SA_RESTORER;
			act->sa_restorer = now.sa_restorer;
		}
	}
	act_give(&blocked);
	if (old)
		*old = cur;
	return 0;
}

/*
 * sigaction() of any other signal: as the program asks, but for a
 * handler's mask (THE SAMPLING SIGNAL, 9), which old reports as the
 * program set it.
 */
static int plain_sigaction(int sig, const struct sigaction *sa,
			   struct sigaction *old)
{
	struct sigaction k;
	sigset_t blocked;
	uint64_t prev;
	int r;

	if (sig <= 0 || sig >= _NSIG)
		return RT_REAL(sigaction)(sig, sa, old);
	act_take(&blocked);
	prev = sigs[sig].onstack;
	if (sa) {
		k = *sa;
		add_bits(&k.sa_mask, onstack_bits(sig, sa));
	}
	r = RT_REAL(sigaction)(sig, sa ? &k : NULL, old);
	if (!r && sa)
		sigs[sig].onstack = onstack_bits(sig, sa);
	act_give(&blocked);
	if (!r && old)
		del_bits(&old->sa_mask, prev);
	return r;
}

/* The program's actions with hpcrun's bits in their masks (9), given
 * the kernel anew for the sampling signal now (a move, 4); under
 * act_lock. */
static void reinstall_onstack(void)
{
	struct sigaction cur;
	int s;

	for (s = 1; s < _NSIG; s++) {
		if (is_managed(s) || s == SIGKILL || s == SIGSTOP)
			continue;	/* install() gave theirs */
		if (is_fatal(s) && rt_active) {
			if (!RT_REAL(sigaction)(s, NULL, &cur) &&
			    cur.sa_sigaction == sigs[s].act.sa_sigaction &&
			    (sigs[s].onstack || onstack_bits(s, &sigs[s].act)))
				install_fatal(s, &sigs[s].act);
			continue;
		}
		if (RT_REAL(sigaction)(s, NULL, &cur))
			continue;
		del_bits(&cur.sa_mask, sigs[s].onstack);
		if (!sigs[s].onstack && !onstack_bits(s, &cur))
			continue;
		sigs[s].onstack = onstack_bits(s, &cur);
		add_bits(&cur.sa_mask, sigs[s].onstack);
		RT_REAL(sigaction)(s, &cur, NULL);
	}
}

/* ---- the program's calls ---- */

/* The program's structs are read and written here, outside act_lock: a
 * fault on a bad pointer runs the program's handler as natively (it may
 * leave by siglongjmp), with nothing of hpcrun's held. */
RT_API int sigaction(int sig, const struct sigaction *sa, struct sigaction *old)
{
	struct sigaction in, out;
	int r;

	if (sa)
		in = *sa;
	if (is_managed(sig))
		r = managed_sigaction(sig, sa ? &in : NULL, old ? &out : NULL);
	else if (rt_active && is_fatal(sig))
		r = fatal_sigaction(sig, sa ? &in : NULL, old ? &out : NULL);
	else
		r = plain_sigaction(sig, sa ? &in : NULL, old ? &out : NULL);
	if (!r && old)
		*old = out;
	return r;
}

/*
 * glibc's older calls on actions and masks (System V's, BSD's) call its
 * internal sigaction, sigprocmask and sigsuspend, which no wrapper sees:
 * each is made here, as glibc 2.36 makes it, of the wrappers above.
 */

/* The signals siginterrupt() said a handler of signal() interrupts
 * system calls of (glibc's _sigintr); bit s - 1 for signal s. */
static uint64_t sigintr;

/* A handler (or SIG_DFL, SIG_IGN) for sig with flags, sig itself in its
 * mask when self: the old handler, or SIG_ERR and errno. */
static __sighandler_t set_handler(int sig, __sighandler_t handler, int flags,
				  int self)
{
	struct sigaction sa, old;

	if (handler == SIG_ERR || sig < 1 || sig >= _NSIG) {
		errno = EINVAL;
		return SIG_ERR;
	}
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = handler;
	sa.sa_flags = flags;
	sigemptyset(&sa.sa_mask);
	if (self && sigaddset(&sa.sa_mask, sig))
		return SIG_ERR;		/* glibc's own (EINVAL) */
	if (sigaction(sig, &sa, &old))
		return SIG_ERR;
	return old.sa_handler;
}

/* BSD's: the handler stays, sig blocked while it runs, calls restarted
 * (but after siginterrupt(sig, 1)). */
RT_API __sighandler_t signal(int sig, __sighandler_t handler)
{
	int restart = sig < 1 || sig > 64 ||
		      !(__atomic_load_n(&sigintr, __ATOMIC_RELAXED) & BIT(sig));

	return set_handler(sig, handler, restart ? SA_RESTART : 0, 1);
}

/* glibc's aliases of signal() (bsd_signal is X/Open's, before 2008). */
RT_API __sighandler_t bsd_signal(int sig, __sighandler_t handler);
RT_API __sighandler_t bsd_signal(int sig, __sighandler_t handler)
{
	return signal(sig, handler);
}

RT_API __sighandler_t ssignal(int sig, __sighandler_t handler)
{
	return signal(sig, handler);
}

/* System V's, signal() of a program built for strict ISO C or X/Open:
 * reset to SIG_DFL as the handler starts, sig not blocked in it, calls
 * interrupted. */
RT_API __sighandler_t sysv_signal(int sig, __sighandler_t handler)
{
	return set_handler(sig, handler, SA_RESETHAND | SA_NODEFER, 0);
}

RT_API __sighandler_t __sysv_signal(int sig, __sighandler_t handler)
{
	return sysv_signal(sig, handler);
}

/* Clears SA_RESTART of sig's action (interrupt) or sets it, and tells a
 * later signal() so. */
RT_API int siginterrupt(int sig, int interrupt)
{
	struct sigaction act;

	if (sigaction(sig, NULL, &act) < 0)
		return -1;
	if (interrupt) {
		__atomic_or_fetch(&sigintr, BIT(sig), __ATOMIC_RELAXED);
		act.sa_flags &= ~SA_RESTART;
	} else {
		__atomic_and_fetch(&sigintr, ~BIT(sig), __ATOMIC_RELAXED);
		act.sa_flags |= SA_RESTART;
	}
	return sigaction(sig, &act, NULL) < 0 ? -1 : 0;
}

/* System V's: disp, and sig unblocked; or with SIG_HOLD sig blocked.
 * The old disposition: SIG_HOLD when sig was blocked. */
RT_API __sighandler_t sigset(int sig, __sighandler_t disp)
{
	struct sigaction sa, old;
	sigset_t set, oset;

	sigemptyset(&set);
	if (sigaddset(&set, sig) < 0)
		return SIG_ERR;
	if (disp == SIG_HOLD) {
		if (sigprocmask(SIG_BLOCK, &set, &oset) < 0)
			return SIG_ERR;
		if (sigismember(&oset, sig))
			return SIG_HOLD;
		if (sigaction(sig, NULL, &old) < 0)
			return SIG_ERR;
		return old.sa_handler;
	}
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = disp;
	sigemptyset(&sa.sa_mask);
	if (sigaction(sig, &sa, &old) < 0 ||
	    sigprocmask(SIG_UNBLOCK, &set, &oset) < 0)
		return SIG_ERR;
	return sigismember(&oset, sig) ? SIG_HOLD : old.sa_handler;
}

/* sig added to (how SIG_BLOCK) or taken from the thread's mask. */
static int mask_one(int how, int sig)
{
	sigset_t set;

	sigemptyset(&set);
	if (sigaddset(&set, sig) < 0)
		return -1;
	return sigprocmask(how, &set, NULL);
}

RT_API int sighold(int sig)
{
	return mask_one(SIG_BLOCK, sig);
}

RT_API int sigrelse(int sig)
{
	return mask_one(SIG_UNBLOCK, sig);
}

RT_API int sigignore(int sig)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = SIG_IGN;
	sigemptyset(&sa.sa_mask);
	return sigaction(sig, &sa, NULL);
}

/* BSD's masks: signals 1 to 32, bit s - 1 for signal s. */
static void bsd_mask_set(sigset_t *set, int mask)
{
	sigemptyset(set);
	((unsigned long *)(void *)set)[0] = (unsigned int)mask;
}

static int bsd_mask_get(const sigset_t *set)
{
	return (int)(unsigned int)((const unsigned long *)(const void *)set)[0];
}

/* sigsuspend with the thread's mask less sig (is_sig, X/Open's), or
 * with the BSD mask sig_or_mask. */
RT_API int __sigpause(int sig_or_mask, int is_sig);
RT_API int __sigpause(int sig_or_mask, int is_sig)
{
	sigset_t set;

	if (is_sig) {
		if (sigprocmask(SIG_BLOCK, NULL, &set) < 0 ||
		    sigdelset(&set, sig_or_mask) < 0)
			return -1;
	} else {
		bsd_mask_set(&set, sig_or_mask);
	}
	return sigsuspend(&set);
}

/* BSD's mask calls: the old mask. */
static int bsd_mask(int how, int mask)
{
	sigset_t set, old;

	bsd_mask_set(&set, mask);
	sigprocmask(how, &set, &old);	/* cannot fail */
	return bsd_mask_get(&old);
}

RT_API int sigblock(int mask)
{
	return bsd_mask(SIG_BLOCK, mask);
}

RT_API int sigsetmask(int mask)
{
	return bsd_mask(SIG_SETMASK, mask);
}

RT_API int siggetmask(void)
{
	return bsd_mask(SIG_BLOCK, 0);
}

/* What a program's sigpause(sig) calls (signal.h's redirection). */
RT_API int __xpg_sigpause(int sig);
RT_API int __xpg_sigpause(int sig)
{
	return __sigpause(sig, 1);
}

/* The symbol sigpause itself, BSD's, of a mask: signal.h names
 * __xpg_sigpause sigpause. */
RT_API int bsd_sigpause(int mask) __asm__("sigpause");
RT_API int bsd_sigpause(int mask)
{
	return __sigpause(mask, 0);
}

RT_API int sigprocmask(int how, const sigset_t *set, sigset_t *old)
{
	return program_mask(RT_REAL(sigprocmask), how, set, old);
}

RT_API int pthread_sigmask(int how, const sigset_t *set, sigset_t *old)
{
	return program_mask(RT_REAL(pthread_sigmask), how, set, old);
}

int rt_user_copy(void *to, const void *from, size_t n, int write_user)
{
	struct iovec mine = { write_user ? (void *)from : to, n };
	struct iovec theirs = { write_user ? to : (void *)from, n };

	/* getpid(), not rt_pid: a child of a clone that ran no fork
	 * handler has its parent's */
	return syscall(write_user ? SYS_process_vm_writev : SYS_process_vm_readv,
		       getpid(), &mine, 1UL, &theirs, 1UL, 0UL) == (long)n ? 0 : -1;
}

#define NS_PER_S 1000000000ull

/*
 * The program's waits for signals (THE SAMPLING SIGNAL, 8).  sigtimedwait
 * with timeout NULL waits for ever; each returns as the real call, the
 * signal's number or -1 and errno (EFAULT and EINVAL as the kernel says).
 */
/* A signal of set numbered below cur already pending, taken into si, as
 * the kernel's wait takes the lowest first, before a held cur (7); 0
 * when none (errno kept). */
static int take_lower(const sigset_t *set, int cur, siginfo_t *si)
{
	struct timespec zero = { 0, 0 };
	sigset_t low = *set;
	int s, r, err = errno;

	for (s = cur; s < _NSIG; s++)
		sigdelset(&low, s);
	for (;;) {
		r = RT_REAL(sigtimedwait)(&low, si, &zero);
		if (r <= 0 || !rt_signal_is_own(si))
			break;
		if (si->si_code == SI_QUEUE && si->si_value.sival_int == RT_EXIT_PARK)
			rt_exit_park(rt_self);
	}
	errno = err;
	return r > 0 ? r : 0;
}

static int program_wait(const sigset_t *uset, siginfo_t *info,
			const struct timespec *utimeout)
{
	int cur = __atomic_load_n(&rt_cfg.signo, __ATOMIC_SEQ_CST), s, r, slot = -1;
	uint64_t end = 0, now;
	struct timespec left, timeout;
	siginfo_t si;
	sigset_t one, mask, set;
	pid_t self = 0, none = 0;

	if (!rt_active || rt_user_copy(&set, uset, sizeof(set), 0))
		return RT_REAL(sigtimedwait)(uset, info, utimeout);
	for (s = 1; s < _NSIG; s++)
		if (is_managed(s) && sigismember(&set, s))
			break;
	if (s == _NSIG)
		return RT_REAL(sigtimedwait)(uset, info, utimeout);
	if (utimeout) {
		if (rt_user_copy(&timeout, utimeout, sizeof(timeout), 0) ||
		    timeout.tv_sec < 0 || timeout.tv_nsec < 0 ||
		    (uint64_t)timeout.tv_nsec >= NS_PER_S)
			return RT_REAL(sigtimedwait)(uset, info, utimeout);
		now = rt_clock_ns(CLOCK_MONOTONIC);
		if ((uint64_t)timeout.tv_sec >= (UINT64_MAX - now) / NS_PER_S - 1)
			utimeout = NULL;	/* beyond any wait */
		else
			end = now + (uint64_t)timeout.tv_sec * NS_PER_S +
			      (uint64_t)timeout.tv_nsec;
	}
	if (cur && sigismember(&set, cur)) {
		/* blocked before the look at the stash: a wake (stash_put)
		 * stays pending for the call below */
		sigemptyset(&one);
		sigaddset(&one, cur);
		rt_real_sigmask(SIG_BLOCK, &one, &mask);
		self = self_tid();
		for (slot = 0; slot < WAITERS_MAX; slot++, none = 0)
			if (__atomic_compare_exchange_n(&waiters[slot], &none, self, 0,
							__ATOMIC_SEQ_CST, __ATOMIC_RELAXED))
				break;
	}
	for (;;) {
		if (self && (r = take_lower(&set, cur, &si)) > 0)
			break;
		if (self && stash_take(&si, self)) {
			r = si.si_signo;
			break;
		}
		if (utimeout) {
			now = rt_clock_ns(CLOCK_MONOTONIC);
			now = now < end ? end - now : 0;
			left.tv_sec = (time_t)(now / NS_PER_S);
			left.tv_nsec = (long)(now % NS_PER_S);
		}
		r = RT_REAL(sigtimedwait)(&set, &si, utimeout ? &left : NULL);
		if (r < 0 || !rt_signal_is_own(&si))
			break;
		if (si.si_code == SI_QUEUE && si.si_value.sival_int == RT_EXIT_PARK)
			rt_exit_park(rt_self);
	}
	s = errno;
	if (self) {
		if (slot < WAITERS_MAX)
			__atomic_store_n(&waiters[slot], 0, __ATOMIC_SEQ_CST);
		rt_real_sigmask(SIG_SETMASK, &mask, NULL);
	}
	if (r > 0 && info && rt_user_copy(info, &si, sizeof(si), 1)) {
		r = -1;		/* taken, as the kernel's failed copy out */
		s = EFAULT;
	}
	errno = s;
	return r;
}

RT_API int sigtimedwait(const sigset_t *set, siginfo_t *info,
			const struct timespec *timeout)
{
	return program_wait(set, info, timeout);
}

RT_API int sigwaitinfo(const sigset_t *set, siginfo_t *info)
{
	return program_wait(set, info, NULL);
}

/* As glibc's: an interrupted wait waits again; the error, not errno. */
RT_API int sigwait(const sigset_t *set, int *sig)
{
	int err = errno, r;

	do
		r = program_wait(set, NULL, NULL);
	while (r < 0 && errno == EINTR);
	if (r < 0) {
		r = errno;
		errno = err;
		return r;
	}
	*sig = r;
	errno = err;
	return 0;
}

/*
 * sigsuspend with a mask that unblocks the sampling signal the program
 * believes blocked: it is the program's for the call (hidden off), and
 * what is held for the thread is queued to it (the signal really blocked
 * meanwhile), so the call takes it with the program's action at once,
 * as it would have taken it pending (THE SAMPLING SIGNAL, 7).  The mask
 * the kernel gets never blocks the sampling signal (5).
 */
RT_API int sigsuspend(const sigset_t *umask)
{
	int cur = __atomic_load_n(&rt_cfg.signo, __ATOMIC_SEQ_CST), r, err;
	uint64_t before = hidden;
	sigset_t mask, one, old;
	siginfo_t si;
	pid_t self;

	if (!rt_active || !cur || rt_user_copy(&mask, umask, sizeof(mask), 0))
		return RT_REAL(sigsuspend)(umask);
	if (sigismember(&mask, cur)) {
		sigdelset(&mask, cur);
		hidden |= BIT(cur);
		r = RT_REAL(sigsuspend)(&mask);
	} else {
		sigemptyset(&one);
		sigaddset(&one, cur);
		rt_real_sigmask(SIG_BLOCK, &one, &old);
		self = self_tid();
		while (stash_take(&si, self))
			queue_to(self, si.si_signo, &si);
		hidden &= ~BIT(cur);
		r = RT_REAL(sigsuspend)(&mask);	/* unblocks, then waits */
		err = errno;
		rt_real_sigmask(SIG_SETMASK, &old, NULL);
		errno = err;
	}
	hidden = before;
	return r;
}

/* A held signal is pending for the process (THE SAMPLING SIGNAL, 7):
 * for the thread it was sent to, when it was sent to one. */
RT_API int sigpending(sigset_t *set)
{
	sigset_t pend;
	pid_t self = self_tid();
	int r = RT_REAL(sigpending)(&pend), i;

	if (r)
		return r;
	for (i = 0; i < STASH_MAX; i++)
		if (__atomic_load_n(&stash[i].state, __ATOMIC_ACQUIRE) == STASH_FULL &&
		    (!stash[i].tid || stash[i].tid == self))
			sigaddset(&pend, stash[i].si.si_signo);
	if (rt_user_copy(set, &pend, sizeof(pend), 1)) {
		errno = EFAULT;
		return -1;
	}
	return 0;
}

/* The sampling signal never in the fd's mask (THE SAMPLING SIGNAL, 8):
 * the kernel reads the program's mask first (EFAULT as its own call). */
RT_API int signalfd(int fd, const sigset_t *umask, int flags)
{
	int cur = __atomic_load_n(&rt_cfg.signo, __ATOMIC_SEQ_CST);
	sigset_t m;

	if (!rt_active || !cur || rt_user_copy(&m, umask, sizeof(m), 0) ||
	    !sigismember(&m, cur))
		return RT_REAL(signalfd)(fd, umask, flags);
	sigdelset(&m, cur);
	return RT_REAL(signalfd)(fd, &m, flags);
}

/*
 * abort() raises SIGABRT; when a handler of the program returns, glibc
 * resets SIGABRT to the default action with its internal sigaction (which
 * takes fatal_handler away) and raises it again.  So abort is done here:
 * the first raise reaches the program's handler through fatal_handler
 * (or, with the default action, ends the process there, written); past a
 * handler that returned, everything is written, SIGABRT is reset to the
 * default, as glibc's second stage does, and glibc's abort raises it
 * once more: the program's handler runs once, as without hpcrun.
 */
RT_API void abort(void)
{
	struct sigaction dfl;
	sigset_t set;

	if (rt_active) {
		sigemptyset(&set);
		sigaddset(&set, SIGABRT);
		rt_real_sigmask(SIG_UNBLOCK, &set, NULL);
		raise(SIGABRT);
		rt_process_finish("signal 6", 0);
		memset(&dfl, 0, sizeof(dfl));
		dfl.sa_handler = SIG_DFL;
		rt_real_sigaction(SIGABRT, &dfl, NULL);
	}
	RT_REAL(abort)();
}
