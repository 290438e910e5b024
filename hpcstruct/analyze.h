/*
 * analyze.h - recover the structure of one binary and write it (analyze.c).
 *
 * The pipeline: binary_open -> debuginfo_load (one thread; libdw is then
 * closed) -> noreturn_find (one thread) -> per procedure: decode, CFG,
 * loops, scope tree, rendered XML -> written in file order.  With
 * opts->jobs = N, N - 1 helper threads analyze procedures and the calling
 * thread writes them, analyzing too whenever the next one is not ready.  Results are written as soon as they are next in
 * order and then freed, and no thread runs more than a fixed window ahead
 * of the writer, so memory is bounded by the window, not the binary.  The
 * output does not depend on N.  It goes to a temporary file renamed over
 * out_path only on success.  A partial analysis (opts->addrs) decodes and
 * writes the wanted procedures alone, in the same order; what decides
 * their scopes (noreturn callees, line rows, inline ranges) is the whole
 * binary's, except DW_AT_noreturn of procedures in units not read, which
 * only the code analysis then finds; noreturn_find decides the procedures
 * the wanted ones may reach alone (noreturn.h).
 */
#ifndef HPCSTRUCT_ANALYZE_H
#define HPCSTRUCT_ANALYZE_H

#include <stddef.h>
#include <stdint.h>

struct analyze_opts {
	int jobs;		/* >= 1 */
	int progress;		/* draw a progress line on stderr */
	size_t insn_cap;	/* instructions analyzed per procedure */
	/*
	 * NULL: the whole binary.  Else a partial structure: only the
	 * procedures holding one of addrs[naddrs] (file addresses, sorted,
	 * distinct), with the DWARF of their units alone (debuginfo.h), each
	 * procedure written as the whole binary's file has it; the file says
	 * which addresses it covers (output.h, OUTPUT_PARTIAL_OPEN).
	 */
	const uint64_t *addrs;
	size_t naddrs;
};

/*
 * Writes the structure of the binary at path to out_path.  Warnings (capped
 * procedures) go to stderr.  Returns 0, or -1 with hpc_lasterr() set.
 */
int analyze_binary(const char *path, const char *out_path,
		   const struct analyze_opts *opts);

#endif
