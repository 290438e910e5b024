/*
 * slab.h - fixed-size states carved from anonymous mappings that are never
 * unmapped, for the per-thread states kept in pools (sharing.c's headers,
 * sync-ompt.c's OpenMP states): another thread may still read a state after
 * its thread ended, so its memory stays mapped for good.
 *
 * Invariants:
 *  1. No malloc: a thread's first malloc would give it a glibc arena of its
 *     own, 64 MiB of the program's address space.
 *  2. The caller serializes calls on one slab (its pool's lock).
 *  3. Memory comes zeroed from the kernel, and is never given back.
 */
#ifndef HPCRUN_SLAB_H
#define HPCRUN_SLAB_H

#include <stddef.h>
#include <sys/mman.h>

struct rt_slab {
	char *next;		/* the mapping's first byte not handed out */
	size_t left;		/* bytes from next to the mapping's end */
};

/* n bytes from s, a new mapping of chunk bytes (n <= chunk) when the
 * current one has less left; NULL when no memory. */
static inline void *rt_slab_carve(struct rt_slab *s, size_t n, size_t chunk)
{
	void *p;

	if (s->left < n) {
		p = mmap(NULL, chunk, PROT_READ | PROT_WRITE,
			 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (p == MAP_FAILED)
			return NULL;
		s->next = p;
		s->left = chunk;
	}
	p = s->next;
	s->next += n;
	s->left -= n;
	return p;
}

#endif
