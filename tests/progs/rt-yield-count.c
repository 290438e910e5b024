/*
 * rt-yield-count.c - a preloaded library that counts the process's
 * sched_yield calls, for the thread-churn test (t1041): hpcrun's waits
 * must sleep, not spin.  Preloaded after libhpcrun.so (hpcrun puts its
 * runtime first in LD_PRELOAD), it is the sched_yield the runtime calls.
 * At exit it appends "sched_yield N" to the file named by
 * RT_YIELD_COUNT_FILE.
 *
 * Build: cc -O2 -shared -fPIC -o rt-yield-count.so rt-yield-count.c
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

static unsigned long calls;

int sched_yield(void)
{
	__atomic_add_fetch(&calls, 1, __ATOMIC_RELAXED);
	return (int)syscall(SYS_sched_yield);
}

__attribute__((destructor)) static void report(void)
{
	const char *path = getenv("RT_YIELD_COUNT_FILE");
	char line[64];
	int fd, n;

	if (!path || (fd = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644)) < 0)
		return;
	n = snprintf(line, sizeof(line), "sched_yield %lu\n",
		     __atomic_load_n(&calls, __ATOMIC_RELAXED));
	if (write(fd, line, (size_t)n) != n)
		n = 0;
	close(fd);
}
