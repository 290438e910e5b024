/* u-hashmap.c - unit tests for lib/hashmap.c. */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "hashmap.h"
#include "unit.h"

static void put_get_replace(void)
{
	struct hmap *m = hmap_new();
	int a = 1, b = 2;

	CHECK(hmap_get_str(m, "x") == NULL);
	CHECK(hmap_put_str(m, "x", &a) == NULL);
	CHECK(hmap_get_str(m, "x") == &a);
	CHECK(hmap_put_str(m, "x", &b) == &a);
	CHECK(hmap_get_str(m, "x") == &b);
	CHECK_INT(hmap_count(m), 1);
	hmap_free(m);
	hmap_free(NULL);
}

static void many_integer_keys(void)
{
	struct hmap *m = hmap_new();
	uint64_t k;
	size_t i, seen = 0;
	int bad = 0;

	for (k = 0; k < 100000; k++)
		hmap_put_u64(m, k * 4096, (void *)(uintptr_t)(k + 1));
	CHECK_INT(hmap_count(m), 100000);
	for (k = 0; k < 100000; k++)
		if (hmap_get_u64(m, k * 4096) != (void *)(uintptr_t)(k + 1))
			bad++;
	CHECK_INT(bad, 0);
	CHECK(hmap_get_u64(m, 1) == NULL);
	for (i = 0; i < hmap_capacity(m); i++)
		if (hmap_used(m, i))
			seen++;
	CHECK_INT(seen, 100000);
	hmap_free(m);
}

static void keys_are_copied(void)
{
	struct hmap *m = hmap_new();
	char key[16];
	void *v;

	snprintf(key, sizeof(key), "abc");
	hmap_put_str(m, key, key);
	key[0] = 'z';
	CHECK(hmap_get_str(m, "abc") == key);
	CHECK(hmap_get_str(m, "zbc") == NULL);
	CHECK_INT(hmap_lookup(m, "abc", 3, &v), 1);
	CHECK_INT(hmap_lookup(m, "ab", 2, &v), 0);
	hmap_free(m);
}

static void null_values_are_present(void)
{
	struct hmap *m = hmap_new();
	void *v = &v;

	hmap_put_str(m, "n", NULL);
	CHECK_INT(hmap_lookup(m, "n", 1, &v), 1);
	CHECK(v == NULL);
	hmap_free(m);
}

int main(void)
{
	unit_run("put, get and replace a string key", put_get_replace);
	unit_run("100000 integer keys survive rehashing", many_integer_keys);
	unit_run("keys are copied into the map", keys_are_copied);
	unit_run("a NULL value is distinguishable from absence", null_values_are_present);
	return unit_done();
}
