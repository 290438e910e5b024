/*
 * signals.h - every signal hpcrun handles.  signals.c owns them all: THE
 * TABLE there has one entry per signal, hpcrun's role in it (the sampling
 * signal, the unwinder's fault recovery, writing every profile before a
 * fatal signal ends the process, or none), what happens next, and what
 * the program set for it.  Its design note has the invariants, in two
 * sections: THE SAMPLING SIGNAL and THE FATAL SIGNALS.
 *
 * Masks: sigprocmask and pthread_sigmask block what the program asks but
 * the sampling signal (and SIGTRAP while perf's trap samples), which reads
 * back as blocked (hidden).  The program's own arrival of the sampling
 * signal on a thread that hides it is held for the process, and its
 * waits for signals (sigwait, sigwaitinfo, sigtimedwait, signalfd) never
 * see hpcrun's.
 */
#ifndef HPCRUN_SIGNALS_H
#define HPCRUN_SIGNALS_H

#include <signal.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/syscall.h>
#include <unistd.h>

/* ---- THE SAMPLING SIGNAL ---- */

/* The high half of the value of hpcrun's timer signals ("HPCR"). */
#define RT_SIGVAL_TAG 0x48504352u
/* Chooses and installs rt_cfg.signo; 0, or -1 when no signal is free. */
int rt_signal_take(void);
/* The sig_data of hpcrun's perf events that signal through perf's trap
 * (SIGTRAP, si_code TRAP_PERF; kernel-time.h, invariant 6): the tag, then
 * the event's index. */
#define RT_TRAP_DATA(idx) ((uint64_t)RT_SIGVAL_TAG << 32 | (uint32_t)(idx))
/* Takes SIGTRAP for perf's trap (signals.c, THE SAMPLING SIGNAL, 6); 0
 * or -1. */
int rt_signal_take_trap(void);
/* Is si one of hpcrun's own signals (signals.c, THE SAMPLING SIGNAL,
 * 2)? */
int rt_signal_is_own(const siginfo_t *si);
/* The sig_data of a signal from perf's trap (si_code TRAP_PERF), which
 * glibc's siginfo_t does not name. */
uint64_t rt_signal_trap_data(const siginfo_t *si);
/* The kernel's handler of every managed signal (signals.c, THE TABLE: REALTIME). */
void rt_signal_entry(int sig, siginfo_t *si, void *uc);
/* The calling thread's hidden bits, handed to the threads it creates. */
uint64_t rt_signal_hidden(void);
void rt_signal_inherit(uint64_t bits);
/* Does the calling thread's mask block the sampling signal, the program
 * believing it unblocked (a handler on the alternate stack left by
 * longjmp: signals.c, THE SAMPLING SIGNAL, 9)? */
int rt_signal_stuck(void);
/* The same of thread tid, another (from its /proc status: the signal
 * blocked and pending there), once the program set such a handler. */
int rt_signal_stuck_other(pid_t tid);

/* The program's signals held for it (signals.c, THE SAMPLING SIGNAL, 7)
 * since the start, and those of them no wait or unblock took yet. */
void rt_signal_held(uint64_t *all, uint64_t *left);
/* In a forked child: nothing held, no thread waiting. */
void rt_signal_after_fork(void);

/* ---- THE FATAL SIGNALS ---- */

/* Installs fatal_handler where the program's actions call for it (at
 * rt_init, after the sampling signal is taken). */
void rt_install_fatal_handlers(void);
/* Gives the kernel the program's own action for every fatal signal
 * (runtime.h, THE SANDBOX): after it fatal_handler is never called, and
 * the program's sigaction of one is the real call while rt_active is 0;
 * rt_install_fatal_handlers takes them again. */
void rt_release_fatal_handlers(void);
/* Ends the process by sig with its default action, as the program would
 * have died, after writing every profile (rt_process_finish); from a
 * handler of sig on the thread it was meant for.  Every other signal
 * stays blocked meanwhile, and once one thread is ending the process by
 * a signal, another ends it by that one (signals.c, THE FATAL SIGNALS,
 * 5). */
void rt_die_of_signal(int sig);
/* 1 while our SIGSEGV and SIGBUS handlers are installed, so a fault in the
 * unwinder jumps back to the sample handler (async-signal-safe: two
 * rt_sigaction queries; used only on stacks of unknown bounds). */
int rt_fault_recovery(void);

/* ---- the real calls, for hpcrun's own use ---- */

/* The program's memory, read or written (write_user) by the kernel
 * (process_vm_readv and _writev of the process itself): a bad pointer of
 * the program's gives -1, as its own call would fail with EFAULT, never
 * a fault in hpcrun.  0 or -1. */
int rt_user_copy(void *to, const void *from, size_t n, int write_user);

/* libc's sigaction, and pthread_sigmask's system call, past the wrappers
 * (any thread, async-signal-safe).  The mask is changed through libc's
 * syscall(), a call by name: a sample that the change unblocks is taken
 * in hpcrun's own work (unwind.c, invariant 5), not in the program's
 * pthread_sigmask. */
int rt_real_sigaction(int sig, const struct sigaction *sa, struct sigaction *old);
/* The thread's pending signals as the kernel has them, without what
 * sigpending() adds for the program (the held signals, signals.c). */
static inline void rt_sys_sigpending(sigset_t *set)
{
	sigemptyset(set);
	syscall(SYS_rt_sigpending, set, (size_t)(_NSIG / 8));
}
int rt_real_sigmask(int how, const sigset_t *set, sigset_t *old);

#endif
