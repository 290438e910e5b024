/*
 * hashmap.h - a hash map from byte-string keys to pointer values.
 *
 * Keys are copied into the map (the caller's key may be freed after put);
 * values are stored as given and never freed by the map.  Open addressing
 * with linear probing; the table doubles at 50% load, so lookups stay O(1).
 * Pointers returned by hmap_key() stay valid until hmap_free().
 * Iteration: for (i = 0; i < hmap_capacity(m); i++) if (hmap_used(m, i)) ...
 * Insertions during iteration invalidate the iteration.
 */
#ifndef HPC_HASHMAP_H
#define HPC_HASHMAP_H

#include <stddef.h>
#include <stdint.h>

struct hmap;

struct hmap *hmap_new(void);
/* Frees the map and its key copies (not the values). Accepts NULL. */
void hmap_free(struct hmap *m);
size_t hmap_count(const struct hmap *m);

/* Returns the value for key, or NULL when absent. */
void *hmap_get(const struct hmap *m, const void *key, size_t len);
/* Returns 1 and stores the value in *out when present, else 0. */
int hmap_lookup(const struct hmap *m, const void *key, size_t len, void **out);
/* Inserts or replaces; returns the previous value or NULL. */
void *hmap_put(struct hmap *m, const void *key, size_t len, void *value);

/* Convenience for NUL-terminated string keys and 64-bit integer keys. */
void *hmap_get_str(const struct hmap *m, const char *key);
void *hmap_put_str(struct hmap *m, const char *key, void *value);
void *hmap_get_u64(const struct hmap *m, uint64_t key);
void *hmap_put_u64(struct hmap *m, uint64_t key, void *value);

/* Slot iteration. */
size_t hmap_capacity(const struct hmap *m);
int hmap_used(const struct hmap *m, size_t slot);
const void *hmap_key(const struct hmap *m, size_t slot, size_t *len);
void *hmap_value(const struct hmap *m, size_t slot);

/* A good 64-bit hash of bytes (word-at-a-time, murmur-style finalizer). */
uint64_t hpc_hash(const void *data, size_t len);

#endif
