/*
 * source-timer.c - sample source for POSIX per-thread timers: CPUTIME
 * (the thread's CPU clock) and REALTIME (wall clock), each a timer_create
 * with SIGEV_THREAD_ID so the signal goes to the thread itself.  The
 * kernel checks CPU timers at the tick (250/s here), so shorter periods
 * are rounded up by the kernel; the value of a sample is the period in
 * seconds times (1 + overruns), as HPCToolkit's "CPUTIME (sec)".
 */
#include <errno.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "fd-gate.h"
#include "runtime.h"
#include "source.h"

#ifndef sigev_notify_thread_id
#define sigev_notify_thread_id _sigev_un._tid
#endif

/* CPUTIME is the CPU clock of thread tid, which need not be the caller
 * (a failed exec starts every thread's timers from one thread). */
static clockid_t clock_of(const struct hpcrun_evspec *s, pid_t tid)
{
	if ((clockid_t)s->ev->type == CLOCK_THREAD_CPUTIME_ID)
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
	if (td->raw)
		return -EOPNOTSUPP;	/* its signal would reach the task */
	rt_fd_thread_start();
	return make_timer(td, idx, &td->timer[idx]);
}

static void timer_stop(struct rt_thread *td, int idx)
{
	timer_delete(td->timer[idx]);
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

static double timer_value(struct rt_thread *td, int idx, const siginfo_t *si)
{
	int over = timer_getoverrun(td->timer[idx]);

	(void)si;
	return (double)rt_cfg.ev[idx].spec.period * 1e-6 * (1 + (over > 0 ? over : 0));
}

const struct sample_source timer_source = {
	.name = "timer",
	.probe = timer_probe,
	.start = timer_start,
	.stop = timer_stop,
	.value = timer_value,
};
