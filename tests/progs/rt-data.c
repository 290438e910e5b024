/*
 * rt-data.c - test program for hpcrun --data (t1070-t1072), one mode per
 * argument; each prints a result that depends only on its input, so a run
 * with and without --data must print the same.
 *
 *   arrays REPS   sweep() reads three arrays once per repetition, in six
 *                 sweeps of 1024 longs: static_arr (static, 1024 longs,
 *                 one sweep), the block of make_a (2048, two) and the
 *                 block of make_b (3072, three): work 1:2:3 in one function
 *   mapped REPS   sweep() reads an anonymous mapping of 8192 longs (from
 *                 make_m) REPS times
 *   faults        three threads each first touch one heap block of 64, 128
 *                 and 192 pages (allocated by main, untouched before)
 *   churn N       N malloc/free pairs of small blocks (and a few large)
 *   safety        malloc and free in a signal handler while the program
 *                 allocates, a block from a constructor, fork without exec,
 *                 free(NULL), realloc(NULL, n), memory of a custom
 *                 allocator (never given to free), aligned forms
 *   aslimit T     a memory-capped service: RLIMIT_AS its size + 96 MiB, T
 *                 threads of 256 KiB stacks that wait, while main
 *                 allocates 1 MiB blocks until refused; prints how many
 *                 threads it made (the blocks vary with the process's
 *                 own mappings: not printed)
 *   asroom T      room under RLIMIT_AS: its size + 512 MiB, T compute
 *                 workers that never allocate (40 ms of CPU each, then a
 *                 barrier), main allocating 1 MiB blocks until refused:
 *                 "room N MiB" (natively 512 less the workers' stacks)
 *
 * Build: cc -O2 -g -pthread -o rt-data rt-data.c   (gcc and clang)
 *        cc -O2 -g -DOWN_MALLOC -o rt-data-own rt-data.c   (the program
 *        replaces malloc, free, calloc and realloc with its own)
 *        cc -O2 -g -D_FILE_OFFSET_BITS=64 -o rt-data-64 rt-data.c   (mmap
 *        is mmap64)
 */
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <unistd.h>

/* static_arr's length; make_a's block is twice, make_b's three times as
 * long.  Each array is read once a repetition, so every element is read
 * again after the same 48 KiB of others: an element costs the same in each
 * array however much of the cache another process takes.  Passes of 1:2:3
 * over equal arrays would not: the array read after the most others pays
 * most for a noisy neighbour. */
#define N 1024

#ifdef OWN_MALLOC
/* A bump allocator with a size header: the program's own malloc. */
static char own_heap[64 << 20] __attribute__((aligned(16)));
static size_t own_used;

void *malloc(size_t n)
{
	size_t at = __atomic_fetch_add(&own_used, (n + 31) & ~(size_t)15,
				       __ATOMIC_RELAXED);

	if (at + n + 16 > sizeof(own_heap))
		return NULL;
	memcpy(own_heap + at, &n, sizeof(n));
	return own_heap + at + 16;
}

void free(void *p)
{
	(void)p;
}

void *calloc(size_t k, size_t n)
{
	return malloc(k * n);	/* static memory, never reused: zero */
}

void *realloc(void *p, size_t n)
{
	void *q = malloc(n);
	size_t old;

	if (p && q) {
		memcpy(&old, (char *)p - 16, sizeof(old));
		memcpy(q, p, old < n ? old : n);
	}
	return q;
}
#endif

long static_arr[N];
/* A local marker at static_arr's address, listed before it in the symbol
 * table, as a linker's size-0 __TMC_END__ shares the address of the
 * variable after it (in libpython, _PyRuntime's): the data view names the
 * variable.  clang keeps the size 0; gcc's assembler gives the marker
 * static_arr's size, so there the global binding decides. */
__asm__(".set static_arr_marker, static_arr\n\t"
	".type static_arr_marker, @object\n\t"
	".size static_arr_marker, 0");

__attribute__((noinline)) static long *make_a(void)
{
	long *p = malloc(2 * N * sizeof(long));

	if (!p)
		exit(1);
	return p;
}

__attribute__((noinline)) static long *make_b(void)
{
	long *p = calloc(3 * N, sizeof(long));

	if (!p)
		exit(1);
	return p;
}

/* One function reads the three arrays: the same instructions for each
 * (not copies a compiler could lay out differently). */
__attribute__((noinline)) static long sweep(const long *x, long n)
{
	long sum = 0, i;

	for (i = 0; i < n; i++)
		sum += x[i];
	return sum;
}

/* Reads the static and the two heap arrays (lengths 1:2:3) reps times, in
 * six sweeps of N longs: every sweep is as long as every other (a hardware
 * prefetcher's start-up costs each sweep the same, not the shortest array
 * the most), and no sweep starts where the one before it ended (make_b's
 * block may follow make_a's in memory), so none rides on a stream the one
 * before it started. */
static long passes(const long *s, const long *a, const long *b, long reps)
{
	/* the length from memory, not a constant gcc would clone sweep
	 * for (sweep.constprop.0: t3133 looks for sweep) */
	static volatile long n = N;
	long len = n;
	const long *sweeps[6] = { a, b, s, b + N, a + N, b + 2 * N };
	long sum = 0, r;
	int k;

	for (r = 0; r < reps; r++)
		for (k = 0; k < 6; k++) {
			sum += sweep(sweeps[k], len);
			/* the arrays may have changed: no sweep saved */
			__asm__ volatile("" ::: "memory");
		}
	return sum;
}

static int arrays(long reps)
{
	long *a = make_a(), *b = make_b(), i;

	for (i = 0; i < N; i++)
		static_arr[i] = i;
	for (i = 0; i < 2 * N; i++)
		a[i] = 2 * i;
	for (i = 0; i < 3 * N; i++)
		b[i] = 3 * i;
	printf("%ld\n", passes(static_arr, a, b, reps));
	free(a);
	free(b);
	return 0;
}

/* An anonymous mapping of 8 N longs: built with -D_FILE_OFFSET_BITS=64
 * the call is to mmap64, as libpython's arenas are. */
__attribute__((noinline)) static long *make_m(void)
{
	void *p = mmap(NULL, 8 * N * sizeof(long), PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (p == MAP_FAILED)
		exit(1);
	return p;
}

static int mapped(long reps)
{
	long *m = make_m(), sum = 0, i;

	for (i = 0; i < 8 * N; i++)
		m[i] = i;
	for (i = 0; i < reps; i++) {
		sum += sweep(m, 8 * N);
		__asm__ volatile("" ::: "memory");
	}
	printf("%ld\n", sum);
	munmap(m, 8 * N * sizeof(long));
	return 0;
}

struct touch {
	char *p;
	size_t pages;
	long sum;
};

__attribute__((noinline)) static void *toucher(void *arg)
{
	struct touch *t = arg;
	size_t i;

	for (i = 0; i < t->pages; i++)
		((volatile char *)t->p)[i * 4096] = (char)i;
	for (i = 0; i < t->pages; i++)
		t->sum += t->p[i * 4096];
	return NULL;
}

__attribute__((noinline)) static char *block_of(size_t pages)
{
	/* mmap'ed by malloc (above its threshold): no page touched yet,
	 * but the header page, which malloc wrote */
	char *p = malloc(pages * 4096);

	if (!p)
		exit(1);
	return p;
}

static int faults(void)
{
	struct touch t[3] = { { block_of(64), 64, 0 }, { block_of(128), 128, 0 },
			      { block_of(192), 192, 0 } };
	pthread_t th;
	int i;

	for (i = 0; i < 3; i++) {	/* one after the other: no overlap */
		if (pthread_create(&th, NULL, toucher, &t[i]))
			return 1;
		pthread_join(th, NULL);
		printf("block %d: %ld\n", i, t[i].sum);
	}
	for (i = 0; i < 3; i++)
		free(t[i].p);
	return 0;
}

__attribute__((noinline)) static int churn(long n)
{
	long i, sum = 0;

	for (i = 0; i < n; i++) {
		char *p = malloc((size_t)(16 + i % 200));

		p[0] = (char)i;
		__asm__ volatile("" : : "r"(p) : "memory");	/* kept */
		sum += p[0];
		free(p);
		if (i % 1000 == 0) {
			char *q = malloc(4096);

			q[0] = 1;
			__asm__ volatile("" : : "r"(q) : "memory");
			sum += q[0];
			free(q);
		}
	}
	printf("%ld\n", sum);
	return 0;
}

static char *from_ctor;
static volatile sig_atomic_t in_handler_allocs;

__attribute__((constructor)) static void ctor(void)
{
	from_ctor = malloc(8192);
	if (from_ctor)
		strcpy(from_ctor, "constructor");
}

/* malloc in a signal handler: safe here only because the code it
 * interrupts never is in malloc (it maps and unmaps pages), but with
 * hpcrun --data it may be in hpcrun's tracking of those mappings. */
static void on_alarm(int sig)
{
	char *p = malloc(2048), *q = malloc(32);

	(void)sig;
	if (p && q) {
		p[0] = q[0] = 1;
		in_handler_allocs++;
	}
	free(q);
	free(p);
}

/* A custom allocator: pieces of one mapping, never given to free. */
static char *arena_next, *arena_end;

static void *arena_alloc(size_t n)
{
	char *p = arena_next;

	if ((size_t)(arena_end - arena_next) < n)
		return NULL;
	arena_next += (n + 15) & ~(size_t)15;
	return p;
}

static int safety(void)
{
	struct sigaction sa;
	struct itimerval it = { { 0, 500 }, { 0, 500 } };
	long i, sum = 0;
	void *al = NULL;
	char *r, *c;
	pid_t pid;
	int st;

	printf("ctor: %s\n", from_ctor ? from_ctor : "(none)");
	free(from_ctor);
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_alarm;
	sigaction(SIGALRM, &sa, NULL);
	setitimer(ITIMER_REAL, &it, NULL);
	for (i = 0; i < 100000 || !in_handler_allocs; i++) {
		char *p = mmap(NULL, 8192, PROT_READ | PROT_WRITE,
			       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

		if (p == MAP_FAILED)
			return 1;
		p[0] = (char)i;
		sum += p[0] & 1;
		munmap(p, 8192);
	}
	it.it_value.tv_usec = it.it_interval.tv_usec = 0;
	setitimer(ITIMER_REAL, &it, NULL);
	for (i = 0; i < 20000; i++) {
		char *p = malloc((size_t)(i % 3 ? 40 : 3000));

		p[0] = (char)i;
		sum += p[0] & 1;
		free(p);
	}
	printf("loop: %ld handler: %s\n", sum, in_handler_allocs ? "ran" : "idle");

	fflush(stdout);
	pid = fork();
	if (pid == 0) {
		char *p = malloc(100000);

		memset(p, 7, 100000);
		sum = p[99999];
		free(p);
		printf("child: %ld\n", sum);
		fflush(stdout);
		_exit(0);
	}
	waitpid(pid, &st, 0);
	printf("parent: child exited %d\n", WEXITSTATUS(st));

	free(NULL);
	r = realloc(NULL, 5000);
	strcpy(r, "realloc");
	r = realloc(r, 50000);
	c = calloc(1, 3000);
	printf("%s %d\n", r, c[2999]);
	free(c);
	free(r);
	arena_next = mmap(NULL, 1 << 20, PROT_READ | PROT_WRITE,
			  MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	arena_end = arena_next + (1 << 20);
	r = arena_alloc(4000);
	strcpy(r, "arena");
	printf("%s\n", r);
	munmap(arena_end - (1 << 20), 1 << 20);
	if (posix_memalign(&al, 4096, 10000))
		return 1;
	free(al);
	al = aligned_alloc(64, 6400);
	free(al);
	return 0;
}

/* The process's address space, in bytes (VmSize), or 0. */
static long vm_size(void)
{
	FILE *f = fopen("/proc/self/status", "r");
	char line[256];
	long kb = 0;

	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f))
		if (!strncmp(line, "VmSize:", 7))
			kb = atol(line + 7);
	fclose(f);
	return kb * 1024;
}

static pthread_barrier_t capped;

static void *capped_wait(void *arg)
{
	(void)arg;
	pthread_barrier_wait(&capped);
	return NULL;
}

static int aslimit(int n)
{
	long size = vm_size();
	struct rlimit rl = { (rlim_t)size + (96 << 20), RLIM_INFINITY };
	pthread_t *t = calloc((size_t)n, sizeof(*t));
	pthread_attr_t attr;
	int made = 0, i;

	if (!t || !size || setrlimit(RLIMIT_AS, &rl))
		return 1;
	pthread_barrier_init(&capped, NULL, (unsigned)n + 1);
	pthread_attr_init(&attr);
	pthread_attr_setstacksize(&attr, 256 << 10);
	while (made < n && !pthread_create(&t[made], &attr, capped_wait, NULL))
		made++;
	while (malloc(1 << 20))
		;
	printf("threads %d/%d\n", made, n);
	if (made < n)
		return 3;	/* the barrier would never open */
	pthread_barrier_wait(&capped);
	for (i = 0; i < made; i++)
		pthread_join(t[i], NULL);
	return 0;
}

static volatile double room_sink;

static void *room_work(void *arg)
{
	double x = 0;
	long i;

	for (i = 0; i < 40000000; i++)
		x += (double)i * 0.5;
	room_sink = x;
	pthread_barrier_wait(&capped);
	pthread_barrier_wait(&capped);
	return arg;
}

static int asroom(int n)
{
	long size = vm_size(), mib = 0;
	struct rlimit rl = { (rlim_t)size + (512 << 20), RLIM_INFINITY };
	pthread_t t[64];
	int i;

	if (n < 1 || n > 64 || !size || setrlimit(RLIMIT_AS, &rl))
		return 1;
	pthread_barrier_init(&capped, NULL, (unsigned)n + 1);
	for (i = 0; i < n; i++)
		if (pthread_create(&t[i], NULL, room_work, NULL))
			return 3;
	pthread_barrier_wait(&capped);	/* every worker has worked */
	while (malloc(1 << 20))
		mib++;
	printf("room %ld MiB\n", mib);
	pthread_barrier_wait(&capped);
	for (i = 0; i < n; i++)
		pthread_join(t[i], NULL);
	return 0;
}

int main(int argc, char **argv)
{
	if (argc >= 2 && !strcmp(argv[1], "arrays"))
		return arrays(argc > 2 ? atol(argv[2]) : 2000);
	if (argc >= 2 && !strcmp(argv[1], "mapped"))
		return mapped(argc > 2 ? atol(argv[2]) : 2000);
	if (argc >= 2 && !strcmp(argv[1], "faults"))
		return faults();
	if (argc >= 2 && !strcmp(argv[1], "churn"))
		return churn(argc > 2 ? atol(argv[2]) : 1000000);
	if (argc >= 2 && !strcmp(argv[1], "safety"))
		return safety();
	if (argc >= 2 && !strcmp(argv[1], "aslimit"))
		return aslimit(argc > 2 ? atoi(argv[2]) : 20);
	if (argc >= 2 && !strcmp(argv[1], "asroom"))
		return asroom(argc > 2 ? atoi(argv[2]) : 8);
	fprintf(stderr, "usage: rt-data arrays|mapped|faults|churn|safety|aslimit|asroom [N]\n");
	return 2;
}
