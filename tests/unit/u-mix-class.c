/* u-mix-class.c - unit tests for lib/insn-class.c: the class of each kind
 * of x86-64 instruction, decoded by Capstone from its bytes (hpcstruct(5),
 * INSTRUCTION MIX, states the rules checked here). */
#include <string.h>

#include "insn-class.h"
#include "unit.h"

struct sample {
	const char *what;		/* the instruction, in Intel syntax */
	unsigned char bytes[15];
	size_t len;
	enum insn_class want;
};

static const struct sample samples[] = {
	/* floating-point arithmetic, with or without a memory operand */
	{ "addsd xmm0, xmm1", { 0xf2, 0x0f, 0x58, 0xc1 }, 4, IC_FP },
	{ "mulpd xmm0, xmm1", { 0x66, 0x0f, 0x59, 0xc1 }, 4, IC_FP },
	{ "addsd xmm0, [rax]", { 0xf2, 0x0f, 0x58, 0x00 }, 4, IC_FP },
	{ "vfmadd231sd xmm0, xmm1, xmm2", { 0xc4, 0xe2, 0xf1, 0xb9, 0xc2 }, 5,
	  IC_FP },
	{ "sqrtsd xmm0, xmm1", { 0xf2, 0x0f, 0x51, 0xc1 }, 4, IC_FP },
	{ "cvtsi2sd xmm0, rax", { 0xf2, 0x48, 0x0f, 0x2a, 0xc0 }, 5, IC_FP },
	{ "ucomisd xmm0, xmm1", { 0x66, 0x0f, 0x2e, 0xc1 }, 4, IC_FP },
	{ "cmpsd xmm0, xmm1, 0", { 0xf2, 0x0f, 0xc2, 0xc1, 0x00 }, 5, IC_FP },
	{ "faddp st(1)", { 0xde, 0xc1 }, 2, IC_FP },
	/* vector integer arithmetic and logic */
	{ "paddd xmm0, xmm1", { 0x66, 0x0f, 0xfe, 0xc1 }, 4, IC_VEC },
	{ "vpaddd ymm0, ymm1, ymm2", { 0xc5, 0xf5, 0xfe, 0xc2 }, 4, IC_VEC },
	{ "pxor xmm0, xmm0", { 0x66, 0x0f, 0xef, 0xc0 }, 4, IC_VEC },
	{ "xorpd xmm0, xmm0", { 0x66, 0x0f, 0x57, 0xc0 }, 4, IC_VEC },
	/* branches */
	{ "jne", { 0x75, 0x00 }, 2, IC_BRANCH },
	{ "call rel32", { 0xe8, 0, 0, 0, 0 }, 5, IC_BRANCH },
	{ "ret", { 0xc3 }, 1, IC_BRANCH },
	{ "jmp [rax]", { 0xff, 0x20 }, 2, IC_BRANCH },
	/* stores: memory written */
	{ "mov [rbx], rax", { 0x48, 0x89, 0x03 }, 3, IC_STORE },
	{ "add [rbx], rax", { 0x48, 0x01, 0x03 }, 3, IC_STORE },
	{ "movsd [rax], xmm0", { 0xf2, 0x0f, 0x11, 0x00 }, 4, IC_STORE },
	{ "fstp qword [rax]", { 0xdd, 0x18 }, 2, IC_STORE },
	{ "push rbp", { 0x55 }, 1, IC_STORE },
	{ "rep stosq", { 0xf3, 0x48, 0xab }, 3, IC_STORE },
	{ "movsd (string)", { 0xa5 }, 1, IC_STORE },
	/* loads: memory read */
	{ "mov rax, [rbx]", { 0x48, 0x8b, 0x03 }, 3, IC_LOAD },
	{ "add rax, [rbx]", { 0x48, 0x03, 0x03 }, 3, IC_LOAD },
	{ "movsd xmm0, [rax]", { 0xf2, 0x0f, 0x10, 0x00 }, 4, IC_LOAD },
	{ "movaps xmm0, [rip+16]", { 0x0f, 0x28, 0x05, 0x10, 0, 0, 0 }, 7,
	  IC_LOAD },
	{ "fld qword [rax]", { 0xdd, 0x00 }, 2, IC_LOAD },
	{ "pop rbp", { 0x5d }, 1, IC_LOAD },
	{ "cmpsd (string)", { 0xa7 }, 1, IC_LOAD },
	/* integer */
	{ "add rax, rbx", { 0x48, 0x01, 0xd8 }, 3, IC_INT },
	{ "imul rax, rbx", { 0x48, 0x0f, 0xaf, 0xc3 }, 4, IC_INT },
	{ "lea rax, [rbx+rcx*8]", { 0x48, 0x8d, 0x04, 0xcb }, 4, IC_INT },
	{ "mov eax, 1", { 0xb8, 1, 0, 0, 0 }, 5, IC_INT },
	{ "popcnt rax, rbx", { 0xf3, 0x48, 0x0f, 0xb8, 0xc3 }, 5, IC_INT },
	/* other */
	{ "nop", { 0x90 }, 1, IC_OTHER },
	{ "nopw [rax+rax+0]", { 0x66, 0x0f, 0x1f, 0x44, 0, 0 }, 6, IC_OTHER },
	{ "mfence", { 0x0f, 0xae, 0xf0 }, 3, IC_OTHER },
	{ "syscall", { 0x0f, 0x05 }, 2, IC_OTHER },
	{ "endbr64", { 0xf3, 0x0f, 0x1e, 0xfa }, 4, IC_OTHER },
	{ "movapd xmm1, xmm0", { 0x66, 0x0f, 0x28, 0xc8 }, 4, IC_OTHER },
	{ "pshufd xmm0, xmm1, 0", { 0x66, 0x0f, 0x70, 0xc1, 0 }, 5,
	  IC_OTHER },
};

static void each_instruction_has_its_class(void)
{
	csh h;
	cs_insn *in;

	CHECK(cs_open(CS_ARCH_X86, CS_MODE_64, &h) == CS_ERR_OK);
	cs_option(h, CS_OPT_DETAIL, CS_OPT_ON);
	in = cs_malloc(h);
	for (size_t i = 0; i < sizeof(samples) / sizeof(samples[0]); i++) {
		const struct sample *s = &samples[i];
		const uint8_t *p = s->bytes;
		size_t size = s->len;
		uint64_t addr = 0x1000;
		enum insn_class got;

		if (!cs_disasm_iter(h, &p, &size, &addr, in)) {
			unit_fail(__FILE__, __LINE__, "'%s' does not decode",
				  s->what);
			continue;
		}
		CHECK_INT(in->size, s->len);
		got = insn_class_x86(in);
		if (got != s->want)
			unit_fail(__FILE__, __LINE__, "'%s' (%s) is %s, expected %s",
				  s->what, in->mnemonic, insn_mix_names[got],
				  insn_mix_names[s->want]);
	}
	cs_free(in, 1);
	cs_close(&h);
}

static void groups_of_classes(void)
{
	CHECK_INT(insn_mix_group(IC_FP), MIX_FP);
	CHECK_INT(insn_mix_group(IC_LOAD), MIX_MEM);
	CHECK_INT(insn_mix_group(IC_STORE), MIX_MEM);
	CHECK_INT(insn_mix_group(IC_INT), MIX_INT);
	CHECK_INT(insn_mix_group(IC_VEC), MIX_INT);
	CHECK_INT(insn_mix_group(IC_BRANCH), MIX_BRANCH);
	CHECK_INT(insn_mix_group(IC_OTHER), MIX_NONE);
}

int main(void)
{
	unit_run("each instruction has its class", each_instruction_has_its_class);
	unit_run("classes fall into the reported groups", groups_of_classes);
	return unit_done();
}
