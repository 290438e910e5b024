/* insn-class.c - classify decoded x86-64 instructions (see insn-class.h). */
#include <pthread.h>
#include <string.h>

#include "insn-class.h"

/* What a mnemonic says, before groups and operands are looked at. */
enum mnemonic_kind {
	M_PLAIN,	/* integer, or a load or store by its operands */
	M_FP,		/* FP arithmetic, when in an FP/SIMD group */
	M_VEC,		/* vector arithmetic, when in an FP/SIMD group */
	M_MOVE,		/* data movement: a load, a store, or other */
	M_OTHER,	/* nop, fence, pause, system */
	M_PUSH,		/* writes the stack */
	M_POP,		/* reads the stack */
	M_NOMEM,	/* a memory operand that is only an address (lea) */
	M_X87_STORE,	/* an x87 store: Capstone 4 marks its operand read */
};

static uint8_t kind_of[X86_INS_ENDING];
static pthread_once_t table_once = PTHREAD_ONCE_INIT;

static int starts(const char *s, const char *prefix)
{
	return !strncmp(s, prefix, strlen(prefix));
}

static int ends(const char *s, const char *suffix)
{
	size_t n = strlen(s), k = strlen(suffix);

	return n >= k && !strcmp(s + n - k, suffix);
}

static int any_prefix(const char *s, const char *const *v)
{
	for (; *v; v++)
		if (starts(s, *v))
			return 1;
	return 0;
}

/* x87 operations that compute (loads, stores and control do not). */
static const char *const x87_arith[] = {
	"fadd", "fiadd", "fsub", "fisub", "fmul", "fimul", "fdiv", "fidiv",
	"fsqrt", "fsin", "fcos", "fptan", "fpatan", "f2xm1", "fyl2x",
	"fscale", "fprem", "frndint", "fabs", "fchs", "fcom", "fucom",
	"ficom", "ftst", "fxam", "fxtract", NULL,
};

static const char *const x87_stores[] = {
	"fst", "fist", "fbst", "fnst", "fsave", "fnsave", "fxsave", NULL,
};

/* SSE/AVX floating-point operations, on an ss/sd/ps/pd/sh/ph suffix. */
static const char *const simd_fp[] = {
	"add", "sub", "mul", "div", "sqrt", "rsqrt", "rcp", "min", "max",
	"hadd", "hsub", "dp", "round", "cmp", "comi", "ucomi", "fmadd",
	"fmsub", "fnmadd", "fnmsub", "getexp", "getmant", "scalef", "reduce",
	"rndscale", "range", "fixupimm", "exp2", "fpclass", NULL,
};

/* Packed-integer instructions that move or rearrange, not compute. */
static const char *const simd_int_moves[] = {
	"pshuf", "punpck", "pack", "pinsr", "pextr", "pmov", "palignr",
	"pblend", "pbroadcast", "perm", "pmaskmov", "pgather", "pscatter",
	"pcompress", "pexpand", "prefetch", NULL,
};

static const char *const simd_logic[] = {
	"and", "andn", "or", "xor", "test", "aes", "sha", "pclmul", NULL,
};

static const char *const system_ops[] = {
	"nop", "pause", "lfence", "sfence", "mfence", "endbr", "cpuid",
	"rdtsc", "syscall", "sysenter", "sysexit", "sysret", "int", "hlt",
	"ud0", "ud1", "ud2", "wait", "xgetbv", "xsetbv", "rdpid", "rdrand",
	"rdseed", "cld", "std", "clc", "stc", "cmc", "cli", "sti", NULL,
};

static int fp_suffix(const char *s)
{
	static const char *const v[] = { "ss", "sd", "ps", "pd", "sh", "ph",
					 NULL };

	for (size_t i = 0; v[i]; i++)
		if (ends(s, v[i]))
			return 1;
	return 0;
}

static enum mnemonic_kind kind_of_name(const char *name)
{
	const char *s = name;

	if (!strcmp(name, "lea"))
		return M_NOMEM;
	if (starts(name, "push") || !strcmp(name, "enter"))
		return M_PUSH;
	if (starts(name, "pop") && strcmp(name, "popcnt"))
		return M_POP;
	if (!strcmp(name, "leave"))
		return M_POP;
	if (any_prefix(name, system_ops))
		return M_OTHER;
	if (name[0] == 'f')
		return any_prefix(name, x87_arith) ? M_FP :
		       any_prefix(name, x87_stores) ? M_X87_STORE : M_MOVE;
	if (s[0] == 'v')	/* AVX spelling of an SSE operation */
		s++;
	if (starts(s, "cvt") || (any_prefix(s, simd_fp) && fp_suffix(s)))
		return M_FP;
	if (any_prefix(s, simd_logic))
		return M_VEC;
	if (s[0] == 'p')
		return any_prefix(s, simd_int_moves) ? M_MOVE : M_VEC;
	return M_MOVE;
}

static void build_table(void)
{
	csh h;

	if (cs_open(CS_ARCH_X86, CS_MODE_64, &h) != CS_ERR_OK)
		return;	/* every mnemonic stays M_PLAIN */
	for (unsigned id = 1; id < X86_INS_ENDING; id++) {
		const char *name = cs_insn_name(h, id);

		kind_of[id] = name ? (uint8_t)kind_of_name(name) : M_PLAIN;
	}
	cs_close(&h);
}

static int in_group(const cs_detail *det, uint8_t g)
{
	for (uint8_t i = 0; i < det->groups_count; i++)
		if (det->groups[i] == g)
			return 1;
	return 0;
}

/* An instruction of the x87, MMX, SSE or AVX extensions. */
static int fp_or_simd(const cs_detail *det)
{
	for (uint8_t i = 0; i < det->groups_count; i++) {
		uint8_t g = det->groups[i];

		if (g == X86_GRP_FPU || g == X86_GRP_3DNOW ||
		    g == X86_GRP_MMX || g == X86_GRP_AES ||
		    g == X86_GRP_SHA || g == X86_GRP_PCLMUL ||
		    g == X86_GRP_F16C || g == X86_GRP_FMA ||
		    g == X86_GRP_FMA4 || g == X86_GRP_XOP ||
		    (g >= X86_GRP_SSE1 && g <= X86_GRP_SSSE3) ||
		    (g >= X86_GRP_AVX && g <= X86_GRP_AVX512) ||
		    (g >= X86_GRP_CDI && g <= X86_GRP_ERI) ||
		    (g >= X86_GRP_DQI && g <= X86_GRP_VLX))
			return 1;
	}
	for (uint8_t i = 0; i < det->x86.op_count; i++) {
		const cs_x86_op *op = &det->x86.operands[i];

		if (op->type == X86_OP_REG && op->reg >= X86_REG_ST0 &&
		    op->reg <= X86_REG_ST7)
			return 1;
	}
	return 0;
}

/* Loads and stores by the memory operands: 2 written, 1 read, 0 none. */
static int memory_access(const cs_x86 *x)
{
	int acc = 0;

	for (uint8_t i = 0; i < x->op_count; i++) {
		const cs_x86_op *op = &x->operands[i];

		if (op->type != X86_OP_MEM)
			continue;
		if (op->access & CS_AC_WRITE)
			return 2;
		acc = 1;	/* read, or not said: it is an access */
	}
	return acc;
}

enum insn_class insn_class_x86(const cs_insn *ci)
{
	const cs_detail *det = ci->detail;
	enum mnemonic_kind k;
	int mem, simd;

	pthread_once(&table_once, build_table);
	if (!det)
		return IC_OTHER;
	if (in_group(det, CS_GRP_JUMP) || in_group(det, CS_GRP_CALL) ||
	    in_group(det, CS_GRP_RET) || in_group(det, CS_GRP_IRET))
		return IC_BRANCH;
	k = ci->id < X86_INS_ENDING ? (enum mnemonic_kind)kind_of[ci->id]
				    : M_PLAIN;
	if (k == M_OTHER || k == M_NOMEM)
		return k == M_OTHER ? IC_OTHER : IC_INT;
	if (in_group(det, CS_GRP_INT) || in_group(det, CS_GRP_PRIVILEGE) ||
	    in_group(det, X86_GRP_VM))
		return IC_OTHER;
	simd = fp_or_simd(det);
	if (simd && k == M_FP)
		return IC_FP;
	if (simd && k == M_VEC)
		return IC_VEC;
	if (k == M_PUSH)
		return IC_STORE;
	if (k == M_POP)
		return IC_LOAD;
	mem = memory_access(&det->x86);
	if (mem && k == M_X87_STORE)
		return IC_STORE;
	if (mem)
		return mem == 2 ? IC_STORE : IC_LOAD;
	return simd ? IC_OTHER : IC_INT;
}
