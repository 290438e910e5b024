/*
 * idle-poll.c - an event loop's shape: each round polls 500 idle pipe
 * ends with a 1 ms timeout and, every 50 rounds, sleeps 100 us in
 * nanosleep, retrying neither on EINTR, as a loop that owns its signals
 * need not.  Most of its CPU time is the kernel scanning the set, so a
 * sampling signal sent while the thread is in the kernel would land
 * inside a call that then blocks and end it (hpcrun(1), "How samples
 * are taken").  Prints how many calls were cut short; 0 natively.
 *
 *   cc -O2 -g -o idle-poll idle-poll.c
 *   ./idle-poll [ROUNDS]    (default 2000)
 */
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#define FDS 500

int main(int argc, char **argv)
{
	static struct pollfd set[FDS];
	struct timespec nap = { 0, 100000 };
	int rounds = argc > 1 ? atoi(argv[1]) : 2000, cut = 0, i;

	for (i = 0; i < FDS; i += 2) {
		int p[2];

		if (pipe(p)) {
			perror("pipe");
			return 2;
		}
		set[i].fd = set[i + 1].fd = p[0];
		set[i].events = set[i + 1].events = POLLIN;
	}
	for (i = 0; i < rounds; i++) {
		if (poll(set, FDS, 1) < 0) {
			if (errno != EINTR) {
				perror("poll");
				return 2;
			}
			cut++;
		}
		if (i % 50 == 0 && nanosleep(&nap, NULL) < 0)
			cut++;
	}
	printf("interrupted %d\n", cut);
	return 0;
}
