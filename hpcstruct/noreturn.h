/*
 * noreturn.h - which procedures of a binary never return (noreturn.c).
 *
 * A procedure never returns when it is named like exit, abort or
 * __stack_chk_fail (with or without "@plt"), when DWARF says so
 * (DW_AT_noreturn), when it is the PLT stub of a procedure of the binary
 * that never returns, or when its code shows it: no path from its entry
 * reaches a ret, an indirect jump or a tail call to a procedure that may
 * return, because every path ends in a call or jump to a procedure that
 * never returns, in hlt/ud2/int3, or in a loop without exit.  The rule is
 * applied until nothing changes, so wrappers of wrappers are found (die
 * calling fatal calling exit).  It is conservative: unknown targets
 * (indirect jumps and calls, jump tables) and code past the instruction
 * cap count as returning.  The result depends only on the binary and cap.
 */
#ifndef HPCSTRUCT_NORETURN_H
#define HPCSTRUCT_NORETURN_H

#include <stddef.h>

#include "binary.h"
#include "debuginfo.h"

/*
 * Returns an array of b->nprocs + 1 flags, 1 for a procedure that never
 * returns, to be freed by the caller; or NULL with hpc_lasterr() set when
 * no decoder could be made.  At most cap instructions of a procedure are
 * decoded.  With want NULL every procedure is decided; else only the
 * procedures want[nwant] (indices into b->procs) and those they may reach
 * by calls and jumps are, each as the whole binary's analysis decides it
 * (unless that one runs out of budget), and the flags of the others are 0
 * (noreturn.c, design 5): the cost follows the code reached, not the
 * binary.  Call it before starting threads that decode (x86.h).
 */
unsigned char *noreturn_find(const struct binary *b, const struct debuginfo *d,
			     size_t cap, const size_t *want, size_t nwant);

#endif
