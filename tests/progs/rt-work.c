/*
 * rt-work.c - known work for the hpcrun tests; the mode is argv[1].
 *
 * Build: cc -O2 -fomit-frame-pointer -pthread -o rt-work rt-work.c
 *
 *   split N         heavy() does 3*N units, light() N units (75% / 25%);
 *                   prints the CPU-time split as it really was
 *                   ("heavy 75.10 light 24.90"), which the tests hold
 *                   the profile to: a loaded machine can stray from 3:1
 *   threads N       thread_heavy 3*N units, thread_light N units, main
 *                   none; prints the threads' real split the same way
 *   recurse D N     recurse() D levels deep (not tail calls), N units at the bottom
 *   many T          T short-lived threads, each one unit
 *   c11 N           a C11 thread (thrd_create) runs c11_worker, N units
 *   fork N          child and parent each do N units; parent waits
 *   clonefork N     the same, the fork made by syscall(SYS_clone, SIGCHLD)
 *                   (as runtimes that bypass glibc's fork do); clone3fork N
 *                   by syscall(SYS_clone3)
 *   daemon N FILE   heavy(N), then daemon(0, 0): the daemon does light(N)
 *                   and writes its working directory and what its stdin
 *                   is to FILE ("cwd /, stdin /dev/null")
 *   exec N          N units, then exec's itself as "split N"
 *   execfail N      heavy(N), a failing exec, then light(N)
 *   crash N         N units, then a SIGSEGV
 *   abort N         N units, then abort()
 *   altstack N      raise(SIGUSR1), whose handler on_usr1 runs on an
 *                   alternate signal stack and does heavy(N)
 *   coro N          light(N) on a makecontext stack (a coroutine)
 *   blockall N      blocks every signal with sigprocmask, then heavy(N)
 *                   again and again until the thread used 0.3 s of CPU
 *                   (so many samples on any CPU, however fast)
 *   spawn N         posix_spawn itself as "split N", N units, wait
 *   vfork N         vfork + exec itself as "split N", N units, wait
 *   sigprof         own SIGPROF handler with ITIMER_PROF; prints what it saw
 *   term N          N units, then SIGTERM to itself (default action)
 *   dlopen LIB N    dlopen LIB, N units in its dso_work(), dlclose, N units
 *   dlthread LIB N [LIB2]  a thread runs LIB's dso_work() N units, then
 *                   waits (no CPU) while main dlcloses LIB (and dlopens
 *                   LIB2, which may take LIB's addresses), then ends
 *   exit S          one unit then exit(S);  _exit S: the same with _exit
 */
#include <dlfcn.h>
#include <pthread.h>
#include <signal.h>
#include <spawn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <threads.h>
#include <time.h>
#include <ucontext.h>
#include <unistd.h>

static volatile double sink;

/* One unit is about 10 ms of CPU on the test machines. */
#define UNIT 10000000L

static inline __attribute__((always_inline)) void spin(long units)
{
	double s = sink;
	long i;

	for (i = 0; i < units * UNIT; i++)
		s += (double)i * 0.5;
	sink = s;
}

__attribute__((noinline)) void heavy(long n) { spin(3 * n); }
__attribute__((noinline)) void light(long n) { spin(n); }

/* CPU seconds of the calling thread so far. */
static double cpu_seconds(void)
{
	struct timespec t;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
	return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

static void print_split(double heavy_s, double light_s)
{
	printf("heavy %.2f light %.2f\n", 100 * heavy_s / (heavy_s + light_s),
	       100 * light_s / (heavy_s + light_s));
}

static double thread_cpu[2];	/* thread_heavy's, thread_light's */

static void *thread_heavy(void *arg)
{
	spin(3 * (long)arg);
	thread_cpu[0] = cpu_seconds();
	return NULL;
}

static void *thread_light(void *arg)
{
	spin((long)arg);
	thread_cpu[1] = cpu_seconds();
	return NULL;
}
static void *thread_one(void *arg) { (void)arg; spin(1); return NULL; }

/* dlthread: the worker's library function, and the two hand-overs. */
static void (*dso_fn)(long);
static pthread_mutex_t dl_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t dl_cond = PTHREAD_COND_INITIALIZER;
static int dl_stage;		/* 1: worker done in LIB; 2: LIB closed */

static void *dl_worker(void *arg)
{
	dso_fn((long)arg);
	pthread_mutex_lock(&dl_lock);
	dl_stage = 1;
	pthread_cond_broadcast(&dl_cond);
	while (dl_stage != 2)
		pthread_cond_wait(&dl_cond, &dl_lock);
	pthread_mutex_unlock(&dl_lock);
	return NULL;
}
static int c11_worker(void *arg) { spin((long)arg); return 7; }

__attribute__((noinline)) long recurse(int depth, long n)
{
	long r;

	if (depth == 0) {
		spin(n);
		return 1;
	}
	r = recurse(depth - 1, n);
	sink += (double)r;	/* work after the call: no tail call */
	return r + 1;
}

static void on_usr1(int sig)
{
	(void)sig;
	heavy(10);
	sink += 1;	/* no tail call */
}

static ucontext_t main_ctx, coro_ctx;
static long coro_units;

static void coro_body(void)
{
	light(coro_units);
	sink += 1;	/* no tail call */
}

static volatile int prof_ticks;

static void on_prof(int sig)
{
	(void)sig;
	prof_ticks++;
}

int main(int argc, char **argv)
{
	const char *mode = argc > 1 ? argv[1] : "split";
	long n = argc > 2 ? atol(argv[2]) : 10;

	if (!strcmp(mode, "split")) {
		double t0 = cpu_seconds(), t1;

		heavy(n);
		t1 = cpu_seconds();
		light(n);
		print_split(t1 - t0, cpu_seconds() - t1);
	} else if (!strcmp(mode, "threads")) {
		pthread_t a, b;

		pthread_create(&a, NULL, thread_heavy, (void *)n);
		pthread_create(&b, NULL, thread_light, (void *)n);
		pthread_join(a, NULL);
		pthread_join(b, NULL);
		print_split(thread_cpu[0], thread_cpu[1]);
	} else if (!strcmp(mode, "recurse")) {
		long d = recurse((int)n, argc > 3 ? atol(argv[3]) : 20);

		printf("depth %ld\n", d - 1);
	} else if (!strcmp(mode, "many")) {
		long i;

		for (i = 0; i < n; i++) {
			pthread_t t;

			pthread_create(&t, NULL, thread_one, NULL);
			pthread_join(t, NULL);
		}
	} else if (!strcmp(mode, "c11")) {
		thrd_t t;
		int r = 0;

		thrd_create(&t, c11_worker, (void *)n);
		thrd_join(t, &r);
		printf("c11 thread returned %d\n", r);
	} else if (!strcmp(mode, "fork") || !strcmp(mode, "clonefork") ||
		   !strcmp(mode, "clone3fork")) {
		/* struct clone_args: flags, pidfd, child_tid, parent_tid,
		 * exit_signal, then 3 more (linux/sched.h) */
		uint64_t ca[8] = { 0, 0, 0, 0, SIGCHLD, 0, 0, 0 };
		pid_t pid = !strcmp(mode, "fork") ? fork() :
			    !strcmp(mode, "clonefork") ?
			    (pid_t)syscall(SYS_clone, SIGCHLD, 0, 0, 0, 0) :
			    (pid_t)syscall(SYS_clone3, ca, sizeof(ca));
		int st;

		if (pid == 0) {
			light(n);
			exit(0);
		}
		heavy(n);
		waitpid(pid, &st, 0);
		printf("child %d\n", WEXITSTATUS(st));
	} else if (!strcmp(mode, "daemon") && argc > 3) {
		char cwd[256], in[256];
		ssize_t len;
		FILE *f;

		heavy(n);
		if (daemon(0, 0)) {
			perror("daemon");
			return 1;
		}
		light(n);
		len = readlink("/proc/self/fd/0", in, sizeof(in) - 1);
		in[len > 0 ? len : 0] = '\0';
		if (!getcwd(cwd, sizeof(cwd)) || !(f = fopen(argv[3], "w")))
			return 1;
		fprintf(f, "cwd %s, stdin %s\n", cwd, in);
		fclose(f);
	} else if (!strcmp(mode, "exec")) {
		char num[32];

		heavy(n);
		snprintf(num, sizeof(num), "%ld", n);
		execl("/proc/self/exe", argv[0], "split", num, (char *)NULL);
		perror("exec");
		return 1;
	} else if (!strcmp(mode, "execfail")) {
		heavy(n);
		execl("/nonexistent/program", "x", (char *)NULL);
		perror("exec");
		light(n);
	} else if (!strcmp(mode, "crash")) {
		heavy(n);
		*(volatile int *)(long)sink = 1;
	} else if (!strcmp(mode, "altstack")) {
		stack_t ss = { .ss_sp = malloc(65536), .ss_size = 65536 };
		struct sigaction sa;

		memset(&sa, 0, sizeof(sa));
		sa.sa_handler = on_usr1;
		sa.sa_flags = SA_ONSTACK;
		sigaltstack(&ss, NULL);
		sigaction(SIGUSR1, &sa, NULL);
		raise(SIGUSR1);
	} else if (!strcmp(mode, "blockall")) {
		sigset_t all;

		sigfillset(&all);
		sigprocmask(SIG_BLOCK, &all, NULL);
		do
			heavy(n);
		while (cpu_seconds() < 0.3);
	} else if (!strcmp(mode, "coro")) {
		coro_units = n;
		getcontext(&coro_ctx);
		coro_ctx.uc_stack.ss_sp = malloc(1 << 20);
		coro_ctx.uc_stack.ss_size = 1 << 20;
		coro_ctx.uc_link = &main_ctx;
		makecontext(&coro_ctx, coro_body, 0);
		swapcontext(&main_ctx, &coro_ctx);
		printf("coroutine done\n");
	} else if (!strcmp(mode, "abort")) {
		heavy(n);
		abort();
	} else if (!strcmp(mode, "spawn") || !strcmp(mode, "vfork")) {
		char num[32], *args[4];
		extern char **environ;
		pid_t pid;
		int st;

		snprintf(num, sizeof(num), "%ld", n);
		args[0] = argv[0];
		args[1] = (char *)"split";
		args[2] = num;
		args[3] = NULL;
		if (mode[0] == 's') {
			if (posix_spawn(&pid, "/proc/self/exe", NULL, NULL, args, environ))
				return 1;
		} else {
			pid = vfork();
			if (pid == 0) {
				execv("/proc/self/exe", args);
				_exit(127);
			}
		}
		heavy(n);
		waitpid(pid, &st, 0);
		printf("child %d\n", WEXITSTATUS(st));
	} else if (!strcmp(mode, "term")) {
		heavy(n);
		kill(getpid(), SIGTERM);
		return 0;
	} else if (!strcmp(mode, "dlthread")) {
		void *h = dlopen(argv[2], RTLD_NOW);
		pthread_t t;

		if (!h) {
			fprintf(stderr, "rt-work: %s\n", dlerror());
			return 1;
		}
		*(void **)&dso_fn = dlsym(h, "dso_work");
		pthread_create(&t, NULL, dl_worker, (void *)(argc > 3 ? atol(argv[3]) : 10));
		pthread_mutex_lock(&dl_lock);
		while (dl_stage != 1)
			pthread_cond_wait(&dl_cond, &dl_lock);
		dlclose(h);
		if (argc > 4 && !dlopen(argv[4], RTLD_NOW)) {
			fprintf(stderr, "rt-work: %s\n", dlerror());
			return 1;
		}
		dl_stage = 2;
		pthread_cond_broadcast(&dl_cond);
		pthread_mutex_unlock(&dl_lock);
		pthread_join(t, NULL);
	} else if (!strcmp(mode, "dlopen")) {
		void *h = dlopen(argv[2], RTLD_NOW);
		void (*fn)(long);

		if (!h) {
			fprintf(stderr, "rt-work: %s\n", dlerror());
			return 1;
		}
		*(void **)&fn = dlsym(h, "dso_work");
		n = argc > 3 ? atol(argv[3]) : 10;
		fn(n);
		dlclose(h);
		light(n);
	} else if (!strcmp(mode, "sigprof")) {
		struct itimerval it = { { 0, 1000 }, { 0, 1000 } };
		struct sigaction sa, old;

		memset(&sa, 0, sizeof(sa));
		sa.sa_handler = on_prof;
		sigaction(SIGPROF, &sa, NULL);
		setitimer(ITIMER_PROF, &it, NULL);
		while (prof_ticks < 20)
			light(1);
		it.it_value.tv_usec = it.it_interval.tv_usec = 0;
		setitimer(ITIMER_PROF, &it, NULL);
		sigaction(SIGPROF, NULL, &old);
		printf("sigprof handler %s, at least 20 ticks\n",
		       old.sa_handler == on_prof ? "kept" : "LOST");
	} else if (!strcmp(mode, "exit")) {
		light(1);
		exit((int)n);
	} else if (!strcmp(mode, "_exit")) {
		light(1);
		_exit((int)n);
	} else {
		fprintf(stderr, "rt-work: unknown mode '%s'\n", mode);
		return 2;
	}
	return 0;
}
