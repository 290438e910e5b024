/*
 * insn-class.h - the class of a decoded x86-64 instruction (insn-class.c),
 * from Capstone's instruction groups, its operands' access flags and its
 * mnemonic: what hpcstruct writes as the instruction mix (insn-mix.h).
 *
 * Invariants:
 *  1. Needs Capstone's details (CS_OPT_DETAIL on); never reads the
 *     instruction's text, so a handle that does not format text works.
 *  2. The rules, first that applies (hpcstruct(5), INSTRUCTION MIX):
 *     jumps, calls and returns (groups JUMP, CALL, RET, IRET) are
 *     branches; an instruction of the FPU, SSE, AVX, FMA, MMX or 3DNow!
 *     groups is FP arithmetic when its mnemonic (without AVX's v) is one
 *     of the x87 or SSE/AVX floating-point operations (add, sub, mul, div,
 *     sqrt, min, max, fma, compare, round, convert, ... on ss/sd/ps/pd/sh/
 *     ph), vector arithmetic when it computes on packed integers or bits
 *     (p-prefixed arithmetic, and/or/xor/andn), else data movement;
 *     then data movement and integer instructions are stores when they
 *     write memory (a memory operand written, push, enter), loads when
 *     they read it (a memory operand read, pop, leave), and otherwise
 *     integer, except nops, fences, pause and system instructions (other),
 *     and register-to-register vector moves and shuffles (other).  lea
 *     and nop have memory operands but touch no memory.
 *  3. The class depends on the instruction alone (same bytes, same class),
 *     and a table built once per process holds the mnemonic rules, so the
 *     cost per instruction is a scan of its groups and operands.
 */
#ifndef HPC_INSN_CLASS_H
#define HPC_INSN_CLASS_H

#include <capstone/capstone.h>

#include "insn-mix.h"

/* The class of ci, decoded with details by an x86-64 handle. */
enum insn_class insn_class_x86(const cs_insn *ci);

#endif
