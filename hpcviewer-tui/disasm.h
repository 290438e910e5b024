/*
 * disasm.h - the machine code of one procedure, for the source pane when a
 * scope has no source (tui.c): read from its load module's ELF file on
 * disk and decoded with Capstone (x86-64, AT&T syntax, as objdump and perf
 * annotate print it).
 *
 * The procedure's extent comes from the unwind table entry (.eh_frame or
 * .debug_frame FDE) covering the address, which stripped binaries keep;
 * else from a function symbol; else DISASM_GUESS bytes from the address.
 */
#ifndef HPCVIEWER_DISASM_H
#define HPCVIEWER_DISASM_H

#include <stddef.h>
#include <stdint.h>

#define DISASM_GUESS 256	/* bytes decoded when nothing gives the end */
#define DISASM_MAX 65536	/* at most this many bytes of one procedure */

struct disasm_insn {
	uint64_t addr;
	uint16_t size;
	char text[200];		/* "addl %edi, %eax" (mnemonic, operands) */
};

struct disasm {
	uint64_t start, end;	/* the range decoded, [start, end) */
	const char *extent;	/* "unwind table", "symbol table", "guessed" */
	struct disasm_insn *insns;
	size_t ninsns;
};

/*
 * Decodes the procedure of the ELF file path that contains addr (an
 * address of the file's own layout, as experiment.xml's module-relative v
 * attributes are).  Returns NULL with hpc_lasterr() set ("'PATH': what is
 * wrong") when the file cannot be read or holds no code at addr.  Free
 * with disasm_free().
 */
struct disasm *disasm_procedure(const char *path, uint64_t addr);
void disasm_free(struct disasm *d);

/* Index of the instruction containing addr, or d->ninsns when none does. */
size_t disasm_find(const struct disasm *d, uint64_t addr);

#endif
