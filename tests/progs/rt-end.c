/*
 * rt-end.c - every way a process can end, and programs hostile to the
 * profiler's writes and memory, for the hpcrun tests; the mode is argv[1].
 *
 * Build: cc -O2 -fomit-frame-pointer -pthread -o rt-end rt-end.c
 *
 * Each mode first does N units of work in work() (about 10 ms of CPU a
 * unit), prints "cpu MS" (the main thread's CPU time since main began)
 * and then ends:
 *   exit N, _exit N, return N   with status 3
 *   quick_exit N      quick_exit(3) with status 3, after an at_quick_exit
 *                     handler that prints "at_quick_exit"
 *   default SIG N     raise(SIG), no handler ever set (SIG by number)
 *   reraise SIG N     a handler (signal()) notes SIG; after it ran, main
 *                     does signal(SIG, SIG_DFL); raise(SIG), as xz and
 *                     CPython's KeyboardInterrupt do
 *   inhandler SIG N   raise(SIG); the work is done inside the handler,
 *                     which then does signal(SIG, SIG_DFL); raise(SIG)
 *   resethand SIG N   an SA_RESETHAND handler; raise(SIG) twice
 *   abort N           abort()
 *   aborth N          a SIGABRT handler that returns, saying "SIGABRT
 *                     handler ran" each time; abort()
 *   threads N T       T threads spin in spin_thread; raise(SIGTERM)
 *   exec N            exec's itself as "exit N"
 *   pause N           then prints "pid PID" and waits to be killed
 *   spin T            T threads (at most 16) spin in spin_thread; main
 *                     does 40 units, prints "pid PID" once each thread
 *                     has used 0.4 s of CPU time (a second at least) and
 *                     works until killed
 *   query             no work: sets and reads back actions of fatal
 *                     signals, printing what it reads (must match a run
 *                     without hpcrun)
 *   fsize N [hard|zero]  RLIMIT_FSIZE lowered to 1000 bytes (soft, or
 *                     soft and hard) or to 0 (zero: soft and hard), some
 *                     buffered output, then exit(5)
 *   fsize-sync N [hard]  the same, but between the limit and the output
 *                     main and a thread (made before the limit) meet at a
 *                     pthread barrier 40 times, each allocating and
 *                     touching 64 KiB blocks (side files of over 1000
 *                     bytes: .hpcsync; .hpcshare under --sharing)
 *   nofile N [hard]   RLIMIT_NOFILE lowered to 3 (soft, or soft and hard)
 *                     then exit(4)
 *   memory N          RLIMIT_AS lowered to 64 MiB: malloc(1 MiB) and a
 *                     thread must work; prints "memory ok" or what failed
 *   threads-as T      creates T threads that wait; prints how many it could
 *                     once they all run
 *   limit-watch T     the soft RLIMIT_NOFILE set to half the hard one (as
 *                     a shell's 1024 under a far higher hard limit), then
 *                     T threads of 3 ms each, one after another (each
 *                     end writes a profile), while main reads the limit:
 *                     "soft limit changed N times"
 *   limit-set T       as limit-watch, with a finite soft RLIMIT_FSIZE
 *                     that main sets to 64 KiB and 128 KiB in turn (as a
 *                     log rotator may), reading it back after each: "the
 *                     soft limit read back older N times, the last one
 *                     set stays: yes" (hpcrun lifts it for its writes, and
 *                     must never put an older one back over the program's)
 *   stackend N        4 threads of 64 KiB stacks each recurse until 6.5 KiB
 *                     of the stack is left, and work N units there:
 *                     "stackend ok"
 *   minstack N        a thread of PTHREAD_STACK_MIN bytes of stack (16 KiB,
 *                     its TLS taken from it) does N units: "minstack ok"
 *   terminate N C     C worker processes, as multiprocessing's pool: each
 *                     does N units, sends its answer up a pipe and exits;
 *                     main kills each with SIGTERM as soon as it has the
 *                     answer (terminate()), reaps them and prints the sum
 */
#define _GNU_SOURCE
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static volatile double sink;
static volatile sig_atomic_t seen;
static long units;

#define UNIT 10000000L

__attribute__((noinline)) void work(long n)
{
	double s = sink;
	long i;

	for (i = 0; i < n * UNIT; i++)
		s += (double)i * 0.5;
	sink = s;
}

static long start_ms;

static long cpu_ms(void)
{
	struct timespec t;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
	return t.tv_sec * 1000 + t.tv_nsec / 1000000;
}

static void print_cpu(void)
{
	printf("cpu %ld\n", cpu_ms() - start_ms);
	fflush(stdout);
}

static void on_note(int sig)
{
	seen = sig;
}

static void on_work(int sig)
{
	work(units);
	print_cpu();
	signal(sig, SIG_DFL);
	raise(sig);
	sink += 1;	/* no tail call */
}

static void on_once(int sig)
{
	(void)sig;
	work(units);
	sink += 1;
}

static void on_abrt(int sig)
{
	static const char ran[] = "SIGABRT handler ran\n";

	(void)sig;
	seen = 1;
	if (write(1, ran, sizeof(ran) - 1) < 0)
		seen = 2;
}

/* The CPU time thread t has used (s). */
static double thread_cpu(pthread_t t)
{
	struct timespec ts;
	clockid_t c;

	if (pthread_getcpuclockid(t, &c) || clock_gettime(c, &ts))
		return 1e9;
	return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static void *spin_thread(void *arg)
{
	(void)arg;
	for (;;)
		work(1);
	return NULL;
}

static int started;

static void *work_thread(void *arg)
{
	work(units);
	return arg;
}

static int churned;

/* Recurses until less than STACKEND_ROOM bytes of the thread's stack are
 * left below (lo its lowest address), then works there. */
#define STACKEND_ROOM 6656
__attribute__((noinline)) static double descend(uintptr_t lo, double x)
{
	volatile char pad[200];

	pad[0] = (char)x;
	if ((uintptr_t)pad - lo > STACKEND_ROOM)
		x += descend(lo, x + 1) * 0.5;
	else
		work(units);
	return x + pad[0];
}

static void *stackend_thread(void *arg)
{
	pthread_attr_t attr;
	void *lo;
	size_t size;

	if (pthread_getattr_np(pthread_self(), &attr) ||
	    pthread_attr_getstack(&attr, &lo, &size))
		return arg;
	sink += descend((uintptr_t)lo, 1);
	return arg;
}

/* About 3 ms of CPU. */
static void *short_thread(void *arg)
{
	double x = sink;
	long i;

	for (i = 0; i < UNIT / 3; i++)
		x += (double)i * 0.5;
	sink = x;
	return arg;
}

/* arg threads of short_thread, one after another. */
static void *churn_thread(void *arg)
{
	long i, n = (long)arg;
	pthread_t t;

	for (i = 0; i < n; i++) {
		if (pthread_create(&t, NULL, short_thread, NULL))
			break;
		pthread_join(t, NULL);
	}
	__atomic_store_n(&churned, 1, __ATOMIC_SEQ_CST);
	return NULL;
}

static void *wait_thread(void *arg)
{
	(void)arg;
	__atomic_add_fetch(&started, 1, __ATOMIC_SEQ_CST);
	pause();
	return NULL;
}

static void show(int sig, const char *what)
{
	struct sigaction o;

	sigaction(sig, NULL, &o);
	printf("%s %d: %s flags %#x mask-self %d mask-usr2 %d\n", what, sig,
	       (o.sa_flags & SA_SIGINFO) ? "siginfo" :
	       o.sa_handler == SIG_DFL ? "default" :
	       o.sa_handler == SIG_IGN ? "ignore" :
	       o.sa_handler == on_note ? "on_note" :
	       o.sa_handler == on_once ? "on_once" : "other",
	       (unsigned)o.sa_flags, sigismember(&o.sa_mask, sig),
	       sigismember(&o.sa_mask, SIGUSR2));
}

static void query(void)
{
	static const int sigs[] = { SIGINT, SIGTERM, SIGSEGV, SIGUSR1, SIGPIPE };
	struct sigaction sa, old;
	size_t i;

	for (i = 0; i < sizeof(sigs) / sizeof(sigs[0]); i++) {
		int s = sigs[i];

		show(s, "start");
		printf("signal() gave %s\n", signal(s, on_note) == SIG_DFL ? "default" : "other");
		show(s, "handler");
		memset(&sa, 0, sizeof(sa));
		sa.sa_handler = on_once;
		sa.sa_flags = SA_RESETHAND | SA_NODEFER;
		sigemptyset(&sa.sa_mask);
		sigaddset(&sa.sa_mask, SIGUSR2);
		sigaction(s, &sa, &old);
		printf("old %s flags %#x\n", old.sa_handler == on_note ? "on_note" : "other",
		       (unsigned)old.sa_flags);
		show(s, "resethand");
		signal(s, SIG_IGN);
		show(s, "ignore");
		signal(s, SIG_DFL);
		show(s, "default");
	}
}

static pthread_barrier_t meet;

/* 40 meetings at the barrier, each after touching a fresh 64 KiB block
 * for a few ms (data samples in heap blocks for --sharing). */
static void meet_rounds(void)
{
	int r;

	for (r = 0; r < 40; r++) {
		volatile char *p = malloc(65536);
		long i, k;

		for (k = 0; p && k < 4000; k++)
			for (i = 0; i < 65536; i += 64)
				p[i] += (char)k;
		free((void *)p);
		pthread_barrier_wait(&meet);
	}
}

static void *meet_thread(void *arg)
{
	(void)arg;
	pthread_barrier_wait(&meet);
	meet_rounds();
	return NULL;
}

static void limit(int res, rlim_t cur, int hard)
{
	struct rlimit rl;

	getrlimit(res, &rl);
	rl.rlim_cur = cur;
	if (hard)
		rl.rlim_max = cur;
	if (setrlimit(res, &rl))
		perror("setrlimit");
}

/* Mode terminate: C workers, each answering once and exiting; each
 * killed as soon as its answer is in, as a pool's terminate() does. */
static int terminate_pool(int c)
{
	long sum = 0, v;
	int fd[2], i;
	pid_t pid[16];

	if (c < 1 || c > 16 || pipe(fd))
		return 1;
	for (i = 0; i < c; i++) {
		pid[i] = fork();
		if (pid[i] < 0)
			return 1;
		if (pid[i] == 0) {
			work(units);
			v = i + 1;
			if (write(fd[1], &v, sizeof(v)) != sizeof(v))
				_exit(1);
			exit(0);
		}
	}
	for (i = 0; i < c; i++) {
		if (read(fd[0], &v, sizeof(v)) != sizeof(v))
			return 1;
		sum += v;
		kill(pid[v - 1], SIGTERM);
	}
	for (i = 0; i < c; i++)
		waitpid(pid[i], NULL, 0);
	printf("sum %ld\n", sum);
	return 0;
}

static void said_quick(void)
{
	puts("at_quick_exit");
	fflush(stdout);
}

int main(int argc, char **argv)
{
	const char *mode = argc > 1 ? argv[1] : "exit";
	int sig = 0;
	pthread_t t;
	long i;

	start_ms = cpu_ms();
	if (!strcmp(mode, "default") || !strcmp(mode, "reraise") ||
	    !strcmp(mode, "inhandler") || !strcmp(mode, "resethand")) {
		sig = argc > 2 ? atoi(argv[2]) : SIGTERM;
		units = argc > 3 ? atol(argv[3]) : 10;
	} else {
		units = argc > 2 ? atol(argv[2]) : 10;
	}
	if (!strcmp(mode, "query")) {
		query();
		return 0;
	}
	if (!strcmp(mode, "terminate"))
		return terminate_pool(argc > 3 ? atoi(argv[3]) : 2);
	if (!strcmp(mode, "inhandler")) {
		signal(sig, on_work);
		raise(sig);
		return 1;
	}
	if (!strcmp(mode, "resethand")) {
		struct sigaction sa;

		memset(&sa, 0, sizeof(sa));
		sa.sa_handler = on_once;
		sa.sa_flags = SA_RESETHAND;
		sigaction(sig, &sa, NULL);
		raise(sig);
		print_cpu();
		raise(sig);
		return 1;
	}
	if (!strcmp(mode, "threads-as")) {
		for (i = 0; i < units; i++)
			if (pthread_create(&t, NULL, wait_thread, NULL))
				break;
		while (__atomic_load_n(&started, __ATOMIC_SEQ_CST) < i)
			usleep(1000);
		printf("threads %ld\n", i);
		return 0;
	}
	if (!strcmp(mode, "limit-watch")) {
		struct rlimit rl, now;
		long changed = 0;

		getrlimit(RLIMIT_NOFILE, &rl);
		rl.rlim_cur = rl.rlim_max == RLIM_INFINITY ? 1024 : rl.rlim_max / 2;
		if (setrlimit(RLIMIT_NOFILE, &rl))
			return 1;
		if (pthread_create(&t, NULL, churn_thread, (void *)units))
			return 1;
		while (!__atomic_load_n(&churned, __ATOMIC_SEQ_CST)) {
			getrlimit(RLIMIT_NOFILE, &now);
			changed += now.rlim_cur != rl.rlim_cur;
		}
		pthread_join(t, NULL);
		printf("soft limit changed %ld times\n", changed);
		return 0;
	}
	if (!strcmp(mode, "limit-set")) {
		struct rlimit rl = { 65536, RLIM_INFINITY }, now;
		long older = 0, sets = 0;

		if (setrlimit(RLIMIT_FSIZE, &rl) ||
		    pthread_create(&t, NULL, churn_thread, (void *)units))
			return 1;
		while (!__atomic_load_n(&churned, __ATOMIC_SEQ_CST)) {
			rl.rlim_cur = sets++ % 2 ? 131072 : 65536;
			if (setrlimit(RLIMIT_FSIZE, &rl))
				return 1;
			getrlimit(RLIMIT_FSIZE, &now);
			/* the lifted limit is hpcrun's, said in hpcrun(1) */
			older += now.rlim_cur != rl.rlim_cur &&
				 now.rlim_cur != RLIM_INFINITY;
		}
		pthread_join(t, NULL);
		getrlimit(RLIMIT_FSIZE, &now);
		printf("the soft limit read back older %ld times, the last one "
		       "set stays: %s\n", older,
		       now.rlim_cur == rl.rlim_cur ? "yes" : "no");
		return 0;
	}
	if (!strcmp(mode, "stackend")) {
		pthread_attr_t attr;
		pthread_t w[4];

		pthread_attr_init(&attr);
		pthread_attr_setstacksize(&attr, 65536);
		for (i = 0; i < 4; i++)
			if (pthread_create(&w[i], &attr, stackend_thread, NULL))
				return 1;
		for (i = 0; i < 4; i++)
			pthread_join(w[i], NULL);
		printf("stackend ok\n");
		return 0;
	}
	if (!strcmp(mode, "minstack")) {
		pthread_attr_t attr;

		pthread_attr_init(&attr);
		pthread_attr_setstacksize(&attr, PTHREAD_STACK_MIN);
		if (pthread_create(&t, &attr, work_thread, NULL) || pthread_join(t, NULL))
			return 1;
		printf("minstack ok\n");
		return 0;
	}
	if (!strcmp(mode, "memory")) {
		void *p;

		limit(RLIMIT_AS, (rlim_t)64 << 20, 0);
		p = malloc((size_t)1 << 20);
		memset(p, 1, (size_t)1 << 20);
		if (pthread_create(&t, NULL, wait_thread, NULL))
			printf("pthread_create failed\n");
		else if (!p)
			printf("malloc failed\n");
		else
			printf("memory ok\n");
		work(units);
		return 0;
	}
	if (!strcmp(mode, "reraise"))
		signal(sig, on_note);
	if (!strcmp(mode, "reraise"))
		raise(sig);
	if (!strcmp(mode, "aborth"))
		signal(SIGABRT, on_abrt);
	if (!strcmp(mode, "threads"))
		for (i = 0; i < (argc > 3 ? atol(argv[3]) : 2); i++)
			pthread_create(&t, NULL, spin_thread, NULL);
	if (!strcmp(mode, "spin")) {
		/* T threads and main, each past 40 units of work: the
		 * threads' CPU clocks say when, however busy the machine */
		pthread_t ts[16];
		int n = units < 16 ? (int)units : 16, k;

		for (k = 0; k < n; k++)
			pthread_create(&ts[k], NULL, spin_thread, NULL);
		work(40);
		sleep(1);
		for (k = 0; k < n; k++)
			while (thread_cpu(ts[k]) < 0.4)
				usleep(10000);
		printf("pid %d\n", (int)getpid());
		fflush(stdout);
		for (;;)
			work(1);
	}
	work(units);
	print_cpu();
	if (!strcmp(mode, "exit"))
		exit(3);
	if (!strcmp(mode, "_exit"))
		_exit(3);
	if (!strcmp(mode, "quick_exit")) {
		at_quick_exit(said_quick);
		quick_exit(3);
	}
	if (!strcmp(mode, "return"))
		return 3;
	if (!strcmp(mode, "default"))
		raise(sig);
	if (!strcmp(mode, "reraise") && seen == sig) {
		signal(sig, SIG_DFL);
		raise(sig);
	}
	if (!strcmp(mode, "abort") || !strcmp(mode, "aborth"))
		abort();
	if (!strcmp(mode, "threads"))
		raise(SIGTERM);
	if (!strcmp(mode, "exec")) {
		char n[24];

		snprintf(n, sizeof(n), "%ld", units);
		execl("/proc/self/exe", argv[0], "exit", n, (char *)NULL);
	}
	if (!strcmp(mode, "pause")) {
		printf("pid %d\n", (int)getpid());
		fflush(stdout);
		for (;;)
			pause();
	}
	if (!strcmp(mode, "fsize")) {
		limit(RLIMIT_FSIZE, argc > 3 && !strcmp(argv[3], "zero") ? 0 : 1000,
		      argc > 3);
		printf("buffered output survives\n");
		exit(5);
	}
	if (!strcmp(mode, "fsize-sync")) {
		pthread_barrier_init(&meet, NULL, 2);
		pthread_create(&t, NULL, meet_thread, NULL);
		pthread_barrier_wait(&meet);	/* the thread runs */
		limit(RLIMIT_FSIZE, 1000, argc > 3);
		meet_rounds();
		pthread_join(t, NULL);
		printf("buffered output survives\n");
		exit(5);
	}
	if (!strcmp(mode, "nofile")) {
		limit(RLIMIT_NOFILE, 3, argc > 3);
		printf("nofile lowered\n");
		exit(4);
	}
	return 1;
}
