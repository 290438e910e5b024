/* u-sync-episodes.c - unit tests for hpcrun/rt/sync-episode.h: threads meeting
 * at a real barrier many times learn, without a lock, their episode, their
 * position and the episode's last arrival (sync-episode.h, invariants 1
 * and 2). */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "../../hpcrun/rt/sync-episode.h"
#include "unit.h"

#define THREADS 4
#define EPISODES 20000

struct rec {
	uint64_t c, t, last;
};

static struct sync_obj obj;
static pthread_barrier_t bar;
static struct rec *recs;		/* [EPISODES][THREADS] */

static uint64_t now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static void *thread(void *arg)
{
	unsigned me = (unsigned)(uintptr_t)arg;
	int e;

	for (e = 0; e < EPISODES; e++) {
		struct rec *r = &recs[e * THREADS + me];

		r->t = now();
		r->c = sync_arrive(&obj, r->t, me, 1);
		pthread_barrier_wait(&bar);
		r->last = sync_last_arrival(&obj, r->c);
	}
	return NULL;
}

static void run(void)
{
	pthread_t t[THREADS];
	unsigned i;

	memset(&obj, 0, sizeof(obj));
	obj.n = THREADS;
	recs = calloc(EPISODES * THREADS, sizeof(*recs));
	CHECK(recs != NULL);
	pthread_barrier_init(&bar, NULL, THREADS);
	for (i = 1; i < THREADS; i++)
		pthread_create(&t[i], NULL, thread, (void *)(uintptr_t)i);
	thread((void *)0);
	for (i = 1; i < THREADS; i++)
		pthread_join(t[i], NULL);
	pthread_barrier_destroy(&bar);
}

/* Every thread's arrival number falls in its episode, and the positions
 * of an episode are 0 .. n-1, once each. */
static void episodes_and_positions(void)
{
	int e, i, bad_episode = 0, bad_positions = 0;

	run();
	for (e = 0; e < EPISODES; e++) {
		unsigned seen = 0;

		for (i = 0; i < THREADS; i++) {
			const struct rec *r = &recs[e * THREADS + i];

			bad_episode += r->c / THREADS != (uint64_t)e;
			seen |= 1u << (r->c % THREADS);
		}
		bad_positions += seen != (1u << THREADS) - 1;
	}
	CHECK_INT(bad_episode, 0);
	CHECK_INT(bad_positions, 0);
	CHECK_INT(obj.arrivals, (uint64_t)EPISODES * THREADS);
}

/* Each thread reads the episode's last arrival (the latest of the times),
 * though slots are reused every four episodes. */
static void everyone_learns_the_last_arrival(void)
{
	int e, i, wrong = 0;

	for (e = 0; e < EPISODES; e++) {
		uint64_t max = 0;

		for (i = 0; i < THREADS; i++)
			if (recs[e * THREADS + i].t > max)
				max = recs[e * THREADS + i].t;
		for (i = 0; i < THREADS; i++)
			wrong += recs[e * THREADS + i].last != max;
	}
	CHECK_INT(wrong, 0);
	/* who arrived at each position of the last episode (slot 3) */
	for (i = 0; i < THREADS; i++) {
		const struct rec *r = &recs[(EPISODES - 1) * THREADS + i];

		CHECK_INT(obj.who[(EPISODES - 1) & 3][r->c % THREADS], i);
		CHECK_INT(obj.when[(EPISODES - 1) & 3][r->c % THREADS], r->t);
	}
	CHECK_INT((obj.seen[0] & 0xf), 0xf);
	free(recs);
}

int main(void)
{
	unit_run("arrival numbers give episodes and positions", episodes_and_positions);
	unit_run("every thread learns the last arrival", everyone_learns_the_last_arrival);
	return unit_done();
}
