/*
 * signals.c - the signal hpcrun samples with, taken so that the
 * program cannot observe it.
 *
 * Every sample and every drain of a ring buffer arrives as one real-time
 * signal, rt_cfg.signo.  The program may want that very signal, block it
 * or read its masks back; it must see what it would see without hpcrun.
 *
 * Design (numbered invariants):
 *  1. The choice.  At start the highest real-time signal whose action is
 *     the default and which the starting thread does not block (programs
 *     number theirs up from SIGRTMIN).  rt_signal_entry is installed for it.
 *  2. Ours or the program's.  hpcrun's signals are told apart by their
 *     origin, never by their number: its timers carry RT_SIGVAL_TAG in the
 *     high half of their value (SI_TIMER), its perf fds raise theirs
 *     through fasync (si_code POLL_IN..POLL_HUP).  Every other arrival
 *     (raise, kill, sigqueue, the program's own timers) is the program's and
 *     gets the program's action: its handler (sa_mask and flags as it set
 *     them, SA_RESETHAND emulated), nothing for SIG_IGN, and for the
 *     default action the end of the process (profiles written first).
 *  3. The program's actions.  For every signal hpcrun samples or has
 *     sampled with ("managed"), sigaction() records and reports the
 *     program's action (prog_act), and the kernel keeps rt_signal_entry
 *     with the program's sa_mask and flags.
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
 * Not covered: a program's signal of the current sampling signal sent while
 * it believes it blocked is not kept pending (counted as foreign-signals);
 * the hidden bits and ignored managed signals do not survive exec.
 *
 * rt_signal_entry runs in signal context: async-signal-safe calls only
 * (sample.c's rules apply to what it reaches).
 */
#include <errno.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "runtime.h"

/* The kernel's flag glibc adds to every action (x86-64). */
#ifndef SA_RESTORER
#define SA_RESTORER 0x04000000
#endif

/* The signals hpcrun samples with now or did before (bit sig - 1). */
static uint64_t managed;
/* What the program set for each managed signal, as it reads it back. */
static struct sigaction prog_act[65];
/* Signals this thread's program believes blocked but are not (5). */
static __thread uint64_t hidden __attribute__((tls_model("initial-exec")));
/* Serializes sigaction and moves (never taken in a handler). */
static pthread_mutex_t act_lock = PTHREAD_MUTEX_INITIALIZER;
static int shared_noted;

#define BIT(sig) (1ULL << ((sig) - 1))

/* A real-time signal with the default action that the calling thread does
 * not block and that was never hpcrun's, highest first; 0 when none.
 * skip: signals the caller is about to block. */
static int pick_free(const sigset_t *skip)
{
	sigset_t mask;
	int s;

	if (rt_real_sigmask(SIG_BLOCK, NULL, &mask))
		return 0;
	for (s = SIGRTMAX; s >= SIGRTMIN; s--) {
		struct sigaction cur;

		if ((managed & BIT(s)) || sigismember(&mask, s) ||
		    (skip && sigismember(skip, s)))
			continue;
		if (!rt_real_sigaction(s, NULL, &cur) && cur.sa_handler == SIG_DFL &&
		    !(cur.sa_flags & SA_SIGINFO))
			return s;
	}
	return 0;
}

/* Puts rt_signal_entry in the kernel for managed signal sig, with the
 * program's mask and flags (no SA_RESETHAND: emulated); a signal that still
 * carries samples restarts the program's system calls. */
static int install(int sig)
{
	const struct sigaction *p = &prog_act[sig];
	struct sigaction k;

	memset(&k, 0, sizeof(k));
	k.sa_sigaction = rt_signal_entry;
	k.sa_mask = p->sa_mask;
	k.sa_flags = (p->sa_flags & (SA_ONSTACK | SA_NODEFER | SA_RESTART)) |
		     SA_SIGINFO;
	if (sig == rt_cfg.signo)
		k.sa_flags |= SA_RESTART;
	return rt_real_sigaction(sig, &k, NULL);
}

/* Makes sig managed, its current action the program's. */
static int manage(int sig)
{
	if (rt_real_sigaction(sig, NULL, &prog_act[sig]))
		return -1;
	managed |= BIT(sig);
	return install(sig);
}

int rt_signal_take(void)
{
	int sig = pick_free(NULL);

	if (!sig)
		return -1;
	rt_cfg.signo = sig;
	return manage(sig);
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
	int from = rt_cfg.signo, to = pick_free(skip);
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
	rt_threads_apply(resignal);
	snprintf(msg, sizeof(msg), "the program %s signal %d: hpcrun samples with "
		 "signal %d from now on", why, from, to);
	rt_note(msg);
}

int rt_signal_managed(int sig)
{
	return sig > 0 && sig < 65 && (__atomic_load_n(&managed, __ATOMIC_RELAXED) & BIT(sig));
}

int rt_signal_sigaction(int sig, const struct sigaction *sa, struct sigaction *old)
{
	struct sigaction prev, now;

	pthread_mutex_lock(&act_lock);
	prev = prog_act[sig];
	if (sa) {
		prog_act[sig] = *sa;
		prog_act[sig].sa_flags &= ~SA_RESTORER;
		if (sig == rt_cfg.signo && rt_active &&
		    (sa->sa_handler != SIG_DFL || (sa->sa_flags & SA_SIGINFO)))
			move(NULL, "installed an action for");
		install(sig);
		/* read back as without hpcrun: with glibc's restorer */
		if (!rt_real_sigaction(sig, NULL, &now) && (now.sa_flags & SA_RESTORER)) {
			prog_act[sig].sa_flags |= SA_RESTORER;
			prog_act[sig].sa_restorer = now.sa_restorer;
		}
	}
	pthread_mutex_unlock(&act_lock);
	if (old)
		*old = prev;
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

int rt_signal_mask(int (*fn)(int, const sigset_t *, sigset_t *), int how,
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
		pthread_mutex_lock(&act_lock);
		if (cur == rt_cfg.signo)
			move(set, "blocked");
		pthread_mutex_unlock(&act_lock);
		cur = __atomic_load_n(&rt_cfg.signo, __ATOMIC_SEQ_CST);
	}
	for (s = 1; s < 65; s++) {
		bit = BIT(s);
		if (s != cur && !(before & bit))
			continue;
		if (how == SIG_SETMASK || sigismember(set, s))
			after &= ~bit;		/* said explicitly: real from now */
		if (s == cur && how != SIG_UNBLOCK && sigismember(set, s)) {
			after |= bit;		/* never really blocked */
			copy = *set;
			sigdelset(&copy, s);
			req = &copy;
			rt_count_blocked_signal();
		}
	}
call:
	r = fn(how, req, old);
	if (r)
		return r;
	hidden = after;
	if (old)
		for (s = 1; s < 65; s++)
			if (before & BIT(s))
				sigaddset(old, s);
	return 0;
}

uint64_t rt_signal_hidden(void)
{
	return hidden;
}

void rt_signal_inherit(uint64_t bits)
{
	hidden = bits;
}

/* Only hpcrun's timers and perf fds send these (2). */
static int from_hpcrun(const siginfo_t *si)
{
	if (si->si_code == SI_TIMER)
		return ((uintptr_t)si->si_value.sival_ptr >> 32) == RT_SIGVAL_TAG;
	return si->si_code >= POLL_IN && si->si_code <= POLL_HUP;
}

/* One of the program's own signals reached rt_signal_entry (2, 5). */
static void program_signal(int sig, siginfo_t *si, ucontext_t *uc)
{
	struct sigaction act = prog_act[sig];

	if (hidden & BIT(sig)) {
		if (sig == rt_cfg.signo) {
			if (rt_self)
				rt_self->counts.dropped_foreign++;
			return;
		}
		/* blocked here as the program asked, pending again for the
		 * process (queued to itself, its siginfo kept) */
		hidden &= ~BIT(sig);
		sigaddset(&uc->uc_sigmask, sig);
		syscall(SYS_rt_sigqueueinfo, getpid(), sig, si);
		return;
	}
	if (act.sa_handler == SIG_IGN && !(act.sa_flags & SA_SIGINFO))
		return;
	if (act.sa_handler == SIG_DFL && !(act.sa_flags & SA_SIGINFO)) {
		/* a real-time signal's default action ends the process */
		rt_die_of_signal(sig);
		return;
	}
	if (act.sa_flags & SA_RESETHAND) {
		memset(&prog_act[sig], 0, sizeof(prog_act[sig]));
		prog_act[sig].sa_handler = SIG_DFL;
	}
	if (act.sa_flags & SA_SIGINFO)
		act.sa_sigaction(sig, si, uc);
	else
		act.sa_handler(sig);
}

void rt_signal_entry(int sig, siginfo_t *si, void *uc)
{
	if (from_hpcrun(si))
		rt_sample_handler(sig, si, uc);
	else
		program_signal(sig, si, uc);
}
