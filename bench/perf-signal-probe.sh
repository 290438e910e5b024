#!/bin/sh
# perf-signal-probe.sh - does the kernel batch the signals of a perf event?
#
#   bench/perf-signal-probe.sh
#
# hpcrun is told of each perf sample by a signal (O_ASYNC + F_SETSIG on the
# event's fd), and that signal is what a sample costs it beyond perf record
# (docs/BENCHMARKS.md).  This probe opens a cpu-clock event at 5000/s with a
# ring buffer and wakeup_events = 1, 4 and 16, counts the signals over 1 s
# of CPU time and prints them next to the samples taken (counter / period).
# If signals stayed at samples / wakeup_events, hpcrun could take the
# samples from the ring (registers and a copy of the user stack) and unwind
# them in batches; they do not: with O_ASYNC the kernel signals every
# overflow whatever wakeup_events says.
set -e
W=$(mktemp -d /tmp/perf-probe.XXXXXX)
trap 'rm -rf "$W"' EXIT
cat >"$W/probe.c" <<'C'
#define _GNU_SOURCE
#include <fcntl.h>
#include <linux/perf_event.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

static volatile long signals;

static void on_signal(int sig, siginfo_t *si, void *uc)
{
	(void)sig; (void)si; (void)uc;
	signals++;
}

static double cpu_seconds(void)
{
	struct timespec t;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
	return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

int main(int argc, char **argv)
{
	struct perf_event_attr a;
	struct f_owner_ex own = { F_OWNER_TID, 0 };
	struct sigaction sa;
	volatile double s = 0;
	uint64_t count;
	void *ring;
	int fd;

	memset(&a, 0, sizeof(a));
	a.size = sizeof(a);
	a.type = PERF_TYPE_SOFTWARE;
	a.config = PERF_COUNT_SW_CPU_CLOCK;
	a.sample_period = 200000;			/* 5000/s */
	a.sample_type = PERF_SAMPLE_IP;
	a.wakeup_events = (unsigned)atoi(argv[1]);
	a.disabled = 1;
	a.exclude_kernel = 1;
	a.exclude_hv = 1;
	fd = (int)syscall(SYS_perf_event_open, &a, 0, -1, -1, 0);
	if (fd < 0) {
		perror("perf_event_open");
		return 1;
	}
	ring = mmap(NULL, 17 * 4096, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (ring == MAP_FAILED) {
		perror("mmap");
		return 1;
	}
	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = on_signal;
	sa.sa_flags = SA_SIGINFO | SA_RESTART;
	sigaction(SIGRTMIN + 3, &sa, NULL);
	own.pid = (pid_t)syscall(SYS_gettid);
	if (fcntl(fd, F_SETFL, O_ASYNC | O_NONBLOCK) ||
	    fcntl(fd, F_SETSIG, SIGRTMIN + 3) || fcntl(fd, F_SETOWN_EX, &own)) {
		perror("fcntl");
		return 1;
	}
	ioctl(fd, PERF_EVENT_IOC_ENABLE, 0);
	while (cpu_seconds() < 1.0)
		for (int i = 0; i < 100000; i++)
			s += i * 0.5;
	ioctl(fd, PERF_EVENT_IOC_DISABLE, 0);
	if (read(fd, &count, sizeof(count)) != sizeof(count))
		return 1;
	printf("| %s | %llu | %ld |\n", argv[1],
	       (unsigned long long)(count / a.sample_period), signals);
	return 0;
}
C
cc -O2 -o "$W/probe" "$W/probe.c"
echo "cpu-clock at 5000/s for 1 s of CPU time, O_ASYNC, ring buffer of 16 pages;"
echo "$(uname -sr), $(date -u +%Y-%m-%d)"
echo
echo "| wakeup_events | samples | signals |"
echo "|---|---|---|"
for w in 1 4 16; do
	"$W/probe" $w
done
