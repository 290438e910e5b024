/*
 * sharing.c - hpcrun --sharing: the access records of the data samples
 * (sharing.h has the design and its invariants).
 *
 * The object table, bucketed by start address (BUCKET_WAYS slots a
 * bucket; a slot is free when its start is 0), gives each object a
 * process-wide id the first time a sample falls in it; a sample handler
 * claims a free slot with a compare-and-swap on its start, and
 * rt_sharing_forget frees the slots of a block going back to the
 * allocator.  Each thread keeps its records in a buffer of its own
 * (reserved, touched only as it fills, doubled as it fills up to
 * THREAD_RECORDS, only ever by its own thread): the handler writes the next
 * record, and commits it (advances the count) once the sample's path is
 * in the tree.
 *
 * A thread's state is a small header, with its buffer mapped by the
 * handler at the thread's first record (as the arena's chunks are,
 * sample.c): a thread that records nothing maps none.  Headers and
 * buffers outlive their threads: thread end puts the header, with its
 * buffer, in a pool that the next thread to start takes it from, so a
 * program that churns short threads maps, faults in and unmaps nothing
 * per thread (each munmap of a touched page flushes the TLB of every
 * CPU running the program).  A buffer stays with its header only when
 * its touched part is small (POOL_KEEP_BYTES, at most POOL_MAX such
 * buffers pooled): the pool holds no more memory than that.  Headers come
 * from slabs, never unmapped (one per thread alive at once).  The pool's
 * lock is taken at thread start and end only, never in the handler.
 */
#include <fnmatch.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include "capability.h"
#include "datacentric.h"
#include "futex.h"
#include "hpcshare.h"
#include "output.h"
#include "runtime.h"
#include "sharing.h"
#include "slab.h"
#include "textrec.h"

#define OBJ_BUCKETS 4096
#define BUCKET_WAYS 8
/* Records a thread keeps (the rest counted as dropped): 4 minutes at
 * the default rate with every sample in an object. */
#define THREAD_RECORDS (1u << 20)
/* A buffer's first size, in records (3 s at 5 kHz), doubled by mremap as
 * it fills: its address space is the program's, under RLIMIT_AS. */
#define FIRST_RECORDS (1u << 14)
#define MAX_NODES 64
/* --watch globs kept (the launcher refuses more). */
#define MAX_GLOBS 32
/* The pool: buffers kept for the next threads, and the most records a
 * kept one has ever held (its touched pages stay); the slab of headers. */
#define POOL_MAX 256
#define POOL_KEEP_BYTES ((uint64_t)256 << 10)
#define SLAB_BYTES ((size_t)64 << 10)

struct wobj {
	uintptr_t start;		/* 0: free slot */
	uint64_t bytes;
	uint32_t oid;
};

struct srec {
	uint64_t time, start, bytes, off;
	uint32_t oid, cpu, objnode, node;
	uint8_t size, rw, first, kind, watched;
};

struct rt_share_thread {
	uint64_t n, dropped, untracked;
	uint64_t begin, end;		/* its span, CLOCK_MONOTONIC ns */
	uint64_t high;			/* most records rec has held */
	int pending;			/* rec[n] waits for its commit */
	struct rt_share_thread *next;	/* in the pool */
	struct srec *rec;		/* cap records, or NULL: none yet */
	uint64_t cap;
};

struct rt_sharing_config rt_sharing;

static struct wobj objs[OBJ_BUCKETS][BUCKET_WAYS];
static uint32_t next_oid;
static char node_list[MAX_NODES][128];
static int nnodes;
static uint64_t lost_objs, dropped, untracked, records;
static char *globs[MAX_GLOBS];
static unsigned char glob_used[MAX_GLOBS];
static int nglobs;
static struct rt_share_thread *pool;
static unsigned pool_lock, pool_bufs;	/* pool_bufs: buffers in the pool */
static struct rt_slab slab;

/* ---- configuration ---- */

/* HPCRUN_WATCH: comma-separated globs (invariant 5). */
static void parse_watch(const char *v)
{
	char *copy = strdup(v), *tok, *save = NULL;

	for (tok = copy ? strtok_r(copy, ",", &save) : NULL;
	     tok && nglobs < MAX_GLOBS; tok = strtok_r(NULL, ",", &save))
		if (*tok)
			globs[nglobs++] = tok;
}

int rt_sharing_watching(void)
{
	return nglobs > 0;
}

int rt_sharing_watch_name(const char *name)
{
	int i, hit = 0;

	for (i = 0; i < nglobs && *name; i++)
		if (!fnmatch(globs[i], name, 0)) {
			glob_used[i] = 1;
			hit = 1;
		}
	return hit;
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


/* sharing_capability's init: HPCRUN_SHARING and HPCRUN_NUMA_NODES (after
 * data's init). */
static void sharing_init(void)
{
	const char *v = getenv("HPCRUN_SHARING");

	if (!v || *v != '1' || !rt_data.on)
		return;
	rt_sharing.on = 1;
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

/* ---- the object table ---- */

static unsigned hash_addr(uintptr_t a)
{
	return (unsigned)(((a >> 4) * 0x9e3779b97f4a7c15ull) >> 40) % OBJ_BUCKETS;
}

static struct wobj *obj_find(uintptr_t start)
{
	struct wobj *b = objs[hash_addr(start)];
	int i;

	for (i = 0; i < BUCKET_WAYS; i++)
		if (__atomic_load_n(&b[i].start, __ATOMIC_ACQUIRE) == start)
			return &b[i];
	return NULL;
}

/* The object at start of bytes, claimed when missing; NULL when its
 * bucket is full or another thread is claiming it (invariant 3). */
static struct wobj *obj_get(uintptr_t start, uint64_t bytes)
{
	struct wobj *o = obj_find(start), *b;
	int i;

	if (o)
		return __atomic_load_n(&o->bytes, __ATOMIC_ACQUIRE) == bytes ? o : NULL;
	b = objs[hash_addr(start)];
	for (i = 0; i < BUCKET_WAYS; i++) {
		uintptr_t z = 0;

		if (__atomic_load_n(&b[i].start, __ATOMIC_RELAXED))
			continue;
		if (!__atomic_compare_exchange_n(&b[i].start, &z, start, 0,
						 __ATOMIC_ACQ_REL, __ATOMIC_RELAXED))
			continue;
		b[i].oid = __atomic_add_fetch(&next_oid, 1, __ATOMIC_RELAXED);
		__atomic_store_n(&b[i].bytes, bytes, __ATOMIC_RELEASE);
		return &b[i];
	}
	__atomic_add_fetch(&lost_objs, 1, __ATOMIC_RELAXED);
	return NULL;
}

void rt_sharing_forget(uintptr_t start)
{
	struct wobj *o;

	if (!rt_sharing.on || !(o = obj_find(start)))
		return;
	__atomic_store_n(&o->bytes, 0, __ATOMIC_RELAXED);
	__atomic_store_n(&o->start, 0, __ATOMIC_RELEASE);
}

/* ---- the records (invariant 3) ---- */

void rt_sharing_access(struct rt_thread *td, int kind, uintptr_t start,
		       uint64_t bytes, const struct cct_node *obj, int watched,
		       uintptr_t a, unsigned size, int rw, int first,
		       uint64_t time)
{
	struct rt_share_thread *st = td->share;
	struct wobj *w;
	struct srec *r;

	if (!st)
		return;
	st->pending = 0;
	if (!(w = obj_get(start, bytes)))
		return;
	if (!st->rec) {
		void *p = mmap(NULL, FIRST_RECORDS * sizeof(struct srec),
			       PROT_READ | PROT_WRITE,
			       MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);

		if (p != MAP_FAILED) {
			st->rec = p;
			st->cap = FIRST_RECORDS;
		}
	} else if (st->n == st->cap && st->cap < THREAD_RECORDS) {
		void *p = mremap(st->rec, st->cap * sizeof(struct srec),
				 2 * st->cap * sizeof(struct srec), MREMAP_MAYMOVE);

		if (p != MAP_FAILED) {
			st->rec = p;
			st->cap *= 2;
		}
	}
	if (!st->rec || st->n >= st->cap) {
		st->dropped++;
		return;
	}
	r = &st->rec[st->n];
	r->time = time ? time : rt_clock_ns(CLOCK_MONOTONIC);
	r->cpu = (uint32_t)sched_getcpu();
	r->oid = w->oid;
	r->kind = (uint8_t)kind;
	r->start = start;
	r->bytes = bytes;
	r->off = a - start;
	r->size = (uint8_t)(size > 64 ? 0 : size);
	r->rw = (uint8_t)rw;
	r->first = (uint8_t)first;
	r->watched = (uint8_t)(watched != 0);
	r->objnode = obj ? obj->id : 0;
	r->node = 0;
	st->pending = 1;
}

void rt_sharing_commit(struct rt_thread *td, const struct cct_node *leaf)
{
	struct rt_share_thread *st = td->share;

	if (!st || !st->pending)
		return;
	st->pending = 0;
	st->rec[st->n++].node = leaf ? leaf->id : 0;
}

void rt_sharing_untracked(struct rt_thread *td)
{
	if (td->share)
		td->share->untracked++;
}

/* ---- threads, fork, output ---- */

/* A header from the pool (with its buffer, if it kept one), else a new
 * one from the slab (NULL: no memory). */
static struct rt_share_thread *header_get(void)
{
	struct rt_share_thread *st;

	rt_lock_take(&pool_lock);
	st = pool;
	if (st) {
		pool = st->next;
		pool_bufs -= st->rec != NULL;
	} else {
		st = rt_slab_carve(&slab, sizeof(*st), SLAB_BYTES);
	}
	rt_lock_drop(&pool_lock);
	return st;
}

/* st's thread is done with it: back to the pool, its buffer with it when
 * the buffer's touched part is small and the pool holds few, else
 * unmapped. */
static void header_put(struct rt_share_thread *st)
{
	struct srec *drop = NULL;
	uint64_t drop_cap = st->cap;

	if (st->n > st->high)
		st->high = st->n;
	rt_lock_take(&pool_lock);
	if (st->rec && (st->high * sizeof(struct srec) > POOL_KEEP_BYTES ||
			pool_bufs >= POOL_MAX)) {
		drop = st->rec;
		st->rec = NULL;
		st->high = st->cap = 0;
	}
	pool_bufs += st->rec != NULL;
	st->next = pool;
	pool = st;
	rt_lock_drop(&pool_lock);
	if (drop)
		munmap(drop, drop_cap * sizeof(struct srec));
}

static void sharing_thread_begin(struct rt_thread *td)
{
	struct rt_share_thread *st;

	if (!rt_sharing.on || !(st = header_get()))
		return;
	st->n = st->dropped = st->untracked = 0;
	st->end = 0;
	st->pending = 0;
	st->begin = rt_clock_ns(CLOCK_MONOTONIC);
	td->share = st;
}

static void sharing_thread_end(struct rt_thread *td)
{
	struct rt_share_thread *st = td->share;

	if (!st)
		return;
	td->share = NULL;
	header_put(st);
}

/* In a fork child: the child records nothing more (hpcrun(1)). */
static void sharing_fork_child(void)
{
	struct rt_thread *td = rt_self;

	if (!rt_sharing.on)
		return;
	rt_sharing.on = 0;
	pool_lock = 0;		/* its holder, if any, is not in the child */
	if (td && td->share)
		td->share->n = 0;
}

/* The log's sharing lines through put(text). */
static void sharing_log(void (*put)(const char *text))
{
	char line[512];
	int k;

	if (!rt_sharing.on)
		return;
	snprintf(line, sizeof(line),
		 "sharing: data samples as access records, %s topology of %d nodes\n"
		 "sharing-records: %llu\nsharing-records-dropped: %llu\n"
		 "sharing-objects-lost: %llu\nsharing-samples-untracked: %llu\n",
		 rt_sharing.virtual_nodes ? "virtual" : "real", nnodes,
		 (unsigned long long)records, (unsigned long long)dropped,
		 (unsigned long long)lost_objs, (unsigned long long)untracked);
	put(line);
	for (k = 0; k < nglobs; k++) {
		snprintf(line, sizeof(line), "sharing-watch%s: %.400s\n",
			 glob_used[k] ? "" : "-unmatched", globs[k]);
		put(line);
		if (glob_used[k])
			continue;
		/* the one line the user sees, -q or not (it is about the
		 * command line): the notices are shown at start only, and
		 * which symbols exist is known at the end */
		snprintf(line, sizeof(line), "warning: --watch '%.200s': "
			 "no variable or function of %.200s matches", globs[k],
			 rt_cfg.progname ? rt_cfg.progname : "the program");
		rt_say(line, NULL);
	}
}

struct fill_arg {
	const struct rt_thread *td;
	unsigned char *seen;		/* by oid */
	size_t seen_bytes;
};

/* The record's access direction, 'r', 'w' or 'u' (rt_sharing_access). */
static enum hpcshare_rw rw_of(int rw)
{
	return rw == 'w' ? HPCSHARE_W : rw == 'u' ? HPCSHARE_U : HPCSHARE_R;
}

/* The .hpcshare file (hpcrun(5)): each object's record before its first
 * access. */
static void fill_share(struct textrec_out *o, void *p)
{
	const struct fill_arg *f = p;
	const struct rt_share_thread *st = f->td->share;
	struct hpcshare head = {
		.thread = f->td->index,
		.rank = rt_cfg.rank_known ? (long)rt_cfg.rank : -1L,
		.virtual_topology = rt_sharing.virtual_nodes,
		.page_size = (uint64_t)sysconf(_SC_PAGESIZE),
		.has_span = 1, .span_begin = st->begin, .span_end = st->end,
		.dropped = st->dropped, .untracked = st->untracked,
	};
	uint64_t i;
	int k;

	hpcshare_write_head(o, &head, (size_t)nnodes);
	for (k = 0; k < nnodes; k++)
		hpcshare_write_node(o, (size_t)k, node_list[k]);
	hpcshare_write_pages(o, &head);
	for (i = 0; i < st->n; i++) {
		const struct srec *r = &st->rec[i];
		const struct hpcshare_object obj = {
			.id = r->oid,
			.kind = r->kind ? HPCSHARE_STATIC : HPCSHARE_HEAP,
			.start = r->start, .bytes = r->bytes,
			.node = r->objnode, .watched = r->watched,
		};

		if (r->oid / 8 < f->seen_bytes && !(f->seen[r->oid / 8] & (1 << (r->oid % 8)))) {
			f->seen[r->oid / 8] |= (unsigned char)(1 << (r->oid % 8));
			hpcshare_write_object(o, &obj);
		}
		hpcshare_write_access(o, &(struct hpcshare_access){
			.time = r->time, .cpu = r->cpu, .offset = r->off,
			.size = r->size, .rw = (uint8_t)rw_of(r->rw),
			.first = r->first, .node = r->node }, &obj);
	}
	hpcshare_write_tail(o, &head);
}

/* Sorts st's records by time: a ring's samples are recorded when the
 * ring is drained, after samples of other events taken later (nearly
 * sorted: insertion). */
static void sort_records(struct rt_share_thread *st)
{
	uint64_t i, j;

	for (i = 1; i < st->n; i++) {
		struct srec r = st->rec[i];

		for (j = i; j > 0 && st->rec[j - 1].time > r.time; j--)
			st->rec[j] = st->rec[j - 1];
		st->rec[j] = r;
	}
}

/* Has td a .hpcshare to write: a record, a drop or an untracked sample
 * to tell, or it is the main thread, whose file says the measurement is
 * --sharing's even when no thread recorded anything?  A thread with
 * nothing to tell has no file (hpcrun(5)): a churned thread that took no
 * sample in an object costs no file, no open and no write. */
static int has_share_file(const struct rt_thread *td,
			  const struct rt_share_thread *st)
{
	return st->n || st->dropped || st->untracked || td->index == 0;
}

/* Writes td's .hpcshare beside its profile (profile: its path), if it
 * has one. */
static void sharing_thread_written(struct rt_thread *td, const char *profile)
{
	struct rt_share_thread *st = td->share;
	struct fill_arg f = { td, NULL, 0 };
	void *m;

	if (!st)
		return;
	st->end = rt_clock_ns(CLOCK_MONOTONIC);
	sort_records(st);
	__atomic_add_fetch(&records, st->n, __ATOMIC_RELAXED);
	__atomic_add_fetch(&dropped, st->dropped, __ATOMIC_RELAXED);
	__atomic_add_fetch(&untracked, st->untracked, __ATOMIC_RELAXED);
	if (!has_share_file(td, st))
		return;
	if (st->n) {		/* objects to declare once: a bitmap by oid */
		f.seen_bytes = __atomic_load_n(&next_oid, __ATOMIC_RELAXED) / 8 + 1;
		m = mmap(NULL, f.seen_bytes, PROT_READ | PROT_WRITE,
			 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (m == MAP_FAILED)
			return;
		f.seen = m;
	}
	rt_side_file(profile, ".hpcshare", fill_share, &f, "sharing record lost");
	if (f.seen)
		munmap(f.seen, f.seen_bytes);
}

const struct rt_capability sharing_capability = {
	.name = "sharing",
	.init = sharing_init,
	.thread_begin = sharing_thread_begin,
	.thread_written = sharing_thread_written,
	.thread_end = sharing_thread_end,
	.log = sharing_log,
	.fork_child = sharing_fork_child,
};
