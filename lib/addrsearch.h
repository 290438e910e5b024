/*
 * addrsearch.h - binary search of a sorted table: the one loop behind the
 * toolchain's lookups by address or id (hpcstruct's sections, procedures,
 * line rows and instructions, hpcprof's structure ranges and kernel
 * symbols, hpcrun's modules and data objects, the viewer's instructions,
 * the profile reader's node ids).
 *
 * Invariants:
 *  1. The table is read, never written, and nothing is allocated or locked:
 *     a search is async-signal-safe when its predicate is (hpcrun's signal
 *     handler searches its modules and data objects).
 *  2. addrsearch_partition(table, n, size, below, key) is the number of
 *     leading elements for which below(element, key) is nonzero.  below must
 *     hold for a prefix of the table and fail for the rest: on a table sorted
 *     by key, "element's key < key" gives the first element at or past key
 *     (a lower bound) and "element's key <= key" the number of elements at
 *     or before it, the last of which is the one range that can hold key
 *     when the ranges are disjoint.
 *  3. addrsearch_count_le() is the number of elements with lo <= addr, for
 *     tables whose first member is a uint64_t lo, read with memcpy (the
 *     table may be a mapped file's bytes, any element size works): the last
 *     such element is at that index - 1, and 0 says none.
 *  4. Functions and predicates are static inline; a predicate passed by name
 *     is inlined into the loop at -O2, so a search costs what the loop
 *     written out would.
 */
#ifndef HPC_ADDRSEARCH_H
#define HPC_ADDRSEARCH_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

static inline size_t addrsearch_partition(const void *table, size_t n,
					  size_t size,
					  int (*below)(const void *elem,
						       const void *key),
					  const void *key)
{
	const char *base = table;
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (below(base + mid * size, key))
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

static inline int addrsearch_lo_le(const void *elem, const void *key)
{
	uint64_t lo;

	memcpy(&lo, elem, sizeof(lo));
	return lo <= *(const uint64_t *)key;
}

static inline size_t addrsearch_count_le(const void *table, size_t n,
					 size_t size, uint64_t addr)
{
	return addrsearch_partition(table, n, size, addrsearch_lo_le, &addr);
}

#endif
