/*
 * rt-stall.c - a thread pool whose workers wait on a condition for tasks
 * while the main thread waits on another for a result (hpcrun(5), "Hang
 * reports", "hang: stalled").  In every mode but pool one thread is not
 * in an untimed wait on a private object: after S s it produces the
 * result and the program ends by itself, printing the same natively and
 * under hpcrun.
 *
 *   cc -O2 -g -pthread -o rt-stall rt-stall.c
 *
 *   pool         4 workers wait for tasks nobody queues, the main thread
 *                for a result none produces: a stall, for ever
 *   join         4 workers wait for tasks nobody queues, the main thread
 *                joins them, never telling them to end: a stall, for ever
 *   sleep S      the same with 2 workers, and a fifth thread that sleeps
 *                S s in nanosleep, then produces the result
 *   read S       that thread reads a pipe that a child process writes
 *                after S s
 *   semtimed S   that thread waits S s in sem_timedwait for a semaphore
 *                nobody posts
 *   condtimed S  that thread waits S s in pthread_cond_timedwait
 *   pshared S    no such thread: the main thread waits in sem_wait on a
 *                process-shared semaphore that a child process posts
 *                after S s (the result)
 */
#include <errno.h>
#include <pthread.h>
#include <semaphore.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t work = PTHREAD_COND_INITIALIZER;
static pthread_cond_t done = PTHREAD_COND_INITIALIZER;
static int quit, result, have_result;
static double secs;
static int pipe_fd[2];

static void *worker(void *arg)
{
	(void)arg;
	pthread_mutex_lock(&lock);
	while (!quit)
		pthread_cond_wait(&work, &lock);	/* waits for a task */
	pthread_mutex_unlock(&lock);
	return NULL;
}

static void produce(int r)
{
	pthread_mutex_lock(&lock);
	result = r;
	have_result = 1;
	pthread_cond_signal(&done);
	pthread_mutex_unlock(&lock);
}

static struct timespec after(double s)
{
	struct timespec t;

	clock_gettime(CLOCK_REALTIME, &t);
	t.tv_sec += (time_t)s;
	t.tv_nsec += (long)((s - (double)(time_t)s) * 1e9);
	if (t.tv_nsec >= 1000000000L) {
		t.tv_sec++;
		t.tv_nsec -= 1000000000L;
	}
	return t;
}

static void *sleeper(void *arg)
{
	struct timespec t = { (time_t)secs, 0 };

	(void)arg;
	printf("nanosleep: %d\n", nanosleep(&t, NULL));
	produce(1);
	return NULL;
}

static void *reader(void *arg)
{
	char c = 0;
	ssize_t n;

	(void)arg;
	n = read(pipe_fd[0], &c, 1);
	printf("read: %d %c\n", (int)n, c);
	produce(2);
	return NULL;
}

static void *semtimed(void *arg)
{
	sem_t s;
	struct timespec t = after(secs);
	int r;

	(void)arg;
	sem_init(&s, 0, 0);
	r = sem_timedwait(&s, &t);
	printf("sem_timedwait: %d %s\n", r, r ? strerror(errno) : "ok");
	produce(3);
	return NULL;
}

static void *condtimed(void *arg)
{
	pthread_cond_t c = PTHREAD_COND_INITIALIZER;
	pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
	struct timespec t = after(secs);
	int r;

	(void)arg;
	pthread_mutex_lock(&m);
	r = pthread_cond_timedwait(&c, &m, &t);
	pthread_mutex_unlock(&m);
	printf("pthread_cond_timedwait: %s\n", strerror(r));
	produce(4);
	return NULL;
}

/* A child process that sleeps secs, then does f. */
static pid_t child_after(void (*f)(void *), void *arg)
{
	pid_t pid = fork();
	struct timespec t = { (time_t)secs, 0 };

	if (pid == 0) {
		nanosleep(&t, NULL);
		f(arg);
		_exit(0);
	}
	return pid;
}

static void write_pipe(void *arg)
{
	(void)arg;
	if (write(pipe_fd[1], "x", 1) != 1)
		_exit(1);
}

static void post(void *arg)
{
	sem_post(arg);
}

int main(int argc, char **argv)
{
	pthread_t t[5];
	void *(*other)(void *) = NULL;
	int i, nworkers = 2, status;
	pid_t child = 0;
	sem_t *shared;

	if (argc < 2)
		return 2;
	secs = argc > 2 ? atof(argv[2]) : 0;
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (!strcmp(argv[1], "pool") || !strcmp(argv[1], "join"))
		nworkers = 4;
	else if (!strcmp(argv[1], "sleep"))
		other = sleeper;
	else if (!strcmp(argv[1], "read"))
		other = reader;
	else if (!strcmp(argv[1], "semtimed"))
		other = semtimed;
	else if (!strcmp(argv[1], "condtimed"))
		other = condtimed;
	else if (strcmp(argv[1], "pshared") && strcmp(argv[1], "join"))
		return 2;
	for (i = 0; i < nworkers; i++)
		pthread_create(&t[i], NULL, worker, NULL);
	if (!strcmp(argv[1], "join"))
		for (i = 0; i < nworkers; i++)
			pthread_join(t[i], NULL);	/* main joins a worker */
	if (!strcmp(argv[1], "pshared")) {
		shared = mmap(NULL, sizeof(*shared), PROT_READ | PROT_WRITE,
			      MAP_SHARED | MAP_ANONYMOUS, -1, 0);
		sem_init(shared, 1, 0);
		child = child_after(post, shared);
		printf("sem_wait: %d\n", sem_wait(shared));	/* main waits here */
		produce(5);
	}
	if (other) {
		if (pipe(pipe_fd))
			return 1;
		if (other == reader)
			child = child_after(write_pipe, NULL);
		pthread_create(&t[nworkers], NULL, other, NULL);
	}
	pthread_mutex_lock(&lock);
	while (!have_result)
		pthread_cond_wait(&done, &lock);	/* main waits for the result */
	quit = 1;
	pthread_cond_broadcast(&work);
	pthread_mutex_unlock(&lock);
	for (i = 0; i < nworkers + (other != NULL); i++)
		pthread_join(t[i], NULL);
	if (child)
		waitpid(child, &status, 0);
	printf("result: %d\n", result);
	return 0;
}
