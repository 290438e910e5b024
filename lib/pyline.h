/*
 * pyline.h - the line of each bytecode instruction of a CPython code
 * object, from the line table a .hpcpy file keeps (hpcpy.h): its
 * co_linetable as the Python version the file names wrote it.
 *
 *   3.10      PEP 626: pairs of bytes (bytecode bytes, line delta): an
 *             unsigned byte delta of the start, a signed byte delta of the
 *             line, -128 for "no line".
 *   3.11+     the location table (CPython Objects/locations.md): entries
 *             of a first byte 1CCCCLLL (code C, L + 1 code units of 2
 *             bytes) and the varints the code asks for: 0-9 short form
 *             and 10-12 one-line forms (line delta 0 and C - 10, column
 *             bytes after them), 13 no columns (a signed varint line
 *             delta), 14 long form (a signed varint line delta, then end
 *             line, start and end columns as varints), 15 no location.
 *             Varints are 6-bit chunks, least significant first, 0x40 set
 *             on all but the last; a signed one is v >> 1, negated when
 *             v & 1.
 *
 * Both start at the code's first line and answer as the code object's
 * co_lines() does: u-pyline checks that against CPython 3.10 to 3.13.
 *
 * Invariants of pyline_decode():
 *  1. The ranges are in order, not empty, and do not overlap; each one
 *     ends at most at the bytecode's end (ncode bytes) when ncode is not
 *     0; a line is -1 where the table says there is none.
 *  2. A damaged or cut table yields the ranges decoded before the damage:
 *     the decoder reads no byte past len and never loops (each entry
 *     consumes at least one byte).
 */
#ifndef HPC_PYLINE_H
#define HPC_PYLINE_H

#include <stddef.h>
#include <stdint.h>

struct pyline_range {
	uint32_t start, end;	/* bytecode bytes [start, end) */
	int32_t line;		/* -1: no line */
};

/*
 * The ranges of the line table (table, len bytes) of a code object of
 * Python major.minor whose first line is firstlineno and whose bytecode
 * is ncode bytes (0: unknown, not bounded), into *out (malloc'd; the
 * caller frees it, also when it holds none).  Returns the number of
 * ranges (out of memory, those it had room for), or -1 for a version
 * whose table is neither format above (before 3.10).
 */
long pyline_decode(int major, int minor, const unsigned char *table,
		   size_t len, uint32_t firstlineno, uint32_t ncode,
		   struct pyline_range **out);

/* The line of bytecode byte offset in the n ranges r, -1 when none
 * covers it or it has none. */
int32_t pyline_at(const struct pyline_range *r, size_t n, uint32_t offset);

/* The line of bytecode byte offset as pyline_at() of pyline_decode()'s
 * ranges would give it, decoding only up to it; allocates nothing
 * (async-signal-safe: hpcrun's hang reports name Python lines with it). */
int32_t pyline_line(int major, int minor, const unsigned char *table,
		    size_t len, uint32_t firstlineno, uint32_t ncode,
		    uint32_t offset);

#endif
