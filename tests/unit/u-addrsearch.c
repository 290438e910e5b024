/* u-addrsearch.c - unit tests for lib/addrsearch.h. */
#include <stdint.h>
#include <string.h>

#include "addrsearch.h"
#include "unit.h"

struct range {
	uint64_t lo, hi;
};

/* Sorted, disjoint, with a gap between [0x20, 0x30) and [0x40, 0x48). */
static const struct range ranges[] = {
	{ 0x10, 0x20 }, { 0x20, 0x30 }, { 0x40, 0x48 }, { 0x48, 0x50 },
};
#define NRANGES (sizeof(ranges) / sizeof(ranges[0]))

static int starts_lt(const void *elem, const void *key)
{
	return ((const struct range *)elem)->lo < *(const uint64_t *)key;
}

static int starts_le(const void *elem, const void *key)
{
	return ((const struct range *)elem)->lo <= *(const uint64_t *)key;
}

/* Every answer of the search is the one a linear scan gives. */
static void partition_is_a_linear_scan(void)
{
	for (uint64_t a = 0; a < 0x60; a++) {
		size_t lt = 0, le = 0;

		while (lt < NRANGES && ranges[lt].lo < a)
			lt++;
		while (le < NRANGES && ranges[le].lo <= a)
			le++;
		CHECK_INT(addrsearch_partition(ranges, NRANGES, sizeof(*ranges),
					       starts_lt, &a), lt);
		CHECK_INT(addrsearch_partition(ranges, NRANGES, sizeof(*ranges),
					       starts_le, &a), le);
		CHECK_INT(addrsearch_count_le(ranges, NRANGES, sizeof(*ranges),
					      a), le);
	}
}

static void empty_and_one(void)
{
	uint64_t a = 0x10;

	CHECK_INT(addrsearch_partition(ranges, 0, sizeof(*ranges), starts_le,
				       &a), 0);
	CHECK_INT(addrsearch_count_le(ranges, 1, sizeof(*ranges), 0x0f), 0);
	CHECK_INT(addrsearch_count_le(ranges, 1, sizeof(*ranges), 0x10), 1);
}

/* The range holding an address: the last one starting at or before it,
 * when the address is below its end (the gap holds none). */
static void containing_range(void)
{
	static const uint64_t addr[] = { 0x0f, 0x10, 0x2f, 0x30, 0x3f, 0x47,
					 0x48, 0x4f, 0x50 };
	static const int want[] = { -1, 0, 1, -1, -1, 2, 3, 3, -1 };

	for (size_t i = 0; i < sizeof(addr) / sizeof(addr[0]); i++) {
		size_t n = addrsearch_partition(ranges, NRANGES, sizeof(*ranges),
						starts_le, &addr[i]);
		int got = n && addr[i] < ranges[n - 1].hi ? (int)n - 1 : -1;

		CHECK_INT(got, want[i]);
	}
}

/* Keys at any offset of unaligned bytes, read with memcpy. */
static void unaligned_table(void)
{
	unsigned char bytes[1 + 3 * 12];

	for (uint64_t i = 0; i < 3; i++) {
		uint64_t lo = 100 * (i + 1);

		memcpy(bytes + 1 + 12 * i, &lo, sizeof(lo));
	}
	CHECK_INT(addrsearch_count_le(bytes + 1, 3, 12, 99), 0);
	CHECK_INT(addrsearch_count_le(bytes + 1, 3, 12, 200), 2);
	CHECK_INT(addrsearch_count_le(bytes + 1, 3, 12, UINT64_MAX), 3);
}

int main(void)
{
	unit_run("partition answers as a linear scan, < and <=",
		 partition_is_a_linear_scan);
	unit_run("empty and one-element tables", empty_and_one);
	unit_run("the range holding an address, none in gaps",
		 containing_range);
	unit_run("count_le reads keys of unaligned elements", unaligned_table);
	return unit_done();
}
