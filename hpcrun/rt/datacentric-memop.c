/*
 * datacentric-memop.c - the data address of a sample (hpcrun --data): the effective
 * address of the memory operand of the instruction at the sampled pc,
 * from the sample's user registers and the instruction decoded with
 * Capstone.
 *
 * Invariants:
 *  1. Each thread decodes with a Capstone handle and instruction buffer of
 *     its own, made outside the handler (rt_memop_new: cs_open and
 *     cs_malloc allocate), and warmed up there: Capstone 4 allocates its
 *     per-handle instruction-id cache at the first decode.  Should it
 *     still allocate while decoding in the handler, Capstone's allocator
 *     (CS_OPT_MEM, ours) serves it from a static spare buffer, never from
 *     malloc.  The handler is never re-entered on one thread (td->busy),
 *     so the buffer has one user.
 *  2. Instruction bytes are read only inside the executable segment of a
 *     live module (rt_module_at), never past its end.
 *  3. Which instruction: a timer's sample (cpu-clock, task-clock, the
 *     POSIX timers) interrupts at an instruction boundary, its pc the next
 *     instruction to run, so the access that held the time is the one of
 *     the instruction that retired last: the one ending at pc, found by
 *     decoding forward from a few points before pc until a stream lands on
 *     pc exactly (x86 code resynchronizes within a few instructions; a
 *     per-thread cache keeps the answer for hot pcs).  When pc is a branch
 *     target, the bytes before it may not be what ran: such samples go
 *     wherever those bytes say (usually a jump or padding: no memory
 *     operand).  When the instruction that retired touched no memory,
 *     the time was held by the one at pc, the oldest not retired (a load
 *     waited on; vectorized loops interleave loads with register-only
 *     arithmetic and are sampled mostly there): its operand counts, with
 *     the sample's registers exact for it.  Other events (page faults
 *     without an address) take the instruction at pc, which the kernel
 *     will run again.  When the
 *     instruction wrote a register its own address is made of (mov
 *     (%rax),%rax; string instructions), the address is gone:
 *     MEMOP_NOADDR.
 *  4. The first explicit memory operand counts; lea and nop name memory
 *     without touching it and count as no memory operand, as do push,
 *     pop, call and ret (their stack accesses are implicit).  An operand
 *     that cannot be computed from the registers we have (a vector index,
 *     %gs, a 32-bit address register) is MEMOP_NOADDR.
 *  5. Capstone is dlopened (rt_dlopen_own) once, when --data starts
 *     (rt_memop_load, from data_init: rt_init's capabilities start before
 *     any fd thread, so the loader runs on rt_init's thread, under the fd
 *     gate); a process without --data never loads it.  Without it
 *     rt_memop_new gives NULL and every sample's data address is
 *     MEMOP_NOADDR, said once on stderr and in the log.  The handler
 *     calls Capstone's functions through the table filled then
 *     (rt_capstone).
 *  6. Capstone does not check every allocation it makes (a handle's
 *     instruction-id cache, made at its first decode; its register info,
 *     at cs_open: a NULL is written through), so what it allocates for a
 *     handle never fails: while rt_memop_new makes the handle, Capstone's
 *     allocator serves it from the decoder's own mapping (csmem, room for
 *     Capstone 4's 20 KiB), the one allocation that can fail, and checked.
 *     A Capstone that needs more gets the rest from malloc.  The
 *     decoder's thread alone makes and frees it (datacentric.c's thread
 *     hooks), so csmem has one user.
 */
#include <asm/prctl.h>
#include <capstone/capstone.h>
#include <dlfcn.h>
#include <pthread.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "datacentric.h"
#include "interpose.h"
#include "loadmap.h"
#include "runtime.h"

#define STR_(x) #x
#define STR(x) STR_(x)
/* The Capstone of the headers built against: its soname has their major
 * version (libcapstone.so.4 for Capstone 4). */
#define CAPSTONE_SONAME "libcapstone.so." STR(CS_API_MAJOR)

/* Capstone's functions, from the library dlopened when --data starts
 * (invariant 5).  Linked into libhpcrun.so it would be loaded into every
 * measured process, --data or not, and its 77,000 relative relocations
 * of 1.3 MB of tables applied at each start: 375 more page faults for
 * `python3 -c pass`.  Not static: a call through it then names it in
 * the object's relocations, where tests/t1111 finds the handler's calls. */
struct rt_capstone {
	__typeof__(cs_option) *cs_option;
	__typeof__(cs_open) *cs_open;
	__typeof__(cs_close) *cs_close;
	__typeof__(cs_malloc) *cs_malloc;
	__typeof__(cs_free) *cs_free;
	__typeof__(cs_disasm_iter) *cs_disasm_iter;
	__typeof__(cs_regs_access) *cs_regs_access;
} rt_capstone;
static pthread_once_t capstone_once = PTHREAD_ONCE_INIT;

static void load_capstone(void)
{
	void *h = rt_dlopen_own(CAPSTONE_SONAME, RTLD_NOW);

#define FIND(name) rt_capstone.name = (__typeof__(rt_capstone.name)) \
		(h ? rt_optional_symbol(h, #name) : NULL)
	FIND(cs_option);
	FIND(cs_open);
	FIND(cs_close);
	FIND(cs_malloc);
	FIND(cs_free);
	FIND(cs_disasm_iter);
	FIND(cs_regs_access);
#undef FIND
	if (rt_capstone.cs_option && rt_capstone.cs_open && rt_capstone.cs_close &&
	    rt_capstone.cs_malloc && rt_capstone.cs_free &&
	    rt_capstone.cs_disasm_iter && rt_capstone.cs_regs_access)
		return;
	rt_capstone.cs_open = NULL;	/* rt_memop_new's sign: no Capstone */
	rt_note("warning: --data: no " CAPSTONE_SONAME " to decode instructions "
		"with: samples' data addresses are not known");
}

void rt_memop_load(void)
{
	pthread_once(&capstone_once, load_capstone);
}

#define PREV_CACHE 256
/* Capstone 4.0 allocates 20,096 bytes (16-byte pieces) for a handle: the
 * handle, register info, an instruction with its detail and the 17,712
 * bytes of the instruction-id cache (invariant 6). */
#define CSMEM_BYTES (24 << 10)

struct rt_memop {
	csh cs;
	cs_insn *insn;
	uintptr_t fsbase;
	struct {
		uintptr_t pc, prev;	/* prev 0: none found */
		unsigned gen;
	} cache[PREV_CACHE];
	size_t csmem_used;
	char csmem[CSMEM_BYTES] __attribute__((aligned(16)));
};

/* Capstone's allocator: malloc's, but while this thread decodes in the
 * handler, pieces of a static buffer never given back (invariant 1), and
 * while it makes or frees its decoder, pieces of the decoder's csmem
 * (invariant 6). */
static __thread int decoding __attribute__((tls_model("initial-exec")));
static __thread struct rt_memop *making __attribute__((tls_model("initial-exec")));
static char spare[1 << 16] __attribute__((aligned(16)));
static size_t spare_used;

static void *spare_alloc(size_t n)
{
	size_t b = (n + 15) & ~(size_t)15,
	       at = __atomic_fetch_add(&spare_used, b, __ATOMIC_RELAXED);

	return at + b <= sizeof(spare) ? spare + at : NULL;
}

static int in_spare(const void *p)
{
	return (const char *)p >= spare && (const char *)p < spare + sizeof(spare);
}

/* n bytes of the csmem of the decoder being made (zero: a fresh mapping
 * never handed out twice), or NULL when there is none or no room. */
static void *csmem_alloc(size_t n)
{
	struct rt_memop *m = making;
	size_t b = (n + 15) & ~(size_t)15;

	if (!m || b < n || sizeof(m->csmem) - m->csmem_used < b)
		return NULL;
	m->csmem_used += b;
	return m->csmem + m->csmem_used - b;
}

static int in_csmem(const void *p)
{
	const struct rt_memop *m = making;

	return m && (const char *)p >= m->csmem &&
	       (const char *)p < m->csmem + sizeof(m->csmem);
}

static void *cs_alloc(size_t n)
{
	void *p;

	if (decoding)
		return spare_alloc(n);
	return (p = csmem_alloc(n)) ? p : malloc(n);
}

static void *cs_zalloc(size_t k, size_t n)
{
	void *p;

	if (decoding)
		return spare_alloc(k * n);
	return (p = csmem_alloc(k * n)) ? p : calloc(k, n);	/* zero */
}

static void *cs_resize(void *p, size_t n)
{
	return decoding || in_spare(p) || in_csmem(p) ? NULL : realloc(p, n);
}

static void cs_release(void *p)
{
	if (!in_spare(p) && !in_csmem(p))
		free(p);
}

/* Decodes once what the handler will: Capstone's lazy tables made now. */
static void warm_up(struct rt_memop *m)
{
	static const uint8_t code[] = {
		0x48, 0x8b, 0x10,			/* mov (%rax),%rdx */
		0x48, 0x01, 0x5c, 0x24, 0x08,		/* add %rbx,8(%rsp) */
		0xf3, 0x0f, 0x6f, 0x04, 0xc7,		/* movdqu (%rdi,%rax,8),%xmm0 */
		0x64, 0x48, 0x8b, 0x04, 0x25, 0, 0, 0, 0,	/* mov %fs:0,%rax */
		0xf3, 0xa4,				/* rep movsb */
		0x48, 0x8d, 0x04, 0x40,			/* lea (%rax,%rax,2),%rax */
		0xc3,					/* ret */
	};
	const uint8_t *p = code;
	size_t len = sizeof(code);
	uint64_t at = 0x1000;
	cs_regs rd, wr;
	uint8_t nrd, nwr;

	while (rt_capstone.cs_disasm_iter(m->cs, &p, &len, &at, m->insn))
		rt_capstone.cs_regs_access(m->cs, m->insn, rd, &nrd, wr, &nwr);
}

struct rt_memop *rt_memop_new(int *nomem)
{
	static const cs_opt_mem mem = {
		cs_alloc, cs_zalloc, cs_resize, cs_release, vsnprintf,
	};
	struct rt_memop *m;
	unsigned long fs = 0;
	cs_err err;

	*nomem = 0;
	rt_memop_load();
	if (!rt_capstone.cs_open)
		return NULL;
	rt_capstone.cs_option(0, CS_OPT_MEM, (size_t)&mem);
	m = mmap(NULL, sizeof(*m), PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (m == MAP_FAILED) {
		*nomem = 1;
		return NULL;
	}
	making = m;
	err = rt_capstone.cs_open(CS_ARCH_X86, CS_MODE_64, &m->cs);
	if (err == CS_ERR_OK) {
		rt_capstone.cs_option(m->cs, CS_OPT_DETAIL, CS_OPT_ON);
		if (!(m->insn = rt_capstone.cs_malloc(m->cs))) {
			rt_capstone.cs_close(&m->cs);
			err = CS_ERR_MEM;
		}
	}
	if (err != CS_ERR_OK) {
		making = NULL;
		munmap(m, sizeof(*m));
		*nomem = err == CS_ERR_MEM;
		return NULL;
	}
	if (!syscall(SYS_arch_prctl, ARCH_GET_FS, &fs))
		m->fsbase = (uintptr_t)fs;
	warm_up(m);
	making = NULL;
	return m;
}

void rt_memop_free(struct rt_memop *m)
{
	if (!m)
		return;
	making = m;
	rt_capstone.cs_free(m->insn, 1);
	rt_capstone.cs_close(&m->cs);
	making = NULL;
	munmap(m, sizeof(*m));
}

/* The general registers in DWARF order, each with its 32-, 16- and 8-bit
 * parts (for the writes that clobber an address register). */
static const x86_reg gpr[17][5] = {
	{ X86_REG_RAX, X86_REG_EAX, X86_REG_AX, X86_REG_AL, X86_REG_AH },
	{ X86_REG_RDX, X86_REG_EDX, X86_REG_DX, X86_REG_DL, X86_REG_DH },
	{ X86_REG_RCX, X86_REG_ECX, X86_REG_CX, X86_REG_CL, X86_REG_CH },
	{ X86_REG_RBX, X86_REG_EBX, X86_REG_BX, X86_REG_BL, X86_REG_BH },
	{ X86_REG_RSI, X86_REG_ESI, X86_REG_SI, X86_REG_SIL, X86_REG_SIL },
	{ X86_REG_RDI, X86_REG_EDI, X86_REG_DI, X86_REG_DIL, X86_REG_DIL },
	{ X86_REG_RBP, X86_REG_EBP, X86_REG_BP, X86_REG_BPL, X86_REG_BPL },
	{ X86_REG_RSP, X86_REG_ESP, X86_REG_SP, X86_REG_SPL, X86_REG_SPL },
	{ X86_REG_R8, X86_REG_R8D, X86_REG_R8W, X86_REG_R8B, X86_REG_R8B },
	{ X86_REG_R9, X86_REG_R9D, X86_REG_R9W, X86_REG_R9B, X86_REG_R9B },
	{ X86_REG_R10, X86_REG_R10D, X86_REG_R10W, X86_REG_R10B, X86_REG_R10B },
	{ X86_REG_R11, X86_REG_R11D, X86_REG_R11W, X86_REG_R11B, X86_REG_R11B },
	{ X86_REG_R12, X86_REG_R12D, X86_REG_R12W, X86_REG_R12B, X86_REG_R12B },
	{ X86_REG_R13, X86_REG_R13D, X86_REG_R13W, X86_REG_R13B, X86_REG_R13B },
	{ X86_REG_R14, X86_REG_R14D, X86_REG_R14W, X86_REG_R14B, X86_REG_R14B },
	{ X86_REG_R15, X86_REG_R15D, X86_REG_R15W, X86_REG_R15B, X86_REG_R15B },
	{ X86_REG_RIP, X86_REG_EIP, X86_REG_IP, X86_REG_RIP, X86_REG_RIP },
};

/* DWARF number of a general register (any width when any), or -1. */
static int dwarf_reg(x86_reg r, int any)
{
	int i, k;

	for (i = 0; i < 17; i++)
		for (k = 0; k < (any ? 5 : 1); k++)
			if (gpr[i][k] == r)
				return i;
	return -1;
}

/* Does the decoded instruction write general register dw (DWARF)? */
static int writes(struct rt_memop *m, int dw)
{
	cs_regs rd, wr;
	uint8_t nrd, nwr, i;

	if (rt_capstone.cs_regs_access(m->cs, m->insn, rd, &nrd, wr, &nwr) != CS_ERR_OK)
		return 1;
	for (i = 0; i < nwr; i++)
		if (dwarf_reg(wr[i], 1) == dw)
			return 1;
	return 0;
}

/* The start of the instruction of mod that ends at pc, or 0 (invariant 3). */
static uintptr_t prev_insn(struct rt_memop *m, const struct rt_module *mod,
			   uintptr_t pc)
{
	static const unsigned back[] = { 40, 32, 24, 16 };
	unsigned slot = (unsigned)((pc >> 1) ^ (pc >> 9)) % PREV_CACHE, i;

	if (m->cache[slot].pc == pc && m->cache[slot].gen == rt_loadmap_gen)
		return m->cache[slot].prev;
	m->cache[slot].pc = pc;
	m->cache[slot].gen = rt_loadmap_gen;
	m->cache[slot].prev = 0;
	for (i = 0; i < sizeof(back) / sizeof(back[0]); i++) {
		const uint8_t *code = (const uint8_t *)(pc - back[i]);
		uint64_t at = pc - back[i], last = 0;
		size_t len = back[i];

		if (pc - mod->xlo < back[i])
			continue;
		while (at < pc) {
			uint64_t here = at;

			if (!rt_capstone.cs_disasm_iter(m->cs, &code, &len, &at, m->insn))
				break;
			last = here;
		}
		if (at == pc && last) {
			m->cache[slot].prev = (uintptr_t)last;
			break;
		}
	}
	return m->cache[slot].prev;
}

/* 'r', 'w' or 'u' (read and written) for a memory operand with
 * Capstone's access bits; one Capstone leaves unmarked counts as read. */
static int access_kind(uint8_t access)
{
	if ((access & CS_AC_READ) && (access & CS_AC_WRITE))
		return 'u';
	return access & CS_AC_WRITE ? 'w' : 'r';
}

static int touches_no_memory(unsigned id)
{
	return id == X86_INS_LEA || id == X86_INS_NOP || id == X86_INS_PUSH ||
	       id == X86_INS_POP || id == X86_INS_CALL || id == X86_INS_RET;
}

/* The memory operand of the instruction of mod at pc, with the registers
 * regs; after: regs are those after it ran (invariant 3). */
static enum memop operand(struct rt_memop *m, const struct rt_module *mod,
			  uintptr_t pc, const uintptr_t *regs, int after,
			  uintptr_t *addr, unsigned *size, int *rw)
{
	const uint8_t *code = (const uint8_t *)pc;
	uint64_t at = pc;
	size_t len = mod->xhi - pc < 16 ? mod->xhi - pc : 16;
	const cs_x86 *x;
	uintptr_t ea;
	int i, r;

	if (!rt_capstone.cs_disasm_iter(m->cs, &code, &len, &at, m->insn))
		return MEMOP_NOADDR;
	if (touches_no_memory(m->insn->id))
		return MEMOP_NONE;
	x = &m->insn->detail->x86;
	for (i = 0; i < x->op_count; i++) {
		const x86_op_mem *mem = &x->operands[i].mem;

		if (x->operands[i].type != X86_OP_MEM)
			continue;
		*size = x->operands[i].size ? x->operands[i].size : 1;
		*rw = access_kind(x->operands[i].access);
		ea = (uintptr_t)mem->disp;
		if (mem->base == X86_REG_RIP) {
			ea += pc + m->insn->size;
		} else if (mem->base != X86_REG_INVALID) {
			if ((r = dwarf_reg(mem->base, 0)) < 0 ||
			    (after && writes(m, r)))
				return MEMOP_NOADDR;
			ea += regs[r];
		}
		if (mem->index != X86_REG_INVALID) {
			if ((r = dwarf_reg(mem->index, 0)) < 0 ||
			    (after && writes(m, r)))
				return MEMOP_NOADDR;	/* gather: a vector index */
			ea += regs[r] * (uintptr_t)mem->scale;
		}
		if (mem->segment == X86_REG_FS)
			ea += m->fsbase;
		else if (mem->segment == X86_REG_GS)
			return MEMOP_NOADDR;
		*addr = ea;
		return MEMOP_ADDR;
	}
	return MEMOP_NONE;
}

static enum memop decode(struct rt_memop *m, const uintptr_t *regs,
			 uint64_t time, int retired, uintptr_t *addr,
			 unsigned *size, int *rw)
{
	uintptr_t pc = regs[16], prev;
	const struct rt_module *mod = rt_module_at(pc, time);
	enum memop r;

	if (!m || !mod || !__atomic_load_n(&mod->live, __ATOMIC_ACQUIRE) ||
	    pc < mod->xlo || pc >= mod->xhi)
		return MEMOP_NOADDR;
	if (retired && (prev = prev_insn(m, mod, pc)) &&
	    (r = operand(m, mod, prev, regs, 1, addr, size, rw)) != MEMOP_NONE)
		return r;
	return operand(m, mod, pc, regs, 0, addr, size, rw);
}

enum memop rt_memop_decode(struct rt_memop *m, const uintptr_t *regs,
			   uint64_t time, int retired, uintptr_t *addr,
			   unsigned *size, int *rw)
{
	enum memop r;
	int k = 'r';

	decoding = 1;
	r = decode(m, regs, time, retired, addr, size, &k);
	if (rw)
		*rw = k;
	decoding = 0;
	return r;
}
