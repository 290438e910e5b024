/*
 * share-hostile.c - calls that hand the program's hottest heap block to
 * the kernel, for hpcrun --sharing (t1104): two threads hammer the block,
 * then main reads a file into it with pread, readv and a raw
 * syscall(SYS_pread64), asks getcwd for it, runs posix_spawn and vfork,
 * and takes a signal on an alternate signal stack allocated in the heap.
 * Build: cc -O2 -g -pthread -o share-hostile share-hostile.c
 * Run:   ./share-hostile FILE
 *
 * The truth: its output and exit status (0) are the same under hpcrun
 * --sharing as without it; every call succeeds.
 */
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define HOT (64 << 10)

extern char **environ;
static volatile long *hot;
static volatile sig_atomic_t on_alt;

static void *hammer(void *arg)
{
	long id = (long)arg, k, j;

	for (j = 0; j < 30000; j++)
		for (k = 0; k < HOT / 8; k += 8)
			hot[k + id]++;
	return NULL;
}

static void handler(int sig)
{
	stack_t ss;

	(void)sig;
	on_alt = !sigaltstack(NULL, &ss) && (ss.ss_flags & SS_ONSTACK);
}

static int check(const char *what, int ok)
{
	printf("%s: %s\n", what, ok ? "ok" : "FAILED");
	return ok ? 0 : 1;
}

int main(int argc, char **argv)
{
	char *buf, *args[] = { "true", NULL };
	struct iovec iov[2];
	struct sigaction sa;
	pthread_t t[2];
	stack_t ss;
	pid_t pid;
	int fd, status, bad = 0;
	long i;

	if (argc != 2)
		return 2;
	hot = calloc(HOT / 8, 8);
	for (i = 0; i < 2; i++)
		pthread_create(&t[i], NULL, hammer, (void *)i);
	for (i = 0; i < 2; i++)
		pthread_join(t[i], NULL);
	buf = (char *)hot;
	fd = open(argv[1], O_RDONLY);
	bad |= check("open", fd >= 0);
	bad |= check("pread", pread(fd, buf + 100, 64, 0) == 64);
	iov[0].iov_base = buf + 4096;
	iov[0].iov_len = 32;
	iov[1].iov_base = buf + 8192 + 7;
	iov[1].iov_len = 32;
	bad |= check("readv", lseek(fd, 0, SEEK_SET) == 0 && readv(fd, iov, 2) == 64);
	bad |= check("syscall pread64", syscall(SYS_pread64, fd, buf + 12288, 64, 0) == 64);
	bad |= check("same bytes", !memcmp(buf + 100, buf + 12288, 64) &&
		     !memcmp(buf + 100, buf + 4096, 32));
	close(fd);
	bad |= check("getcwd", getcwd(buf + 16384, 4096) != NULL);
	bad |= check("posix_spawn", !posix_spawnp(&pid, "true", NULL, NULL, args, environ) &&
		     waitpid(pid, &status, 0) == pid && WIFEXITED(status) &&
		     !WEXITSTATUS(status));
	pid = vfork();
	if (pid == 0)
		_exit(7);
	bad |= check("vfork", pid > 0 && waitpid(pid, &status, 0) == pid &&
		     WIFEXITED(status) && WEXITSTATUS(status) == 7);
	ss.ss_sp = buf + 20480;
	ss.ss_size = 32768;
	ss.ss_flags = 0;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = handler;
	sa.sa_flags = SA_ONSTACK;
	bad |= check("heap sigaltstack", !sigaltstack(&ss, NULL) &&
		     !sigaction(SIGUSR1, &sa, NULL) && !raise(SIGUSR1) && on_alt);
	return bad;
}
