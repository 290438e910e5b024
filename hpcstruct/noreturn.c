/*
 * noreturn.c - procedures that never return (see noreturn.h).
 *
 * Design:
 *   1. Known up front: link names (exit, abort, _ZSt9terminatev, ...) and
 *      DW_AT_noreturn.  A PLT
 *      stub NAME@plt never returns when NAME does, by name or because a
 *      procedure NAME of this binary was found not to.
 *   2. A test (may_return) walks the code from a procedure's entry, one
 *      instruction at a time, and stops at the first way back to the
 *      caller; it decodes only what it reaches, so a procedure that
 *      returns costs little.  Tested: the callers of every procedure known
 *      or found not to return (except the stack protector's failure
 *      call), and every procedure whose bytes hold no 0xc3 or 0xc2 (the
 *      ret opcodes; those may end all paths in loops or traps).
 *   3. Callers are found once up front by scanning the bytes for the
 *      rel8/rel32 forms of call, jmp and jcc whose target is a procedure's
 *      entry; bytes that only look like one cost an extra test.
 *   4. A worklist in procedure order, one thread, so the result does not
 *      depend on -j.  Marks only grow, so retesting ends; a procedure whose
 *      way back calls nothing that could yet be marked is never retested.
 *      A budget of decoded instructions bounds the whole; past it nothing
 *      more is marked, which is the conservative answer.
 *   5. Asked about some procedures only (a partial analysis), it works on
 *      the set they may reach: those procedures, every procedure a scan of
 *      one in the set finds it may call or jump to, and the procedure NAME
 *      behind each stub NAME@plt in the set.  Whether a procedure returns
 *      depends only on the procedures it calls and jumps to (or, for a
 *      stub, on NAME), all in the set, and rules 2-4 test the set as they
 *      test the whole binary, with the whole binary's budget: each
 *      procedure of the set gets the mark the whole analysis gives it
 *      unless that one runs out of budget.  Procedures outside the set
 *      keep no mark.
 */
#include <stdlib.h>
#include <string.h>
#ifdef __SSE2__
#include <emmintrin.h>
#endif

#include "hashmap.h"
#include "noreturn.h"
#include "strbuf.h"
#include "x86.h"

/*
 * Instructions decoded by the whole analysis, at most: the binary's code
 * bytes / 4 (about one pass over it), but not less than this.
 */
#define BUDGET_MIN 1000000

/* Functions that never return (matched without an "@plt" suffix). */
static const char *const noreturn_names[] = {
	"exit", "_exit", "_Exit", "quick_exit", "abort", "__stack_chk_fail",
	"__stack_chk_fail_local", "__assert_fail", "__assert_perror_fail",
	"__fortify_fail", "__chk_fail", "__libc_fatal", "err", "errx", "verr",
	"verrx", "pthread_exit", "longjmp", "siglongjmp", "__longjmp_chk",
	"__cxa_throw", "__cxa_rethrow", "__cxa_bad_cast", "__cxa_bad_typeid",
	"__cxa_call_unexpected", "_Unwind_Resume", "_ZSt9terminatev",
	"__cxa_throw_bad_array_new_length", NULL,
};

/*
 * Whose callers are not tested: every function the stack protector guards
 * calls these on its canary-check path, which says nothing about its
 * other paths (a guarded function that never returns calls something else
 * that does not, and is found through it).
 */
static const char *const canary_names[] = {
	"__stack_chk_fail", "__stack_chk_fail_local", NULL,
};

/* Is name, without an "@plt" suffix, one of list[]? */
static int name_in(const char *name, const char *const *list)
{
	size_t len = strlen(name);

	if (len > 4 && !strcmp(name + len - 4, "@plt"))
		len -= 4;
	for (const char *const *n = list; *n; n++)
		if (strlen(*n) == len && !strncmp(*n, name, len))
			return 1;
	return 0;
}

/* Index of the procedure whose entry is addr, or -1. */
static ptrdiff_t proc_index(const struct binary *b, uint64_t addr)
{
	const struct proc *p = binary_find_proc(b, addr);

	return p && p->lo == addr ? p - b->procs : -1;
}

/* Who may call or jump to each procedure: who[first[q] .. first[q+1]). */
struct callers {
	uint32_t *first, *who;
};

/* An edge caller -> callee while scanning. */
struct edge {
	uint32_t callee, caller;
};

struct edges {
	struct edge *v;
	size_t n, alloc;
	uint32_t *last;		/* per callee: the last caller recorded + 1 */
	/*
	 * A filter before proc_index: bit k set when a procedure's entry lies
	 * in the 16 bytes at base + 16 k; most bytes that look like a branch
	 * target no entry and are dropped here, without a search.  NULL (every
	 * target searched) when the procedures span more than
	 * ENTRY_FILTER_MAX bytes of filter: a hostile file's symbols, not code.
	 */
	unsigned char *entries;
	uint64_t base, slots;
};

/* 64 MiB of filter: procedures over 8 GiB of addresses. */
#define ENTRY_FILTER_MAX ((uint64_t)64 << 20)

/* Could target be a procedure's entry (the filter of struct edges)? */
static int may_be_entry(const struct edges *e, uint64_t target)
{
	uint64_t k = (target - e->base) >> 4;

	if (!e->entries)
		return 1;
	return target >= e->base && k < e->slots &&
		(e->entries[k >> 3] >> (k & 7) & 1);
}

/* Bytes that start a rel32 call/jmp, a two-byte jcc rel32, a rel8 jump. */
enum { OP_NONE, OP_REL32, OP_0F, OP_REL8 };
static const unsigned char op_class[256] = {
	[0x0f] = OP_0F,
	[0x70] = OP_REL8, [0x71] = OP_REL8, [0x72] = OP_REL8, [0x73] = OP_REL8,
	[0x74] = OP_REL8, [0x75] = OP_REL8, [0x76] = OP_REL8, [0x77] = OP_REL8,
	[0x78] = OP_REL8, [0x79] = OP_REL8, [0x7a] = OP_REL8, [0x7b] = OP_REL8,
	[0x7c] = OP_REL8, [0x7d] = OP_REL8, [0x7e] = OP_REL8, [0x7f] = OP_REL8,
	[0xe8] = OP_REL32, [0xe9] = OP_REL32, [0xeb] = OP_REL8,
};

/* Bit i set when code[i] (i < n <= 16) has a class other than OP_NONE. */
static unsigned class_mask(const unsigned char *code, size_t n)
{
	unsigned m = 0;

	for (size_t i = 0; i < n; i++)
		m |= (unsigned)(op_class[code[i]] != OP_NONE) << i;
	return m;
}

/*
 * class_mask(code, 16): the bytes a scan looks at further, found 16 at a
 * time where SSE2 is.
 */
static unsigned branch_mask(const unsigned char *code)
{
#ifdef __SSE2__
	__m128i v = _mm_loadu_si128((const __m128i *)(const void *)code);
	__m128i jcc = _mm_cmpeq_epi8(_mm_and_si128(v, _mm_set1_epi8((char)0xf0)),
				     _mm_set1_epi8(0x70));
	__m128i rel = _mm_or_si128(_mm_cmpeq_epi8(v, _mm_set1_epi8((char)0xe8)),
				   _mm_cmpeq_epi8(v, _mm_set1_epi8((char)0xe9)));
	__m128i other = _mm_or_si128(_mm_cmpeq_epi8(v, _mm_set1_epi8((char)0xeb)),
				     _mm_cmpeq_epi8(v, _mm_set1_epi8(0x0f)));

	return (unsigned)_mm_movemask_epi8(_mm_or_si128(jcc,
							_mm_or_si128(rel, other)));
#else
	return class_mask(code, 16);
#endif
}

/*
 * Records pi as a caller of every procedure that [lo, hi) seems to call or
 * jump to, once each.
 */
static void scan_range(const struct binary *b, size_t pi, uint64_t lo,
		       uint64_t hi, struct edges *e)
{
	const unsigned char *code = hi > lo ? binary_bytes(b, lo, hi - lo) : NULL;
	const struct proc *p = &b->procs[pi];
	size_t n = code ? hi - lo : 0;

	for (size_t base = 0; base + 2 <= n; base += 16) {
		unsigned m = base + 16 <= n ? branch_mask(code + base) :
			class_mask(code + base, n - base);

		for (; m; m &= m - 1) {
			size_t k = base + (size_t)__builtin_ctz(m);
			uint64_t next = lo + k, target;
			int32_t rel;
			ptrdiff_t q;

			if (k + 2 > n)
				break;
			switch (op_class[code[k]]) {
			case OP_REL32:
				if (k + 5 > n)
					continue;
				memcpy(&rel, code + k + 1, 4);
				next += 5;
				break;
			case OP_0F:
				if ((code[k + 1] & 0xf0) != 0x80 || k + 6 > n)
					continue;
				memcpy(&rel, code + k + 2, 4);
				next += 6;
				break;
			default:
				rel = (int8_t)code[k + 1];
				next += 2;
				break;
			}
			target = next + (uint64_t)(int64_t)rel;
			if ((target >= p->lo && target < p->hi) ||
			    !may_be_entry(e, target))
				continue;
			q = proc_index(b, target);
			if (q < 0 || (size_t)q == pi || e->last[q] == pi + 1)
				continue;
			e->last[q] = (uint32_t)pi + 1;
			HPC_GROW(e->v, e->n + 1, e->alloc);
			e->v[e->n].callee = (uint32_t)q;
			e->v[e->n++].caller = (uint32_t)pi;
		}
	}
}

/* Edges of nothing yet, with the entry filter of b's procedures. */
static void edges_init(const struct binary *b, struct edges *e)
{
	size_t n = b->nprocs;

	memset(e, 0, sizeof(*e));
	e->last = xcalloc(n + 1, sizeof(*e->last));
	if (n == 0)
		return;
	e->base = b->procs[0].lo;
	e->slots = ((b->procs[n - 1].hi - e->base) >> 4) + 1;
	if ((e->slots >> 3) >= ENTRY_FILTER_MAX) {
		e->slots = 0;
		return;
	}
	e->entries = xcalloc((size_t)(e->slots >> 3) + 1, 1);
	for (size_t i = 0; i < n; i++) {
		uint64_t k = (b->procs[i].lo - e->base) >> 4;

		e->entries[k >> 3] |= (unsigned char)(1u << (k & 7));
	}
}

/* Records the edges out of procedure pi, both its parts. */
static void scan_proc(const struct binary *b, size_t pi, struct edges *e)
{
	const struct proc *p = &b->procs[pi];

	scan_range(b, pi, p->lo, p->hi, e);
	if (p->cold_hi)
		scan_range(b, pi, p->cold_lo, p->cold_hi, e);
}

/*
 * The procedures scanned, in procedure order, each with its edges: those
 * of v[k].proc are e->v[v[k].from .. v[k].to).  in[] flags them (design 5;
 * NULL for the whole binary).
 */
struct reach {
	struct scanned {
		uint32_t proc, from, to;
	} *v;
	size_t n;
	unsigned char *in;
	size_t stubs;	/* PLT stubs among v[] since the last name pass */
};

/*
 * The edges of e by callee, each callee's callers in procedure order; e is
 * released.
 */
static void callers_build(size_t n, struct edges *e, const struct reach *r,
			  struct callers *c)
{
	c->first = xcalloc(n + 2, sizeof(*c->first));
	c->who = xmalloc((e->n + 1) * sizeof(*c->who));
	for (size_t k = 0; k < e->n; k++)
		c->first[e->v[k].callee + 2]++;
	for (size_t q = 2; q < n + 2; q++)
		c->first[q] += c->first[q - 1];
	for (size_t i = 0; i < r->n; i++)
		for (size_t k = r->v[i].from; k < r->v[i].to; k++)
			c->who[c->first[e->v[k].callee + 1]++] = r->v[i].proc;
	free(e->v);
	free(e->last);
	free(e->entries);
}

/* Does [lo, hi) hold a byte of a ret opcode (or bytes we cannot see)? */
static int has_ret_byte(const struct binary *b, uint64_t lo, uint64_t hi)
{
	const unsigned char *code = hi > lo ? binary_bytes(b, lo, hi - lo) : NULL;

	if (!code)
		return 1;
	return memchr(code, 0xc3, hi - lo) || memchr(code, 0xc2, hi - lo);
}

/* Offset of addr in the bytes of p (main part, then cold part), or -1. */
static ptrdiff_t slot_of(const struct proc *p, uint64_t addr)
{
	if (addr >= p->lo && addr < p->hi)
		return (ptrdiff_t)(addr - p->lo);
	if (p->cold_hi && addr >= p->cold_lo && addr < p->cold_hi)
		return (ptrdiff_t)(p->hi - p->lo + addr - p->cold_lo);
	return -1;
}

/* The end of the part of p that holds addr. */
static uint64_t part_end(const struct proc *p, uint64_t addr)
{
	return addr >= p->lo && addr < p->hi ? p->hi : p->cold_hi;
}

struct step {
	uint64_t addr;
	int dep;	/* a call that may yet be found not to return came before */
};

struct walker {
	struct decoder *dec;
	struct insn *insn;	size_t insn_alloc;
	struct step *stack;	size_t nstack, stack_alloc;
	size_t cap, budget;
};

enum { NEVER, RETURNS, ALWAYS };

static void walk_push(struct walker *w, uint64_t addr, int dep)
{
	HPC_GROW(w->stack, w->nstack + 1, w->stack_alloc);
	w->stack[w->nstack].addr = addr;
	w->stack[w->nstack++].dep = dep;
}

/*
 * Does some path from the entry of procedure pi reach a return?  Follows
 * the code from the entry, decoding each instruction reached once, and
 * stops at the first of: ret; an indirect jump (unknown targets, or a jump
 * table whose bound may be a guess); a jump out of the procedure to
 * anything but the entry of a procedure in nr[]; control running past the
 * procedure's code or into bytes that are not there; more than cap
 * instructions.  Paths end at calls and jumps to procedures in nr[] and at
 * hlt/ud2/int3; a loop with no way out ends too.  Returns NEVER; RETURNS;
 * or ALWAYS when the path found calls no procedure that could later join
 * nr[] (so no later test can say otherwise), or the cap was hit.
 */
static int may_return(struct walker *w, const struct binary *b, size_t pi,
		      const unsigned char *nr)
{
	const struct proc *p = &b->procs[pi];
	size_t size = p->hi - p->lo + (p->cold_hi - p->cold_lo), decoded = 0;
	unsigned char *seen = xcalloc(size / 8 + 1, 1);
	int found = NEVER;

	w->nstack = 0;
	walk_push(w, p->lo, 0);
	while (w->nstack > 0 && found == NEVER) {
		uint64_t a = w->stack[--w->nstack].addr;
		int dep = w->stack[w->nstack].dep;

		for (;;) {
			ptrdiff_t s = slot_of(p, a), q;
			size_t n = 0;
			const struct insn *in;

			if (decoded >= w->cap) {
				found = ALWAYS;
				break;
			}
			if (s < 0) {
				found = dep ? RETURNS : ALWAYS;
				break;
			}
			if (seen[s / 8] & (1u << (s % 8)))
				break;
			seen[s / 8] |= (unsigned char)(1u << (s % 8));
			decoded++;
			x86_decode(w->dec, b, a, part_end(p, a), &w->insn, &n,
				   &w->insn_alloc, 1);
			in = w->insn;
			if (n == 0 || in->kind == INSN_RET ||
			    in->kind == INSN_IJUMP) {
				found = dep ? RETURNS : ALWAYS;
				break;
			}
			if (in->kind == INSN_STOP)
				break;
			q = in->kind == INSN_CALL || in->kind == INSN_JUMP ||
				in->kind == INSN_CJUMP ? proc_index(b, in->target) : -1;
			if (q >= 0 && nr[q]) {
				if (in->kind != INSN_CJUMP)
					break;	/* the path ends in q */
				a += in->len;	/* the other way goes on */
			} else if (in->kind == INSN_CALL) {
				dep |= q >= 0;
				a += in->len;
			} else if ((in->kind == INSN_JUMP || in->kind == INSN_CJUMP) &&
				   slot_of(p, in->target) < 0) {
				found = dep || q >= 0 ? RETURNS : ALWAYS;
				break;	/* a tail call */
			} else if (in->kind == INSN_JUMP) {
				a = in->target;
			} else if (in->kind == INSN_CJUMP) {
				/* forward first: returns tend to come late */
				if (in->target > a) {
					walk_push(w, a + in->len, dep);
					a = in->target;
				} else {
					walk_push(w, in->target, dep);
					a += in->len;
				}
			} else {
				a += in->len;
			}
		}
	}
	free(seen);
	w->budget -= decoded < w->budget ? decoded : w->budget;
	return found;
}

/* Procedures to test, in a ring of n slots, each at most once at a time. */
struct worklist {
	uint32_t *q;
	size_t head, tail, n;
	unsigned char *state;	/* QUEUED, SETTLED */
};

enum { QUEUED = 1, SETTLED = 2 };

static void push(struct worklist *w, size_t pi)
{
	if (w->state[pi])
		return;
	w->state[pi] = QUEUED;
	w->q[w->tail] = (uint32_t)pi;
	w->tail = (w->tail + 1) % w->n;
}

/* The state of one analysis. */
struct search {
	const struct binary *b;
	unsigned char *nr;
	struct callers callers;
	struct worklist work;
	struct hmap *plt;	/* NAME -> index + 1 of the stub NAME@plt */
};

/*
 * Marks procedure q as never returning and queues its callers (unless q is
 * the canary-check failure), and the PLT stub of the same name.
 */
static void mark(struct search *s, size_t q)
{
	const struct proc *p = &s->b->procs[q];
	void *stub;

	s->nr[q] = 1;
	if (!name_in(proc_linkname(p), canary_names))
		for (size_t k = s->callers.first[q]; k < s->callers.first[q + 1]; k++)
			if (!s->nr[s->callers.who[k]])
				push(&s->work, s->callers.who[k]);
	if (p->origin != PROC_PLT &&
	    (stub = hmap_get_str(s->plt, proc_linkname(p))) != NULL &&
	    !s->nr[(uintptr_t)stub - 1])
		mark(s, (uintptr_t)stub - 1);
}

static void plt_index(struct search *s)
{
	struct strbuf name = STRBUF_INIT;

	s->plt = hmap_new();
	for (size_t i = 0; i < s->b->nprocs; i++) {
		const char *link;
		size_t len;

		if (s->b->procs[i].origin != PROC_PLT)
			continue;
		link = proc_linkname(&s->b->procs[i]);
		len = strlen(link);
		if (len <= 4 || strcmp(link + len - 4, "@plt"))
			continue;
		strbuf_reset(&name);
		strbuf_add(&name, link, len - 4);
		hmap_put_str(s->plt, name.buf, (void *)(uintptr_t)(i + 1));
	}
	strbuf_release(&name);
}

static void reach_add(const struct binary *b, struct reach *r, size_t pi)
{
	if (r->in[pi])
		return;
	r->in[pi] = 1;
	r->v[r->n++].proc = (uint32_t)pi;
	r->stubs += b->procs[pi].origin == PROC_PLT;
}

static int scanned_cmp(const void *a, const void *b)
{
	const struct scanned *x = a, *y = b;

	return x->proc < y->proc ? -1 : x->proc > y->proc;
}

/*
 * Design 5: the procedures want[n] may reach, into r (in procedure order),
 * their edges into e.  Each is scanned once; a pass over every procedure's
 * name finds the procedures behind the PLT stubs reached, only when some
 * were reached since the last pass.
 */
static void reach_find(struct search *s, const size_t *want, size_t n,
		       struct edges *e, struct reach *r)
{
	const struct binary *b = s->b;
	size_t done = 0;

	r->v = xmalloc((b->nprocs + 1) * sizeof(*r->v));
	r->in = xcalloc(b->nprocs + 1, 1);
	for (size_t k = 0; k < n; k++)
		reach_add(b, r, want[k]);
	for (;;) {
		while (done < r->n) {
			struct scanned *sc = &r->v[done++];

			sc->from = (uint32_t)e->n;
			scan_proc(b, sc->proc, e);
			sc->to = (uint32_t)e->n;
			for (size_t k = sc->from; k < sc->to; k++)
				reach_add(b, r, e->v[k].callee);
		}
		if (r->stubs == 0)
			break;
		r->stubs = 0;
		for (size_t i = 0; i < b->nprocs; i++) {
			void *stub;

			if (r->in[i] || b->procs[i].origin == PROC_PLT)
				continue;
			stub = hmap_get_str(s->plt, proc_linkname(&b->procs[i]));
			if (stub && r->in[(uintptr_t)stub - 1])
				reach_add(b, r, i);
		}
		if (done == r->n)
			break;
	}
	if (r->n > 1)
		qsort(r->v, r->n, sizeof(*r->v), scanned_cmp);
}

unsigned char *noreturn_find(const struct binary *b, const struct debuginfo *d,
			     size_t cap, const size_t *want, size_t nwant)
{
	size_t n = b->nprocs, code = 0;
	struct search s = { .b = b };
	struct walker wk = { 0 };
	struct edges e;
	struct reach r = { 0 };

	wk.dec = decoder_new();
	if (!wk.dec)
		return NULL;
	s.nr = xcalloc(n + 1, 1);
	for (size_t i = 0; i < n; i++) {
		const struct proc *p = &b->procs[i];

		code += p->hi - p->lo + (p->cold_hi - p->cold_lo);
	}
	plt_index(&s);
	edges_init(b, &e);
	if (want) {
		reach_find(&s, want, nwant, &e, &r);
	} else {
		r.v = xmalloc((n + 1) * sizeof(*r.v));
		for (size_t i = 0; i < n; i++) {
			r.v[r.n].proc = (uint32_t)i;
			r.v[r.n].from = (uint32_t)e.n;
			scan_proc(b, i, &e);
			r.v[r.n++].to = (uint32_t)e.n;
		}
	}
	callers_build(n, &e, &r, &s.callers);
	s.work.n = n + 1;
	s.work.q = xmalloc(s.work.n * sizeof(*s.work.q));
	s.work.state = xcalloc(n + 1, 1);
	for (size_t k = 0; k < r.n; k++) {
		size_t pi = r.v[k].proc;
		const struct proc *p = &b->procs[pi];
		const struct subprog *sub = debuginfo_subprog(d, p->lo);
		int known = name_in(proc_linkname(p), noreturn_names) ||
			(sub && sub->noreturn);

		if (known && !s.nr[pi])
			mark(&s, pi);
		else if (!known && !has_ret_byte(b, p->lo, p->hi) &&
			 !(p->cold_hi && has_ret_byte(b, p->cold_lo, p->cold_hi)))
			push(&s.work, pi);
	}
	wk.cap = cap;
	wk.budget = code / 4 > BUDGET_MIN ? code / 4 : BUDGET_MIN;
	while (s.work.head != s.work.tail && wk.budget > 0) {
		size_t pi = s.work.q[s.work.head];

		s.work.head = (s.work.head + 1) % s.work.n;
		s.work.state[pi] = 0;
		if (s.nr[pi])
			continue;
		switch (may_return(&wk, b, pi, s.nr)) {
		case NEVER:
			mark(&s, pi);
			break;
		case ALWAYS:
			s.work.state[pi] = SETTLED;
			break;
		}
	}
	decoder_free(wk.dec);
	free(wk.insn);
	free(wk.stack);
	free(s.work.q);
	free(s.work.state);
	free(s.callers.first);
	free(s.callers.who);
	hmap_free(s.plt);
	free(r.v);
	free(r.in);
	return s.nr;
}
