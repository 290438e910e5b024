/*
 * unwind.c - async-signal-safe call-path unwinder for x86-64 from .eh_frame.
 *
 * Runs inside the sampling signal handler (see the rules in sample.c): no
 * allocation, no locks, no dl_iterate_phdr.  Modules and the address of
 * their .eh_frame_hdr come from the load-map snapshot (loadmap.c); the
 * binary-search table of .eh_frame_hdr finds the FDE, and a small CFA
 * interpreter (CIE + FDE programs, the DWARF expressions that PLT stubs
 * use) recovers the caller's registers.
 *
 * Safety invariants:
 *  1. Stack memory is read only inside [interrupted sp, top of the
 *     thread's stack or of the alternate signal stack); code and unwind
 *     tables only inside a live module.  A sample from a ring buffer
 *     (rt_unwind_copy) reads its copy of the stack instead, and the live
 *     stack above it only as sample.c's live_top() or leave_copy() here
 *     allow.  Should a read fault all the same, the fatal-signal handler
 *     (signals.c) jumps back to sample.c, which counts the sample as a
 *     partial path.  The one code read outside a module is a copy of
 *     CPython's perf trampoline (6).
 *  2. Every step must move the CFA up the stack (except through a signal
 *     frame), so corrupt tables cannot loop; depth is bounded by max.
 *  3. A caller's pc must lie in an executable segment of a module, but
 *     for the return address of a trampoline copy's call (6).
 *  4. No frame whose pc is in libhpcrun.so is stored: the walk goes
 *     through hpcrun's wrappers (malloc, GOMP_parallel, region_body, the
 *     barrier wrappers) and its own work, and the path reads as the
 *     program's calls alone (malloc [libc] below the program's caller).
 *     Every path producer unwinds here, so none has hpcrun's frames:
 *     samples, ring-buffer copies, allocation sites, sync sites.  Whether
 *     a sample's own pc was hpcrun's is its caller's question (sample.c).
 *  5. A path whose innermost frames are a library's (libc, ld.so, the
 *     vDSO, the kernel), called from frames of libhpcrun.so of which one
 *     made a call by name (through its PLT), ends RT_UNWIND_OWN_WORK:
 *     hpcrun called the library for its own work (a clock, a lock,
 *     getcontext, mmap -- through its own mmap wrapper too), and the path
 *     would otherwise read as the program's call of it.  A wrapper
 *     forwards the program's call through a pointer (interpose.h,
 *     RT_REAL) and reaches its helpers, hidden, by direct calls that
 *     are not by name: the path keeps the program's malloc, lock or
 *     wait.  Only the first frames of libhpcrun.so from the leaf decide;
 *     a path through hpcrun's handler stays RT_UNWIND_IN_HANDLER.
 *  6. Under CPython's perf trampolines (python -X perf, 3.12 on), each
 *     C call of the eval function goes through a copy of a template of
 *     libpython's (python-find.h: py->tramp), one per code object, in
 *     anonymous memory: no module.  So a return address of a frame of
 *     the eval function that lies in no module is looked at: when the
 *     bytes around it are the template's, it at the template's call's
 *     return, the copy's frame is stepped through by the rules
 *     rt_tramp_parse took from the template, and not recorded: it is no
 *     procedure of the program's, and the Python frames (python-frames.c)
 *     interleave as without -X perf.  The copy is read only there, at an
 *     address the eval function is to return to, so mapped; CPython
 *     unmaps its copies only in sys.deactivate_stack_trampoline(), and a
 *     read that faults then is invariant 1's partial path.
 *
 * A per-thread direct-mapped cache maps a lookup address to the rules
 * found for it (struct uw_entry: a cache line), so repeated frames (loops
 * calling the same functions, recursion) skip the table search and the
 * CFA programs.  An entry holds the rules of a whole row of the FDE's
 * table (the addresses between two advances of its CFA program share
 * them), so a lookup anywhere in the row may use it.  The leaves, whose
 * pcs seldom repeat (an interpreter's eval loop), have a second table
 * indexed by the pc's block of 2^LEAF_SHIFT bytes, not by the pc: a
 * leaf in a row seen before, however large (the body of CPython's
 * _PyEval_EvalFrameDefault is one row of 13 to 31 KiB), skips the
 * table search and the CFA program too, and a return address missing
 * from its own table is looked for there.  Both are flushed when the
 * load map changes (rt_loadmap_gen).
 * A frame whose rules an entry cannot hold (more than UW_LIVE registers
 * restored: hand-written code only) is unwound by frame pointer.
 *
 * Fallbacks, in order, when a pc has no FDE: the return address at [sp]
 * (leaf frames only: code without CFI, at its entry), then the frame
 * pointer chain.  Signal frames (__restore_rt: mov $15,%rax; syscall) are
 * crossed through the ucontext on the stack.  Unwinding stops at the stop
 * functions of process-interpose.c (our wrappers of main and of thread start) or
 * where the return address is undefined (the stack bottom).
 *
 * The path of a thread blocked in the kernel (rt_unwind_blocked, for the
 * hang detector) starts from its sp and pc alone, on a copy of its stack:
 * rbp is not known until a frame's CFI restores it, so the first frame
 * whose CFA is rbp's (code built with frame pointers, -O0) finds its base
 * on the stack (find_rbp).
 */
#include <stddef.h>
#include <string.h>
#include <ucontext.h>

#include "loadmap.h"
#include "python-find.h"
#include "runtime.h"
#include "unwind.h"

#define NREGS RT_UNWIND_REGS
#define REG_RBP_DW 6
#define REG_RSP_DW 7
#define REG_RA_DW 16

enum rule { R_SAME, R_UNDEF, R_OFFSET, R_VAL_OFFSET, R_REGISTER, R_EXPR, R_VAL_EXPR };

struct reg_rule {
	enum rule how;
	int64_t off;			/* offset, or register number */
	const unsigned char *expr;	/* for R_EXPR / R_VAL_EXPR */
};

#define CFA_NEST 3		/* remember_state levels run_cfa keeps */

struct cfa_state {
	int cfa_reg;
	int64_t cfa_off;
	const unsigned char *cfa_expr;	/* non-NULL: CFA is an expression */
	struct reg_rule reg[NREGS];
};

#define CACHE_SIZE 1024		/* a power of 2 */
#define LEAF_SLOTS 512		/* the leaves' table: a power of 2 */
#define LEAF_SHIFT 8		/* ... indexed by the pc's 256-byte block */
#define UW_LIVE 9		/* rules an entry holds: 64 bytes in all */

/* An entry's flags. */
#define UW_STOP 1		/* the FDE's function is a stop function */
#define UW_RBP 2		/* rbp has a rule: it is known after the step */
#define UW_CFA_EXPR 4		/* the CFA is the expression at m->lo + cfa */

/*
 * The rules at one lookup address, compact: the CFA's, then those of the
 * registers the step changes, in register order (the return address's
 * last), each rule's kind in the top 3 bits of reg[] above the register,
 * its offset, register, or expression (as an offset from the module's
 * lo) in off[].  One cache line, where a struct cfa_state takes seven:
 * the handler runs about once a millisecond, after the program has
 * evicted most of what it read the time before, so a step costs about
 * the lines it reads; and CACHE_SIZE entries, 64 KiB a thread, leave
 * fewer of a path's entries to be evicted by the leaves of other samples
 * (a leaf's pc, in an interpreter, is seldom the same twice).
 */
struct uw_entry {
	uintptr_t look;			/* the row's first address; 0 = empty */
	int32_t cfa;			/* offset from cfa_reg, or UW_CFA_EXPR's */
	uint32_t len;			/* the row: [look, look + len) */
	uint8_t cfa_reg, flags, nlive;
	uint8_t reg[UW_LIVE];
	int32_t off[UW_LIVE];
};

_Static_assert(sizeof(struct uw_entry) == 64, "an entry is a cache line");

/* The entries start at the first 64-byte boundary of raw (uw_entries):
 * the cache is placed after struct rt_thread, at no particular one, and
 * an entry across two lines would cost the step a second miss.  The
 * first CACHE_SIZE are the return addresses', the LEAF_SLOTS after them
 * the leaves'. */
struct uw_cache {
	unsigned gen;
	unsigned char raw[(CACHE_SIZE + LEAF_SLOTS + 1) * sizeof(struct uw_entry)];
};

static struct uw_entry *uw_entries(struct uw_cache *uc)
{
	return (struct uw_entry *)(void *)(((uintptr_t)uc->raw + 63) &
					   ~(uintptr_t)63);
}

size_t rt_unwind_cache_size(void)
{
	return sizeof(struct uw_cache);
}

struct frame {
	uintptr_t r[NREGS];		/* DWARF numbering; r[16] = pc */
	uintptr_t lo, hi;		/* readable stack */
	/* A sample from the kernel's ring buffer (NULL: the live stack),
	 * whose copy of [copy_lo, copy_hi) of the stack is read instead of
	 * the stack itself; the range is empty once the walk has left it. */
	const struct rt_copy *sample;
	uintptr_t copy_lo, copy_hi;
	int rbp_unknown;		/* a blocked thread's walk until a
					 * frame restores rbp (find_rbp) */
	int own_call;			/* the path's innermost frames are a
					 * library hpcrun called (invariant 5) */
	uintptr_t *sps;			/* each recorded frame's sp, or NULL */
};

struct cie {
	uint64_t code_align;
	int64_t data_align;
	int ra_reg;
	uint8_t fde_enc;
	int signal_frame;
	int has_z;
	const unsigned char *insns, *end;
};

static int readable(const struct frame *f, uintptr_t a)
{
	return a >= f->lo && a + 8 <= f->hi && !(a & 7);
}

/* The stack word at a, which readable() accepted. */
static uintptr_t stack_word(const struct frame *f, uintptr_t a)
{
	uintptr_t v;

	if (a >= f->copy_lo && a < f->copy_hi) {
		memcpy(&v, f->sample->stack + (a - f->copy_lo), sizeof(v));
		return v;
	}
	return *(const uintptr_t *)a;
}

static uint64_t uleb(const unsigned char **pp, const unsigned char *end)
{
	const unsigned char *p = *pp;
	uint64_t v = 0;
	int shift = 0;

	while (p < end) {
		unsigned char b = *p++;

		if (shift < 64)
			v |= (uint64_t)(b & 0x7f) << shift;
		shift += 7;
		if (!(b & 0x80))
			break;
	}
	*pp = p;
	return v;
}

static int64_t sleb(const unsigned char **pp, const unsigned char *end)
{
	const unsigned char *p = *pp;
	int64_t v = 0;
	int shift = 0;
	unsigned char b = 0;

	while (p < end) {
		b = *p++;
		if (shift < 64)
			v |= (int64_t)((uint64_t)(b & 0x7f) << shift);
		shift += 7;
		if (!(b & 0x80))
			break;
	}
	if (shift < 64 && (b & 0x40))
		v |= -((int64_t)1 << shift);
	*pp = p;
	return v;
}

/* Reads a pointer encoded with enc (DW_EH_PE_*) at *pp; 0 on failure. */
static int read_enc(const unsigned char **pp, uint8_t enc, uintptr_t datarel,
		    uintptr_t *out)
{
	const unsigned char *p = *pp;
	uintptr_t base = 0, v;

	if (enc == 0xff)
		return -1;
	switch (enc & 0x70) {
	case 0x00: break;
	case 0x10: base = (uintptr_t)p; break;		/* pcrel */
	case 0x30: base = datarel; break;		/* datarel */
	default: return -1;
	}
	switch (enc & 0x0f) {
	case 0x00: { uint64_t x; memcpy(&x, p, 8); v = x; p += 8; break; }
	case 0x01: v = uleb(&p, p + 10); break;
	case 0x02: { uint16_t x; memcpy(&x, p, 2); v = x; p += 2; break; }
	case 0x03: { uint32_t x; memcpy(&x, p, 4); v = x; p += 4; break; }
	case 0x04: { uint64_t x; memcpy(&x, p, 8); v = x; p += 8; break; }
	case 0x09: v = (uintptr_t)sleb(&p, p + 10); break;
	case 0x0a: { int16_t x; memcpy(&x, p, 2); v = (uintptr_t)(intptr_t)x; p += 2; break; }
	case 0x0b: { int32_t x; memcpy(&x, p, 4); v = (uintptr_t)(intptr_t)x; p += 4; break; }
	case 0x0c: { int64_t x; memcpy(&x, p, 8); v = (uintptr_t)x; p += 8; break; }
	default: return -1;
	}
	*out = base + v;
	*pp = p;
	return 0;
}

/* Size in bytes of a value encoded with enc, for the hdr table (fixed). */
static int enc_size(uint8_t enc)
{
	switch (enc & 0x0f) {
	case 0x02: case 0x0a: return 2;
	case 0x03: case 0x0b: return 4;
	case 0x00: case 0x04: case 0x0c: return 8;
	default: return 0;
	}
}

/* Finds the FDE covering pc through .eh_frame_hdr; its address or NULL. */
static const unsigned char *find_fde(const struct rt_module *m, uintptr_t pc)
{
	const unsigned char *h = m->eh_hdr, *p;
	uintptr_t ehframe, count, lo_i, hi_i;
	uint8_t ptr_enc, cnt_enc, tab_enc;
	int esz;

	if (!h || h[0] != 1)
		return NULL;
	ptr_enc = h[1];
	cnt_enc = h[2];
	tab_enc = h[3];
	p = h + 4;
	if (read_enc(&p, ptr_enc, (uintptr_t)h, &ehframe) ||
	    read_enc(&p, cnt_enc, (uintptr_t)h, &count))
		return NULL;
	esz = enc_size(tab_enc);
	if (!esz || (tab_enc & 0x70) != 0x30 || count == 0)
		return NULL;
	lo_i = 0;
	hi_i = count;
	/* Largest entry with initial location <= pc. */
	while (hi_i - lo_i > 1) {
		uintptr_t mid = lo_i + (hi_i - lo_i) / 2, loc;
		const unsigned char *e = p + mid * 2 * (uintptr_t)esz;

		if (read_enc(&e, tab_enc, (uintptr_t)h, &loc))
			return NULL;
		if (loc <= pc)
			lo_i = mid;
		else
			hi_i = mid;
	}
	{
		const unsigned char *e = p + lo_i * 2 * (uintptr_t)esz;
		uintptr_t loc, fde;

		if (read_enc(&e, tab_enc, (uintptr_t)h, &loc) || loc > pc ||
		    read_enc(&e, tab_enc, (uintptr_t)h, &fde))
			return NULL;
		return (const unsigned char *)fde;
	}
}

static int parse_cie(const unsigned char *c, struct cie *cie)
{
	uint32_t len;
	const unsigned char *p, *end, *aug, *aug_end = NULL;

	memcpy(&len, c, 4);
	if (len == 0 || len == 0xffffffffu)
		return -1;
	end = c + 4 + len;
	p = c + 8;			/* skip length and CIE id */
	if (*p != 1 && *p != 3)
		return -1;
	p++;
	aug = p;
	while (p < end && *p)
		p++;
	p++;
	memset(cie, 0, sizeof(*cie));
	cie->fde_enc = 0;
	cie->code_align = uleb(&p, end);
	cie->data_align = sleb(&p, end);
	cie->ra_reg = c[8] == 1 ? *p++ : (int)uleb(&p, end);
	for (; *aug && p < end; aug++) {
		switch (*aug) {
		case 'z':
			cie->has_z = 1;
			{
				uint64_t n = uleb(&p, end);

				aug_end = p + n;
			}
			break;
		case 'R': cie->fde_enc = *p++; break;
		case 'L': p++; break;
		case 'P': {
			uint8_t enc = *p++;
			uintptr_t dummy;

			if (read_enc(&p, enc & 0x7f, 0, &dummy))
				return -1;
			break;
		}
		case 'S': cie->signal_frame = 1; break;
		case 'B': break;
		default: return -1;
		}
	}
	if (aug_end)
		p = aug_end;
	cie->insns = p;
	cie->end = end;
	return cie->ra_reg == REG_RA_DW ? 0 : -1;
}

/*
 * Runs CFA instructions [p, end) until the location passes pc.  init holds
 * the rules after the CIE program (for DW_CFA_restore).  row, when not
 * NULL, gets the row holding pc: from the last location the program
 * reached at or below pc to the one past it (UINTPTR_MAX when the
 * program ended first), the addresses whose rules are pc's.
 */
static int run_cfa(const unsigned char *p, const unsigned char *end,
		   const struct cie *cie, uintptr_t loc, uintptr_t pc,
		   struct cfa_state *st, const struct cfa_state *init,
		   uintptr_t row[2])
{
	/* remember_state nests once at most in libc, libstdc++, libpython
	 * and cc1; each level is 432 bytes of the handler's stack, which is
	 * the program's (a thread's of 64 KiB may have little left) */
	struct cfa_state stack[CFA_NEST];
	uintptr_t row_lo = loc;
	int depth = 0;

	while (p < end && loc <= pc) {
		unsigned char op = *p++, hi = op & 0xc0, lo6 = op & 0x3f;
		uint64_t r;
		int64_t off;

		row_lo = loc;
		if (hi == 0x40) {			/* advance_loc */
			loc += lo6 * cie->code_align;
			continue;
		}
		if (hi == 0x80) {			/* offset */
			off = (int64_t)uleb(&p, end) * cie->data_align;
			if (lo6 < NREGS) {
				st->reg[lo6].how = R_OFFSET;
				st->reg[lo6].off = off;
			}
			continue;
		}
		if (hi == 0xc0) {			/* restore */
			if (lo6 < NREGS && init)
				st->reg[lo6] = init->reg[lo6];
			continue;
		}
		switch (op) {
		case 0x00: break;			/* nop */
		case 0x01: {				/* set_loc */
			uintptr_t a;

			if (read_enc(&p, cie->fde_enc, 0, &a))
				return -1;
			loc = a;
			break;
		}
		case 0x02: loc += *p++ * cie->code_align; break;
		case 0x03: { uint16_t d; memcpy(&d, p, 2); p += 2; loc += d * cie->code_align; break; }
		case 0x04: { uint32_t d; memcpy(&d, p, 4); p += 4; loc += d * cie->code_align; break; }
		case 0x05:				/* offset_extended */
			r = uleb(&p, end);
			off = (int64_t)uleb(&p, end) * cie->data_align;
			if (r < NREGS) {
				st->reg[r].how = R_OFFSET;
				st->reg[r].off = off;
			}
			break;
		case 0x06:				/* restore_extended */
			r = uleb(&p, end);
			if (r < NREGS && init)
				st->reg[r] = init->reg[r];
			break;
		case 0x07:				/* undefined */
			r = uleb(&p, end);
			if (r < NREGS)
				st->reg[r].how = R_UNDEF;
			break;
		case 0x08:				/* same_value */
			r = uleb(&p, end);
			if (r < NREGS)
				st->reg[r].how = R_SAME;
			break;
		case 0x09: {				/* register */
			uint64_t r2;

			r = uleb(&p, end);
			r2 = uleb(&p, end);
			if (r < NREGS) {
				st->reg[r].how = R_REGISTER;
				st->reg[r].off = (int64_t)r2;
			}
			break;
		}
		case 0x0a:				/* remember_state */
			if (depth == CFA_NEST)
				return -1;
			stack[depth++] = *st;
			break;
		case 0x0b:				/* restore_state */
			if (depth == 0)
				return -1;
			*st = stack[--depth];
			break;
		case 0x0c:				/* def_cfa */
			st->cfa_reg = (int)uleb(&p, end);
			st->cfa_off = (int64_t)uleb(&p, end);
			st->cfa_expr = NULL;
			break;
		case 0x0d:				/* def_cfa_register */
			st->cfa_reg = (int)uleb(&p, end);
			st->cfa_expr = NULL;
			break;
		case 0x0e:				/* def_cfa_offset */
			st->cfa_off = (int64_t)uleb(&p, end);
			break;
		case 0x0f:				/* def_cfa_expression */
			st->cfa_expr = p;
			p += uleb(&p, end);
			break;
		case 0x10:				/* expression */
		case 0x16:				/* val_expression */
			r = uleb(&p, end);
			if (r < NREGS) {
				st->reg[r].how = op == 0x10 ? R_EXPR : R_VAL_EXPR;
				st->reg[r].expr = p;
			}
			p += uleb(&p, end);
			break;
		case 0x11:				/* offset_extended_sf */
			r = uleb(&p, end);
			off = sleb(&p, end) * cie->data_align;
			if (r < NREGS) {
				st->reg[r].how = R_OFFSET;
				st->reg[r].off = off;
			}
			break;
		case 0x12:				/* def_cfa_sf */
			st->cfa_reg = (int)uleb(&p, end);
			st->cfa_off = sleb(&p, end) * cie->data_align;
			st->cfa_expr = NULL;
			break;
		case 0x13:				/* def_cfa_offset_sf */
			st->cfa_off = sleb(&p, end) * cie->data_align;
			break;
		case 0x14:				/* val_offset */
			r = uleb(&p, end);
			off = (int64_t)uleb(&p, end) * cie->data_align;
			if (r < NREGS) {
				st->reg[r].how = R_VAL_OFFSET;
				st->reg[r].off = off;
			}
			break;
		case 0x15:				/* val_offset_sf */
			r = uleb(&p, end);
			off = sleb(&p, end) * cie->data_align;
			if (r < NREGS) {
				st->reg[r].how = R_VAL_OFFSET;
				st->reg[r].off = off;
			}
			break;
		case 0x2e:				/* GNU_args_size */
			uleb(&p, end);
			break;
		case 0x2f:				/* GNU_negative_offset_extended */
			r = uleb(&p, end);
			off = -(int64_t)uleb(&p, end) * cie->data_align;
			if (r < NREGS) {
				st->reg[r].how = R_OFFSET;
				st->reg[r].off = off;
			}
			break;
		default:
			return -1;
		}
	}
	if (row) {
		row[0] = row_lo;
		row[1] = loc > pc ? loc : UINTPTR_MAX;
	}
	return 0;
}

/*
 * Evaluates the DWARF expressions found in CFI in practice (PLT stubs,
 * realigned stacks): bregN, literals, constants, arithmetic, deref of
 * stack memory.  push_first: the CFA for register rules.
 */
static int eval_expr(const unsigned char *p, const struct frame *f,
		     int push_first, uintptr_t first, uintptr_t *out)
{
	uintptr_t st[16];
	int n = 0;
	const unsigned char *end;
	uint64_t len = uleb(&p, p + 10);

	end = p + len;
	if (push_first)
		st[n++] = first;
	while (p < end) {
		unsigned char op = *p++;

		if (n >= 15)
			return -1;
		if (op >= 0x30 && op <= 0x4f) {		/* lit0..31 */
			st[n++] = op - 0x30u;
		} else if (op >= 0x70 && op <= 0x80) {	/* breg0..16 */
			st[n++] = f->r[op - 0x70] + (uintptr_t)sleb(&p, end);
		} else {
			switch (op) {
			case 0x08: st[n++] = *p++; break;		/* const1u */
			case 0x09: st[n++] = (uintptr_t)(intptr_t)(int8_t)*p++; break;
			case 0x0a: { uint16_t v; memcpy(&v, p, 2); p += 2; st[n++] = v; break; }
			case 0x0c: { uint32_t v; memcpy(&v, p, 4); p += 4; st[n++] = v; break; }
			case 0x10: st[n++] = uleb(&p, end); break;	/* constu */
			case 0x11: st[n++] = (uintptr_t)sleb(&p, end); break;
			case 0x06:				/* deref */
				if (n < 1 || !readable(f, st[n - 1]))
					return -1;
				st[n - 1] = stack_word(f, st[n - 1]);
				break;
			case 0x23:				/* plus_uconst */
				if (n < 1)
					return -1;
				st[n - 1] += uleb(&p, end);
				break;
			case 0x1a: case 0x1c: case 0x22: case 0x24: case 0x21:
			case 0x27: case 0x25: case 0x2a: case 0x2b: case 0x2c:
			case 0x2d: case 0x29: case 0x2e: {
				uintptr_t b, a;

				if (n < 2)
					return -1;
				b = st[--n];
				a = st[n - 1];
				switch (op) {
				case 0x1a: a &= b; break;
				case 0x1c: a -= b; break;
				case 0x22: a += b; break;
				case 0x24: a <<= (b & 63); break;
				case 0x21: a |= b; break;
				case 0x27: a ^= b; break;
				case 0x25: a >>= (b & 63); break;
				case 0x2a: a = (intptr_t)a >= (intptr_t)b; break;
				case 0x2b: a = (intptr_t)a > (intptr_t)b; break;
				case 0x2c: a = (intptr_t)a <= (intptr_t)b; break;
				case 0x2d: a = (intptr_t)a < (intptr_t)b; break;
				case 0x29: a = a == b; break;
				case 0x2e: a = a != b; break;
				}
				st[n - 1] = a;
				break;
			}
			default:
				return -1;
			}
		}
	}
	if (n < 1)
		return -1;
	*out = st[n - 1];
	return 0;
}

/* Is pc at glibc's __restore_rt (mov $0xf,%rax; syscall), on either of
 * its instructions?  A sample can land on the syscall, the mov done: the
 * stack is still the signal frame's. */
static int is_sigreturn(const struct rt_module *m, uintptr_t pc)
{
	static const unsigned char code[] = {
		0x48, 0xc7, 0xc0, 0x0f, 0x00, 0x00, 0x00, 0x0f, 0x05
	};
	const uintptr_t mov = 7;	/* the syscall's offset in code */

	if (pc >= m->xlo + mov && pc + sizeof(code) - mov <= m->xhi &&
	    !memcmp((const void *)(pc - mov), code, sizeof(code)))
		return 1;
	return pc >= m->xlo && pc + sizeof(code) <= m->xhi &&
	       !memcmp((const void *)pc, code, sizeof(code));
}

void rt_regs_from_ucontext(uintptr_t *r, const void *ucontext)
{
	const greg_t *g = ((const ucontext_t *)ucontext)->uc_mcontext.gregs;

	r[0] = (uintptr_t)g[REG_RAX];
	r[1] = (uintptr_t)g[REG_RDX];
	r[2] = (uintptr_t)g[REG_RCX];
	r[3] = (uintptr_t)g[REG_RBX];
	r[4] = (uintptr_t)g[REG_RSI];
	r[5] = (uintptr_t)g[REG_RDI];
	r[6] = (uintptr_t)g[REG_RBP];
	r[7] = (uintptr_t)g[REG_RSP];
	r[8] = (uintptr_t)g[REG_R8];
	r[9] = (uintptr_t)g[REG_R9];
	r[10] = (uintptr_t)g[REG_R10];
	r[11] = (uintptr_t)g[REG_R11];
	r[12] = (uintptr_t)g[REG_R12];
	r[13] = (uintptr_t)g[REG_R13];
	r[14] = (uintptr_t)g[REG_R14];
	r[15] = (uintptr_t)g[REG_R15];
	r[16] = (uintptr_t)g[REG_RIP];
}

static void load_ucontext(struct frame *f, const ucontext_t *uc)
{
	rt_regs_from_ucontext(f->r, uc);
}

/* The module holding pc for f: the live one, or for a sample from a copy
 * the one of its time (rt_module_at). */
static const struct rt_module *module_of(const struct frame *f, uintptr_t pc)
{
	return f->sample ? rt_module_at(pc, f->sample->time) : rt_module_find(pc);
}

static int is_code(const struct frame *f, uintptr_t pc)
{
	const struct rt_module *m = module_of(f, pc);

	return m && pc >= m->xlo && pc < m->xhi;
}

enum step { STEP_OK, STEP_STOP, STEP_BOTTOM, STEP_FAIL };

/* The CFA rules at look from the FDE covering it, and the row of them
 * holding look (row[0] <= look < row[1], within the function); 0 or -1. */
static int find_rules(const struct rt_module *m, uintptr_t look,
		      struct cfa_state *st, uintptr_t *fn_start, uintptr_t row[2])
{
	const unsigned char *fde = find_fde(m, look), *p, *end;
	struct cfa_state init;
	struct cie cie;
	uintptr_t start, range;
	uint32_t len, cie_off;

	if (!fde)
		return -1;
	memcpy(&len, fde, 4);
	if (len == 0 || len == 0xffffffffu)
		return -1;
	end = fde + 4 + len;
	memcpy(&cie_off, fde + 4, 4);
	if (parse_cie(fde + 4 - cie_off, &cie))
		return -1;
	p = fde + 8;
	if (read_enc(&p, cie.fde_enc, 0, &start) ||
	    read_enc(&p, cie.fde_enc & 0x0f, 0, &range))
		return -1;
	if (look < start || look >= start + range)
		return -1;
	*fn_start = start;
	if (cie.has_z)
		p += uleb(&p, end);
	memset(st, 0, sizeof(*st));
	if (run_cfa(cie.insns, cie.end, &cie, 0, UINTPTR_MAX, st, NULL, NULL))
		return -1;
	init = *st;
	if (run_cfa(p, end, &cie, start, look, st, &init, row))
		return -1;
	/* a set_loc may have gone anywhere: the row stays in the function */
	if (row[0] < start || row[0] > look)
		row[0] = look;
	if (row[1] > start + range || row[1] <= look)
		row[1] = row[1] <= look ? look + 1 : start + range;
	return 0;
}

/* An expression's offset from m->lo, in an entry's off[] or cfa. */
static int expr_off(const struct rt_module *m, const unsigned char *expr,
		    int32_t *off)
{
	uintptr_t d = (uintptr_t)expr - m->lo;

	if ((uintptr_t)expr < m->lo || d > INT32_MAX)
		return -1;
	*off = (int32_t)d;
	return 0;
}

/* st, the rules of the row [row[0], row[1]) (its FDE's function starting
 * at start), as entry e; -1 when it does not fit one (more than UW_LIVE
 * registers change, an offset beyond 32 bits): no code a compiler
 * makes.  A row longer than 4 GiB keeps its first 4 GiB. */
static int compact(const struct rt_module *m, const struct cfa_state *st,
		   const uintptr_t row[2], uintptr_t start, struct uw_entry *e)
{
	int i;

	memset(e, 0, sizeof(*e));
	e->look = row[0];
	e->len = row[1] - row[0] > UINT32_MAX ? UINT32_MAX :
		 (uint32_t)(row[1] - row[0]);
	if (rt_is_stop_function(start))
		e->flags |= UW_STOP;
	if (st->reg[REG_RBP_DW].how != R_SAME)
		e->flags |= UW_RBP;
	if (st->cfa_expr) {
		e->flags |= UW_CFA_EXPR;
		if (expr_off(m, st->cfa_expr, &e->cfa))
			return -1;
	} else {
		if (st->cfa_reg < 0 || st->cfa_reg >= NREGS ||
		    st->cfa_off < INT32_MIN || st->cfa_off > INT32_MAX)
			return -1;
		e->cfa_reg = (uint8_t)st->cfa_reg;
		e->cfa = (int32_t)st->cfa_off;
	}
	for (i = 0; i < NREGS; i++) {
		const struct reg_rule *r = &st->reg[i];
		int32_t off;

		/* R_UNDEF leaves a register as it is, but for the RA */
		if (r->how == R_SAME || (r->how == R_UNDEF && i != REG_RA_DW))
			continue;
		if (e->nlive == UW_LIVE)
			return -1;
		if (r->how == R_EXPR || r->how == R_VAL_EXPR) {
			if (expr_off(m, r->expr, &off))
				return -1;
		} else if (r->off < INT32_MIN || r->off > INT32_MAX) {
			return -1;
		} else {
			off = (int32_t)r->off;
		}
		e->reg[e->nlive] = (uint8_t)(r->how << 5 | i);
		e->off[e->nlive++] = off;
	}
	return 0;
}

/* Does e hold the rules at look? */
static int holds(const struct uw_entry *e, uintptr_t look)
{
	return e->look && look - e->look < e->len;
}

/* The entry holding the rules at look, or the one to fill with them: a
 * leaf's in the leaves' table; a return address's in its own slot, else
 * in the leaves' table (its row may be one a leaf filled: the call sites
 * of an eval loop), else its own slot to fill. */
static struct uw_entry *cache_slot(struct uw_cache *uc, uintptr_t look, int leaf)
{
	struct uw_entry *e = uw_entries(uc), *own, *block;

	block = &e[CACHE_SIZE + ((look >> LEAF_SHIFT) & (LEAF_SLOTS - 1))];
	if (leaf)
		return block;
	own = &e[(look ^ (look >> 10)) & (CACHE_SIZE - 1)];
	return holds(own, look) || !holds(block, look) ? own : block;
}

/* Is the return address in a register at e?  Only an interrupted
 * instruction can be there, its call's push undone: glibc's __vfork holds
 * it in %rdi across the system call, where the frame's CFA is its sp. */
static int ra_in_register(const struct uw_entry *e)
{
	int k;

	for (k = 0; k < e->nlive; k++)
		if ((e->reg[k] & 31) == REG_RA_DW &&
		    (enum rule)(e->reg[k] >> 5) == R_REGISTER)
			return 1;
	return 0;
}

int rt_tramp_parse(const unsigned char *code, size_t len, struct rt_tramp *t)
{
	/* adj: the bytes sp moved down since the template's entry */
	size_t i = 0, adj = 0;
	int rbp = 0;

	memset(t, 0, sizeof(*t));
	if (len > RT_TRAMP_MAX)
		return -1;
	/* adj bounded: t->rbp, -(16 + adj), is a byte */
	while (i < len && adj <= 96) {
		const unsigned char *p = code + i;
		size_t left = len - i;

		if (left >= 4 && !memcmp(p, "\xf3\x0f\x1e\xfa", 4)) {
			i += 4;			/* endbr64 */
		} else if (p[0] == 0x55 && !rbp) {
			rbp = -(int)(16 + adj);	/* push %rbp */
			adj += 8;
			i++;
		} else if (left >= 3 && p[0] == 0x48 &&
			   ((p[1] == 0x89 && p[2] == 0xe5) ||
			    (p[1] == 0x8b && p[2] == 0xec))) {
			i += 3;			/* mov %rsp,%rbp */
		} else if (left >= 4 && p[0] == 0x48 && p[1] == 0x83 &&
			   p[2] == 0xec && p[3] < 0x80) {
			adj += p[3];		/* sub $imm8,%rsp */
			i += 4;
		} else {
			/* call *%reg, the last instruction read */
			size_t rex = left >= 3 && p[0] == 0x41;

			if (left < 2 + rex || p[rex] != 0xff ||
			    (p[rex + 1] & 0xf8) != 0xd0 || i + 2 + rex >= len)
				return -1;
			memcpy(t->code, code, len);
			t->len = (uint8_t)len;
			t->ra = (uint8_t)(i + 2 + rex);
			t->cfa = (uint8_t)(adj + 8);
			t->rbp = (int8_t)rbp;
			return 0;
		}
	}
	return -1;
}

/*
 * nf, the caller of frame f found by CFI, returns to no module: when f is
 * a frame of the interpreter's eval function and nf's pc the return
 * address of a copy of CPython's perf trampoline, nf is moved on up
 * through the copy's frame to its caller's (invariant 6); 0, else -1.
 */
static int cross_tramp(const struct frame *f, struct frame *nf)
{
	const struct py_interp *py = rt_python_get();
	const struct rt_tramp *t;
	uintptr_t pc = nf->r[REG_RA_DW], cfa;

	if (!py || !py->tramp.len || !py_is_eval_pc(py, f->r[REG_RA_DW]))
		return -1;
	t = &py->tramp;
	if (pc < t->ra || memcmp((const void *)(pc - t->ra), t->code, t->len))
		return -1;
	cfa = nf->r[REG_RSP_DW] + t->cfa;
	if (!readable(f, cfa - 8) || (t->rbp && !readable(f, cfa + t->rbp)))
		return -1;
	nf->r[REG_RA_DW] = stack_word(f, cfa - 8);
	if (t->rbp) {
		nf->r[REG_RBP_DW] = stack_word(f, cfa + t->rbp);
		nf->rbp_unknown = 0;
	}
	nf->r[REG_RSP_DW] = cfa;
	return is_code(f, nf->r[REG_RA_DW]) ? 0 : -1;
}

/* One frame up by CFI.  leaf: the pc is the interrupted instruction. */
static enum step step_cfi(struct frame *f, const struct rt_module *m, int leaf,
			  struct uw_cache *uc)
{
	uintptr_t pc = f->r[REG_RA_DW], look = leaf ? pc : pc - 1;
	struct uw_entry *e = cache_slot(uc, look, leaf);
	struct cfa_state st;
	struct frame nf;
	uintptr_t start, cfa, row[2];
	int k, ra = 0;

	if (!holds(e, look)) {
		if (find_rules(m, look, &st, &start, row))
			return STEP_FAIL;
		if (compact(m, &st, row, start, e)) {
			e->look = 0;
			return STEP_FAIL;
		}
	}
	if (e->flags & UW_STOP)
		return STEP_STOP;
	if (e->flags & UW_CFA_EXPR) {
		if (eval_expr((const unsigned char *)m->lo + e->cfa, f, 0, 0, &cfa))
			return STEP_FAIL;
	} else {
		cfa = f->r[e->cfa_reg] + (uintptr_t)(intptr_t)e->cfa;
	}
	if (cfa < f->r[REG_RSP_DW] || cfa > f->hi ||
	    (cfa == f->r[REG_RSP_DW] && !(leaf && ra_in_register(e))))
		return STEP_FAIL;
	nf = *f;
	for (k = 0; k < e->nlive; k++) {
		int i = e->reg[k] & 31;
		intptr_t off = e->off[k];
		uintptr_t a;

		ra |= i == REG_RA_DW;
		switch ((enum rule)(e->reg[k] >> 5)) {
		case R_SAME:
			break;
		case R_UNDEF:
			return STEP_BOTTOM;	/* the RA's: compact() */
		case R_OFFSET:
			a = cfa + (uintptr_t)off;
			if (readable(f, a))
				nf.r[i] = stack_word(f, a);
			else if (i == REG_RA_DW)
				return STEP_FAIL;
			/* else: a slot below sp in an epilogue, whose register
			 * was already popped: it holds the caller's value. */
			break;
		case R_VAL_OFFSET:
			nf.r[i] = cfa + (uintptr_t)off;
			break;
		case R_REGISTER:
			if (off < 0 || off >= NREGS)
				return STEP_FAIL;
			nf.r[i] = f->r[off];
			break;
		case R_EXPR:
			if (eval_expr((const unsigned char *)m->lo + off, f, 1,
				      cfa, &a) || !readable(f, a))
				return STEP_FAIL;
			nf.r[i] = stack_word(f, a);
			break;
		case R_VAL_EXPR:
			if (eval_expr((const unsigned char *)m->lo + off, f, 1,
				      cfa, &a))
				return STEP_FAIL;
			nf.r[i] = a;
			break;
		}
	}
	/* The return address is always saved (x86-64 call pushes it). */
	if (!ra)
		return STEP_FAIL;
	if (e->flags & UW_RBP)
		nf.rbp_unknown = 0;
	nf.r[REG_RSP_DW] = cfa;
	/* Usually the caller is in the same module: no lookup. */
	if (nf.r[REG_RA_DW] < m->xlo || nf.r[REG_RA_DW] >= m->xhi) {
		/* else it may be a trampoline copy's (invariant 6) */
		if (!is_code(f, nf.r[REG_RA_DW]) && cross_tramp(f, &nf))
			return STEP_FAIL;
	}
	*f = nf;
	return STEP_OK;
}

/* Frame-pointer step (code without CFI); leaf tries the RA at [sp] first. */
static enum step step_fp(struct frame *f, int leaf)
{
	uintptr_t sp = f->r[REG_RSP_DW], bp = f->r[REG_RBP_DW];

	if (leaf && readable(f, sp) && is_code(f, stack_word(f, sp))) {
		f->r[REG_RA_DW] = stack_word(f, sp);
		f->r[REG_RSP_DW] = sp + 8;
		return STEP_OK;
	}
	/* bp == sp: a caller without locals (push %rbp; mov %rsp,%rbp;
	 * call) seen from its callee's return. */
	if (!f->rbp_unknown && bp >= sp && readable(f, bp) && readable(f, bp + 8) &&
	    is_code(f, stack_word(f, bp + 8))) {
		f->r[REG_RA_DW] = stack_word(f, bp + 8);
		f->r[REG_RBP_DW] = stack_word(f, bp);
		f->r[REG_RSP_DW] = bp + 16;
		return STEP_OK;
	}
	return STEP_FAIL;
}

/* The length of the indirect call (ff /2) whose bytes start at p, or 0. */
static int indirect_call_len(const unsigned char *p)
{
	unsigned mod = p[1] >> 6, rm = p[1] & 7;

	if (p[0] != 0xff || ((p[1] >> 3) & 7) != 2)
		return 0;
	if (mod == 3)
		return 2;
	if (rm == 4)		/* a SIB byte, then the displacement */
		return mod == 1 ? 4 : mod == 2 || (p[2] & 7) == 5 ? 7 : 3;
	if (mod == 0)
		return rm == 5 ? 6 : 2;
	return mod == 1 ? 3 : 6;
}

/*
 * How the code before return address ra called: 2 a direct call of the
 * function at start, 1 another call instruction (indirect, or direct to
 * another address such as a PLT stub), 0 no call.
 */
static int call_before(const struct frame *f, uintptr_t ra, uintptr_t start)
{
	const struct rt_module *m = module_of(f, ra);
	const unsigned char *p = (const unsigned char *)ra;
	int32_t rel;
	int len;

	if (!m || ra < m->xlo + 7 || ra >= m->xhi)
		return 0;
	if (p[-5] == 0xe8) {
		memcpy(&rel, p - 4, sizeof(rel));
		return ra + (uintptr_t)(intptr_t)rel == start ? 2 : 1;
	}
	for (len = 2; len <= 7; len++)
		if (indirect_call_len(p - len) == len)
			return 1;
	return 0;
}

/*
 * rbp for a frame whose CFA is rbp + 16 (push %rbp; mov %rsp,%rbp), in a
 * walk that does not know rbp (rt_unwind_blocked): its base is a 16-byte
 * aligned slot at or above sp under the return address into its caller.
 * The lowest slot whose return address follows a direct call of the
 * frame's own function is taken (a stack word that is no return address
 * hardly passes that), else the lowest following any call instruction.
 * 0 with f's rbp set, or -1 when none is found.
 */
static int find_rbp(struct frame *f, const struct rt_module *m, int leaf)
{
	uintptr_t pc = f->r[REG_RA_DW], start, a, weak = 0, row[2];
	struct cfa_state st;

	if (find_rules(m, leaf ? pc : pc - 1, &st, &start, row) || st.cfa_expr ||
	    st.cfa_reg != REG_RBP_DW || st.cfa_off != 16)
		return -1;
	for (a = (f->r[REG_RSP_DW] + 15) & ~(uintptr_t)15; readable(f, a + 8); a += 16) {
		uintptr_t ra = stack_word(f, a + 8);
		int how = is_code(f, ra) ? call_before(f, ra, start) : 0;

		if (how == 2) {
			weak = a;
			break;
		}
		if (how == 1 && !weak)
			weak = a;
	}
	if (!weak)
		return -1;
	f->r[REG_RBP_DW] = weak;
	f->rbp_unknown = 0;
	return 0;
}

/*
 * Sets the readable range [sp, top) of the stack sp is on: the thread's
 * own stack, the alternate signal stack, or (only while faults in the
 * unwinder are recoverable) 1 MiB above sp; -1 when none applies.
 */
static int stack_of(const struct rt_thread *td, struct frame *f)
{
	uintptr_t sp = f->r[REG_RSP_DW];
	stack_t ss;

	f->lo = sp;
	if (sp >= td->stack_lo && sp < td->stack_hi) {
		f->hi = td->stack_hi;
		return 0;
	}
	if (!sigaltstack(NULL, &ss) && !(ss.ss_flags & SS_DISABLE) &&
	    sp >= (uintptr_t)ss.ss_sp && sp < (uintptr_t)ss.ss_sp + ss.ss_size) {
		f->hi = (uintptr_t)ss.ss_sp + ss.ss_size;
		return 0;
	}
	if (rt_fault_recovery()) {
		/* A stack of the program's own (makecontext, coroutines):
		 * bounds unknown, but a faulting read comes back as a partial
		 * path, so read up to 1 MiB. */
		f->hi = sp + ((uintptr_t)1 << 20);
		return 0;
	}
	return -1;
}

/* Flushes td's unwind cache if the load map changed. */
static void cache_check(struct rt_thread *td)
{
	unsigned gen = __atomic_load_n(&rt_loadmap_gen, __ATOMIC_ACQUIRE);

	if (td->uwc->gen != gen) {
		memset(td->uwc, 0, sizeof(*td->uwc));
		td->uwc->gen = gen;
	}
}

/*
 * A signal frame's ucontext at uc on f's stack, as memory to read: in the
 * copy or on the live stack, never across their boundary; NULL when it is
 * not all readable.
 */
static const ucontext_t *ucontext_at(const struct frame *f, uintptr_t uc)
{
	uintptr_t end = uc + sizeof(ucontext_t);

	if (!readable(f, uc) || !readable(f, end - 8))
		return NULL;
	if (uc >= f->copy_lo && end <= f->copy_hi)
		return (const ucontext_t *)(const void *)(f->sample->stack + (uc - f->copy_lo));
	if (uc < f->copy_hi && end > f->copy_lo)
		return NULL;
	return (const ucontext_t *)uc;
}

int rt_in_hpcrun(uintptr_t pc)
{
	extern const char __ehdr_start[], _end[];

	return pc >= (uintptr_t)__ehdr_start && pc < (uintptr_t)_end;
}

/*
 * A signal frame at at in f's copy names a context on another stack (a
 * handler on the alternate signal stack).  That stack was not copied, but
 * while the handler is still running its context is frozen: when the
 * drain runs on the sample's thread and the signal frame on the live
 * stack is still byte for byte the copied one, the walk goes on there,
 * on the live thread stack.  1 when it may.
 */
static int leave_copy(const struct rt_thread *td, struct frame *f, uintptr_t at,
		      const ucontext_t *uc)
{
	uintptr_t sp = f->r[REG_RSP_DW];
	stack_t ss;

	if (!f->sample->own || sp < td->stack_lo || sp >= td->stack_hi ||
	    sigaltstack(NULL, &ss) || (ss.ss_flags & SS_DISABLE) ||
	    at < (uintptr_t)ss.ss_sp ||
	    at + sizeof(*uc) > (uintptr_t)ss.ss_sp + ss.ss_size ||
	    memcmp((const void *)at, uc, sizeof(*uc)))
		return 0;
	f->lo = sp;
	f->hi = td->stack_hi;
	f->copy_lo = f->copy_hi = 0;
	return 1;
}

/*
 * Does return address pc, in m (libhpcrun.so), follow a direct call (e8
 * rel32) to one of m's PLT stubs (jmp *GOT, after endbr64 and bnd where
 * present): a call by name, out of hpcrun's code (invariant 5)?  A call
 * through a pointer (ff /2) has its ModRM byte (never e8) at pc - 5, or,
 * shorter, its ff among the 4 bytes before pc, which as a displacement
 * points far outside m; a byte of another instruction that happens to
 * be e8 would also have to point at a stub.  A call of a function of m's
 * own goes to it directly, not through a stub.
 */
static int is_plt_call(const struct rt_module *m, uintptr_t pc)
{
	const unsigned char *t;
	int32_t rel;

	if (pc < m->xlo + 5 || pc > m->xhi ||
	    *(const unsigned char *)(pc - 5) != 0xe8)
		return 0;
	memcpy(&rel, (const void *)(pc - 4), sizeof(rel));
	t = (const unsigned char *)(pc + (uintptr_t)(intptr_t)rel);
	if ((uintptr_t)t < m->xlo || (uintptr_t)t + 7 > m->xhi)
		return 0;
	if (t[0] == 0xf3 && t[1] == 0x0f && t[2] == 0x1e && t[3] == 0xfa)
		t += 4;			/* endbr64 */
	if (t[0] == 0xf2)
		t++;			/* bnd */
	return t[0] == 0xff && t[1] == 0x25;
}

/* Records frame i of the path: its pc, and its sp when asked. */
static void record(const struct frame *f, uintptr_t *frames, int i,
		   uintptr_t pc)
{
	frames[i] = pc;
	if (f->sps)
		f->sps[i] = f->r[REG_RSP_DW];
}

/*
 * Walks f up the stack into frames (see rt_unwind), leaving out every
 * frame whose pc is in libhpcrun.so (invariant 4); *near gets 1 when one
 * of the first two pcs walked was; f->own_call 1 when the first frames
 * in it above the leaf's (a library's) made a call by name (invariant 5).
 */
static int walk(struct rt_thread *td, struct frame *f, uintptr_t *frames,
		int max, enum rt_unwind_end *end, int *near)
{
	const struct rt_module *m = NULL;
	/* run: 0 before the first frame of libhpcrun.so, 1 in the first
	 * ones above a library's, 2 past them */
	int n = 0, walked = 0, leaf = 1, own = 0, run = 0;

	*near = 0;
	while (n < max && walked < 2 * max) {
		uintptr_t pc = f->r[REG_RA_DW];
		enum step s;

		if (!m || pc < m->lo || pc >= m->hi)
			m = module_of(f, pc);
		if (!m)
			return n;
		if (!__atomic_load_n(&m->live, __ATOMIC_ACQUIRE)) {
			/* A sample from a copy may lie in a library dlclosed
			 * since: kept as the path's last frame, its memory
			 * (code, unwind tables) no longer there to read. */
			record(f, frames, n++, pc);
			return n;
		}
		if (is_sigreturn(m, pc)) {
			uintptr_t at = f->r[REG_RSP_DW], hi = f->hi;
			const ucontext_t *uc = ucontext_at(f, at);

			if (walked > 0 ? own : f->sample != NULL) {
				/* the handler that returns here is hpcrun's
				 * (or, from a copy, the pc is at a handler's
				 * return: the program's or hpcrun's) */
				*end = RT_UNWIND_IN_HANDLER;
				return n;
			}
			if (!uc)
				return n;
			load_ucontext(f, uc);
			if (f->copy_hi > f->copy_lo) {
				if (f->r[REG_RSP_DW] > at && readable(f, f->r[REG_RSP_DW]))
					;	/* on up the same stack */
				else if (!leave_copy(td, f, at, uc))
					return n;
			} else {
				if (stack_of(td, f))
					return n;
				if (f->hi == hi && f->lo < at)
					return n;	/* must move up the stack */
			}
			leaf = 1;
			continue;
		}
		own = rt_in_hpcrun(pc);
		if (own && walked < 2)
			*near = 1;
		if (!run && own)
			run = n > 0 && !leaf ? 1 : 2;
		if (run == 1 && (!own || is_plt_call(m, pc))) {
			f->own_call = own;
			run = 2;
		}
		walked++;
		if (!own)
			record(f, frames, n++, pc);
		s = step_cfi(f, m, leaf, td->uwc);
		if (s == STEP_FAIL)
			s = step_fp(f, leaf);
		if (s == STEP_FAIL && f->rbp_unknown && !find_rbp(f, m, leaf))
			s = step_cfi(f, m, leaf, td->uwc);
		if (s == STEP_STOP) {
			*end = RT_UNWIND_STOP_FRAME;
			/* the stop function's own frame is not recorded */
			return own ? n : n - 1;
		}
		if (s == STEP_BOTTOM) {
			*end = RT_UNWIND_STACK_BOTTOM;
			return n;
		}
		if (s == STEP_FAIL)
			return n;
		leaf = 0;
	}
	return n;
}

/* n, the walk of f's frames, *end made RT_UNWIND_OWN_WORK when they are
 * hpcrun's work (invariant 5) and not its handler's. */
static int own_work(const struct frame *f, enum rt_unwind_end *end, int n)
{
	if (f->own_call && *end != RT_UNWIND_IN_HANDLER)
		*end = RT_UNWIND_OWN_WORK;
	return n;
}

int rt_unwind(const void *ucontext, struct rt_thread *td, uintptr_t *frames,
	      uintptr_t *sps, int max, enum rt_unwind_end *end)
{
	struct frame f;
	int n, near;

	cache_check(td);
	memset(&f, 0, sizeof(f));
	load_ucontext(&f, ucontext);
	f.sps = sps;
	*end = RT_UNWIND_FAILED;
	if (stack_of(td, &f)) {
		/* unknown stack: the leaf only */
		if (rt_in_hpcrun(f.r[REG_RA_DW]))
			return 0;
		record(&f, frames, 0, f.r[REG_RA_DW]);
		return 1;
	}
	n = walk(td, &f, frames, max, end, &near);
	return own_work(&f, end, n);
}

/* rt_unwind_copy, or rt_unwind_blocked when rbp_unknown. */
static int unwind_copy(struct rt_thread *td, const struct rt_copy *c,
		       uintptr_t *frames, uintptr_t *sps, int max,
		       enum rt_unwind_end *end, int rbp_unknown)
{
	struct frame f;
	int n, near;

	cache_check(td);
	memset(&f, 0, sizeof(f));
	memcpy(f.r, c->regs, sizeof(f.r));
	f.rbp_unknown = rbp_unknown;
	f.sps = sps;
	*end = RT_UNWIND_FAILED;
	f.lo = f.copy_lo = f.r[REG_RSP_DW];
	f.copy_hi = f.copy_lo + (c->len & ~(size_t)7);
	f.sample = c;
	f.hi = c->live_hi > f.copy_hi ? c->live_hi : f.copy_hi;
	if ((f.lo & 7) || f.copy_hi < f.copy_lo) {
		if (rt_in_hpcrun(f.r[REG_RA_DW]))
			return 0;
		record(&f, frames, 0, f.r[REG_RA_DW]);
		return 1;
	}
	n = walk(td, &f, frames, max, end, &near);
	/* Taken in hpcrun's own code (or in a libc routine it called, such
	 * as memset), with a copy too short to reach the signal frame of its
	 * handler (--stack-copy below the handler's stack) and the live
	 * stack gone on since: hpcrun's work all the same, as walk() says
	 * when it finds that frame. */
	if (*end == RT_UNWIND_FAILED && near)
		*end = RT_UNWIND_IN_HANDLER;
	return own_work(&f, end, n);
}

int rt_unwind_copy(struct rt_thread *td, const struct rt_copy *c,
		   uintptr_t *frames, uintptr_t *sps, int max,
		   enum rt_unwind_end *end)
{
	return unwind_copy(td, c, frames, sps, max, end, 0);
}

int rt_unwind_blocked(struct rt_thread *td, const struct rt_copy *c,
		      uintptr_t *frames, uintptr_t *sps, int max,
		      enum rt_unwind_end *end)
{
	return unwind_copy(td, c, frames, sps, max, end, 1);
}
