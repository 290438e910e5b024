/*
 * rt-dlchurn.c - a program that dlopens and dlcloses libraries in some
 * threads while others allocate and start threads: the load map grows
 * (every dlopen after a dlclose is a new module) while hpcrun's readers of
 * it (the data-centric and Python module checks after each dlopen, every
 * profile written at thread exit) run on other threads.  For t1042.
 *
 * Build: cc -O2 -g -pthread -o rt-dlchurn rt-dlchurn.c -ldl
 *
 *   rt-dlchurn R LIB...   two threads each dlopen and dlclose every LIB
 *                         R times; meanwhile two threads allocate and
 *                         free, and one starts and joins short threads
 *
 * Output: stdout "dlopens N" (N = 2 R times the LIBs, the same in every
 * run of the same arguments), stderr "threads K", the threads the program
 * made; exit status 0, 1 if a dlopen failed.
 */
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int rounds, nlib;
static char **libs;
static int done;		/* the dlopen threads have finished */
static long opened, failed, started;

/* Between dlopens it allocates too, so that blocks of its heap hemming in
 * the runtime's make a growing array move. */
static void *opener(void *arg)
{
	void *keep[16] = { NULL };
	int r, i, k = 0;

	(void)arg;
	for (r = 0; r < rounds; r++)
		for (i = 0; i < nlib; i++) {
			void *h = dlopen(libs[i], RTLD_NOW | RTLD_LOCAL);

			free(keep[k % 16]);
			keep[k++ % 16] = malloc(64);
			if (!h) {
				__atomic_add_fetch(&failed, 1, __ATOMIC_RELAXED);
				continue;
			}
			__atomic_add_fetch(&opened, 1, __ATOMIC_RELAXED);
			dlclose(h);
		}
	for (k = 0; k < 16; k++)
		free(keep[k]);
	return NULL;
}

static void *allocator(void *arg)
{
	void *keep[64] = { NULL };
	unsigned k = 0;

	(void)arg;
	while (!__atomic_load_n(&done, __ATOMIC_ACQUIRE)) {
		free(keep[k % 64]);
		keep[k % 64] = malloc(16 + (k * 37) % 4000);
		if (keep[k % 64])
			memset(keep[k % 64], (int)k, 16);
		k++;
	}
	for (k = 0; k < 64; k++)
		free(keep[k]);
	return NULL;
}

static void *short_thread(void *arg)
{
	return arg;
}

static void *starter(void *arg)
{
	pthread_t t;

	(void)arg;
	while (!__atomic_load_n(&done, __ATOMIC_ACQUIRE))
		if (!pthread_create(&t, NULL, short_thread, NULL)) {
			pthread_join(t, NULL);
			started++;
		}
	return NULL;
}

int main(int argc, char **argv)
{
	pthread_t open[2], other[3];
	void *(*role[3])(void *) = { allocator, allocator, starter };
	int i;

	if (argc < 3) {
		fprintf(stderr, "usage: rt-dlchurn R LIB...\n");
		return 2;
	}
	rounds = atoi(argv[1]);
	libs = argv + 2;
	nlib = argc - 2;
	for (i = 0; i < 3; i++)
		if (pthread_create(&other[i], NULL, role[i], NULL))
			return 1;
	for (i = 0; i < 2; i++)
		if (pthread_create(&open[i], NULL, opener, NULL))
			return 1;
	for (i = 0; i < 2; i++)
		pthread_join(open[i], NULL);
	__atomic_store_n(&done, 1, __ATOMIC_RELEASE);
	for (i = 0; i < 3; i++)
		pthread_join(other[i], NULL);
	printf("dlopens %ld\n", opened);
	fprintf(stderr, "threads %ld\n", started + 5);
	return failed != 0;
}
