/*
 * rt-twosig.c - a supervisor that stops a worker with one signal and
 * sends a second right after, for t1068: the worker must die of the
 * first, under hpcrun as without it.
 *
 *   cc -O2 -o rt-twosig rt-twosig.c
 *
 *   rt-twosig S1 S2   forks a worker that waits in pause(), sends it S1
 *                     and S2 0.2 s later, back to back: "worker killed by
 *                     signal N", or "worker exit N"
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	int s1, s2, st;
	pid_t pid;

	if (argc < 3) {
		fprintf(stderr, "usage: rt-twosig S1 S2\n");
		return 2;
	}
	s1 = atoi(argv[1]);
	s2 = atoi(argv[2]);
	pid = fork();
	if (pid < 0)
		return 1;
	if (!pid)
		for (;;)
			pause();
	usleep(200000);
	kill(pid, s1);
	kill(pid, s2);
	if (waitpid(pid, &st, 0) != pid)
		return 1;
	if (WIFSIGNALED(st))
		printf("worker killed by signal %d\n", WTERMSIG(st));
	else
		printf("worker exit %d\n", WEXITSTATUS(st));
	return 0;
}
