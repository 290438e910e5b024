/*
 * rt-threads.c - the thread shapes of a PyTorch CPU run, each thread
 * meeting others at barriers, for the thread-naming tests: every measured
 * thread must have a name of its own in every view.
 *
 * Build (one source, two objects; gcc uses libgomp, clang -fopenmp=libomp
 * libomp):
 *   cc -O2 -g -pthread -fopenmp -shared -fPIC -DRT_THREADS_LIB \
 *      -o librt-threads.so rt-threads.c
 *   cc -O2 -g -pthread -fopenmp -o rt-threads rt-threads.c \
 *      -L. -lrt-threads -Wl,-rpath,'$ORIGIN'
 * Run: rt-threads P   (P: threads of the pool, default 3)
 *
 * Threads, in creation order, with their OpenMP teams of 2 or 3:
 *   early        made by the library's constructor, which runs before
 *                hpcrun's (a library the program needs is initialized
 *                first): not measured; it meets main and ctor_thread at
 *                main_bar 3 times
 *   main         main_bar 3 times, then a team of 3 (2 threads made by
 *                the OpenMP runtime) through 3 rounds of "omp barrier",
 *                then another team of 3 at the end (the same threads)
 *   ctor_thread  made by the program's constructor (after hpcrun's):
 *                main_bar 3 times
 *   pool_worker  P threads, each the master of its own team of 2 (P more
 *                threads of the OpenMP runtime), 3 rounds
 *   spawner      makes 2 threads (spawned) and meets them at spawn_bar
 *   the child    main forks: its main thread makes one thread and meets
 *                it at a barrier of 2, then exits
 * Truth with gcc: the parent measures 3 + 2 + 2P + 3 threads (13 for
 * P = 3), the child 2; every one of them has a .hpcsync file and a row in
 * the phases view, 15 names for 15 threads.
 */
#include <pthread.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

/* Spins ms of the calling thread's CPU time. */
static void spin(double ms)
{
	struct timespec a, b;
	volatile double s = 0;
	int i;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &a);
	do {
		for (i = 0; i < 10000; i++)
			s += i;
		clock_gettime(CLOCK_THREAD_CPUTIME_ID, &b);
	} while ((double)(b.tv_sec - a.tv_sec) * 1e3 +
		 (double)(b.tv_nsec - a.tv_nsec) * 1e-6 < ms);
}

#ifdef RT_THREADS_LIB
static pthread_barrier_t *lib_bar;
static pthread_mutex_t lib_m = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t lib_c = PTHREAD_COND_INITIALIZER;
static pthread_t early_t;

void lib_go(pthread_barrier_t *b);
void lib_join(void);

static void *early(void *arg)
{
	int r;

	(void)arg;
	pthread_mutex_lock(&lib_m);
	while (!lib_bar)
		pthread_cond_wait(&lib_c, &lib_m);
	pthread_mutex_unlock(&lib_m);
	for (r = 0; r < 3; r++) {
		spin(10);
		pthread_barrier_wait(lib_bar);
	}
	return NULL;
}

__attribute__((constructor)) static void lib_ctor(void)
{
	pthread_create(&early_t, NULL, early, NULL);
}

/* Lets the early thread meet the others at b. */
void lib_go(pthread_barrier_t *b)
{
	pthread_mutex_lock(&lib_m);
	lib_bar = b;
	pthread_cond_broadcast(&lib_c);
	pthread_mutex_unlock(&lib_m);
}

void lib_join(void)
{
	pthread_join(early_t, NULL);
}
#else
void lib_go(pthread_barrier_t *b);
void lib_join(void);

static pthread_barrier_t main_bar, spawn_bar;
static pthread_t ctor_t;

static void omp_rounds(int team, int rounds)
{
#pragma omp parallel num_threads(team)
	{
		int r;

		for (r = 0; r < rounds; r++) {
			spin(5);
#pragma omp barrier
		}
	}
}

static void *pool_worker(void *arg)
{
	(void)arg;
	omp_rounds(2, 3);
	return NULL;
}

static void *spawned(void *arg)
{
	(void)arg;
	spin(10);
	pthread_barrier_wait(&spawn_bar);
	return NULL;
}

static void *spawner(void *arg)
{
	pthread_t t[2];
	int i;

	(void)arg;
	pthread_barrier_init(&spawn_bar, NULL, 3);
	for (i = 0; i < 2; i++)
		pthread_create(&t[i], NULL, spawned, NULL);
	spin(10);
	pthread_barrier_wait(&spawn_bar);
	for (i = 0; i < 2; i++)
		pthread_join(t[i], NULL);
	return NULL;
}

static void *ctor_thread(void *arg)
{
	int r;

	(void)arg;
	for (r = 0; r < 3; r++) {
		spin(10);
		pthread_barrier_wait(&main_bar);
	}
	return NULL;
}

__attribute__((constructor)) static void exe_ctor(void)
{
	pthread_barrier_init(&main_bar, NULL, 3);
	pthread_create(&ctor_t, NULL, ctor_thread, NULL);
}

int main(int argc, char **argv)
{
	int pool = argc > 1 ? atoi(argv[1]) : 3, i, r;
	pthread_t *t = calloc((size_t)pool, sizeof(*t)), sp;
	pid_t pid;

	lib_go(&main_bar);
	for (r = 0; r < 3; r++) {
		spin(10);
		pthread_barrier_wait(&main_bar);
	}
	omp_rounds(3, 3);
	for (i = 0; i < pool; i++)
		pthread_create(&t[i], NULL, pool_worker, NULL);
	for (i = 0; i < pool; i++)
		pthread_join(t[i], NULL);
	pthread_create(&sp, NULL, spawner, NULL);
	pthread_join(sp, NULL);
	lib_join();
	pthread_join(ctor_t, NULL);
	pid = fork();
	if (pid == 0) {		/* libgomp's teams do not survive a fork */
		pthread_barrier_init(&spawn_bar, NULL, 2);
		pthread_create(&sp, NULL, spawned, NULL);
		spin(10);
		pthread_barrier_wait(&spawn_bar);
		pthread_join(sp, NULL);
		exit(0);
	}
	waitpid(pid, NULL, 0);
	omp_rounds(3, 2);
	free(t);
	return 0;
}
#endif
