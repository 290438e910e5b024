/* u-textrec.c - unit tests for textrec_next (lib/textrec.h, invariant 4):
 * a file read a line at a time in a bounded buffer. */
#include <stdio.h>
#include <string.h>

#include "error.h"
#include "textrec.h"
#include "unit.h"

/* Reads text with a buffer of cap bytes until the end or an error;
 * returns the last result, *lines the lines read. */
static int read_all(const char *text, size_t len, size_t cap, int *lines,
		    struct textrec *r)
{
	FILE *f = fmemopen((void *)text, len, "r");
	char buf[64];
	int got;

	memset(r, 0, sizeof(*r));
	r->path = "t.tsv";
	*lines = 0;
	while ((got = textrec_next(f, buf, cap, '\t', r)) > 0)
		(*lines)++;
	fclose(f);
	return got;
}

static void lines_split_at_tabs(void)
{
	static const char text[] = "# node\tthread\n1\t0\t2.5\n\t7\n";
	FILE *f = fmemopen((void *)text, strlen(text), "r");
	struct textrec r = { .path = "t.tsv" };
	char buf[64];

	CHECK_INT(textrec_next(f, buf, sizeof(buf), '\t', &r), 1);
	CHECK_INT(r.nf, 2);
	CHECK_STR(r.f[1], "thread");
	CHECK_INT(textrec_next(f, buf, sizeof(buf), '\t', &r), 1);
	CHECK_INT(r.lineno, 2);
	CHECK_INT(r.nf, 3);
	CHECK_STR(r.f[2], "2.5");
	CHECK_INT(textrec_next(f, buf, sizeof(buf), '\t', &r), 1);
	CHECK_INT(r.nf, 2);
	CHECK_STR(r.f[0], "");
	CHECK_INT(textrec_next(f, buf, sizeof(buf), '\t', &r), 0);
	CHECK_INT(r.lineno, 3);
	fclose(f);
}

static void line_bound(void)
{
	struct textrec r;
	int lines;

	/* cap 8: lines of 7 bytes at most */
	CHECK_INT(read_all("1234567\n", 8, 8, &lines, &r), 0);
	CHECK_INT(lines, 1);
	CHECK_INT(read_all("1\n12345678\n", 11, 8, &lines, &r), -1);
	CHECK_INT(lines, 1);
	CHECK_STR(hpc_lasterr(), "'t.tsv': line 2: line too long");
}

static void refusals(void)
{
	struct textrec r;
	int lines;

	CHECK_INT(read_all("1\t2\n3", 5, 64, &lines, &r), -1);
	CHECK_STR(hpc_lasterr(),
		  "'t.tsv': line 2: truncated (no newline at the end)");
	CHECK_INT(read_all("1\n\n", 3, 64, &lines, &r), -1);
	CHECK_STR(hpc_lasterr(), "'t.tsv': line 2: empty line");
	CHECK_INT(read_all("1\n2\0\n", 5, 64, &lines, &r), -1);
	CHECK_STR(hpc_lasterr(), "'t.tsv': line 2: binary data");
	CHECK_INT(read_all("", 0, 64, &lines, &r), 0);
	CHECK_INT(lines, 0);
}

int main(void)
{
	unit_run("lines split at tabs, numbered", lines_split_at_tabs);
	unit_run("lines of at most cap - 1 bytes", line_bound);
	unit_run("no newline, an empty line, a NUL: refused with the line",
		 refusals);
	return unit_done();
}
