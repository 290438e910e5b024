/* x86.c - x86-64 decoding and jump tables (see x86.h). */
#include <capstone/capstone.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "error.h"
#include "insn-class.h"
#include "strbuf.h"
#include "x86.h"

/* Entries read from a table whose bound the code does not show. */
#define TABLE_GUESS_MAX 4096
/* How far back from the jump to look for the table base and bound. */
#define LOOKBACK 12

struct decoder {
	csh cs;
	cs_insn *insn;
};

/*
 * Instructions with implicit register operands (cmp eax/rax/al, imm; test
 * al, imm; rep movsb; in al, dx; cwde; cqo): decoding them makes Capstone 4
 * sort its implicit-register table, which it does lazily and without a
 * lock.  Doing it once in the first decoder, before other threads exist,
 * keeps later decoders race-free.
 */
static const unsigned char warm_up_code[] = {
	0x3d, 0x10, 0, 0, 0, 0x48, 0x3d, 0x10, 0, 0, 0, 0x3c, 0x01, 0xa8, 0x01,
	0x66, 0x3d, 0x01, 0x00, 0xf3, 0xa4, 0xec, 0x98, 0x48, 0x99,
};

static void warm_up(struct decoder *d)
{
	const uint8_t *p = warm_up_code;
	size_t size = sizeof(warm_up_code);
	uint64_t addr = 0;

	while (size > 0 && cs_disasm_iter(d->cs, &p, &size, &addr, d->insn))
		;
}

/*
 * Capstone formats every instruction as text (mnemonic, operands) with the
 * vsnprintf given in CS_OPT_MEM; hpcstruct reads only the details, which
 * the printers fill apart from the text, so the text is not formatted.
 */
static int no_text(char *str, size_t size, const char *fmt, va_list ap)
{
	(void)fmt;
	(void)ap;
	if (size)
		str[0] = 0;
	return 0;
}

static void set_capstone_mem(void)
{
	cs_opt_mem mem = { malloc, calloc, realloc, free, no_text };

	cs_option(0, CS_OPT_MEM, (size_t)&mem);
}

struct decoder *decoder_new(void)
{
	static pthread_once_t once = PTHREAD_ONCE_INIT;
	struct decoder *d = xcalloc(1, sizeof(*d));

	pthread_once(&once, set_capstone_mem);

	if (cs_open(CS_ARCH_X86, CS_MODE_64, &d->cs) != CS_ERR_OK) {
		free(d);
		hpc_seterr("cannot open the capstone x86-64 decoder");
		return NULL;
	}
	cs_option(d->cs, CS_OPT_DETAIL, CS_OPT_ON);
	d->insn = cs_malloc(d->cs);
	warm_up(d);
	return d;
}

void decoder_free(struct decoder *d)
{
	if (!d)
		return;
	cs_free(d->insn, 1);
	cs_close(&d->cs);
	free(d);
}

static int in_group(const cs_detail *det, uint8_t g)
{
	for (uint8_t i = 0; i < det->groups_count; i++)
		if (det->groups[i] == g)
			return 1;
	return 0;
}

static void classify(const cs_insn *ci, struct insn *out)
{
	const cs_detail *det = ci->detail;
	const cs_x86 *x = &det->x86;
	const cs_x86_op *op0 = x->op_count > 0 ? &x->operands[0] : NULL;

	out->kind = INSN_OTHER;
	switch (ci->id) {
	case X86_INS_HLT: case X86_INS_UD2: case X86_INS_UD2B:
	case X86_INS_UD0: case X86_INS_INT3:
		out->kind = INSN_STOP;
		return;
	case X86_INS_LEA:
		if (x->op_count == 2 && x->operands[1].type == X86_OP_MEM &&
		    x->operands[1].mem.base == X86_REG_RIP &&
		    x->operands[1].mem.index == X86_REG_INVALID) {
			out->kind = INSN_LEA_RIP;
			out->target = ci->address + ci->size +
				(uint64_t)x->operands[1].mem.disp;
		}
		return;
	case X86_INS_CMP:
		if (x->op_count == 2 && x->operands[0].type == X86_OP_REG &&
		    x->operands[1].type == X86_OP_IMM &&
		    x->operands[1].imm >= 0 && x->operands[1].imm < 65536) {
			out->kind = INSN_CMP_IMM;
			out->aux = (uint32_t)x->operands[1].imm;
		}
		return;
	default:
		break;
	}
	if (in_group(det, CS_GRP_RET) || in_group(det, CS_GRP_IRET)) {
		out->kind = INSN_RET;
	} else if (in_group(det, CS_GRP_CALL)) {
		out->kind = INSN_CALL;
		if (op0 && op0->type == X86_OP_IMM)
			out->target = (uint64_t)op0->imm;
	} else if (in_group(det, CS_GRP_JUMP)) {
		int uncond = ci->id == X86_INS_JMP || ci->id == X86_INS_LJMP;

		if (op0 && op0->type == X86_OP_IMM) {
			out->kind = uncond ? INSN_JUMP : INSN_CJUMP;
			out->target = (uint64_t)op0->imm;
		} else {
			out->kind = INSN_IJUMP;
			if (op0 && op0->type == X86_OP_MEM &&
			    op0->mem.base == X86_REG_INVALID &&
			    op0->mem.index != X86_REG_INVALID &&
			    op0->mem.scale == 8) {
				out->table = 1;
				out->target = (uint64_t)op0->mem.disp;
			}
		}
	}
}

int x86_decode(struct decoder *d, const struct binary *b, uint64_t lo,
	       uint64_t hi, struct insn **v, size_t *n, size_t *alloc,
	       size_t cap)
{
	const unsigned char *code = binary_bytes(b, lo, hi - lo);
	size_t size = hi - lo, count = 0;
	uint64_t addr = lo;

	if (!code)
		return 0;
	while (size > 0) {
		struct insn *out;
		const unsigned char *p = code;

		if (count++ >= cap)
			return 1;
		HPC_GROW(*v, *n + 1, *alloc);
		out = &(*v)[(*n)++];
		memset(out, 0, sizeof(*out));
		out->addr = addr;
		if (!cs_disasm_iter(d->cs, &p, &size, &addr, d->insn)) {
			out->kind = INSN_STOP;	/* skip one byte */
			out->mix = IC_OTHER;
			out->len = 1;
			code++;
			size--;
			addr++;
			continue;
		}
		out->len = (uint8_t)d->insn->size;
		classify(d->insn, out);
		out->mix = (uint8_t)insn_class_x86(d->insn);
		code = p;
	}
	return 0;
}

static int32_t rd_s32(const unsigned char *q)
{
	uint32_t v;

	memcpy(&v, q, 4);
	return (int32_t)v;
}

static void push(uint64_t **out, size_t *nout, size_t *alloc, uint64_t t)
{
	HPC_GROW(*out, *nout + 1, *alloc);
	(*out)[(*nout)++] = t;
}

size_t x86_jump_table(const struct binary *b, const struct insn *v, size_t i,
		      uint64_t lo, uint64_t hi, uint64_t **out, size_t *nout,
		      size_t *alloc)
{
	uint64_t base = 0;
	size_t bound = TABLE_GUESS_MAX, found = 0;
	size_t stop = i > LOOKBACK ? i - LOOKBACK : 0;

	for (size_t k = i; k-- > stop;) {
		if (v[k].kind == INSN_CMP_IMM) {
			bound = (size_t)v[k].aux + 1;
			break;
		}
		if (v[k].kind != INSN_OTHER && v[k].kind != INSN_LEA_RIP &&
		    v[k].kind != INSN_CJUMP)
			break;
	}
	if (v[i].table) {
		base = v[i].target;
	} else {
		for (size_t k = i; k-- > stop;) {
			if (v[k].kind == INSN_LEA_RIP) {
				base = v[k].target;
				break;
			}
			if (v[k].kind != INSN_OTHER && v[k].kind != INSN_CMP_IMM)
				break;
		}
	}
	if (!base)
		return 0;
	for (size_t e = 0; e < bound; e++) {
		uint64_t t;
		const unsigned char *q;

		if (v[i].table) {
			q = binary_bytes(b, base + 8 * e, 8);
			if (!q)
				break;
			memcpy(&t, q, 8);
		} else {
			q = binary_bytes(b, base + 4 * e, 4);
			if (!q)
				break;
			t = base + (uint64_t)(int64_t)rd_s32(q);
		}
		if (t < lo || t >= hi)
			break;
		push(out, nout, alloc, t);
		found++;
	}
	return found;
}
