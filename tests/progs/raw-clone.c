/*
 * raw-clone.c - a program that makes its threads as language runtimes and
 * JITs do, without pthread_create: a raw clone or clone3 with a stack of
 * its own (mmap'd, 64 KiB) and, as Go does, maybe a TLS block of its own;
 * the threads hpcrun must find and measure from outside (t1080).
 *
 * Build: cc -O2 -g -o raw-clone raw-clone.c
 * Run:   raw-clone HOW N SECONDS
 *   HOW    clone    glibc's clone(): CLONE_VM|CLONE_FS|CLONE_FILES|
 *                   CLONE_SIGHAND|CLONE_THREAD|CLONE_SYSVSEM|
 *                   CLONE_PARENT_SETTID|CLONE_CHILD_CLEARTID, the
 *                   creator's TLS
 *          clone3   the raw clone3 system call, the same flags
 *          go       clone3 with CLONE_SETTLS: a TLS block of the thread's
 *                   own, no glibc code run on it
 *          exit     as clone3, the first thread ends with SYS_exit after
 *                   half its work while the others go on
 *          late     as clone3, made once main has spun: a process whose
 *                   threads stayed the same for SECONDS makes one
 *   N raw threads each spin SECONDS of their own CPU time in raw_work;
 *   main spins SECONDS in main_work meanwhile (late: before it makes
 *   them), then waits for them.
 *
 * A raw thread calls no libc function: its clock and its exit are
 * system calls of its own (raw_syscall).  The truth it prints, from each
 * thread's CPU clock and the iterations it counted:
 *
 *   raw_work P main_work Q       each function's share of the CPU time, %
 *   iterations raw_work I main_work J
 *   threads N
 */
#define _GNU_SOURCE
#include <linux/futex.h>
#include <linux/sched.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#define STACK (64 << 10)
#define MAX_THREADS 16
#define FLAGS (CLONE_VM | CLONE_FS | CLONE_FILES | CLONE_SIGHAND | CLONE_THREAD | \
	       CLONE_SYSVSEM | CLONE_PARENT_SETTID | CLONE_CHILD_CLEARTID)

struct job {
	double seconds;		/* to spin */
	double cpu;		/* spun */
	uint64_t iterations;
	int exit_early;		/* SYS_exit from inside raw_work */
	volatile int tid;	/* cleared by the kernel at the thread's end */
};

static long raw_syscall2(long n, long a, long b)
{
	long r;

	__asm__ volatile("syscall" : "=a"(r) : "a"(n), "D"(a), "S"(b)
			 : "rcx", "r11", "memory");
	return r;
}

/* The calling thread's CPU time, with no libc. */
static inline __attribute__((always_inline)) double cpu_now(void)
{
	struct timespec ts;

	raw_syscall2(SYS_clock_gettime, CLOCK_THREAD_CPUTIME_ID, (long)&ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* Spins j->seconds of CPU time, counting iterations of 1000 additions. */
#define SPIN(j) do { \
	double start_ = cpu_now(), end_ = start_ + (j)->seconds; \
	volatile unsigned long x_ = 0; \
	while (cpu_now() < end_) { \
		for (int i_ = 0; i_ < 1000; i_++) \
			x_ += (unsigned long)i_; \
		(j)->iterations++; \
	} \
	(j)->cpu = cpu_now() - start_; \
} while (0)

__attribute__((noinline)) static void raw_work(struct job *j)
{
	SPIN(j);
	if (j->exit_early)
		raw_syscall2(SYS_exit, 0, 0);
}

__attribute__((noinline)) static void main_work(struct job *j)
{
	SPIN(j);
}

static int raw_start(void *p)
{
	raw_work(p);
	return 0;
}

static void raw_start3(void *p)
{
	raw_work(p);
}

/* clone3 with args a: fn(arg) runs on the new stack, then SYS_exit. */
static long raw_clone3(struct clone_args *a, void (*fn)(void *), void *arg)
{
	register void (*r12)(void *) __asm__("r12") = fn;
	register void *r13 __asm__("r13") = arg;
	long r;

	__asm__ volatile("syscall\n\t"
			 "test %%rax, %%rax\n\t"
			 "jnz 1f\n\t"
			 "xor %%ebp, %%ebp\n\t"
			 "mov %%r13, %%rdi\n\t"
			 "call *%%r12\n\t"
			 "mov $60, %%eax\n\t"
			 "xor %%edi, %%edi\n\t"
			 "syscall\n"
			 "1:"
			 : "=a"(r)
			 : "a"(SYS_clone3), "D"(a), "S"(sizeof(*a)), "r"(r12), "r"(r13)
			 : "rcx", "r11", "memory");
	return r;
}

/* A TLS block as glibc's x86-64 TCB starts: its own address, and the
 * stack guard the program's code checks. */
static void *tls_block(void)
{
	char *b = mmap(NULL, 4096, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	uintptr_t guard;

	if (b == MAP_FAILED)
		return NULL;
	__asm__("mov %%fs:0x28, %0" : "=r"(guard));
	*(void **)(b + 2048) = b + 2048;
	memcpy(b + 2048 + 0x28, &guard, sizeof(guard));
	return b + 2048;
}

int main(int argc, char **argv)
{
	struct job jobs[MAX_THREADS], mj = { 0 };
	int n = argc > 2 ? atoi(argv[2]) : 1, i, tls, late;
	double secs = argc > 3 ? atof(argv[3]) : 1, raw_cpu = 0;
	const char *how = argc > 1 ? argv[1] : "clone";
	uint64_t raw_it = 0;

	if (n < 1 || n > MAX_THREADS || secs <= 0) {
		fprintf(stderr, "usage: raw-clone clone|clone3|go|exit|late N SECONDS\n");
		return 2;
	}
	tls = !strcmp(how, "go");
	late = !strcmp(how, "late");
	mj.seconds = secs;
	if (late)
		main_work(&mj);
	for (i = 0; i < n; i++) {
		char *stack = mmap(NULL, STACK, PROT_READ | PROT_WRITE,
				   MAP_PRIVATE | MAP_ANONYMOUS | MAP_STACK, -1, 0);
		struct job *j = &jobs[i];
		long r;

		memset(j, 0, sizeof(*j));
		j->seconds = secs;
		j->exit_early = i == 0 && !strcmp(how, "exit");
		if (j->exit_early)
			j->seconds = secs / 2;
		if (stack == MAP_FAILED) {
			perror("raw-clone: mmap");
			return 1;
		}
		if (!strcmp(how, "clone")) {
			r = clone(raw_start, stack + STACK, FLAGS, j, (pid_t *)&j->tid, NULL,
				  (pid_t *)&j->tid);
		} else {
			struct clone_args a = {
				.flags = FLAGS | (tls ? CLONE_SETTLS : 0),
				.parent_tid = (uintptr_t)&j->tid,
				.child_tid = (uintptr_t)&j->tid,
				.stack = (uintptr_t)stack,
				.stack_size = STACK,
				.tls = tls ? (uintptr_t)tls_block() : 0,
			};

			r = raw_clone3(&a, raw_start3, j);
		}
		if (r < 0) {
			fprintf(stderr, "raw-clone: %s failed\n", how);
			return 1;
		}
	}
	if (!late)
		main_work(&mj);
	for (i = 0; i < n; i++) {
		int t;

		while ((t = jobs[i].tid))
			syscall(SYS_futex, &jobs[i].tid, FUTEX_WAIT, t, NULL);
		raw_cpu += jobs[i].cpu;
		raw_it += jobs[i].iterations;
	}
	printf("raw_work %.2f main_work %.2f\n", 100 * raw_cpu / (raw_cpu + mj.cpu),
	       100 * mj.cpu / (raw_cpu + mj.cpu));
	printf("iterations raw_work %llu main_work %llu\n",
	       (unsigned long long)raw_it, (unsigned long long)mj.iterations);
	printf("threads %d\n", n);
	return 0;
}
