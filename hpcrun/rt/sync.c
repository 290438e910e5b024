/*
 * sync.c - barrier episodes, lock waits and phases: sites, objects and
 * their exact aggregates, and the .hpcsync files (hpcrun(5)).
 *
 * Invariants (and sync.h's):
 *  1. A site is a (kind, call instruction, object key, Python path)
 *     tuple with a process-wide id from 1 (0 is the thread's start); the
 *     Python path is rt_py_key (python-frames.h, 0 for a thread running
 *     no Python), so each Python call of one native site is a site of its
 *     own, its call path holding the Python frames as a sample's would.  The table only
 *     grows; an id is published (release) after its entry is whole, so
 *     lookups take no lock.  Each thread keeps the node of the site's call
 *     path in its own tree, made at its first call there (the sample
 *     handler held off by td->busy meanwhile: such a sample counts as
 *     nested).
 *  2. A phase of a thread runs from leaving one barrier-kind site to
 *     arriving at the next; td->sync->phase_start is the site it left,
 *     which the handler reads to put the sample under ^Phases too.
 *  3. Only the calling thread writes its struct sync_thread, but for the
 *     published wait (read by the detector) and the probe and CPU history
 *     (the detector's).
 *  4. An episode's position and last arrival come from its object
 *     (sync.h, invariant 2); for MPI_Barrier the other ranks are other
 *     processes: position -1 and last arrival 0 (unknown here).
 *  5. The thread's CPU clock is read at most once a millisecond of wall
 *     time (thread_cpu): phases and waits of 1 ms or more have their CPU
 *     time exact to the read, shorter ones as their wall time.
 *  6. With hpcrun -t a wait of the calling thread is also an interval of
 *     its trace: a wait record with the site's node at arrival, a record
 *     back to that node at departure (trace.h, invariant 5).
 *  7. A phase's samples are its kind's, by the time each was taken: a
 *     sample of the current phase, from site S, goes under ^Phases, "S"
 *     (the phase's end is not known yet) and the handler notes its node;
 *     at the phase's end, on arrival at site E, the thread moves the
 *     noted nodes' values to the same paths under ^Phases, "S", "E" (the
 *     whole of "S"'s code when more nodes than SYNC_TOUCHED were noted),
 *     holding the handler off with td->busy as any writer of its tree (a
 *     sample meanwhile counts as nested).  A sample taken in a phase that
 *     has ended (a ring's, drained later: source-perf.c, THE RING) goes
 *     under its kind at once, found among the thread's last SYNC_SPANS
 *     phases (older ones: no phase's, counted).  From arrival to leaving
 *     the thread is in no phase: its samples in the barrier are no
 *     phase's.  A kind's placeholder is made at its first phase, samples
 *     or not, so a reader knows the profile keeps phases by kind.  What
 *     is under "S" itself at the end is the phase the thread's end cut
 *     short (or one whose move found the arena full).
 */
#include <errno.h>
#include <fcntl.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <ucontext.h>
#include <unistd.h>

#include "capability.h"
#include "cct.h"
#include "output.h"
#include "python-frames.h"
#include "sync.h"
#include "textrec.h"
#include "trace.h"
#include "unwind.h"

struct sync_config sync_cfg;

_Static_assert(SYNC_ORDERS <= HPCSYNC_MAX_ORDERS,
	       "a sync record holds every arrival order kept");

struct site {
	uintptr_t ra, objkey;
	uint64_t py;
	uint32_t kind, n;
};

#define SITE_HASH 8192
#define OBJ_HASH 8192
static struct site *sites;		/* [SYNC_MAX_SITES], id - 1 */
static uint32_t nsites, site_hash[SITE_HASH];
/* The objects, OBJ_CHUNK to a mapping made when the first of them is
 * taken (about 200 KiB: address space is the program's, under
 * RLIMIT_AS); published before the hash slot that names an object. */
#define OBJ_CHUNK 64
static struct sync_obj *obj_chunks[SYNC_MAX_OBJS / OBJ_CHUNK];
static uint32_t nobjs, obj_hash[OBJ_HASH], obj_free_list[SYNC_MAX_OBJS], nfree;
static int table_lock;			/* spin lock: inserts and frees */
static uint64_t lost_sites, lost_objs, all_episodes, warnings, warn_last;
static uint64_t lost_phase_samples;	/* invariant 7 */
static int warn_lock;
static char warn_log[2048];
static size_t warn_log_len;

static void spin_lock(int *l)
{
	while (__atomic_exchange_n(l, 1, __ATOMIC_ACQUIRE))
		while (__atomic_load_n(l, __ATOMIC_RELAXED))
			__builtin_ia32_pause();
}

static void spin_unlock(int *l)
{
	__atomic_store_n(l, 0, __ATOMIC_RELEASE);
}

uint64_t sync_now(void)
{
	return rt_clock_ns(CLOCK_MONOTONIC);
}

static void *map_zero(size_t bytes)
{
	void *p = mmap(NULL, bytes, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	return p == MAP_FAILED ? NULL : p;
}

/* sync_capability's init: HPCRUN_SYNC and the detector's settings. */
static void sync_init(void)
{
	const char *v = getenv("HPCRUN_SYNC");

	sync_cfg.on = !(v && *v == '0');
	sync_cfg.start_ns = sync_now();
	if (!sync_cfg.on)
		return;
	v = getenv("HPCRUN_SYNC_WARN_MS");
	if (v && *v)
		sync_cfg.warn_ns = (uint64_t)(strtod(v, NULL) * 1e6);
	v = getenv("HPCRUN_HANG_TIMEOUT");
	sync_cfg.hang_ns = (uint64_t)((v && *v ? strtod(v, NULL) : 30.0) * 1e9);
	v = getenv("HPCRUN_HANG_ACTION");
	sync_cfg.hang_abort = v && !strcmp(v, "abort");
	sites = map_zero(SYNC_MAX_SITES * sizeof(*sites));
	if (!sites) {
		sync_cfg.on = 0;
		rt_note("warning: no memory for synchronization measurement: off");
		return;
	}
}

static uint32_t mix(uintptr_t a, uintptr_t b, uint32_t c)
{
	uint64_t h = (a * 0x9e3779b97f4a7c15ull) ^ (b * 0xc2b2ae3d27d4eb4full) ^ c;

	h ^= h >> 29;
	h *= 0xbf58476d1ce4e5b9ull;
	return (uint32_t)(h ^ (h >> 32));
}

/* The id of site (kind, ra, objkey, py), made when new; 0 when the table
 * is full (invariant 1). */
static uint32_t site_id(int kind, uintptr_t ra, uintptr_t objkey,
			uint64_t py, uint32_t n)
{
	uint32_t h = mix(ra ^ py, objkey, (uint32_t)kind), i, id;
	int locked = 0;

	for (;;) {
		for (i = 0; i < SITE_HASH; i++) {
			uint32_t slot = (h + i) & (SITE_HASH - 1);
			const struct site *s;

			id = __atomic_load_n(&site_hash[slot], __ATOMIC_ACQUIRE);
			if (!id) {
				if (!locked)
					break;
				if (nsites == SYNC_MAX_SITES) {
					lost_sites++;
					spin_unlock(&table_lock);
					return 0;
				}
				id = ++nsites;
				sites[id - 1] = (struct site){ ra, objkey, py, (uint32_t)kind, n };
				__atomic_store_n(&site_hash[slot], id, __ATOMIC_RELEASE);
				spin_unlock(&table_lock);
				return id;
			}
			s = &sites[id - 1];
			if (s->ra == ra && s->objkey == objkey && s->py == py &&
			    s->kind == (uint32_t)kind) {
				if (locked)
					spin_unlock(&table_lock);
				return id;
			}
		}
		if (locked) {
			spin_unlock(&table_lock);
			return 0;
		}
		spin_lock(&table_lock);
		locked = 1;
	}
}

int sync_site_info(uint32_t site, int *kind, uintptr_t *obj, uintptr_t *ra)
{
	if (!site || site > __atomic_load_n(&nsites, __ATOMIC_ACQUIRE))
		return -ENOENT;
	*kind = (int)sites[site - 1].kind;
	*obj = sites[site - 1].objkey;
	*ra = sites[site - 1].ra;
	return 0;
}

/* Object k - 1 (k from a hash slot or o_index + 1). */
static struct sync_obj *obj_at(uint32_t k)
{
	return &__atomic_load_n(&obj_chunks[(k - 1) / OBJ_CHUNK],
				__ATOMIC_ACQUIRE)[(k - 1) % OBJ_CHUNK];
}

/* o's k, for its hash slot and the free list. */
static uint32_t obj_k(const struct sync_obj *o)
{
	uint32_t c;

	for (c = 0; c < SYNC_MAX_OBJS / OBJ_CHUNK; c++)
		if (o >= obj_chunks[c] && o < obj_chunks[c] + OBJ_CHUNK)
			return c * OBJ_CHUNK + (uint32_t)(o - obj_chunks[c]) + 1;
	return 0;
}

/* An object for key, the table lock held; NULL when the table is full or
 * its next chunk cannot be mapped. */
static struct sync_obj *obj_take(uintptr_t key)
{
	struct sync_obj *o, *chunk;
	uint32_t gen;

	if (nfree) {
		o = obj_at(obj_free_list[--nfree] + 1);
	} else if (nobjs < SYNC_MAX_OBJS) {
		if (!obj_chunks[nobjs / OBJ_CHUNK]) {
			if (!(chunk = map_zero(OBJ_CHUNK * sizeof(*chunk))))
				return NULL;
			__atomic_store_n(&obj_chunks[nobjs / OBJ_CHUNK], chunk,
					 __ATOMIC_RELEASE);
		}
		o = obj_at(++nobjs);
	} else {
		return NULL;
	}
	gen = o->gen;
	memset(o, 0, sizeof(*o));
	o->gen = gen;
	o->key = key;
	return o;
}

struct sync_obj *sync_obj_get(uintptr_t key, uint32_t n)
{
	uint32_t h = mix(key, 0, 0), i;
	struct sync_obj *o = NULL;

	if (!sync_cfg.on || !sites)
		return NULL;
	for (i = 0; i < OBJ_HASH; i++) {	/* without the lock: published whole */
		uint32_t k = __atomic_load_n(&obj_hash[(h + i) & (OBJ_HASH - 1)],
					     __ATOMIC_ACQUIRE);

		if (!k)
			break;
		o = obj_at(k);
		if (o->key == key && (!n || o->n == n))
			return o;
	}
	o = NULL;
	spin_lock(&table_lock);
	for (i = 0; i < OBJ_HASH; i++) {
		uint32_t slot = (h + i) & (OBJ_HASH - 1), k = obj_hash[slot];

		if (k && obj_at(k)->key == key) {
			o = obj_at(k);
			break;
		}
		if (!k) {
			o = obj_take(key);
			if (o) {
				o->n = n;
				__atomic_store_n(&obj_hash[slot], obj_k(o),
						 __ATOMIC_RELEASE);
			}
			break;
		}
	}
	if (o && n && o->n != n) {
		/* (re)initialized with another count: episodes start over */
		o->gen++;
		memset(&o->arrivals, 0, sizeof(*o) - offsetof(struct sync_obj, arrivals));
		o->n = n;
	}
	if (!o)
		lost_objs++;
	spin_unlock(&table_lock);
	return o;
}

void sync_obj_reset(uintptr_t key)
{
	struct sync_obj *o = sync_obj_get(key, 0);

	if (!o)
		return;
	spin_lock(&table_lock);
	o->gen++;
	memset(&o->arrivals, 0, sizeof(*o) - offsetof(struct sync_obj, arrivals));
	o->n = 0;
	spin_unlock(&table_lock);
}

struct sync_obj *sync_obj_new(uintptr_t key)
{
	struct sync_obj *o;

	if (!sync_cfg.on || !sites)
		return NULL;
	spin_lock(&table_lock);
	o = obj_take(key);
	if (!o)
		lost_objs++;
	spin_unlock(&table_lock);
	return o;
}

void sync_obj_free(struct sync_obj *o)
{
	if (!o)
		return;
	spin_lock(&table_lock);
	o->gen++;
	o->key = 0;
	obj_free_list[nfree++] = obj_k(o) - 1;
	spin_unlock(&table_lock);
}

struct sync_thread *sync_thread_state(struct rt_thread *td)
{
	struct sync_thread *st = __atomic_load_n(&td->sync, __ATOMIC_ACQUIRE), *none = NULL;

	if (st)
		return st;
	st = map_zero(sizeof(struct sync_thread));
	if (!st)
		return NULL;
	if (!__atomic_compare_exchange_n(&td->sync, &none, st, 0, __ATOMIC_ACQ_REL,
					 __ATOMIC_ACQUIRE)) {
		munmap(st, sizeof(*st));	/* the detector's came first */
		return none;
	}
	return st;
}

/* The calling thread's state, made at its first sync call; NULL when not
 * measured. */
static struct sync_thread *thread_state(struct rt_thread *td)
{
	struct sync_thread *st = td->sync;

	if (st && st->phase_wall)
		return st;
	st = sync_thread_state(td);
	if (!st)
		return NULL;
	/* the first phase runs from the thread's start, when its CPU clock
	 * was 0; when that was is not known: its wall time is its CPU time */
	st->phase_cpu = 0;
	st->cpu_last = rt_clock_ns(CLOCK_THREAD_CPUTIME_ID);
	st->cpu_wall = sync_now();
	st->phase_wall = st->cpu_wall - st->cpu_last;
	sync_hang_start();
	return st;
}

/*
 * The node of the calling thread's tree whose path is this call: unwound
 * here (getcontext), its eval frames replaced by their Python frames
 * (python-frames.h), cut below the frame returning to cut, whose address
 * minus 1 is the leaf; placed by pl when it has a graft (sync.h): pl's
 * leaf, or the thread's frames from the leaf up to the first that returns
 * into the OpenMP runtime or hpcrun, then the graft.  0 when the path
 * cannot be had.
 */
static uint32_t call_node(struct rt_thread *td, uintptr_t cut,
			  const struct sync_place *pl)
{
	const struct sync_graft *g = pl && pl->graft && pl->graft->n ?
				     pl->graft : NULL;
	ucontext_t uc;
	struct cct_node *root, *leaf = NULL;
	enum rt_unwind_end end = RT_UNWIND_FAILED;
	int n = 0, i = 0;

	if (rt_cfg.no_unwind || (!(g && pl->leaf) && getcontext(&uc)))
		return 0;
	__atomic_store_n(&td->busy, 1, __ATOMIC_SEQ_CST);
	if (td->closed || !rt_active) {
		__atomic_store_n(&td->busy, 0, __ATOMIC_RELEASE);
		return 0;
	}
	if (g && pl->leaf) {
		/* the leaf alone, or the graft's own call (SYNC_PLACE_CALL) */
		td->frames[0] = pl->leaf + 1;
		n = pl->leaf != SYNC_PLACE_CALL;
	} else {
		n = rt_unwind_guarded(td, &uc, &end);
		for (i = 0; i < n && td->frames[i] != cut; i++)
			;
		if (g && i < n) {
			int k = i + 1;

			while (k < n && !sync_region_runtime_pc(td->frames[k]))
				k++;
			memmove(td->frames, td->frames + i,
				(size_t)(k - i) * sizeof(uintptr_t));
			n = k - i;
			i = 0;
		}
	}
	if (g && i == 0 && end != RT_UNWIND_IN_HANDLER) {
		if (n + g->n > RT_MAX_FRAMES) {
			n = 0;
		} else {
			memcpy(td->frames + n, g->frames, (size_t)g->n * sizeof(uintptr_t));
			if (!n)		/* the call's node, as samples have it */
				td->frames[0] += 1;
			n += g->n;
			end = (enum rt_unwind_end)g->end;
		}
	}
	if (i < n && end != RT_UNWIND_IN_HANDLER) {
		td->frames[i] -= 1;
		root = end == RT_UNWIND_STOP_FRAME ? td->cct.top :
		       end == RT_UNWIND_STACK_BOTTOM ? td->cct.primary :
		       td->cct.partial;
		leaf = cct_path_node(&td->cct, root, td->frames + i, n - i);
	}
	__atomic_store_n(&td->busy, 0, __ATOMIC_RELEASE);
	return leaf ? leaf->id : 0;
}

/* The calling thread's Python path key (invariant 1), the handler held
 * off while the interpreter's memory is read. */
static uint64_t py_key(struct rt_thread *td)
{
	uint64_t k = 0;

	if (!rt_py_is_on())
		return 0;
	__atomic_store_n(&td->busy, 1, __ATOMIC_SEQ_CST);
	if (!td->closed && rt_active)
		k = rt_py_key_guarded(td);
	__atomic_store_n(&td->busy, 0, __ATOMIC_RELEASE);
	return k;
}

/* The thread's aggregates of site (kind, ra, objkey, its Python path)
 * (invariant 1). */
static struct sync_agg *site_agg(struct rt_thread *td, struct sync_thread *st,
				 int kind, uintptr_t ra, uintptr_t objkey,
				 uint32_t n, uintptr_t cut,
				 const struct sync_place *pl)
{
	uint64_t py = py_key(td);
	unsigned c = mix(ra ^ py, objkey, (uint32_t)kind) & 63, i;
	uint32_t id;

	if (st->cache[c].ra == ra && st->cache[c].objkey == objkey &&
	    st->cache[c].py == py && st->cache[c].kind == (uint32_t)kind)
		return st->cache[c].agg;
	id = site_id(kind, ra, objkey, py, n);
	if (!id) {
		st->lost_sites++;
		return NULL;
	}
	for (i = 0; i < SYNC_THREAD_SITES; i++) {
		struct sync_agg *a = &st->agg[(id + i) % SYNC_THREAD_SITES];

		if (a->site == id || !a->site) {
			if (!a->site) {
				a->site = id;
				rt_own_begin();	/* its path: hpcrun's work */
				a->node = call_node(td, cut, pl);
				rt_own_end();
			}
			st->cache[c].ra = ra;
			st->cache[c].objkey = objkey;
			st->cache[c].py = py;
			st->cache[c].kind = (uint32_t)kind;
			st->cache[c].agg = a;
			return a;
		}
	}
	st->lost_sites++;
	return NULL;
}

/*
 * The thread's CPU time at wall time now (invariant 5): the clock is a
 * system call (microseconds on a loaded VM), so it is read at most once per
 * CPU_READ_NS of wall time; in between, CPU time is taken to advance
 * with wall time.
 */
#define CPU_READ_NS 1000000u
static uint64_t thread_cpu(struct sync_thread *st, uint64_t now)
{
	if (now - st->cpu_wall >= CPU_READ_NS) {
		st->cpu_last = rt_clock_ns(CLOCK_THREAD_CPUTIME_ID);
		st->cpu_wall = now;
		return st->cpu_last;
	}
	return st->cpu_last + (now - st->cpu_wall);
}

/* Adds a phase of the thread's start to end; 1 when its kind is new. */
static int phase_add(struct sync_thread *st, uint32_t end, uint64_t cpu,
		     uint64_t wall)
{
	uint32_t h = mix(st->phase_start, end, 7), i;
	int is_new = 0;

	for (i = 0; i < SYNC_THREAD_SITES; i++) {
		struct sync_phase *p = &st->phase[(h + i) % SYNC_THREAD_SITES];

		if (!p->end) {
			p->start = st->phase_start;
			p->end = end;
			is_new = 1;
		}
		if (p->start == st->phase_start && p->end == end) {
			p->count++;
			p->work_ns += cpu;
			p->wall_ns += wall;
			return is_new;
		}
	}
	st->lost_phases++;
	return 0;
}

/* Moves node n's values (n below from) to the node of the same path
 * below to, made when missing; left where they are when that cannot be
 * had (invariant 7).  The path is kept in td->frames, the handler's,
 * which the caller holds off. */
static void phase_move(struct rt_thread *td, const struct cct_node *from,
		       struct cct_node *to, struct cct_node *n)
{
	const struct cct_node *p;
	struct cct_node *x = to;
	int depth = 0, v, any = 0;

	for (v = 0; v < rt_cfg.nev; v++)
		any |= n->val[v] != 0;
	if (!any)
		return;
	for (p = n; p && p != from && depth < RT_MAX_FRAMES; p = p->parent)
		td->frames[depth++] = (uintptr_t)p;
	if (p != from)
		return;
	while (depth > 0 && x) {
		p = (const struct cct_node *)td->frames[--depth];
		x = cct_child(&td->cct, x, p->lm, p->addr);
	}
	if (!x)
		return;
	for (v = 0; v < rt_cfg.nev; v++) {
		x->val[v] += n->val[v];
		n->val[v] = 0;
	}
}

/* The next node of the code below start after n, in depth-first order
 * (its kinds' placeholders, lm 0, and their trees left out); NULL after
 * the last. */
static struct cct_node *phase_next(const struct cct_node *start,
				   struct cct_node *n)
{
	if (n->child)
		return n->child;
	while (n != start && !n->sibling)
		n = n->parent;
	if (n == start)
		return NULL;
	n = n->sibling;
	while (n && n->parent == start && n->lm == 0)
		n = n->sibling;
	return n;
}

/* The placeholder of the phases from start to end below start's (both
 * made when missing), or NULL.  Async-signal-safe. */
static struct cct_node *phase_kind_node(struct cct *c, uint32_t start,
					uint32_t end)
{
	struct cct_node *s = cct_phase_node(c, start);
	char name[9] = "E";

	rt_fmt_u64(name + 1, end % 10000000, 10, 7);
	return s ? cct_child(c, s, 0, cct_placeholder(name)) : NULL;
}

/* The end of the thread's phase at site end (invariant 7): its samples
 * below its kind's placeholder, made for a new kind. */
static void phase_close(struct rt_thread *td, struct sync_thread *st,
			uint32_t end, int new_kind)
{
	struct cct *c = &td->cct;
	struct cct_node *s, *e = NULL, *n;
	uint32_t i;

	if (!st->phase_start || (!new_kind && !st->ntouched &&
				 !st->touched_over))
		return;
	__atomic_store_n(&td->busy, 1, __ATOMIC_SEQ_CST);
	if (!td->closed && rt_active &&
	    (s = cct_phase_node(c, st->phase_start))) {
		__atomic_store_n(&c->hdr->updates, c->hdr->updates + 1,
				 __ATOMIC_RELEASE);
		e = phase_kind_node(c, st->phase_start, end);
		if (e && st->touched_over) {
			for (n = s->child; n && n->lm == 0; n = n->sibling)
				;
			for (; n; n = phase_next(s, n))
				phase_move(td, s, e, n);
		}
		for (i = 0; e && !st->touched_over && i < st->ntouched; i++)
			phase_move(td, s, e, st->touched[i]);
		__atomic_store_n(&c->hdr->updates, c->hdr->updates + 1,
				 __ATOMIC_RELEASE);
	}
	st->ntouched = 0;
	st->touched_over = 0;
	__atomic_store_n(&td->busy, 0, __ATOMIC_RELEASE);
}

/* The wait the detector reads, under the sequence count (sync.h). */
static void publish_wait(struct sync_thread *st, uint32_t site, int kind,
			 unsigned how, struct sync_obj *o, uintptr_t lock,
			 uintptr_t ra, uint64_t e, uint64_t since)
{
	__atomic_store_n(&st->wait.seq, st->wait.seq + 1, __ATOMIC_RELAXED);
	__atomic_thread_fence(__ATOMIC_RELEASE);
	st->wait.site = site;
	st->wait.kind = (uint32_t)kind;
	st->wait.how = how;
	st->wait.obj = o;
	st->wait.lock = lock;
	st->wait.ra = ra;
	st->wait.episode = e;
	st->wait.since = since;
	__atomic_store_n(&st->wait.seq, st->wait.seq + 1, __ATOMIC_RELEASE);
}

static void end_wait(struct sync_thread *st)
{
	__atomic_store_n(&st->wait.seq, st->wait.seq + 1, __ATOMIC_RELAXED);
	__atomic_thread_fence(__ATOMIC_RELEASE);
	st->wait.site = 0;
	__atomic_store_n(&st->wait.seq, st->wait.seq + 1, __ATOMIC_RELEASE);
}

static struct sync_thread *measured(struct rt_thread **tdp)
{
	struct rt_thread *td = rt_self;

	if (!td || !sync_cfg.on || !rt_active || td->closed)
		return NULL;
	*tdp = td;
	return thread_state(td);
}

/* Counts the arrival at o (invariant 4), for every thread of the team
 * whether measured or not, so positions stay right; the episode number. */
static uint64_t arrive_at(struct sync_episode *ep, struct sync_obj *o,
			  unsigned idx)
{
	ep->c = UINT64_MAX;
	if (!o)
		return 0;
	if (!o->n || ep->kind == HPCSYNC_MPI_BARRIER)
		return __atomic_fetch_add(&o->arrivals, 1, __ATOMIC_RELAXED);
	ep->c = sync_arrive(o, ep->arrive, idx, sync_cfg.warn_ns != 0);
	return ep->c / o->n;
}

int sync_barrier_begin(struct sync_episode *ep, int kind, uintptr_t ra,
		       uintptr_t objkey, struct sync_obj *o, uintptr_t cut)
{
	return sync_barrier_begin_at(ep, kind, ra, objkey, o, cut, NULL);
}

int sync_barrier_begin_at(struct sync_episode *ep, int kind, uintptr_t ra,
			  uintptr_t objkey, struct sync_obj *o, uintptr_t cut,
			  const struct sync_place *pl)
{
	struct sync_thread *st = measured(&ep->td);
	struct sync_agg *a = NULL;
	uint64_t e;
	uint32_t i;
	int new_kind;

	rt_own_back();	/* the detector, for this wait */
	if (st)
		a = site_agg(ep->td, st, kind, ra, objkey, o ? o->n : 0, cut,
			     pl);
	ep->kind = kind;
	ep->base = pl ? pl->base : 0;
	ep->o = o;
	ep->arrive = sync_now();
	e = arrive_at(ep, o, st ? (unsigned)ep->td->index : 1023);
	if (!a)
		return -1;
	ep->site = a->site;
	ep->cpu_arrive = thread_cpu(st, ep->arrive);
	new_kind = phase_add(st, a->site, ep->cpu_arrive > st->phase_cpu ?
			     ep->cpu_arrive - st->phase_cpu : 0,
			     ep->arrive - st->phase_wall);
	i = (uint32_t)(st->nspans % SYNC_SPANS);
	st->span[i].from = st->phase_wall;
	st->span[i].to = ep->arrive;
	st->span[i].start = st->phase_start;
	st->span[i].end = a->site;
	st->barrier_since = ep->arrive;
	__atomic_signal_fence(__ATOMIC_RELEASE);	/* whole for the handler */
	st->nspans++;
	st->in_barrier = 1;
	phase_close(ep->td, st, a->site, new_kind);
	ep->e = e;
	publish_wait(st, ep->site, kind, 0, o, 0, 0, e, ep->arrive);
	rt_trace_wait(ep->td, ep->arrive, a->node);
	return 0;
}

static void fmt_ms(char *buf, size_t size, uint64_t ns)
{
	snprintf(buf, size, "%.1f ms", (double)ns / 1e6);
}

/* --sync-warn: the last arriver of an episode whose arrivals spread more
 * than the warning time says so, at most once a second (the rest counted). */
static void warn_spread(const struct sync_episode *ep, uint64_t e, unsigned slot)
{
	const struct sync_obj *o = ep->o;
	char line[1024], a[32], b[32], where[512];
	uint64_t first = o->first[slot], spread = ep->arrive - first, now;
	size_t len;
	uint32_t i;
	int kind;
	uintptr_t obj, ra;

	__atomic_add_fetch(&warnings, 1, __ATOMIC_RELAXED);
	now = sync_now();
	if (__atomic_exchange_n(&warn_lock, 1, __ATOMIC_ACQUIRE))
		return;
	if (warn_last && now - warn_last < 1000000000u) {
		spin_unlock(&warn_lock);
		return;
	}
	warn_last = now;
	if (sync_site_info(ep->site, &kind, &obj, &ra))
		ra = 0;
	sync_describe_pc(ra ? ra - 1 : 0, where, sizeof(where));
	fmt_ms(a, sizeof(a), spread);
	fmt_ms(b, sizeof(b), sync_cfg.warn_ns);
	len = (size_t)snprintf(line, sizeof(line),
			       "sync-warn: site %u (%s at %s) episode %llu: arrival "
			       "spread %s > %s; late:", ep->site,
			       hpcsync_kind_name((enum hpcsync_kind)ep->kind),
			       where, (unsigned long long)e, a, b);
	for (i = 0; i < o->n && i < SYNC_ORDERS && len < sizeof(line) - 64; i++) {
		if (o->when[slot][i] - first <= sync_cfg.warn_ns)
			continue;
		fmt_ms(a, sizeof(a), o->when[slot][i] - first);
		len += (size_t)snprintf(line + len, sizeof(line) - len,
					" thread %u (+%s)", o->who[slot][i], a);
	}
	rt_say(line, NULL);
	if (warn_log_len + strlen(line) + 2 < sizeof(warn_log)) {
		memcpy(warn_log + warn_log_len, line, strlen(line));
		warn_log_len += strlen(line);
		warn_log[warn_log_len++] = '\n';
	}
	spin_unlock(&warn_lock);
}

static unsigned log2_bucket(uint64_t v)
{
	return v ? 63u - (unsigned)__builtin_clzll(v) : 0;
}

void sync_barrier_end(struct sync_episode *ep)
{
	uint64_t depart;

	if (rt_sealed)
		return;		/* waited through a seccomp filter */
	depart = sync_now();
	sync_barrier_end_for(ep, depart, thread_cpu(ep->td->sync, depart));
}

void sync_phase_restart(void)
{
	struct rt_thread *td = rt_self;
	struct sync_thread *st = td ? td->sync : NULL;

	if (rt_sealed)
		return;
	rt_trace_resume(td, 0, 0);	/* its episode ended by another thread */
	if (!st || !st->phase_wall)
		return;
	st->in_barrier = 0;
	st->phase_wall = sync_now();
	st->phase_cpu = st->cpu_last = rt_clock_ns(CLOCK_THREAD_CPUTIME_ID);
	st->cpu_wall = st->phase_wall;
}

void sync_barrier_end_for(struct sync_episode *ep, uint64_t depart,
			  uint64_t cpu)
{
	struct sync_thread *st = ep->td->sync;
	struct sync_agg *a = NULL;
	uint64_t last = 0, e;
	int32_t order = -1;
	uint32_t i;

	if (rt_sealed)
		return;
	e = ep->e;
	end_wait(st);
	for (i = 0; i < SYNC_THREAD_SITES; i++)
		if (st->agg[(ep->site + i) % SYNC_THREAD_SITES].site == ep->site) {
			a = &st->agg[(ep->site + i) % SYNC_THREAD_SITES];
			break;
		}
	if (!a)
		return;
	rt_trace_resume(ep->td, depart, a->node);
	if (ep->c != UINT64_MAX) {
		unsigned slot = (unsigned)(e & 3);
		uint64_t pos = ep->c % ep->o->n;

		last = sync_last_arrival(ep->o, ep->c);
		if (last < ep->arrive)
			last = ep->arrive;
		if (last > depart)
			last = depart;
		order = (int32_t)pos;
		a->orders[pos < SYNC_ORDERS ? pos : SYNC_ORDERS - 1]++;
		if (pos == ep->o->n - 1) {
			a->last++;
			if (sync_cfg.warn_ns && ep->arrive - ep->o->first[slot] > sync_cfg.warn_ns)
				warn_spread(ep, e, slot);
		}
		a->wait_ns += last - ep->arrive;
		a->completion_ns += depart - last;
	} else {
		a->wait_ns += depart - ep->arrive;
	}
	a->episodes++;
	st->dur_hist[log2_bucket(depart - ep->arrive)]++;
	if (st->nkept < SYNC_EPISODES)
		st->ep[st->nkept++] = (struct sync_erec){
			ep->site, order, ep->base + e, ep->arrive, depart, last,
			ep->cpu_arrive, cpu };
	st->total_episodes++;
	if (ep->td == rt_self)		/* else at sync_phase_restart */
		st->in_barrier = 0;
	st->phase_start = ep->site;
	st->phase_cpu = cpu;
	st->phase_wall = depart;
}

void sync_lock_begin(struct sync_lockwait *w, int kind, unsigned how,
		     uintptr_t ra, uintptr_t obj, uintptr_t cut)
{
	struct sync_thread *st = measured(&w->td);
	struct sync_agg *a;

	rt_own_back();	/* the detector, for this wait */
	w->site = 0;
	if (!st || (st->wait.site && st->wait.obj))
		return;		/* inside a barrier (libomp's own waits): its wait */
	if (!(a = site_agg(w->td, st, kind, ra, obj, 0, cut, NULL)))
		return;
	w->site = a->site;
	w->since = sync_now();
	publish_wait(st, w->site, kind, how, NULL, obj, 0, 0, w->since);
	rt_trace_wait(w->td, w->since, a->node);
}

void sync_lock_end(struct sync_lockwait *w)
{
	struct sync_thread *st;
	uint64_t t;
	uint32_t i;

	if (!w->site || rt_sealed)
		return;
	t = sync_now();
	st = w->td->sync;
	end_wait(st);
	for (i = 0; i < SYNC_THREAD_SITES; i++) {
		struct sync_agg *a = &st->agg[(w->site + i) % SYNC_THREAD_SITES];

		if (a->site == w->site) {
			rt_trace_resume(w->td, t, a->node);
			a->calls++;
			a->blocked++;
			a->wait_ns += t - w->since;
			return;
		}
	}
}

void sync_join_begin(struct sync_lockwait *w, uintptr_t ra, uintptr_t thread)
{
	struct sync_thread *st = measured(&w->td);

	rt_own_back();	/* the detector, for this wait */
	w->site = 0;
	if (!st || st->wait.site)
		return;
	w->site = SYNC_JOIN_SITE;
	w->since = sync_now();
	publish_wait(st, w->site, SYNC_KIND_JOIN, 0, NULL, thread, ra, 0,
		     w->since);
}

void sync_join_end(struct sync_lockwait *w)
{
	if (w->site)
		end_wait(w->td->sync);
}

void sync_phase_sample(struct rt_thread *td, int n, uint64_t time, int idx,
		       double val)
{
	struct sync_thread *st = td->sync;
	struct cct_node *node;
	uint64_t t = time ? time : UINT64_MAX, k;

	if (!st)
		return;
	if (!st->in_barrier && t >= st->phase_wall) {	/* the current phase */
		if (!st->phase_start)
			return;
		node = cct_phase_node(&td->cct, st->phase_start);
		if (!node ||
		    cct_insert(&td->cct, node, td->frames, n, time, idx, val) ||
		    !(node = td->cct.leaf))
			return;
		if (st->ntouched && st->touched[st->ntouched - 1] == node)
			return;
		if (st->ntouched < SYNC_TOUCHED)
			st->touched[st->ntouched++] = node;
		else
			st->touched_over = 1;
		return;
	}
	if (st->in_barrier && t >= st->barrier_since)
		return;					/* in a barrier */
	for (k = st->nspans; k > 0 && st->nspans - k < SYNC_SPANS; k--) {
		const __typeof__(st->span[0]) *sp = &st->span[(k - 1) % SYNC_SPANS];

		if (t >= sp->to)
			return;				/* in a barrier */
		if (t >= sp->from) {			/* an ended phase */
			if (sp->start &&
			    (node = phase_kind_node(&td->cct, sp->start,
						    sp->end)))
				cct_insert(&td->cct, node, td->frames, n, time,
					   idx, val);
			return;
		}
	}
	st->lost_phase_samples++;
}

/* The .hpcsync file of thread arg (hpcrun(5)): each aggregate's site,
 * then its sync or lock record, in the order of the thread's table. */
static void fill_sync(struct textrec_out *o, void *arg)
{
	const struct rt_thread *td = arg;
	const struct sync_thread *st = td->sync;
	struct hpcsync head = {
		.thread = td->index, .rank = rt_cfg.rank,
		.clock = sync_cfg.clock, .clock_offset = sync_cfg.clock_offset,
		.clock_err = sync_cfg.clock_err,
		.kept = st->nkept, .total = st->total_episodes,
	};
	uint32_t i, k;

	hpcsync_write_head(o, &head);
	for (i = 0; i < SYNC_THREAD_SITES; i++) {
		const struct sync_agg *a = &st->agg[i];
		const struct site *s;

		if (!a->site)
			continue;
		s = &sites[a->site - 1];
		hpcsync_write_site(o, &(struct hpcsync_site){
			a->site, (enum hpcsync_kind)s->kind, s->objkey,
			a->node, s->n });
	}
	for (i = 0; i < SYNC_THREAD_SITES; i++) {
		const struct sync_agg *a = &st->agg[i];
		const struct site *s;
		struct hpcsync_sync y;

		if (!a->site)
			continue;
		s = &sites[a->site - 1];
		if (!hpcsync_is_barrier((enum hpcsync_kind)s->kind)) {
			hpcsync_write_lock(o, &(struct hpcsync_lock){
				a->site, a->calls, a->blocked,
				(double)a->wait_ns / 1e9 });
			continue;
		}
		y.site = a->site;
		y.episodes = a->episodes;
		y.wait = (double)a->wait_ns / 1e9;
		y.completion = (double)a->completion_ns / 1e9;
		y.last = a->last;
		y.norders = s->kind == HPCSYNC_MPI_BARRIER ? 0 :
			    s->n < SYNC_ORDERS ? s->n : SYNC_ORDERS;
		for (k = 0; k < y.norders; k++)
			y.orders[k] = a->orders[k];
		hpcsync_write_sync(o, &y);
	}
	for (i = 0; i < SYNC_THREAD_SITES; i++) {
		const struct sync_phase *p = &st->phase[i];

		if (p->end)
			hpcsync_write_phase(o, &(struct hpcsync_phase){
				p->start, p->end, p->count,
				(double)p->work_ns / 1e9,
				(double)p->wall_ns / 1e9 });
	}
	for (i = 0; i < st->nkept; i++) {
		const struct sync_erec *r = &st->ep[i];

		hpcsync_write_episode(o, &(struct hpcsync_episode){
			.site = r->site, .n = r->n, .arrive = r->arrive,
			.depart = r->depart, .lastarr = r->last,
			.order = r->order, .cpu_arrive = r->cpu_arrive,
			.cpu_depart = r->cpu_depart });
	}
	hpcsync_write_tail(o, &head);
}

/* Writes the thread's .hpcsync next to its profile (profile: the
 * profile's path). */
static void sync_thread_write(struct rt_thread *td, const char *profile)
{
	if (!td->sync || !td->sync->phase_wall)
		return;
	__atomic_add_fetch(&all_episodes, td->sync->total_episodes, __ATOMIC_RELAXED);
	__atomic_add_fetch(&lost_phase_samples, td->sync->lost_phase_samples,
			   __ATOMIC_RELAXED);
	rt_side_file(profile, ".hpcsync", fill_sync, td, "synchronization record lost");
}

/* Frees td's state (at its end; in a fork child, the parent's). */
static void sync_thread_free(struct rt_thread *td)
{
	if (td->sync)
		munmap(td->sync, sizeof(struct sync_thread));
	td->sync = NULL;
}

/* The log's sync lines through put(text). */
static void sync_log(void (*put)(const char *text))
{
	char line[128];

	put(sync_cfg.on ? "sync: on\n" : "sync: off\n");
	if (!sync_cfg.on)
		return;
	snprintf(line, sizeof(line), "sync-sites: %u\nsync-episodes: %llu\n"
		 "sync-warnings: %llu\nhang-reports: %llu\n", nsites,
		 (unsigned long long)all_episodes, (unsigned long long)warnings,
		 (unsigned long long)sync_hang_reports());
	put(line);
	if (warn_log_len) {
		warn_log[warn_log_len] = '\0';
		put(warn_log);
	}
	if (lost_sites || lost_objs) {
		snprintf(line, sizeof(line), "sync-lost: %llu sites, %llu objects\n",
			 (unsigned long long)lost_sites, (unsigned long long)lost_objs);
		put(line);
	}
	if (lost_phase_samples) {
		snprintf(line, sizeof(line), "sync-phase-samples-lost: %llu "
			 "(taken before the thread's last %u phases)\n",
			 (unsigned long long)lost_phase_samples, SYNC_SPANS);
		put(line);
	}
}

/* An exec failed and the process measures on: the next log counts its
 * own episodes and warnings. */
static void sync_exec_failed(void)
{
	all_episodes = lost_phase_samples = warnings = 0;
	warn_log_len = 0;
}

/* td measures on after a failed exec, in a new tree: its state, whose
 * aggregates and phase name nodes of the old tree and whose episodes went
 * with the old profile, starts over as at the thread's first call.  No
 * wrapper or sample of td is in its tree work now: td is closed, and the
 * end of the old generation waited for td->busy (capability.h,
 * invariant 2). */
static void sync_exec_failed_thread(struct rt_thread *td)
{
	if (td->sync)
		memset(td->sync, 0, sizeof(*td->sync));
}

const struct rt_capability sync_capability = {
	.name = "sync",
	.init = sync_init,
	.thread_written = sync_thread_write,
	.thread_release = sync_thread_free,
	.log = sync_log,
	.exec_failed = sync_exec_failed,
	.exec_failed_thread = sync_exec_failed_thread,
};
