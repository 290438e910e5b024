/*
 * hpctrace-read.c - the .hpctrace reader (see hpctrace.h, invariant 4).
 *
 * The file is mapped and its header checked when it opens; its records
 * are read only by the caller's lookups (binary searches in the mapping)
 * and by hpctrace_check, one pass over them.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "error.h"
#include "hpctrace.h"
#include "infile.h"
#include "strbuf.h"

static uint64_t get_be(const unsigned char *p, int bytes)
{
	uint64_t v = 0;
	int i;

	for (i = 0; i < bytes; i++)
		v = v << 8 | p[i];
	return v;
}

struct hpctrace_rec hpctrace_get(const struct hpctrace *t, uint64_t i)
{
	const unsigned char *p = t->map + HPCTRACE_HDR_BYTES +
				 i * HPCTRACE_REC_BYTES;
	struct hpctrace_rec r;

	r.time = get_be(p, 8);
	r.id = (uint32_t)get_be(p + 8, 4);
	return r;
}

uint64_t hpctrace_find(const struct hpctrace *t, uint64_t time)
{
	uint64_t lo = 0, hi = t->nrecords;	/* answer in [lo - 1, hi) */

	while (lo < hi) {
		uint64_t mid = lo + (hi - lo) / 2;

		if (hpctrace_get(t, mid).time <= time)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo ? lo - 1 : UINT64_MAX;
}

/* Keeps records [0, n) and says why the rest is not kept (replacing
 * what an earlier cut, further on, said). */
static void cut(struct hpctrace *t, uint64_t n, const char *fmt, ...)
	HPC_PRINTF(3, 4);
static void cut(struct hpctrace *t, uint64_t n, const char *fmt, ...)
{
	struct strbuf sb = STRBUF_INIT;
	va_list ap;

	strbuf_addf(&sb, "'%s': record %" PRIu64 ": ", t->path, n + 1);
	va_start(ap, fmt);
	strbuf_vaddf(&sb, fmt, ap);
	va_end(ap);
	strbuf_addf(&sb, "; the %" PRIu64 " records before it are kept", n);
	free(t->problem);	/* a cut later in the file */
	t->problem = strbuf_detach(&sb, NULL);
	t->nrecords = n;
}

/* The header: 0, or -1 with hpc_lasterr() set. */
static int check_header(struct hpctrace *t)
{
	const unsigned char *h = t->map;

	if (t->map_len < HPCTRACE_HDR_BYTES)
		return hpc_seterr("'%s': not a trace file (%zu bytes, shorter "
				  "than its header)", t->path, t->map_len);
	if (memcmp(h, HPCTRACE_MAGIC, 18))
		return hpc_seterr("'%s': not a trace file (bad magic)", t->path);
	if (memcmp(h + 18, "01.0", 4) || (h[22] != '0' && h[22] != '1'))
		return hpc_seterr("'%s': trace format version '%.5s' "
				  "unknown (01.01 is read)", t->path,
				  (const char *)h + 18);
	if (h[23] != 'b')
		return hpc_seterr("'%s': not a big-endian trace", t->path);
	t->flags = get_be(h + 24, 8);
	if (t->flags)
		return hpc_seterr("'%s': trace flags 0x%" PRIx64 " unknown "
				  "(data-centric and LCA traces are not read)",
				  t->path, t->flags);
	return 0;
}

/* The first and last kept time. */
static void set_span(struct hpctrace *t)
{
	t->tmin = t->tmax = 0;
	if (t->nrecords) {
		t->tmin = hpctrace_get(t, 0).time;
		t->tmax = hpctrace_get(t, t->nrecords - 1).time;
		if (t->tmax < t->tmin)	/* unchecked and out of order */
			t->tmax = t->tmin;
	}
}

int hpctrace_check(struct hpctrace *t, int (*valid)(uint32_t id, void *arg),
		   void *arg)
{
	uint64_t n = t->nrecords, i, prev = 0;

	madvise((void *)t->map, t->map_len, MADV_SEQUENTIAL);
	for (i = 0; i < n; i++) {
		struct hpctrace_rec r = hpctrace_get(t, i);

		if (r.time < prev) {
			cut(t, i, "time %" PRIu64 " before the previous "
			    "record's %" PRIu64, r.time, prev);
			break;
		}
		if (r.id == HPCTRACE_ID_WAIT) {
			cut(t, i, "a wait in no context");
			break;
		}
		if (valid && r.id != HPCTRACE_ID_NONE &&
		    !valid(r.id & HPCTRACE_ID_MASK, arg)) {
			cut(t, i, "unknown context id %" PRIu32,
			    r.id & HPCTRACE_ID_MASK);
			break;
		}
		prev = r.time;
	}
	madvise((void *)t->map, t->map_len, MADV_RANDOM);
	set_span(t);
	return i < n ? -1 : 0;
}

struct hpctrace *hpctrace_open(const char *path)
{
	struct hpctrace *t;
	uint64_t size, body;
	void *map;
	int fd = infile_open(path, HPCTRACE_MAX_BYTES, "a trace file", &size);

	if (fd < 0)
		return NULL;
	if (size < HPCTRACE_HDR_BYTES) {
		close(fd);
		hpc_seterr("'%s': not a trace file (%" PRIu64 " bytes, shorter "
			   "than its header)", path, size);
		return NULL;
	}
	map = mmap(NULL, (size_t)size, PROT_READ, MAP_PRIVATE, fd, 0);
	close(fd);
	if (map == MAP_FAILED) {
		hpc_seterr("'%s': %s", path, strerror(errno));
		return NULL;
	}
	/* lookups are binary searches: read no more than the page asked for */
	madvise(map, (size_t)size, MADV_RANDOM);
	t = xcalloc(1, sizeof(*t));
	t->path = xstrdup(path);
	t->map = map;
	t->map_len = (size_t)size;
	if (check_header(t) < 0) {
		hpctrace_close(t);
		return NULL;
	}
	body = size - HPCTRACE_HDR_BYTES;
	t->nrecords = body / HPCTRACE_REC_BYTES;
	if (body % HPCTRACE_REC_BYTES)
		cut(t, t->nrecords, "cut short (%" PRIu64 " of %d bytes)",
		    body % HPCTRACE_REC_BYTES, HPCTRACE_REC_BYTES);
	set_span(t);
	return t;
}

void hpctrace_close(struct hpctrace *t)
{
	if (!t)
		return;
	if (t->map)
		munmap((void *)t->map, t->map_len);
	free(t->path);
	free(t->problem);
	free(t);
}

char *hpctrace_db_path(const char *dbdir, size_t n)
{
	struct strbuf sb = STRBUF_INIT;

	strbuf_addf(&sb, "%s/traces/%zu%s", dbdir, n, HPCTRACE_SUFFIX);
	return strbuf_detach(&sb, NULL);
}
