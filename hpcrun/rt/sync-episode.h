/*
 * sync-episode.h - a barrier object's episodes: who arrived when, and in
 * which position, learnt by every thread without a lock.
 *
 * Invariants:
 *  1. Arrival c (0, 1, ...) at an object with n participants belongs to
 *     episode c / n, in position c % n: every participant arrives once per
 *     episode, and no thread arrives at episode e + 1 before all have
 *     arrived at e (that is what a barrier is).
 *  2. The episode's last arrival time is an atomic maximum in slot e % 4,
 *     read by each thread after it leaves the real barrier (all have
 *     arrived then).  A slot is reused by episode e + 4, whose arrivals
 *     need every thread to have left e + 2, so after it read e's; and
 *     arrival times only grow, so the maximum needs no reset.
 *  3. The first arrival's time and, for the on-line warnings, each
 *     position's thread and time, are plain stores in the same slot, read
 *     after the barrier by its last arriver.
 */
#ifndef HPCRUN_SYNC_EPISODE_H
#define HPCRUN_SYNC_EPISODE_H

#include <stdint.h>

#define SYNC_ORDERS 64

/* A barrier object. */
struct sync_obj {
	uintptr_t key;			/* 0: free */
	uint32_t gen;			/* bumped when freed */
	uint32_t n;			/* participants; 0 unknown */
	uint64_t arrivals;		/* atomic */
	uint64_t last[4];		/* last arrival (ns) of episode e in e % 4 */
	uint64_t first[4];		/* the first arrival of episode e */
	/* thread index and arrival (ns) by position, for --sync-warn */
	uint64_t when[4][SYNC_ORDERS];
	uint32_t who[4][SYNC_ORDERS];
	uint64_t seen[4];		/* participant thread indices (bits, < 256) */
};

/* Thread idx arrives at o (o->n known) at time t: its arrival number c
 * (episode c / n, position c % n).  warn: keep who[] and when[]. */
static inline uint64_t sync_arrive(struct sync_obj *o, uint64_t t, unsigned idx,
				   int warn)
{
	uint64_t c = __atomic_fetch_add(&o->arrivals, 1, __ATOMIC_ACQ_REL);
	uint64_t e = c / o->n, pos = c % o->n, *last;
	unsigned slot = (unsigned)(e & 3);

	if (pos == 0)
		o->first[slot] = t;
	if (warn && pos < SYNC_ORDERS) {
		o->when[slot][pos] = t;
		o->who[slot][pos] = idx;
	}
	if (idx < 256 && !(o->seen[idx / 64] & (1ull << (idx % 64))))
		__atomic_or_fetch(&o->seen[idx / 64], 1ull << (idx % 64),
				  __ATOMIC_RELAXED);
	last = &o->last[slot];
	for (uint64_t cur = __atomic_load_n(last, __ATOMIC_RELAXED);
	     cur < t && !__atomic_compare_exchange_n(last, &cur, t, 1,
						      __ATOMIC_ACQ_REL,
						      __ATOMIC_RELAXED);)
		;
	return c;
}

/* The last arrival time of the episode of arrival c, once the thread has
 * left the barrier (invariant 2). */
static inline uint64_t sync_last_arrival(const struct sync_obj *o, uint64_t c)
{
	return __atomic_load_n(&o->last[(c / o->n) & 3], __ATOMIC_ACQUIRE);
}

#endif
