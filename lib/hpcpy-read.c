/* hpcpy-read.c - the .hpcpy reader (see hpcpy.h, man/hpcrun.5). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "error.h"
#include "hashmap.h"
#include "hexdigit.h"
#include "hpcpy.h"
#include "strbuf.h"
#include "textrec.h"

/* A file holds no more; a line at most the longest code record. */
#define HPCPY_MAX_BYTES ((uint64_t)1 << 30)
#define HPCPY_MAX_LINE (64 + 2 * 3 * HPCPY_MAX_NAME + 2 * HPCPY_MAX_LINETABLE)

/* The parse of one file. */
struct parser {
	struct textrec *r;
	struct hpcpy *p;
	size_t alloc;
	int have_python;
	struct hmap *ids;	/* id -> 1: a code kept (hpcpy.h, invariant 3) */
};

/* Field i unescaped (hpcpy.h) into *out (malloc'd, NUL-terminated),
 * *len bytes; 0, or -1 after textrec_bad. */
static int unescape(struct parser *p, int i, char **out, size_t *len)
{
	const char *s = p->r->f[i];
	size_t n = 0, k;
	char *b;

	if (!strcmp(s, "%")) {
		*out = xstrdup("");
		*len = 0;
		return 0;
	}
	b = xmalloc(strlen(s) + 1);
	for (k = 0; s[k]; n++) {
		unsigned char c = (unsigned char)s[k];

		if (c == '%') {
			int hi = hex_digit(s[k + 1]), lo = hi < 0 ? -1 : hex_digit(s[k + 2]);

			if (lo < 0) {
				free(b);
				return textrec_bad(p->r, "expected %XX in a name");
			}
			b[n] = (char)(hi << 4 | lo);
			k += 3;
		} else if (c < 0x21 || c > 0x7e) {
			free(b);
			return textrec_bad(p->r, "unescaped byte in a name");
		} else {
			b[n] = (char)c;
			k++;
		}
	}
	b[n] = '\0';
	if (n > HPCPY_MAX_NAME) {
		free(b);
		return textrec_bad(p->r, "name longer than 1024 bytes");
	}
	*out = b;
	*len = n;
	return 0;
}

/* Field i as the line table's hex bytes, or "-" for none. */
static int hexbytes(struct parser *p, int i, unsigned char **out, size_t *len)
{
	const char *s = p->r->f[i];
	size_t n = strlen(s), k;
	unsigned char *b;

	if (!strcmp(s, "-")) {
		*out = xcalloc(1, 1);
		*len = 0;
		return 0;
	}
	if (n % 2)
		return textrec_bad(p->r, "odd number of hex digits in a line table");
	if (n / 2 > HPCPY_MAX_LINETABLE)
		return textrec_bad(p->r, "line table longer than 65536 bytes");
	b = xmalloc(n / 2 + 1);
	for (k = 0; k < n; k += 2) {
		int hi = hex_digit(s[k]), lo = hex_digit(s[k + 1]);

		if (hi < 0 || lo < 0) {
			free(b);
			return textrec_bad(p->r, "expected hex digits in a line table");
		}
		b[k / 2] = (unsigned char)(hi << 4 | lo);
	}
	b[n / 2] = 0;
	*out = b;
	*len = n / 2;
	return 0;
}

static void code_release(struct hpcpy_code *c)
{
	free((char *)c->qualname);
	free((char *)c->filename);
	free((unsigned char *)c->linetable);
}

static int rec_code(struct parser *p)
{
	struct hpcpy_code c;
	char *q = NULL, *f = NULL;
	unsigned char *t = NULL;

	memset(&c, 0, sizeof(c));
	if (!p->have_python)
		return textrec_bad(p->r, "code before the python line");
	if (p->r->nf != 7)
		return textrec_bad(p->r, "code wants ID FIRSTLINE NCODE QUALNAME "
				   "FILENAME LINETABLE");
	if (textrec_u64(p->r, 1, &c.id) || textrec_u32(p->r, 2, &c.firstlineno) ||
	    textrec_u32(p->r, 3, &c.ncode))
		return -1;
	if (!c.id || c.id >> HPCPY_ID_BITS)
		return textrec_bad(p->r, "code id 0 or of more than 38 bits");
	if (c.ncode >= (1u << HPCPY_OFFSET_BITS) - 1)
		return textrec_bad(p->r, "bytecode longer than 16 MB");
	if (unescape(p, 4, &q, &c.qualname_len) ||
	    unescape(p, 5, &f, &c.filename_len) ||
	    hexbytes(p, 6, &t, &c.linetable_len)) {
		free(q);
		free(f);
		return -1;
	}
	c.qualname = q;
	c.filename = f;
	c.linetable = t;
	if (hmap_get_u64(p->ids, c.id)) {
		code_release(&c);	/* hpcpy.h, invariant 3: kept once */
		return 0;
	}
	hmap_put_u64(p->ids, c.id, (void *)1);
	HPC_GROW(p->p->codes, p->p->ncodes + 1, p->alloc);
	p->p->codes[p->p->ncodes++] = c;
	return 0;
}

static int parse_line(struct textrec *r, void *arg)
{
	struct parser *p = arg;
	long major, minor;

	p->r = r;
	if (r->lineno == 1)
		return r->nf == 2 && !strcmp(r->f[0], HPCPY_MAGIC) &&
		       !strcmp(r->f[1], HPCPY_VERSION) ? 0
			: textrec_bad(r, "not a Python code file (no "
				      "'hpcpy " HPCPY_VERSION "')");
	if (!strcmp(r->f[0], HPCPY_PYTHON)) {
		if (p->have_python)
			return textrec_bad(r, "python given twice");
		if (r->nf != 3)
			return textrec_bad(r, "python wants MAJOR MINOR");
		if (textrec_long(r, 1, 0, 255, &major) ||
		    textrec_long(r, 2, 0, 255, &minor))
			return -1;
		p->p->major = (int)major;
		p->p->minor = (int)minor;
		p->have_python = 1;
		return 0;
	}
	if (!strcmp(r->f[0], HPCPY_CODE))
		return rec_code(p);
	return 0;	/* a record of a later version */
}

void hpcpy_free(struct hpcpy *p)
{
	size_t i;

	if (!p)
		return;
	for (i = 0; i < p->ncodes; i++)
		code_release(&p->codes[i]);
	free(p->codes);
	free(p);
}

struct hpcpy *hpcpy_read(const char *path)
{
	struct parser p;
	long n;

	memset(&p, 0, sizeof(p));
	p.p = xcalloc(1, sizeof(*p.p));
	p.ids = hmap_new();
	n = textrec_read(path, HPCPY_MAX_BYTES, HPCPY_MAX_LINE,
			 "a Python code file", parse_line, &p);
	hmap_free(p.ids);
	if (n == 0)
		hpc_seterr("'%s': empty Python code file", path);
	else if (n > 0 && !p.have_python)
		hpc_seterr("'%s': no python line", path);
	if (n <= 0 || !p.have_python) {
		hpcpy_free(p.p);
		return NULL;
	}
	return p.p;
}
