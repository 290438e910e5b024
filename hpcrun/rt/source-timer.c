/*
 * source-timer.c - sample source for POSIX per-thread timers: CPUTIME
 * (the thread's CPU clock) and REALTIME (wall clock), each a timer_create
 * with SIGEV_THREAD_ID so the signal goes to the thread itself.  The
 * kernel checks CPU timers at the tick (250/s here), so shorter periods
 * are rounded up by the kernel; the value of a sample is the period in
 * seconds times (1 + overruns), as HPCToolkit's "CPUTIME (sec)".
 *
 * OFF-CPU.  A wall-clock timer signals a thread while it is blocked, and
 * a call the kernel does not restart (nanosleep, poll, select,
 * epoll_wait, sem_timedwait, ...) returns EINTR.  So REALTIME is two
 * halves where perf allows it (rt_perf_offcpu_probe at start-up):
 *  O1. On-CPU time: the thread's CPU clock, as CPUTIME, whose signal
 *      the kernel sends on the return to user mode (hpcrun(1)); value
 *      the period, as above.
 *  O2. Off-CPU time: a perf context-switch event of the thread with a
 *      sample per switch, whose signal is perf's trap (SIGTRAP), sent as
 *      the thread returns to user mode once it runs again: after the
 *      call that blocked has returned, so none is cut short.  Its
 *      context is the call's (the interrupted ip is its return); its
 *      value the wall time since the thread's previous such sample
 *      less the CPU time meanwhile (td->off_wall, td->off_cpu, stamped
 *      at start and at each such sample): the time the thread spent
 *      off the CPU, blocked or waiting for one.  Its trace record is
 *      dated back by that time (td->sample_back_ns), to when the
 *      thread left the CPU.
 *  O3. The event's fd is one of ours as any perf event's (td->fd[idx],
 *      fd-gate.c: re-armed when the program closes it); fork and exec
 *      end it as theirs.
 *  O4. Where perf cannot (kernel-time.c found no trap, which needs
 *      kernel mode counted: the context switches are in the kernel;
 *      --no-kernel), REALTIME is the wall-clock timer of old and says
 *      once that it can cut calls short.
 * Off-CPU time of a thread still blocked when the process ends is not
 * counted: its sample would come at its next run.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "fd-gate.h"
#include "kernel-time.h"
#include "runtime.h"
#include "source.h"

#ifndef sigev_notify_thread_id
#define sigev_notify_thread_id _sigev_un._tid
#endif

/* REALTIME samples its off-CPU time through perf (OFF-CPU): decided
 * once, at its probe. */
static int offcpu_on;

static int is_realtime(const struct hpcrun_evspec *s)
{
	return (clockid_t)s->ev->type == CLOCK_REALTIME;
}

/* CPUTIME (and REALTIME's on-CPU half, O1) is the CPU clock of thread
 * tid, which need not be the caller (a failed exec starts every thread's
 * timers from one thread). */
static clockid_t clock_of(const struct hpcrun_evspec *s, pid_t tid)
{
	if ((clockid_t)s->ev->type == CLOCK_THREAD_CPUTIME_ID ||
	    (is_realtime(s) && offcpu_on))
		return rt_thread_clock(tid);
	return (clockid_t)s->ev->type;
}

int rt_timer_create(pid_t tid, clockid_t clk, int value, uint64_t period_ns,
		    timer_t *out)
{
	struct sigevent sev;
	struct itimerspec its;
	int err;

	memset(&sev, 0, sizeof(sev));
	sev.sigev_notify = SIGEV_THREAD_ID;
	sev.sigev_signo = rt_cfg.signo;
	/* value in the low half (sival_int), the tag that tells hpcrun's
	 * timers from the program's in the high half */
	sev.sigev_value.sival_ptr =
		(void *)(((uintptr_t)RT_SIGVAL_TAG << 32) | (uint32_t)value);
	sev.sigev_notify_thread_id = tid;
	if (timer_create(clk, &sev, out))
		return -errno;
	if (!period_ns)
		return 0;
	its.it_interval.tv_sec = (time_t)(period_ns / 1000000000);
	its.it_interval.tv_nsec = (long)(period_ns % 1000000000);
	its.it_value = its.it_interval;
	if (timer_settime(*out, 0, &its, NULL)) {
		err = -errno;
		timer_delete(*out);
		return err;
	}
	return 0;
}

static int timer_probe(const struct hpcrun_evspec *s)
{
	pid_t tid = (pid_t)syscall(SYS_gettid);
	timer_t t;
	int err = rt_timer_create(tid, clock_of(s, tid), 0, 0, &t);

	rt_fd_thread_start();	/* for the profiles' files (P2) */
	if (!err)
		timer_delete(t);
	if (!err && is_realtime(s)) {
		/* the trap's SIGTRAP is hpcrun's only where kernel-time.c
		 * found the trap (kernel-time.h, invariant 6) */
		int off = rt_kernel.trap ? rt_perf_offcpu_probe(s) : -EOPNOTSUPP;
		char msg[320];

		offcpu_on = !off;
		if (off) {	/* O4 */
			snprintf(msg, sizeof(msg), "warning: REALTIME signals "
				 "threads while they are blocked, cutting short "
				 "calls the kernel does not restart (EINTR): no "
				 "perf trap of context switches here (%s)",
				 off == -EOPNOTSUPP ? rt_kernel_why_no_trap() :
				 strerror(-off));
			rt_note(msg);
		}
	}
	return err;
}

/* The timer of td's event idx, made into *out. */
static int make_timer(const struct rt_thread *td, int idx, timer_t *out)
{
	const struct hpcrun_evspec *s = &rt_cfg.ev[idx].spec;

	return rt_timer_create(td->tid, clock_of(s, td->tid), idx, s->period * 1000, out);
}

static int timer_start(struct rt_thread *td, int idx)
{
	static int warned;
	sigset_t old;
	char msg[256];
	int err;

	if (td->raw)
		return -EOPNOTSUPP;	/* its signal would reach the task */
	rt_fd_thread_start();
	if ((err = make_timer(td, idx, &td->timer[idx])))
		return err;
	if (!is_realtime(&rt_cfg.ev[idx].spec) || !offcpu_on)
		return 0;
	td->off_wall = rt_clock_ns(CLOCK_MONOTONIC);	/* O2 */
	td->off_cpu = rt_clock_ns(rt_thread_clock(td->tid));
	rt_fd_gate_lock(&old);
	err = rt_perf_arm(td, idx);
	rt_fd_gate_unlock(&old);
	if (err && !__atomic_exchange_n(&warned, 1, __ATOMIC_RELAXED)) {
		snprintf(msg, sizeof(msg), "warning: REALTIME: no off-CPU time "
			 "for thread %d (%s): its time on the CPU only",
			 td->index, strerror(-err));
		rt_note(msg);
	}
	return 0;
}

static void timer_stop(struct rt_thread *td, int idx)
{
	timer_delete(td->timer[idx]);
	if (is_realtime(&rt_cfg.ev[idx].spec) && offcpu_on)
		rt_perf_disarm(td, idx);
}

void rt_timer_resignal(struct rt_thread *td)
{
	int i;

	for (i = 0; i < rt_cfg.nev; i++) {
		timer_t t;

		/* a timer that cannot be made anew keeps its signal, which
		 * still records hpcrun's samples */
		if (rt_cfg.ev[i].src != &timer_source || !td->started[i] ||
		    make_timer(td, i, &t))
			continue;
		timer_delete(td->timer[i]);
		td->timer[i] = t;
	}
}

/* O2: the time since the thread's previous off-CPU sample that it was
 * not on the CPU, in seconds. */
static double offcpu_value(struct rt_thread *td)
{
	uint64_t wall = rt_clock_ns(CLOCK_MONOTONIC);
	uint64_t cpu = rt_clock_ns(rt_thread_clock(td->tid));
	uint64_t dw = wall - td->off_wall, dc = cpu - td->off_cpu;

	td->off_wall = wall;
	td->off_cpu = cpu;
	td->sample_back_ns = dw > dc ? dw - dc : 0;
	return (double)td->sample_back_ns * 1e-9;
}

static double timer_value(struct rt_thread *td, int idx, const siginfo_t *si)
{
	int over;

	if (si->si_signo == SIGTRAP)
		return offcpu_value(td);
	over = timer_getoverrun(td->timer[idx]);
	return (double)rt_cfg.ev[idx].spec.period * 1e-6 * (1 + (over > 0 ? over : 0));
}

const struct sample_source timer_source = {
	.name = "timer",
	.probe = timer_probe,
	.start = timer_start,
	.stop = timer_stop,
	.value = timer_value,
};
