/*
 * sharing.c - hpcrun --sharing: epoch-based access sampling with page
 * protection (sharing.h has the design and its invariants).
 *
 * The tables:
 *   pages    bucketed by page address (BUCKET_WAYS slots a bucket): a
 *            page's state (OPEN, NONE: revoked, READ: read granted), its
 *            pins, and whether its first touch is still to be seen.  A
 *            slot is free when its page is 0.
 *   objects  bucketed by start address: the candidates (heap blocks and
 *            static variables) with their bytes, kind, a process-wide oid,
 *            whether --watch (or the allocation) chose them, and their
 *            heat (data samples, relaxed atomics from the sample handler).
 * Each epoch the epoch thread takes the chosen objects, hottest first
 * (those --watch names before all), and revokes up to the configured
 * pages among theirs, each object's pages in turn from a cursor.
 *
 * Page states (per slot):
 *
 *   OPEN --epoch revokes--> NONE --read fault--> READ --write fault--> OPEN
 *                            |                                ("u")
 *                            +--write fault--> OPEN
 *   any --pin--> OPEN (stays while pinned);  any --forget--> slot freed
 *
 * A fault seeing a state that does not explain it (another thread won
 * the race) re-applies the protection of the current state and returns:
 * the access runs again (sharing.h, invariant 3).
 */
#include <dlfcn.h>
#include <elf.h>
#include <errno.h>
#include <fnmatch.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <ucontext.h>
#include <unistd.h>

#include "capability.h"
#include "datacentric.h"
#include "interpose.h"
#include "runtime.h"
#include "sharing.h"

#define PAGE 4096UL
#define PAGE_OF(a) ((uintptr_t)(a) & ~(PAGE - 1))
#define BUCKETS 2048
#define BUCKET_WAYS 8
#define OBJ_BUCKETS 1024
/* Pages protected from allocation on, at most, waiting for a first touch. */
#define MAX_FIRST_PAGES 8192
/* Records a thread keeps (the rest counted as dropped). */
#define THREAD_RECORDS 16384
/* Faults a page takes in an epoch with the page protected again after the
 * faulting instruction (single-stepped), so the first access of each
 * thread faults; past them it stays open for the epoch. */
#define TRAP_BUDGET 4
#define EFLAGS_TF 0x100
/* Steps one thread may have pending at once: a signal handler that runs
 * before a stepped instruction and faults on a watched page itself steps
 * over its own access first (its trap comes first, so they nest). */
#define STEP_MAX 4
/* Faults in a row at one address that change nothing: not ours after all. */
#define MAX_SPURIOUS 64
#define MAX_GLOBS 32
#define MAX_FUNCS 4096
#define MAX_NODES 64
#define MAX_CHOSEN 1024

enum { OPEN, NONE, READ };

struct wpage {
	uintptr_t page;			/* 0: free slot */
	int state;
	int pins;
	int first;			/* protected from allocation, untouched */
	uintptr_t owner;		/* start of the object that watched it */
	uint64_t rmask, wmask;		/* threads (index % 64) that read, wrote
					 * it this epoch */
	unsigned traps;			/* faults stepped over this epoch */
};

struct wobj {
	uintptr_t start;		/* 0: free slot */
	uint64_t bytes;
	uint64_t heat;
	uint32_t oid;
	int kind;			/* 0 heap, 1 static */
	int chosen;			/* by --watch or at allocation */
	int stack;			/* a thread ran on it: never watched again */
	uint64_t cursor;		/* next page to revoke (index) */
};

struct srec {
	uint64_t time, start, bytes, off;
	uint32_t oid, cpu, objnode, node;
	uint8_t size, rw, first, kind;
};

/* The alternate signal stack a thread gets when it has none (invariant 7). */
#define ALT_STACK (256 << 10)

struct rt_share_thread {
	uint64_t n, dropped, faults;
	int in_fault;
	void *alt;			/* its alternate stack (guard page first), or NULL */
	struct srec rec[THREAD_RECORDS];
};

struct func_range {
	uint16_t lm;
	uint64_t lo, hi;		/* module-relative */
};

struct rt_sharing_config rt_sharing;
/* The calling thread's faults in a row at one address that changed
 * nothing (any thread, measured or not). */
static __thread uintptr_t spurious_addr __attribute__((tls_model("initial-exec")));
static __thread unsigned spurious __attribute__((tls_model("initial-exec")));
/* The pages the calling thread steps over one instruction on, innermost
 * last (STEP_MAX). */
static __thread uintptr_t step_pages[STEP_MAX] __attribute__((tls_model("initial-exec")));
static __thread unsigned step_n __attribute__((tls_model("initial-exec")));

static struct wpage pages[BUCKETS][BUCKET_WAYS];
static struct wobj objs[OBJ_BUCKETS][BUCKET_WAYS];
static uintptr_t range_lo = ~(uintptr_t)0, range_hi;	/* of all pages seen */
static int wlock;
static uint32_t next_oid;
static char *globs[MAX_GLOBS];
static int nglobs;
static struct func_range funcs[MAX_FUNCS];
static unsigned nfuncs;
static char node_list[MAX_NODES][128];
static int nnodes;
static pid_t epoch_pid;
/* Pages that may still be protected from their allocation on this epoch
 * when --watch did not name their block (the epoch thread refills it):
 * first touches cost at most as many faults as the epochs do. */
static int first_tokens = RT_SHARING_PAGES;
/* Faults that may still be stepped over this epoch, all pages together
 * (the epoch thread refills it): the cost of the steps is bounded. */
static int step_tokens = RT_SHARING_PAGES;
/* Measured threads alive: with one, stepping would find no other. */
static int nthreads;
static uint64_t epochs, total_faults, pages_revoked, first_pages, lost_pages,
	lost_objs, pins_opened, stacks_seen;

/* ---- configuration ---- */

static void parse_watch(const char *v)
{
	char *copy = strdup(v), *tok, *save = NULL;

	for (tok = copy ? strtok_r(copy, ",", &save) : NULL; tok && nglobs < MAX_GLOBS;
	     tok = strtok_r(NULL, ",", &save))
		if (*tok)
			globs[nglobs++] = tok;
}

static void parse_nodes(const char *v)
{
	const char *p = v;

	while (*p && nnodes < MAX_NODES) {
		size_t n = strcspn(p, ":");

		if (n >= sizeof(node_list[0]))
			n = sizeof(node_list[0]) - 1;
		memcpy(node_list[nnodes], p, n);
		node_list[nnodes++][n] = '\0';
		p += strcspn(p, ":");
		if (*p == ':')
			p++;
	}
}

/* The real topology: /sys/devices/system/node/node*\/cpulist. */
static void read_nodes(void)
{
	int i;

	for (i = 0; i < MAX_NODES && nnodes < MAX_NODES; i++) {
		char path[64];
		FILE *f;

		snprintf(path, sizeof(path), "/sys/devices/system/node/node%d/cpulist", i);
		f = fopen(path, "re");
		if (!f)
			continue;
		if (fgets(node_list[nnodes], sizeof(node_list[0]), f)) {
			node_list[nnodes][strcspn(node_list[nnodes], "\n")] = '\0';
			nnodes++;
		}
		fclose(f);
	}
	if (!nnodes) {
		long n = sysconf(_SC_NPROCESSORS_CONF);

		snprintf(node_list[0], sizeof(node_list[0]), "0-%ld", n > 1 ? n - 1 : 0);
		nnodes = 1;
	}
}

/* sharing_capability's init: HPCRUN_SHARING, HPCRUN_WATCH,
 * HPCRUN_NUMA_NODES and HPCRUN_SHARING_RATE (after data's init). */
static void sharing_init(void)
{
	const char *v = getenv("HPCRUN_SHARING");
	unsigned e, p;

	if (!v || *v != '1' || !rt_data.on)
		return;
	rt_sharing.on = 1;
	rt_sharing.dispatch = 1;
	rt_sharing.epochs = RT_SHARING_EPOCHS;
	rt_sharing.pages = RT_SHARING_PAGES;
	v = getenv("HPCRUN_SHARING_RATE");
	if (v && *v) {
		int k = sscanf(v, "%u/%u", &e, &p);

		if (k >= 1 && e >= 1 && e <= 10000)
			rt_sharing.epochs = e;
		if (k == 2 && p >= 1 && p <= 65536)
			rt_sharing.pages = p;
	}
	v = getenv("HPCRUN_WATCH");
	if (v && *v)
		parse_watch(v);
	v = getenv("HPCRUN_NUMA_NODES");
	if (v && *v) {
		parse_nodes(v);
		rt_sharing.virtual_nodes = 1;
	} else {
		read_nodes();
	}
}

/* ---- the writers' lock (invariant 6) ---- */

static void lock(sigset_t *old)
{
	sigset_t all;

	sigfillset(&all);
	sigdelset(&all, SIGSEGV);
	sigdelset(&all, SIGBUS);
	rt_real_sigmask(SIG_BLOCK, &all, old);
	while (__atomic_exchange_n(&wlock, 1, __ATOMIC_ACQUIRE))
		sched_yield();
}

static void unlock(const sigset_t *old)
{
	__atomic_store_n(&wlock, 0, __ATOMIC_RELEASE);
	rt_real_sigmask(SIG_SETMASK, old, NULL);
}

/* ---- the tables ---- */

static unsigned hash_addr(uintptr_t a, unsigned n)
{
	return (unsigned)(((a >> 4) * 0x9e3779b97f4a7c15ull) >> 40) % n;
}

/* The slot of page, or NULL (async-signal-safe). */
static struct wpage *page_find(uintptr_t page)
{
	struct wpage *b = pages[hash_addr(page >> 8, BUCKETS)];
	int i;

	if (!page)
		return NULL;		/* 0 marks a free slot */
	for (i = 0; i < BUCKET_WAYS; i++)
		if (__atomic_load_n(&b[i].page, __ATOMIC_ACQUIRE) == page)
			return &b[i];
	return NULL;
}

/* The slot of page, made (OPEN, for the object at owner) when missing,
 * or NULL when its bucket is full (under the lock). */
static struct wpage *page_get(uintptr_t page, uintptr_t owner)
{
	struct wpage *w = page_find(page), *b;
	int i;

	if (w)
		return w;
	b = pages[hash_addr(page >> 8, BUCKETS)];
	for (i = 0; i < BUCKET_WAYS; i++)
		if (!b[i].page) {
			b[i].state = OPEN;
			b[i].pins = 0;
			b[i].first = 0;
			b[i].owner = owner;
			if (page < range_lo)
				__atomic_store_n(&range_lo, page, __ATOMIC_RELAXED);
			if (page + PAGE > range_hi)
				__atomic_store_n(&range_hi, page + PAGE, __ATOMIC_RELAXED);
			__atomic_store_n(&b[i].page, page, __ATOMIC_RELEASE);
			return &b[i];
		}
	lost_pages++;
	return NULL;
}

static int prot_of(int state)
{
	return state == NONE ? PROT_NONE :
	       state == READ ? PROT_READ : PROT_READ | PROT_WRITE;
}

/* mprotect of one page as a system call: the mprotect symbol is the
 * program's, wrapped (sharing-pin.c). */
static void protect(uintptr_t page, int prot)
{
	syscall(SYS_mprotect, page, PAGE, prot);
}

/* Sets w's state and protection (under the lock); NONE starts its epoch:
 * no thread has touched it yet. */
static void page_set(struct wpage *w, int state)
{
	if (state == NONE) {
		__atomic_store_n(&w->rmask, 0, __ATOMIC_RELAXED);
		__atomic_store_n(&w->wmask, 0, __ATOMIC_RELAXED);
		__atomic_store_n(&w->traps, 0, __ATOMIC_RELAXED);
	}
	__atomic_store_n(&w->state, state, __ATOMIC_RELEASE);
	protect(w->page, prot_of(state));
}

static struct wobj *obj_find(uintptr_t start)
{
	struct wobj *b = objs[hash_addr(start, OBJ_BUCKETS)];
	int i;

	for (i = 0; i < BUCKET_WAYS; i++)
		if (__atomic_load_n(&b[i].start, __ATOMIC_ACQUIRE) == start)
			return &b[i];
	return NULL;
}

/* The object at start, claimed when missing (lock-free: also from the
 * sample handler), or NULL when its bucket is full. */
static struct wobj *obj_get(uintptr_t start, uint64_t bytes, int kind)
{
	struct wobj *o = obj_find(start), *b;
	int i;

	if (o)
		return o;
	b = objs[hash_addr(start, OBJ_BUCKETS)];
	for (i = 0; i < BUCKET_WAYS; i++) {
		uintptr_t z = 0;

		if (__atomic_load_n(&b[i].start, __ATOMIC_RELAXED))
			continue;
		b[i].bytes = 0;		/* not ready until bytes is set */
		if (!__atomic_compare_exchange_n(&b[i].start, &z, start, 0,
						 __ATOMIC_ACQ_REL, __ATOMIC_RELAXED))
			continue;
		b[i].heat = 0;
		b[i].chosen = 0;
		b[i].stack = 0;
		b[i].cursor = 0;
		b[i].kind = kind;
		b[i].oid = __atomic_add_fetch(&next_oid, 1, __ATOMIC_RELAXED);
		__atomic_store_n(&b[i].bytes, bytes, __ATOMIC_RELEASE);
		return &b[i];
	}
	__atomic_add_fetch(&lost_objs, 1, __ATOMIC_RELAXED);
	return NULL;
}

/* ---- watching: --watch, allocations, frees ---- */

static int matches(const char *name)
{
	int i;

	for (i = 0; i < nglobs; i++)
		if (!fnmatch(globs[i], name, 0))
			return 1;
	return 0;
}

void rt_sharing_module(const struct rt_module *m, const struct rt_elf_syms *s)
{
	size_t i;
	sigset_t old;

	if (!nglobs || m == rt_module_find((uintptr_t)rt_sharing_module))
		return;		/* hpcrun's own variables are not the program's */
	for (i = 0; i < s->n; i++) {
		const Elf64_Sym *y = (const Elf64_Sym *)s->sym + i;
		int type = ELF64_ST_TYPE(y->st_info);
		struct wobj *o;

		if ((type != STT_OBJECT && type != STT_FUNC) || !y->st_size ||
		    y->st_shndx == SHN_UNDEF || y->st_shndx >= SHN_LORESERVE ||
		    !matches(rt_elf_sym_name(s, i)))
			continue;
		if (type == STT_FUNC) {
			if (nfuncs < MAX_FUNCS) {
				funcs[nfuncs] = (struct func_range){ m->id, y->st_value,
					y->st_value + y->st_size };
				__atomic_store_n(&nfuncs, nfuncs + 1, __ATOMIC_RELEASE);
			}
			continue;
		}
		lock(&old);
		o = obj_get(m->bias + y->st_value, y->st_size, 1);
		if (o)
			o->chosen = 1;
		unlock(&old);
	}
}

/* Does the allocation path f[0..k) run through a function --watch names? */
static int path_watched(const uint64_t (*f)[2], uint32_t k)
{
	unsigned j, n = __atomic_load_n(&nfuncs, __ATOMIC_ACQUIRE);
	uint32_t i;

	for (i = 0; i < k; i++)
		for (j = 0; j < n; j++)
			/* return addresses: the call ends at f - 1 */
			if (f[i][1] == funcs[j].lm && f[i][0] > funcs[j].lo &&
			    f[i][0] <= funcs[j].hi)
				return 1;
	return 0;
}

/* Is the allocation path's innermost frame in the C library (its own
 * blocks: stdio buffers, which it hands to system calls we do not see)? */
static int libc_block(const uint64_t (*f)[2], uint32_t k)
{
	static int libc_lm = -1;

	if (libc_lm == -1) {
		const struct rt_module *m = rt_module_find(
			(uintptr_t)rt_optional_symbol(RTLD_NEXT, "fopen"));

		libc_lm = m ? m->id : -2;
	}
	return k && (int)f[k - 1][1] == libc_lm;
}

void rt_sharing_alloc(uintptr_t p, size_t n, const uint64_t (*f)[2], uint32_t k)
{
	uintptr_t lo = (p + PAGE - 1) & ~(PAGE - 1), hi = PAGE_OF(p + n), a;
	int watch = nglobs && path_watched(f, k);
	struct wobj *o;
	sigset_t old;

	if ((nglobs && !watch) || libc_block(f, k) || !(o = obj_get(p, n, 0)))
		return;
	o->chosen = watch;
	if (lo >= hi || (!watch && nglobs))
		return;
	/* whole pages from the allocation on: their first touch is seen */
	lock(&old);
	for (a = lo; a < hi && first_pages < MAX_FIRST_PAGES; a += PAGE) {
		struct wpage *w;

		if (!watch && first_tokens <= 0)
			break;
		if (!(w = page_get(a, p)) || w->pins)
			continue;
		if (!watch)
			first_tokens--;
		w->first = 1;
		first_pages++;
		page_set(w, NONE);
	}
	unlock(&old);
}

void rt_sharing_forget(uintptr_t lo, uintptr_t hi)
{
	struct wobj *o = obj_find(lo);
	uintptr_t a;
	sigset_t old;

	if (!o && (hi <= lo || PAGE_OF(lo) >= __atomic_load_n(&range_hi, __ATOMIC_RELAXED) ||
		   hi <= __atomic_load_n(&range_lo, __ATOMIC_RELAXED)))
		return;
	/* under the lock: an epoch never revokes pages of a freed block */
	lock(&old);
	if (o && __atomic_load_n(&o->start, __ATOMIC_RELAXED) == lo)
		__atomic_store_n(&o->start, 0, __ATOMIC_RELEASE);
	if (hi > range_hi)
		hi = range_hi;
	for (a = PAGE_OF(lo) < range_lo ? range_lo : PAGE_OF(lo); a < hi; a += PAGE) {
		struct wpage *w = page_find(a);

		if (!w)
			continue;
		if (w->state != OPEN)
			page_set(w, OPEN);
		if (w->first)
			first_pages--;
		__atomic_store_n(&w->page, 0, __ATOMIC_RELEASE);
	}
	unlock(&old);
}

void rt_sharing_heat(int lm, uintptr_t start, uint64_t bytes)
{
	struct wobj *o;

	(void)bytes;
	/* heap blocks only: they are candidates from their allocation on.
	 * Static variables are watched only when --watch names them: the C
	 * library hands them to system calls hpcrun cannot see (the signal
	 * mask swapcontext saves), which would fail on a protected page. */
	if (lm >= 0 || !(o = obj_find(start)))
		return;
	__atomic_add_fetch(&o->heat, 1, __ATOMIC_RELAXED);
}

/* ---- pins (invariant 5) ---- */

static void pin_range(const void *p, size_t n, int d)
{
	uintptr_t lo = (uintptr_t)p, hi = lo + n, a;
	sigset_t old;

	if (!rt_sharing.on || !n || hi < lo ||
	    PAGE_OF(lo) >= __atomic_load_n(&range_hi, __ATOMIC_RELAXED) ||
	    hi <= __atomic_load_n(&range_lo, __ATOMIC_RELAXED))
		return;
	for (a = PAGE_OF(lo); a < hi && !page_find(a); a += PAGE)
		;
	if (a >= hi)
		return;		/* none watched: no lock */
	lock(&old);
	for (a = PAGE_OF(lo); a < hi; a += PAGE) {
		struct wpage *w = page_find(a);

		if (!w)
			continue;
		if (d > 0) {
			w->pins++;
			if (w->state != OPEN) {
				page_set(w, OPEN);
				pins_opened++;
			}
		} else if (w->pins) {
			w->pins--;
		}
	}
	unlock(&old);
}

void rt_sharing_pin(const void *p, size_t n)
{
	pin_range(p, n, 1);
}

void rt_sharing_unpin(const void *p, size_t n)
{
	pin_range(p, n, -1);
}

/* ---- the fault (invariant 2) ---- */

static uint64_t now_ns(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (uint64_t)t.tv_sec * 1000000000u + (uint64_t)t.tv_nsec;
}

/* The CCT node of the access path of the fault uc under obj's ^Access in
 * td's tree, 0 when there is none (td->busy held). */
static uint32_t access_leaf(struct rt_thread *td, struct cct_node *obj,
			    const void *uc)
{
	struct cct_node *acc, *root, *leaf;
	enum rt_unwind_end end;
	int n;

	if (!obj || rt_cfg.no_unwind)
		return 0;
	n = rt_unwind_guarded(td, uc, &end);
	if (end == RT_UNWIND_FAILED || end == RT_UNWIND_IN_HANDLER || n <= 0)
		return 0;
	acc = cct_child(&td->cct, obj, 0, cct_placeholder("^Access "));
	if (!acc)
		return 0;
	root = end == RT_UNWIND_STACK_BOTTOM ? acc :
	       cct_child(&td->cct, acc, 0, td->cct.top->addr);
	leaf = root ? cct_path_node(&td->cct, root, td->frames, n) : NULL;
	return leaf ? leaf->id : 0;
}

/* Records the fault of td at a (rw 'r', 'w' or 'u'; first touch). */
static void record(struct rt_thread *td, uintptr_t a, int rw, int first,
		   const void *uc)
{
	struct rt_share_thread *st = td->share;
	struct rt_data_obj o;
	struct wobj *w;
	struct srec *r;
	uintptr_t regs[RT_UNWIND_REGS], ea;
	unsigned size = 0;

	if (td->busy || td->closed || !rt_active)
		return;
	__atomic_store_n(&td->busy, 1, __ATOMIC_SEQ_CST);
	if (!rt_data_object(td, a, &o) || !(w = obj_find(o.start)) ||
	    __atomic_load_n(&w->bytes, __ATOMIC_ACQUIRE) != o.bytes)
		goto out;
	if (st->n >= THREAD_RECORDS) {
		st->dropped++;
		goto out;
	}
	rt_regs_from_ucontext(regs, uc);
	if (td->data && rt_memop_decode(td->data->memop, regs, 0, 0, &ea, &size) !=
	    MEMOP_ADDR)
		size = 0;
	r = &st->rec[st->n];
	r->time = now_ns();
	r->cpu = (uint32_t)sched_getcpu();
	r->oid = w->oid;
	r->kind = (uint8_t)o.kind;
	r->start = o.start;
	r->bytes = o.bytes;
	r->off = a - o.start;
	r->size = (uint8_t)(size > 64 ? 0 : size);
	r->rw = (uint8_t)rw;
	r->first = (uint8_t)first;
	r->objnode = o.node ? o.node->id : 0;
	r->node = access_leaf(td, o.node, uc);
	st->n++;
out:
	__atomic_store_n(&td->busy, 0, __ATOMIC_RELEASE);
}

/* Does the stack pointer sp lie in the heap block that watched w (a thread
 * runs on it as its stack)? */
static int runs_on(const struct wpage *w, uintptr_t sp)
{
	const struct wobj *o = obj_find(w->owner);

	return o && o->kind == 0 && sp >= o->start && sp - o->start < o->bytes;
}

/* The object of w is a stack a thread runs on (a coroutine's, on the
 * heap): every page of it opened, never watched again -- the kernel must
 * be able to write signal frames there (in the fault handler: atomics and
 * system calls only). */
static void open_stack(struct wpage *w)
{
	struct wobj *o = obj_find(w->owner);
	uintptr_t a, lo = PAGE_OF(w->page), hi = w->page + PAGE;

	if (o) {
		__atomic_store_n(&o->stack, 1, __ATOMIC_RELEASE);
		lo = PAGE_OF(o->start);
		hi = o->start + o->bytes;
	}
	for (a = lo; a < hi; a += PAGE) {
		struct wpage *p = page_find(a);

		if (!p)
			continue;
		__atomic_store_n(&p->state, OPEN, __ATOMIC_RELEASE);
		if (__atomic_exchange_n(&p->first, 0, __ATOMIC_ACQ_REL))
			__atomic_sub_fetch(&first_pages, 1, __ATOMIC_RELAXED);
		protect(a, PROT_READ | PROT_WRITE);
	}
	__atomic_add_fetch(&stacks_seen, 1, __ATOMIC_RELAXED);
}

/* Is this the first access of its kind by the thread of bit to w this
 * epoch?  rw then says which (r, w, or u: a write after its read). */
static int first_of_thread(struct wpage *w, uint64_t bit, int write, int *rw)
{
	uint64_t old;

	if (write) {
		old = __atomic_fetch_or(&w->wmask, bit, __ATOMIC_ACQ_REL);
		*rw = __atomic_load_n(&w->rmask, __ATOMIC_ACQUIRE) & bit ? 'u' : 'w';
		return !(old & bit);
	}
	if ((__atomic_load_n(&w->rmask, __ATOMIC_ACQUIRE) |
	     __atomic_load_n(&w->wmask, __ATOMIC_ACQUIRE)) & bit)
		return 0;
	old = __atomic_fetch_or(&w->rmask, bit, __ATOMIC_ACQ_REL);
	*rw = 'r';
	return !(old & bit);
}

int rt_sharing_fault(const siginfo_t *si, void *uc)
{
	ucontext_t *u = uc;
	uintptr_t a = (uintptr_t)si->si_addr, page = PAGE_OF(a);
	struct rt_thread *td = rt_self;
	struct rt_share_thread *st = td ? td->share : NULL;
	uint64_t bit = td ? (uint64_t)1 << (td->index & 63) : 0;
	struct wpage *w;
	int write, s, to, rw, first, saved, rec;

	/* hpcrun's unwinder reading a watched page (a register it took for
	 * a frame pointer): not the program's access; signals.c jumps
	 * back to the sample */
	if (!rt_sharing.on || si->si_code != SEGV_ACCERR ||
	    (td && td->in_unwind) ||
	    page < __atomic_load_n(&range_lo, __ATOMIC_RELAXED) ||
	    page >= __atomic_load_n(&range_hi, __ATOMIC_RELAXED) ||
	    !(w = page_find(page)))
		return 0;
	saved = errno;
	write = (u->uc_mcontext.gregs[REG_ERR] & 2) != 0;
	if (runs_on(w, (uintptr_t)u->uc_mcontext.gregs[REG_RSP])) {
		open_stack(w);
		errno = saved;
		return 1;
	}
	s = __atomic_load_n(&w->state, __ATOMIC_ACQUIRE);
	if (s != NONE && !(s == READ && write)) {
		/* another thread opened it, or a pin: run again */
		protect(page, prot_of(s));
		if (spurious_addr != a) {
			spurious_addr = a;
			spurious = 0;
		}
		if (++spurious > MAX_SPURIOUS) {
			spurious = 0;
			errno = saved;
			return 0;	/* not ours after all */
		}
		errno = saved;
		return 1;
	}
	spurious = 0;
	first = __atomic_exchange_n(&w->first, 0, __ATOMIC_ACQ_REL);
	if (first)
		__atomic_sub_fetch(&first_pages, 1, __ATOMIC_RELAXED);
	__atomic_add_fetch(&total_faults, 1, __ATOMIC_RELAXED);
	rw = s == READ ? 'u' : write ? 'w' : 'r';
	rec = bit ? first_of_thread(w, bit, write, &rw) : 1;
	/* no new step when this access is already being stepped over (its
	 * page protected again by another thread meanwhile) */
	if (bit && !(u->uc_mcontext.gregs[REG_EFL] & EFLAGS_TF) &&
	    step_n < STEP_MAX &&
	    __atomic_load_n(&nthreads, __ATOMIC_RELAXED) > 1 &&
	    __atomic_add_fetch(&w->traps, 1, __ATOMIC_ACQ_REL) <= TRAP_BUDGET &&
	    __atomic_sub_fetch(&step_tokens, 1, __ATOMIC_ACQ_REL) >= 0) {
		/* open it for this one instruction: the SIGTRAP after it
		 * protects it again (rt_sharing_trap) */
		protect(page, write ? PROT_READ | PROT_WRITE : PROT_READ);
		step_pages[step_n++] = page;
		u->uc_mcontext.gregs[REG_EFL] |= EFLAGS_TF;
	} else {
		/* past the budget: open for the rest of the epoch */
		to = write ? OPEN : READ;
		if (__atomic_compare_exchange_n(&w->state, &s, to, 0, __ATOMIC_ACQ_REL,
						__ATOMIC_ACQUIRE))
			protect(page, prot_of(to));
		else
			protect(page, prot_of(s));
	}
	if (rec && st && !st->in_fault) {
		st->in_fault = 1;
		st->faults++;
		record(td, a, rw, first, uc);
		st->in_fault = 0;
	}
	errno = saved;
	return 1;
}

int rt_sharing_trap(const siginfo_t *si, void *uc)
{
	ucontext_t *u = uc;
	struct wpage *w;
	uintptr_t page;

	/* A step that never ended (a longjmp out of the stepped
	 * instruction) stays counted: the thread steps less, and a
	 * single-step trap of the program's own while one is left is taken
	 * for ours once. */
	if (!step_n || si->si_code != TRAP_TRACE ||
	    !(u->uc_mcontext.gregs[REG_EFL] & EFLAGS_TF))
		return 0;
	u->uc_mcontext.gregs[REG_EFL] &= ~(greg_t)EFLAGS_TF;
	page = step_pages[--step_n];
	if ((w = page_find(page)))
		protect(page, prot_of(__atomic_load_n(&w->state, __ATOMIC_ACQUIRE)));
	return 1;
}

/* ---- the epoch thread ---- */

static struct wobj *chosen[MAX_CHOSEN];

/* The objects to watch this epoch, --watch's and the hottest first. */
static int choose(void)
{
	int i, j, n = 0, k;

	for (i = 0; i < OBJ_BUCKETS; i++)
		for (j = 0; j < BUCKET_WAYS; j++) {
			struct wobj *o = &objs[i][j];
			uint64_t key;

			if (!__atomic_load_n(&o->start, __ATOMIC_ACQUIRE) ||
			    !__atomic_load_n(&o->bytes, __ATOMIC_ACQUIRE) ||
			    (nglobs && !o->chosen) || (!o->chosen && !o->heat) || o->stack)
				continue;
			key = o->heat + (o->chosen ? (uint64_t)1 << 62 : 0);
			if (n == MAX_CHOSEN) {
				if (key <= chosen[n - 1]->heat +
				    (chosen[n - 1]->chosen ? (uint64_t)1 << 62 : 0))
					continue;
				n--;
			}
			for (k = n; k > 0; k--) {
				struct wobj *p = chosen[k - 1];

				if (p->heat + (p->chosen ? (uint64_t)1 << 62 : 0) >= key)
					break;
				chosen[k] = p;
			}
			chosen[k] = o;
			n++;
		}
	return n;
}

/* Revokes up to budget pages of o from its cursor; how many were
 * (under the lock). */
static unsigned revoke_pages(struct wobj *o, unsigned budget)
{
	uintptr_t start = o->start, first = PAGE_OF(start);
	uintptr_t end = PAGE_OF(start + o->bytes - 1) + PAGE;
	uint64_t npages, i;
	unsigned done = 0;

	if (!start || !o->bytes)
		return 0;	/* claimed by a sample, not ready yet */
	if (o->kind == 0 && !o->chosen) {
		/* a page shared with blocks the program did not name (stdio's
		 * buffers among them) is not ours to protect */
		first = (start + PAGE - 1) & ~(PAGE - 1);
		end = PAGE_OF(start + o->bytes);
		if (first >= end)
			return 0;
	}
	npages = (end - first) / PAGE;

	for (i = 0; i < npages && done < budget; i++) {
		uintptr_t a = first + ((o->cursor + i) % npages) * PAGE;
		struct wpage *w = page_get(a, start);

		if (!w || w->pins || w->state == NONE)
			continue;
		page_set(w, NONE);
		done++;
	}
	o->cursor = (o->cursor + i) % npages;
	return done;
}

static void epoch(void)
{
	unsigned budget = rt_sharing.pages, share, used;
	int n, i;
	sigset_t old;

	lock(&old);
	first_tokens = (int)rt_sharing.pages;
	__atomic_store_n(&step_tokens, (int)rt_sharing.pages, __ATOMIC_RELEASE);
	n = choose();
	for (i = 0; i < n && budget; i++) {
		share = budget / (unsigned)(n - i);
		used = revoke_pages(chosen[i], share ? share : 1);
		budget -= used < budget ? used : budget;
		pages_revoked += used;
	}
	epochs++;
	unlock(&old);
}

static void *epoch_main(void *arg)
{
	sigset_t all;
	struct timespec tick;
	long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
	uint64_t k = 0;

	(void)arg;
	sigfillset(&all);
	sigdelset(&all, SIGSEGV);	/* a fault is never to be blocked */
	sigdelset(&all, SIGBUS);
	rt_real_sigmask(SIG_SETMASK, &all, NULL);
	tick.tv_sec = 0;
	tick.tv_nsec = 1000000000L / (long)rt_sharing.epochs;
	for (;;) {
		nanosleep(&tick, NULL);
		if (!rt_active || epoch_pid != getpid())
			continue;
		if (ncpu > 1) {
			/* on each CPU in turn: the thread it displaces is not
			 * always the same one */
			cpu_set_t set;

			CPU_ZERO(&set);
			CPU_SET((int)(k++ % (uint64_t)ncpu), &set);
			sched_setaffinity(0, sizeof(set), &set);
		}
		epoch();
	}
	return NULL;
}

/* Starts the epoch thread (once per process). */
static void sharing_start(void)
{
	pid_t me = getpid();

	if (!rt_sharing.on || __atomic_exchange_n(&epoch_pid, me, __ATOMIC_ACQ_REL) == me)
		return;
	if (rt_own_thread(epoch_main, NULL, 256 << 10))
		rt_note("warning: no thread for --sharing's epochs: only first touches seen");
}

/* ---- threads, fork, output ---- */

static void sharing_thread_begin(struct rt_thread *td)
{
	struct rt_share_thread *st;
	stack_t ss;
	void *p;

	if (!rt_sharing.on)
		return;
	p = mmap(NULL, sizeof(struct rt_share_thread), PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (p == MAP_FAILED)
		return;
	st = p;
	td->share = st;
	__atomic_add_fetch(&nthreads, 1, __ATOMIC_RELAXED);
	/* a fault on a stack we protected (a coroutine's, allocated on the
	 * heap) needs another stack for its handler */
	if (sigaltstack(NULL, &ss) || !(ss.ss_flags & SS_DISABLE))
		return;
	p = mmap(NULL, ALT_STACK + PAGE, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (p == MAP_FAILED)
		return;
	protect((uintptr_t)p, PROT_NONE);	/* the guard page */
	ss.ss_sp = (char *)p + PAGE;
	ss.ss_size = ALT_STACK;
	ss.ss_flags = 0;
	if (sigaltstack(&ss, NULL))
		munmap(p, ALT_STACK + PAGE);
	else
		st->alt = p;
}

static void sharing_thread_end(struct rt_thread *td)
{
	struct rt_share_thread *st = td->share;
	stack_t ss;

	if (!st)
		return;
	td->share = NULL;
	__atomic_sub_fetch(&nthreads, 1, __ATOMIC_RELAXED);
	/* on the ending thread (else its stack is not the one asked about) */
	if (st->alt && !sigaltstack(NULL, &ss) &&
	    ss.ss_sp == (char *)st->alt + PAGE && !(ss.ss_flags & SS_ONSTACK)) {
		ss.ss_flags = SS_DISABLE;
		if (!sigaltstack(&ss, NULL))
			munmap(st->alt, ALT_STACK + PAGE);
	}
	munmap(st, sizeof(*st));
}

/* In a fork child: the watch set is dropped and every page opened; the
 * child records nothing more (hpcrun(1)). */
static void sharing_fork_child(void)
{
	struct rt_thread *td = rt_self;
	int i, j;

	if (!rt_sharing.on)
		return;
	wlock = 0;
	for (i = 0; i < BUCKETS; i++)
		for (j = 0; j < BUCKET_WAYS; j++)
			if (pages[i][j].page) {
				protect(pages[i][j].page, PROT_READ | PROT_WRITE);
				pages[i][j].page = 0;
			}
	first_pages = 0;
	rt_sharing.on = 0;	/* the child records nothing more */
	if (td && td->share)
		td->share->n = 0;
}

/* Pages in the watch set now. */
static uint64_t watched_pages(void)
{
	uint64_t n = 0;
	int i, j;

	for (i = 0; i < BUCKETS; i++)
		for (j = 0; j < BUCKET_WAYS; j++)
			n += __atomic_load_n(&pages[i][j].page, __ATOMIC_RELAXED) != 0;
	return n;
}

/* The log's sharing lines through put(fd, text). */
static void sharing_log(int fd, void (*put)(int, const char *))
{
	char line[512];

	if (!rt_sharing.on)
		return;
	snprintf(line, sizeof(line),
		 "sharing: %u epochs/s, %u pages/epoch, %d watch patterns, %s topology of %d nodes\n"
		 "sharing-epochs: %llu\nsharing-pages-revoked: %llu\n"
		 "sharing-faults: %llu\nsharing-pages-watched: %llu\n"
		 "sharing-first-touch-pending: %llu\nsharing-pages-lost: %llu\n"
		 "sharing-objects-lost: %llu\nsharing-pins-opened: %llu\n"
		 "sharing-stacks-left: %llu\n",
		 rt_sharing.epochs, rt_sharing.pages, nglobs,
		 rt_sharing.virtual_nodes ? "virtual" : "real", nnodes,
		 (unsigned long long)epochs, (unsigned long long)pages_revoked,
		 (unsigned long long)total_faults, (unsigned long long)watched_pages(),
		 (unsigned long long)first_pages, (unsigned long long)lost_pages,
		 (unsigned long long)lost_objs, (unsigned long long)pins_opened,
		 (unsigned long long)stacks_seen);
	put(fd, line);
}

struct fill_arg {
	const struct rt_thread *td;
	unsigned char *seen;		/* by oid */
	size_t seen_bytes;
};

static void fill_share(struct rt_out *o, void *p)
{
	const struct fill_arg *f = p;
	const struct rt_share_thread *st = f->td->share;
	uint64_t i;
	int k;

	rt_outf(o, "hpcshare: 1\nthread %d\nrank %ld\ntopology %s %d\n", f->td->index,
		rt_cfg.rank_known ? (long)rt_cfg.rank : -1L,
		rt_sharing.virtual_nodes ? "virtual" : "real", nnodes);
	for (k = 0; k < nnodes; k++)
		rt_outf(o, "node %d %s\n", k, node_list[k]);
	rt_outf(o, "page-size %lu\nsampling %u %u\n", PAGE, rt_sharing.epochs,
		rt_sharing.pages);
	for (i = 0; i < st->n; i++) {
		const struct srec *r = &st->rec[i];

		if (r->oid / 8 < f->seen_bytes && !(f->seen[r->oid / 8] & (1 << (r->oid % 8)))) {
			f->seen[r->oid / 8] |= (unsigned char)(1 << (r->oid % 8));
			rt_outf(o, "object %u %s 0x%llx %llu %u\n", r->oid,
				r->kind ? "static" : "heap", (unsigned long long)r->start,
				(unsigned long long)r->bytes, r->objnode);
		}
		rt_outf(o, "access %llu %u %u %llu %u %c %u %u\n",
			(unsigned long long)r->time, r->cpu, r->oid,
			(unsigned long long)r->off, r->size, r->rw, r->first, r->node);
	}
	rt_outf(o, "summary %llu %llu %llu %llu\n", (unsigned long long)epochs,
		(unsigned long long)st->faults, (unsigned long long)st->dropped,
		(unsigned long long)watched_pages());
}

/* Writes td's .hpcshare beside its profile (profile: its path). */
static void sharing_thread_written(struct rt_thread *td, const char *profile)
{
	struct fill_arg f = { td, NULL, 0 };
	void *m;

	if (!td->share || !td->share->n)
		return;
	f.seen_bytes = __atomic_load_n(&next_oid, __ATOMIC_RELAXED) / 8 + 1;
	m = mmap(NULL, f.seen_bytes, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (m == MAP_FAILED)
		return;
	f.seen = m;
	rt_side_file(profile, ".hpcshare", fill_share, &f, "sharing record lost");
	munmap(m, f.seen_bytes);
}

const struct rt_capability sharing_capability = {
	.name = "sharing",
	.init = sharing_init,
	.start = sharing_start,
	.thread_begin = sharing_thread_begin,
	.thread_written = sharing_thread_written,
	.thread_end = sharing_thread_end,
	.log = sharing_log,
	.fork_child = sharing_fork_child,
};
