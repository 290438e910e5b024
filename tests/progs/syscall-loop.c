/*
 * syscall-loop.c - a program that spends most of its CPU time in the
 * kernel, for hpcrun's kernel-time tests: io() writes 4 KiB into a file
 * and reads it back (pwrite, pread; the file in DIR, a tmpfs such as
 * /dev/shm where there is one), compute() adds numbers in user mode
 * between the calls, until the process has used MS ms of CPU time.
 *
 * Build: cc -O2 -g -o syscall-loop syscall-loop.c
 * Usage: syscall-loop MS [DIR]
 *
 * Prints the truth as getrusage gives it for the whole process, then
 * the system share of the main thread alone (hpcrun's threads left out):
 * "user U system S system-share P thread-system-share T" (seconds, and
 * 100 * S / (U + S)).
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

static volatile unsigned long sink;

static double seconds(struct timeval tv)
{
	return (double)tv.tv_sec + (double)tv.tv_usec * 1e-6;
}

/* One write of 4 KiB at block i of fd and its read back. */
__attribute__((noinline)) static void io(int fd, char *buf, long i)
{
	off_t off = (off_t)(i % 64) * 4096;

	if (pwrite(fd, buf, 4096, off) != 4096 || pread(fd, buf, 4096, off) != 4096) {
		perror("syscall-loop: io");
		exit(1);
	}
}

/* User-mode work between the calls. */
__attribute__((noinline)) static void compute(long n)
{
	unsigned long s = sink;
	long i;

	for (i = 0; i < n; i++)
		s = s * 31 + (unsigned long)i;
	sink = s;
}

int main(int argc, char **argv)
{
	double budget = argc > 1 ? atof(argv[1]) / 1000 : 1.0, user, sys;
	const char *dir = argc > 2 ? argv[2] : "/dev/shm";
	char path[4096], buf[4096];
	struct rusage ru;
	long i;
	int fd;

	snprintf(path, sizeof(path), "%s/syscall-loop-XXXXXX", dir);
	fd = mkstemp(path);
	if (fd < 0) {
		perror("syscall-loop: mkstemp");
		return 1;
	}
	unlink(path);
	memset(buf, 'x', sizeof(buf));
	for (i = 0;; i++) {
		io(fd, buf, i);
		compute(700);
		if (i % 256 == 0) {
			getrusage(RUSAGE_SELF, &ru);
			if (seconds(ru.ru_utime) + seconds(ru.ru_stime) >= budget)
				break;
		}
	}
	close(fd);
	getrusage(RUSAGE_SELF, &ru);
	user = seconds(ru.ru_utime);
	sys = seconds(ru.ru_stime);
	printf("user %.3f system %.3f system-share %.2f", user, sys,
	       100 * sys / (user + sys));
	getrusage(RUSAGE_THREAD, &ru);
	user = seconds(ru.ru_utime);
	sys = seconds(ru.ru_stime);
	printf(" thread-system-share %.2f\n", 100 * sys / (user + sys));
	return 0;
}
