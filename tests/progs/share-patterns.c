/*
 * share-patterns.c - the sharing patterns people write, one per mode; main
 * allocates and initializes, NTHREADS threads work, main reads the result.
 * Build: cc -O2 -g -fno-optimize-sibling-calls -pthread -o share-patterns share-patterns.c
 * Run:   ./share-patterns MODE NTHREADS [MILLISECONDS]   (each thread
 *        works for that much of its own CPU time; default 400)
 *
 * The truth, per mode (the label hpcprof must give the object):
 *   heap-counters    per-thread counters, 8 bytes each, in one malloc'd
 *                    array (alloc_counters)            -> false-sharing
 *   global-counters  the same in a global array (counters) -> false-sharing
 *   padded           one 64-byte line per thread, malloc'd (alloc_padded)
 *                                                      -> private
 *   migratory        one record (alloc_record) updated in turn under a
 *                    mutex                             -> migratory
 *   read-mostly      a table (alloc_table) main fills, the threads only
 *                    read                              -> read-shared
 *   queue            a ring of slots (alloc_ring) thread 0 writes and the
 *                    others read                       -> producer-consumer
 *   linreg           Phoenix linear_regression: a 56-byte struct of sums
 *                    per thread, packed in one malloc'd array
 *                    (alloc_lreg_args)                 -> false-sharing
 * Every mode prints one line that depends only on NTHREADS and the mode.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define MAXT 64

static int nthreads;
static double seconds = 0.4;
static const char *mode;
static volatile long counters[MAXT];
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static volatile long *heap_counters;
static struct padded { volatile long v; char pad[56]; } *padded;
static struct record { long count, sum, last, hist[5]; } *record;
static long *table;
static volatile long *ring;
static volatile long produced;
static struct lreg {	/* 56 bytes, as in Phoenix */
	long long sx, sy, sxx, syy, sxy;
	int id;
	long long n;
} *lreg;

#define TABLE 256		/* a power of two */
#define RING 16

/* The calling thread's CPU time: a thread works for as long on a CPU on
 * any machine, however busy, and gets as many samples. */
static double now(void)
{
	struct timespec t;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
	return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

__attribute__((noinline)) static long *alloc_counters(size_t n)
{
	return calloc(n, sizeof(long));
}

__attribute__((noinline)) static struct padded *alloc_padded(size_t n)
{
	return aligned_alloc(64, n * sizeof(struct padded));
}

__attribute__((noinline)) static struct record *alloc_record(void)
{
	return calloc(1, sizeof(struct record));
}

__attribute__((noinline)) static long *alloc_table(void)
{
	return malloc(TABLE * sizeof(long));
}

__attribute__((noinline)) static long *alloc_ring(void)
{
	return calloc(RING, sizeof(long));
}

__attribute__((noinline)) static struct lreg *alloc_lreg_args(size_t n)
{
	return calloc(n, sizeof(struct lreg));
}

static void *work(void *arg)
{
	int id = (int)(long)arg;
	double end = now() + seconds;
	long i = 0;

	while (now() < end) {
		int k;

		if (!strcmp(mode, "heap-counters")) {
			for (k = 0; k < 100000; k++)
				heap_counters[id]++;
		} else if (!strcmp(mode, "global-counters")) {
			for (k = 0; k < 100000; k++)
				counters[id]++;
		} else if (!strcmp(mode, "padded")) {
			for (k = 0; k < 100000; k++)
				padded[id].v++;
		} else if (!strcmp(mode, "migratory")) {
			volatile struct record *r = record;

			for (k = 0; k < 1000; k++) {
				int j;

				pthread_mutex_lock(&lock);
				for (j = 0; j < 50; j++) {
					r->count++;
					r->sum += id;
					r->hist[j % 5] += r->last;
					r->last = id;
				}
				pthread_mutex_unlock(&lock);
			}
		} else if (!strcmp(mode, "read-mostly")) {
			long x = 0;

			for (k = 0; k < 100000; k++)
				x += ((volatile long *)table)[(k * 7 + id) & (TABLE - 1)];
			i += x & 1;
		} else if (!strcmp(mode, "queue")) {
			if (id == 0) {
				for (k = 0; k < 1000; k++)
					ring[(produced + k) % RING] = produced + k;
				produced += 1000;
			} else {
				long x = 0;

				for (k = 0; k < 100000; k++)
					x = ring[(x + k) & (RING - 1)];
				i += x & 1;
			}
		} else if (!strcmp(mode, "linreg")) {
			for (k = 0; k < 10000; k++) {
				long long x = k & 255, y = (k >> 3) & 255;

				((volatile struct lreg *)lreg)[id].sx += x;
				((volatile struct lreg *)lreg)[id].sy += y;
				((volatile struct lreg *)lreg)[id].sxx += x * x;
				((volatile struct lreg *)lreg)[id].syy += y * y;
				((volatile struct lreg *)lreg)[id].sxy += x * y;
			}
		}
		i++;
	}
	return (void *)(i & 1);
}

int main(int argc, char **argv)
{
	pthread_t t[MAXT];
	long i, nonzero = 0;

	if (argc < 3) {
		fprintf(stderr, "usage: share-patterns MODE NTHREADS [MS]\n");
		return 2;
	}
	mode = argv[1];
	nthreads = atoi(argv[2]);
	if (nthreads < 1 || nthreads > MAXT)
		return 2;
	if (argc > 3)
		seconds = atof(argv[3]) / 1000;
	heap_counters = alloc_counters((size_t)nthreads);
	padded = alloc_padded((size_t)nthreads);
	record = alloc_record();
	table = alloc_table();
	ring = alloc_ring();
	lreg = alloc_lreg_args((size_t)nthreads);
	memset((void *)padded, 0, (size_t)nthreads * sizeof(*padded));
	for (i = 0; i < TABLE; i++)
		table[i] = i;
	for (i = 0; i < nthreads; i++)
		lreg[i].id = (int)i;
	for (i = 0; i < nthreads; i++)
		pthread_create(&t[i], NULL, work, (void *)i);
	for (i = 0; i < nthreads; i++)
		pthread_join(t[i], NULL);
	for (i = 0; i < nthreads; i++)
		nonzero += heap_counters[i] || counters[i] || padded[i].v ||
			   lreg[i].sx || record->count || table[i] >= 0;
	printf("%s %d threads: %ld worked\n", mode, nthreads, nonzero);
	return 0;
}
