/*
 * sync-ompt.c - libomp's barriers and region joins measured through its
 * own tool interface, OMPT (OpenMP 5.x): libhpcrun.so exports
 * ompt_start_tool (libhpcrun.map), which libomp calls at its start.
 *
 *   callback                 what it does
 *   parallel_begin           the master begins the region (sync-region.c:
 *                            its path to the construct's call, the
 *                            construct its outlined function)
 *   parallel_end             the master ends it
 *   sync_region_wait begin   the calling thread's barrier episode begins:
 *                            an explicit or worksharing barrier (kind
 *                            kmp-barrier), or the region's implicit end
 *                            barrier (kmp-join)
 *   sync_region_wait end     it ends
 *
 * Invariants:
 *  1. A thread's wait at a barrier is its time in libomp's barrier wait,
 *     spinning or blocked, from the wait's begin to the last thread's
 *     begin (sync.h's definition of wait); its departure is the wait's
 *     end.  A worker at a join waits on in libomp until the next region
 *     (or the runtime's end, after hpcrun's): the master ends the
 *     workers' join episodes when its own ends (all have arrived then),
 *     their departure its, their CPU time their arrival's; each worker's
 *     next phase starts when libomp lets it go.
 *  2. A construct's episodes, its barriers and its join, count arrivals at
 *     one object per (construct, team size) kept for the process: a
 *     worker ends its join after the master ended the region, so no
 *     object of the region alone would still be there.  Regions of one
 *     construct run at once by two threads (nested parallelism) share
 *     it, and their episodes mix.
 *  3. A tool the program brings comes first: when another ompt_start_tool
 *     follows libhpcrun.so in the lookup order (dlsym(RTLD_NEXT)) and
 *     returns a tool, libomp gets hpcrun's result, whose initializer and
 *     finalizer call that tool's, and hpcrun registers no callback of its
 *     own (the tool's would be replaced): libomp's barriers are then
 *     measured through the __kmpc_barrier wrapper (sync-interpose.c), as
 *     when OMPT is absent (OMP_TOOL=disabled, or an older runtime).
 *  4. A thread's state (its regions as master, 8.6 KiB) is taken from a
 *     pool at its first callback and goes back at its end (a key's
 *     destructor); the pool is never unmapped, as a master reads its
 *     workers' states (close_team).  Static TLS would take those bytes
 *     from every thread's stack, and a thread of 16 KiB overflowed.
 *     A thread without one (no memory, no key) is not measured by OMPT.
 *  5. Callbacks run in the program's threads outside any signal handler
 *     (sync.h invariant 1); with --no-sync, before hpcrun's start and
 *     after its end they do nothing.
 *  6. OMPT tells a region's call (codeptr_ra), not its outlined function,
 *     which is what makes calls one construct (sync-region.c, invariant
 *     1).  So __kmpc_fork_call, the variadic call that starts every region
 *     clang compiles, is wrapped by a trampoline that notes its return
 *     address and microtask in the calling thread and jumps to the real
 *     one with every register as it came; parallel_begin, called by the
 *     real one on the same thread before any other fork, takes the
 *     microtask when the noted return address is its codeptr_ra.
 */
#include <dlfcn.h>
#include <pthread.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "interpose.h"
#include "slab.h"
#include "sync.h"
#include "unwind.h"

/* The OMPT ABI this file uses (OpenMP 5.1, section 19; omp-tools.h is
 * not installed where gcc finds it). */
typedef union {
	uint64_t value;
	void *ptr;
} ompt_data_t;
typedef void (*ompt_interface_fn_t)(void);
typedef ompt_interface_fn_t (*ompt_function_lookup_t)(const char *name);
typedef int (*ompt_initialize_t)(ompt_function_lookup_t lookup,
				 int initial_device_num, ompt_data_t *tool_data);
typedef void (*ompt_finalize_t)(ompt_data_t *tool_data);
typedef struct {
	ompt_initialize_t initialize;
	ompt_finalize_t finalize;
	ompt_data_t tool_data;
} ompt_start_tool_result_t;
typedef int (*ompt_set_callback_t)(int event, ompt_interface_fn_t callback);
typedef int (*ompt_get_num_threads_t)(void);

enum {
	OMPT_CB_PARALLEL_BEGIN = 3, OMPT_CB_PARALLEL_END = 4,
	OMPT_CB_SYNC_REGION_WAIT = 16,
	OMPT_SET_ALWAYS = 5,
	OMPT_SCOPE_BEGIN = 1, OMPT_SCOPE_END = 2,
	/* ompt_sync_region_t */
	OMPT_BARRIER = 1, OMPT_BARRIER_IMPLICIT = 2, OMPT_BARRIER_EXPLICIT = 3,
	OMPT_BARRIER_IMPLEMENTATION = 4, OMPT_BARRIER_IMPLICIT_WORKSHARE = 8,
	OMPT_BARRIER_IMPLICIT_PARALLEL = 9,
};

RT_API ompt_start_tool_result_t *ompt_start_tool(unsigned int omp_version,
						 const char *runtime_version);

#define OMPT_NESTING 4

#define OMPT_TEAM 256

struct ompt_thread;

/* A region: the workers whose join the master ends (invariant 1). */
struct ompt_region {
	struct sync_region sr;
	uint32_t nteam;			/* atomic */
	struct ompt_thread *team[OMPT_TEAM];
};

/* The calling thread's regions (as master) and open episode. */
struct ompt_thread {
	int depth;
	struct ompt_region region[OMPT_NESTING];
	int in;				/* ep is open */
	int closed;			/* its master ended ep */
	struct sync_episode ep;
	struct ompt_region *ep_region;	/* ep's */
	struct ompt_thread *next;	/* in the pool */
};
static __thread struct ompt_thread *ompt_self
	__attribute__((tls_model("initial-exec")));

/* The pool of states (invariant 4): free ones, and a slab of new ones. */
#define OMPT_SLAB ((size_t)256 << 10)
static struct ompt_thread *ompt_free;
static struct rt_slab ompt_slab;
static unsigned ompt_pool_lock;
static pthread_key_t ompt_key;
static int ompt_key_made;

/* Back to the pool: the key's destructor, on the thread that ends (or
 * a state that could not be keyed, never its thread's). */
static void ompt_thread_put(void *p)
{
	struct ompt_thread *ot = p;

	if (ompt_self == ot)
		ompt_self = NULL;
	rt_lock_take(&ompt_pool_lock);
	ot->next = ompt_free;
	ompt_free = ot;
	rt_lock_drop(&ompt_pool_lock);
}

/* The calling thread's state, or NULL (invariant 4). */
static struct ompt_thread *ompt_thread(void)
{
	struct ompt_thread *ot = ompt_self;

	if (ot || !__atomic_load_n(&ompt_key_made, __ATOMIC_ACQUIRE))
		return ot;
	rt_lock_take(&ompt_pool_lock);
	if ((ot = ompt_free))
		ompt_free = ot->next;
	else
		ot = rt_slab_carve(&ompt_slab, sizeof(*ot), OMPT_SLAB);
	rt_lock_drop(&ompt_pool_lock);
	if (!ot)
		return NULL;
	memset(ot, 0, sizeof(*ot));
	if (pthread_setspecific(ompt_key, ot)) {
		ompt_thread_put(ot);
		return NULL;
	}
	ompt_self = ot;
	return ot;
}

/* The calling thread's last __kmpc_fork_call (invariant 6). */
static __thread struct {
	uintptr_t ra, fn;
} fork_noted __attribute__((tls_model("initial-exec")));

/* The trampoline's C half: notes the call, returns the real function. */
typedef void kmpc_fork_call_fn(void *loc, int32_t argc, void *microtask, ...);
RT_API kmpc_fork_call_fn __kmpc_fork_call;
RT_REAL_DEFINE(__kmpc_fork_call);

__attribute__((used, visibility("hidden")))
void *sync_ompt_fork_note(uintptr_t ra, uintptr_t microtask);
void *sync_ompt_fork_note(uintptr_t ra, uintptr_t microtask)
{
	fork_noted.ra = ra;
	fork_noted.fn = microtask;
	return (void *)RT_REAL(__kmpc_fork_call);
}

/* __kmpc_fork_call(loc, argc, microtask, ...): the argument registers
 * (and %al, the variadic call's vector count) kept around the note, the
 * real function entered with the caller's return address on the stack. */
__asm__(".section .text.__kmpc_fork_call, \"ax\", @progbits\n"
	".globl __kmpc_fork_call\n"
	".type __kmpc_fork_call, @function\n"
	"__kmpc_fork_call:\n"
	".cfi_startproc\n"
	"push %rdi\n.cfi_adjust_cfa_offset 8\n"
	"push %rsi\n.cfi_adjust_cfa_offset 8\n"
	"push %rdx\n.cfi_adjust_cfa_offset 8\n"
	"push %rcx\n.cfi_adjust_cfa_offset 8\n"
	"push %r8\n.cfi_adjust_cfa_offset 8\n"
	"push %r9\n.cfi_adjust_cfa_offset 8\n"
	"push %rax\n.cfi_adjust_cfa_offset 8\n"
	"mov 56(%rsp), %rdi\n"
	"mov %rdx, %rsi\n"
	"call sync_ompt_fork_note\n"
	"mov %rax, %r11\n"
	"pop %rax\n.cfi_adjust_cfa_offset -8\n"
	"pop %r9\n.cfi_adjust_cfa_offset -8\n"
	"pop %r8\n.cfi_adjust_cfa_offset -8\n"
	"pop %rcx\n.cfi_adjust_cfa_offset -8\n"
	"pop %rdx\n.cfi_adjust_cfa_offset -8\n"
	"pop %rsi\n.cfi_adjust_cfa_offset -8\n"
	"pop %rdi\n.cfi_adjust_cfa_offset -8\n"
	"jmp *%r11\n"
	".cfi_endproc\n"
	".size __kmpc_fork_call, .-__kmpc_fork_call\n"
	".previous\n");

static int ompt_measuring;		/* callbacks registered */
static ompt_start_tool_result_t *other;	/* the program's tool (invariant 3) */

int sync_ompt_active(void)
{
	return __atomic_load_n(&ompt_measuring, __ATOMIC_RELAXED);
}

static int measuring(void)
{
	return sync_cfg.on && rt_active && rt_self && !rt_self->closed;
}

static void on_parallel_begin(ompt_data_t *task, const void *task_frame,
			      ompt_data_t *parallel, unsigned int requested,
			      int flags, const void *codeptr_ra)
{
	struct ompt_thread *ot = ompt_thread();
	uintptr_t ra = (uintptr_t)codeptr_ra;

	(void)task;
	(void)task_frame;
	(void)requested;
	(void)flags;
	parallel->ptr = NULL;
	if (!ot || ot->depth++ >= OMPT_NESTING || !ra || !measuring() ||
	    rt_in_hpcrun(ra))
		return;
	sync_region_begin_graft(&ot->region[ot->depth - 1].sr, ra,
				fork_noted.ra == ra ? fork_noted.fn : 0, ra);
	ot->region[ot->depth - 1].nteam = 0;
	parallel->ptr = &ot->region[ot->depth - 1];
}

static void on_parallel_end(ompt_data_t *parallel, ompt_data_t *task,
			    int flags, const void *codeptr_ra)
{
	(void)parallel;
	(void)task;
	(void)flags;
	(void)codeptr_ra;
	if (ompt_self && ompt_self->depth > 0)
		ompt_self->depth--;
}

/* The construct's object for a team of n (invariant 2). */
static struct sync_obj *construct_obj(uintptr_t ra, uint32_t n)
{
	return sync_obj_get((ra * 4096 + n) | 3, n);
}

/* The master, leaving the join at now: the workers' join episodes end. */
static void close_team(struct ompt_region *or, uint64_t now)
{
	uint32_t i, n = __atomic_load_n(&or->nteam, __ATOMIC_ACQUIRE);

	for (i = 0; i < n && i < OMPT_TEAM; i++) {
		struct ompt_thread *w = __atomic_load_n(&or->team[i],
							__ATOMIC_ACQUIRE);

		if (!w || !w->in || w->closed)
			continue;
		sync_barrier_end_for(&w->ep, now, w->ep.cpu_arrive);
		w->closed = 1;
	}
	or->nteam = 0;
}

static void on_sync_region_wait(int kind, int endpoint, ompt_data_t *parallel,
				ompt_data_t *task, const void *codeptr_ra)
{
	struct ompt_thread *ot = ompt_thread();
	struct ompt_region *or;
	const struct sync_region *r;
	uintptr_t ra = (uintptr_t)codeptr_ra;
	uint32_t n, i;
	int join;

	(void)task;
	if (!ot)
		return;
	if (endpoint == OMPT_SCOPE_END) {
		if (ot->closed)
			sync_phase_restart();
		else if (ot->in)
			sync_barrier_end(&ot->ep);
		if (ot->in && ot->ep.kind == HPCSYNC_KMP_JOIN && ot->depth > 0 &&
		    (or = &ot->region[ot->depth - 1]) == ot->ep_region)
			close_team(or, sync_now());
		ot->in = ot->closed = 0;
		return;
	}
	if (endpoint != OMPT_SCOPE_BEGIN || ot->in || !parallel ||
	    !(or = parallel->ptr) || !measuring())
		return;
	r = &or->sr;
	switch (kind) {
	case OMPT_BARRIER_IMPLICIT_PARALLEL:
		join = 1;
		break;
	case OMPT_BARRIER_IMPLICIT:	/* the join, or a worksharing end */
		join = !ra || ra == r->ra;
		break;
	case OMPT_BARRIER: case OMPT_BARRIER_EXPLICIT:
	case OMPT_BARRIER_IMPLEMENTATION: case OMPT_BARRIER_IMPLICIT_WORKSHARE:
		join = 0;
		break;
	default:
		return;			/* taskwait, taskgroup, reduction */
	}
	n = sync_team_size();
	if (n < 1 || (!join && (!ra || rt_in_hpcrun(ra))))
		return;
	ot->in = !sync_barrier_begin_at(&ot->ep, join ? HPCSYNC_KMP_JOIN : HPCSYNC_KMP_BARRIER,
					join ? r->site_ra : ra, n,
					construct_obj(r->site_ra, n), ra,
					join ? &r->join : &r->inner);
	ot->ep_region = or;
	if (ot->in && join && !(ot->depth > 0 && or == &ot->region[ot->depth - 1]) &&
	    (i = __atomic_fetch_add(&or->nteam, 1, __ATOMIC_ACQ_REL)) < OMPT_TEAM)
		__atomic_store_n(&or->team[i], ot, __ATOMIC_RELEASE);
}

static const struct {
	int event;
	ompt_interface_fn_t fn;
} callbacks[] = {
	{ OMPT_CB_PARALLEL_BEGIN, (ompt_interface_fn_t)on_parallel_begin },
	{ OMPT_CB_PARALLEL_END, (ompt_interface_fn_t)on_parallel_end },
	{ OMPT_CB_SYNC_REGION_WAIT, (ompt_interface_fn_t)on_sync_region_wait },
};

static int ompt_initialize(ompt_function_lookup_t lookup, int device,
			   ompt_data_t *data)
{
	ompt_set_callback_t set;
	size_t i;
	int all = 1;

	(void)data;
	if (other)		/* invariant 3 */
		return other->initialize(lookup, device, &other->tool_data);
	set = (ompt_set_callback_t)lookup("ompt_set_callback");
	if (!set)
		return 0;
	if (!ompt_key_made) {
		if (pthread_key_create(&ompt_key, ompt_thread_put))
			return 0;
		__atomic_store_n(&ompt_key_made, 1, __ATOMIC_RELEASE);
	}
	for (i = 0; i < sizeof(callbacks) / sizeof(callbacks[0]); i++)
		all &= set(callbacks[i].event, callbacks[i].fn) == OMPT_SET_ALWAYS;
	if (!all) {
		/* a runtime that would not tell every wait: the wrapper's */
		for (i = 0; i < sizeof(callbacks) / sizeof(callbacks[0]); i++)
			set(callbacks[i].event, NULL);
		return 0;
	}
	__atomic_store_n(&ompt_measuring, 1, __ATOMIC_RELEASE);
	return 1;
}

static void ompt_finalize(ompt_data_t *data)
{
	(void)data;
	__atomic_store_n(&ompt_measuring, 0, __ATOMIC_RELEASE);
	if (other && other->finalize)
		other->finalize(&other->tool_data);
}

RT_API ompt_start_tool_result_t *ompt_start_tool(unsigned int omp_version,
						 const char *runtime_version)
{
	static ompt_start_tool_result_t mine = { ompt_initialize, ompt_finalize,
						 { 0 } };
	ompt_start_tool_result_t *(*next)(unsigned int, const char *) =
		rt_optional_symbol(RTLD_NEXT, "ompt_start_tool");

	if (next && next != ompt_start_tool)
		other = next(omp_version, runtime_version);
	if (!other && !sync_cfg.on)
		return NULL;
	return &mine;
}
