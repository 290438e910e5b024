/* xmlw.c - streaming XML writer; see xmlw.h. */
#include "xmlw.h"

#include <errno.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "strbuf.h"

/* The writer is f's only user while it writes (xmlw.h): no stdio locks. */
#define fputc fputc_unlocked
#define fputs fputs_unlocked
#define fwrite fwrite_unlocked

struct xmlw {
	FILE *f;
	const char **stack;	/* open element names (static strings) */
	size_t depth, alloc;
	size_t base;		/* levels open above a fragment's writer */
	size_t max_indent;	/* at most XMLW_MAX_INDENT */
	int tag_open;		/* start tag not yet closed with '>' */
	int has_text;		/* current element has character data */
};

struct xmlw *xmlw_new(FILE *f)
{
	struct xmlw *w = xcalloc(1, sizeof(*w));

	w->f = f;
	w->max_indent = XMLW_MAX_INDENT;
	return w;
}

void xmlw_set_indent(struct xmlw *w, size_t max)
{
	w->max_indent = max < XMLW_MAX_INDENT ? max : XMLW_MAX_INDENT;
}

/* The replacement for byte c, or NULL when c is written as it is. */
static const char *escape_of(unsigned char c, int in_attr)
{
	switch (c) {
	case '&': return "&amp;";
	case '<': return "&lt;";
	case '>': return "&gt;";
	case '"': return in_attr ? "&quot;" : NULL;
	case '\'': return in_attr ? "&apos;" : NULL;
	case '\n': return in_attr ? "&#10;" : NULL;
	case '\t': return in_attr ? "&#9;" : NULL;
	case '\r': return "&#13;";
	default: return c < 0x20 ? "?" : NULL;
	}
}

/*
 * The length (2 to 4) of the UTF-8 character at p (p[0] >= 0x80) when it
 * is well-formed and XML 1.0 allows it (no overlong forms, surrogates,
 * U+FFFE, U+FFFF or beyond U+10FFFF), else 0.  Reads no further than a NUL.
 */
static size_t utf8_len(const unsigned char *p)
{
	uint32_t c;
	size_t n;

	if (p[0] >= 0xc2 && p[0] <= 0xdf) {
		n = 2;
		c = p[0] & 0x1f;
	} else if ((p[0] & 0xf0) == 0xe0) {
		n = 3;
		c = p[0] & 0x0f;
	} else if (p[0] >= 0xf0 && p[0] <= 0xf4) {
		n = 4;
		c = p[0] & 0x07;
	} else {
		return 0;
	}
	for (size_t i = 1; i < n; i++) {
		if ((p[i] & 0xc0) != 0x80)	/* also stops at the NUL */
			return 0;
		c = c << 6 | (p[i] & 0x3f);
	}
	if ((n == 3 && c < 0x800) || (n == 4 && (c < 0x10000 || c > 0x10ffff)) ||
	    (c >= 0xd800 && c <= 0xdfff) || c == 0xfffe || c == 0xffff)
		return 0;
	return n;
}

const char *xml_escape_char(const unsigned char **p, int in_attr)
{
	size_t n;

	if (**p < 0x80)
		return escape_of(**p, in_attr);
	n = utf8_len(*p);
	if (!n)
		return "?";
	*p += n - 1;
	return NULL;
}

void xml_escape(FILE *f, const char *s, int in_attr)
{
	const unsigned char *p = (const unsigned char *)s, *run = p;

	/* Runs of plain bytes go out in one fwrite (names are mostly plain). */
	for (; *p; p++) {
		const char *rep = xml_escape_char(&p, in_attr);

		if (!rep)
			continue;
		if (p > run)
			fwrite(run, 1, (size_t)(p - run), f);
		fputs(rep, f);
		run = p + 1;
	}
	if (p > run)
		fwrite(run, 1, (size_t)(p - run), f);
}

void xmlw_declaration(struct xmlw *w)
{
	fputs("<?xml version=\"1.0\"?>\n", w->f);
}

void xmlw_doctype(struct xmlw *w, const char *root, const char *dtd_text)
{
	fprintf(w->f, "<!DOCTYPE %s", root);
	if (dtd_text)
		fprintf(w->f, " [\n%s]", dtd_text);
	fputs(">\n", w->f);
}

static void close_tag(struct xmlw *w)
{
	if (w->tag_open) {
		fputc('>', w->f);
		w->tag_open = 0;
	}
}

static void indent(struct xmlw *w)
{
	static const char spaces[XMLW_MAX_INDENT + 2] =
		"\n                                ";
	size_t n = w->depth < w->max_indent ? w->depth : w->max_indent;

	fwrite(spaces, 1, n + 1, w->f);	/* newline and n spaces */
}

struct xmlw *xmlw_new_at(FILE *f, size_t depth)
{
	struct xmlw *w = xmlw_new(f);

	HPC_GROW(w->stack, depth + 1, w->alloc);
	memset(w->stack, 0, depth * sizeof(*w->stack));
	w->depth = w->base = depth;
	return w;
}

void xmlw_fragment(struct xmlw *w, const char *buf, size_t len)
{
	close_tag(w);
	fwrite(buf, 1, len, w->f);
	w->has_text = 0;
}

void xmlw_start(struct xmlw *w, const char *name)
{
	close_tag(w);
	if (w->depth || w->has_text)
		indent(w);
	fputc('<', w->f);
	fputs(name, w->f);
	HPC_GROW(w->stack, w->depth + 1, w->alloc);
	w->stack[w->depth++] = name;
	w->tag_open = 1;
	w->has_text = 0;
}

void xmlw_attr(struct xmlw *w, const char *name, const char *value)
{
	fputc(' ', w->f);
	fputs(name, w->f);
	fputs("=\"", w->f);
	xml_escape(w->f, value ? value : "", 1);
	fputc('"', w->f);
}

void xmlw_attrf(struct xmlw *w, const char *name, const char *fmt, ...)
{
	struct strbuf sb = STRBUF_INIT;
	char buf[64];
	va_list ap;
	int n;

	/* most values are numbers: no allocation for them */
	va_start(ap, fmt);
	n = vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	if (n >= 0 && (size_t)n < sizeof(buf)) {
		xmlw_attr(w, name, buf);
		return;
	}
	va_start(ap, fmt);
	strbuf_vaddf(&sb, fmt, ap);
	va_end(ap);
	xmlw_attr(w, name, sb.buf);
	strbuf_release(&sb);
}

/* Writes ' name="DIGITS"', the digits ending at end. */
static void attr_digits(struct xmlw *w, const char *name, const char *digits,
			const char *end)
{
	fputc(' ', w->f);
	fputs(name, w->f);
	fputs("=\"", w->f);
	fwrite(digits, 1, (size_t)(end - digits), w->f);
	fputc('"', w->f);
}

void xmlw_attr_u64(struct xmlw *w, const char *name, uint64_t v)
{
	char buf[24], *end = buf + sizeof(buf), *p = end;

	do
		*--p = (char)('0' + v % 10);
	while (v /= 10);
	attr_digits(w, name, p, end);
}

void xmlw_attr_hex(struct xmlw *w, const char *name, uint64_t v)
{
	char buf[24], *end = buf + sizeof(buf), *p = end;

	do
		*--p = "0123456789abcdef"[v & 15];
	while (v >>= 4);
	*--p = 'x';
	*--p = '0';
	attr_digits(w, name, p, end);
}

void xmlw_text(struct xmlw *w, const char *text)
{
	close_tag(w);
	xml_escape(w->f, text, 0);
	w->has_text = 1;
}

void xmlw_end(struct xmlw *w)
{
	const char *name;
	int had_children;

	if (w->depth <= w->base)
		return;
	name = w->stack[--w->depth];
	if (w->tag_open) {
		fputs("/>", w->f);
		w->tag_open = 0;
	} else {
		had_children = !w->has_text;
		if (had_children)
			indent(w);
		fputs("</", w->f);
		fputs(name, w->f);
		fputc('>', w->f);
	}
	w->has_text = 0;
	if (!w->depth)
		fputc('\n', w->f);
}

int xmlw_finish(struct xmlw *w)
{
	int ret = 0;

	if (!w)
		return 0;
	while (w->depth > w->base)
		xmlw_end(w);
	if (fflush(w->f) || ferror(w->f))
		ret = hpc_seterr("write error: %s", strerror(errno));
	free(w->stack);
	free(w);
	return ret;
}
