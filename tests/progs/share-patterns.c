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
 *   global-counters  the same in a line-aligned global array (counters)
 *                                                      -> false-sharing
 *   padded           one 64-byte line per thread, malloc'd (alloc_padded)
 *                                                      -> private
 *   migratory        one record (alloc_record) updated in turn under a
 *                    mutex                             -> migratory
 *   read-mostly      a table (alloc_table) main fills, the threads only
 *                    read                              -> read-shared
 *   queue            a ring of slots (alloc_ring) thread 0 writes and the
 *                    others read                       -> producer-consumer
 *   linreg           Phoenix linear_regression: a 56-byte struct of sums
 *                    per thread, packed in one line-aligned array
 *                    (alloc_lreg_args)                 -> false-sharing
 * The large objects, whose lines are each sampled too seldom for a label
 * of their own (hpcprof pools their evidence, sharing.h invariant 3):
 *   big-table        a 4 MB table (alloc_big_table) main fills, the
 *                    threads read in strides across it     -> read-shared
 *   mqueue           a work queue (alloc_queue: mutex, two condition
 *                    variables, indices, 16 items of 512 bytes); thread 0
 *                    produces items, the others consume them
 *                                                      -> producer-consumer
 *   handoff          a 2 KB record (alloc_handoff) handed from thread to
 *                    thread in turn under a mutex; each reads it whole and
 *                    updates it whole                  -> migratory
 *   pingpong         a 32 KB buffer (alloc_buffer) thread 0 fills each
 *                    round and the others read, a barrier between
 *                                                      -> producer-consumer
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
/* Line-aligned, so that its lines do not hang on where the linker puts
 * it: an array is aligned to 32 bytes, and from 32 bytes past a line its
 * first line would start at offset -32 of it (t4070 reads offset 0). */
static volatile long counters[MAXT] __attribute__((aligned(64)));
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
#define BIG_TABLE (4096 * 1024 / sizeof(long))	/* a power of two */
#define QUEUE 16
#define HANDOFF (2048 / sizeof(long))
#define BUFFER (32 * 1024 / sizeof(long))

static long *big_table;
static struct queue {
	pthread_mutex_t lock;
	pthread_cond_t nonempty, nonfull;
	unsigned head, tail, count;
	struct item { long seq, payload[63]; } items[QUEUE];
} *queue;
static struct handoff {
	pthread_mutex_t lock;
	pthread_cond_t turn_changed;
	int turn, stop;
	long v[HANDOFF];
} *handoff;
static long *buffer;
static pthread_barrier_t round_barrier;
static volatile int stop_rounds;
static volatile long sink;	/* what the readers computed */

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

/* Line-aligned, so that the truth does not hang on where the heap puts
 * it: from a start 16 bytes past a line, 2 threads' written fields (the
 * first 40 bytes of each 56) fall on lines of their own, and the truth
 * at 2 threads would be private, its false sharing latent. */
__attribute__((noinline)) static struct lreg *alloc_lreg_args(size_t n)
{
	size_t size = (n * sizeof(struct lreg) + 63) & ~(size_t)63;
	struct lreg *p = aligned_alloc(64, size);

	if (p)
		memset(p, 0, size);
	return p;
}

__attribute__((noinline)) static long *alloc_big_table(void)
{
	return malloc(BIG_TABLE * sizeof(long));
}

__attribute__((noinline)) static struct queue *alloc_queue(void)
{
	return calloc(1, sizeof(struct queue));
}

__attribute__((noinline)) static struct handoff *alloc_handoff(void)
{
	return calloc(1, sizeof(struct handoff));
}

__attribute__((noinline)) static long *alloc_buffer(void)
{
	return calloc(BUFFER, sizeof(long));
}

static void queue_put(const struct item *it)
{
	volatile struct item *slot;
	int k;

	pthread_mutex_lock(&queue->lock);
	while (queue->count == QUEUE)
		pthread_cond_wait(&queue->nonfull, &queue->lock);
	slot = &queue->items[queue->head];
	slot->seq = it->seq;
	for (k = 0; k < 63; k++)
		slot->payload[k] = it->payload[k];
	queue->head = (queue->head + 1) % QUEUE;
	queue->count++;
	pthread_cond_signal(&queue->nonempty);
	pthread_mutex_unlock(&queue->lock);
}

static void queue_get(struct item *it)
{
	pthread_mutex_lock(&queue->lock);
	while (queue->count == 0)
		pthread_cond_wait(&queue->nonempty, &queue->lock);
	*it = queue->items[queue->tail];
	queue->tail = (queue->tail + 1) % QUEUE;
	queue->count--;
	pthread_cond_signal(&queue->nonfull);
	pthread_mutex_unlock(&queue->lock);
}

/* mqueue: thread 0 produces for its CPU time, then one end item (seq
 * -1) per consumer; a consumer works on each item until its end. */
static long mqueue(int id)
{
	struct item it;
	long n = 0, k;

	if (id == 0) {
		double end = now() + seconds;

		for (n = 0; now() < end; n++) {
			it.seq = n;
			for (k = 0; k < 63; k++)
				it.payload[k] = (n * k) & 7;
			queue_put(&it);
		}
		it.seq = -1;
		for (k = 1; k < nthreads; k++)
			queue_put(&it);
		return 1;
	}
	for (;;) {
		queue_get(&it);
		if (it.seq < 0)
			return 1;
		for (k = 0; k < 63; k++)
			n += it.payload[k];
		sink += n;
	}
}

/* handoff: thread id updates the record when the turn is its own, then
 * passes it on; thread 0 ends the turns after its CPU time. */
static long handoff_turns(int id)
{
	double end = now() + seconds;
	volatile long *v = handoff->v;
	long k, pass, sum = 0;

	pthread_mutex_lock(&handoff->lock);
	for (;;) {
		while (handoff->turn != id && !handoff->stop)
			pthread_cond_wait(&handoff->turn_changed, &handoff->lock);
		if (handoff->stop)
			break;
		for (pass = 0; pass < 8; pass++)
			for (k = 0; k < (long)HANDOFF; k++) {
				sum += v[k];
				v[k] = (sum ^ k) & 0xffff;
			}
		if (id == 0 && now() >= end)
			handoff->stop = 1;
		handoff->turn = (id + 1) % nthreads;
		pthread_cond_broadcast(&handoff->turn_changed);
	}
	pthread_mutex_unlock(&handoff->lock);
	sink += sum;
	return 1;
}

/* pingpong: thread 0 fills the buffer, all meet, the others read it,
 * all meet; thread 0 ends the rounds after its CPU time. */
static long pingpong(int id)
{
	double end = now() + seconds;
	long k, r, sum = 0;
	int stop;

	for (r = 0;; r++) {
		if (id == 0) {
			for (k = 0; k < (long)BUFFER; k++)
				buffer[k] = r + k;
			stop_rounds = now() >= end;
		}
		pthread_barrier_wait(&round_barrier);
		stop = stop_rounds;	/* thread 0 writes it after the next */
		if (id != 0)
			for (k = 0; k < (long)BUFFER; k++)
				sum += ((volatile long *)buffer)[k];
		pthread_barrier_wait(&round_barrier);
		if (stop) {
			sink += sum;
			return 1;
		}
	}
}

static void *work(void *arg)
{
	int id = (int)(long)arg;
	double end = now() + seconds;
	long i = 0;

	if (!strcmp(mode, "mqueue"))
		return (void *)mqueue(id);
	if (!strcmp(mode, "handoff"))
		return (void *)handoff_turns(id);
	if (!strcmp(mode, "pingpong"))
		return (void *)pingpong(id);
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
			const volatile long *t = table;
			long x = 0;

			/* eight reads an iteration, as big-table's */
			for (k = 0; k < 100000; k += 8)
				x += t[(k * 7 + id) & (TABLE - 1)] +
				     t[(k * 7 + id + 7) & (TABLE - 1)] +
				     t[(k * 7 + id + 14) & (TABLE - 1)] +
				     t[(k * 7 + id + 21) & (TABLE - 1)] +
				     t[(k * 7 + id + 28) & (TABLE - 1)] +
				     t[(k * 7 + id + 35) & (TABLE - 1)] +
				     t[(k * 7 + id + 42) & (TABLE - 1)] +
				     t[(k * 7 + id + 49) & (TABLE - 1)];
			i += x & 1;
		} else if (!strcmp(mode, "big-table")) {
			const volatile long *t = big_table;
			long x = 0;
			unsigned long h = (unsigned long)id * 2654435761u;

			/* eight reads an iteration, so that the instruction a
			 * sample stands for is mostly one of them */
			for (k = 0; k < 100000; k += 8, h += 8 * 4099)
				x += t[h & (BIG_TABLE - 1)] +
				     t[(h + 4099) & (BIG_TABLE - 1)] +
				     t[(h + 2 * 4099) & (BIG_TABLE - 1)] +
				     t[(h + 3 * 4099) & (BIG_TABLE - 1)] +
				     t[(h + 4 * 4099) & (BIG_TABLE - 1)] +
				     t[(h + 5 * 4099) & (BIG_TABLE - 1)] +
				     t[(h + 6 * 4099) & (BIG_TABLE - 1)] +
				     t[(h + 7 * 4099) & (BIG_TABLE - 1)];
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
	big_table = alloc_big_table();
	queue = alloc_queue();
	handoff = alloc_handoff();
	buffer = alloc_buffer();
	pthread_mutex_init(&queue->lock, NULL);
	pthread_cond_init(&queue->nonempty, NULL);
	pthread_cond_init(&queue->nonfull, NULL);
	pthread_mutex_init(&handoff->lock, NULL);
	pthread_cond_init(&handoff->turn_changed, NULL);
	pthread_barrier_init(&round_barrier, NULL, (unsigned)nthreads);
	for (i = 0; i < (long)BIG_TABLE; i++)
		big_table[i] = i;
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
