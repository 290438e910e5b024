/*
 * insn-mix.h - the instruction mix of a statement: what each of its
 * instructions does (floating-point or vector arithmetic, load, store,
 * integer, branch, other), as hpcstruct writes it into a structure file
 * and hpcprof reads it back (insn-mix.c; the format is in hpcstruct(5),
 * INSTRUCTION MIX).
 *
 * Invariants:
 *  1. Every decoded instruction has exactly one class, so the classes of a
 *     statement's instructions partition it: counts add up to its number
 *     of instructions, and shares of sampled time add up to at most 100%.
 *     An instruction that does several things takes the first class of
 *     enum insn_class that fits it (insn-class.h says how each is
 *     recognized): an FP or vector computation with a memory operand is
 *     arithmetic, not a load; an integer operation on memory is a load or
 *     a store; bytes that do not decode are "other".
 *  2. A statement's mix lists its instructions in address order over its
 *     address ranges (sorted, as the structure file writes them), one code
 *     per instruction: its class letter and its length in bytes as one hex
 *     digit (x86 instructions are 1-15 bytes).  The lengths add up to the
 *     statement's bytes exactly, or the mix is refused whole.
 *  3. A code byte (insn_mix_code) packs length << 4 | class.
 */
#ifndef HPC_INSN_MIX_H
#define HPC_INSN_MIX_H

#include <stddef.h>
#include <stdint.h>

struct strbuf;

enum insn_class {
	IC_FP,	/* floating-point arithmetic, scalar or vector, x87 */
	IC_VEC,	/* vector (SIMD) integer arithmetic and logic */
	IC_BRANCH,	/* jumps, calls, returns */
	IC_STORE,	/* writes memory (and computes no FP/vector value) */
	IC_LOAD,	/* reads memory (and writes none) */
	IC_INT,	/* scalar integer arithmetic, logic, register moves */
	IC_OTHER,	/* nops, fences, system instructions, vector shuffles
			 * between registers, undecodable bytes */
	IC_NCLASSES
};

/*
 * The groups hpcprof reports (hpcprof-database(5)): FP (IC_FP), memory
 * (loads and stores), integer (scalar and vector integer), branch.  Other
 * instructions are in no group.
 */
enum mix_group { MIX_FP, MIX_MEM, MIX_INT, MIX_BRANCH, MIX_NGROUPS,
		 MIX_NONE = MIX_NGROUPS };

/* The processing instruction's target: <?insn-mix ...?> (hpcstruct(5)). */
#define INSN_MIX_TARGET "insn-mix"

/* Letters of the classes in the sequence: "fvbslio". */
extern const char insn_mix_letters[IC_NCLASSES + 1];
/* Names of the classes in the counts: "fp", "vec", "branch", ... */
extern const char *const insn_mix_names[IC_NCLASSES];
/* Names of the groups: "fp", "mem", "int", "branch". */
extern const char *const mix_group_names[MIX_NGROUPS];

static inline uint8_t insn_mix_code(unsigned len, enum insn_class c)
{
	return (uint8_t)(len << 4 | (unsigned)c);
}

static inline unsigned insn_mix_len(uint8_t code)
{
	return code >> 4;
}

static inline enum insn_class insn_mix_class(uint8_t code)
{
	return (enum insn_class)(code & 15);
}

/* The group an instruction class is reported in (MIX_NONE: none). */
enum mix_group insn_mix_group(enum insn_class c);

/*
 * Appends the data of the processing instruction for the n instructions
 * codes[] (invariant 2): their counts by class, non-zero ones only, then
 * the sequence: fp="2" int="1" insns="f4f4i3".  Lengths must be 1-15.
 */
void insn_mix_format(struct strbuf *sb, const uint8_t *codes, size_t n);

/*
 * Parses the data of an insn-mix processing instruction: appends one code
 * per instruction of its insns="..." to *codes (grown with HPC_GROW, *n
 * used, *alloc allocated) and returns the bytes they span, or -1 with
 * hpc_lasterr() saying what is wrong (nothing appended then).  Counts and
 * unknown pseudo-attributes are skipped; the sequence alone is read.
 */
long insn_mix_parse(const char *data, uint8_t **codes, size_t *n,
		    size_t *alloc);

#endif
