/*
 * addrsearch.h - binary search of an address table: elements sorted by a
 * uint64_t lo that is their first member (struct vrange and struct mixrun
 * in hpcprof/structfile.h, struct sx_range in lib/structindex.c).
 *
 * Invariants:
 *  1. The table is read, never written; any element size works, the key
 *     is read with memcpy (the table may be a mapped file's bytes).
 *  2. addrsearch_count_le() is the number of elements with lo <= addr:
 *     the last such element is at that index - 1, and 0 says none.
 */
#ifndef HPC_ADDRSEARCH_H
#define HPC_ADDRSEARCH_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

static inline size_t addrsearch_count_le(const void *table, size_t n,
					 size_t size, uint64_t addr)
{
	const char *base = table;
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		uint64_t key;

		memcpy(&key, base + mid * size, sizeof(key));
		if (key <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

#endif
