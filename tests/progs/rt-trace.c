/*
 * rt-trace.c - phases in a known order for known CPU times on two threads,
 * for hpcrun -t (tests/t1112-hpcrun-trace.sh):
 *   main:   a (0.4 s), starts the worker, b (0.6 s), the barrier, c (0.4 s)
 *   worker: x (0.2 s), y (0.2 s), the barrier (waits for main's b)
 * Each phase prints its truth, "PHASE THREAD BEGIN END" (CLOCK_MONOTONIC
 * ns, the traces' clock), after the run.
 *   rt-trace phases   the above
 *   rt-trace kill     the above, then SIGKILL before main returns
 *   rt-trace fork     a in a fork child (which exits), then the above
 *   rt-trace execfail a, an exec that fails, c; no truth printed
 *   rt-trace execfail-thread   main: a, starts the worker, b, joins
 *                     it; the worker: x, an exec that fails, y, then the
 *                     exec of /bin/true, which ends it all; no truth
 * Build: cc -O0 -g -pthread -o rt-trace rt-trace.c (no inlining, no tail
 * calls, no folding of x and y: each phase is its own frame).
 */
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cpu-spin.h"

static pthread_barrier_t barrier;
static struct {
	const char *name;
	int thread;
	uint64_t begin, end;
} truth[8];
static int ntruth;

static uint64_t ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static void phase(const char *name, int thread, void (*fn)(void))
{
	uint64_t begin = ns();

	fn();
	truth[ntruth].name = name;
	truth[ntruth].thread = thread;
	truth[ntruth].begin = begin;
	truth[ntruth].end = ns();
	__atomic_add_fetch(&ntruth, 1, __ATOMIC_SEQ_CST);
}

static void a(void) { spin(0.4); }
static void b(void) { spin(0.6); }
static void c(void) { spin(0.4); }
static void x(void) { spin(0.2); }
static void y(void) { spin(0.2); }
static void wait_all(void) { pthread_barrier_wait(&barrier); }

static void *exec_worker(void *arg)
{
	(void)arg;
	phase("x", 1, x);
	execl("/nonexistent", "nonexistent", (char *)NULL);
	phase("y", 1, y);
	execl("/bin/true", "true", (char *)NULL);
	_exit(1);
}

static void *worker(void *arg)
{
	(void)arg;
	phase("x", 1, x);
	phase("y", 1, y);
	phase("wait", 1, wait_all);
	return NULL;
}

int main(int argc, char **argv)
{
	const char *mode = argc > 1 ? argv[1] : "phases";
	pthread_t t;
	int i;

	if (!strcmp(mode, "execfail")) {
		phase("a", 0, a);
		execl("/nonexistent", "nonexistent", (char *)NULL);
		phase("c", 0, c);
		return 0;
	}
	if (!strcmp(mode, "execfail-thread")) {
		phase("a", 0, a);
		pthread_create(&t, NULL, exec_worker, NULL);
		phase("b", 0, b);
		pthread_join(t, NULL);	/* the worker's exec ends it */
		return 1;
	}
	if (!strcmp(mode, "fork")) {
		pid_t pid = fork();

		if (pid == 0) {
			a();
			_exit(0);
		}
		waitpid(pid, NULL, 0);
	}
	pthread_barrier_init(&barrier, NULL, 2);
	phase("a", 0, a);
	pthread_create(&t, NULL, worker, NULL);
	phase("b", 0, b);
	phase("wait", 0, wait_all);
	phase("c", 0, c);
	pthread_join(t, NULL);
	for (i = 0; i < ntruth; i++)
		printf("%s %d %llu %llu\n", truth[i].name, truth[i].thread,
		       (unsigned long long)truth[i].begin,
		       (unsigned long long)truth[i].end);
	fflush(stdout);
	if (!strcmp(mode, "kill"))
		raise(SIGKILL);
	return 0;
}
