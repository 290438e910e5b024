/* hashmap.c - open-addressing hash map; see hashmap.h. */
#include "hashmap.h"

#include <stdlib.h>
#include <string.h>

#include "error.h"

struct slot {
	uint64_t hash;
	void *key;		/* NULL = empty slot */
	size_t len;
	void *value;
};

struct hmap {
	struct slot *slots;
	size_t cap;		/* power of two */
	size_t count;
};

static uint64_t mix(uint64_t h)
{
	h ^= h >> 33;
	h *= 0xff51afd7ed558ccdULL;
	h ^= h >> 33;
	h *= 0xc4ceb9fe1a85ec53ULL;
	h ^= h >> 33;
	return h;
}

uint64_t hpc_hash(const void *data, size_t len)
{
	const unsigned char *p = data;
	uint64_t h = 0x9e3779b97f4a7c15ULL ^ len, w;

	/* Eight bytes at a time, then the tail; each word fully mixed. */
	for (; len >= 8; p += 8, len -= 8) {
		memcpy(&w, p, 8);
		h = (h ^ mix(w)) * 0x100000001b3ULL;
	}
	if (len) {
		w = 0;
		memcpy(&w, p, len);
		h = (h ^ mix(w ^ 0xff)) * 0x100000001b3ULL;
	}
	return mix(h);
}

struct hmap *hmap_new(void)
{
	struct hmap *m = xcalloc(1, sizeof(*m));

	m->cap = 16;
	m->slots = xcalloc(m->cap, sizeof(*m->slots));
	return m;
}

void hmap_free(struct hmap *m)
{
	size_t i;

	if (!m)
		return;
	for (i = 0; i < m->cap; i++)
		free(m->slots[i].key);
	free(m->slots);
	free(m);
}

size_t hmap_count(const struct hmap *m)
{
	return m->count;
}

static size_t find(const struct hmap *m, uint64_t h, const void *key,
		   size_t len)
{
	size_t i = h & (m->cap - 1);

	for (;;) {
		const struct slot *s = &m->slots[i];

		if (!s->key)
			return i;
		if (s->hash == h && s->len == len && !memcmp(s->key, key, len))
			return i;
		i = (i + 1) & (m->cap - 1);
	}
}

static void rehash(struct hmap *m)
{
	struct slot *old = m->slots;
	size_t oldcap = m->cap, i;

	m->cap *= 2;
	m->slots = xcalloc(m->cap, sizeof(*m->slots));
	for (i = 0; i < oldcap; i++) {
		if (old[i].key) {
			size_t j = old[i].hash & (m->cap - 1);

			while (m->slots[j].key)
				j = (j + 1) & (m->cap - 1);
			m->slots[j] = old[i];
		}
	}
	free(old);
}

int hmap_lookup(const struct hmap *m, const void *key, size_t len, void **out)
{
	size_t i = find(m, hpc_hash(key, len), key, len);

	if (!m->slots[i].key)
		return 0;
	if (out)
		*out = m->slots[i].value;
	return 1;
}

void *hmap_get(const struct hmap *m, const void *key, size_t len)
{
	void *v = NULL;

	hmap_lookup(m, key, len, &v);
	return v;
}

void *hmap_put(struct hmap *m, const void *key, size_t len, void *value)
{
	uint64_t h = hpc_hash(key, len);
	size_t i;
	void *prev;

	if (2 * (m->count + 1) > m->cap)
		rehash(m);
	i = find(m, h, key, len);
	if (m->slots[i].key) {
		prev = m->slots[i].value;
		m->slots[i].value = value;
		return prev;
	}
	m->slots[i].hash = h;
	m->slots[i].key = xmalloc(len ? len : 1);
	memcpy(m->slots[i].key, key, len);
	m->slots[i].len = len;
	m->slots[i].value = value;
	m->count++;
	return NULL;
}

void *hmap_get_str(const struct hmap *m, const char *key)
{
	return hmap_get(m, key, strlen(key));
}

void *hmap_put_str(struct hmap *m, const char *key, void *value)
{
	return hmap_put(m, key, strlen(key), value);
}

void *hmap_get_u64(const struct hmap *m, uint64_t key)
{
	return hmap_get(m, &key, sizeof(key));
}

void *hmap_put_u64(struct hmap *m, uint64_t key, void *value)
{
	return hmap_put(m, &key, sizeof(key), value);
}

size_t hmap_capacity(const struct hmap *m)
{
	return m->cap;
}

int hmap_used(const struct hmap *m, size_t slot)
{
	return m->slots[slot].key != NULL;
}

const void *hmap_key(const struct hmap *m, size_t slot, size_t *len)
{
	if (len)
		*len = m->slots[slot].len;
	return m->slots[slot].key;
}

void *hmap_value(const struct hmap *m, size_t slot)
{
	return m->slots[slot].value;
}
