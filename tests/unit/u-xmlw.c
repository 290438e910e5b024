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
	xmlw_end(w);
	xmlw_start(w, "C");
	xmlw_end(w);
	xmlw_end(w);
}

static void nesting_and_empty_elements(void)
{
	char *s = render(doc_nested);

	CHECK_STR(s, "<A n=\"x\">\n <B i=\"7\"/>\n <C/>\n</A>\n");
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
	return unit_done();
}
