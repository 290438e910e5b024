/*
 * share-queues.c - more of the sharing patterns people write, the ways
 * they write them: queues of pointers, rings, double buffers, a record
 * under a lock, a lookup table, per-thread statistics; one per mode.
 * Main allocates and initializes, NTHREADS threads work, main reads the
 * result.  share-patterns.c has the simpler shapes.
 * Build: cc -O2 -g -fno-optimize-sibling-calls -pthread -o share-queues share-queues.c
 * Run:   ./share-queues MODE NTHREADS [MILLISECONDS]   (each producer or
 *        worker works for that much of its own CPU time; default 400)
 *
 * The truth, per mode (the label hpcprof must give the object):
 *   ptrqueue   a work queue of pointers (alloc_workq: mutex, condition
 *              variables, a ring of 16 pointers); thread 0 mallocs jobs
 *              (alloc_job, 4 KB), fills them and pushes their pointers,
 *              the others pop a pointer, read the job through a few
 *              times and free it
 *                                 -> alloc_job producer-consumer
 *   ptrqueue2  the same, the first half of the threads producing
 *                                 -> alloc_job producer-consumer
 *   sring      a lock-free ring of 64 structs of 256 bytes with head and
 *              tail indices in the same block (alloc_sring); thread 0
 *              fills a slot and advances head, the others claim slots by
 *              advancing tail with a compare-and-swap and read them;
 *              a thread that cannot go on yields the CPU
 *                                 -> producer-consumer
 *   dbuf       a double buffer (alloc_dbuf: two halves of 16 KB); each
 *              round thread 0 writes one half while the others read the
 *              other, then they swap, a barrier between
 *                                 -> producer-consumer
 *   account    a 1 KB record of balances (alloc_accounts) every thread
 *              updates under one mutex: each takes it, moves amounts
 *              between a few balances, lets it go
 *                                 -> migratory
 *   lut        a 512 KB lookup table (alloc_lut) main builds; every
 *              thread looks keys up in it             -> read-shared
 *   stats      per-thread statistics of 24 bytes packed in one array
 *              (alloc_stats), each thread counting into its own
 *                                 -> false-sharing
 * Every mode prints one line that depends only on NTHREADS and the mode.
 */
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define MAXT 64
#define WORKQ 16
#define JOB_LONGS (4096 / sizeof(long))
#define SRING 64
#define DBUF (16 * 1024 / sizeof(long))
#define ACCOUNTS (1024 / sizeof(long))
#define LUT (512 * 1024 / sizeof(long))	/* a power of two */

static int nthreads, producers = 1;
static double seconds = 0.4;
static const char *mode;

struct job {
	long seq, data[JOB_LONGS - 1];
};
static struct workq {
	pthread_mutex_t lock;
	pthread_cond_t nonempty, nonfull;
	unsigned head, tail, count;
	struct job *slot[WORKQ];
} *workq;
static struct sring {
	volatile unsigned long head, tail;
	struct sslot { long seq, v[31]; } slot[SRING];
} *sring;
static long *dbuf;
static pthread_barrier_t barrier;
static volatile int stop_rounds;
static struct accounts {
	pthread_mutex_t lock;
	long balance[ACCOUNTS - 8];
} *accounts;
static long *lut;
static struct stats { long hits, misses, bytes; } *stats;
static volatile long sink;

/* The calling thread's CPU time: a thread works for as long on a CPU on
 * any machine, however busy, and gets as many samples. */
static double now(void)
{
	struct timespec t;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
	return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

__attribute__((noinline)) static struct workq *alloc_workq(void)
{
	return calloc(1, sizeof(struct workq));
}

__attribute__((noinline)) static struct job *alloc_job(void)
{
	return malloc(sizeof(struct job));
}

__attribute__((noinline)) static struct sring *alloc_sring(void)
{
	return calloc(1, sizeof(struct sring));
}

__attribute__((noinline)) static long *alloc_dbuf(void)
{
	return calloc(2 * DBUF, sizeof(long));
}

__attribute__((noinline)) static struct accounts *alloc_accounts(void)
{
	return calloc(1, sizeof(struct accounts));
}

__attribute__((noinline)) static long *alloc_lut(void)
{
	return malloc(LUT * sizeof(long));
}

__attribute__((noinline)) static struct stats *alloc_stats(size_t n)
{
	return calloc(n, sizeof(struct stats));
}

static void workq_push(struct job *j)
{
	pthread_mutex_lock(&workq->lock);
	while (workq->count == WORKQ)
		pthread_cond_wait(&workq->nonfull, &workq->lock);
	workq->slot[workq->head] = j;
	workq->head = (workq->head + 1) % WORKQ;
	workq->count++;
	pthread_cond_signal(&workq->nonempty);
	pthread_mutex_unlock(&workq->lock);
}

static struct job *workq_pop(void)
{
	struct job *j;

	pthread_mutex_lock(&workq->lock);
	while (workq->count == 0)
		pthread_cond_wait(&workq->nonempty, &workq->lock);
	j = workq->slot[workq->tail];
	workq->tail = (workq->tail + 1) % WORKQ;
	workq->count--;
	pthread_cond_signal(&workq->nonfull);
	pthread_mutex_unlock(&workq->lock);
	return j;
}

/* ptrqueue: a producer makes jobs for its CPU time; the last producer
 * to finish pushes one NULL per consumer; a consumer works on each job
 * until its NULL. */
static long ptrqueue(int id)
{
	static int done;
	long n, k, sum = 0;
	struct job *j;

	if (id < producers) {
		double end = now() + seconds;
		int last;

		for (n = 0; now() < end; n++) {
			j = alloc_job();
			j->seq = n;
			for (k = 0; k < (long)JOB_LONGS - 1; k++)
				j->data[k] = (n * k) & 7;
			workq_push(j);
		}
		pthread_mutex_lock(&workq->lock);
		last = ++done == producers;
		pthread_mutex_unlock(&workq->lock);
		for (k = producers; last && k < nthreads; k++)
			workq_push(NULL);
		return 1;
	}
	while ((j = workq_pop())) {
		const volatile long *d = j->data;
		int pass;

		/* four loads an iteration, so that the instruction a
		 * sample stands for is mostly one of them */
		for (pass = 0; pass < 32; pass++)
			for (k = 0; k + 4 <= (long)JOB_LONGS - 1; k += 4)
				sum += (d[k] ^ pass) + d[k + 1] + d[k + 2] +
				       d[k + 3];
		free(j);
	}
	sink += sum;
	return 1;
}

/* sring: thread 0 fills slots for its CPU time, then sequence -1 once
 * for each consumer; a consumer claims slots until it reads -1. */
static long sring_run(int id)
{
	unsigned long h, t;
	long k, sum = 0, seq;

	if (id == 0) {
		double end = now() + seconds;
		long n, ends = 0;

		for (n = 0; ends < nthreads - 1; n++) {
			volatile struct sslot *s;

			h = sring->head;
			while (h - __atomic_load_n(&sring->tail, __ATOMIC_ACQUIRE) >= SRING)
				sched_yield();
			s = &sring->slot[h % SRING];
			for (k = 0; k < 31; k++)
				s->v[k] = n + k;
			if (now() >= end)
				ends++, s->seq = -1;
			else
				s->seq = n;
			__atomic_store_n(&sring->head, h + 1, __ATOMIC_RELEASE);
		}
		return 1;
	}
	for (;;) {
		volatile struct sslot *s;

		t = __atomic_load_n(&sring->tail, __ATOMIC_RELAXED);
		if (t == __atomic_load_n(&sring->head, __ATOMIC_ACQUIRE)) {
			sched_yield();
			continue;
		}
		s = &sring->slot[t % SRING];
		seq = s->seq;
		for (k = 0; k < 31; k++)
			sum += s->v[k];
		if (!__atomic_compare_exchange_n(&sring->tail, &t, t + 1, 0,
						 __ATOMIC_ACQ_REL, __ATOMIC_RELAXED))
			continue;
		if (seq < 0) {
			sink += sum;
			return 1;
		}
	}
}

/* dbuf: in round r thread 0 writes half r % 2 while the others read
 * the other half, all meet; thread 0 ends the rounds after its CPU
 * time. */
static long dbuf_run(int id)
{
	double end = now() + seconds;
	long k, r, sum = 0;
	int stop;

	for (r = 0;; r++) {
		long *w = dbuf + (r % 2) * DBUF, *rd = dbuf + (1 - r % 2) * DBUF;

		if (id == 0) {
			for (k = 0; k < (long)DBUF; k++)
				((volatile long *)w)[k] = r + k;
			stop_rounds = now() >= end;
		} else {
			for (k = 0; k < (long)DBUF; k++)
				sum += ((volatile long *)rd)[k];
		}
		pthread_barrier_wait(&barrier);
		stop = stop_rounds;
		pthread_barrier_wait(&barrier);
		if (stop) {
			sink += sum;
			return 1;
		}
	}
}

/* account: each thread moves amounts between balances under the lock. */
static long account_run(int id)
{
	double end = now() + seconds;
	unsigned long h = (unsigned long)id * 2654435761u;
	volatile long *b = accounts->balance;
	const long nb = (long)(ACCOUNTS - 8);
	long k;

	while (now() < end) {
		pthread_mutex_lock(&accounts->lock);
		for (k = 0; k < 200; k++) {
			long from = (long)(h % (unsigned long)nb);
			long to = (long)((h >> 8) % (unsigned long)nb);
			long amount = b[from] / 4;

			b[from] -= amount;
			b[to] += amount;
			h = h * 6364136223846793005u + 1442695040888963407u;
		}
		pthread_mutex_unlock(&accounts->lock);
	}
	return 1;
}

/* lut: each thread looks up hashed keys. */
static long lut_run(int id)
{
	double end = now() + seconds;
	unsigned long h = (unsigned long)(id + 1) * 2654435761u;
	const volatile long *t = lut;
	long k, x = 0;

	while (now() < end)
		for (k = 0; k < 100000; k += 4) {
			x += t[h & (LUT - 1)] + t[(h >> 7) & (LUT - 1)] +
			     t[(h >> 14) & (LUT - 1)] + t[(h >> 21) & (LUT - 1)];
			h = h * 6364136223846793005u + 1442695040888963407u;
		}
	sink += x;
	return 1;
}

/* stats: each thread counts into its own entry. */
static long stats_run(int id)
{
	double end = now() + seconds;
	volatile struct stats *s = &stats[id];
	unsigned long h = (unsigned long)id;
	long k;

	while (now() < end)
		for (k = 0; k < 100000; k++) {
			h = h * 6364136223846793005u + 1442695040888963407u;
			if (h >> 63)
				s->hits++;
			else
				s->misses++;
			s->bytes += (long)(h & 255);
		}
	return 1;
}

static void *work(void *arg)
{
	int id = (int)(long)arg;

	if (!strncmp(mode, "ptrqueue", 8))
		return (void *)ptrqueue(id);
	if (!strcmp(mode, "sring"))
		return (void *)sring_run(id);
	if (!strcmp(mode, "dbuf"))
		return (void *)dbuf_run(id);
	if (!strcmp(mode, "account"))
		return (void *)account_run(id);
	if (!strcmp(mode, "lut"))
		return (void *)lut_run(id);
	if (!strcmp(mode, "stats"))
		return (void *)stats_run(id);
	return NULL;
}

int main(int argc, char **argv)
{
	pthread_t t[MAXT];
	long i, worked = 0;
	void *r;

	if (argc < 3) {
		fprintf(stderr, "usage: share-queues MODE NTHREADS [MS]\n");
		return 2;
	}
	mode = argv[1];
	nthreads = atoi(argv[2]);
	if (nthreads < 2 || nthreads > MAXT)
		return 2;
	if (argc > 3)
		seconds = atof(argv[3]) / 1000;
	if (!strcmp(mode, "ptrqueue2"))
		producers = nthreads / 2;
	workq = alloc_workq();
	sring = alloc_sring();
	dbuf = alloc_dbuf();
	accounts = alloc_accounts();
	lut = alloc_lut();
	stats = alloc_stats((size_t)nthreads);
	pthread_mutex_init(&workq->lock, NULL);
	pthread_cond_init(&workq->nonempty, NULL);
	pthread_cond_init(&workq->nonfull, NULL);
	pthread_mutex_init(&accounts->lock, NULL);
	pthread_barrier_init(&barrier, NULL, (unsigned)nthreads);
	for (i = 0; i < (long)(ACCOUNTS - 8); i++)
		accounts->balance[i] = 1000;
	for (i = 0; i < (long)LUT; i++)
		lut[i] = i * 7;
	for (i = 0; i < nthreads; i++)
		pthread_create(&t[i], NULL, work, (void *)i);
	for (i = 0; i < nthreads; i++) {
		pthread_join(t[i], &r);
		worked += r != NULL;
	}
	printf("%s %d threads: %ld worked\n", mode, nthreads, worked);
	return 0;
}
