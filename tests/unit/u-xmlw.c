/* u-xmlw.c - unit tests for lib/xmlw.c. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "xmlw.h"
#include "unit.h"

/* Runs fn with a writer on a memory stream; returns the text (caller frees). */
static char *render(void (*fn)(struct xmlw *))
{
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);
	struct xmlw *w = xmlw_new(f);

	fn(w);
	CHECK_INT(xmlw_finish(w), 0);
	fclose(f);
	return text;
}

static void doc_nested(struct xmlw *w)
{
	xmlw_start(w, "A");
	xmlw_attr(w, "n", "x");
	xmlw_start(w, "B");
	xmlw_attrf(w, "i", "%d", 7);
	xmlw_attr_u64(w, "u", 0);
	xmlw_attr_u64(w, "w", UINT64_MAX);
	xmlw_attr_hex(w, "v", 0);
	xmlw_attr_hex(w, "x", 0x7f3a0c);
	xmlw_end(w);
	xmlw_start(w, "C");
	xmlw_end(w);
	xmlw_end(w);
}

static void nesting_and_empty_elements(void)
{
	char *s = render(doc_nested);

	CHECK_STR(s, "<A n=\"x\">\n <B i=\"7\" u=\"0\" "
		  "w=\"18446744073709551615\" v=\"0x0\" x=\"0x7f3a0c\"/>\n"
		  " <C/>\n</A>\n");
	free(s);
}

#define DEEP 3000

static void doc_deep(struct xmlw *w)
{
	int i;

	for (i = 0; i < DEEP; i++)
		xmlw_start(w, "PF");
}

/*
 * A 3,000-deep path: every line within XMLW_MAX_INDENT + 6 bytes, so the
 * document is linear in the depth.  Its size: 3000 "<PF", 2999 ">" and one
 * "/>", 2999 "</PF>", 5999 newlines, and 2 * (1 + ... + 32) + 32 * (2967 +
 * 2966) spaces: 223,907 bytes (indented by the full depth: 9,000,000 more).
 */
static void indentation_is_capped(void)
{
	char *s = render(doc_deep), *line, *end;
	size_t n = 0, spaces;

	CHECK_INT(XMLW_MAX_INDENT, 32);
	CHECK_INT(strlen(s), 223907);
	for (line = s; *line; line = end + 1, n++) {
		end = strchr(line, '\n');
		spaces = strspn(line, " ");
		CHECK(spaces <= XMLW_MAX_INDENT);
		CHECK((size_t)(end - line) <= XMLW_MAX_INDENT + 6);
	}
	CHECK_INT(n, 2 * DEEP - 1);
	CHECK(!strncmp(s + strlen(s) - 6, "</PF>\n", 6));
	free(s);
}

static void doc_escapes(struct xmlw *w)
{
	xmlw_start(w, "P");
	xmlw_attr(w, "n", "operator<<(a&b, \"c\", 'd')\n\x01");
	xmlw_text(w, "1 < 2 & \"q\"");
	xmlw_end(w);
}

static void escaping(void)
{
	char *s = render(doc_escapes);

	CHECK_STR(s, "<P n=\"operator&lt;&lt;(a&amp;b, &quot;c&quot;, "
		     "&apos;d&apos;)&#10;?\">1 &lt; 2 &amp; \"q\"</P>\n");
	free(s);
}

static void doc_utf8(struct xmlw *w)
{
	/* valid: é, €, U+1F600; invalid: Latin-1 é, overlong '/', a surrogate,
	 * U+FFFE, above U+10FFFF, a sequence cut short by the end */
	xmlw_start(w, "P");
	xmlw_attr(w, "n", "\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80|ne\xe9t|"
		  "\xc0\xaf|\xed\xa0\x80|\xef\xbf\xbe|\xf4\x90\x80\x80|\xe2\x82");
	xmlw_end(w);
}

static void utf8_passes_invalid_bytes_do_not(void)
{
	char *s = render(doc_utf8);

	CHECK_STR(s, "<P n=\"\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80|ne?t|??|???|???|????|??\"/>\n");
	free(s);
}

static void doc_unclosed(struct xmlw *w)
{
	xmlw_declaration(w);
	xmlw_start(w, "R");
	xmlw_start(w, "S");
}

static void finish_closes_open_elements(void)
{
	char *s = render(doc_unclosed);

	CHECK_STR(s, "<?xml version=\"1.0\"?>\n<R>\n <S/>\n</R>\n");
	free(s);
}

/* A document whose middle children are written by fragment writers. */
static void doc_fragments(struct xmlw *w)
{
	char *frag[2] = { NULL, NULL };
	size_t len[2] = { 0, 0 };
	int k;

	for (k = 0; k < 2; k++) {
		FILE *f = open_memstream(&frag[k], &len[k]);
		struct xmlw *x = xmlw_new_at(f, 2);

		xmlw_start(x, "C");
		xmlw_attrf(x, "i", "%d", k);
		if (k) {
			xmlw_start(x, "D");
			xmlw_start(x, "E");	/* left open: finish closes */
		}
		CHECK_INT(xmlw_finish(x), 0);
		fclose(f);
	}
	xmlw_start(w, "A");
	xmlw_start(w, "B");		/* its tag still open */
	xmlw_fragment(w, frag[0], len[0]);
	xmlw_fragment(w, frag[1], len[1]);
	xmlw_start(w, "C");
	xmlw_end(w);
	xmlw_end(w);
	xmlw_end(w);
	free(frag[0]);
	free(frag[1]);
}

static void doc_whole(struct xmlw *w)
{
	int k;

	xmlw_start(w, "A");
	xmlw_start(w, "B");
	for (k = 0; k < 2; k++) {
		xmlw_start(w, "C");
		xmlw_attrf(w, "i", "%d", k);
		if (k) {
			xmlw_start(w, "D");
			xmlw_start(w, "E");
			xmlw_end(w);
			xmlw_end(w);
		}
		xmlw_end(w);
	}
	xmlw_start(w, "C");
	xmlw_end(w);
	xmlw_end(w);
	xmlw_end(w);
}

static void fragments_are_what_one_writer_writes(void)
{
	char *a = render(doc_fragments), *b = render(doc_whole);

	CHECK_STR(a, b);
	free(a);
	free(b);
}

static void write_errors_are_reported(void)
{
	FILE *f = fopen("/dev/full", "w");
	struct xmlw *w;
	int i;

	if (!f)
		return;
	w = xmlw_new(f);
	for (i = 0; i < 10000; i++) {
		xmlw_start(w, "X");
		xmlw_end(w);
	}
	CHECK_INT(xmlw_finish(w), -1);
	fclose(f);
}

int main(void)
{
	unit_run("nested and empty elements", nesting_and_empty_elements);
	unit_run("indentation stops at XMLW_MAX_INDENT", indentation_is_capped);
	unit_run("attribute and text escaping", escaping);
	unit_run("UTF-8 passes, invalid bytes become '?'", utf8_passes_invalid_bytes_do_not);
	unit_run("finish closes what is open", finish_closes_open_elements);
	unit_run("a full disk is reported by finish", write_errors_are_reported);
	unit_run("fragments are what one writer writes",
		 fragments_are_what_one_writer_writes);
	return unit_done();
}
