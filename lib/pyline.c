/*
 * pyline.c - see pyline.h.  Only libc's realloc and free: the file is
 * also linked into libhpcrun.so (pyline_line, for hang reports).
 */
#include <stdlib.h>

#include "pyline.h"

/* Where the decoders put the ranges: all of them into r (want < 0), or
 * only the line of the one holding byte want. */
struct ranges {
	struct pyline_range *r;
	size_t n, alloc;
	uint32_t ncode;
	int64_t want;
	int32_t line;
};

/* Takes [start, end) at line, cut at the bytecode's end; 0, or -1 to
 * stop (the range starts past the end, want's range is found, or no
 * memory is left). */
static int add(struct ranges *rs, uint64_t start, uint64_t end, int64_t line)
{
	struct pyline_range *grown;

	if (rs->ncode && end > rs->ncode)
		end = rs->ncode;
	if (end > UINT32_MAX || (rs->ncode && start >= rs->ncode))
		return -1;
	if (end <= start)
		return 0;
	line = line < 0 || line > INT32_MAX ? -1 : line;
	if (rs->want >= 0) {
		if ((uint64_t)rs->want < start || (uint64_t)rs->want >= end)
			return 0;
		rs->line = (int32_t)line;
		return -1;
	}
	if (rs->n == rs->alloc) {
		rs->alloc = rs->alloc ? 2 * rs->alloc : 16;
		grown = realloc(rs->r, rs->alloc * sizeof(*rs->r));
		if (!grown)
			return -1;
		rs->r = grown;
	}
	rs->r[rs->n].start = (uint32_t)start;
	rs->r[rs->n].end = (uint32_t)end;
	rs->r[rs->n].line = (int32_t)line;
	rs->n++;
	return 0;
}

/* PEP 626 (3.10). */
static void decode_310(struct ranges *rs, const unsigned char *t, size_t len,
		       int64_t line)
{
	uint64_t end = 0, start;
	size_t i;

	for (i = 0; i + 1 < len; i += 2) {
		start = end;
		end += t[i];
		if (t[i + 1] != 0x80)	/* -128: no line */
			line += (signed char)t[i + 1];
		if (add(rs, start, end, t[i + 1] == 0x80 ? -1 : line))
			return;
	}
}

/* The varint at t[*i] (pyline.h); *i moves past it, never past len. */
static uint64_t varint(const unsigned char *t, size_t len, size_t *i)
{
	uint64_t v = 0;
	unsigned shift = 0;

	while (*i < len && !(t[*i] & 0x80)) {
		unsigned char b = t[(*i)++];

		if (shift < 64)
			v |= (uint64_t)(b & 0x3f) << shift;
		shift += 6;
		if (!(b & 0x40))
			break;
	}
	return v;
}

static int64_t svarint(const unsigned char *t, size_t len, size_t *i)
{
	uint64_t v = varint(t, len, i);

	return v & 1 ? -(int64_t)(v >> 1) : (int64_t)(v >> 1);
}

/* line + d, held at the int64_t range: a table that steps that far is
 * corrupt, and add() takes a line out of int32_t's range for none. */
static int64_t line_step(int64_t line, int64_t d)
{
	if (d > 0 && line > INT64_MAX - d)
		return INT64_MAX;
	if (d < 0 && line < INT64_MIN - d)
		return INT64_MIN;
	return line + d;
}

/* The location table (3.11+). */
static void decode_311(struct ranges *rs, const unsigned char *t, size_t len,
		       int64_t line)
{
	uint64_t end = 0, start;
	size_t i = 0;

	while (i < len) {
		unsigned char first = t[i++];
		unsigned code = (first >> 3) & 15;
		int none = 0;

		if (!(first & 0x80))
			return;		/* not an entry's first byte */
		start = end;
		end += 2 * ((first & 7) + 1);
		if (code == 15)
			none = 1;
		else if (code == 13 || code == 14)
			line = line_step(line, svarint(t, len, &i));
		else if (code >= 10)
			line = line_step(line, code - 10);
		/* the rest of the entry: columns, end line */
		while (i < len && !(t[i] & 0x80))
			i++;
		if (add(rs, start, end, none ? -1 : line))
			return;
	}
}

/* Decodes table into rs; 0, or -1 for a version of no known format. */
static int decode(struct ranges *rs, int major, int minor,
		  const unsigned char *table, size_t len, uint32_t firstlineno)
{
	if (major != 3 || minor < 10)
		return -1;
	if (minor == 10)
		decode_310(rs, table, len, firstlineno);
	else
		decode_311(rs, table, len, firstlineno);
	return 0;
}

long pyline_decode(int major, int minor, const unsigned char *table,
		   size_t len, uint32_t firstlineno, uint32_t ncode,
		   struct pyline_range **out)
{
	struct ranges rs = { NULL, 0, 0, ncode, -1, -1 };

	*out = NULL;
	if (decode(&rs, major, minor, table, len, firstlineno))
		return -1;
	*out = rs.r;
	return (long)rs.n;
}

int32_t pyline_line(int major, int minor, const unsigned char *table,
		    size_t len, uint32_t firstlineno, uint32_t ncode,
		    uint32_t offset)
{
	struct ranges rs = { NULL, 0, 0, ncode, offset, -1 };

	decode(&rs, major, minor, table, len, firstlineno);
	return rs.line;
}

int32_t pyline_at(const struct pyline_range *r, size_t n, uint32_t offset)
{
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (r[mid].end <= offset)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < n && r[lo].start <= offset ? r[lo].line : -1;
}
