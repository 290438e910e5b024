/*
 * phoenix-word-count.c - Phoenix's word_count, the counting phase: main
 * makes a text and one small per-thread counter struct per thread, all in
 * one array, each thread splits its slice into words and keeps its
 * counts (words, letters, the running hash of the words it saw) in its
 * own struct, main adds the structs and prints the counts.
 * Build: cc -O2 -g -fno-optimize-sibling-calls -pthread -o phoenix-word-count phoenix-word-count.c
 * Run:   ./phoenix-word-count NTHREADS [MILLISECONDS]   (each thread makes
 *        whole passes over its slice for that much of its own CPU time;
 *        default 400)
 *
 * The truth (the label hpcprof must give the object): the structs are
 * 32 bytes, packed in one calloc'd array (alloc_wc_counts), so every
 * 64-byte line of it holds the counters of at least two threads, each
 * writing only its own, whatever the block's alignment
 *                                                  -> false-sharing
 * The output depends only on NTHREADS (the counts of one pass).
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define MAXT 64
#define TEXT (1 << 16)		/* bytes */

struct wc_count {
	long words, letters, longest;
	unsigned long hash;
};

struct wc_arg {
	const char *text;
	long pos, len;
	int id;
};

static struct wc_count *counts;
static long passes[MAXT];
static double seconds = 0.4;

/* The calling thread's CPU time: a thread works for as long on a CPU on
 * any machine, however busy, and gets as many samples. */
static double now(void)
{
	struct timespec t;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
	return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

__attribute__((noinline)) static struct wc_count *alloc_wc_counts(size_t n)
{
	return calloc(n, sizeof(struct wc_count));
}

/* Phoenix's wordcount_map, its emit made a count: every letter and word
 * updates the thread's struct in memory. */
__attribute__((noinline)) static void count_words(const struct wc_arg *a)
{
	volatile struct wc_count *c = &counts[a->id];
	long i, len = 0;

	for (i = a->pos; i < a->pos + a->len; i++) {
		char ch = a->text[i];

		if (ch >= 'a' && ch <= 'z') {
			c->letters++;
			c->hash = c->hash * 31 + (unsigned long)ch;
			len++;
		} else if (len) {
			c->words++;
			if (len > c->longest)
				c->longest = len;
			len = 0;
		}
	}
	if (len)
		c->words++;
}

static void *work(void *p)
{
	const struct wc_arg *a = p;
	double end = now() + seconds;
	long n = 0;

	do {
		count_words(a);
		n++;
	} while (now() < end);
	passes[a->id] = n;
	return NULL;
}

/* Words of 1 to 9 letters from a fixed-seed generator, single spaces. */
static char *make_text(void)
{
	char *s = malloc(TEXT);
	unsigned int x = 4711;
	long i = 0;

	if (!s)
		return NULL;
	while (i < TEXT) {
		int n;

		x = x * 1103515245u + 12345u;
		n = 1 + (int)((x >> 16) % 9);
		while (n-- && i < TEXT) {
			x = x * 1103515245u + 12345u;
			s[i++] = (char)('a' + (x >> 16) % 26);
		}
		if (i < TEXT)
			s[i++] = ' ';
	}
	return s;
}

int main(int argc, char **argv)
{
	pthread_t t[MAXT];
	struct wc_arg a[MAXT];
	char *text;
	long slice, words = 0, letters = 0, longest = 0;
	int nthreads, i;

	if (argc < 2) {
		fprintf(stderr, "usage: phoenix-word-count NTHREADS [MS]\n");
		return 2;
	}
	nthreads = atoi(argv[1]);
	if (nthreads < 1 || nthreads > MAXT)
		return 2;
	if (argc > 2)
		seconds = atof(argv[2]) / 1000;
	text = make_text();
	counts = alloc_wc_counts((size_t)nthreads);
	if (!text || !counts)
		return 1;
	/* Slices end at a space, as Phoenix's splitter ends them. */
	slice = TEXT / nthreads;
	for (i = 0; i < nthreads; i++) {
		long pos = i ? a[i - 1].pos + a[i - 1].len : 0;
		long end = i == nthreads - 1 ? TEXT : slice * (i + 1);

		while (end < TEXT && text[end - 1] != ' ')
			end++;
		a[i].text = text;
		a[i].pos = pos;
		a[i].len = end > pos ? end - pos : 0;
		a[i].id = i;
	}
	for (i = 0; i < nthreads; i++)
		pthread_create(&t[i], NULL, work, &a[i]);
	for (i = 0; i < nthreads; i++)
		pthread_join(t[i], NULL);
	for (i = 0; i < nthreads; i++) {
		words += counts[i].words / passes[i];
		letters += counts[i].letters / passes[i];
		if (counts[i].longest > longest)
			longest = counts[i].longest;
	}
	printf("word_count %d threads: %ld words, %ld letters, longest %ld\n",
	       nthreads, words, letters, longest);
	free(counts);
	free(text);
	return 0;
}
