/*
 * phoenix-histogram.c - Phoenix's histogram (pthreads version): main makes
 * an RGB image and one argument struct per thread, each thread counts the
 * red, green and blue values of its slice into the three int[256] arrays
 * of its own struct, main adds the threads' histograms and prints them.
 * Build: cc -O2 -g -fno-optimize-sibling-calls -pthread -o phoenix-histogram phoenix-histogram.c
 * Run:   ./phoenix-histogram MODE NTHREADS [MILLISECONDS]   (each thread
 *        makes whole passes over its slice for that much of its own CPU
 *        time; default 400)
 *        ./phoenix-histogram MODE NTHREADS passes N      (N passes each:
 *        fixed work, for measuring cost)
 *
 * The truth, per mode (the label hpcprof must give the object):
 *   packed  Phoenix's layout: the structs (a 24-byte header, then
 *           red, green, blue: 3096 bytes, not a multiple of 64) in one
 *           calloc'd array (alloc_hist_args).  The image is overexposed
 *           and underexposed in places, as photographs are, so bins 0
 *           and 255 are the hottest: thread i's blue[255] and thread
 *           i+1's red[0] are 28 bytes apart and share a line at most of
 *           the 15 boundaries of 16 threads, whatever the block's
 *           alignment (3096 % 64 = 24 moves each boundary by 24 bytes)
 *                                                  -> false-sharing
 *   padded  the usual fix: each struct aligned to and padded to whole
 *           64-byte lines (alloc_hist_padded)     -> private
 * The output depends only on the mode and NTHREADS (the histogram of one
 * pass over the image).
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define MAXT 64
#define PIXELS (1 << 16)	/* RGB pixels, 192 KiB */

struct hist_arg {		/* Phoenix's thread_arg_t */
	unsigned char *data;
	long data_pos, data_len;
	int red[256], green[256], blue[256];
};

struct hist_padded {
	struct hist_arg a;
} __attribute__((aligned(64)));

static double seconds = 0.4;
static long npasses;		/* fixed work when > 0 */
static long passes[MAXT];

/* The calling thread's CPU time: a thread works for as long on a CPU on
 * any machine, however busy, and gets as many samples. */
static double now(void)
{
	struct timespec t;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
	return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

__attribute__((noinline)) static struct hist_arg *alloc_hist_args(size_t n)
{
	return calloc(n, sizeof(struct hist_arg));
}

__attribute__((noinline)) static struct hist_padded *alloc_hist_padded(size_t n)
{
	struct hist_padded *p = aligned_alloc(64, n * sizeof(*p));

	if (p)
		memset(p, 0, n * sizeof(*p));
	return p;
}

/* Phoenix's calc_hist: the counts go to memory at every pixel. */
__attribute__((noinline)) static void calc_hist(struct hist_arg *arg)
{
	volatile int *red = arg->red, *green = arg->green, *blue = arg->blue;
	const unsigned char *d = arg->data;
	long i, end = arg->data_pos + arg->data_len;

	for (i = arg->data_pos; i < end; i += 3) {
		blue[d[i]]++;
		green[d[i + 1]]++;
		red[d[i + 2]]++;
	}
}

struct work {
	struct hist_arg *arg;
	int id;
};

static void *work(void *p)
{
	struct work *w = p;
	double end = now() + seconds;
	long n = 0;

	do {
		calc_hist(w->arg);
		n++;
	} while (npasses ? n < npasses : now() < end);
	passes[w->id] = n;
	return NULL;
}

/* The image: a gradient, a fourth of it burnt out (255) and a fifth in
 * shadow (0), from a fixed-seed generator. */
static unsigned char *make_image(void)
{
	unsigned char *img = malloc(3 * PIXELS);
	unsigned int x = 12345;
	long i;

	if (!img)
		return NULL;
	for (i = 0; i < 3 * PIXELS; i++) {
		unsigned int r;

		x = x * 1103515245u + 12345u;
		r = (x >> 16) % 100;
		img[i] = r < 25 ? 255 : r < 45 ? 0 : (unsigned char)(i / 3 % 254 + 1);
	}
	return img;
}

int main(int argc, char **argv)
{
	pthread_t t[MAXT];
	struct work w[MAXT];
	struct hist_arg *args[MAXT];
	struct hist_arg *packed = NULL;
	struct hist_padded *padded = NULL;
	unsigned char *img;
	long total[3][256] = { { 0 } };
	long slice, sum = 0;
	int nthreads, i, j, c, peak[3] = { 0, 0, 0 };
	const char *mode;

	if (argc < 3) {
		fprintf(stderr, "usage: phoenix-histogram packed|padded NTHREADS [MS | passes N]\n");
		return 2;
	}
	mode = argv[1];
	nthreads = atoi(argv[2]);
	if (nthreads < 1 || nthreads > MAXT)
		return 2;
	if (argc > 4 && !strcmp(argv[3], "passes"))
		npasses = atol(argv[4]);
	else if (argc > 3)
		seconds = atof(argv[3]) / 1000;
	img = make_image();
	if (!strcmp(mode, "packed"))
		packed = alloc_hist_args((size_t)nthreads);
	else if (!strcmp(mode, "padded"))
		padded = alloc_hist_padded((size_t)nthreads);
	else
		return 2;
	if (!img || (!packed && !padded))
		return 1;
	slice = PIXELS / nthreads;
	for (i = 0; i < nthreads; i++) {
		struct hist_arg *a = packed ? &packed[i] : &padded[i].a;

		a->data = img;
		a->data_pos = 3 * slice * i;
		a->data_len = 3 * (i == nthreads - 1 ? PIXELS - slice * i : slice);
		args[i] = a;
		w[i].arg = a;
		w[i].id = i;
	}
	for (i = 0; i < nthreads; i++)
		pthread_create(&t[i], NULL, work, &w[i]);
	for (i = 0; i < nthreads; i++)
		pthread_join(t[i], NULL);
	for (i = 0; i < nthreads; i++)
		for (j = 0; j < 256; j++) {
			total[0][j] += args[i]->red[j] / passes[i];
			total[1][j] += args[i]->green[j] / passes[i];
			total[2][j] += args[i]->blue[j] / passes[i];
		}
	for (c = 0; c < 3; c++)
		for (j = 0; j < 256; j++) {
			sum += total[c][j];
			if (total[c][j] > total[c][peak[c]])
				peak[c] = j;
		}
	printf("histogram %s %d threads: %ld values, peaks %d %d %d (%ld %ld %ld)\n",
	       mode, nthreads, sum, peak[0], peak[1], peak[2],
	       total[0][peak[0]], total[1][peak[1]], total[2][peak[2]]);
	free(packed);
	free(padded);
	free(img);
	return 0;
}
