/*
 * hpcpy-write.c - the .hpcpy writer (see hpcpy.h, man/hpcrun.5 "Python
 * code files").  Linked into libhpcrun.so: async-signal-safe, everything
 * through textrec-write.c.
 */
#include "hpcpy.h"
#include "textrec.h"

static const char hexdigit[] = "0123456789abcdef";

/* A field of len bytes of s, escaped as hpcpy.h says. */
static void field_escaped(struct textrec_out *o, const char *s, size_t len)
{
	char chunk[64 * 3 + 1];
	size_t i, k = 0;

	textrec_put(o, len ? " " : " %");
	for (i = 0; i < len; i++) {
		unsigned char b = (unsigned char)s[i];

		if (b >= 0x21 && b <= 0x7e && b != '%') {
			chunk[k++] = (char)b;
		} else {
			chunk[k++] = '%';
			chunk[k++] = "0123456789ABCDEF"[b >> 4];
			chunk[k++] = "0123456789ABCDEF"[b & 15];
		}
		if (k >= sizeof(chunk) - 4 || i + 1 == len) {
			chunk[k] = '\0';
			textrec_put(o, chunk);
			k = 0;
		}
	}
}

static void field_hexbytes(struct textrec_out *o, const unsigned char *b,
			   size_t len)
{
	char chunk[128 + 1];
	size_t i, k = 0;

	textrec_put(o, len ? " " : " -");
	for (i = 0; i < len; i++) {
		chunk[k++] = hexdigit[b[i] >> 4];
		chunk[k++] = hexdigit[b[i] & 15];
		if (k == sizeof(chunk) - 1 || i + 1 == len) {
			chunk[k] = '\0';
			textrec_put(o, chunk);
			k = 0;
		}
	}
}

void hpcpy_write_head(struct textrec_out *o, int major, int minor)
{
	textrec_put(o, HPCPY_MAGIC);
	textrec_field(o, HPCPY_VERSION);
	textrec_put(o, "\n" HPCPY_PYTHON);
	textrec_field_u64(o, (uint64_t)major);
	textrec_field_u64(o, (uint64_t)minor);
	textrec_put(o, "\n");
}

void hpcpy_write_code(struct textrec_out *o, const struct hpcpy_code *c)
{
	textrec_put(o, HPCPY_CODE);
	textrec_field_hex(o, c->id);
	textrec_field_u64(o, c->firstlineno);
	textrec_field_u64(o, c->ncode);
	field_escaped(o, c->qualname, c->qualname_len);
	field_escaped(o, c->filename, c->filename_len);
	field_hexbytes(o, c->linetable, c->linetable_len);
	textrec_put(o, "\n");
}
