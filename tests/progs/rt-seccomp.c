/*
 * rt-seccomp.c - a program that sandboxes itself after it started, as
 * servers, parsers and browsers' workers do: it installs a seccomp filter
 * that kills the whole process at any system call it does not need, and
 * goes on working (threads computing, locking, allocating, printing).
 * Whatever hpcrun does after the filter is in place must make no system
 * call the program would not make, or the program dies of SIGSYS.
 *
 * Build: cc -O2 -g -pthread -o rt-seccomp rt-seccomp.c
 *
 *   rt-seccomp HOW   two workers compute from the start, a third waits
 *                    at a barrier with main (a pool's idle thread);
 *                    after 0.2 s of main's CPU time main installs the
 *                    filter by HOW, then meets the waiting thread:
 *     tsync          seccomp(2) with SECCOMP_FILTER_FLAG_TSYNC: every
 *                    thread under it at once (libseccomp's way)
 *     prctl          prctl(PR_SET_SECCOMP) on main alone, then main starts
 *                    a third worker, which inherits it
 *     strict         a third worker enters SECCOMP_MODE_STRICT (read,
 *                    write, exit, sigreturn only), computes, writes its
 *                    result to a pipe and leaves by the exit system call
 *     fork           as tsync, then main forks a child that computes,
 *                    prints and exits, and waits for it
 *     exec           as tsync, the filter allowing what an exec needs;
 *                    at the end main execs this program's child mode
 *                    (it computes and prints), still under the filter
 *     fail           a filter call that fails (a bad pointer: EFAULT);
 *                    the program goes on unfiltered
 *   then each worker computes as long again, main joins them, prints the
 *   sums and exits with status 0 through exit() (its destructors run).
 *   Main reads its CPU clock (a system call) before the filter only.
 *
 * Ground truth: stdout is the same in every run (the sums are fixed), the
 * status 0; natively the filter allows everything this program needs.
 */
#include <errno.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <pthread.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define ROUNDS 40

static volatile int sealed;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_barrier_t idle;
static unsigned long total;

static double cpu_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* A fixed amount of work, its result fixed. */
__attribute__((noinline)) static unsigned long compute(unsigned long seed)
{
	unsigned long x = seed, i;

	for (i = 0; i < 2000000; i++)
		x = x * 6364136223846793005UL + 1442695040888963407UL;
	return x;
}

/* ROUNDS rounds, half before the filter and half after (a worker
 * started after it does all of its rounds under it). */
static void *worker(void *arg)
{
	unsigned long sum = 0, seed = (unsigned long)arg;
	int r;

	for (r = 0; r < ROUNDS; r++) {
		char *p;

		if (r == ROUNDS / 2)
			while (!__atomic_load_n(&sealed, __ATOMIC_ACQUIRE))
				sum += compute(seed + 1000 + (unsigned long)r) & 0;
		p = malloc(4096 + (size_t)r * 64);
		sum += compute(seed + (unsigned long)r);
		if (p) {
			memset(p, r, 64);
			sum += (unsigned char)p[r % 64];
			free(p);
		}
		pthread_mutex_lock(&lock);
		total += sum & 0xff;
		pthread_mutex_unlock(&lock);
	}
	return (void *)sum;
}

/* A pool's idle thread: it waits through the filter's installation. */
static void *waiter(void *arg)
{
	pthread_barrier_wait(&idle);
	return (void *)(compute(99) + (unsigned long)arg);
}

/* The strict worker: only read, write, exit and sigreturn from its
 * entry into strict mode on. */
static int strict_pipe[2];

static void *strict_worker(void *arg)
{
	unsigned long sum = 0;
	int r;

	(void)arg;
	if (prctl(PR_SET_SECCOMP, SECCOMP_MODE_STRICT))
		return NULL;
	for (r = 0; r < ROUNDS; r++)
		sum += compute(77 + (unsigned long)r);
	if (write(strict_pipe[1], &sum, sizeof(sum)) != sizeof(sum))
		syscall(SYS_exit, 1);
	syscall(SYS_exit, 0);
	return NULL;
}

/* What this program calls once filtered, and nothing else. */
static const int allowed[] = {
	SYS_read, SYS_write, SYS_exit, SYS_exit_group, SYS_futex,
	SYS_rt_sigreturn, SYS_rt_sigprocmask, SYS_madvise, SYS_munmap,
	SYS_mmap, SYS_mprotect, SYS_brk, SYS_clone, SYS_clone3,
	SYS_set_robust_list, SYS_rseq, SYS_getrandom, SYS_wait4,
};
/* And what an exec of a dynamically linked program needs. */
static const int exec_allowed[] = {
	SYS_execve, SYS_openat, SYS_newfstatat, SYS_close, SYS_pread64,
	SYS_access, SYS_arch_prctl, SYS_set_tid_address, SYS_prlimit64,
	SYS_ioctl,
};
#define NALLOWED (sizeof(allowed) / sizeof(allowed[0]) + \
		  sizeof(exec_allowed) / sizeof(exec_allowed[0]))
static struct sock_filter filter[5 + 2 * NALLOWED];

/* The filter: kill the process at any call but those allowed (and, with
 * exec, those of exec_allowed). */
static unsigned short build(int exec)
{
	unsigned short n = 0;
	size_t i;

	filter[n++] = (struct sock_filter)BPF_STMT(BPF_LD | BPF_W | BPF_ABS,
			offsetof(struct seccomp_data, arch));
	filter[n++] = (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K,
			AUDIT_ARCH_X86_64, 1, 0);
	filter[n++] = (struct sock_filter)BPF_STMT(BPF_RET | BPF_K,
			SECCOMP_RET_KILL_PROCESS);
	filter[n++] = (struct sock_filter)BPF_STMT(BPF_LD | BPF_W | BPF_ABS,
			offsetof(struct seccomp_data, nr));
	for (i = 0; i < NALLOWED; i++) {
		size_t na = sizeof(allowed) / sizeof(allowed[0]);
		int nr = i < na ? allowed[i] : exec_allowed[i - na];

		if (i >= na && !exec)
			break;
		filter[n++] = (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ |
				BPF_K, (unsigned)nr, 0, 1);
		filter[n++] = (struct sock_filter)BPF_STMT(BPF_RET | BPF_K,
				SECCOMP_RET_ALLOW);
	}
	filter[n++] = (struct sock_filter)BPF_STMT(BPF_RET | BPF_K,
			SECCOMP_RET_KILL_PROCESS);
	return n;
}

static int seal(const char *how)
{
	struct sock_fprog prog = { build(!strcmp(how, "exec")), filter };

	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0))
		return -1;
	if (!strcmp(how, "tsync") || !strcmp(how, "fork") ||
	    !strcmp(how, "exec"))
		return (int)syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER,
				    SECCOMP_FILTER_FLAG_TSYNC, &prog);
	if (!strcmp(how, "prctl"))
		return prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog);
	if (!strcmp(how, "fail")) {
		if (syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, 0,
			    (void *)8) == 0 || errno != EFAULT)
			return -1;
		return 0;
	}
	return 0;		/* strict: the worker's own */
}

int main(int argc, char **argv)
{
	pthread_t t[3], w;
	unsigned long sums[3] = { 0, 0, 0 }, s, waited;
	void *r;
	int i, n = 2;

	if (argc == 2 && !strcmp(argv[1], "child")) {
		printf("child %lx\n", compute(11));
		return 0;
	}
	if (argc != 2 || (strcmp(argv[1], "tsync") && strcmp(argv[1], "prctl") &&
			  strcmp(argv[1], "strict") && strcmp(argv[1], "fork") &&
			  strcmp(argv[1], "exec") && strcmp(argv[1], "fail"))) {
		fprintf(stderr, "usage: rt-seccomp "
			"tsync|prctl|strict|fork|exec|fail\n");
		return 2;
	}
	printf("workers start\n");
	fflush(stdout);
	if (!strcmp(argv[1], "strict") && pipe(strict_pipe))
		return 1;
	if (pthread_barrier_init(&idle, NULL, 2) ||
	    pthread_create(&w, NULL, waiter, NULL))
		return 1;
	for (i = 0; i < 2; i++)
		if (pthread_create(&t[i], NULL, worker, (void *)(unsigned long)(i + 1)))
			return 1;
	while (cpu_s() < 0.2)
		s = compute(5);
	if (seal(argv[1])) {
		fprintf(stderr, "rt-seccomp: %s: %s\n", argv[1], strerror(errno));
		return 1;
	}
	__atomic_store_n(&sealed, 1, __ATOMIC_RELEASE);
	pthread_barrier_wait(&idle);
	if (pthread_join(w, &r))
		return 1;
	waited = (unsigned long)r;
	if (!strcmp(argv[1], "prctl") &&
	    !pthread_create(&t[2], NULL, worker, (void *)3UL))
		n = 3;
	if (!strcmp(argv[1], "strict") &&
	    !pthread_create(&t[2], NULL, strict_worker, NULL)) {
		if (read(strict_pipe[0], &sums[2], sizeof(sums[2])) != sizeof(sums[2]))
			return 1;
		pthread_join(t[2], NULL);
	}
	if (!strcmp(argv[1], "fork")) {
		pid_t pid;
		int status;

		fflush(stdout);
		pid = fork();
		if (pid == 0) {
			printf("child %lx\n", compute(11));
			exit(0);
		}
		if (pid < 0 || waitpid(pid, &status, 0) != pid || status)
			return 1;
	}
	for (i = 0; i < n; i++) {
		pthread_join(t[i], &r);
		sums[i] = (unsigned long)r;
	}
	(void)s;
	if (!strcmp(argv[1], "exec")) {
		char *args[] = { argv[0], "child", NULL };

		printf("sums %lx %lx\n", sums[0], sums[1]);
		fflush(stdout);
		execv("/proc/self/exe", args);
		return 1;
	}
	printf("sums %lx %lx %lx waited %lx total %lu\n", sums[0], sums[1],
	       sums[2], waited, total);
	exit(0);
}
