/*
 * hpcrun-fmt-write.c - the .hpcrun 04.00 writer (see hpcrun-fmt.h).
 *
 * Linked into libhpcrun.so and called while threads and processes end,
 * possibly from a fatal-signal handler, so it is async-signal-safe: no
 * malloc, no stdio, no locks.  Bytes go through one stack buffer that is
 * flushed with write(2); every section starts at a multiple of 1024 (the
 * gap zero-filled) and the 112-byte footer records the section bounds.
 */
#include <errno.h>
#include <string.h>
#include <unistd.h>

#include "hpcrun-fmt.h"
#include "writeall.h"

#define SECTION_ALIGN 1024

struct out {
	int fd;
	int err;		/* first error, negative errno */
	uint64_t off;		/* bytes emitted so far */
	size_t len;		/* bytes in buf */
	unsigned char buf[4096];
};

static void flush(struct out *o)
{
	if (!o->err && o->len)
		o->err = hpc_write_all(o->fd, o->buf, o->len);
	o->len = 0;
}

static void put(struct out *o, const void *data, size_t n)
{
	const unsigned char *p = data;

	while (n) {
		size_t k = sizeof(o->buf) - o->len;

		if (k > n)
			k = n;
		memcpy(o->buf + o->len, p, k);
		o->len += k;
		o->off += k;
		p += k;
		n -= k;
		if (o->len == sizeof(o->buf))
			flush(o);
	}
}

static void put_be(struct out *o, uint64_t v, int bytes)
{
	unsigned char b[8];
	int i;

	for (i = 0; i < bytes; i++)
		b[i] = (unsigned char)(v >> (8 * (bytes - 1 - i)));
	put(o, b, (size_t)bytes);
}

#define put8(o, v) put_be((o), (v), 1)
#define put16(o, v) put_be((o), (v), 2)
#define put32(o, v) put_be((o), (v), 4)
#define put64(o, v) put_be((o), (v), 8)

static void put_str(struct out *o, const char *s)
{
	size_t n = s ? strlen(s) : 0;

	put32(o, n);
	put(o, s, n);
}

static void put_double(struct out *o, double d)
{
	uint64_t bits;

	memcpy(&bits, &d, sizeof(bits));
	put64(o, bits);
}

/* Zero-fills up to the next section boundary. */
static void align(struct out *o)
{
	static const unsigned char zero[64];

	while (o->off % SECTION_ALIGN) {
		size_t k = SECTION_ALIGN - o->off % SECTION_ALIGN;

		put(o, zero, k < sizeof(zero) ? k : sizeof(zero));
	}
}

static void write_header(struct out *o, const struct hpcrun_profile *p)
{
	size_t i;

	put(o, HPCRUN_FMT_MAGIC, strlen(HPCRUN_FMT_MAGIC));
	put(o, HPCRUN_FMT_VERSION, strlen(HPCRUN_FMT_VERSION));
	put(o, "b", 1);
	put32(o, p->nheader);
	for (i = 0; i < p->nheader; i++) {
		put_str(o, p->header[i].name);
		put_str(o, p->header[i].value);
	}
}

static void write_loadmap(struct out *o, const struct hpcrun_profile *p)
{
	size_t i;

	put32(o, p->nlms);
	for (i = 0; i < p->nlms; i++) {
		put16(o, p->lms[i].id);
		put_str(o, p->lms[i].path);
		put64(o, p->lms[i].flags);
	}
}

static void write_cct(struct out *o, const struct hpcrun_profile *p)
{
	uint64_t i;

	put64(o, p->nnodes);
	for (i = 0; i < p->nnodes; i++) {
		const struct hpcrun_node *n = &p->nodes[i];

		put32(o, n->id);
		put32(o, n->parent);
		put16(o, n->lm);
		put64(o, n->addr);
		put8(o, n->flags);
	}
}

static void write_metrics(struct out *o, const struct hpcrun_profile *p)
{
	uint32_t i;

	put32(o, p->nmetrics);
	for (i = 0; i < p->nmetrics; i++) {
		const struct hpcrun_metric *m = &p->metrics[i];

		put_str(o, m->name);
		put_str(o, m->description);
		put(o, m->flags, sizeof(m->flags));
		put64(o, m->period);
		put_str(o, m->formula);
		put_str(o, m->format);
		put16(o, m->is_frequency);
		put16(o, m->is_multiplexed);
		put_double(o, m->threshold);
		put64(o, m->nsamples);
	}
}

static void write_idkinds(struct out *o, const struct hpcrun_profile *p)
{
	uint16_t i;

	put16(o, p->nidkinds);
	for (i = 0; i < p->nidkinds; i++) {
		put16(o, p->idkinds[i].kind);
		put_str(o, p->idkinds[i].name);
	}
}

static void write_values(struct out *o, const struct hpcrun_profile *p)
{
	uint64_t i;
	uint16_t t;

	put16(o, p->nidtuple);
	for (t = 0; t < p->nidtuple; t++) {
		put16(o, p->idtuple[t].kind);
		put64(o, p->idtuple[t].physical);
		put64(o, p->idtuple[t].logical);
	}
	put64(o, p->nvalues);
	put32(o, p->nctxs);
	for (i = 0; i < p->nvalues; i++) {
		put64(o, p->values[i].bits);
		put16(o, p->values[i].metric);
	}
	for (i = 0; i < p->nctxs; i++) {
		put32(o, p->ctxs[i].ctx);
		put64(o, p->ctxs[i].first);
	}
	put32(o, HPCRUN_FMT_END_ID);
	put64(o, p->nvalues);
}

int hpcrun_fmt_write(int fd, const struct hpcrun_profile *p)
{
	static void (*const section[])(struct out *, const struct hpcrun_profile *) = {
		write_header, write_loadmap, write_cct, write_metrics,
		write_idkinds, write_values,
	};
	uint64_t bounds[2 * (sizeof(section) / sizeof(section[0]))];
	struct out o;
	size_t i;

	o.fd = fd;
	o.err = 0;
	o.off = 0;
	o.len = 0;
	for (i = 0; i < sizeof(section) / sizeof(section[0]); i++) {
		align(&o);
		bounds[2 * i] = o.off;
		section[i](&o, p);
		bounds[2 * i + 1] = o.off;
	}
	align(&o);
	for (i = 0; i < sizeof(bounds) / sizeof(bounds[0]); i++)
		put64(&o, bounds[i]);
	put64(&o, o.off - 8 * sizeof(bounds) / sizeof(bounds[0]));
	put64(&o, HPCRUN_FMT_FOOTER_MAGIC);
	flush(&o);
	return o.err;
}

uint64_t hpcrun_value_bits(const struct hpcrun_metric *m, double v)
{
	uint64_t bits;

	if (m->flags[2] == 1)
		return (uint64_t)v;
	memcpy(&bits, &v, sizeof(bits));
	return bits;
}

void hpcrun_fmt_identity(struct hpcrun_profile *p,
			 struct hpcrun_idkind_name idk[HPCRUN_NIDKINDS],
			 struct hpcrun_id_elem tuple[3], uint32_t hostid,
			 uint64_t thread)
{
	static const char *const kinds[HPCRUN_NIDKINDS] = {
		"SUMMARY", "NODE", "RANK", "THREAD", "GPUDEVICE", "GPUCONTEXT",
		"GPUSTREAM", "CORE",
	};
	uint16_t i;

	for (i = 0; i < HPCRUN_NIDKINDS; i++) {
		idk[i].kind = i;
		idk[i].name = kinds[i];
	}
	p->idkinds = idk;
	p->nidkinds = HPCRUN_NIDKINDS;
	tuple[0] = (struct hpcrun_id_elem){ 0x4001, hostid, 0 };
	tuple[1] = (struct hpcrun_id_elem){ 0xc007, 0, 0 };
	tuple[2] = (struct hpcrun_id_elem){ 0xc003, thread, thread };
	p->idtuple = tuple;
	p->nidtuple = 3;
}
