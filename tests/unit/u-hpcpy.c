/*
 * u-hpcpy.c - unit tests for the .hpcpy format (lib/hpcpy-write.c,
 * lib/hpcpy-read.c): known codes give exact bytes; read(write(x)) = x,
 * byte for byte, names with spaces, percent signs, non-ASCII and empty
 * ones included; a code defined twice is kept once; bad files are
 * refused with one line naming the file and the line.  The live code
 * file (hpcpy.h, invariants 4 and 5): only committed records are read,
 * a record whose id is not its content's refuses the file.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "error.h"
#include "hpcpy.h"
#include "textrec.h"
#include "unit.h"

static char path[64];

static const unsigned char table1[] = { 0x80, 0x00, 0xd8, 0x07, 0x08 };
static struct hpcpy_code codes[] = {
	{ 0, 9, 74, "fib", 3, "/src/prog.py", 12, table1, sizeof(table1) },
	{ 0, 1, 6, "Kernel.run <locals> 100% ü", 27, "/a b/%x.py", 10,
	  NULL, 0 },
	{ 0, 0, 2, "", 0, "", 0, table1, 1 },
};

struct model {
	int major, minor;
	const struct hpcpy_code *codes;
	size_t n;
};

static void write_model(struct textrec_out *o, const void *x)
{
	const struct model *m = x;
	size_t i;

	hpcpy_write_head(o, m->major, m->minor);
	for (i = 0; i < m->n; i++)
		hpcpy_write_code(o, &m->codes[i]);
}

static void set_ids(void)
{
	size_t i;

	for (i = 0; i < 3; i++)
		codes[i].id = hpcpy_id(&codes[i]);
}

static void known_codes_exact_bytes(void)
{
	struct model m = { 3, 12, codes, 3 };
	char *got, want[1024];

	set_ids();
	got = unit_written(path, write_model, &m);
	snprintf(want, sizeof(want),
		 "hpcpy 01.00\npython 3 12\n"
		 "code 0x%llx 9 74 fib /src/prog.py 8000d80708\n"
		 "code 0x%llx 1 6 Kernel.run%%20<locals>%%20100%%25%%20%%C3%%BC "
		 "/a%%20b/%%25x.py -\n"
		 "code 0x%llx 0 2 %% %% 80\n",
		 (unsigned long long)codes[0].id,
		 (unsigned long long)codes[1].id,
		 (unsigned long long)codes[2].id);
	CHECK_STR(got, want);
	free(got);
}

static void round_trip(void)
{
	struct model m = { 3, 10, codes, 3 };
	struct hpcpy *p;
	size_t i;

	set_ids();
	free(unit_written(path, write_model, &m));
	p = hpcpy_read(path);
	CHECK(p != NULL);
	if (!p)
		return;
	CHECK_INT(p->major, 3);
	CHECK_INT(p->minor, 10);
	CHECK_INT(p->ncodes, 3);
	for (i = 0; i < p->ncodes && i < 3; i++) {
		const struct hpcpy_code *a = &p->codes[i], *b = &codes[i];

		CHECK_INT(a->id, b->id);
		CHECK_INT(a->firstlineno, b->firstlineno);
		CHECK_INT(a->ncode, b->ncode);
		CHECK_INT(a->qualname_len, b->qualname_len);
		CHECK(!memcmp(a->qualname, b->qualname, b->qualname_len));
		CHECK_INT(a->filename_len, b->filename_len);
		CHECK(!memcmp(a->filename, b->filename, b->filename_len));
		CHECK_INT(a->linetable_len, b->linetable_len);
		CHECK(!b->linetable_len ||
		      !memcmp(a->linetable, b->linetable, b->linetable_len));
		CHECK_INT(hpcpy_id(a), b->id);
		CHECK(!a->qualname[a->qualname_len]);
	}
	hpcpy_free(p);
}

/* Every byte value in a name and in a line table survives. */
static void every_byte_round_trip(void)
{
	static char name[256];
	static unsigned char table[256];
	struct hpcpy_code c = { 0, 7, 512, name, 255, name + 1, 254, table, 256 };
	struct model m = { 3, 13, &c, 1 };
	struct hpcpy *p;
	int k;

	for (k = 0; k < 256; k++) {
		name[k] = (char)(k + 1);
		table[k] = (unsigned char)k;
	}
	c.id = hpcpy_id(&c);
	free(unit_written(path, write_model, &m));
	p = hpcpy_read(path);
	CHECK(p && p->ncodes == 1);
	if (p && p->ncodes == 1) {
		CHECK(p->codes[0].qualname_len == 255 &&
		      !memcmp(p->codes[0].qualname, name, 255));
		CHECK(p->codes[0].filename_len == 254 &&
		      !memcmp(p->codes[0].filename, name + 1, 254));
		CHECK(p->codes[0].linetable_len == 256 &&
		      !memcmp(p->codes[0].linetable, table, 256));
	}
	hpcpy_free(p);
}

static void defined_twice_kept_once(void)
{
	const struct hpcpy_code twice[2] = { codes[0], codes[0] };
	struct model m = { 3, 11, twice, 2 };
	struct hpcpy *p;

	set_ids();
	free(unit_written(path, write_model, &m));
	p = hpcpy_read(path);
	CHECK(p && p->ncodes == 1);
	hpcpy_free(p);
}

static void put(const char *text)
{
	FILE *f = fopen(path, "w");

	CHECK(f != NULL);
	if (f) {
		fputs(text, f);
		fclose(f);
	}
}

static void refuses(const char *text, const char *msg)
{
	char want[256];
	struct hpcpy *p;

	put(text);
	p = hpcpy_read(path);
	CHECK(p == NULL);
	hpcpy_free(p);
	snprintf(want, sizeof(want), "'%s': %s", path, msg);
	CHECK_STR(hpc_lasterr(), want);
}

static void bad_files_refused(void)
{
	refuses("", "empty Python code file");
	refuses("hpcsync: 1\n", "line 1: not a Python code file (no 'hpcpy 01.00')");
	refuses("hpcpy 01.00\n", "no python line");
	refuses("hpcpy 01.00\ncode 0x1 1 2 a b -\n",
		"line 2: code before the python line");
	refuses("hpcpy 01.00\npython 3 12\npython 3 12\n",
		"line 3: python given twice");
	refuses("hpcpy 01.00\npython 3\n", "line 2: python wants MAJOR MINOR");
	refuses("hpcpy 01.00\npython 3 12\ncode 0x1 1 2 a b\n",
		"line 3: code wants ID FIRSTLINE NCODE QUALNAME FILENAME "
		"LINETABLE");
	refuses("hpcpy 01.00\npython 3 12\ncode 0x0 1 2 a b -\n",
		"line 3: code id 0 or of more than 38 bits");
	refuses("hpcpy 01.00\npython 3 12\ncode 0x4000000000 1 2 a b -\n",
		"line 3: code id 0 or of more than 38 bits");
	refuses("hpcpy 01.00\npython 3 12\ncode 0x1 1 2 a%4 b -\n",
		"line 3: expected %XX in a name");
	refuses("hpcpy 01.00\npython 3 12\ncode 0x1 1 2 a b 0\n",
		"line 3: odd number of hex digits in a line table");
	refuses("hpcpy 01.00\npython 3 12\ncode 0x1 1 2 a b zz\n",
		"line 3: expected hex digits in a line table");
	refuses("hpcpy 01.00\npython 3 12\ncode 0x1 1 16777215 a b -\n",
		"line 3: bytecode longer than 16 MB");
}

/* A live code file at path: codes[0..n) as records in chunk 0, the
 * first ncommit committed; the byte at flip (when not 0) of the chunk
 * inverted; the file cut at cut bytes (when not 0). */
static void put_live(size_t n, size_t ncommit, size_t flip, size_t cut)
{
	static unsigned char buf[HPCPY_LIVE_HEADER + 4096];
	struct hpcpy_live_header h;
	size_t i, off = 0;
	FILE *f;

	memset(buf, 0, sizeof(buf));
	memset(&h, 0, sizeof(h));
	memcpy(h.magic, HPCPY_LIVE_MAGIC, sizeof(h.magic));
	h.byte_order = HPCPY_LIVE_BYTE_ORDER;
	h.major = 3;
	h.minor = 12;
	h.nchunks = 1;
	for (i = 0; i < n; i++) {
		const struct hpcpy_code *c = &codes[i];
		struct hpcpy_live_rec r = {
			c->id, 0, c->firstlineno, c->ncode,
			(uint32_t)c->qualname_len, (uint32_t)c->filename_len,
			(uint32_t)c->linetable_len,
		};
		unsigned char *q = buf + HPCPY_LIVE_HEADER + off;

		r.bytes = (uint32_t)((sizeof(r) + r.qualname_len +
				      r.filename_len + r.linetable_len + 7) & ~7u);
		memcpy(q, &r, sizeof(r));
		memcpy(q + sizeof(r), c->qualname, c->qualname_len);
		memcpy(q + sizeof(r) + c->qualname_len, c->filename,
		       c->filename_len);
		if (c->linetable_len)
			memcpy(q + sizeof(r) + c->qualname_len + c->filename_len,
			       c->linetable, c->linetable_len);
		off += r.bytes;
		if (i + 1 == ncommit)
			h.used[0] = off;
	}
	if (flip)
		buf[HPCPY_LIVE_HEADER + flip] ^= 0xff;
	memcpy(buf, &h, sizeof(h));
	f = fopen(path, "w");
	CHECK(f != NULL);
	if (f) {
		fwrite(buf, 1, cut ? cut : HPCPY_LIVE_HEADER + off, f);
		fclose(f);
	}
}

static void live_committed_only(void)
{
	struct hpcpy *p;
	size_t i;

	set_ids();
	put_live(2, 2, 0, 0);	/* codes[2] has an empty name: never copied */
	p = hpcpy_live_read(path);
	CHECK(p && p->major == 3 && p->minor == 12 && p->ncodes == 2);
	for (i = 0; p && i < p->ncodes; i++) {
		CHECK_INT(p->codes[i].id, codes[i].id);
		CHECK(!memcmp(p->codes[i].qualname, codes[i].qualname,
			      codes[i].qualname_len + 1));
		CHECK(!memcmp(p->codes[i].filename, codes[i].filename,
			      codes[i].filename_len + 1));
		CHECK_INT(p->codes[i].linetable_len, codes[i].linetable_len);
	}
	hpcpy_free(p);
	put_live(2, 1, 0, 0);	/* the second written, not committed */
	p = hpcpy_live_read(path);
	CHECK(p && p->ncodes == 1 && p->codes[0].id == codes[0].id);
	hpcpy_free(p);
}

static void live_refuses(const char *msg)
{
	char want[256];
	struct hpcpy *p = hpcpy_live_read(path);

	CHECK(p == NULL);
	hpcpy_free(p);
	snprintf(want, sizeof(want), "'%s': %s", path, msg);
	CHECK_STR(hpc_lasterr(), want);
}

static void live_bad_files_refused(void)
{
	set_ids();
	put_live(2, 2, 32 + 1, 0);	/* a byte of fib's name */
	live_refuses("chunk 0: bad record at byte 0");
	put_live(2, 2, 0, HPCPY_LIVE_HEADER + 40);
	live_refuses("chunk 0 cut short");
	put_live(2, 2, 0, 100);
	live_refuses("shorter than a live code file's header");
	put("hpcpy 01.00\npython 3 12\n");
	live_refuses("shorter than a live code file's header");
}

int main(void)
{
	snprintf(path, sizeof(path), "u-hpcpy-%d.hpcpy", (int)getpid());
	unit_run("known codes give exact bytes", known_codes_exact_bytes);
	unit_run("read(write(x)) = x", round_trip);
	unit_run("every byte of names and tables survives", every_byte_round_trip);
	unit_run("a code defined twice is kept once", defined_twice_kept_once);
	unit_run("bad files are refused naming the file and line",
		 bad_files_refused);
	unit_run("a live code file gives its committed records", live_committed_only);
	unit_run("a bad live code file is refused naming it", live_bad_files_refused);
	unlink(path);
	return unit_done();
}
