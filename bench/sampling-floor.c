/*
 * sampling-floor.c - the least a sampler at hpcrun's rate can cost: a
 * preloaded library whose constructor opens on the main thread the event
 * hpcrun opens by default for a Python program (cpu-clock, a period of
 * 1 ms, kernel mode counted where the kernel allows it), with a signal per
 * sample as hpcrun takes it (O_ASYNC, F_SETSIG, F_SETOWN_EX), and whose
 * handler does nothing.  What a program pays under it is the kernel's
 * part of every sample (the timer interrupt, the signal's delivery and
 * return) and the caches and branch predictors that part disturbs; what
 * hpcrun costs beyond it is its own.  For single-threaded programs only
 * (bench/hpcrun-python-cost.sh, CONFS=floor).
 *
 * Build: cc -O2 -shared -fPIC -o sampling-floor.so sampling-floor.c
 * Use:   LD_PRELOAD=./sampling-floor.so PROGRAM...
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <linux/perf_event.h>
#include <signal.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <unistd.h>

static void on_sample(int sig, siginfo_t *si, void *uc)
{
	(void)sig;
	(void)si;
	(void)uc;
}

/* The event for the calling thread, disabled; -1 when it cannot open. */
static int open_clock(int kernel)
{
	struct perf_event_attr a;

	memset(&a, 0, sizeof(a));
	a.size = sizeof(a);
	a.type = PERF_TYPE_SOFTWARE;
	a.config = PERF_COUNT_SW_CPU_CLOCK;
	a.sample_period = 1000000;
	a.wakeup_events = 1;
	a.disabled = 1;
	a.exclude_kernel = !kernel;
	a.exclude_hv = 1;
	return (int)syscall(SYS_perf_event_open, &a, 0, -1, -1, PERF_FLAG_FD_CLOEXEC);
}

__attribute__((constructor)) static void floor_start(void)
{
	struct f_owner_ex own = { F_OWNER_TID, (pid_t)syscall(SYS_gettid) };
	struct sigaction sa;
	int sig = SIGRTMIN + 3, fd = open_clock(1);

	if (fd < 0)
		fd = open_clock(0);
	if (fd < 0)
		return;
	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = on_sample;
	sa.sa_flags = SA_SIGINFO | SA_RESTART;
	sigemptyset(&sa.sa_mask);
	if (sigaction(sig, &sa, NULL) ||
	    fcntl(fd, F_SETFL, O_ASYNC | O_NONBLOCK) ||
	    fcntl(fd, F_SETSIG, sig) || fcntl(fd, F_SETOWN_EX, &own) ||
	    ioctl(fd, PERF_EVENT_IOC_ENABLE, 0))
		close(fd);
}
