/*
 * textrec-write.c - the line-record writer (see textrec.h, invariants
 * W1-W3).  Linked into libhpcrun.so: only write(2), memcpy and
 * integer arithmetic, nothing that allocates or locks.
 */
#include <errno.h>
#include <string.h>
#include <unistd.h>

#include "textrec.h"
#include "writeall.h"

void textrec_out_init(struct textrec_out *o, int fd)
{
	o->fd = fd;
	o->err = 0;
	o->len = 0;
}

int textrec_flush(struct textrec_out *o)
{
	if (!o->err && o->len)
		o->err = hpc_write_all(o->fd, o->buf, o->len);
	o->len = 0;
	return o->err;
}

static void put(struct textrec_out *o, const char *p, size_t n)
{
	while (n) {
		size_t k = sizeof(o->buf) - o->len;

		if (k > n)
			k = n;
		memcpy(o->buf + o->len, p, k);
		o->len += k;
		p += k;
		n -= k;
		if (o->len == sizeof(o->buf))
			textrec_flush(o);
	}
}

void textrec_put(struct textrec_out *o, const char *s)
{
	put(o, s, strlen(s));
}

/* v in base (10 or 16), at least width digits (zeros before). */
static void put_digits(struct textrec_out *o, uint64_t v, unsigned base,
		       int width)
{
	char b[24];
	int i = (int)sizeof(b);

	do {
		b[--i] = "0123456789abcdef"[v % base];
		v /= base;
	} while (v || (int)sizeof(b) - i < width);
	put(o, b + i, sizeof(b) - (size_t)i);
}

void textrec_put_u64(struct textrec_out *o, uint64_t v)
{
	put_digits(o, v, 10, 1);
}

void textrec_field(struct textrec_out *o, const char *s)
{
	put(o, " ", 1);
	textrec_put(o, s);
}

void textrec_field_u64(struct textrec_out *o, uint64_t v)
{
	put(o, " ", 1);
	put_digits(o, v, 10, 1);
}

void textrec_field_i64(struct textrec_out *o, int64_t v)
{
	put(o, v < 0 ? " -" : " ", v < 0 ? 2 : 1);
	put_digits(o, v < 0 ? -(uint64_t)v : (uint64_t)v, 10, 1);
}

void textrec_field_hex(struct textrec_out *o, uint64_t v)
{
	put(o, " 0x", 3);
	put_digits(o, v, 16, 1);
}

/*
 * The exact value of the double x = m * 2^e times 1e9 is m * 1e9 * 2^e,
 * m below 2^53: an integer below 2^83 shifted, which 128 bits hold for
 * every x below 2^63.  Rounded to the nearest integer (a tie to the even
 * one, as glibc's printf in the default rounding mode), it is the
 * "%.9f" spelling's digits.
 */
void textrec_field_seconds(struct textrec_out *o, double seconds)
{
	uint64_t bits, m;
	unsigned __int128 n;
	int e;

	if (!(seconds >= 0) || seconds >= 0x1p63)
		seconds = 0;
	memcpy(&bits, &seconds, sizeof(bits));
	e = (int)(bits >> 52) & 0x7ff;
	m = bits & ((UINT64_C(1) << 52) - 1);
	if (e)
		m |= UINT64_C(1) << 52;
	else
		e = 1;
	e -= 1075;		/* seconds = m * 2^e */
	n = (unsigned __int128)m * 1000000000u;
	if (e >= 0) {
		n <<= e;
	} else if (e > -84) {
		unsigned __int128 half = (unsigned __int128)1 << (-e - 1),
				  rem = n & ((half << 1) - 1);

		n >>= -e;
		if (rem > half || (rem == half && (n & 1)))
			n++;
	} else {
		n = 0;		/* below 2^83 / 2^84: under half a unit */
	}
	put(o, " ", 1);
	put_digits(o, (uint64_t)(n / 1000000000u), 10, 1);
	put(o, ".", 1);
	put_digits(o, (uint64_t)(n % 1000000000u), 10, 9);
}
