#ifndef HPCRUN_SIGNALS_H
#define HPCRUN_SIGNALS_H

#include <signal.h>
#include <stdint.h>

/* signals.c: the sampling signal, out of the program's sight (its
 * design note).  rt_signal_entry is the handler of every managed signal. */
/* The high half of the value of hpcrun's timer signals ("HPCR"). */
#define RT_SIGVAL_TAG 0x48504352u
/* Chooses and installs rt_cfg.signo; 0, or -1 when no signal is free. */
int rt_signal_take(void);
void rt_signal_entry(int sig, siginfo_t *si, void *uc);
/* Is sig one hpcrun samples with, or did (its sigaction is then
 * rt_signal_sigaction)? */
int rt_signal_managed(int sig);
int rt_signal_sigaction(int sig, const struct sigaction *sa, struct sigaction *old);
/* sigprocmask / pthread_sigmask (fn, the real one) as the program sees it. */
int rt_signal_mask(int (*fn)(int, const sigset_t *, sigset_t *), int how,
		   const sigset_t *set, sigset_t *old);
/* The calling thread's hidden bits, handed to the threads it creates. */
uint64_t rt_signal_hidden(void);
void rt_signal_inherit(uint64_t bits);
int rt_real_sigaction(int sig, const struct sigaction *sa, struct sigaction *old);
/* Ends the process by sig with its default action, as the program would
 * have died, after writing every profile (rt_process_finish); from a
 * handler of sig on the thread it was meant for. */
void rt_die_of_signal(int sig);
int rt_real_sigmask(int how, const sigset_t *set, sigset_t *old);
void rt_install_fatal_handlers(void);
/* 1 while our SIGSEGV and SIGBUS handlers are installed, so a fault in the
 * unwinder jumps back to the sample handler (async-signal-safe: two
 * rt_sigaction queries; used only on stacks of unknown bounds). */
int rt_fault_recovery(void);

#endif
