/*
 * rt-altstack.c - signal handlers on an alternate signal stack, as
 * programs set them: a stack-overflow detector (Rust, libsigsegv, GNU
 * m4's c-stack) and runtimes whose handlers do real work there.  Prints
 * what it saw; its output is the same natively and under hpcrun.
 *
 *   busy N     an 8 KiB alternate stack (SIGSTKSZ as it long was) and a
 *              SIGUSR1 handler with SA_ONSTACK that uses N bytes of it
 *              and computes about 0.2 ms; raised 2000 times.  A canary
 *              below the stack must survive.  Then the handler's mask as
 *              the program reads it back with sigaction.
 *   overflow   a thread recurses until its guard page; the SIGSEGV
 *              handler on the alternate stack leaves by siglongjmp (which
 *              restores the mask), the thread then computes 1 s in
 *              after_overflow.
 *   jump       the same, the handler leaving by longjmp without
 *              SA_NODEFER: the handler's mask stays, SIGSEGV blocked.
 *   rearm S    a SIGALRM handler that sets itself again with signal(), as
 *              System V's handlers must, every millisecond, while main
 *              sets and reads back SIGUSR1's action for S seconds: the
 *              handler's sigaction often runs inside main's.
 *
 * Build: cc -O2 -g -pthread -Wl,-z,now -o rt-altstack rt-altstack.c
 * (bound at load: lazy binding's resolver, at the handler's first call of
 * a function, takes 3 KiB of the stack it runs on for its xsave area)
 */
#define _GNU_SOURCE
#include <alloca.h>
#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>
#include <time.h>

#define ALT_SIZE 8192
#define CANARY 256

static volatile double sink;
static volatile size_t used;
static unsigned long handled;
static sigjmp_buf sjb;
static jmp_buf jb;
static int use_siglongjmp;

static double cpu_seconds(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

__attribute__((noinline)) static void busy_handler(int sig)
{
	size_t n = used ? used : 1;
	volatile char *buf = alloca(n);
	long i;

	(void)sig;
	memset((char *)buf, 1, n);
	for (i = 0; i < 60000; i++)
		sink += i * 0.5 + buf[i % (long)n];
	handled++;
}

static int busy(size_t n)
{
	unsigned char *mem = malloc(ALT_SIZE + CANARY);
	stack_t ss = { .ss_sp = mem + CANARY, .ss_flags = 0, .ss_size = ALT_SIZE };
	struct sigaction sa, back;
	int i, s, extra = 0;

	used = n;
	memset(mem, 0xab, CANARY);
	if (sigaltstack(&ss, NULL))
		return perror("sigaltstack"), 1;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = busy_handler;
	sa.sa_flags = SA_ONSTACK;
	sigemptyset(&sa.sa_mask);
	sigaddset(&sa.sa_mask, SIGUSR2);
	sigaction(SIGUSR1, &sa, NULL);
	for (i = 0; i < 2000; i++)
		raise(SIGUSR1);
	for (i = 0; i < CANARY; i++)
		if (mem[i] != 0xab)
			return printf("canary below the alternate stack smashed\n"), 2;
	sigaction(SIGUSR1, NULL, &back);
	for (s = 1; s < NSIG; s++)
		if (sigismember(&back.sa_mask, s) && s != SIGUSR2)
			extra++;
	printf("handled %lu, read back: SIGUSR2 %s, %d others\n", handled,
	       sigismember(&back.sa_mask, SIGUSR2) ? "yes" : "no", extra);
	return 0;
}

static void segv_handler(int sig)
{
	(void)sig;
	if (use_siglongjmp)
		siglongjmp(sjb, 1);
	longjmp(jb, 1);
}

__attribute__((noinline)) static long recurse(long depth)
{
	volatile char pad[512];

	pad[0] = (char)depth;
	return recurse(depth + 1) + pad[0];
}

__attribute__((noinline)) static void after_overflow(void)
{
	double end = cpu_seconds() + 1.0;

	while (cpu_seconds() < end)
		for (int i = 0; i < 100000; i++)
			sink += i * 0.25;
}

static void *overflow_thread(void *arg)
{
	stack_t ss = { .ss_sp = malloc(65536), .ss_flags = 0, .ss_size = 65536 };
	int caught;

	(void)arg;
	sigaltstack(&ss, NULL);
	caught = use_siglongjmp ? sigsetjmp(sjb, 1) : setjmp(jb);
	if (!caught)
		recurse(0);
	after_overflow();
	return NULL;
}

static int overflow(int with_siglongjmp)
{
	struct sigaction sa;
	pthread_attr_t attr;
	pthread_t t;

	use_siglongjmp = with_siglongjmp;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = segv_handler;
	sa.sa_flags = SA_ONSTACK;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGSEGV, &sa, NULL);
	pthread_attr_init(&attr);
	pthread_attr_setstacksize(&attr, 1 << 20);
	pthread_create(&t, &attr, overflow_thread, NULL);
	pthread_join(t, NULL);
	printf("recovered from the overflow\n");
	return 0;
}

static volatile unsigned long alarms;

static void alarm_handler(int sig)
{
	signal(sig, alarm_handler);
	alarms++;
}

static int rearm(double seconds)
{
	struct itimerval it = { { 0, 1000 }, { 0, 1000 } };
	struct sigaction sa, old;
	double end = cpu_seconds() + seconds;
	unsigned long calls = 0;

	signal(SIGALRM, alarm_handler);
	setitimer(ITIMER_REAL, &it, NULL);
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = SIG_IGN;
	while (cpu_seconds() < end) {
		sigaction(SIGUSR1, &sa, &old);
		calls++;
	}
	memset(&it, 0, sizeof(it));
	setitimer(ITIMER_REAL, &it, NULL);
	printf("rearm: %s\n", alarms > 10 && calls > alarms ? "ok" : "too few");
	return 0;
}

int main(int argc, char **argv)
{
	const char *mode = argc > 1 ? argv[1] : "";

	if (!strcmp(mode, "busy") && argc > 2)
		return busy(strtoul(argv[2], NULL, 0));
	if (!strcmp(mode, "overflow"))
		return overflow(1);
	if (!strcmp(mode, "jump"))
		return overflow(0);
	if (!strcmp(mode, "rearm") && argc > 2)
		return rearm(atof(argv[2]));
	fprintf(stderr, "usage: rt-altstack busy N | overflow | jump | rearm S\n");
	return 2;
}
