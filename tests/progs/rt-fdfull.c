/*
 * rt-fdfull.c - a program whose fd table is exactly full while it runs,
 * for t1065: a thread closes one fd and opens /dev/null again, over and
 * over, and must get the same number every time (the lowest free one),
 * while the main thread walks 2^LEVELS distinct call paths (a tree that
 * grows by a few nodes a sample, past several arena chunks).  Natively,
 * and under hpcrun, whose handler must take no number of the table.
 *
 *   cc -O1 -pthread -o rt-fdfull rt-fdfull.c
 *   rt-fdfull      prints the work's checksum and
 *                  "every reopen gave fd N, none failed", or what failed
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#define LEVELS 20
#define SPIN 1500

static volatile double sink;
static int done, reopened_fd, bad_fd, bad_errno;
static long rounds;

static double step(unsigned path, int level);

/* Two callers that differ, so no compiler folds them into one. */
__attribute__((noinline)) static double fa(unsigned path, int level)
{
	return step(path, level) + 1.0;
}

__attribute__((noinline)) static double fb(unsigned path, int level)
{
	return step(path, level) * 0.5;
}

__attribute__((noinline)) static double step(unsigned path, int level)
{
	double s = 0.0;
	int i;

	if (level == LEVELS) {
		for (i = 0; i < SPIN; i++)
			s += (double)(i ^ (int)path) * 1e-9;
		sink += s;
		return (double)(path & 7);
	}
	return (path >> level) & 1 ? fb(path, level + 1) : fa(path, level + 1);
}

/* Closes fd and opens /dev/null again until done: the same fd each time. */
static void *reopener(void *arg)
{
	int fd = *(int *)arg, got;

	while (!__atomic_load_n(&done, __ATOMIC_ACQUIRE)) {
		close(fd);
		got = open("/dev/null", O_RDONLY);
		if (got != fd) {
			bad_fd = got;
			bad_errno = got < 0 ? errno : 0;
			break;
		}
		rounds++;
	}
	reopened_fd = fd;
	return NULL;
}

int main(int argc, char **argv)
{
	struct rlimit rl;
	pthread_t t;
	unsigned path;
	double sum = 0.0;
	int fd, last = -1;

	getrlimit(RLIMIT_NOFILE, &rl);
	rl.rlim_cur = 32;
	if (setrlimit(RLIMIT_NOFILE, &rl)) {
		perror("setrlimit");
		return 1;
	}
	while ((fd = open("/dev/null", O_RDONLY)) >= 0)
		last = fd;
	if (errno != EMFILE || last < 0) {
		printf("the table did not fill: %s\n", strerror(errno));
		return 1;
	}
	if (pthread_create(&t, NULL, reopener, &last)) {
		printf("no thread\n");
		return 1;
	}
	for (path = 0; path < 1u << LEVELS; path++)
		sum += step(path, 0);
	__atomic_store_n(&done, 1, __ATOMIC_RELEASE);
	pthread_join(t, NULL);
	printf("checksum %.1f\n", sum);
	fflush(stdout);
	if (argc > 1 && !strcmp(argv[1], "kill"))
		raise(SIGKILL);
	if (bad_fd || bad_errno)
		printf("a reopen of fd %d gave %d (%s)\n", reopened_fd, bad_fd,
		       bad_errno ? strerror(bad_errno) : "another number");
	else
		printf("every reopen gave fd %d, none failed\n", reopened_fd);
	return 0;
}
