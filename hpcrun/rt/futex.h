/*
 * futex.h - how hpcrun's runtime waits: on a futex word, asleep in the
 * kernel, never spinning with sched_yield (a spinning waiter takes the CPU
 * from the thread it waits for: with hundreds of threads starting and
 * ending at once, the one holding the lock got a sliver of it).
 *
 * Invariants:
 *  1. Everything here is async-signal-safe: atomics and the futex system
 *     call (private futexes: the words are never shared between processes).
 *  2. A waiter sleeps only while the word holds the value it last saw, and
 *     whoever changes a word others may sleep on wakes them after the
 *     change (the kernel compares the value under its own lock, so no
 *     wake-up is lost between a waiter's look and its sleep).
 *  3. rt_lock is a mutex of one word: 0 free, 1 held, 2 held with
 *     sleepers (Drepper, "Futexes Are Tricky", mutex 3): taking a free
 *     lock and dropping one nobody waits for make no system call.  Its
 *     atomics are sequentially consistent (the fd gate orders its word
 *     against another, fd-gate.c).  It does not nest and does not block
 *     signals: callers that may be re-entered by a handler of theirs block
 *     signals first.
 */
#ifndef HPCRUN_FUTEX_H
#define HPCRUN_FUTEX_H

#include <limits.h>
#include <linux/futex.h>
#include <stdint.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

/* Sleeps while *addr == val, at most ns nanoseconds (0: no limit); wakes
 * early for a wake-up or a signal: callers look at the word again. */
static inline void rt_futex_wait(unsigned *addr, unsigned val, uint64_t ns)
{
	struct timespec t = { (time_t)(ns / 1000000000u), (long)(ns % 1000000000u) };

	syscall(SYS_futex, addr, FUTEX_WAIT_PRIVATE, val, ns ? &t : NULL, NULL, 0);
}

/* Wakes up to n sleepers on addr (INT_MAX: all). */
static inline void rt_futex_wake(unsigned *addr, int n)
{
	syscall(SYS_futex, addr, FUTEX_WAKE_PRIVATE, n, NULL, NULL, 0);
}

static inline void rt_lock_take(unsigned *l)
{
	unsigned c = 0;

	if (__atomic_compare_exchange_n(l, &c, 1, 0, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST))
		return;
	if (c != 2)
		c = __atomic_exchange_n(l, 2, __ATOMIC_SEQ_CST);
	while (c) {
		rt_futex_wait(l, 2, 0);
		c = __atomic_exchange_n(l, 2, __ATOMIC_SEQ_CST);
	}
}

static inline void rt_lock_drop(unsigned *l)
{
	if (__atomic_exchange_n(l, 0, __ATOMIC_SEQ_CST) == 2)
		rt_futex_wake(l, 1);
}

#endif
