/*
 * measdir.h - hpcstruct on a measurement directory (measdir.c).
 *
 * Reads the load maps of every *.hpcrun file in the directory, and for each
 * distinct module that received samples (load-map flag bit 0) writes
 * DIR/structs/<basename>.hpcstruct (<basename>-2.hpcstruct, ... when two
 * modules share a basename): a partial structure (analyze.h) of the
 * procedures holding the addresses of the profiles' CCT nodes in that
 * module (each address and the one before it), or, with all or when the
 * profiles name no address in it, the whole binary's.  Pseudo-modules ("[vdso]") and paths
 * that are not regular files are skipped with a note.  A module that cannot
 * be analyzed (not ELF, truncated) is skipped with one line saying why, and
 * the others are still analyzed.  Results are cached
 * by the binary's build ID (or, without one, a hash of its contents) in
 * $HPCSTRUCT_CACHE, else $XDG_CACHE_HOME/hpctoolkit-c/hpcstruct, else
 * ~/.cache/hpctoolkit-c/hpcstruct; a cache hit is a file copy and is
 * reported.  An entry is used only when it is a regular file (not a
 * symbolic link), whole (closing tag at its end) and made for the same
 * build (its build-ID comment, output.h); else one warning says what is
 * wrong with it and the binary is analyzed again, replacing the entry.
 * A partial entry serves a measurement whose addresses it all covers
 * (output.h, OUTPUT_PARTIAL_OPEN); else the binary is analyzed for those
 * addresses and the ones the entry covers, and the new file replaces the
 * entry, so an entry only grows.  A whole entry serves every measurement.
 * Profiles, binaries and entries are opened as regular files only
 * (lib/infile.h): a FIFO is refused, never waited on.
 */
#ifndef HPCSTRUCT_MEASDIR_H
#define HPCSTRUCT_MEASDIR_H

#include "analyze.h"

/*
 * Returns 0 when every module was analyzed or reused, -1 when some failed
 * (each failure already reported on stderr, one line each, after which the
 * other modules' structure files were still written).
 */
int measdir_run(const char *dir, const struct analyze_opts *opts, int quiet,
		int all);

#endif
