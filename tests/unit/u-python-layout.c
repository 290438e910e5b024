/*
 * u-python-layout.c - unit tests for the CPython layouts
 * (hpcrun/rt/python-layout.c): the tables of 3.10-3.12 pass the check
 * and other versions have none; _Py_DebugOffsets is read into a 3.13
 * layout, and one of an unknown version, of a free-threaded build, with
 * a bad cookie, cut short or with an offset outside its object is
 * refused.
 *
 * Also the helper of tests/t1160-hpcrun-python-layout.sh, which compares
 * the offsets with the DWARF of real CPython builds:
 *     u-python-layout --print 3.12        the table of 3.12
 *     u-python-layout --print-debug FILE  the layout of the
 *                                         _Py_DebugOffsets bytes in FILE
 * print "FIELD OFFSET" lines (-1: absent).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "python-layout.h"
#include "unit.h"

static void print_layout(const struct py_layout *l)
{
	static const char *const instr[] = { "lasti", "prev", "next" };
	static const char *const entry[] = { "none", "is_entry", "owner" };
	const struct { const char *name; int v; } f[] = {
		{ "runtime.interpreters_head", l->runtime.interpreters_head },
		{ "interp.threads_head", l->interp.threads_head },
		{ "interp.next", l->interp.next },
		{ "tstate.next", l->tstate.next },
		{ "tstate.thread_id", l->tstate.thread_id },
		{ "tstate.native_thread_id", l->tstate.native_thread_id },
		{ "tstate.frame", l->tstate.frame },
		{ "tstate.frame_indirect", l->tstate.frame_indirect },
		{ "tstate.cframe_previous", l->tstate.cframe_previous },
		{ "tstate.datastack_chunk", l->tstate.datastack_chunk },
		{ "tstate.datastack_top", l->tstate.datastack_top },
		{ "frame.previous", l->frame.previous },
		{ "frame.code", l->frame.code },
		{ "frame.instr", l->frame.instr },
		{ "frame.entry", l->frame.entry },
		{ "code.filename", l->code.filename },
		{ "code.name", l->code.name },
		{ "code.qualname", l->code.qualname },
		{ "code.firstlineno", l->code.firstlineno },
		{ "code.linetable", l->code.linetable },
		{ "code.code", l->code.code },
		{ "code.code_adaptive", l->code.code_adaptive },
		{ "code.size", l->code.size },
		{ "code.framesize", l->code.framesize },
		{ "bytes.ob_size", l->bytes.ob_size },
		{ "bytes.ob_sval", l->bytes.ob_sval },
		{ "unicode.length", l->unicode.length },
		{ "unicode.state", l->unicode.state },
		{ "unicode.kind_shift", (int)l->unicode.kind_shift },
		{ "unicode.compact_bit", __builtin_ctz(l->unicode.compact_bit) },
		{ "unicode.ascii_bit", __builtin_ctz(l->unicode.ascii_bit) },
		{ "unicode.ascii_data", l->unicode.ascii_data },
		{ "unicode.compact_data", l->unicode.compact_data },
		{ "unicode.utf8_length", l->unicode.utf8_length },
		{ "unicode.utf8", l->unicode.utf8 },
	};
	size_t i;

	printf("version %d.%d\n", l->major, l->minor);
	for (i = 0; i < sizeof(f) / sizeof(f[0]); i++)
		printf("%s %d\n", f[i].name, f[i].v);
	printf("frame.instr_kind %s\nframe.entry_kind %s\n",
	       instr[l->frame.instr_kind], entry[l->frame.entry_kind]);
}

static int print_table(const char *version)
{
	const struct py_layout *l;
	int major, minor;

	if (sscanf(version, "%d.%d", &major, &minor) != 2 ||
	    !(l = py_layout_table(major, minor))) {
		fprintf(stderr, "u-python-layout: '%s': no table\n", version);
		return 1;
	}
	print_layout(l);
	return 0;
}

static int print_debug(const char *path)
{
	unsigned char d[PY_DEBUG_OFFSETS_MAX];
	struct py_layout l;
	uint32_t hex = 0;
	FILE *f = fopen(path, "rb");
	size_t n;
	int err;

	if (!f) {
		perror(path);
		return 1;
	}
	n = fread(d, 1, sizeof(d), f);
	fclose(f);
	err = py_layout_from_debug(d, n, &l, &hex);
	if (err) {
		fprintf(stderr, "u-python-layout: '%s': %s (version 0x%08x)\n",
			path, strerror(-err), (unsigned)hex);
		return 1;
	}
	print_layout(&l);
	return 0;
}

/* ---- the tables ---- */

static void test_tables(void)
{
	int minor;

	for (minor = 10; minor <= 12; minor++) {
		const struct py_layout *l = py_layout_table(3, minor);

		CHECK(l != NULL);
		if (!l)
			continue;
		CHECK_INT(l->major, 3);
		CHECK_INT(l->minor, minor);
		CHECK_INT(py_layout_check(l), 0);
	}
	CHECK(py_layout_table(3, 13) == NULL);	/* _Py_DebugOffsets */
	CHECK(py_layout_table(3, 9) == NULL);
	CHECK(py_layout_table(3, 14) == NULL);
	CHECK(py_layout_table(2, 7) == NULL);
}

/* A table made inconsistent is refused. */
static void test_check_refuses(void)
{
	struct py_layout l = *py_layout_table(3, 12);

	l.tstate.next = -1;
	CHECK_INT(py_layout_check(&l), -EINVAL);
	l = *py_layout_table(3, 12);
	l.frame.entry_kind = PY_ENTRY_IS_ENTRY;
	CHECK_INT(py_layout_check(&l), -EINVAL);
	l = *py_layout_table(3, 11);
	l.tstate.frame_indirect = -1;
	CHECK_INT(py_layout_check(&l), -EINVAL);
	l = *py_layout_table(3, 11);
	l.tstate.cframe_previous = -1;
	CHECK_INT(py_layout_check(&l), -EINVAL);
	l = *py_layout_table(3, 10);
	l.minor = 9;
	CHECK_INT(py_layout_check(&l), -EINVAL);
	l = *py_layout_table(3, 10);
	l.code.code = -1;		/* no bytecode */
	CHECK_INT(py_layout_check(&l), -EINVAL);
}

/* ---- _Py_DebugOffsets ---- */

static unsigned char dbg[PY_DEBUG_OFFSETS_MAX];

static void put(size_t off, uint64_t v)
{
	memcpy(dbg + off, &v, sizeof(v));
}

/* CPython 3.13.0's _Py_DebugOffsets, the fields we read (the values of
 * its x86-64 release build). */
static void make_313(void)
{
	static const struct { size_t off; uint64_t v; } f[] = {
		{ 8, 0x030d00f0 }, { 16, 0 },
		{ 24, 283320 }, { 40, 632 },
		{ 48, 194968 }, { 64, 7264 }, { 72, 7344 },
		{ 152, 304 }, { 168, 8 }, { 184, 72 }, { 192, 152 },
		{ 200, 160 }, { 208, 232 },
		{ 224, 80 }, { 232, 8 }, { 240, 0 }, { 248, 56 }, { 264, 70 },
		{ 272, 208 }, { 280, 112 }, { 288, 120 }, { 296, 128 },
		{ 304, 136 }, { 312, 68 }, { 344, 200 },
		{ 400, 32 }, { 416, 16 },
		{ 512, 40 }, { 520, 16 }, { 528, 32 },
		{ 536, 64 }, { 544, 32 }, { 552, 16 }, { 560, 40 },
	};
	size_t i;

	memset(dbg, 0, sizeof(dbg));
	memcpy(dbg, "xdebugpy", 8);
	for (i = 0; i < sizeof(f) / sizeof(f[0]); i++)
		put(f[i].off, f[i].v);
}

static void test_debug_313(void)
{
	struct py_layout l;
	uint32_t hex = 0;

	make_313();
	CHECK_INT(py_layout_from_debug(dbg, 584, &l, &hex), 0);
	CHECK_INT(hex, 0x030d00f0);
	CHECK_INT(l.major, 3);
	CHECK_INT(l.minor, 13);
	CHECK_INT(l.runtime.interpreters_head, 632);
	CHECK_INT(l.interp.threads_head, 7344);
	CHECK_INT(l.interp.next, 7264);
	CHECK_INT(l.tstate.next, 8);
	CHECK_INT(l.tstate.frame, 72);
	CHECK_INT(l.tstate.frame_indirect, -1);
	CHECK_INT(l.tstate.cframe_previous, -1);
	CHECK_INT(l.tstate.native_thread_id, 160);
	CHECK_INT(l.tstate.datastack_chunk, 232);
	CHECK_INT(l.tstate.datastack_top, 240);
	CHECK_INT(l.frame.code, 0);
	CHECK_INT(l.frame.instr, 56);
	CHECK_INT(l.frame.entry, 70);
	CHECK_INT(l.frame.instr_kind, PY_INSTR_NEXT);
	CHECK_INT(l.frame.entry_kind, PY_ENTRY_OWNER);
	CHECK_INT(l.code.qualname, 128);
	CHECK_INT(l.code.firstlineno, 68);
	CHECK_INT(l.code.code, -1);
	CHECK_INT(l.code.code_adaptive, 200);
	CHECK_INT(l.code.size, 16);
	CHECK_INT(l.code.framesize, 76);
	CHECK_INT(l.bytes.ob_sval, 32);
	CHECK_INT(l.unicode.ascii_data, 40);
	CHECK_INT(l.unicode.compact_data, 56);
	CHECK_INT(l.unicode.utf8, 48);
	CHECK_INT(py_layout_check(&l), 0);
}

static void test_debug_refused(void)
{
	/* One field of 3.13's changed (off 0: none), the bytes given. */
	static const struct {
		const char *why;
		size_t off;
		uint64_t v;
		size_t len;
		int err;
	} c[] = {
		{ "cut short", 0, 0, 300, -EINVAL },
		{ "cut before the version", 0, 0, 8, -EINVAL },
		{ "3.14: its _Py_DebugOffsets differ", 8, 0x030e00f0, 584, -ENOTSUP },
		{ "3.12 had none", 8, 0x030c01f0, 584, -ENOTSUP },
		{ "free-threaded", 16, 1, 584, -ENOTSUP },
		{ "owner beyond the frame", 264, 80, 584, -EINVAL },
		{ "current_frame ends past the tstate", 184, 300, 584, -EINVAL },
	};
	struct py_layout l;
	uint32_t hex;
	size_t i;

	make_313();
	dbg[0] = 'X';			/* not the cookie */
	CHECK_INT(py_layout_from_debug(dbg, 584, &l, &hex), -EINVAL);
	for (i = 0; i < sizeof(c) / sizeof(c[0]); i++) {
		int err;

		make_313();
		if (c[i].off)
			put(c[i].off, c[i].v);
		hex = 0;
		err = py_layout_from_debug(dbg, c[i].len, &l, &hex);
		if (err != c[i].err)
			unit_fail(__FILE__, __LINE__, "%s: %d, expected %d",
				  c[i].why, err, c[i].err);
		if (c[i].off == 8 && hex != c[i].v)
			unit_fail(__FILE__, __LINE__, "%s: version 0x%08x",
				  c[i].why, (unsigned)hex);
	}
}

int main(int argc, char **argv)
{
	if (argc == 3 && !strcmp(argv[1], "--print"))
		return print_table(argv[2]);
	if (argc == 3 && !strcmp(argv[1], "--print-debug"))
		return print_debug(argv[2]);
	unit_run("tables of 3.10-3.12, none for others", test_tables);
	unit_run("the check refuses an inconsistent layout", test_check_refuses);
	unit_run("3.13's _Py_DebugOffsets gives its layout", test_debug_313);
	unit_run("bad _Py_DebugOffsets are refused", test_debug_refused);
	return unit_done();
}
