/*
 * source-perf.c - sample source for Linux perf events.
 *
 * One counter per event per thread (pid 0 = the calling thread, user mode
 * only), with no ring buffer: each overflow raises the sampling signal
 * through fasync, routed to the owning thread with F_SETOWN_EX.  With a
 * period the value of a sample is 1 (hpcprof multiplies by the period, as
 * HPCToolkit does); in frequency mode the kernel varies the period, so
 * the value is the counter's increase since the previous sample (read(2)
 * in the handler) -- except for cpu-clock and task-clock, whose frequency
 * the kernel turns into the fixed period 1e9/FREQ ns anyway: we ask for
 * that period directly and the value is the period, without a system call.
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/perf_event.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "runtime.h"

/* Software clocks in frequency mode: sampled with a fixed period in ns. */
static uint64_t clock_period(const struct hpcrun_evspec *s)
{
	if (s->period || s->ev->type != PERF_TYPE_SOFTWARE ||
	    (s->ev->config != PERF_COUNT_SW_CPU_CLOCK &&
	     s->ev->config != PERF_COUNT_SW_TASK_CLOCK))
		return 0;
	return 1000000000ULL / s->freq;
}

static void fill_attr(struct perf_event_attr *a, const struct hpcrun_evspec *s)
{
	memset(a, 0, sizeof(*a));
	a->size = sizeof(*a);
	a->type = s->ev->type;
	a->config = s->ev->kind == HPCRUN_EV_RAW ? s->raw_config : s->ev->config;
	if (s->period) {
		a->sample_period = s->period;
	} else if (clock_period(s)) {
		a->sample_period = clock_period(s);
	} else {
		a->freq = 1;
		a->sample_freq = s->freq;
	}
	a->wakeup_events = 1;
	a->disabled = 1;
	a->exclude_kernel = 1;
	a->exclude_hv = 1;
}

static int perf_open(const struct hpcrun_evspec *s)
{
	struct perf_event_attr a;
	long fd;

	fill_attr(&a, s);
	fd = syscall(SYS_perf_event_open, &a, 0, -1, -1, PERF_FLAG_FD_CLOEXEC);
	return fd < 0 ? -errno : (int)fd;
}

static int perf_probe(const struct hpcrun_evspec *s)
{
	int fd = perf_open(s);

	if (fd < 0)
		return fd;
	close(fd);
	return 0;
}

static int perf_start(struct rt_thread *td, int idx)
{
	struct f_owner_ex owner = { F_OWNER_TID, td->tid };
	int fd = perf_open(&rt_cfg.ev[idx].spec), err;

	if (fd < 0)
		return fd;
	if (fcntl(fd, F_SETFL, O_ASYNC | O_NONBLOCK) ||
	    fcntl(fd, F_SETSIG, rt_cfg.signo) ||
	    fcntl(fd, F_SETOWN_EX, &owner) ||
	    ioctl(fd, PERF_EVENT_IOC_RESET, 0) ||
	    ioctl(fd, PERF_EVENT_IOC_ENABLE, 0)) {
		err = -errno;
		close(fd);
		return err;
	}
	td->fd[idx] = fd;
	td->last_count[idx] = 0;
	return 0;
}

static void perf_stop(struct rt_thread *td, int idx)
{
	if (td->fd[idx] >= 0) {
		ioctl(td->fd[idx], PERF_EVENT_IOC_DISABLE, 0);
		close(td->fd[idx]);
		td->fd[idx] = -1;
	}
}

static double perf_value(struct rt_thread *td, int idx, const siginfo_t *si)
{
	const struct hpcrun_evspec *s = &rt_cfg.ev[idx].spec;
	uint64_t count;

	(void)si;
	if (s->period)
		return 1.0;
	if (clock_period(s))
		return (double)clock_period(s);
	if (read(td->fd[idx], &count, sizeof(count)) != sizeof(count))
		return 0;
	{
		uint64_t d = count - td->last_count[idx];

		td->last_count[idx] = count;
		return (double)d;
	}
}

const struct sample_source perf_source = {
	.name = "perf",
	.probe = perf_probe,
	.start = perf_start,
	.stop = perf_stop,
	.value = perf_value,
};
