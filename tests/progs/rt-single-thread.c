/*
 * rt-single-thread.c - a single-threaded program making the system calls
 * the kernel allows only a process of one thread: unshare(CLONE_NEWUSER)
 * and setns into a user namespace, between two spans of work (t1081).
 *
 * Build: cc -O2 -g -o rt-single-thread rt-single-thread.c -lpthread
 * Run:   rt-single-thread HOW
 *   HOW  unshare   unshare(CLONE_NEWUSER)
 *        flags     unshare(CLONE_NEWUSER | CLONE_NEWNS | CLONE_FS)
 *        setns     setns(fd, CLONE_NEWUSER) into a child's new user
 *                  namespace
 *        setns0    the same with nstype 0 (the kind of fd decides)
 *        barrier   unshare(CLONE_NEWUSER) after a barrier of one thread
 *                  (under hpcrun, the hang detector runs)
 *        threads   unshare(CLONE_NEWUSER) with a second thread alive:
 *                  EINVAL
 * Prints "HOW: ok" or "HOW: " and the error; spins 0.3 s of CPU in
 * work_before before the call and 0.3 s in work_after after it; exit
 * status 0, 1 if a step of its own failed.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cpu-spin.h"

__attribute__((noinline)) static void work_before(void)
{
	spin(0.3);
}

__attribute__((noinline)) static void work_after(void)
{
	spin(0.3);
}

static void *idle(void *arg)
{
	(void)arg;
	for (;;)
		pause();
	return NULL;
}

/* A child in a user namespace of its own (its pid in *child), and a fd
 * of that namespace; -1 if a step failed. */
static int child_userns(pid_t *child)
{
	int p[2], fd;
	char c, path[64];

	if (pipe(p))
		return -1;
	*child = fork();
	if (*child < 0)
		return -1;
	if (!*child) {
		c = unshare(CLONE_NEWUSER) ? 'n' : 'y';
		if (write(p[1], &c, 1) != 1)
			_exit(1);
		for (;;)
			pause();
	}
	close(p[1]);
	if (read(p[0], &c, 1) != 1 || c != 'y')
		return -1;
	close(p[0]);
	snprintf(path, sizeof(path), "/proc/%d/ns/user", (int)*child);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	return fd;
}

int main(int argc, char **argv)
{
	const char *how = argc > 1 ? argv[1] : "unshare";
	pid_t child = 0;
	pthread_barrier_t b;
	pthread_t t;
	int r, fd = -1;

	if (!strcmp(how, "barrier") &&
	    (pthread_barrier_init(&b, NULL, 1) || pthread_barrier_wait(&b) > 0))
		return 1;
	work_before();
	if (!strcmp(how, "threads") && pthread_create(&t, NULL, idle, NULL))
		return 1;
	if (!strncmp(how, "setns", 5) && (fd = child_userns(&child)) < 0)
		return 1;
	if (!strcmp(how, "flags"))
		r = unshare(CLONE_NEWUSER | CLONE_NEWNS | CLONE_FS);
	else if (!strcmp(how, "setns"))
		r = setns(fd, CLONE_NEWUSER);
	else if (!strcmp(how, "setns0"))
		r = setns(fd, 0);
	else
		r = unshare(CLONE_NEWUSER);
	if (r)
		printf("%s: %s\n", how, strerror(errno));
	else
		printf("%s: ok\n", how);
	fflush(stdout);
	if (child) {
		kill(child, SIGKILL);
		waitpid(child, NULL, 0);
	}
	work_after();
	return 0;
}
