/*
 * datacentric.c - hpcrun --data: the data objects of the process and the
 * object each sample's data address falls in.
 *
 * Objects: heap blocks (the malloc family and anonymous mmap, fed by
 * datacentric-alloc.c) named by their allocation call path (a "site"),
 * static variables (a module's ELF symbols of type OBJECT), thread
 * stacks, the untracked small blocks together, and the rest (unknown).
 *
 * Invariants:
 *  1. Sites -- an allocation call path as (module id, module-relative
 *     address) pairs, outermost first -- are made once, under the writers'
 *     lock, from memory that is never freed (a bump pool of mmap'ed
 *     chunks), and never change: the handler reads them without locks.
 *  2. Tracked blocks are one array sorted by address, [lo, hi) -> site,
 *     changed only under the writers' lock with the sequence counter odd.
 *     The handler reads it as a seqlock reader and never waits: a read that
 *     overlaps a change is tried again a few times, then counted
 *     (lookup-busy) and the address taken as unknown.  A grown array
 *     replaces the old one, which stays mapped, so a reader's stale pointer
 *     is always readable, and every index it uses is below that array's
 *     own capacity.
 *  3. A block leaves the array before its memory goes back to the
 *     allocator (free, realloc, munmap: rt_data_forget first), so an
 *     address reused by another allocation is never found in the old
 *     object.
 *  4. The writers' lock is a spin lock never held while calling out (the
 *     unwinding at an allocation happens before it is taken); a thread
 *     that re-enters the allocator while holding it (a signal handler of
 *     the program calling malloc) does not track (datacentric-alloc.c's
 *     per-thread guard), so the lock is never taken twice by one thread.
 *     In a fork child it is reset (no other thread is left to hold it).
 *  5. A module's static variables are a sorted immutable table, built from
 *     its file outside the handler when the module is first seen, and
 *     published by pointer per module id.
 *  6. libhpcrun.so's own memory (its statics, the slots of its real
 *     functions) holds no object: an address in it is unknown.  hpcrun's
 *     own threads (rt_own_thread) never track blocks (no rt_self) and
 *     their stacks are not among the threads' stacks.
 *  7. Heap objects go into the allocating thread's tree at allocation,
 *     with their bytes and blocks (hpcrun(5)), under td->busy as the
 *     handler's own work is: a sample arriving meanwhile is counted as
 *     nested, never recorded into a half-made path.
 *  8. The small blocks' counts go on "^Small  " of the allocating
 *     thread's tree as they are allocated, in its live file, so a killed
 *     process keeps them.  Making that root grows the tree: under
 *     td->busy, as in 7.  Its DATA:bytes and DATA:blocks values are
 *     then added to by its thread alone, without td->busy: the handler
 *     never writes them (its samples go below "^Access "), and a sample
 *     arriving meanwhile is not lost as nested, as it would be at every
 *     small allocation.  Blocks allocated before the root could be made
 *     (the tree busy or closed) wait in td->data for the next one or for
 *     the profile (rt_data_profile).
 */
#include <elf.h>
#include <errno.h>
#include <linux/perf_event.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <ucontext.h>
#include <unistd.h>

#include "addrsearch.h"
#include "capability.h"
#include "cct.h"
#include "datacentric.h"
#include "fd-gate.h"
#include "futex.h"
#include "hpcrun-events.h"
#include "hpcrun-fmt.h"
#include "loadmap.h"
#include "output.h"
#include "python-frames.h"
#include "runtime.h"
#include "sharing.h"
#include "unwind.h"

/* Allocation paths keep at most this many innermost frames. */
#define SITE_MAX_FRAMES 256
#define SITE_HASH 4096
#define POOL_CHUNK ((size_t)1 << 20)
/* More tracked blocks than this at once: the rest are not tracked. */
#define MAX_BLOCKS ((size_t)1 << 20)
/* A read of the block array that overlaps a change is tried this often. */
#define READ_TRIES 4
/* Modules with static-variable tables (by id). */
#define MAX_MODULES 4096
/* Threads whose stacks are known to every thread. */
#define MAX_STACKS 1024
/* glibc's malloc arenas outside the brk heap are 64 MiB aligned heaps. */
#define GRANULE_SHIFT 26
#define MAX_GRANULES 256
/* Functions --watch names, at most (the rest are not matched). */
#define MAX_WATCH_FUNCS 4096

struct rt_data_config rt_data;
/* Process-wide counts for the log. */
static struct {
	uint64_t tracked, untracked_full, lookup_busy, sites, threads_nomem;
} counts;

struct site {
	struct site *next;		/* in its hash bucket */
	uint32_t n, hash;
	int watched;			/* a function of it matches --watch */
	struct {
		uint64_t addr;
		uint64_t lm;
	} f[];				/* outermost first */
};

struct block {
	uintptr_t lo, hi;
	const struct site *site;
};

struct block_array {
	size_t cap;
	struct block b[];
};

struct var {
	uint64_t lo, size;		/* module-relative */
	uint64_t watched;		/* its symbol matches --watch */
};

/* A function --watch names: [lo, hi) of module lm (module-relative). */
struct watch_func {
	uint64_t lo, hi;
	uint16_t lm;
};

struct var_table {
	size_t n;
	struct var v[];
};

static unsigned wlock;			/* the writers' lock (futex.h) */
static unsigned seq;			/* odd while the array changes */
static struct block_array *blocks;
static size_t nblocks;
static struct site *site_hash[SITE_HASH];
static char *pool_cur, *pool_end;
static struct var_table *vars[MAX_MODULES];
static unsigned char vars_tried[MAX_MODULES];
static struct {
	uintptr_t lo, hi;
} stacks[MAX_STACKS];
static uintptr_t granules[MAX_GRANULES];
static unsigned ngranules;
/* Appended and read under the writers' lock. */
static struct watch_func watch_funcs[MAX_WATCH_FUNCS];
static unsigned nwatch_funcs;

static void lock(void)
{
	rt_lock_take(&wlock);
}

static void unlock(void)
{
	rt_lock_drop(&wlock);
}

static void *map_zero(size_t bytes)
{
	void *p = mmap(NULL, bytes, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	return p == MAP_FAILED ? NULL : p;
}

/* Bump allocation from the pool (under the lock); NULL when no memory. */
static void *pool_alloc(size_t bytes)
{
	void *p;

	bytes = (bytes + 15) & ~(size_t)15;
	if (bytes > POOL_CHUNK)
		return NULL;
	if ((size_t)(pool_end - pool_cur) < bytes) {
		char *c = map_zero(POOL_CHUNK);

		if (!c)
			return NULL;
		pool_cur = c;
		pool_end = c + POOL_CHUNK;
	}
	p = pool_cur;
	pool_cur += bytes;
	return p;
}

/* data_capability's init: HPCRUN_DATA. */
static void data_init(void)
{
	const char *v = getenv("HPCRUN_DATA"), *why;

	if (!v || !*v)
		return;
	if (hpcrun_data_min_parse(v, &rt_data.min_bytes, &why)) {
		rt_note("warning: HPCRUN_DATA: bad --data-min-bytes; using 1024");
		rt_data.min_bytes = HPCRUN_DATA_MIN_BYTES;
	}
	rt_data.on = 1;
	rt_memop_load();
}

/* After fork in the child: the writers' lock is free again. */
static void data_fork_child(void)
{
	struct rt_thread *td = rt_self;

	wlock = 0;
	if (seq & 1)
		seq++;			/* a change cut short by fork: undone
					 * readers see an array in some state */
	if (td && td->data) {
		td->data->small_bytes = td->data->small_blocks = 0;
		td->data->nomem = 0;
	}
}

/* A thread that cannot be had memory for its state (d NULL) or its
 * decoder goes without data addresses: counted for the log, said once. */
static void thread_nomem(const struct rt_thread *td,
			 const struct rt_data_thread *d)
{
	char msg[200];

	if (__atomic_fetch_add(&counts.threads_nomem, 1, __ATOMIC_RELAXED))
		return;
	snprintf(msg, sizeof(msg), "warning: --data: thread %d has no data "
		 "addresses: no memory for its %s (%s)", td->index,
		 d ? "instruction decoder" : "state", strerror(ENOMEM));
	rt_note(msg);
}

static void data_thread_begin(struct rt_thread *td)
{
	struct rt_data_thread *d;
	int i, nomem;

	if (!rt_data.on)
		return;
	d = map_zero(sizeof(*d));
	if (!d) {
		thread_nomem(td, NULL);
		return;
	}
	d->stack_slot = -1;
	d->memop = rt_memop_new(&nomem);
	if (nomem)
		thread_nomem(td, d);
	for (i = 0; i < MAX_STACKS; i++) {
		uintptr_t z = 0;

		if (__atomic_compare_exchange_n(&stacks[i].hi, &z, td->stack_hi, 0,
						__ATOMIC_ACQ_REL, __ATOMIC_RELAXED)) {
			__atomic_store_n(&stacks[i].lo, td->stack_lo, __ATOMIC_RELEASE);
			d->stack_slot = i;
			break;
		}
	}
	td->data = d;
}

static void data_thread_end(struct rt_thread *td)
{
	struct rt_data_thread *d = td->data;

	if (!d)
		return;
	td->data = NULL;
	if (d->stack_slot >= 0) {
		__atomic_store_n(&stacks[d->stack_slot].lo, 0, __ATOMIC_RELEASE);
		__atomic_store_n(&stacks[d->stack_slot].hi, 0, __ATOMIC_RELEASE);
	}
	rt_memop_free(d->memop);
	munmap(d, sizeof(*d));
}

/* ---- static variables ---- */

static void sort_vars(struct var *v, size_t n)
{
	size_t gap, i, j;

	for (gap = n / 2; gap; gap /= 2)
		for (i = gap; i < n; i++) {
			struct var t = v[i];

			for (j = i; j >= gap && v[j - gap].lo > t.lo; j -= gap)
				v[j] = v[j - gap];
			v[j] = t;
		}
}

void rt_elf_syms_close(struct rt_elf_syms *s)
{
	if (s->map)
		munmap((void *)(uintptr_t)s->map, s->size);
	memset(s, 0, sizeof(*s));
}

int rt_elf_syms_open(const char *path, struct rt_elf_syms *s)
{
	const Elf64_Ehdr *eh;
	const Elf64_Shdr *sh, *symsec = NULL, *strsec;
	struct stat st;
	const unsigned char *f;
	size_t i;
	int fd = open(path, O_RDONLY | O_CLOEXEC), err;

	memset(s, 0, sizeof(*s));
	if (fd < 0)
		return -errno;
	if (fstat(fd, &st) || !S_ISREG(st.st_mode) ||
	    (size_t)st.st_size < sizeof(Elf64_Ehdr)) {
		close(fd);
		return -ENOEXEC;
	}
	f = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
	err = errno;
	close(fd);
	if (f == MAP_FAILED)
		return -err;
	s->map = f;
	s->size = (size_t)st.st_size;
	eh = (const Elf64_Ehdr *)(const void *)f;
	if (memcmp(eh->e_ident, ELFMAG, SELFMAG) || eh->e_ident[EI_CLASS] != ELFCLASS64 ||
	    eh->e_shentsize != sizeof(Elf64_Shdr) || eh->e_shoff > (uint64_t)st.st_size ||
	    eh->e_shnum > ((uint64_t)st.st_size - eh->e_shoff) / sizeof(Elf64_Shdr))
		goto bad;
	sh = (const Elf64_Shdr *)(const void *)(f + eh->e_shoff);
	for (i = 0; i < eh->e_shnum; i++)
		if (sh[i].sh_type == SHT_SYMTAB ||
		    (sh[i].sh_type == SHT_DYNSYM && !symsec))
			symsec = &sh[i];
	if (!symsec || symsec->sh_entsize != sizeof(Elf64_Sym) ||
	    symsec->sh_offset > (uint64_t)st.st_size ||
	    symsec->sh_size > (uint64_t)st.st_size - symsec->sh_offset ||
	    symsec->sh_link >= eh->e_shnum)
		goto bad;
	strsec = &sh[symsec->sh_link];
	if (strsec->sh_offset > (uint64_t)st.st_size ||
	    strsec->sh_size > (uint64_t)st.st_size - strsec->sh_offset)
		goto bad;
	s->sym = f + symsec->sh_offset;
	s->n = symsec->sh_size / sizeof(Elf64_Sym);
	s->str = (const char *)f + strsec->sh_offset;
	s->strsize = strsec->sh_size;
	return 0;
bad:
	rt_elf_syms_close(s);
	return -ENOEXEC;
}

const char *rt_elf_sym_name(const struct rt_elf_syms *s, size_t i)
{
	const Elf64_Sym *y = (const Elf64_Sym *)s->sym + i;

	if (y->st_name >= s->strsize || !memchr(s->str + y->st_name, 0,
						 s->strsize - y->st_name))
		return "";
	return s->str + y->st_name;
}

/* Keeps function [lo, hi) of module lm as one --watch names. */
static void watch_func_add(uint16_t lm, uint64_t lo, uint64_t hi)
{
	lock();
	if (nwatch_funcs < MAX_WATCH_FUNCS)
		watch_funcs[nwatch_funcs++] = (struct watch_func){ lo, hi, lm };
	unlock();
}

/* The variables among the symbols s of module lm, or NULL; with
 * --watch (watch: not hpcrun's own module), the variables and functions
 * it names are marked and kept (sharing.h, invariant 5). */
static struct var_table *read_vars(const struct rt_elf_syms *s, uint16_t lm,
				   int watch)
{
	struct var_table *t;
	size_t i, n, k = 0;

	t = map_zero(sizeof(*t) + s->n * sizeof(struct var));
	if (!t)
		return NULL;
	for (i = 0; i < s->n; i++) {
		const Elf64_Sym *y = (const Elf64_Sym *)s->sym + i;
		int type = ELF64_ST_TYPE(y->st_info);

		if ((type != STT_OBJECT && type != STT_FUNC) || !y->st_size ||
		    y->st_shndx == SHN_UNDEF || y->st_shndx >= SHN_LORESERVE)
			continue;
		if (type == STT_FUNC) {
			if (watch && rt_sharing_watch_name(rt_elf_sym_name(s, i)))
				watch_func_add(lm, y->st_value,
					       y->st_value + y->st_size);
			continue;
		}
		t->v[k].lo = y->st_value;
		t->v[k].watched = watch && rt_sharing_watch_name(rt_elf_sym_name(s, i));
		t->v[k++].size = y->st_size;
	}
	sort_vars(t->v, k);
	for (i = n = 0; i < k; i++)	/* one per address: the first */
		if (!n || t->v[i].lo != t->v[n - 1].lo)
			t->v[n++] = t->v[i];
	t->n = n;
	return t;
}

struct vars_job {
	const struct rt_module *m;
	struct var_table *t;
	int watch;			/* match --watch (not hpcrun's module) */
};

/* The module's variables.  Runs on the fd thread (rt_fd_private): its fd never takes a number of the
 * program's. */
static int vars_job(void *p)
{
	struct vars_job *j = p;
	struct rt_elf_syms s;

	if (rt_elf_syms_open(j->m->path, &s))
		return 0;
	j->t = read_vars(&s, j->m->id, j->watch);
	rt_elf_syms_close(&s);
	return 0;
}

void rt_data_modules(void)
{
	const struct rt_module *const *m, *self;
	size_t n, i;

	if (!rt_data.on)
		return;
	self = rt_module_find((uintptr_t)rt_data_modules);
	m = rt_module_all(&n);
	for (i = 0; i < n; i++) {
		struct vars_job j = { m[i], NULL,
				      rt_sharing.on && rt_sharing_watching() && m[i] != self };
		uint16_t id = m[i]->id;

		/* Threads dlopening at once each claim a module once. */
		if (id >= MAX_MODULES ||
		    !__atomic_load_n(&m[i]->live, __ATOMIC_ACQUIRE) ||
		    __atomic_exchange_n(&vars_tried[id], 1, __ATOMIC_ACQ_REL))
			continue;
		if (m[i]->path[0] != '/')
			continue;	/* the vDSO */
		rt_fd_private(vars_job, &j);
		__atomic_store_n(&vars[id], j.t, __ATOMIC_RELEASE);
	}
}

static int var_starts_le(const void *elem, const void *key)
{
	return ((const struct var *)elem)->lo <= *(const uint64_t *)key;
}

/* The variable holding module-relative address a of module id, or NULL. */
static const struct var *var_at(uint16_t id, uint64_t a)
{
	const struct var_table *t;
	size_t lo;

	if (id >= MAX_MODULES ||
	    !(t = __atomic_load_n(&vars[id], __ATOMIC_ACQUIRE)))
		return NULL;
	lo = addrsearch_partition(t->v, t->n, sizeof(t->v[0]), var_starts_le, &a);
	if (!lo || a >= t->v[lo - 1].lo + t->v[lo - 1].size)
		return NULL;
	return &t->v[lo - 1];
}

/* ---- the block array (writers) ---- */

static int block_starts_lt(const void *elem, const void *key)
{
	return ((const struct block *)elem)->lo < *(const uintptr_t *)key;
}

static int block_starts_le(const void *elem, const void *key)
{
	return ((const struct block *)elem)->lo <= *(const uintptr_t *)key;
}

/* Index of the first block with lo >= a (under the lock). */
static size_t lower_bound(uintptr_t a)
{
	return addrsearch_partition(blocks->b, nblocks, sizeof(blocks->b[0]),
				    block_starts_lt, &a);
}

static void change_begin(void)
{
	__atomic_store_n(&seq, seq + 1, __ATOMIC_RELAXED);
	__atomic_thread_fence(__ATOMIC_RELEASE);
}

static void change_end(void)
{
	__atomic_store_n(&seq, seq + 1, __ATOMIC_RELEASE);
}

/* Adds [lo, hi) -> s; 0, or -1 when the array is full. */
static int block_add(uintptr_t lo, uintptr_t hi, const struct site *s)
{
	size_t i;

	if (!blocks || nblocks == blocks->cap) {
		size_t cap = blocks ? blocks->cap * 2 : 1024;
		struct block_array *a;

		if (cap > MAX_BLOCKS || !(a = map_zero(sizeof(*a) + cap * sizeof(a->b[0]))))
			return -1;
		a->cap = cap;
		if (blocks)
			memcpy(a->b, blocks->b, nblocks * sizeof(a->b[0]));
		__atomic_store_n(&blocks, a, __ATOMIC_RELEASE);	/* the old stays */
	}
	i = lower_bound(lo);
	change_begin();
	memmove(&blocks->b[i + 1], &blocks->b[i], (nblocks - i) * sizeof(blocks->b[0]));
	blocks->b[i].lo = lo;
	blocks->b[i].hi = hi;
	blocks->b[i].site = s;
	__atomic_store_n(&nblocks, nblocks + 1, __ATOMIC_RELAXED);
	change_end();
	return 0;
}

int rt_data_tracking(void)
{
	return __atomic_load_n(&nblocks, __ATOMIC_RELAXED) != 0;
}

void rt_data_forget(void *p, size_t n)
{
	uintptr_t lo = (uintptr_t)p, hi = n ? lo + n : lo + 1;
	size_t i, j, k;

	lock();
	if (!nblocks) {
		unlock();
		return;
	}
	/* blocks starting in [lo, hi); with n, also one reaching into it */
	i = lower_bound(lo);
	if (n && i && blocks->b[i - 1].hi > lo)
		i--;
	for (j = i; j < nblocks && blocks->b[j].lo < hi; j++)
		;
	if (j > i) {
		for (k = i; rt_sharing.on && k < j; k++)
			rt_sharing_forget(blocks->b[k].lo);
		change_begin();
		memmove(&blocks->b[i], &blocks->b[j], (nblocks - j) * sizeof(blocks->b[0]));
		__atomic_store_n(&nblocks, nblocks - (j - i), __ATOMIC_RELAXED);
		change_end();
	}
	unlock();
}

/* ---- sites ---- */

static uint32_t path_hash(const uint64_t (*f)[2], uint32_t n)
{
	uint64_t h = 1469598103934665603ull;
	uint32_t i;

	for (i = 0; i < n; i++)
		h = (h ^ (f[i][0] * 31 + f[i][1])) * 1099511628211ull;
	return (uint32_t)(h ^ (h >> 32));
}

/* Does the allocation path f[0..k) run through a function --watch names
 * (under the lock)? */
static int path_watched(const uint64_t (*f)[2], uint32_t k)
{
	unsigned j;
	uint32_t i;

	for (i = 0; i < k; i++)
		for (j = 0; j < nwatch_funcs; j++)
			/* return addresses: the call ends at f - 1 */
			if (f[i][1] == watch_funcs[j].lm && f[i][0] > watch_funcs[j].lo &&
			    f[i][0] <= watch_funcs[j].hi)
				return 1;
	return 0;
}

/* The site of path f[0..n) (outermost first), made when new (under the
 * lock); NULL when no memory. */
static const struct site *site_get(const uint64_t (*f)[2], uint32_t n)
{
	uint32_t h = path_hash(f, n), i;
	struct site *s;

	for (s = site_hash[h % SITE_HASH]; s; s = s->next) {
		if (s->hash != h || s->n != n)
			continue;
		for (i = 0; i < n; i++)
			if (s->f[i].addr != f[i][0] || s->f[i].lm != f[i][1])
				break;
		if (i == n)
			return s;
	}
	s = pool_alloc(sizeof(*s) + n * sizeof(s->f[0]));
	if (!s)
		return NULL;
	s->n = n;
	s->hash = h;
	s->watched = path_watched(f, n);
	for (i = 0; i < n; i++) {
		s->f[i].addr = f[i][0];
		s->f[i].lm = f[i][1];
	}
	s->next = site_hash[h % SITE_HASH];
	site_hash[h % SITE_HASH] = s;
	counts.sites++;
	return s;
}

/* The object node of site s in c ("^Heap   " -> its path), or NULL. */
static struct cct_node *site_node(struct cct *c, const struct site *s)
{
	struct cct_node *n = cct_xroot(c, CCT_HEAP);
	uint32_t i;

	for (i = 0; n && i < s->n; i++)
		n = cct_child(c, n, (uint16_t)s->f[i].lm, s->f[i].addr);
	return n;
}

/* ---- allocation ---- */

/* Adds the small blocks' counts waiting in d to small ("^Small  "). */
static void small_add(struct rt_data_thread *d, struct cct_node *small)
{
	small->val[rt_cfg.nev + RT_DATA_BYTES] += (double)d->small_bytes;
	small->val[rt_cfg.nev + RT_DATA_BLOCKS] += (double)d->small_blocks;
	d->small_bytes = d->small_blocks = 0;
}

/* Records that a small block p of n bytes was allocated by the calling
 * thread td: on its "^Small  " at once (invariant 8), or waiting in
 * td->data until the root can be made. */
static void count_small(struct rt_thread *td, uintptr_t p, size_t n)
{
	struct rt_data_thread *d = td->data;
	struct cct_node *small = td->cct.xroot[CCT_SMALL];
	uintptr_t g = p >> GRANULE_SHIFT;
	unsigned i, k;

	d->small_bytes += n;
	d->small_blocks++;
	if (!small && !td->busy && !td->closed) {
		/* a new root grows the tree: under busy (cct.h, invariant 1) */
		__atomic_store_n(&td->busy, 1, __ATOMIC_SEQ_CST);
		if (!td->closed)
			small = cct_xroot(&td->cct, CCT_SMALL);
		__atomic_store_n(&td->busy, 0, __ATOMIC_RELEASE);
	}
	if (small && !td->closed)
		small_add(d, small);
	if (g == d->last_granule)
		return;
	d->last_granule = g;
	k = __atomic_load_n(&ngranules, __ATOMIC_ACQUIRE);
	for (i = 0; i < k; i++)
		if (granules[i] == g)
			return;
	lock();
	for (i = 0; i < ngranules; i++)
		if (granules[i] == g)
			break;
	if (i == ngranules && i < MAX_GRANULES) {
		granules[i] = g;
		__atomic_store_n(&ngranules, i + 1, __ATOMIC_RELEASE);
	}
	unlock();
}

/* The calling thread's path of the allocation, outermost first, into f
 * (with no frame of hpcrun's: unwind.c, invariant 4); its length.
 * td->busy is held. */
static uint32_t alloc_path(struct rt_thread *td, uint64_t (*f)[2])
{
	const struct rt_module *m;
	ucontext_t uc;
	enum rt_unwind_end end;
	int n, i;
	uint32_t k = 0;

	if (getcontext(&uc))
		return 0;
	n = rt_unwind_guarded(td, &uc, &end);
	if (n > SITE_MAX_FRAMES)
		n = SITE_MAX_FRAMES;
	for (i = n - 1; i >= 0; i--) {
		if (rt_py_frame(td->frames[i])) {	/* python-frames.h, 1 */
			f[k][0] = td->frames[i] & ~RT_PY_FRAME;
			f[k++][1] = rt_py_lm;
			continue;
		}
		m = rt_module_find(td->frames[i]);
		if (!m)
			continue;
		f[k][0] = td->frames[i] - m->bias;
		f[k++][1] = m->id;
	}
	return k;
}

void rt_data_alloc(void *p, size_t n)
{
	struct rt_thread *td = rt_self;
	uint64_t f[SITE_MAX_FRAMES][2];
	const struct site *s;
	struct cct_node *node;
	uint32_t k;
	int added, small;

	if (!p || !td || !td->data || !rt_active)
		return;
	/* a small block is tracked only when --watch names a function of
	 * its path (sharing.h, invariant 5): then every small allocation
	 * is unwound */
	small = n < rt_data.min_bytes;
	if (small && (td->busy || !__atomic_load_n(&nwatch_funcs, __ATOMIC_RELAXED))) {
		count_small(td, (uintptr_t)p, n);
		return;
	}
	if (td->busy)
		return;
	rt_own_begin();		/* its path and site are hpcrun's work */
	__atomic_store_n(&td->busy, 1, __ATOMIC_SEQ_CST);
	if (td->closed) {
		__atomic_store_n(&td->busy, 0, __ATOMIC_RELEASE);
		rt_own_end();
		return;
	}
	k = alloc_path(td, f);
	lock();
	if (small && !path_watched((const uint64_t (*)[2])f, k)) {
		unlock();
		__atomic_store_n(&td->busy, 0, __ATOMIC_RELEASE);
		rt_own_end();
		count_small(td, (uintptr_t)p, n);
		return;
	}
	s = site_get((const uint64_t (*)[2])f, k);
	added = s && !block_add((uintptr_t)p, (uintptr_t)p + n, s);
	unlock();
	if (added) {
		counts.tracked++;
		node = site_node(&td->cct, s);
		if (node) {
			node->val[rt_cfg.nev + RT_DATA_BYTES] += (double)n;
			node->val[rt_cfg.nev + RT_DATA_BLOCKS] += 1;
		}
	} else {
		counts.untracked_full++;
	}
	__atomic_store_n(&td->busy, 0, __ATOMIC_RELEASE);
	rt_own_end();
}

/* ---- the handler's side ---- */

/* The tracked block holding a: 1 with *b, 0 when none, -1 when every
 * read overlapped a change (invariant 2). */
static int block_find(uintptr_t a, struct block *out)
{
	int t;

	for (t = 0; t < READ_TRIES; t++) {
		unsigned s0 = __atomic_load_n(&seq, __ATOMIC_ACQUIRE);
		const struct block_array *arr;
		size_t n, lo;
		struct block b = { 0, 0, NULL };

		if (s0 & 1)
			continue;
		arr = __atomic_load_n(&blocks, __ATOMIC_ACQUIRE);
		n = __atomic_load_n(&nblocks, __ATOMIC_RELAXED);
		if (!arr)
			return 0;
		lo = addrsearch_partition(arr->b, n < arr->cap ? n : arr->cap,
					  sizeof(arr->b[0]), block_starts_le, &a);
		if (lo)
			b = arr->b[lo - 1];
		__atomic_thread_fence(__ATOMIC_ACQUIRE);
		if (__atomic_load_n(&seq, __ATOMIC_RELAXED) != s0)
			continue;
		if (!b.site || a >= b.hi)
			return 0;
		*out = b;
		return 1;
	}
	return -1;
}

static int in_stack(const struct rt_thread *td, uintptr_t a)
{
	int i;

	if (a >= td->stack_lo && a < td->stack_hi)
		return 1;
	for (i = 0; i < MAX_STACKS; i++) {
		uintptr_t hi = __atomic_load_n(&stacks[i].hi, __ATOMIC_ACQUIRE);

		if (hi && a < hi && a >= __atomic_load_n(&stacks[i].lo, __ATOMIC_RELAXED))
			return 1;
	}
	return 0;
}

static int in_small_heap(uintptr_t a)
{
	unsigned i, k = __atomic_load_n(&ngranules, __ATOMIC_ACQUIRE);

	for (i = 0; i < k; i++)
		if (granules[i] == a >> GRANULE_SHIFT)
			return 1;
	return 0;
}

/* "^Access " below obj, its offset range widened by [off, off+size). */
static struct cct_node *access_node(struct cct *c, struct cct_node *obj,
				    int ranged, uint64_t off, unsigned size)
{
	struct cct_node *acc = obj ? cct_child(c, obj, 0, cct_placeholder("^Access ")) : NULL;
	double *lo, *hi;

	if (!acc || !ranged)
		return acc;
	lo = &acc->val[rt_cfg.nev + RT_DATA_OFFSET_LO];
	hi = &acc->val[rt_cfg.nev + RT_DATA_OFFSET_HI];
	if (*lo == 0 || (double)(off + 1) < *lo)
		*lo = (double)(off + 1);
	if ((double)(off + size) > *hi)
		*hi = (double)(off + size);
	return acc;
}

/* The node of static variable v of module m under "^Static " (its bytes
 * set when new), or NULL. */
static struct cct_node *var_node(struct cct *c, const struct rt_module *m,
				 const struct var *v)
{
	struct cct_node *obj = cct_xroot(c, CCT_STATIC);

	obj = obj ? cct_child(c, obj, m->id, v->lo) : NULL;
	if (obj && obj->val[rt_cfg.nev + RT_DATA_BYTES] == 0) {
		obj->val[rt_cfg.nev + RT_DATA_BYTES] = (double)v->size;
		obj->val[rt_cfg.nev + RT_DATA_BLOCKS] = 1;
	}
	return obj;
}

/* Is event idx a clock (its samples interrupt at a boundary)? */
static int is_clock(int idx)
{
	const struct hpcrun_evspec *s = &rt_cfg.ev[idx].spec;

	return s->ev->kind == HPCRUN_EV_TIMER ||
	       (s->ev->type == PERF_TYPE_SOFTWARE &&
		(s->ev->config == PERF_COUNT_SW_CPU_CLOCK ||
		 s->ev->config == PERF_COUNT_SW_TASK_CLOCK));
}

struct cct_node *rt_data_place(struct rt_thread *td, int idx,
			       const uintptr_t *regs, const uintptr_t *fault,
			       uint64_t time)
{
	struct cct *c = &td->cct;
	const struct rt_module *m;
	const struct var *v;
	struct block b;
	uintptr_t a = 0;
	unsigned size = 1;
	struct cct_node *obj;
	int r, rw = 'r';

	if (fault) {
		a = *fault;
	} else {
		switch (rt_memop_decode(td->data->memop, regs, time,
					is_clock(idx), &a, &size, &rw)) {
		case MEMOP_NONE:
			td->data->nomem++;
			return NULL;
		case MEMOP_NOADDR:
			return cct_xroot(c, CCT_NOADDR);
		case MEMOP_ADDR:
			break;
		}
	}
	r = block_find(a, &b);
	if (r > 0) {
		obj = site_node(c, b.site);
		if (td->share)
			rt_sharing_access(td, 0, b.lo, b.hi - b.lo, obj,
					  b.site->watched, a,
					  fault ? 0 : size, rw, fault != NULL, time);
		return access_node(c, obj, 1, a - b.lo, size);
	}
	if (r < 0) {
		__atomic_add_fetch(&counts.lookup_busy, 1, __ATOMIC_RELAXED);
		return access_node(c, cct_xroot(c, CCT_UNKNOWN), 0, 0, 0);
	}
	m = rt_in_hpcrun(a) ? NULL : rt_module_find(a);
	if (m && (v = var_at(m->id, a - m->bias))) {
		obj = var_node(c, m, v);
		if (td->share)
			rt_sharing_access(td, 1, m->bias + v->lo, v->size, obj,
					  (int)v->watched, a,
					  fault ? 0 : size, rw, fault != NULL, time);
		return access_node(c, obj, 1, a - m->bias - v->lo, size);
	}
	if (in_stack(td, a))
		return access_node(c, cct_xroot(c, CCT_STACK), 0, 0, 0);
	if (in_small_heap(a)) {
		if (td->share)
			rt_sharing_untracked(td);
		return access_node(c, cct_xroot(c, CCT_SMALL), 0, 0, 0);
	}
	return access_node(c, cct_xroot(c, CCT_UNKNOWN), 0, 0, 0);
}

size_t rt_data_profile(struct rt_thread *td, struct hpcrun_kv *kv, char num[3][24])
{
	struct rt_data_thread *d = td->data;
	struct cct_node *small;

	if (d->small_blocks && (small = cct_xroot(&td->cct, CCT_SMALL)))
		small_add(d, small);	/* those that waited */
	rt_fmt_u64(num[0], rt_data.min_bytes, 10, 0);
	rt_fmt_u64(num[1], d->nomem, 10, 0);
	kv[0] = (struct hpcrun_kv){ "data-centric", "1" };
	kv[1] = (struct hpcrun_kv){ "data-min-bytes", num[0] };
	kv[2] = (struct hpcrun_kv){ "data-samples-nomem", num[1] };
	return 3;
}

/* The log's data lines through put(text). */
static void data_log(void (*put)(const char *text))
{
	char line[256];

	if (!rt_data.on)
		return;
	snprintf(line, sizeof(line), "data-blocks-tracked: %llu\n"
		 "data-blocks-untracked: %llu\ndata-allocation-paths: %llu\n"
		 "data-lookups-busy: %llu\ndata-threads-nomem: %llu\n",
		 (unsigned long long)counts.tracked,
		 (unsigned long long)counts.untracked_full,
		 (unsigned long long)counts.sites,
		 (unsigned long long)counts.lookup_busy,
		 (unsigned long long)counts.threads_nomem);
	put(line);
}

const struct rt_capability data_capability = {
	.name = "data",
	.init = data_init,
	.modules = rt_data_modules,
	.thread_begin = data_thread_begin,
	.thread_end = data_thread_end,
	.log = data_log,
	.fork_child = data_fork_child,
};
