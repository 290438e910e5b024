/*
 * srcline.h - the source line of a code address, for the hang reports
 * hpcrun prints while the program runs.
 *
 * Invariants:
 *  1. Only the hang detector's thread calls it: never a program thread
 *     (no libdw work, no allocation of libdw's, in the program's own
 *     threads), never a signal handler.
 *  2. libdw is loaded only when a report needs a line: dlopened
 *     (RTLD_LOCAL, through the real dlopen, so no load-map refresh and no
 *     symbol of the program's is disturbed) at the first call; as only
 *     hpcrun's own thread runs it, no sample lands in it.  A machine
 *     without libdw, or a module without line tables, gets an answer of 0
 *     (no line), never an error.
 *  3. Module files are read from a private copy-on-write mapping made on
 *     hpcrun's fd thread: no descriptor of hpcrun's is ever in the
 *     program's table while libdw reads.
 *  4. The tables of one module are read once and kept for the process's
 *     life (one lock, taken only here).
 */
#ifndef HPCRUN_SRCLINE_H
#define HPCRUN_SRCLINE_H

#include <stddef.h>
#include <stdint.h>

struct rt_module;

/* "FILE:LINE" (FILE's base name) of offset off in module m's file (the
 * address its ELF headers and DWARF use) into buf; 1 when found, else 0
 * and buf empty. */
int rt_srcline(const struct rt_module *m, uint64_t off, char *buf, size_t size);

/* A private copy-on-write mapping of the whole regular file at path, made
 * on the fd thread (invariant 3): 0 with *map and *size set, or a negative
 * errno.  Outside handlers. */
int rt_map_file(const char *path, void **map, size_t *size);

#endif
