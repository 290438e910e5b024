/*
 * hpctrace-write.c - the .hpctrace writer (see hpctrace.h).
 *
 * Linked into libhpcrun.so and called from the sampling handler, so it is
 * async-signal-safe (hpctrace.h, invariant 3): no malloc, no stdio, no
 * locks, no errno left changed.  Records go into the caller's buffer,
 * whose usable size is a whole number of records, and out with write(2)
 * when it is full.
 */
#include <errno.h>
#include <string.h>
#include <unistd.h>

#include "hpctrace.h"
#include "writeall.h"

static void put_be(unsigned char *p, uint64_t v, int bytes)
{
	int i;

	for (i = 0; i < bytes; i++)
		p[i] = (unsigned char)(v >> (8 * (bytes - 1 - i)));
}

int hpctrace_writer_init(struct hpctrace_writer *w, void *buf, size_t size)
{
	w->fd = -1;
	w->buf = buf;
	w->cap = size / HPCTRACE_REC_BYTES * HPCTRACE_REC_BYTES;
	w->len = 0;
	w->last = 0;
	w->nrecords = 0;
	w->err = w->cap ? 0 : -EINVAL;
	return w->err;
}

int hpctrace_write_header(int fd)
{
	unsigned char hdr[HPCTRACE_HDR_BYTES];

	memcpy(hdr, HPCTRACE_MAGIC, 18);
	memcpy(hdr + 18, HPCTRACE_VERSION, 5);
	hdr[23] = 'b';
	put_be(hdr + 24, 0, 8);
	return hpc_write_all(fd, hdr, sizeof(hdr));
}

int hpctrace_writer_start(struct hpctrace_writer *w, int fd, void *buf,
			  size_t size)
{
	if (hpctrace_writer_init(w, buf, size))
		return w->err;
	w->fd = fd;
	w->err = hpctrace_write_header(fd);
	return w->err;
}

int hpctrace_writer_flush(struct hpctrace_writer *w)
{
	if (!w->err && w->len)
		w->err = hpc_write_all(w->fd, w->buf, w->len);
	w->len = 0;
	return w->err;
}

void hpctrace_store(struct hpctrace_writer *w, uint64_t time, uint32_t id)
{
	if (time < w->last)
		time = w->last;	/* hpctrace.h, invariant 2 */
	w->last = time;
	put_be(w->buf + w->len, time, 8);
	put_be(w->buf + w->len + 8, id, 4);
	w->len += HPCTRACE_REC_BYTES;
	w->nrecords++;
}

int hpctrace_append(struct hpctrace_writer *w, uint64_t time, uint32_t id)
{
	if (w->err)
		return w->err;
	hpctrace_store(w, time, id);
	if (w->len == w->cap)
		return hpctrace_writer_flush(w);
	return 0;
}
