/*
 * x86.h - the x86-64 specific part of hpcstruct (x86.c): decoding a code
 * range into control-flow-relevant instruction records with Capstone, and
 * recognizing the jump-table patterns gcc and clang emit; each instruction
 * also gets its class for the instruction mix (insn-class.h).  Another
 * architecture provides the same three functions.
 *
 * A decoder holds one Capstone handle: use one per thread, and create the
 * first one before starting other threads (it initializes Capstone's lazily
 * built tables, which Capstone 4 does without a lock).
 */
#ifndef HPCSTRUCT_X86_H
#define HPCSTRUCT_X86_H

#include <stddef.h>
#include <stdint.h>

#include "binary.h"

enum insn_kind {
	INSN_OTHER,
	INSN_JUMP,	/* unconditional direct jump to target */
	INSN_CJUMP,	/* conditional jump to target, else falls through */
	INSN_IJUMP,	/* indirect jump (jump table or tail call) */
	INSN_CALL,	/* call; target is 0 when indirect */
	INSN_RET,
	INSN_STOP,	/* hlt, ud2, int3, or bytes that do not decode */
	INSN_LEA_RIP,	/* lea X(%rip): target = X (jump-table base) */
	INSN_CMP_IMM,	/* cmp $imm: aux = imm (jump-table bound) */
};

struct insn {
	uint64_t addr;
	uint64_t target;
	uint32_t aux;
	uint8_t len;
	uint8_t kind;		/* enum insn_kind */
	uint8_t table;		/* IJUMP: 1 = absolute 8-byte table at target */
	uint8_t mix;		/* enum insn_class (insn-class.h) */
};

struct decoder;

/* Returns a decoder, or NULL with hpc_lasterr() set. */
struct decoder *decoder_new(void);
/* Accepts NULL. */
void decoder_free(struct decoder *d);

/*
 * Appends the instructions of [lo, hi) to *v (n used, alloc allocated),
 * stopping after cap instructions.  Returns 0, or 1 when cap was reached.
 */
int x86_decode(struct decoder *d, const struct binary *b, uint64_t lo,
	       uint64_t hi, struct insn **v, size_t *n, size_t *alloc,
	       size_t cap);

/*
 * The targets of the indirect jump v[i] when it dispatches through a jump
 * table whose entries all lie in [lo, hi): appends them to *out (grown with
 * HPC_GROW) and returns their number, 0 when no table was recognized.
 */
size_t x86_jump_table(const struct binary *b, const struct insn *v, size_t i,
		      uint64_t lo, uint64_t hi, uint64_t **out, size_t *nout,
		      size_t *alloc);

#endif
