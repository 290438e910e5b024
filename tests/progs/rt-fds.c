/*
 * rt-fds.c - a program that closes fds it did not open, as daemons do, for
 * t1040; the mode is argv[1], N (argv[2]) units of work after the close.
 *
 * Build: cc -O2 -pthread -o rt-fds rt-fds.c
 *
 *   close N       close() every fd from 3 to 1023
 *   range N       close_range(3, ~0U, 0)
 *   closefrom N   closefrom(3)
 *   dup2 N        dup2() /dev/null over every fd above 2 listed in
 *                 /proc/self/fd
 *   full N        fills the fd table with /dev/null, then dup2()s over
 *                 every perf_event fd, closes the fillers
 *   threads N     two threads work in thread_before() until the main
 *                 thread (work in before()) calls close_range(3, ~0U, 0),
 *                 then everyone works N units in after()/thread_after()
 *   churn N       as threads, with 500 close_range(3, ~0U, 0) in a row,
 *                 a little work between them
 *
 * Each mode does N/3 units in before() first, then the close, then opens a
 * file, writes it, works N units in after(), reads the file back and
 * prints what it saw (the same with and without hpcrun).  Exit status 0,
 * or 1 when the file does not read back as written.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static volatile double sink;
static volatile int closed;

/* One unit is about 10 ms of CPU on the test machines. */
#define UNIT 10000000L

static inline __attribute__((always_inline)) void spin(long units)
{
	double s = sink;
	long i;

	for (i = 0; i < units * UNIT; i++)
		s += (double)i * 0.5;
	sink = s;
}

__attribute__((noinline)) void before(long n) { spin(n); }
__attribute__((noinline)) void spin_a_little(void)
{
	long i;

	for (i = 0; i < UNIT / 100; i++)
		sink += 1;
}
__attribute__((noinline)) void after(long n) { spin(n); }

static long units;

__attribute__((noinline)) void thread_before(void)
{
	while (!closed)
		spin(1);
}

__attribute__((noinline)) void thread_after(long n) { spin(n); }

static void *worker(void *arg)
{
	(void)arg;
	thread_before();
	thread_after(units);
	return NULL;
}

/* The fds above 2 in /proc/self/fd (whose link starts with prefix). */
static int list_fds(int *fds, int max, const char *prefix)
{
	DIR *d = opendir("/proc/self/fd");
	struct dirent *e;
	int n = 0;

	if (!d)
		return 0;
	while ((e = readdir(d)) && n < max) {
		char path[64], link[256];
		int fd = atoi(e->d_name);
		ssize_t len;

		if (fd <= 2 || fd == dirfd(d))
			continue;
		snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
		len = readlink(path, link, sizeof(link) - 1);
		link[len > 0 ? len : 0] = '\0';
		if (!strncmp(link, prefix, strlen(prefix)))
			fds[n++] = fd;
	}
	closedir(d);
	return n;
}

static void close_all(const char *mode)
{
	int fds[4096], n, i, null;

	if (!strcmp(mode, "close")) {
		for (i = 3; i < 1024; i++)
			close(i);
	} else if (!strcmp(mode, "range") || !strcmp(mode, "threads")) {
		if (close_range(3, ~0U, 0))
			perror("close_range");
	} else if (!strcmp(mode, "churn")) {
		for (i = 0; i < 500; i++) {
			close_range(3, ~0U, 0);
			spin_a_little();
		}
	} else if (!strcmp(mode, "closefrom")) {
		closefrom(3);
	} else if (!strcmp(mode, "dup2")) {
		n = list_fds(fds, 4096, "");
		null = open("/dev/null", O_RDWR);
		for (i = 0; i < n; i++)
			if (fds[i] != null && dup2(null, fds[i]) != fds[i])
				perror("dup2");
		for (i = 0; i < n; i++)
			if (fds[i] != null)
				close(fds[i]);
		close(null);
	} else if (!strcmp(mode, "full")) {
		int fill[4096], nfill = 0, fd;

		n = list_fds(fds, 4096, "anon_inode:[perf_event]");
		while (nfill < 4096 && (fd = open("/dev/null", O_RDONLY)) >= 0)
			fill[nfill++] = fd;
		for (i = 0; i < n; i++)
			dup2(fill[0], fds[i]);
		while (nfill)
			close(fill[--nfill]);
		for (i = 0; i < n; i++)
			close(fds[i]);
	} else {
		fprintf(stderr, "rt-fds: '%s': unknown mode\n", mode);
		exit(2);
	}
}

int main(int argc, char **argv)
{
	static const char text[] = "written after the close\n";
	char buf[64];
	pthread_t t[2];
	int fd, i, nt = 0;
	ssize_t n;

	if (argc != 3)
		return 2;
	units = atol(argv[2]);
	if (!strcmp(argv[1], "threads") || !strcmp(argv[1], "churn")) {
		for (nt = 0; nt < 2; nt++)
			pthread_create(&t[nt], NULL, worker, NULL);
		usleep(100000);		/* both running: sampled from their start */
	}
	before(units / 3);
	close_all(argv[1]);
	closed = 1;
	fd = open("rt-fds.out", O_RDWR | O_CREAT | O_TRUNC, 0644);
	if (fd < 0 || write(fd, text, sizeof(text) - 1) != sizeof(text) - 1)
		return 1;
	after(units);
	for (i = 0; i < nt; i++)
		pthread_join(t[i], NULL);
	n = pread(fd, buf, sizeof(buf) - 1, 0);
	buf[n > 0 ? n : 0] = '\0';
	printf("file on fd %d: %s", fd, buf);
	errno = 0;
	printf("close(%d) again: %d\n", fd, close(fd) + close(fd));
	return strcmp(buf, text) != 0;
}
