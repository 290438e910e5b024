/*
 * source.h - the sample sources (source-perf.c, source-timer.c), one
 * function table each, and the handler they deliver their samples to
 * (sample.c).
 *
 * Invariants:
 *  1. Of a source's functions only value() runs in the handler, and is
 *     async-signal-safe; probe, start and stop run outside it (stop maybe
 *     on another thread than td's).
 *  2. Every signal a source raises is the sampling signal (rt_cfg.signo),
 *     sent to the thread it measures and told apart by its origin: the
 *     si_value of a timer (an event's index, RT_DRAIN_TIMER,
 *     RT_PATH_PROBE) or the si_fd of a perf event, or RT_EXIT_PARK sent by
 *     the process's end (runtime.c); or perf's trap,
 *     SIGTRAP with the event's index in its data (kernel-time.h,
 *     invariant 6; REALTIME's time off the CPU, source-timer.c).
 *  3. A thread's ring buffers are drained by its own handler, or outside
 *     it by the thread itself or once the thread is closed (source-perf.c,
 *     THE RING), so its tree has one writer at a time.
 *  4. A thread adopted from outside (td->raw, raw-threads.h) is never
 *     sent a signal: start() gives it only what needs none -- a ring
 *     buffer with no drain timer -- and returns -EOPNOTSUPP otherwise;
 *     its rings are drained by rt_perf_drain_task on another thread.
 */
#ifndef HPCRUN_SOURCE_H
#define HPCRUN_SOURCE_H

#include <signal.h>
#include <stdint.h>
#include <sys/types.h>
#include <time.h>

#include "hpcrun-events.h"

struct rt_copy;
struct rt_thread;

/* si_value of the timer that drains a thread's ring buffers. */
#define RT_DRAIN_TIMER (-2)
/* si_value of the hang detector's signal asking a thread for its path. */
#define RT_PATH_PROBE (-3)
/* si_value of the signal (SI_QUEUE, from the process itself) that parks a
 * thread while the process's end is written (runtime.c). */
#define RT_EXIT_PARK (-4)
/* si_value of the signal (SI_QUEUE, from the process itself) that wakes a
 * program's wait for a signal hpcrun holds (signals.c, THE SAMPLING
 * SIGNAL, 8). */
#define RT_STASH_WAKE (-5)
/* Thread CPU time between two drains (ns): 250/s. */
#define RT_DRAIN_NS 4000000L

/* A sample source: one per event kind; functions run outside the handler
 * except value(), which the handler calls. */
struct sample_source {
	const char *name;
	/* Probes the event in the calling thread; 0 or negative errno. */
	int (*probe)(const struct hpcrun_evspec *spec);
	/* Starts event idx in the calling thread; 0 or negative errno. */
	int (*start)(struct rt_thread *td, int idx);
	/* Stops event idx of td (may be called from another thread). */
	void (*stop)(struct rt_thread *td, int idx);
	/* The metric value of one sample (async-signal-safe). */
	double (*value)(struct rt_thread *td, int idx, const siginfo_t *si);
};

extern const struct sample_source perf_source;
extern const struct sample_source timer_source;

/* source-timer.c: a POSIX timer on clock clk whose signal (the sampling
 * signal, si_value value) goes to thread tid, every period_ns when not 0;
 * 0 or negative errno. */
int rt_timer_create(pid_t tid, clockid_t clk, int value, uint64_t period_ns,
		    timer_t *out);

/* source-perf.c */
/* Opens event idx of td on a new high fd and enables it (the gate held;
 * fd-gate.c re-opens with it the events the program closed); 0 or
 * negative errno. */
int rt_perf_arm(struct rt_thread *td, int idx);
/* Fork child: closes every thread's inherited perf fds and forgets its
 * rings (neither mappings nor timers are inherited). */
void rt_perf_after_fork(struct rt_thread *threads);
/* Takes the samples waiting in td's ring buffers (in td's handler, busy
 * set; uc: the interrupted context). */
void rt_perf_drain(struct rt_thread *td, const void *uc);
/* The same for the calling thread outside the handler, in its own work
 * (rt_own_end; others call rt_own_drain). */
void rt_perf_drain_self(void);
/* The same for td, an adopted thread (invariant 4), from another thread
 * outside handlers whose rt_self is self (the unwinder's faults come back
 * to self; NULL: leaf addresses only). */
void rt_perf_drain_task(struct rt_thread *td, struct rt_thread *self);
/* REALTIME's off-CPU half (source-timer.c, OFF-CPU): a context-switch
 * event of the calling thread that signals through perf's trap, opened
 * and closed again; 0 or negative errno. */
int rt_perf_offcpu_probe(const struct hpcrun_evspec *s);
/* Closes event idx of td opened by rt_perf_arm (its fd released under
 * the gate); also perf_stop's end for an event with no ring. */
void rt_perf_disarm(struct rt_thread *td, int idx);
/* Is perf event s sampled through a ring buffer (source-perf.c, THE RING)? */
int rt_perf_is_ring_event(const struct hpcrun_evspec *s);
/* Moves every thread's rings of the events that are no ring events any
 * more (an interpreter was found) to a signal per sample (source-perf.c,
 * THE SWITCH); outside handlers, the thread list's lock not held. */
void rt_perf_leave_rings(void);
/* Threads THE SWITCH moved, and the ring samples it left unread (S1). */
extern uint64_t rt_perf_switched, rt_perf_switch_unread;
/* The CPU clock of thread tid of this process (as glibc's
 * pthread_getcpuclockid makes it), usable from any thread. */
static inline clockid_t rt_thread_clock(pid_t tid)
{
	return (clockid_t)((~(unsigned)tid << 3) | 6);
}

/* source-perf.c, source-timer.c: re-route td's sources to the current
 * rt_cfg.signo (after signals.c moved it). */
void rt_perf_resignal(struct rt_thread *td);
void rt_timer_resignal(struct rt_thread *td);

/* sample.c: the sampling signal's handler (signals.c installs it; its
 * RULES are at the top of sample.c). */
void rt_sample_handler(int sig, siginfo_t *si, void *uc);
/*
 * Records one sample of event idx taken by the kernel into a ring buffer,
 * c with its regs, stack, len and time (live_hi and own are set here).
 * uc: the context the drain interrupted on td's own thread (the copy may
 * then be continued on the live stack), or NULL.  self: the calling
 * thread's rt_thread (a fault in the unwinder comes back there), or NULL.
 */
void rt_sample_copy(struct rt_thread *td, struct rt_thread *self, int idx,
		    struct rt_copy *c, const void *uc, double val);

#endif
