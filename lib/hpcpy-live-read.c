/* hpcpy-live-read.c - the reader of the live code file, .hpcpy-live
 * (hpcpy.h invariants 4 and 5, man/hpcrun.5). */
#include <stdlib.h>
#include <string.h>

#include "error.h"
#include "hashmap.h"
#include "hpcpy.h"
#include "infile.h"
#include "strbuf.h"

#define LIVE_MAX_BYTES \
	(HPCPY_LIVE_HEADER + (uint64_t)HPCPY_LIVE_MAX_CHUNKS * HPCPY_LIVE_CHUNK)

static char *dup_bytes(const unsigned char *p, size_t n)
{
	char *s = xmalloc(n + 1);

	memcpy(s, p, n);
	s[n] = '\0';
	return s;
}

/* The record at d (room bytes left in its chunk's committed part) into
 * *c (strings malloc'd); its size, or 0 when it is no record. */
static size_t take_rec(const unsigned char *d, uint64_t room,
		       struct hpcpy_code *c)
{
	struct hpcpy_live_rec r;
	uint64_t need;
	const unsigned char *q;

	if (room < sizeof(r))
		return 0;
	memcpy(&r, d, sizeof(r));
	need = sizeof(r) + (uint64_t)r.qualname_len + r.filename_len +
	       r.linetable_len;
	if (r.bytes % 8 || r.bytes < need || r.bytes > room ||
	    !r.qualname_len || r.qualname_len > HPCPY_MAX_NAME ||
	    r.filename_len > HPCPY_MAX_NAME ||
	    r.linetable_len > HPCPY_MAX_LINETABLE ||
	    r.ncode >= (1u << HPCPY_OFFSET_BITS) - 1)
		return 0;
	q = d + sizeof(r);
	*c = hpcpy_live_code(&r, q);
	if (r.id != hpcpy_id(c))	/* hpcpy.h, invariant 5 */
		return 0;
	c->qualname = dup_bytes(q, c->qualname_len);
	c->filename = dup_bytes((const unsigned char *)c->filename,
				c->filename_len);
	c->linetable = (const unsigned char *)dup_bytes(c->linetable,
							c->linetable_len);
	return r.bytes;
}

/* The codes of d (size bytes, its header checked) into p; 0, or -1
 * with hpc_lasterr() set. */
static int take_codes(const char *path, const unsigned char *d, size_t size,
		      const struct hpcpy_live_header *h, struct hpcpy *p)
{
	struct hmap *ids = hmap_new();
	size_t alloc = 0;
	uint32_t i;
	int rc = 0;

	for (i = 0; i < h->nchunks && !rc; i++) {
		uint64_t at = HPCPY_LIVE_HEADER + (uint64_t)i * HPCPY_LIVE_CHUNK;
		uint64_t off = 0;

		if (h->used[i] > HPCPY_LIVE_CHUNK ||
		    (h->used[i] && at + h->used[i] > size)) {
			rc = hpc_seterr("'%s': chunk %u cut short", path, i);
			break;
		}
		while (off < h->used[i]) {
			struct hpcpy_code c;
			size_t n = take_rec(d + at + off, h->used[i] - off, &c);

			if (!n) {
				rc = hpc_seterr("'%s': chunk %u: bad record at "
						"byte %llu", path, i,
						(unsigned long long)off);
				break;
			}
			off += n;
			if (hmap_get_u64(ids, c.id)) {	/* hpcpy.h, invariant 3 */
				free((char *)c.qualname);
				free((char *)c.filename);
				free((unsigned char *)c.linetable);
				continue;
			}
			hmap_put_u64(ids, c.id, (void *)1);
			HPC_GROW(p->codes, p->ncodes + 1, alloc);
			p->codes[p->ncodes++] = c;
		}
	}
	hmap_free(ids);
	return rc;
}

struct hpcpy *hpcpy_live_read(const char *path)
{
	struct strbuf sb = STRBUF_INIT;
	struct hpcpy_live_header h;
	struct hpcpy *p;

	if (infile_read(path, LIVE_MAX_BYTES, "a live code file", &sb))
		return NULL;
	if (sb.len < HPCPY_LIVE_HEADER) {
		hpc_seterr("'%s': shorter than a live code file's header", path);
		strbuf_release(&sb);
		return NULL;
	}
	memcpy(&h, sb.buf, sizeof(h));
	if (memcmp(h.magic, HPCPY_LIVE_MAGIC, sizeof(h.magic)) ||
	    h.byte_order != HPCPY_LIVE_BYTE_ORDER ||
	    h.nchunks > HPCPY_LIVE_MAX_CHUNKS || h.major > 255 || h.minor > 255) {
		hpc_seterr("'%s': not a live code file of this host", path);
		strbuf_release(&sb);
		return NULL;
	}
	p = xcalloc(1, sizeof(*p));
	p->major = (int)h.major;
	p->minor = (int)h.minor;
	if (take_codes(path, (const unsigned char *)sb.buf, sb.len, &h, p)) {
		hpcpy_free(p);
		p = NULL;
	}
	strbuf_release(&sb);
	return p;
}
