/*
 * signals.h - every signal hpcrun handles.  signals.c owns them all; its
 * design note has the invariants and two sections, signals.c, THE
 * SAMPLING SIGNAL and signals.c, THE FATAL SIGNALS.
 *
 *   signal           handler                 what the program's handler
 *                                            sees / what the default does
 *   the sampling     rt_signal_entry: one    only its own arrivals (raise,
 *   signal (rt_cfg.  of hpcrun's (timers,    kill, sigqueue, its timers),
 *   signo, a free    perf fds, drain timer,  with the action it set; the
 *   real-time        hang probe) goes on to  default ends the process,
 *   signal)          rt_sample_handler       profiles written first
 *                    (sample.c)
 *   signals moved    rt_signal_entry         the same; the samples still
 *   away from                                queued on them are recorded
 *   SIGSEGV          fatal_handler*:         every fault but those of
 *                    own_fault, then the     hpcrun's unwinder (back to
 *                    program's action        the sample, sample.c)
 *   SIGBUS           fatal_handler*, same    all but the unwinder's
 *   SIGABRT          fatal_handler*; the     all; past a handler that
 *                    abort() wrapper         returns, profiles written
 *                                            before glibc's abort
 *   SIGILL SIGFPE SIGINT SIGTERM SIGQUIT SIGHUP SIGPIPE SIGXCPU SIGXFSZ
 *   SIGALRM SIGVTALRM SIGUSR1 SIGUSR2 SIGSYS SIGSTKFLT SIGPWR SIGTRAP
 *                    fatal_handler*          all (but a SIGXFSZ hpcrun's
 *                                            own writes raised: rt_io_end,
 *                                            runtime.c)
 *
 * * fatal_handler is in the kernel while the program's action is the
 *   default (it writes every profile, then the default action ends the
 *   process) or a handler with SA_RESETHAND (emulated); otherwise the
 *   kernel holds the program's handler or SIG_IGN as it set them.
 *
 * Masks: sigprocmask and pthread_sigmask block what the program asks but
 * the sampling signal, which reads back as blocked (hidden).
 *
 * Never touched, the program's and the kernel's alone: SIGKILL and SIGSTOP
 * (no handler sees them: the live files are left for hpcprof), SIGPROF
 * (a profiler of the program's own), SIGIO, the real-time signals hpcrun
 * never sampled with, and the signals whose default does not end the
 * process (SIGCHLD, SIGCONT, SIGTSTP, SIGTTIN, SIGTTOU, SIGURG, SIGWINCH).
 */
#ifndef HPCRUN_SIGNALS_H
#define HPCRUN_SIGNALS_H

#include <signal.h>
#include <stdint.h>

/* ---- THE SAMPLING SIGNAL ---- */

/* The high half of the value of hpcrun's timer signals ("HPCR"). */
#define RT_SIGVAL_TAG 0x48504352u
/* Chooses and installs rt_cfg.signo; 0, or -1 when no signal is free. */
int rt_signal_take(void);
/* The handler of every managed signal (the table). */
void rt_signal_entry(int sig, siginfo_t *si, void *uc);
/* The calling thread's hidden bits, handed to the threads it creates. */
uint64_t rt_signal_hidden(void);
void rt_signal_inherit(uint64_t bits);

/* ---- THE FATAL SIGNALS ---- */

/* Installs fatal_handler where the program's actions call for it (at
 * rt_init, after the sampling signal is taken). */
void rt_install_fatal_handlers(void);
/* Ends the process by sig with its default action, as the program would
 * have died, after writing every profile (rt_process_finish); from a
 * handler of sig on the thread it was meant for. */
void rt_die_of_signal(int sig);
/* 1 while our SIGSEGV and SIGBUS handlers are installed, so a fault in the
 * unwinder jumps back to the sample handler (async-signal-safe: two
 * rt_sigaction queries; used only on stacks of unknown bounds). */
int rt_fault_recovery(void);

/* ---- the real calls, for hpcrun's own use ---- */

/* libc's sigaction and pthread_sigmask, past the wrappers (any thread,
 * async-signal-safe). */
int rt_real_sigaction(int sig, const struct sigaction *sa, struct sigaction *old);
int rt_real_sigmask(int how, const sigset_t *set, sigset_t *old);

#endif
