/* kallsyms.c - see kallsyms.h. */
#include <errno.h>
#include <lzma.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "addrsearch.h"
#include "error.h"
#include "hexdigit.h"
#include "infile.h"
#include "kallsyms.h"
#include "strbuf.h"

/* Bytes read from the file, and of text handed to the line splitter, at once. */
#define CHUNK_SIZE 65536

#define LIST "a kernel symbol list"

static const unsigned char xz_magic[6] = { 0xfd, '7', 'z', 'X', 'Z', 0 };
static const lzma_stream lzma_stream_init = LZMA_STREAM_INIT;

/*
 * One text symbol.  name is the offset in the names arena of the type
 * letter, followed by the name and its NUL; seq is its place in the list.
 */
struct ksym {
	uint64_t addr;
	uint32_t name;
	uint32_t seq;
};

struct kallsyms {
	struct ksym *v;
	size_t n, alloc;
	struct strbuf names;
};

/* The decompressed (or plain) text of a list, read in chunks. */
struct source {
	const char *path;
	FILE *f;
	int xz, eof, done;
	lzma_stream z;
	uint8_t in[CHUNK_SIZE];
};

/*
 * Reads the first bytes of f into head and rewinds: 1 when they are the XZ
 * magic, else 0; *got says how many there were.
 */
static int starts_xz(FILE *f, unsigned char head[sizeof(xz_magic)],
		     size_t *got)
{
	*got = fread(head, 1, sizeof(xz_magic), f);
	rewind(f);
	return *got == sizeof(xz_magic) &&
	       !memcmp(head, xz_magic, sizeof(xz_magic));
}

int kallsyms_is_list(const char *path)
{
	unsigned char head[sizeof(xz_magic)];
	FILE *f = infile_fopen(path, KALLSYMS_MAX_TEXT, LIST);
	size_t got;
	int xz;
	const char *p;

	if (!f)
		return 0;
	xz = starts_xz(f, head, &got);
	fclose(f);
	if (xz)
		return 1;
	if (got >= 4 && !memcmp(head, "\177ELF", 4))
		return 0;
	for (p = path; (p = strstr(p, "kernel_symbols/")); p++)
		if (p == path || p[-1] == '/')
			return 1;
	return 0;
}

/* Sets hpc_lasterr() for the liblzma error ret; returns -1. */
static int xz_seterr(const char *path, lzma_ret ret)
{
	switch (ret) {
	case LZMA_MEM_ERROR:
		return hpc_seterr("'%s': out of memory decompressing XZ data",
				  path);
	case LZMA_MEMLIMIT_ERROR:
		return hpc_seterr("'%s': XZ data needs more than %u MiB to "
				  "decompress", path, KALLSYMS_XZ_MEMLIMIT >> 20);
	case LZMA_OPTIONS_ERROR:
		return hpc_seterr("'%s': unsupported XZ options", path);
	case LZMA_BUF_ERROR:
		return hpc_seterr("'%s': truncated XZ data", path);
	default:
		return hpc_seterr("'%s': corrupt XZ data", path);
	}
}

static int source_open(struct source *s, const char *path)
{
	unsigned char head[sizeof(xz_magic)];
	size_t got;
	lzma_ret ret;

	memset(s, 0, sizeof(*s));
	s->path = path;
	s->f = infile_fopen(path, KALLSYMS_MAX_TEXT, LIST);
	if (!s->f)
		return -1;
	s->xz = starts_xz(s->f, head, &got);
	if (!s->xz)
		return 0;
	s->z = lzma_stream_init;
	ret = lzma_stream_decoder(&s->z, KALLSYMS_XZ_MEMLIMIT,
				  LZMA_CONCATENATED);
	if (ret != LZMA_OK) {
		fclose(s->f);
		s->f = NULL;
		return xz_seterr(path, ret);
	}
	return 0;
}

static void source_close(struct source *s)
{
	if (s->xz)
		lzma_end(&s->z);
	if (s->f)
		fclose(s->f);
}

/* Refills the XZ input; 0 or -1 on a read error. */
static int source_fill(struct source *s)
{
	size_t got;

	if (s->z.avail_in || s->eof)
		return 0;
	got = fread(s->in, 1, sizeof(s->in), s->f);
	if (got < sizeof(s->in)) {
		if (ferror(s->f))
			return hpc_seterr("'%s': %s", s->path,
					  strerror(errno ? errno : EIO));
		s->eof = 1;
	}
	s->z.next_in = s->in;
	s->z.avail_in = got;
	return 0;
}

/*
 * Up to n bytes of text into buf.  Returns how many (0 at the end), or -1
 * with hpc_lasterr() set.
 */
static long source_read(struct source *s, uint8_t *buf, size_t n)
{
	if (s->done)
		return 0;
	if (!s->xz) {
		size_t got = fread(buf, 1, n, s->f);

		if (got < n && ferror(s->f))
			return hpc_seterr("'%s': %s", s->path,
					  strerror(errno ? errno : EIO));
		s->done = got == 0;
		return (long)got;
	}
	s->z.next_out = buf;
	s->z.avail_out = n;
	while (s->z.avail_out == n) {
		lzma_ret ret;

		if (source_fill(s))
			return -1;
		ret = lzma_code(&s->z, s->eof ? LZMA_FINISH : LZMA_RUN);
		if (ret == LZMA_STREAM_END) {
			s->done = 1;
			break;
		}
		if (ret != LZMA_OK)
			return xz_seterr(s->path, ret);
	}
	return (long)(n - s->z.avail_out);
}

static int is_blank(char c)
{
	return c == ' ' || c == '\t' || c == '\r';
}

static const char *skip_blanks(const char *p, const char *end)
{
	while (p < end && is_blank(*p))
		p++;
	return p;
}

/*
 * Parses one line, "ADDRESS TYPE NAME [MODULE]", and keeps its symbol when
 * it is a text symbol at a non-zero address.  Returns 0, or -1 when the
 * line is not a symbol or there are too many (hpc_lasterr() set).
 */
static int parse_line(struct kallsyms *ks, const char *path, size_t lineno,
		      const char *p, size_t len)
{
	const char *end = p + len, *name;
	uint64_t addr = 0;
	int ndigits = 0, d;
	char type;
	struct ksym *s;

	if (skip_blanks(p, end) == end)
		return 0;
	if (memchr(p, 0, len))
		goto bad;
	for (; p < end && (d = hex_digit(*p)) >= 0; p++, ndigits++)
		addr = addr << 4 | (uint64_t)d;
	if (ndigits == 0 || ndigits > 16 || p == end || !is_blank(*p))
		goto bad;
	p = skip_blanks(p, end);
	if (p == end || !((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z')))
		goto bad;
	type = *p++;
	if (p == end || !is_blank(*p))
		goto bad;
	name = p = skip_blanks(p, end);
	while (p < end && !is_blank(*p))
		p++;
	if (p == name)
		goto bad;
	len = (size_t)(p - name);
	p = skip_blanks(p, end);
	if (p < end) {
		const char *module = p;

		while (p < end && !is_blank(*p))
			p++;
		if (module[0] != '[' || p[-1] != ']' || p - module < 3 ||
		    skip_blanks(p, end) != end)
			goto bad;
	}
	if (!strchr("tTwW", type) || !addr)
		return 0;
	if (ks->n == KALLSYMS_MAX_SYMBOLS)
		return hpc_seterr("'%s': more than %u text symbols", path,
				  KALLSYMS_MAX_SYMBOLS);
	HPC_GROW(ks->v, ks->n + 1, ks->alloc);
	s = &ks->v[ks->n];
	s->addr = addr;
	s->name = (uint32_t)ks->names.len;
	s->seq = (uint32_t)ks->n++;
	strbuf_addch(&ks->names, type);
	strbuf_add(&ks->names, name, len);
	strbuf_addch(&ks->names, 0);
	return 0;
bad:
	return hpc_seterr("'%s': line %zu is not a kernel symbol "
			  "('ADDRESS TYPE NAME [MODULE]')", path, lineno);
}

/* Rank of a symbol among those at its address: lower names it. */
static unsigned rank(const char *tn)
{
	unsigned type = tn[0] == 'T' ? 0 : tn[0] == 't' ? 1
		      : tn[0] == 'W' ? 2 : 3;
	unsigned under = 0;

	while (tn[1 + under] == '_' && under < 255)
		under++;
	return type << 8 | under;
}

static int cmp_ksym(const void *a, const void *b, void *arg)
{
	const struct ksym *x = a, *y = b;
	const char *names = arg;
	unsigned rx, ry;

	if (x->addr != y->addr)
		return x->addr < y->addr ? -1 : 1;
	rx = rank(names + x->name);
	ry = rank(names + y->name);
	if (rx != ry)
		return rx < ry ? -1 : 1;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

/* Reads every line of s into ks; 0 or -1 with hpc_lasterr() set. */
static int read_lines(struct kallsyms *ks, struct source *s)
{
	uint8_t *chunk = xmalloc(CHUNK_SIZE);
	struct strbuf line = STRBUF_INIT;
	size_t total = 0, lineno = 0;
	long got = 0;
	int ret = 0;

	while (!ret && (got = source_read(s, chunk, CHUNK_SIZE)) > 0) {
		const uint8_t *p = chunk, *end = chunk + got;

		total += (size_t)got;
		if (total > KALLSYMS_MAX_TEXT) {
			ret = hpc_seterr("'%s': more than %u MiB of text",
					 s->path, KALLSYMS_MAX_TEXT >> 20);
			break;
		}
		while (!ret && p < end) {
			const uint8_t *nl = memchr(p, '\n', (size_t)(end - p));
			size_t n = (size_t)((nl ? nl : end) - p);

			if (line.len + n > KALLSYMS_MAX_LINE) {
				ret = hpc_seterr("'%s': line %zu is longer "
						 "than %d bytes", s->path,
						 lineno + 1, KALLSYMS_MAX_LINE);
				break;
			}
			strbuf_add(&line, p, n);
			p += n;
			if (!nl)
				break;
			p++;
			ret = parse_line(ks, s->path, ++lineno, line.buf,
					 line.len);
			strbuf_reset(&line);
		}
	}
	if (!ret && got < 0)
		ret = -1;
	if (!ret && line.len)
		ret = parse_line(ks, s->path, ++lineno, line.buf, line.len);
	strbuf_release(&line);
	free(chunk);
	return ret;
}

struct kallsyms *kallsyms_read(const char *path)
{
	struct kallsyms *ks;
	struct source s;
	size_t i, n;
	int ret;

	if (source_open(&s, path))
		return NULL;
	ks = xcalloc(1, sizeof(*ks));
	strbuf_init(&ks->names);
	ret = read_lines(ks, &s);
	source_close(&s);
	if (!ret && !ks->n)
		ret = hpc_seterr("'%s': no text symbols at non-zero addresses",
				 path);
	if (ret) {
		kallsyms_free(ks);
		return NULL;
	}
	qsort_r(ks->v, ks->n, sizeof(*ks->v), cmp_ksym, ks->names.buf);
	for (i = n = 1; i < ks->n; i++)
		if (ks->v[i].addr != ks->v[n - 1].addr)
			ks->v[n++] = ks->v[i];
	ks->n = n;
	return ks;
}

void kallsyms_free(struct kallsyms *ks)
{
	if (!ks)
		return;
	free(ks->v);
	strbuf_release(&ks->names);
	free(ks);
}

static int ksym_at_or_before(const void *elem, const void *key)
{
	return ((const struct ksym *)elem)->addr <= *(const uint64_t *)key;
}

const char *kallsyms_lookup(const struct kallsyms *ks, uint64_t addr,
			    uint64_t *start)
{
	/* The first symbol above addr; the one before it is the candidate. */
	size_t lo = addrsearch_partition(ks->v, ks->n, sizeof(*ks->v),
					 ksym_at_or_before, &addr);

	if (lo == 0 || addr - ks->v[lo - 1].addr > KALLSYMS_REACH)
		return NULL;
	*start = ks->v[lo - 1].addr;
	return ks->names.buf + ks->v[lo - 1].name + 1;
}
