/*
 * rt-nofile.c - a program with RLIMIT_NOFILE lowered to 4 that opens a
 * file while threads start and end, for t1063: natively every open()
 * returns fd 3 (0-2 are stdio); under hpcrun too, unless hpcrun holds a
 * number of the program's table at that moment.
 *
 *   cc -O2 -pthread -o rt-nofile rt-nofile.c
 *   rt-nofile N     N rounds: start a thread (every third one works a
 *                   little, the others end at once), open /dev/null,
 *                   close it, join; prints "fd 3 in N of N opens"
 *   rt-nofile hold  starts a thread that waits, then opens /dev/null:
 *                   "with a thread running, open gave fd 3"
 *   rt-nofile pool  a connection pool at the common soft limit of 1024
 *                   (the hard limit left as it is): main fills its
 *                   table, frees the top 4 numbers, and 4 workers each
 *                   compute, then open a file: "pool: 4 of 4 opened,
 *                   numbers 1020-1023"
 *   rt-nofile full  soft and hard limit both 1024 (as in many
 *                   containers): main fills its table, a thread works,
 *                   and the program exits with no number free: "full:
 *                   open refused (Too many open files), a thread ran"
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

static volatile double sink;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cond = PTHREAD_COND_INITIALIZER;
static int started, release;

/* Says it runs, works until released. */
static void *waiter(void *unused)
{
	long i = 0;

	pthread_mutex_lock(&lock);
	started = 1;
	pthread_cond_broadcast(&cond);
	pthread_mutex_unlock(&lock);
	while (!__atomic_load_n(&release, __ATOMIC_ACQUIRE))
		sink += (double)i++;
	return unused;
}

static void *worker(void *units)
{
	long i;

	for (i = 0; i < (long)units; i++)
		sink += (double)i;
	return NULL;
}

static int pool_fd[4];

static void *pool_worker(void *arg)
{
	long i = (long)arg, k;

	for (k = 0; k < 20000000; k++)
		sink += (double)k;
	pool_fd[i] = open("/dev/null", O_RDONLY);
	return NULL;
}

static int pool(void)
{
	struct rlimit rl;
	pthread_t t[4];
	long i;
	int ok = 0, lo = 1 << 30, hi = -1;

	getrlimit(RLIMIT_NOFILE, &rl);
	if (rl.rlim_max < 1024)
		return printf("pool: hard limit below 1024\n"), 1;
	rl.rlim_cur = 1024;
	setrlimit(RLIMIT_NOFILE, &rl);
	while (open("/dev/null", O_RDONLY) >= 0)
		;
	for (i = 0; i < 4; i++)
		close(1023 - (int)i);
	for (i = 0; i < 4; i++)
		pthread_create(&t[i], NULL, pool_worker, (void *)i);
	for (i = 0; i < 4; i++) {
		pthread_join(t[i], NULL);
		if (pool_fd[i] >= 0) {
			ok++;
			lo = pool_fd[i] < lo ? pool_fd[i] : lo;
			hi = pool_fd[i] > hi ? pool_fd[i] : hi;
		}
	}
	printf("pool: %d of 4 opened, numbers %d-%d\n", ok, lo, hi);
	return 0;
}

static int full(void)
{
	struct rlimit rl;
	pthread_t t;
	int err;

	getrlimit(RLIMIT_NOFILE, &rl);
	if (rl.rlim_max < 1024)
		return printf("full: hard limit below 1024\n"), 1;
	rl.rlim_cur = rl.rlim_max = 1024;
	if (setrlimit(RLIMIT_NOFILE, &rl))
		return perror("setrlimit"), 1;
	while (open("/dev/null", O_RDONLY) >= 0)
		;
	err = errno;
	if (pthread_create(&t, NULL, worker, (void *)20000000L))
		return perror("pthread_create"), 1;
	pthread_join(t, NULL);
	printf("full: open refused (%s), a thread ran\n", strerror(err));
	return 0;
}

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 1000, i, good = 0;
	struct rlimit rl;
	int first_err = 0;

	if (argc > 1 && !strcmp(argv[1], "pool"))
		return pool();
	if (argc > 1 && !strcmp(argv[1], "full"))
		return full();
	getrlimit(RLIMIT_NOFILE, &rl);
	rl.rlim_cur = 4;
	if (setrlimit(RLIMIT_NOFILE, &rl)) {
		perror("setrlimit");
		return 1;
	}
	if (argc > 1 && !strcmp(argv[1], "hold")) {
		pthread_t t;
		int fd;

		pthread_create(&t, NULL, waiter, NULL);
		pthread_mutex_lock(&lock);
		while (!started)
			pthread_cond_wait(&cond, &lock);
		pthread_mutex_unlock(&lock);
		fd = open("/dev/null", O_RDONLY);
		if (fd < 0)
			printf("with a thread running, open failed: %s\n", strerror(errno));
		else
			printf("with a thread running, open gave fd %d\n", fd);
		__atomic_store_n(&release, 1, __ATOMIC_RELEASE);
		pthread_join(t, NULL);
		return 0;
	}
	for (i = 0; i < n; i++) {
		pthread_t t;
		int fd;

		if (pthread_create(&t, NULL, worker, (void *)(i % 3 ? 0L : 1000000L))) {
			perror("pthread_create");
			return 1;
		}
		fd = open("/dev/null", O_RDONLY);
		if (fd == 3)
			good++;
		else if (!first_err)
			first_err = fd < 0 ? errno : -fd;
		if (fd >= 0)
			close(fd);
		pthread_join(t, NULL);
	}
	printf("fd 3 in %ld of %ld opens", good, n);
	if (first_err > 0)
		printf(" (first failure: %s)", strerror(first_err));
	else if (first_err < 0)
		printf(" (first other: fd %d)", -first_err);
	printf("\n");
	return 0;
}
