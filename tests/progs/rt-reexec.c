/*
 * rt-reexec.c - a program that replaces itself by each way of exec, for
 * t1021: every image prints a line and spins 0.1 s of CPU time.
 *
 *   cc -O2 -o rt-reexec rt-reexec.c
 *   rt-reexec HOW    generations 0-3, each exec'ing the next with HOW:
 *                    "gen G how HOW", then "done" in generation 3
 *     execv          execv("/proc/self/exe")
 *     fexecve        fexecve on an O_RDONLY fd of /proc/self/exe
 *     execveat       execveat (libc) of "exe" relative to an O_PATH fd
 *                    of /proc/self
 *     sys-execveat   syscall(SYS_execveat) on an O_PATH fd of
 *                    /proc/self/exe, AT_EMPTY_PATH
 *     sys-execve     syscall(SYS_execve, "/proc/self/exe")
 *   rt-reexec fail   fexecve, then execveat (AT_EMPTY_PATH), each on a
 *                    closed fd, spinning before and after each: "fexecve:
 *                    Bad file descriptor", "execveat: Bad file
 *                    descriptor", "went on"
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "cpu-spin.h"

extern char **environ;

/* A fd number this process has not open. */
static int closed_fd(void)
{
	int fd = dup(0);

	close(fd);
	return fd;
}

static int fail(void)
{
	char *av[] = { "rt-reexec", "never", NULL };
	int fd;

	spin(0.1);
	fd = closed_fd();
	if (fexecve(fd, av, environ) == -1)
		printf("fexecve: %s\n", strerror(errno));
	spin(0.1);
	if (execveat(fd, "", av, environ, AT_EMPTY_PATH) == -1)
		printf("execveat: %s\n", strerror(errno));
	spin(0.1);
	printf("went on\n");
	return 0;
}

int main(int argc, char **argv)
{
	const char *how = argc > 1 ? argv[1] : "execv";
	int gen = argc > 2 ? atoi(argv[2]) : 0, fd;
	char next[16];
	char *av[] = { argv[0], (char *)how, next, NULL };

	if (!strcmp(how, "fail"))
		return fail();
	printf("gen %d how %s\n", gen, how);
	fflush(stdout);
	spin(0.1);
	if (gen >= 3) {
		printf("done\n");
		return 0;
	}
	snprintf(next, sizeof(next), "%d", gen + 1);
	if (!strcmp(how, "execv")) {
		execv("/proc/self/exe", av);
	} else if (!strcmp(how, "fexecve")) {
		fd = open("/proc/self/exe", O_RDONLY | O_CLOEXEC);
		fexecve(fd, av, environ);
	} else if (!strcmp(how, "execveat")) {
		fd = open("/proc/self", O_PATH | O_DIRECTORY | O_CLOEXEC);
		execveat(fd, "exe", av, environ, 0);
	} else if (!strcmp(how, "sys-execveat")) {
		fd = open("/proc/self/exe", O_PATH | O_CLOEXEC);
		syscall(SYS_execveat, fd, "", av, environ, AT_EMPTY_PATH);
	} else if (!strcmp(how, "sys-execve")) {
		syscall(SYS_execve, "/proc/self/exe", av, environ);
	}
	perror(how);
	return 1;
}
