/* pf-spawn.c - one experiment, three programs: built three times under three
 * names, the first ("spawn-main") works N units itself, runs the second
 * through system() (so through /bin/sh) for 2N units and the third through
 * fork + execv for 3N units, and waits for both.  Each process prints the
 * CPU time it really worked, "NAME SECONDS", for the shares a test expects.
 * cc -O2 -g -o spawn-main "$TEST_PROGS/pf-spawn.c"   (and spawn-a, spawn-b)
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static volatile double sink;

__attribute__((noinline)) static void work(long n)
{
	double s = 0;

	for (long i = 0; i < n; i++)	/* CHECK: loop */
		s += (double)i * 0.5;
	sink = s;
}

static double cpu_seconds(void)
{
	struct timespec t;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
	return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

/* Works units * n iterations and prints "name seconds". */
static void run(const char *name, long units, long n)
{
	double t0 = cpu_seconds();

	work(units * n);
	printf("%s %.4f\n", name, cpu_seconds() - t0);
	fflush(stdout);
}

int main(int argc, char **argv)
{
	const char *self = strrchr(argv[0], '/');
	char cmd[4096], units[32];
	long n = argc > 1 ? atol(argv[1]) : 100000000;
	pid_t pid;

	self = self ? self + 1 : argv[0];
	if (argc > 2) {		/* a child: argv[2] units */
		run(self, atol(argv[2]), n);
		return 0;
	}
	run(self, 1, n);
	snprintf(cmd, sizeof(cmd), "./spawn-a %ld 2", n);
	if (system(cmd) != 0)
		return 1;
	snprintf(units, sizeof(units), "%ld", n);
	pid = fork();
	if (pid == 0) {
		execl("./spawn-b", "spawn-b", units, "3", (char *)NULL);
		_exit(127);
	}
	if (pid < 0 || waitpid(pid, NULL, 0) != pid)
		return 1;
	return 0;
}
