/*
 * python-layout.c - the memory layouts of CPython 3.10 to 3.13 on x86-64
 * (python-layout.h).
 *
 * The tables of 3.10, 3.11 and 3.12 are the offsets of release builds
 * (no Py_DEBUG, no Py_TRACE_REFS: they change PyObject's header), as the
 * DWARF of CPython 3.10.13, 3.11.7 and 3.12.1 gives them; CPython keeps
 * them within a minor version.  tests/t1160-hpcrun-python-layout.sh
 * compares each with the DWARF of the builds it finds.
 *
 * 3.13 on: _Py_DebugOffsets, the first member of _PyRuntime, holds the
 * offsets itself.  Its own layout changes between minor versions (3.14
 * adds fields in the middle of its sections), so debug_layouts[] says
 * where each field we read sits in it, per minor version; a version
 * missing there is not known.  The str object's layout it does not
 * give whole: the compact non-ASCII object is the ASCII one followed by
 * utf8_length and utf8, as in 3.12; nor co_framesize and the thread's
 * datastack_top, whose offsets debug_313 takes from 3.13.0's DWARF.
 */
#include <errno.h>
#include <string.h>

#include "python-layout.h"

/* PyASCIIObject's state: interned:2, kind:3, compact:1, ascii:1 (3.10 to
 * 3.13). */
#define UNICODE_STATE_BITS .kind_shift = 2, .compact_bit = 1u << 5, \
	.ascii_bit = 1u << 6

static const struct py_layout layout_310 = {
	.major = 3, .minor = 10,
	.runtime = { .interpreters_head = 32 },
	.interp = { .threads_head = 8, .next = 0 },	/* tstate_head */
	.tstate = { .next = 8, .thread_id = 176, .native_thread_id = -1,
		    .frame = 24, .frame_indirect = -1, .cframe_previous = -1,
		    .datastack_chunk = -1,
		    .datastack_top = -1 },
	.frame = { .previous = 24, .code = 32, .instr = 96, .entry = -1,
		   .instr_kind = PY_INSTR_LASTI, .entry_kind = PY_ENTRY_NONE },
	.code = { .filename = 104, .name = 112, .qualname = -1,
		  .firstlineno = 40, .linetable = 120, .code = 48,
		  .code_adaptive = -1, .size = -1, .framesize = -1 },
	.bytes = { .ob_size = 16, .ob_sval = 32 },
	.unicode = { .length = 16, .state = 32, UNICODE_STATE_BITS,
		     .ascii_data = 48, .compact_data = 72,
		     .utf8_length = 48, .utf8 = 56 },
};

static const struct py_layout layout_311 = {
	.major = 3, .minor = 11,
	.runtime = { .interpreters_head = 40 },
	.interp = { .threads_head = 16, .next = 0 },
	.tstate = { .next = 8, .thread_id = 152, .native_thread_id = 160,
		    .frame = 56, .frame_indirect = 8,	/* cframe */
		    .cframe_previous = 16,
		    .datastack_chunk = 296, .datastack_top = 304 },
	.frame = { .previous = 48, .code = 32, .instr = 56, .entry = 68,
		   .instr_kind = PY_INSTR_PREV,
		   .entry_kind = PY_ENTRY_IS_ENTRY },
	.code = { .filename = 112, .name = 120, .qualname = 128,
		  .firstlineno = 72, .linetable = 136, .code = -1,
		  .code_adaptive = 184, .size = 16, .framesize = -1 },
	.bytes = { .ob_size = 16, .ob_sval = 32 },
	.unicode = { .length = 16, .state = 32, UNICODE_STATE_BITS,
		     .ascii_data = 48, .compact_data = 72,
		     .utf8_length = 48, .utf8 = 56 },
};

static const struct py_layout layout_312 = {
	.major = 3, .minor = 12,
	.runtime = { .interpreters_head = 40 },
	.interp = { .threads_head = 72, .next = 0 },
	.tstate = { .next = 8, .thread_id = 136, .native_thread_id = 144,
		    .frame = 56, .frame_indirect = 0,	/* cframe */
		    .cframe_previous = -1, .datastack_chunk = 232,
		    .datastack_top = 240 },
	.frame = { .previous = 8, .code = 0, .instr = 56, .entry = 70,
		   .instr_kind = PY_INSTR_PREV, .entry_kind = PY_ENTRY_OWNER },
	.code = { .filename = 112, .name = 120, .qualname = 128,
		  .firstlineno = 68, .linetable = 136, .code = -1,
		  .code_adaptive = 192, .size = 16, .framesize = 76 },
	.bytes = { .ob_size = 16, .ob_sval = 32 },
	.unicode = { .length = 16, .state = 32, UNICODE_STATE_BITS,
		     .ascii_data = 40, .compact_data = 56,
		     .utf8_length = 40, .utf8 = 48 },
};

const struct py_layout *py_layout_table(int major, int minor)
{
	static const struct py_layout *const tables[] = {
		&layout_310, &layout_311, &layout_312,
	};
	size_t i;

	for (i = 0; i < sizeof(tables) / sizeof(tables[0]); i++)
		if (tables[i]->major == major && tables[i]->minor == minor)
			return tables[i];
	return NULL;
}

/* ---- _Py_DebugOffsets ---- */

/* Where, in one minor version's _Py_DebugOffsets, each field we read is
 * (all uint64_t); a section's size field is the size of its object. */
struct debug_fields {
	int major, minor;
	size_t len;			/* sizeof(_Py_DebugOffsets) */
	size_t version, free_threaded;
	size_t runtime_size, interpreters_head;
	size_t interp_size, interp_next, threads_head;
	size_t tstate_size, tstate_next, current_frame, thread_id,
		native_thread_id, datastack_chunk;
	size_t frame_size, previous, executable, instr_ptr, owner;
	size_t code_size, filename, name, qualname, linetable, firstlineno,
		code_adaptive;
	/* Not in 3.13's _Py_DebugOffsets: the offsets its DWARF gives
	 * (t1160). */
	int co_framesize, datastack_top;
	size_t var_ob_size;		/* tuple_object.ob_size: a PyVarObject's */
	size_t bytes_size, bytes_ob_size, ob_sval;
	size_t unicode_size, unicode_state, unicode_length, ascii_size;
};

/* CPython 3.13's Include/internal/pycore_runtime.h (v3.13.0). */
static const struct debug_fields debug_313 = {
	.major = 3, .minor = 13, .len = 584,
	.version = 8, .free_threaded = 16,
	.runtime_size = 24, .interpreters_head = 40,
	.interp_size = 48, .interp_next = 64, .threads_head = 72,
	.tstate_size = 152, .tstate_next = 168, .current_frame = 184,
	.thread_id = 192, .native_thread_id = 200, .datastack_chunk = 208,
	.frame_size = 224, .previous = 232, .executable = 240,
	.instr_ptr = 248, .owner = 264,
	.code_size = 272, .filename = 280, .name = 288, .qualname = 296,
	.linetable = 304, .firstlineno = 312, .code_adaptive = 344,
	.co_framesize = 76, .datastack_top = 240,
	.var_ob_size = 416,
	.bytes_size = 512, .bytes_ob_size = 520, .ob_sval = 528,
	.unicode_size = 536, .unicode_state = 544, .unicode_length = 552,
	.ascii_size = 560,
};

static const struct debug_fields *const debug_layouts[] = { &debug_313 };

#define DEBUG_COOKIE "xdebugpy"

static uint64_t u64_at(const unsigned char *p, size_t off)
{
	uint64_t v;

	memcpy(&v, p + off, sizeof(v));
	return v;
}

/* Field off of the debug offsets as an offset into an object of size
 * bytes holding width bytes there: 0, or -1 when it does not fit. */
static int field(const unsigned char *d, size_t off, uint64_t size,
		 unsigned width, int *out)
{
	uint64_t v = u64_at(d, off);

	if (v > size || size - v < width || v > 0xffffff)
		return -1;
	*out = (int)v;
	return 0;
}

int py_layout_from_debug(const unsigned char *d, size_t len,
			 struct py_layout *l, uint32_t *hexversion)
{
	const struct debug_fields *f = NULL;
	uint64_t v, rt, in, ts, fr, co, by, un;
	int bad = 0, ascii;
	size_t i;

	if (len < 16 || memcmp(d, DEBUG_COOKIE, 8))
		return -EINVAL;
	v = u64_at(d, 8);
	*hexversion = (uint32_t)v;
	for (i = 0; i < sizeof(debug_layouts) / sizeof(debug_layouts[0]); i++)
		if ((uint64_t)debug_layouts[i]->major == (v >> 24 & 0xff) &&
		    (uint64_t)debug_layouts[i]->minor == (v >> 16 & 0xff))
			f = debug_layouts[i];
	if (!f || v >> 32)
		return -ENOTSUP;
	if (len < f->len)
		return -EINVAL;
	if (u64_at(d, f->free_threaded))
		return -ENOTSUP;
	memset(l, 0, sizeof(*l));
	l->major = f->major;
	l->minor = f->minor;
	rt = u64_at(d, f->runtime_size);
	in = u64_at(d, f->interp_size);
	ts = u64_at(d, f->tstate_size);
	fr = u64_at(d, f->frame_size);
	co = u64_at(d, f->code_size);
	by = u64_at(d, f->bytes_size);
	un = u64_at(d, f->unicode_size);
	bad |= field(d, f->interpreters_head, rt, 8, &l->runtime.interpreters_head);
	bad |= field(d, f->threads_head, in, 8, &l->interp.threads_head);
	bad |= field(d, f->interp_next, in, 8, &l->interp.next);
	bad |= field(d, f->tstate_next, ts, 8, &l->tstate.next);
	bad |= field(d, f->thread_id, ts, 8, &l->tstate.thread_id);
	bad |= field(d, f->native_thread_id, ts, 8, &l->tstate.native_thread_id);
	bad |= field(d, f->current_frame, ts, 8, &l->tstate.frame);
	l->tstate.frame_indirect = -1;
	l->tstate.cframe_previous = -1;
	bad |= field(d, f->datastack_chunk, ts, 8, &l->tstate.datastack_chunk);
	l->tstate.datastack_top = f->datastack_top;
	bad |= field(d, f->previous, fr, 8, &l->frame.previous);
	bad |= field(d, f->executable, fr, 8, &l->frame.code);
	bad |= field(d, f->instr_ptr, fr, 8, &l->frame.instr);
	bad |= field(d, f->owner, fr, 1, &l->frame.entry);
	l->frame.instr_kind = PY_INSTR_NEXT;
	l->frame.entry_kind = PY_ENTRY_OWNER;
	bad |= field(d, f->filename, co, 8, &l->code.filename);
	bad |= field(d, f->name, co, 8, &l->code.name);
	bad |= field(d, f->qualname, co, 8, &l->code.qualname);
	bad |= field(d, f->firstlineno, co, 4, &l->code.firstlineno);
	bad |= field(d, f->linetable, co, 8, &l->code.linetable);
	l->code.code = -1;
	bad |= field(d, f->code_adaptive, co, 1, &l->code.code_adaptive);
	bad |= field(d, f->var_ob_size, co, 8, &l->code.size);
	l->code.framesize = f->co_framesize;
	bad |= field(d, f->bytes_ob_size, by, 8, &l->bytes.ob_size);
	bad |= field(d, f->ob_sval, by, 1, &l->bytes.ob_sval);
	bad |= field(d, f->unicode_length, un, 8, &l->unicode.length);
	bad |= field(d, f->unicode_state, un, 4, &l->unicode.state);
	bad |= field(d, f->ascii_size, un, 16, &ascii);
	if (bad)
		return -EINVAL;
	l->unicode.kind_shift = 2;
	l->unicode.compact_bit = 1u << 5;
	l->unicode.ascii_bit = 1u << 6;
	l->unicode.ascii_data = ascii;
	l->unicode.utf8_length = ascii;
	l->unicode.utf8 = ascii + 8;
	l->unicode.compact_data = ascii + 16;
	return py_layout_check(l);
}

/* ---- the check ---- */

int py_layout_check(const struct py_layout *l)
{
	const int need[] = {
		l->runtime.interpreters_head, l->interp.threads_head,
		l->interp.next, l->tstate.next, l->tstate.thread_id,
		l->tstate.frame, l->frame.previous, l->frame.code,
		l->frame.instr, l->code.filename, l->code.name,
		l->code.firstlineno, l->code.linetable, l->bytes.ob_size,
		l->bytes.ob_sval, l->unicode.length, l->unicode.state,
		l->unicode.ascii_data, l->unicode.compact_data,
		l->unicode.utf8_length, l->unicode.utf8,
	};
	size_t i;

	if (l->major != 3 || l->minor < 10)
		return -EINVAL;
	for (i = 0; i < sizeof(need) / sizeof(need[0]); i++)
		if (need[i] < 0)
			return -EINVAL;
	/* 3.10 has no native thread id, and no qualified name. */
	if ((l->minor >= 11) != (l->tstate.native_thread_id >= 0) ||
	    (l->minor >= 11) != (l->code.qualname >= 0) ||
	    (l->minor == 11) != (l->tstate.cframe_previous >= 0))
		return -EINVAL;
	/* The bytecode: a bytes object (3.10), or inline with its length
	 * (3.11 on). */
	if (l->minor == 10 ? l->code.code < 0 :
	    l->code.code_adaptive < 0 || l->code.size < 0)
		return -EINVAL;
	/* The frame: 3.10 PyFrameObject, 3.11/3.12 through the _PyCFrame,
	 * 3.13 on _PyInterpreterFrame direct. */
	switch (l->frame.instr_kind) {
	case PY_INSTR_LASTI:
		if (l->minor != 10 || l->frame.entry_kind != PY_ENTRY_NONE ||
		    l->tstate.frame_indirect >= 0)
			return -EINVAL;
		break;
	case PY_INSTR_PREV:
		if ((l->minor != 11 && l->minor != 12) ||
		    l->frame.entry_kind != (l->minor == 11 ? PY_ENTRY_IS_ENTRY :
					    PY_ENTRY_OWNER) ||
		    l->tstate.frame_indirect < 0 || l->frame.entry < 0)
			return -EINVAL;
		break;
	case PY_INSTR_NEXT:
		if (l->minor < 13 || l->frame.entry_kind != PY_ENTRY_OWNER ||
		    l->tstate.frame_indirect >= 0 || l->frame.entry < 0)
			return -EINVAL;
		break;
	default:
		return -EINVAL;
	}
	if (l->unicode.compact_data <= l->unicode.ascii_data ||
	    l->unicode.kind_shift > 29)
		return -EINVAL;
	return 0;
}
