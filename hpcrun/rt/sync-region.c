/*
 * sync-region.c - OpenMP regions: one site per construct whichever team
 * thread measures it and however many calls it compiled to, and episode
 * numbers that go on across the construct's regions (sync.h, struct
 * sync_place).
 *
 * A team's workers run the outlined function on stacks of their own that
 * never pass through the user's code that started the region; the
 * master's does.  So the master, at a construct's first region, keeps its
 * path to the construct's call (the graft), and every team thread hangs
 * its sites of the construct below it: the join with the outlined
 * function as its leaf, a barrier inside with the thread's own frames
 * from the barrier's call up to the runtime.  hpcprof keys a site by its
 * leaf, so these are one site each, named by the user's code.
 *
 * Invariants:
 *  1. A construct is its outlined function, which the compiler makes for
 *     one construct of the source however many calls of the runtime it
 *     compiled that to (an unrolled loop has several; a function inlined
 *     in two places, two): its sites and objects are keyed by the return
 *     address of the first call that started it (struct sync_region,
 *     site_ra), its graft is that call's path.  Only when the outlined
 *     function is unknown is a construct its call's return address.  Its
 *     entry in a fixed table (SYNC_REGION_CONSTRUCTS) is published whole
 *     (release) and never removed; a construct that does not fit is
 *     measured with the threads' own paths and numbers from 0 each region.
 *  2. The graft is taken once per construct, by the first master to run
 *     it, before its team starts, and never changes after: the team's
 *     threads read it without a lock.  A master starting the construct
 *     meanwhile (nested regions, the program's own threads) waits for it:
 *     a thread's site keeps the path of its first episode there.
 *  3. The construct's base is the number of episodes of its regions
 *     before this one (each region's object counts its own from 0: all
 *     its barriers and the join), advanced by the master at the region's
 *     end, when every team thread has left.  Regions of one construct run
 *     by different threads at once (nested parallelism) share the base and
 *     may number episodes alike.
 *  4. No malloc (sync.h invariant 4): grafts are mmap'ed.
 */
#include <dlfcn.h>
#include <stddef.h>
#include <string.h>
#include <sys/mman.h>
#include <ucontext.h>

#include "interpose.h"
#include "sync.h"
#include "unwind.h"

#define SYNC_REGION_CONSTRUCTS 1024

struct construct {
	uintptr_t ra, fn;		/* ra 0: free slot */
	int graft_state;		/* 0 untried, 1 being taken, 2 done */
	struct sync_graft *graft;
	uint64_t base;			/* atomic (invariant 3) */
};

static struct construct constructs[SYNC_REGION_CONSTRUCTS];
static int table_lock;
static uintptr_t runtime_base;		/* the OpenMP runtime's load address */

/* Is slot c construct (ra, fn) (invariant 1)? */
static int construct_is(const struct construct *c, uintptr_t ra, uintptr_t fn)
{
	return fn ? c->fn == fn : !c->fn && c->ra == ra;
}

/* The construct of a region of outlined function fn (0 unknown) called
 * from ra, made when missing; NULL when the table is full. */
static struct construct *construct_get(uintptr_t ra, uintptr_t fn)
{
	uint64_t h = (fn ? fn : ra) * 0x9e3779b97f4a7c15ull;
	unsigned i, slot;
	struct construct *c = NULL;

	h ^= h >> 31;
	for (i = 0; i < SYNC_REGION_CONSTRUCTS; i++) {
		slot = (unsigned)(h + i) % SYNC_REGION_CONSTRUCTS;
		if (!__atomic_load_n(&constructs[slot].ra, __ATOMIC_ACQUIRE))
			break;
		if (construct_is(&constructs[slot], ra, fn))
			return &constructs[slot];
	}
	while (__atomic_exchange_n(&table_lock, 1, __ATOMIC_ACQUIRE))
		__builtin_ia32_pause();
	for (i = 0; i < SYNC_REGION_CONSTRUCTS; i++) {
		slot = (unsigned)(h + i) % SYNC_REGION_CONSTRUCTS;
		if (!constructs[slot].ra) {
			c = &constructs[slot];
			c->fn = fn;
			__atomic_store_n(&c->ra, ra, __ATOMIC_RELEASE);
			break;
		}
		if (construct_is(&constructs[slot], ra, fn)) {
			c = &constructs[slot];
			break;
		}
	}
	__atomic_store_n(&table_lock, 0, __ATOMIC_RELEASE);
	return c;
}

/* The calling thread's path from the frame returning to cut outwards,
 * into g (g->n stays 0 when it cannot be had or does not fit). */
static void graft_take(struct sync_graft *g, uintptr_t cut)
{
	struct rt_thread *td = rt_self;
	enum rt_unwind_end end;
	ucontext_t uc;
	int n, i;

	if (!td || rt_cfg.no_unwind || getcontext(&uc))
		return;
	__atomic_store_n(&td->busy, 1, __ATOMIC_SEQ_CST);
	if (!td->closed && rt_active) {
		n = rt_unwind_guarded(td, &uc, &end);
		for (i = 0; i < n && td->frames[i] != cut; i++)
			;
		if (i < n && end != RT_UNWIND_IN_HANDLER &&
		    n - i <= SYNC_GRAFT_FRAMES) {
			memcpy(g->frames, td->frames + i,
			       (size_t)(n - i) * sizeof(uintptr_t));
			g->end = (int)end;
			g->n = n - i;
		}
	}
	__atomic_store_n(&td->busy, 0, __ATOMIC_RELEASE);
}

/* The construct's graft, taken now by the first master (invariant 2). */
static struct sync_graft *construct_graft(struct construct *c, uintptr_t cut)
{
	int zero = 0;
	void *p;

	if (__atomic_load_n(&c->graft_state, __ATOMIC_ACQUIRE) == 2)
		return c->graft;
	if (!__atomic_compare_exchange_n(&c->graft_state, &zero, 1, 0,
					 __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE)) {
		/* Another master is taking it: wait (one unwind), or this
		 * region's threads would keep sites of their own paths. */
		while (__atomic_load_n(&c->graft_state, __ATOMIC_ACQUIRE) != 2)
			__builtin_ia32_pause();
		return c->graft;
	}
	rt_own_begin();		/* the graft: hpcrun's work */
	p = mmap(NULL, sizeof(struct sync_graft), PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p != MAP_FAILED) {
		graft_take(p, cut);
		c->graft = p;
	}
	rt_own_end();
	__atomic_store_n(&c->graft_state, 2, __ATOMIC_RELEASE);
	return c->graft;
}

/* The OpenMP runtime's load address, once. */
static void runtime_find(void)
{
	Dl_info info;
	void *f;

	if (__atomic_load_n(&runtime_base, __ATOMIC_ACQUIRE))
		return;
	f = rt_optional_symbol(RTLD_DEFAULT, "omp_get_num_threads");
	if (f && dladdr(f, &info))
		__atomic_store_n(&runtime_base, (uintptr_t)info.dli_fbase,
				 __ATOMIC_RELEASE);
}

void sync_region_begin_graft(struct sync_region *r, uintptr_t ra,
			     uintptr_t fn, uintptr_t cut)
{
	struct construct *c = construct_get(ra, fn);
	struct sync_graft *g = c ? construct_graft(c, cut) : NULL;

	runtime_find();
	r->ra = ra;
	r->site_ra = c ? c->ra : ra;
	r->fn = fn;
	r->entry = NULL;
	r->inner = (struct sync_place){ g, 0, 0 };
	r->join = (struct sync_place){ g, SYNC_PLACE_CALL, 0 };
	r->obj = NULL;
}

void sync_region_begin(struct sync_region *r, uintptr_t ra, uintptr_t fn,
		       uintptr_t cut)
{
	struct construct *c = construct_get(ra, fn);
	struct sync_graft *g = c ? construct_graft(c, cut) : NULL;
	uint64_t base = c ? __atomic_load_n(&c->base, __ATOMIC_ACQUIRE) : 0;

	runtime_find();
	r->ra = ra;
	r->site_ra = c ? c->ra : ra;
	r->fn = fn;
	r->entry = c;
	r->inner = (struct sync_place){ g, 0, base };
	r->join = (struct sync_place){ g, fn ? fn : SYNC_PLACE_CALL, base };
	r->obj = sync_obj_new((uintptr_t)r);
}

void sync_region_end(struct sync_region *r)
{
	struct construct *c = r->entry;
	struct sync_obj *o = r->obj;

	if (c && o && o->n)
		__atomic_add_fetch(&c->base, __atomic_load_n(&o->arrivals,
				   __ATOMIC_ACQUIRE) / o->n, __ATOMIC_RELEASE);
	sync_obj_free(o);
	r->obj = NULL;
}

struct sync_obj *sync_region_obj(struct sync_region *r, uint32_t n)
{
	uint32_t zero = 0;

	if (r->obj && n && !__atomic_load_n(&r->obj->n, __ATOMIC_ACQUIRE))
		__atomic_compare_exchange_n(&r->obj->n, &zero, n, 0,
					    __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE);
	return r->obj;
}

int sync_region_runtime_pc(uintptr_t pc)
{
	Dl_info info;

	if (rt_in_hpcrun(pc))
		return 1;
	return runtime_base && dladdr((void *)pc, &info) &&
	       (uintptr_t)info.dli_fbase == runtime_base;
}

uint32_t sync_team_size(void)
{
	static int (*omp_get_num_threads)(void);

	if (!omp_get_num_threads)
		omp_get_num_threads =
			rt_optional_symbol(RTLD_DEFAULT, "omp_get_num_threads");
	return omp_get_num_threads ? (uint32_t)omp_get_num_threads() : 0;
}
