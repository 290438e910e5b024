/*
 * u-pyline.c - unit tests for the line-table decoder (lib/pyline.c):
 * each instruction's line as CPython's own co_lines() gives it, for the
 * code objects of tests/progs/py-sample.py dumped by
 * tests/progs/py-codes.py under CPython 3.10, 3.11, 3.12 and 3.13
 * (tests/data/pyline/3.NN.txt, at $HPC_TESTDATA, default tests/data; or
 * the dumps named as arguments); and damaged tables that end cleanly.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pyline.h"
#include "unit.h"

static const char *const *files;
static int nfiles;

static size_t unhex(const char *s, unsigned char *b)
{
	size_t n = 0;
	unsigned v;

	if (!strcmp(s, "-"))
		return 0;
	for (; s[0] && s[1] && sscanf(s, "%2x", &v) == 1; s += 2)
		b[n++] = (unsigned char)v;
	return n;
}

/* The line co_lines() gives offset in the "lines" record l, -1 none. */
static long truth_at(const char *l, unsigned long offset)
{
	unsigned long s, e;
	long line;
	int k;

	for (l += strlen("lines"); sscanf(l, " %lu:%lu:%ld%n", &s, &e, &line,
					   &k) == 3; l += k)
		if (s <= offset && offset < e)
			return line;
	return -1;
}

/* Every instruction of every code of dump path; the count checked. */
static size_t check_dump(const char *path)
{
	static char code[1 << 20], lines[1 << 20];
	static unsigned char table[1 << 19];
	FILE *f = fopen(path, "r");
	size_t ncodes = 0;

	CHECK(f != NULL);
	while (f && fgets(code, sizeof(code), f) && fgets(lines, sizeof(lines), f)) {
		int major, minor;
		unsigned long first, ncode, off;
		char hex[sizeof(code)];
		struct pyline_range *r;
		long n;

		if (sscanf(code, "code %d %d %lu %lu %*s %*s %s", &major,
			   &minor, &first, &ncode, hex) != 5 ||
		    strncmp(lines, "lines", 5)) {
			unit_fail(__FILE__, __LINE__, "'%s': not a dump", path);
			break;
		}
		n = pyline_decode(major, minor, table, unhex(hex, table),
				  (uint32_t)first, (uint32_t)ncode, &r);
		CHECK(n > 0);
		for (off = 0; off < ncode; off += 2) {
			long want = truth_at(lines, off);
			long got = pyline_at(r, (size_t)n, (uint32_t)off);

			if (got != want)
				unit_fail(__FILE__, __LINE__, "'%s': %s offset %lu: "
					  "line %ld, CPython says %ld", path,
					  strtok(code, "\n"), off, got, want);
		}
		free(r);
		ncodes++;
	}
	if (f)
		fclose(f);
	return ncodes;
}

static void cpython_answers(void)
{
	char path[4096];
	const char *dir = getenv("HPC_TESTDATA");
	static const char *const minors[] = { "10", "11", "12", "13" };
	int i;

	if (nfiles) {
		for (i = 0; i < nfiles; i++)
			CHECK(check_dump(files[i]) > 10);
		return;
	}
	for (i = 0; i < 4; i++) {
		snprintf(path, sizeof(path), "%s/pyline/3.%s.txt",
			 dir ? dir : "tests/data", minors[i]);
		CHECK(check_dump(path) > 10);
	}
}

/* Ranges are in order, not empty, within ncode (pyline.h, invariant 1). */
static void check_ranges(const struct pyline_range *r, long n, uint32_t ncode)
{
	long i;

	for (i = 0; i < n; i++) {
		CHECK(r[i].start < r[i].end);
		CHECK(!ncode || r[i].end <= ncode);
		CHECK(i == 0 || r[i - 1].end <= r[i].start);
	}
}

static void hand_made_tables(void)
{
	/* 3.10: 6 bytes line +0, an empty range, 4 bytes no line, 2 at +2 */
	static const unsigned char t310[] = { 6, 0, 0, 5, 4, 0x80, 2, 2 };
	/* 3.11: one-line form +1 (code 11) of 2 units with two column bytes;
	 * no-location (15) of 1 unit; long form (14), line -1 as the
	 * svarint 3 (11 - 1), end line, columns. */
	static const unsigned char t311[] = {
		0x80 | 11 << 3 | 1, 4, 9, 0x80 | 15 << 3, 0x80 | 14 << 3,
		3, 0, 1, 2,
	};
	struct pyline_range *r;
	long n;

	n = pyline_decode(3, 10, t310, sizeof(t310), 10, 0, &r);
	CHECK_INT(n, 3);
	check_ranges(r, n, 0);
	CHECK_INT(pyline_at(r, (size_t)n, 0), 10);
	CHECK_INT(pyline_at(r, (size_t)n, 6), -1);
	CHECK_INT(pyline_at(r, (size_t)n, 10), 17);
	CHECK_INT(pyline_at(r, (size_t)n, 12), -1);
	free(r);
	n = pyline_decode(3, 12, t311, sizeof(t311), 10, 0, &r);
	CHECK_INT(n, 3);
	check_ranges(r, n, 0);
	CHECK_INT(pyline_at(r, (size_t)n, 2), 11);
	CHECK_INT(pyline_at(r, (size_t)n, 4), -1);
	CHECK_INT(pyline_at(r, (size_t)n, 6), 10);
	free(r);
	n = pyline_decode(3, 12, t311, sizeof(t311), 10, 4, &r);
	CHECK_INT(n, 1);	/* cut at the bytecode's end */
	CHECK_INT(r[0].end, 4);
	free(r);
	CHECK_INT(pyline_decode(3, 9, t310, sizeof(t310), 1, 0, &r), -1);
	CHECK_INT(pyline_decode(2, 7, t310, sizeof(t310), 1, 0, &r), -1);
}

/* Random tables: no byte read past the end (ASan builds), ranges as
 * pyline.h, invariant 1 says, and pyline_line, which allocates nothing,
 * answering as pyline_at over them at every offset. */
static void damaged_tables(void)
{
	unsigned char t[64];
	struct pyline_range *r;
	uint32_t first, ncode, off;
	int round, minor;
	size_t k, len;
	long n;

	for (round = 0; round < 2000; round++) {
		len = (size_t)(unit_random() % sizeof(t));
		for (k = 0; k < len; k++)
			t[k] = (unsigned char)unit_random();
		minor = 10 + round % 4;
		first = (uint32_t)unit_random();
		ncode = round % 2 ? 40 : 0;
		n = pyline_decode(3, minor, t, len, first, ncode, &r);
		CHECK(n >= 0);
		check_ranges(r, n, ncode);
		for (off = 0; off < 100; off++)
			CHECK_INT(pyline_line(3, minor, t, len, first, ncode, off),
				  pyline_at(r, (size_t)n, off));
		free(r);
	}
	CHECK_INT(pyline_line(3, 9, t, sizeof(t), 1, 0, 0), -1);
}

/* A 3.11 table whose long entries step the line by INT64_MAX twice, then
 * a short one by 1 (found by fuzz-hpcpy): no overflow (UBSan builds),
 * every line none. */
static void huge_steps(void)
{
#define HUGE_STEP 0xf0, 0x7e, 0x7f, 0x7f, 0x7f, 0x7f, 0x7f, 0x7f, 0x7f, \
	0x7f, 0x7f, 0x3f
	static const unsigned char t[] = { HUGE_STEP, HUGE_STEP, 0xd8 };
#undef HUGE_STEP
	struct pyline_range *r;
	long n = pyline_decode(3, 11, t, sizeof(t), 1, 0, &r);

	CHECK_INT(n, 3);
	CHECK_INT(r[0].line, -1);
	CHECK_INT(r[1].line, -1);
	CHECK_INT(r[2].line, -1);
	CHECK_INT(pyline_line(3, 11, t, sizeof(t), 1, 0, 3), -1);
	free(r);
}

int main(int argc, char **argv)
{
	files = (const char *const *)argv + 1;
	nfiles = argc - 1;
	unit_run("each instruction's line is CPython's co_lines() answer",
		 cpython_answers);
	unit_run("hand-made tables of both formats", hand_made_tables);
	unit_run("damaged tables end cleanly, one line found as in the ranges",
		 damaged_tables);
	unit_run("a line stepped past int64_t's range is none", huge_steps);
	return unit_done();
}
