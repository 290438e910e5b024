/*
 * python-layout.h - where CPython keeps, in its memory, what the sample
 * path reads to name the Python frames of a thread: the byte offsets of
 * the fields of the runtime, interpreter and thread states, the frames,
 * code objects, bytes and str objects of one CPython minor version on
 * x86-64 (python-layout.c).  No Python header is included: 3.10, 3.11
 * and 3.12 have tables here, checked against the DWARF of release
 * builds (tests/t1160-hpcrun-python-layout.sh); 3.13 on publishes its own
 * layout in _Py_DebugOffsets at the start of _PyRuntime (cpython
 * #106597), read by py_layout_from_debug.
 *
 * The chain the sample path walks (python-frames.c), in these names:
 *
 *   runtime + runtime.interpreters_head -> interp
 *   interp + interp.threads_head -> tstate, tstate + tstate.next -> ...
 *   interp + interp.next -> the next interpreter
 *   tstate + tstate.frame -> frame, or when tstate.frame_indirect >= 0
 *       (3.11, 3.12: the _PyCFrame) -> p, p + tstate.frame_indirect
 *       -> frame; 3.11: p + tstate.cframe_previous -> the next _PyCFrame
 *   frame + frame.previous -> the caller's frame
 *   frame + frame.code -> code object
 *
 * Invariants:
 *  1. Every field is a byte offset from the start of its object, -1
 *     when the version has no such field; a pointer field is 8 bytes.
 *  2. A layout returned here passed py_layout_check: every field the
 *     walk needs is present, and the kinds agree with the version.
 *  3. Nothing here allocates or reads the process's memory: the tables
 *     are constant, and py_layout_from_debug reads only the bytes it is
 *     given and fills the caller's struct.
 */
#ifndef HPCRUN_PYTHON_LAYOUT_H
#define HPCRUN_PYTHON_LAYOUT_H

#include <stddef.h>
#include <stdint.h>

/* What frame.instr holds. */
enum py_instr {
	/* 3.10 f_lasti: an int, the index of the last instruction run, in
	 * 2-byte code units; -1 before the first. */
	PY_INSTR_LASTI,
	/* 3.11, 3.12 prev_instr: pointer to the last code unit run (it
	 * points before the bytecode's start before the first). */
	PY_INSTR_PREV,
	/* 3.13 instr_ptr: pointer to the code unit running or next to. */
	PY_INSTR_NEXT,
};

/* How the frames of one C call of the eval function are told apart. */
enum py_entry {
	/* 3.10: each PyFrameObject is one C call of the eval function. */
	PY_ENTRY_NONE,
	/* 3.11: the bool frame.entry is set on the first (the oldest)
	 * frame of each C call. */
	PY_ENTRY_IS_ENTRY,
	/* 3.12 on: the char frame.entry (owner) is PY_OWNED_BY_CSTACK on a
	 * shim frame each C call pushes below its first frame: not a Python
	 * frame, it marks the boundary. */
	PY_ENTRY_OWNER,
};
#define PY_OWNED_BY_CSTACK 3
/* ... and PY_OWNED_BY_GENERATOR on a generator's or coroutine's frame,
 * which lives in its object, not on the thread's data stack. */
#define PY_OWNED_BY_GENERATOR 1

struct py_layout {
	int major, minor;
	struct {
		int interpreters_head;	/* PyInterpreterState * */
	} runtime;			/* _PyRuntimeState */
	struct {
		int threads_head;	/* PyThreadState * */
		int next;		/* PyInterpreterState * */
	} interp;			/* PyInterpreterState */
	struct {
		int next;		/* PyThreadState * */
		int thread_id;		/* unsigned long: pthread_self() */
		int native_thread_id;	/* unsigned long: gettid(); -1 in 3.10
					 * (match thread_id) */
		int frame;		/* 3.10 frame, 3.11/3.12 cframe,
					 * 3.13 current_frame */
		int frame_indirect;	/* 3.11/3.12: current_frame in the
					 * _PyCFrame tstate.frame points to;
					 * else -1 */
		int cframe_previous;	/* 3.11: previous in that _PyCFrame,
					 * the caller's C call's (the walk's
					 * anchors: python-frames.c); else -1 */
		int datastack_chunk;	/* 3.11 on: _PyStackChunk *, the data
					 * stack's chunk in use; else -1 */
		int datastack_top;	/* 3.11 on: PyObject **, its first
					 * free slot; else -1 */
	} tstate;			/* PyThreadState */
	struct {
		int previous;		/* 3.10 f_back */
		int code;		/* f_code, 3.13 f_executable */
		int instr;		/* f_lasti, prev_instr, instr_ptr */
		int entry;		/* is_entry or owner; -1 in 3.10 */
		enum py_instr instr_kind;
		enum py_entry entry_kind;
	} frame;			/* PyFrameObject, _PyInterpreterFrame */
	struct {
		int filename, name;	/* str objects */
		int qualname;		/* str; -1 in 3.10: use name */
		int firstlineno;	/* int */
		int linetable;		/* bytes object: 3.10 PEP 626's
					 * co_linetable, 3.11 on the location
					 * table */
		int code;		/* 3.10: co_code, a bytes object whose
					 * ob_sval is the bytecode; else -1 */
		int code_adaptive;	/* 3.11 on: the bytecode, inline in the
					 * code object; else -1 */
		int size;		/* 3.11 on: Py_SIZE(code), its length in
					 * 2-byte code units (ob_size); else -1 */
		int framesize;		/* 3.12 on: co_framesize, an int: the
					 * 8-byte slots a frame of the code
					 * takes on the thread's data stack
					 * (python-frames.c: the dying frame);
					 * else -1 */
	} code;				/* PyCodeObject */
	struct {
		int ob_size;		/* Py_ssize_t: bytes */
		int ob_sval;		/* the bytes, inline */
	} bytes;			/* PyBytesObject */
	struct {
		int length;		/* Py_ssize_t: code points */
		int state;		/* uint32_t: the bits below */
		unsigned kind_shift;	/* kind = state >> shift & 7: bytes a
					 * code point, 1, 2 or 4 */
		unsigned compact_bit, ascii_bit;	/* masks of state */
		int ascii_data;		/* compact ASCII: the data (sizeof
					 * PyASCIIObject) */
		int compact_data;	/* compact non-ASCII: the data (sizeof
					 * PyCompactUnicodeObject) */
		int utf8_length;	/* compact non-ASCII: its cached UTF-8
					 * (char *, NULL when not made) and */
		int utf8;		/* its length in bytes */
	} unicode;			/* PyASCIIObject, PyCompactUnicodeObject */
};

/* The table of major.minor (3.10, 3.11, 3.12), or NULL. */
const struct py_layout *py_layout_table(int major, int minor);

/* Bytes of _Py_DebugOffsets py_layout_from_debug reads at most. */
#define PY_DEBUG_OFFSETS_MAX 1024

/*
 * Fills *l from the _Py_DebugOffsets in debug[0..len) (3.13 on: the
 * start of _PyRuntime).  0; -EINVAL when it is not one (no "xdebugpy"
 * cookie, or a size or an offset out of bounds); -ENOTSUP when its
 * version (the PY_VERSION_HEX it holds, in *hexversion either way when
 * the cookie is there) has no known _Py_DebugOffsets layout or is a
 * free-threaded build.
 */
int py_layout_from_debug(const unsigned char *debug, size_t len,
			 struct py_layout *l, uint32_t *hexversion);

/* 0 when l is complete for its version (invariant 2), else -EINVAL. */
int py_layout_check(const struct py_layout *l);

#endif
