/* sharing.c - see sharing.h and man/hpcprof-database.5 (sharing.tsv). */
#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "datatree.h"
#include "error.h"
#include "experiment-wire.h"
#include "hashmap.h"
#include "run.h"
#include "sharing.h"
#include "strbuf.h"

#define LINE 64
/* False-sharing lines detailed per object in --text. */
#define MAX_FS_LINES 4
/* Sources named per thread and word. */
#define MAX_WORD_SITES 2
/* Lines a producer's writes span before they tell it from the other
 * writers of a pooled object (sharing.h, invariant 3): a few lines are
 * where a struct per thread happens to straddle. */
#define POOL_MIN_LINES 4

static const char *const label_names[SHARE_NLABELS] = {
	"private", "read-shared", "producer-consumer", "migratory",
	"write-shared", "false-sharing",
};

const char *sharing_label_name(enum share_label l)
{
	return (unsigned)l < SHARE_NLABELS ? label_names[l] : "?";
}

/* A line's or object's label as sharing.tsv and --text say it. */
static const char *label_text(enum share_label l)
{
	return l >= SHARE_PRIVATE ? label_names[l] : "too-few-samples";
}

/* The bytes of a line an access covers (invariant 3: size 0 is 1 byte). */
static uint64_t byte_mask(uint64_t off_in_line, unsigned size)
{
	uint64_t end = off_in_line + (size ? size : 1);

	if (end > LINE)
		end = LINE;
	return (end - off_in_line == 64 ? ~(uint64_t)0
		: (((uint64_t)1 << (end - off_in_line)) - 1)) << off_in_line;
}

/* One thread's part of a line. */
struct lthread {
	uint32_t thread;
	uint64_t n, writes, rmw;	/* accesses, writes, read-modify-writes */
	uint64_t rmask, wmask;		/* bytes read, written */
	uint64_t lines;			/* pooled: lines written */
	size_t last;			/* pooled: the line last counted + 1 */
};

static struct lthread *lthread_of(struct lthread **v, size_t *n,
				  size_t *alloc, uint32_t thread)
{
	size_t i;

	for (i = 0; i < *n; i++)
		if ((*v)[i].thread == thread)
			return &(*v)[i];
	HPC_GROW(*v, *n + 1, *alloc);
	memset(&(*v)[*n], 0, sizeof(**v));
	(*v)[*n].thread = thread;
	return &(*v)[(*n)++];
}

/* Ownership transfers among a[0..n) (invariant 3): an access of a thread
 * that holds no copy of the line since its last write by another thread
 * in the window before it. */
static uint64_t transfers(const struct share_access *a, size_t n)
{
	uint32_t *holders = xcalloc(n ? n : 1, sizeof(*holders));
	size_t nh = 0, i, k;
	uint64_t t = 0, last_write = 0;
	int written = 0;

	for (i = 0; i < n; i++) {
		for (k = 0; k < nh && holders[k] != a[i].thread; k++)
			;
		if (written && k == nh && a[i].time - last_write <= SHARE_WINDOW_NS)
			t++;
		if (a[i].rw != HPCSHARE_R) {
			holders[0] = a[i].thread;
			nh = 1;
			written = 1;
			last_write = a[i].time;
		} else if (k == nh) {
			holders[nh++] = a[i].thread;
		}
	}
	free(holders);
	return t;
}

enum share_label sharing_line_label(const struct share_access *a, size_t n,
				    uint64_t *ntransfers)
{
	struct lthread *t = NULL;
	size_t nt = 0, alloc = 0, i, j, part = 0, writers = 0;
	uint64_t writes = 0, rmw_writes = 0;
	enum share_label l;
	int overlap = 0;

	*ntransfers = transfers(a, n);
	if (n < SHARE_MIN_ACCESSES)
		return SHARE_TOO_FEW;
	for (i = 0; i < n; i++) {
		struct lthread *x = lthread_of(&t, &nt, &alloc, a[i].thread);
		uint64_t m = byte_mask(a[i].addr % LINE, a[i].size);

		x->n++;
		if (a[i].rw != HPCSHARE_W)
			x->rmask |= m;
		if (a[i].rw != HPCSHARE_R) {
			x->wmask |= m;
			x->writes++;
		}
		x->rmw += a[i].rw == HPCSHARE_U;
	}
	for (i = 0; i < nt; i++) {
		if (t[i].n < SHARE_MIN_THREAD)
			continue;
		part++;
		if (!t[i].writes)
			continue;
		writers++;
		writes += t[i].writes;
		if (t[i].rmw || (t[i].rmask & t[i].wmask))
			rmw_writes += t[i].writes;
		for (j = 0; j < nt; j++)
			if (j != i && t[j].n >= SHARE_MIN_THREAD &&
			    (t[i].wmask & t[j].wmask))
				overlap = 1;
	}
	l = part <= 1 ? SHARE_PRIVATE : writers == 0 ? SHARE_READ :
	    writers == 1 ? SHARE_PRODCONS : !overlap ? SHARE_FALSE :
	    2 * rmw_writes > writes ? SHARE_MIGRATORY : SHARE_WRITE;
	free(t);
	return l;
}

/* Accesses by line, then time (their index: a[] is in time order). */
static int cmp_pooled(const void *x, const void *y, void *arg)
{
	const struct share_access *a = *(const struct share_access **)arg;
	uint32_t i = *(const uint32_t *)x, j = *(const uint32_t *)y;

	if (a[i].addr / LINE != a[j].addr / LINE)
		return a[i].addr / LINE < a[j].addr / LINE ? -1 : 1;
	return i < j ? -1 : i > j;
}

/* One line's part of a pooled object. */
struct pline {
	uint32_t writer, accessor;	/* a thread that wrote, accessed */
	int writers, accessors;		/* 1, or 2: two or more */
};

static void pline_add(struct pline *p, const struct share_access *x)
{
	if (!p->accessors || (p->accessors == 1 && x->thread != p->accessor))
		p->accessor = x->thread, p->accessors++;
	if (x->rw == HPCSHARE_R)
		return;
	if (!p->writers || (p->writers == 1 && x->thread != p->writer))
		p->writer = x->thread, p->writers++;
}

enum share_label sharing_pooled_label(const struct share_access *a, size_t n,
				      struct share_pooled *ev)
{
	uint64_t *ntransfers = &ev->transfers;
	uint32_t *ix = xcalloc(n ? n : 1, sizeof(*ix));
	struct share_access *line = xcalloc(n ? n : 1, sizeof(*line));
	struct lthread *t = NULL;
	size_t nt = 0, alloc = 0, i, j, k, part = 0, writers = 0;
	size_t several = 0, crossed = 0, nline = 0, readers = 0;
	uint64_t writes = 0, reader_writes = 0, top_writes = 0;
	uint64_t top_lines = 0, second_lines = 0, top_writer_lines = 0;
	enum share_label l;

	for (i = 0; i < n; i++)
		ix[i] = (uint32_t)i;
	qsort_r(ix, n, sizeof(*ix), cmp_pooled, &a);
	*ntransfers = 0;
	for (i = 0; i < n; i = j) {
		struct pline p = { 0 };

		nline++;
		for (j = i; j < n && a[ix[j]].addr / LINE == a[ix[i]].addr / LINE;
		     j++) {
			const struct share_access *y = &a[ix[j]];
			struct lthread *x = lthread_of(&t, &nt, &alloc, y->thread);

			line[j - i] = *y;
			pline_add(&p, y);
			x->n++;
			x->rmw += y->rw == HPCSHARE_U;
			if (y->rw == HPCSHARE_R)
				continue;
			x->writes++;
			if (x->last != nline)
				x->lines++, x->last = nline;
		}
		*ntransfers += transfers(line, j - i);
		several += p.writers >= 2;
		crossed += p.accessors >= 2;
	}
	for (k = 0; k < nt; k++) {
		const struct lthread *x = &t[k];

		if (x->n < SHARE_MIN_THREAD)
			continue;
		part++;
		writes += x->writes;
		if (x->writes > top_writes)
			top_writes = x->writes, top_writer_lines = x->lines;
		if (!x->writes)
			readers++;
		else if (x->n - x->writes + x->rmw)	/* it reads too */
			reader_writes += x->writes;
		if (x->writes < SHARE_MIN_THREAD)
			continue;
		writers++;
		if (x->lines > top_lines)
			second_lines = top_lines, top_lines = x->lines;
		else if (x->lines > second_lines)
			second_lines = x->lines;
	}
	l = n < SHARE_MIN_ACCESSES ? SHARE_TOO_FEW : part <= 1 ? SHARE_PRIVATE :
	    writers == 0 ? SHARE_READ : writers == 1 ? SHARE_PRODCONS :
	    !reader_writes && readers ? SHARE_PRODCONS :
	    !several && !crossed ? SHARE_PRIVATE :
	    (3 * top_writes >= 2 * writes && top_writer_lines == top_lines &&
	     top_lines > second_lines) ||
	    (top_lines >= POOL_MIN_LINES && top_lines >= 2 * second_lines) ?
	    SHARE_PRODCONS : reader_writes ? SHARE_MIGRATORY : SHARE_WRITE;
	if (l == SHARE_PRIVATE || l == SHARE_READ)
		*ntransfers = 0;	/* by threads too thin to take part */
	ev->shared = several;
	ev->top_lines = top_lines;
	ev->second_lines = second_lines;
	free(t);
	free(line);
	free(ix);
	return l;
}

/* A write placed at one alignment: its line, thread and bytes. */
struct placed {
	uint64_t line, mask;
	uint32_t thread;
};

static int cmp_placed(const void *a, const void *b)
{
	const struct placed *x = a, *y = b;

	if (x->line != y->line)
		return x->line < y->line ? -1 : 1;
	return x->thread < y->thread ? -1 : x->thread > y->thread;
}

/* Does some line of p[0..n) (sorted) have two writing threads and no
 * byte written by two of them? */
static int has_false_line(const struct placed *p, size_t n)
{
	size_t i = 0, j, k;

	while (i < n) {
		uint64_t seen = 0, twice = 0, mine = 0;
		size_t threads = 0;

		for (j = i; j < n && p[j].line == p[i].line; j = k) {
			mine = 0;
			for (k = j; k < n && p[k].line == p[i].line &&
			     p[k].thread == p[j].thread; k++)
				mine |= p[k].mask;
			twice |= seen & mine;
			seen |= mine;
			threads++;
		}
		if (threads >= 2 && !twice)
			return 1;
		i = j;
	}
	return 0;
}

static int cmp_write(const void *a, const void *b)
{
	const struct share_write *x = a, *y = b;

	if (x->thread != y->thread)
		return x->thread < y->thread ? -1 : 1;
	if (x->offset != y->offset)
		return x->offset < y->offset ? -1 : 1;
	return x->size < y->size ? -1 : x->size > y->size;
}

uint64_t sharing_false_alignments(const struct share_write *writes,
				  size_t n, uint64_t start, int heap)
{
	struct share_write *w = xcalloc(n ? n : 1, sizeof(*w));
	struct placed *p;
	uint64_t step = heap ? 16 : (start & -start), a, out = 0;
	uint64_t observed = start % LINE;
	size_t i, np;

	/* a thread writing the same bytes again changes nothing: a block
	 * every thread updates has its samples' writes a few times each */
	if (n)
		memcpy(w, writes, n * sizeof(*w));
	qsort(w, n, sizeof(*w), cmp_write);
	for (i = np = 0; i < n; i++)
		if (!np || cmp_write(&w[np - 1], &w[i]))
			w[np++] = w[i];
	n = np;
	p = xcalloc(n ? 2 * n : 1, sizeof(*p));
	if (!step || step > LINE)
		step = LINE;
	for (a = 0; a < LINE; a++) {
		if (a != observed && (a % step || (!heap && step == LINE)))
			continue;
		for (i = np = 0; i < n; i++) {
			uint64_t b = a + w[i].offset;
			uint64_t end = b + (w[i].size ? w[i].size : 1);

			/* an access that straddles two lines covers both */
			p[np].line = b / LINE;
			p[np].thread = w[i].thread;
			p[np++].mask = byte_mask(b % LINE, (unsigned)(end - b));
			if ((end - 1) / LINE != b / LINE) {
				p[np].line = b / LINE + 1;
				p[np].thread = w[i].thread;
				p[np++].mask = byte_mask(0, (unsigned)(end % LINE));
			}
		}
		qsort(p, np, sizeof(*p), cmp_placed);
		if (has_false_line(p, np))
			out |= (uint64_t)1 << a;
	}
	free(p);
	free(w);
	return out;
}

/* One access of the experiment. */
struct sacc {
	uint64_t time, addr;
	uint32_t thread, proc, block, seq;
	uint32_t site;		/* index in sites + 1, 0: none */
	int32_t node;		/* the CPU's NUMA node, -1: unknown */
	uint32_t cpu;
	uint8_t size, rw, first;
	uint8_t conc, pconc;	/* concurrent, for a pooled label
				 * (invariant 3) */
};

/* One block (a heap block or a variable) of one process. */
struct sblock {
	uint32_t proc;
	uint64_t start, bytes;
	int32_t obj;
	int heap, watched;
};

/* A (line or page, object, thread) row of sharing.tsv. */
struct srow {
	int32_t obj;
	uint32_t proc, thread, block;
	uint64_t addr, reads, writes, wmask;
	enum share_label label;	/* a page's: its lines' most serious */
	int home;
	uint64_t remote, *per_node;	/* pages: accesses per node */
};

/* What is known of one data object. */
struct sobj {
	enum share_label label;
	uint64_t transfers;	/* of its lines of its label */
	uint64_t by_label[SHARE_NLABELS][2];	/* transfers, concurrent
						 * accesses of its lines */
	uint64_t accesses, reads, writes, homed, remote;
	enum share_label pooled;	/* from all its lines' evidence */
	uint64_t pooled_accesses;
	struct share_pooled pool;	/* the pooled label's evidence */
	int is_pooled;		/* its label is pooled's */
	uint64_t latent;	/* alignments of predicted false sharing */
	size_t nthreads, npages, multi_node_pages, nfs;
	long toucher;		/* thread of most first touches, -1 none */
	size_t touchers;	/* threads that first-touched pages */
	const char *advice;
	int watched;		/* hpcrun --watch named it (invariant 7) */
	struct strbuf fs;	/* the false-sharing lines, described */
};

/* A thread's span: it ran from begin to end (all: no span known). */
struct sspan {
	uint32_t proc, thread;
	uint64_t begin, end;
};

struct sharing {
	int any, virtual_topology;
	size_t nnodes, nfiles, nthreads;	/* nthreads: the database's */
	uint64_t dropped, untracked;
	struct sspan *spans;	size_t nspans, spans_alloc;
	struct sacc *acc;	size_t nacc, acc_alloc;
	struct sblock *blocks;	size_t nblocks, blocks_alloc;
	struct hmap *block_index;	/* (proc, start, obj) -> index + 1 */
	char **sites;		size_t nsites, sites_alloc;
	struct hmap *site_index;	/* "proc file:line" -> index + 1 */
	struct hmap *proc_index;	/* "host:pid" -> index + 1 */
	uint64_t *page_size;	size_t nprocs, procs_alloc;
	char **proc_keys;	size_t proc_keys_alloc;	/* "host:pid" */
	struct sobj *objs;	size_t nobjs;
	struct srow *lines;	size_t nlines, lines_alloc;
	struct srow *pages;	size_t npages, pages_alloc;
};

struct sharing *sharing_new(void)
{
	struct sharing *sh = xcalloc(1, sizeof(*sh));

	sh->block_index = hmap_new();
	sh->site_index = hmap_new();
	sh->proc_index = hmap_new();
	return sh;
}

void sharing_free(struct sharing *sh)
{
	size_t i;

	if (!sh)
		return;
	for (i = 0; i < sh->nsites; i++)
		free(sh->sites[i]);
	for (i = 0; i < sh->nprocs; i++)
		free(sh->proc_keys[i]);
	free(sh->proc_keys);
	for (i = 0; i < sh->nobjs; i++)
		strbuf_release(&sh->objs[i].fs);
	for (i = 0; i < sh->npages; i++)
		free(sh->pages[i].per_node);
	free(sh->sites);
	free(sh->spans);
	free(sh->acc);
	free(sh->blocks);
	free(sh->page_size);
	free(sh->objs);
	free(sh->lines);
	free(sh->pages);
	hmap_free(sh->block_index);
	hmap_free(sh->site_index);
	hmap_free(sh->proc_index);
	free(sh);
}

struct hpcshare *sharing_read(const char *profile, int *bad)
{
	char *path = hpcshare_path_for(profile);
	struct hpcshare *s = NULL;

	*bad = 0;
	if (access(path, F_OK) == 0 || errno != ENOENT) {
		s = hpcshare_read(path);
		*bad = !s;
	}
	free(path);
	return s;
}

void sharing_before(struct sharing *sh, struct experiment *e,
		    const struct hpcshare *s)
{
	(void)sh;
	if (s || e->data)
		datatree_keep_ids(e, s != NULL);
}

static const char *base_name(const char *path)
{
	const char *s = strrchr(path, '/');

	return s ? s + 1 : path;
}

/* The index of access source name ("work prog.c:44"), made when new. */
static uint32_t site_intern(struct sharing *sh, const char *name)
{
	uintptr_t v = (uintptr_t)hmap_get_str(sh->site_index, name);

	if (!v) {
		HPC_GROW(sh->sites, sh->nsites + 1, sh->sites_alloc);
		sh->sites[sh->nsites++] = xstrdup(name);
		v = sh->nsites;
		hmap_put_str(sh->site_index, name, (void *)v);
	}
	return (uint32_t)(v - 1);
}

/* The heap allocator's own code (invariant 9): glibc's malloc.c, or a
 * procedure of the allocator's interface or its glibc internals. */
static int allocator_code(const char *proc, const char *file)
{
	static const char *const names[] = {
		"malloc", "free", "calloc", "realloc", "cfree",
		"malloc_consolidate", "unlink_chunk", "sysmalloc",
	};
	static const char *const prefixes[] = {
		"_int_", "__libc_malloc", "__libc_free", "__libc_calloc",
		"__libc_realloc", "tcache_", "__GI___libc_",
	};
	size_t i;

	if (file && !strcmp(base_name(file), "malloc.c"))
		return 1;
	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (!strcmp(proc, names[i]))
			return 1;
	for (i = 0; i < sizeof(prefixes) / sizeof(prefixes[0]); i++)
		if (!strncmp(proc, prefixes[i], strlen(prefixes[i])))
			return 1;
	return 0;
}

/* The source of access node id ("work prog.c:44"): index + 1, or 0;
 * *alloc says whether it is the allocator's code (allocator_code). */
static uint32_t site_of(struct sharing *sh, struct experiment *e,
			uint32_t id, struct hmap *memo, int *alloc)
{
	const struct data_id *d;
	struct strbuf sb = STRBUF_INIT;
	const char *proc, *file;
	uint32_t line;
	uintptr_t v;

	*alloc = 0;
	if (!id)
		return 0;
	v = (uintptr_t)hmap_get(memo, &id, sizeof(id));
	if (v) {
		*alloc = (int)(v >> 32);
		return (uint32_t)(v - 1);
	}
	d = datatree_id(e, id);
	if (d && d->m && d->role == DROLE_ACCESS) {
		experiment_call_site(e, d->m, d->addr, &proc, &file, &line);
		strbuf_addstr(&sb, proc);
		if (line)
			strbuf_addf(&sb, " %s:%" PRIu32, base_name(file), line);
		else
			strbuf_addf(&sb, " %s+0x%" PRIx64,
				    base_name(d->m->path), d->addr);
		v = site_intern(sh, sb.buf) + 1;
		*alloc = allocator_code(proc, line ? file : NULL);
	}
	strbuf_release(&sb);
	hmap_put(memo, &id, sizeof(id),
		 (void *)(uintptr_t)((uint64_t)*alloc << 32 | (v + 1)));
	return (uint32_t)v;
}

/* The block at start of process proc and data tree object obj, made
 * when new; its size the largest said, watched when any says so. */
static uint32_t block_find(struct sharing *sh, uint32_t proc, int32_t obj,
			   uint64_t start, uint64_t bytes, int heap,
			   int watched)
{
	struct { uint32_t proc; int32_t obj; uint64_t start; } key;
	uintptr_t v;
	struct sblock *b;

	memset(&key, 0, sizeof(key));
	key.proc = proc;
	key.obj = obj;
	key.start = start;
	v = (uintptr_t)hmap_get(sh->block_index, &key, sizeof(key));
	if (v) {
		b = &sh->blocks[v - 1];
		if (bytes > b->bytes)
			b->bytes = bytes;
		b->watched |= watched;
		return (uint32_t)(v - 1);
	}
	HPC_GROW(sh->blocks, sh->nblocks + 1, sh->blocks_alloc);
	b = &sh->blocks[sh->nblocks++];
	b->proc = proc;
	b->start = start;
	b->bytes = bytes;
	b->obj = obj;
	b->heap = heap;
	b->watched = watched;
	hmap_put(sh->block_index, &key, sizeof(key),
		 (void *)(uintptr_t)sh->nblocks);
	return (uint32_t)(sh->nblocks - 1);
}

/* The index of process key proc ("host:pid"), made when new with the
 * page size its file says. */
static uint32_t proc_of(struct sharing *sh, const char *proc,
			uint64_t page_size)
{
	uintptr_t v = (uintptr_t)hmap_get_str(sh->proc_index, proc);

	if (!v) {
		HPC_GROW(sh->page_size, sh->nprocs + 1, sh->procs_alloc);
		HPC_GROW(sh->proc_keys, sh->nprocs + 1, sh->proc_keys_alloc);
		sh->page_size[sh->nprocs] = page_size;
		sh->proc_keys[sh->nprocs++] = xstrdup(proc);
		v = sh->nprocs;
		hmap_put_str(sh->proc_index, proc, (void *)v);
	}
	return (uint32_t)(v - 1);
}

int sharing_thread(struct sharing *sh, struct experiment *e, size_t t,
		   const struct hpcshare *s, const char *proc)
{
	uint32_t *blk, pi, bad = 0;
	struct hmap *memo;
	size_t i;
	int ret = 0;

	if (!s)
		return 0;
	sh->any = 1;
	sh->nfiles++;
	sh->dropped += s->dropped;
	sh->untracked += s->untracked;
	if (s->nnodes > sh->nnodes)
		sh->nnodes = s->nnodes;
	sh->virtual_topology |= s->virtual_topology;
	pi = proc_of(sh, proc, s->page_size);
	HPC_GROW(sh->spans, sh->nspans + 1, sh->spans_alloc);
	sh->spans[sh->nspans].proc = pi;
	sh->spans[sh->nspans].thread = (uint32_t)t;
	sh->spans[sh->nspans].begin = s->has_span ? s->span_begin : 0;
	sh->spans[sh->nspans++].end = s->has_span ? s->span_end : UINT64_MAX;
	blk = xcalloc(s->nobjs ? s->nobjs : 1, sizeof(*blk));
	for (i = 0; i < s->nobjs; i++) {
		const struct data_id *d = datatree_id(e, s->objs[i].node);

		if (!d || d->obj < 0 || (d->role != DROLE_ALLOC &&
					 d->role != DROLE_VAR)) {
			blk[i] = UINT32_MAX;
			if (!bad++)
				ret = hpc_seterr("'%s': object %" PRIu32
						 " names node %" PRIu32 ", no "
						 "allocation path or variable "
						 "of the profile", s->path,
						 s->objs[i].id,
						 s->objs[i].node);
			continue;
		}
		blk[i] = block_find(sh, pi, d->obj, s->objs[i].start,
				    s->objs[i].bytes,
				    s->objs[i].kind == HPCSHARE_HEAP,
				    s->objs[i].watched);
	}
	memo = hmap_new();
	for (i = 0; i < s->naccesses; i++) {
		const struct hpcshare_access *a = &s->accesses[i];
		uint32_t site;
		struct sacc *x;
		int alloc;

		if (blk[a->obj] == UINT32_MAX)
			continue;
		site = site_of(sh, e, a->node, memo, &alloc);
		if (alloc && !a->first)		/* invariant 9 */
			continue;
		HPC_GROW(sh->acc, sh->nacc + 1, sh->acc_alloc);
		x = &sh->acc[sh->nacc];
		memset(x, 0, sizeof(*x));	/* conc: set only when concurrent */
		x->time = a->time;
		x->addr = s->objs[a->obj].start + a->offset;
		x->thread = (uint32_t)t;
		x->proc = pi;
		x->block = blk[a->obj];
		x->seq = (uint32_t)sh->nacc++;
		x->site = site;
		x->node = (int32_t)hpcshare_cpu_node(s, a->cpu);
		x->cpu = a->cpu;
		x->size = a->size;
		x->rw = a->rw;
		x->first = a->first;
	}
	hmap_free(memo);
	free(blk);
	return ret;
}

void sharing_merge(struct sharing *into, const struct sharing *from,
		   const struct experiment *w, struct node **map)
{
	uint32_t *proc = xcalloc(from->nprocs + 1, sizeof(*proc));
	uint32_t *blk = xcalloc(from->nblocks + 1, sizeof(*blk));
	uint32_t *site = xcalloc(from->nsites + 1, sizeof(*site));
	size_t i, base = into->nacc;

	into->any |= from->any;
	into->nfiles += from->nfiles;
	into->dropped += from->dropped;
	into->untracked += from->untracked;
	if (from->nnodes > into->nnodes)
		into->nnodes = from->nnodes;
	into->virtual_topology |= from->virtual_topology;
	for (i = 0; i < from->nprocs; i++)
		proc[i] = proc_of(into, from->proc_keys[i], from->page_size[i]);
	for (i = 0; i < from->nblocks; i++) {
		const struct sblock *b = &from->blocks[i];
		const struct node *o = map[w->data->objs[b->obj].node->id];

		blk[i] = block_find(into, proc[b->proc], (int32_t)o->k2,
				    b->start, b->bytes, b->heap, b->watched);
	}
	for (i = 0; i < from->nsites; i++)
		site[i] = site_intern(into, from->sites[i]);
	for (i = 0; i < from->nspans; i++) {
		HPC_GROW(into->spans, into->nspans + 1, into->spans_alloc);
		into->spans[into->nspans] = from->spans[i];
		into->spans[into->nspans++].proc = proc[from->spans[i].proc];
	}
	HPC_GROW(into->acc, into->nacc + from->nacc, into->acc_alloc);
	for (i = 0; i < from->nacc; i++) {
		struct sacc *x = &into->acc[into->nacc++];

		*x = from->acc[i];
		x->proc = proc[x->proc];
		x->block = blk[x->block];
		x->site = x->site ? site[x->site - 1] + 1 : 0;
		x->seq = (uint32_t)(base + i);
	}
	free(proc);
	free(blk);
	free(site);
}

void sharing_wire_write(const struct sharing *sh, struct strbuf *sb)
{
	size_t i;

	wire_put32(sb, (uint32_t)sh->any);
	wire_put32(sb, (uint32_t)sh->virtual_topology);
	wire_put64(sb, sh->nnodes);
	wire_put64(sb, sh->nfiles);
	wire_put64(sb, sh->dropped);
	wire_put64(sb, sh->untracked);
	wire_put32(sb, (uint32_t)sh->nprocs);
	for (i = 0; i < sh->nprocs; i++) {
		wire_putstr(sb, sh->proc_keys[i]);
		wire_put64(sb, sh->page_size[i]);
	}
	wire_put32(sb, (uint32_t)sh->nsites);
	for (i = 0; i < sh->nsites; i++)
		wire_putstr(sb, sh->sites[i]);
	wire_put32(sb, (uint32_t)sh->nblocks);
	for (i = 0; i < sh->nblocks; i++) {
		const struct sblock *b = &sh->blocks[i];

		wire_put32(sb, b->proc);
		wire_put32(sb, (uint32_t)b->obj);
		wire_put64(sb, b->start);
		wire_put64(sb, b->bytes);
		wire_put32(sb, (uint32_t)b->heap);
		wire_put32(sb, (uint32_t)b->watched);
	}
	wire_put_rows(sb, sh->spans, sh->nspans, sizeof(*sh->spans));
	wire_put_rows(sb, sh->acc, sh->nacc, sizeof(*sh->acc));
}

int sharing_wire_read(struct sharing *sh, const struct experiment *w,
		      struct wire_cursor *c)
{
	struct strbuf s = STRBUF_INIT;
	size_t nobjs = w->data ? w->data->nobjs : 0, i;
	uint32_t n, k;

	sh->any = wire_get32(c) != 0;
	sh->virtual_topology = wire_get32(c) != 0;
	sh->nnodes = (size_t)wire_get64(c);
	sh->nfiles = (size_t)wire_get64(c);
	sh->dropped = wire_get64(c);
	sh->untracked = wire_get64(c);
	for (n = wire_get32(c), k = 0; k < n && !c->bad; k++) {
		const char *key = wire_getstr(c, &s);
		uint64_t page = wire_get64(c);

		/* a page size is a power of two (page_of masks with it) */
		if (c->bad || !key || !page || (page & (page - 1)) ||
		    proc_of(sh, key, page) != k)
			c->bad = 1;
	}
	for (n = wire_get32(c), k = 0; k < n && !c->bad; k++) {
		const char *name = wire_getstr(c, &s);

		if (c->bad || !name || site_intern(sh, name) != k)
			c->bad = 1;
	}
	for (n = wire_get32(c), k = 0; k < n && !c->bad; k++) {
		uint32_t proc = wire_get32(c), obj = wire_get32(c);
		uint64_t start = wire_get64(c), bytes = wire_get64(c);
		uint32_t heap = wire_get32(c), watched = wire_get32(c);

		if (c->bad || proc >= sh->nprocs || obj >= nobjs ||
		    block_find(sh, proc, (int32_t)obj, start, bytes,
			       heap != 0, watched != 0) != k)
			c->bad = 1;
	}
	sh->spans = wire_get_rows(c, sh->spans, &sh->nspans,
				  &sh->spans_alloc, sizeof(*sh->spans));
	sh->acc = wire_get_rows(c, sh->acc, &sh->nacc, &sh->acc_alloc,
				sizeof(*sh->acc));
	strbuf_release(&s);
	for (i = 0; i < sh->nspans && !c->bad; i++)
		if (sh->spans[i].proc >= sh->nprocs)
			c->bad = 1;
	for (i = 0; i < sh->nacc && !c->bad; i++) {
		const struct sacc *a = &sh->acc[i];

		if (a->proc >= sh->nprocs || a->block >= sh->nblocks ||
		    a->site > sh->nsites || a->rw > HPCSHARE_U)
			c->bad = 1;
	}
	return c->bad ? -1 : 0;
}

/* Accesses by process, line, time, thread, file order (invariant 2). */
static int cmp_line(const void *a, const void *b, void *arg)
{
	const struct sharing *sh = arg;
	const struct sacc *x = &sh->acc[*(const uint32_t *)a];
	const struct sacc *y = &sh->acc[*(const uint32_t *)b];

	if (x->proc != y->proc)
		return x->proc < y->proc ? -1 : 1;
	if (x->addr / LINE != y->addr / LINE)
		return x->addr / LINE < y->addr / LINE ? -1 : 1;
	if (x->time != y->time)
		return x->time < y->time ? -1 : 1;
	if (x->thread != y->thread)
		return x->thread < y->thread ? -1 : 1;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

static uint64_t page_of(const struct sharing *sh, const struct sacc *a)
{
	return a->addr & ~(sh->page_size[a->proc] - 1);
}

/* The row of (obj, thread) among rows[from..], made when new. */
static struct srow *row_of(struct srow **rows, size_t *n, size_t *alloc,
			   size_t from, const struct sacc *a, int32_t obj,
			   uint32_t thread, uint64_t addr)
{
	size_t i;

	for (i = from; i < *n; i++)
		if ((*rows)[i].obj == obj && (*rows)[i].thread == thread)
			return &(*rows)[i];
	HPC_GROW(*rows, *n + 1, *alloc);
	memset(&(*rows)[*n], 0, sizeof(**rows));
	(*rows)[*n].obj = obj;
	(*rows)[*n].thread = thread;
	(*rows)[*n].proc = a->proc;
	(*rows)[*n].block = a->block;
	(*rows)[*n].addr = addr;
	(*rows)[*n].home = -1;
	return &(*rows)[(*n)++];
}

static const char *obj_name(const struct experiment *e, int32_t obj)
{
	return e->procs.names[e->data->objs[obj].node->proc];
}

/* The fix for a false-sharing object (sharing.h, --text). */
static void fix_text(const struct experiment *e, const struct sblock *b,
		     int32_t obj, struct strbuf *sb)
{
	const char *name = obj_name(e, obj);
	const char *br = strstr(name, " [");

	if (!b->heap)
		strbuf_addf(sb, "    fix: pad each thread's part of '%.*s' to "
			    "64 bytes (a 64-byte line per thread: "
			    "_Alignas(64) on the per-thread element) and "
			    "align the variable to 64 bytes, or make it "
			    "thread-local\n",
			    br ? (int)(br - name) : (int)strlen(name), name);
	else
		strbuf_addstr(sb, "    fix: align the block to 64 bytes "
			      "(aligned_alloc(64, ...)) and give each thread "
			      "its own 64-byte line, or make the data "
			      "thread-local\n");
}

/* Describes false-sharing line [a, b) of ix (its accesses) for obj. */
static void describe_false(struct sharing *sh, const struct experiment *e,
			   const uint32_t *ix, size_t a, size_t b,
			   int32_t obj)
{
	struct sobj *so = &sh->objs[obj];
	const struct sacc *first = &sh->acc[ix[a]];
	const struct sblock *bl = &sh->blocks[first->block];
	uint64_t line = first->addr & ~(uint64_t)(LINE - 1);
	uint32_t *threads = NULL;
	size_t nthreads = 0, alloc = 0, i, k, w, transfers = 0;
	long last_writer = -1;

	if (so->nfs == 0)
		strbuf_addf(&so->fs, "\n%s: %s, start 0x%" PRIx64 ", %" PRIu64
			    " bytes, alignment %" PRIu64 " (start %% 64)\n",
			    obj_name(e, obj), bl->heap ? "heap" : "static",
			    bl->start, bl->bytes, bl->start % LINE);
	if (++so->nfs > MAX_FS_LINES)
		return;
	for (i = a; i < b; i++) {
		const struct sacc *x = &sh->acc[ix[i]];

		if (x->rw != HPCSHARE_R) {
			transfers += last_writer >= 0 &&
				     (uint32_t)last_writer != x->thread;
			last_writer = x->thread;
		}
		for (k = 0; k < nthreads && threads[k] != x->thread; k++)
			;
		if (k == nthreads) {
			HPC_GROW(threads, nthreads + 1, alloc);
			threads[nthreads++] = x->thread;
		}
	}
	strbuf_addf(&so->fs, "  line 0x%" PRIx64 ", offset %" PRId64 " in the "
		    "object: %zu sampled accesses, %zu threads, %zu write "
		    "transfers between threads\n", line,
		    (int64_t)(line - bl->start), b - a, nthreads, transfers);
	strbuf_addf(&so->fs, "    %4s %7s %6s %6s %6s  %s\n", "word", "offset",
		    "thread", "reads", "writes", "source");
	for (w = 0; w < LINE / 8; w++)
		for (k = 0; k < nthreads; k++) {
			uint64_t r = 0, wr = 0;
			uint32_t sites[MAX_WORD_SITES];
			size_t ns = 0, j;

			for (i = a; i < b; i++) {
				const struct sacc *x = &sh->acc[ix[i]];

				if (x->thread != threads[k] ||
				    x->addr % LINE / 8 != w)
					continue;
				*(x->rw == HPCSHARE_R ? &r : &wr) += 1;
				for (j = 0; j < ns && sites[j] != x->site; j++)
					;
				if (j == ns && ns < MAX_WORD_SITES && x->site)
					sites[ns++] = x->site;
			}
			if (!r && !wr)
				continue;
			strbuf_addf(&so->fs, "    %4zu %7" PRId64 " %6" PRIu32
				    " %6" PRIu64 " %6" PRIu64 "  ", w,
				    (int64_t)(line + 8 * w - bl->start),
				    threads[k], r, wr);
			for (j = 0; j < ns; j++)
				strbuf_addf(&so->fs, "%s%s", j ? "; " : "",
					    sh->sites[sites[j] - 1]);
			strbuf_addstr(&so->fs, ns ? "\n" : "-\n");
		}
	if (so->nfs == 1)
		fix_text(e, bl, obj, &so->fs);
	free(threads);
}

/* Is another thread of x's process alive at x's time (invariant 3)? */
static int others_alive(const struct sharing *sh, const struct sacc *x)
{
	size_t i;

	for (i = 0; i < sh->nspans; i++)
		if (sh->spans[i].proc == x->proc && sh->spans[i].thread != x->thread &&
		    sh->spans[i].begin <= x->time && x->time <= sh->spans[i].end)
			return 1;
	return 0;
}

/* Accesses by process, time, thread, file order. */
static int cmp_time(const void *a, const void *b, void *arg)
{
	const struct sharing *sh = arg;
	const struct sacc *x = &sh->acc[*(const uint32_t *)a];
	const struct sacc *y = &sh->acc[*(const uint32_t *)b];

	if (x->proc != y->proc)
		return x->proc < y->proc ? -1 : 1;
	if (x->time != y->time)
		return x->time < y->time ? -1 : 1;
	if (x->thread != y->thread)
		return x->thread < y->thread ? -1 : 1;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

/* The latest access of each of the two last threads seen in a sweep:
 * a's, and b's, of a thread other than a's. */
struct sweep {
	uint32_t proc, thread;
	uint64_t a, b;		/* times */
	int have_a, have_b;
};

/* How far from x (in the sweep's direction) the last access of another
 * thread of x's process is, UINT64_MAX for none; then x is seen. */
static uint64_t sweep_gap(struct sweep *w, const struct sacc *x)
{
	uint64_t gap = UINT64_MAX, other;
	int have;

	if (w->proc != x->proc)
		memset(w, 0, sizeof(*w)), w->proc = x->proc;
	if (x->first)		/* a page fault is no access (invariant 3) */
		return gap;
	have = w->have_a && w->thread != x->thread ? 1 : w->have_b ? 2 : 0;
	if (have) {
		other = have == 1 ? w->a : w->b;
		gap = x->time > other ? x->time - other : other - x->time;
	}
	if (w->have_a && w->thread == x->thread) {
		w->a = x->time;
	} else {
		w->b = w->a, w->have_b = w->have_a;
		w->thread = x->thread, w->a = x->time, w->have_a = 1;
	}
	return gap;
}

/* Marks the concurrent accesses, within SHARE_WINDOW_NS and within
 * SHARE_POOL_WINDOW_NS (sharing.h, invariant 3); ix is sorted here. */
static void mark_concurrent(struct sharing *sh, uint32_t *ix)
{
	uint64_t *gap = xcalloc(sh->nacc ? sh->nacc : 1, sizeof(*gap));
	struct sweep w;
	size_t k;

	qsort_r(ix, sh->nacc, sizeof(*ix), cmp_time, sh);
	memset(&w, 0, sizeof(w));
	w.proc = UINT32_MAX;
	for (k = 0; k < sh->nacc; k++)
		gap[k] = sweep_gap(&w, &sh->acc[ix[k]]);
	memset(&w, 0, sizeof(w));
	w.proc = UINT32_MAX;
	for (k = sh->nacc; k-- > 0;) {
		struct sacc *x = &sh->acc[ix[k]];
		uint64_t g = sweep_gap(&w, x);

		if (g < gap[k])
			gap[k] = g;
		if (x->first || !others_alive(sh, x))
			continue;
		x->conc = gap[k] <= SHARE_WINDOW_NS;
		x->pconc = gap[k] <= SHARE_POOL_WINDOW_NS;
	}
	free(gap);
}

/* Is a[0..n) the accesses of one thread, or none? */
static int solo(const struct share_access *a, size_t n)
{
	size_t i;

	for (i = 1; i < n; i++)
		if (a[i].thread != a[0].thread)
			return 0;
	return 1;
}

/* Labels the lines of ix[a..b) (one page, whose rows are pages[pf..])
 * and fills the line rows; a page row's label is its lines' most
 * serious. */
static void classify_lines(struct sharing *sh, const struct experiment *e,
			   const uint32_t *ix, size_t a, size_t b, size_t pf)
{
	struct share_access *sa = xcalloc(b - a, sizeof(*sa));
	size_t i, j, k, m, n, from, from2;

	for (i = a; i < b; i = j) {
		uint64_t line = sh->acc[ix[i]].addr / LINE, moved;
		enum share_label l;

		for (j = i; j < b && sh->acc[ix[j]].addr / LINE == line; j++)
			;
		for (k = i, n = 0; k < j; k++) {
			const struct sacc *x = &sh->acc[ix[k]];

			if (!x->conc)
				continue;
			sa[n].time = x->time;
			sa[n].addr = x->addr;
			sa[n].thread = x->thread;
			sa[n].size = x->size;
			sa[n++].rw = x->rw;
		}
		l = sharing_line_label(sa, n, &moved);
		if (l == SHARE_PRIVATE || l == SHARE_READ)
			moved = 0;	/* by threads too thin to take part */
		m = 0;
		if (l == SHARE_TOO_FEW && solo(sa, n)) {
			/* no thread shares it while others run: enough
			 * accesses at other times make it private */
			for (k = i, m = 0; k < j; k++)
				m += !sh->acc[ix[k]].first;
			if (m >= SHARE_MIN_ACCESSES)
				l = SHARE_PRIVATE;
		}
		from = sh->nlines;
		for (k = i; k < j; k++) {
			const struct sacc *x = &sh->acc[ix[k]];
			int32_t obj = sh->blocks[x->block].obj;
			struct srow *r;

			if (x->first)
				continue;
			r = row_of(&sh->lines, &sh->nlines, &sh->lines_alloc,
				   from, x, obj, x->thread, line * LINE);
			r->label = l;
			if (x->rw == HPCSHARE_R) {
				r->reads++;
			} else {
				r->writes++;
				r->wmask |= byte_mask(x->addr % LINE, x->size);
			}
		}
		for (k = from; k < sh->nlines; k++) {
			struct sobj *so = &sh->objs[sh->lines[k].obj];

			if (so->label == SHARE_NO_ACCESS)
				so->label = SHARE_TOO_FEW;
			for (from2 = from; from2 < k; from2++)
				if (sh->lines[from2].obj == sh->lines[k].obj)
					break;
			if (l == SHARE_TOO_FEW || from2 < k)
				continue;
			so->by_label[l][0] += moved;
			so->by_label[l][1] += n ? n : m;
		}
		for (k = pf; l != SHARE_TOO_FEW && k < sh->npages; k++)
			for (from2 = from; from2 < sh->nlines; from2++)
				if (sh->lines[from2].obj == sh->pages[k].obj &&
				    l > sh->pages[k].label)
					sh->pages[k].label = l;
		for (k = from; l == SHARE_FALSE && k < sh->nlines; k++) {
			for (m = from; m < k; m++)
				if (sh->lines[m].obj == sh->lines[k].obj)
					break;
			if (m == k)
				describe_false(sh, e, ix, i, j,
					       sh->lines[k].obj);
		}
	}
	free(sa);
}

/* False sharing is a line's label, kept with its detail, unless most of
 * the object's evidence lies outside its false-sharing lines and says
 * otherwise (invariant 3): one thread writes it for the others (a
 * queue's indices share a line, its items lie elsewhere), or its threads
 * write the same lines in turn (a record handed on under a lock whose
 * mutex and condition variable words share a line), lines that
 * outnumber its false-sharing ones twice, not a few where structs of
 * one thread each meet.  A producer that writes many lines more, beside
 * consumers that write little more than the false-sharing ones (a
 * queue's control line), outweighs them however hot they are. */
static int pooled_outweighs_false(const struct sobj *so)
{
	size_t others = so->pool.shared > so->nfs ?
			so->pool.shared - so->nfs : 0;

	if (so->pooled == SHARE_PRODCONS &&
	    so->pool.top_lines >= so->nfs + POOL_MIN_LINES &&
	    so->pool.second_lines <= so->nfs + 2)
		return 1;

	if (2 * so->by_label[SHARE_FALSE][1] >= so->pooled_accesses)
		return 0;
	return so->pooled == SHARE_PRODCONS ||
	       (others >= POOL_MIN_LINES && others >= 2 * so->nfs);
}

/* Each object's label from its lines' (invariant 3). */
static void object_labels(struct sharing *sh)
{
	size_t i;
	int l;

	for (i = 0; i < sh->nobjs; i++) {
		struct sobj *so = &sh->objs[i];
		enum share_label best = SHARE_TOO_FEW;

		for (l = SHARE_PRIVATE; l < SHARE_NLABELS; l++) {
			const uint64_t *c = so->by_label[l], *b;

			if (!c[1])
				continue;
			b = best != SHARE_TOO_FEW ? so->by_label[best] : NULL;
			if (!b || c[0] > b[0] || (c[0] == b[0] && c[1] >= b[1]))
				best = (enum share_label)l;
		}
		if (so->pooled != SHARE_TOO_FEW && so->pooled != best &&
		    (best != SHARE_FALSE || pooled_outweighs_false(so))) {
			so->label = so->pooled;
			so->transfers = so->pool.transfers;
			so->is_pooled = 1;
		} else if (best != SHARE_TOO_FEW) {
			so->label = best;
			so->transfers = so->by_label[best][0];
		}
	}
}

/* Each object's pooled label from its concurrent accesses, all its lines
 * together (invariant 3); ix is in time order. */
static void pool_objects(struct sharing *sh, const uint32_t *ix)
{
	size_t *at = xcalloc(sh->nobjs + 1, sizeof(*at));
	struct share_access *sa;
	size_t i, k;

	for (i = 0; i < sh->nacc; i++)
		if (sh->acc[i].pconc)
			at[sh->blocks[sh->acc[i].block].obj + 1]++;
	for (k = 0; k < sh->nobjs; k++)
		at[k + 1] += at[k];
	sa = xcalloc(at[sh->nobjs] ? at[sh->nobjs] : 1, sizeof(*sa));
	for (i = 0; i < sh->nacc; i++) {
		const struct sacc *x = &sh->acc[ix[i]];
		struct share_access *y;

		if (!x->pconc)
			continue;
		y = &sa[at[sh->blocks[x->block].obj]++];
		y->time = x->time;
		/* the process in the top byte: user addresses are below
		 * 2^56, so lines of two processes stay apart */
		y->addr = x->addr ^ (uint64_t)x->proc << 56;
		y->thread = x->thread;
		y->size = x->size;
		y->rw = x->rw;
	}
	for (k = 0; k < sh->nobjs; k++) {
		size_t lo = k ? at[k - 1] : 0;

		sh->objs[k].pooled = sharing_pooled_label(sa + lo, at[k] - lo,
						&sh->objs[k].pool);
		sh->objs[k].pooled_accesses = at[k] - lo;
	}
	free(sa);
	free(at);
}

/* The NUMA rows of page ix[a..b): its home, per-object node counts. */
static void page_rows(struct sharing *sh, const uint32_t *ix, size_t a,
		      size_t b, size_t *touches)
{
	const struct sacc *home = NULL;
	size_t i, from = sh->npages, k;

	for (i = a; i < b; i++) {
		const struct sacc *x = &sh->acc[ix[i]];

		if (x->first && (!home || x->time < home->time ||
				 (x->time == home->time &&
				  x->thread < home->thread)))
			home = x;
	}
	for (i = a; i < b; i++) {
		const struct sacc *x = &sh->acc[ix[i]];
		int32_t obj = sh->blocks[x->block].obj;
		struct srow *r = row_of(&sh->pages, &sh->npages,
					&sh->pages_alloc, from, x, obj, 0,
					page_of(sh, x));
		struct sobj *so = &sh->objs[obj];

		if (!r->per_node) {
			r->per_node = xcalloc(sh->nnodes + 1,
					      sizeof(*r->per_node));
			r->home = home ? home->node : -1;
			r->label = SHARE_TOO_FEW;
		}
		r->per_node[x->node >= 0 ? (size_t)x->node : sh->nnodes]++;
		*(x->rw == HPCSHARE_R ? &r->reads : &r->writes) += 1;
		/* a first touch places its page: always local, and always
		 * seen (the page is protected from its allocation on), so
		 * counting it would bias the sampled share (invariant 5) */
		if (home && home->node >= 0 && x->node >= 0 && !x->first) {
			so->homed++;
			if (x->node != home->node) {
				so->remote++;
				r->remote++;
			}
		}
	}
	for (k = from; k < sh->npages; k++) {
		struct srow *r = &sh->pages[k];
		struct sobj *so = &sh->objs[r->obj];
		size_t n, used = 0;

		for (n = 0; n < sh->nnodes; n++)
			used += r->per_node[n] != 0;
		so->npages++;
		so->multi_node_pages += used >= 2;
		if (home && home->thread < sh->nthreads)
			touches[(size_t)r->obj * sh->nthreads + home->thread]++;
		r->thread = home ? home->thread : UINT32_MAX;
	}
}

/* The latent predictions of every block (invariant 4): its writes, in
 * file order, by block.  Reads the accesses and blocks, writes only the
 * objects' latent. */
static void latent(struct sharing *sh)
{
	size_t *at = xcalloc(sh->nblocks + 1, sizeof(*at));
	struct share_write *w;
	size_t i, k;

	for (i = 0; i < sh->nacc; i++)
		at[sh->acc[i].block + 1] += sh->acc[i].rw != HPCSHARE_R;
	for (k = 0; k < sh->nblocks; k++)
		at[k + 1] += at[k];
	w = xcalloc(at[sh->nblocks] ? at[sh->nblocks] : 1, sizeof(*w));
	for (i = 0; i < sh->nacc; i++) {
		const struct sacc *x = &sh->acc[i];
		struct share_write *y = &w[at[x->block]];

		if (x->rw == HPCSHARE_R)
			continue;
		y->offset = x->addr - sh->blocks[x->block].start;
		y->thread = x->thread;
		y->size = x->size;
		at[x->block]++;
	}
	for (k = 0; k < sh->nblocks; k++) {
		const struct sblock *b = &sh->blocks[k];
		size_t lo = k ? at[k - 1] : 0;
		uint64_t mask, observed = (uint64_t)1 << (b->start % LINE);

		if (at[k] == lo)
			continue;
		mask = sharing_false_alignments(w + lo, at[k] - lo, b->start,
						b->heap);
		if (!(mask & observed))
			sh->objs[b->obj].latent |= mask;
	}
	free(w);
	free(at);
}

/* sharing_finish's second thread: the accesses in line order (the sort
 * reads only what mark_concurrent, latent and pool_objects do not
 * write). */
struct line_order {
	struct sharing *sh;
	uint32_t *ix;
};

static void *line_order(void *arg)
{
	struct line_order *lo = arg;

	qsort_r(lo->ix, lo->sh->nacc, sizeof(*lo->ix), cmp_line, lo->sh);
	return NULL;
}

/* Counts, first toucher and advice of each object. */
static void summarize(struct sharing *sh, const size_t *touches)
{
	uint64_t *seen;		/* bit obj * nt + thread: a thread seen */
	size_t i, t, nt = 0;

	for (i = 0; i < sh->nacc; i++)
		if (sh->acc[i].thread >= nt)
			nt = (size_t)sh->acc[i].thread + 1;
	seen = xcalloc(sh->nobjs * nt / 64 + 1, sizeof(*seen));
	for (i = 0; i < sh->nacc; i++) {
		const struct sacc *x = &sh->acc[i];
		int32_t obj = sh->blocks[x->block].obj;
		struct sobj *so = &sh->objs[obj];
		size_t bit = (size_t)obj * nt + x->thread;

		so->accesses++;
		*(x->rw == HPCSHARE_R ? &so->reads : &so->writes) += 1;
		if (!(seen[bit / 64] >> (bit % 64) & 1)) {
			seen[bit / 64] |= (uint64_t)1 << (bit % 64);
			so->nthreads++;
		}
	}
	free(seen);
	for (i = 0; i < sh->nobjs; i++) {
		struct sobj *so = &sh->objs[i];
		size_t best = 0;

		so->toucher = -1;
		for (t = 0; t < sh->nthreads; t++) {
			size_t c = touches[i * sh->nthreads + t];

			so->touchers += c != 0;
			if (c > best) {
				best = c;
				so->toucher = (long)t;
			}
		}
		/* invariant 5: the homed accesses, not the line labels */
		if (so->label == SHARE_NO_ACCESS || sh->nnodes < 2 ||
		    so->homed < SHARE_MIN_ACCESSES)
			so->advice = "-";
		else if (10 * so->remote < so->homed)
			so->advice = "local: no change";
		else if (so->touchers == 1 && so->nthreads > 1)
			so->advice = "initialize in parallel: let each thread "
				     "first-touch the part it uses";
		else if (2 * so->multi_node_pages >= so->npages)
			so->advice = "interleave the pages (numactl "
				     "--interleave, mbind MPOL_INTERLEAVE)";
		else
			so->advice = "move the threads to their pages' nodes, "
				     "or the pages to them (move_pages)";
	}
}

/* "48,56" for the alignments of mask, "-" for none. */
static void alignments(uint64_t mask, struct strbuf *sb)
{
	int a, n = 0;

	for (a = 0; a < LINE; a++)
		if (mask >> a & 1)
			strbuf_addf(sb, "%s%d", n++ ? "," : "", a);
	if (!n)
		strbuf_addch(sb, '-');
}

/* "0-7,16-23" for the bytes of mask, "-" for none. */
static void byte_ranges(uint64_t mask, struct strbuf *sb)
{
	int a = 0, b, n = 0;

	while (a < LINE) {
		if (!(mask >> a & 1)) {
			a++;
			continue;
		}
		for (b = a; b + 1 < LINE && (mask >> (b + 1) & 1); b++)
			;
		strbuf_addf(sb, "%s%d-%d", n++ ? "," : "", a, b);
		a = b + 1;
	}
	if (!n)
		strbuf_addch(sb, '-');
}

static const struct sharing *cmp_objs_sh;

/* Objects watched first (invariant 7), then by cost (transfers), then
 * label (most serious first), then accesses, then node id. */
static int cmp_objs(const void *a, const void *b)
{
	const struct sobj *x = &cmp_objs_sh->objs[*(const size_t *)a];
	const struct sobj *y = &cmp_objs_sh->objs[*(const size_t *)b];

	if (x->watched != y->watched)
		return x->watched ? -1 : 1;
	if (x->transfers != y->transfers)
		return x->transfers > y->transfers ? -1 : 1;
	if (x->label != y->label)
		return x->label > y->label ? -1 : 1;
	if (x->accesses != y->accesses)
		return x->accesses > y->accesses ? -1 : 1;
	return *(const size_t *)a < *(const size_t *)b ? -1 : 1;
}

/* The reported objects (some access) in order: watched first, each
 * group in node order (tsv) or by cmp_objs (rank); their number. */
static size_t object_order(const struct sharing *sh, size_t *order, int rank)
{
	size_t n = 0, i;
	int w;

	for (w = 1; w >= 0; w--)
		for (i = 0; i < sh->nobjs; i++)
			if (sh->objs[i].label != SHARE_NO_ACCESS &&
			    sh->objs[i].watched == w)
				order[n++] = i;
	if (rank) {
		cmp_objs_sh = sh;
		qsort(order, n, sizeof(*order), cmp_objs);
	}
	return n;
}

static void write_tsv(const struct sharing *sh, const struct experiment *e,
		      FILE *f)
{
	struct strbuf sb = STRBUF_INIT;
	size_t *order = xcalloc(sh->nobjs ? sh->nobjs : 1, sizeof(*order));
	size_t i, n, nord = object_order(sh, order, 0), x;

	fprintf(f, "# object\tnode\tlabel\tlatent\tthreads\taccesses\treads"
		"\twrites\ttransfers\tremote%%\thomed\tfirst-toucher\tadvice"
		"\tname\n");
	for (x = 0; x < nord; x++) {
		const struct sobj *so = &sh->objs[order[x]];

		i = order[x];
		strbuf_reset(&sb);
		alignments(so->latent, &sb);
		fprintf(f, "object\t%" PRIu32 "\t%s\t%s\t%zu\t%" PRIu64 "\t%"
			PRIu64 "\t%" PRIu64 "\t%" PRIu64 "\t",
			e->data->objs[i].node->id, label_text(so->label), sb.buf,
			so->nthreads, so->accesses, so->reads, so->writes,
			so->transfers);
		if (so->homed)
			fprintf(f, "%.1f", 100.0 * (double)so->remote /
					   (double)so->homed);
		else
			fputc('-', f);
		fprintf(f, "\t%" PRIu64 "\t", so->homed);
		if (so->toucher >= 0)
			fprintf(f, "%ld", so->toucher);
		else
			fputc('-', f);
		fprintf(f, "\t%s\t%s\n", so->advice, obj_name(e, (int32_t)i));
	}
	fprintf(f, "# watched\tnode\n");
	for (x = 0; x < nord && sh->objs[order[x]].watched; x++)
		fprintf(f, "watched\t%" PRIu32 "\n", e->data->objs[order[x]].node->id);
	fprintf(f, "# pooled\tnode\n");
	for (x = 0; x < nord; x++)
		if (sh->objs[order[x]].is_pooled)
			fprintf(f, "pooled\t%" PRIu32 "\n",
				e->data->objs[order[x]].node->id);
	free(order);
	fprintf(f, "# line\tnode\tprocess\tstart\toffset\tlabel\tthread\treads"
		"\twrites\tbytes-written\n");
	for (i = 0; i < sh->nlines; i++) {
		const struct srow *r = &sh->lines[i];
		const struct sblock *b = &sh->blocks[r->block];

		strbuf_reset(&sb);
		byte_ranges(r->wmask, &sb);
		fprintf(f, "line\t%" PRIu32 "\t%" PRIu32 "\t0x%" PRIx64 "\t%"
			PRId64 "\t%s\t%" PRIu32 "\t%" PRIu64 "\t%" PRIu64
			"\t%s\n", e->data->objs[r->obj].node->id, r->proc,
			b->start, (int64_t)(r->addr - b->start),
			label_text(r->label), r->thread, r->reads, r->writes,
			sb.buf);
	}
	fprintf(f, "# page\tnode\tprocess\taddress\tlabel\thome\tfirst-toucher"
		"\tremote\taccesses-per-node\n");
	for (i = 0; i < sh->npages; i++) {
		const struct srow *r = &sh->pages[i];

		fprintf(f, "page\t%" PRIu32 "\t%" PRIu32 "\t0x%" PRIx64 "\t%s\t",
			e->data->objs[r->obj].node->id, r->proc, r->addr,
			r->label != SHARE_TOO_FEW ? label_names[r->label]
						  : "-");
		if (r->home >= 0)
			fprintf(f, "%d\t", r->home);
		else
			fputs("-\t", f);
		if (r->thread != UINT32_MAX)
			fprintf(f, "%" PRIu32 "\t", r->thread);
		else
			fputs("-\t", f);
		fprintf(f, "%" PRIu64 "\t", r->remote);
		for (n = 0; n < sh->nnodes; n++)
			fprintf(f, "%s%" PRIu64, n ? "," : "", r->per_node[n]);
		if (!sh->nnodes)
			fputc('-', f);
		fputc('\n', f);
	}
	strbuf_release(&sb);
}

int sharing_finish(struct sharing *sh, struct experiment *e,
		   struct database *db, unsigned nthreads)
{
	uint32_t *ix;
	size_t i, j, k, *touches;
	struct line_order lo;
	pthread_t t;
	int beside;
	FILE *f;

	if (!sh->any || !e->data)
		return 0;
	e->data->sharing = sh;
	sh->nobjs = e->data->nobjs;
	sh->objs = xcalloc(sh->nobjs ? sh->nobjs : 1, sizeof(*sh->objs));
	for (i = 0; i < sh->nobjs; i++) {
		sh->objs[i].label = SHARE_NO_ACCESS;
		strbuf_init(&sh->objs[i].fs);
	}
	for (i = 0; i < sh->nblocks; i++)
		sh->objs[sh->blocks[i].obj].watched |= sh->blocks[i].watched;
	sh->nthreads = e->nthreads;
	touches = xcalloc(sh->nobjs * sh->nthreads + 1, sizeof(*touches));
	ix = xcalloc(sh->nacc ? sh->nacc : 1, sizeof(*ix));
	lo.sh = sh;
	lo.ix = xcalloc(sh->nacc ? sh->nacc : 1, sizeof(*ix));
	for (i = 0; i < sh->nacc; i++)
		ix[i] = lo.ix[i] = (uint32_t)i;
	beside = nthreads > 1 && !pthread_create(&t, NULL, line_order, &lo);
	mark_concurrent(sh, ix);
	latent(sh);
	pool_objects(sh, ix);
	if (beside)
		pthread_join(t, NULL);
	else
		line_order(&lo);
	free(ix);
	ix = lo.ix;
	for (i = 0; i < sh->nacc; i = j) {
		const struct sacc *x = &sh->acc[ix[i]];
		uint64_t page = page_of(sh, x);

		for (j = i; j < sh->nacc && sh->acc[ix[j]].proc == x->proc &&
		     page_of(sh, &sh->acc[ix[j]]) == page; j++)
			;
		k = sh->npages;
		page_rows(sh, ix, i, j, touches);
		classify_lines(sh, e, ix, i, j, k);
	}
	object_labels(sh);
	summarize(sh, touches);
	free(ix);
	free(touches);
	for (i = 0; i < sh->nobjs; i++) {
		struct data_object *o = &e->data->objs[i];

		o->sharing = (int8_t)(sh->objs[i].label >= SHARE_PRIVATE ?
				      sh->objs[i].label + 1 : 0);
		if (sh->objs[i].homed && sh->nnodes >= 2)
			o->remote = 100.0 * (double)sh->objs[i].remote /
				    (double)sh->objs[i].homed;
	}
	if (!db)
		return 0;
	f = database_open_file(db, "sharing.tsv");
	if (!f)
		return -1;
	write_tsv(sh, e, f);
	return database_close_file(db, f, "sharing.tsv");
}

void sharing_report(const struct sharing *sh, const struct experiment *e,
		    FILE *f, size_t top)
{
	struct strbuf sb = STRBUF_INIT;
	size_t *order, n = 0, i, k;
	int any_latent = 0;

	if (!sh || !sh->any || !sh->objs)
		return;
	order = xcalloc(sh->nobjs ? sh->nobjs : 1, sizeof(*order));
	n = object_order(sh, order, 1);
	fprintf(f, "\nSharing (hpcrun --sharing: %zu sampled accesses in %zu "
		"threads, %" PRIu64 " dropped; a 64-byte line's label from "
		"what threads do to it concurrently, at least %d accesses; "
		"an object's from its lines with the most transfers, or "
		"(pooled) from all its lines' accesses together where that "
		"differs, false sharing aside):\n",
		sh->nacc, sh->nfiles, sh->dropped, SHARE_MIN_ACCESSES);
	fprintf(f, "%-17s %-11s %7s %9s %7s %7s %9s  %s\n", "label", "latent",
		"threads", "accesses", "reads", "writes", "transfers", "object");
	for (i = 0; i < n && (i < top || sh->objs[order[i]].watched); i++) {
		const struct sobj *so = &sh->objs[order[i]];

		strbuf_reset(&sb);
		alignments(so->latent, &sb);
		any_latent |= so->latent != 0;
		fprintf(f, "%-17s %-11s %7zu %9" PRIu64 " %7" PRIu64 " %7"
			PRIu64 " %9" PRIu64 "  %s", label_text(so->label),
			sb.buf, so->nthreads, so->accesses, so->reads,
			so->writes, so->transfers, obj_name(e, (int32_t)order[i]));
		if (so->watched && so->label == SHARE_TOO_FEW)
			fprintf(f, "  (watched; too few samples: %" PRIu64 ")",
				so->accesses);
		else if (so->watched)
			fputs(so->is_pooled ? "  (watched; pooled)" : "  (watched)",
			      f);
		else if (so->is_pooled)
			fputs("  (pooled)", f);
		fputc('\n', f);
	}
	if (!n)
		fprintf(f, "  (none)\n");
	if (sh->untracked)
		fprintf(f, "Not watched: %" PRIu64 " sampled accesses fell in "
			"heap blocks below --data-min-bytes (hpcrun "
			"--data-min-bytes 1 would watch them)\n", sh->untracked);
	for (i = 0; i < n; i++)
		if (sh->objs[order[i]].nfs)
			break;
	fprintf(f, "\nFalse sharing (observed; per 8-byte word the threads "
		"that read and wrote it, and where):%s", i < n ? "\n" : " none\n");
	for (; i < n; i++) {
		const struct sobj *so = &sh->objs[order[i]];

		if (!so->nfs)
			continue;
		fputs(so->fs.buf + 1, f);
		if (so->nfs > MAX_FS_LINES)
			fprintf(f, "  (%zu more false-sharing lines)\n",
				so->nfs - MAX_FS_LINES);
	}
	if (any_latent) {
		fprintf(f, "\nLatent false sharing (predicted, not observed: "
			"the threads' writes would share a line at another "
			"alignment of the same allocation):\n");
		for (i = 0; i < n; i++) {
			const struct sobj *so = &sh->objs[order[i]];

			if (!so->latent)
				continue;
			strbuf_reset(&sb);
			alignments(so->latent, &sb);
			fprintf(f, "  %s: false sharing at alignment %s (start "
				"%% 64); fix: align it to 64 bytes "
				"(aligned_alloc(64, ...) or _Alignas(64)) and "
				"keep each thread's part on lines of its own\n",
				obj_name(e, (int32_t)order[i]), sb.buf);
		}
	}
	fprintf(f, "\nNUMA (%s topology, %zu node%s; a page's home is the node "
		"of its first touch):\n", sh->virtual_topology ? "virtual"
		: "real", sh->nnodes, sh->nnodes == 1 ? "" : "s");
	fprintf(f, "%8s %9s %6s %13s  %-40s  %s\n", "remote%", "homed",
		"pages", "first-toucher", "advice", "object");
	for (i = 0; i < n && i < top; i++) {
		const struct sobj *so = &sh->objs[order[i]];
		char remote[32] = "-", toucher[32] = "-";

		if (so->homed)
			snprintf(remote, sizeof(remote), "%.1f%%",
				 100.0 * (double)so->remote /
				 (double)so->homed);
		if (so->toucher >= 0)
			snprintf(toucher, sizeof(toucher), "thread %ld%s",
				 so->toucher, so->touchers > 1 ? "+" : "");
		fprintf(f, "%8s %9" PRIu64 " %6zu %13s  %-40s  %s\n", remote,
			so->homed, so->npages, toucher, so->advice,
			obj_name(e, (int32_t)order[i]));
	}
	for (i = 0; sh->nnodes >= 2 && i < n && i < top; i++) {
		const struct sobj *so = &sh->objs[order[i]];
		size_t shown = 0;

		if (!so->homed || 10 * so->remote < so->homed)
			continue;
		fprintf(f, "\nPage x node accesses of %s:\n  %-18s %5s",
			obj_name(e, (int32_t)order[i]), "page", "home");
		for (k = 0; k < sh->nnodes; k++)
			fprintf(f, " %8s%zu", "node ", k);
		fputc('\n', f);
		for (k = 0; k < sh->npages && shown < top; k++) {
			const struct srow *r = &sh->pages[k];
			size_t m;

			if (r->obj != (int32_t)order[i])
				continue;
			shown++;
			fprintf(f, "  0x%-16" PRIx64, r->addr);
			if (r->home >= 0)
				fprintf(f, " %5d", r->home);
			else
				fprintf(f, " %5s", "-");
			for (m = 0; m < sh->nnodes; m++)
				fprintf(f, " %9" PRIu64, r->per_node[m]);
			fputc('\n', f);
		}
	}
	strbuf_release(&sb);
	free(order);
}

/* The capability (capability.h): the run's sharing, the .hpcshare
 * files. */
static void *cap_new(const struct hpcprof_options *o)
{
	(void)o;
	return sharing_new();
}

static void cap_free(void *state)
{
	sharing_free(state);
}

static void *cap_read(const char *profile, const struct hpcrun_profile *p,
		      int *bad)
{
	(void)p;
	return sharing_read(profile, bad);
}

static void cap_side_free(void *side)
{
	hpcshare_free(side);
}

static void *cap_new_worker(const void *state)
{
	(void)state;
	return sharing_new();
}

static int cap_thread_begin(struct experiment *w, size_t t, const void *side,
			    const struct hpcrun_profile *p, const char *proc)
{
	(void)t;
	(void)p;
	(void)proc;
	if (w->cap[CAP_SHARING])
		sharing_before(w->cap[CAP_SHARING], w, side);
	return 0;
}

/* Objects of the thread's file that name no data object are left out,
 * said in one line. */
static int cap_thread_end(struct experiment *w, size_t t, const void *side,
			  const char *path, const char *proc, char **said)
{
	struct strbuf sb = STRBUF_INIT;

	(void)path;
	if (!w->cap[CAP_SHARING] ||
	    !sharing_thread(w->cap[CAP_SHARING], w, t, side, proc))
		return 0;
	strbuf_addf(&sb, "%s; those objects are left out", hpc_lasterr());
	*said = strbuf_detach(&sb, NULL);
	return 1;
}

static void cap_merge(struct experiment *e, const struct experiment *w,
		      struct node **map)
{
	if (w->cap[CAP_SHARING])
		sharing_merge(e->cap[CAP_SHARING], w->cap[CAP_SHARING], w,
			      map);
}

/* Not in the tree of ids rank 0 sends back (ids_only). */
static void cap_wire_write(const struct experiment *w, struct strbuf *sb,
			   int ids_only)
{
	wire_put32(sb, w->cap[CAP_SHARING] && !ids_only);
	if (w->cap[CAP_SHARING] && !ids_only)
		sharing_wire_write(w->cap[CAP_SHARING], sb);
}

static int cap_wire_read(struct experiment *w, struct wire_cursor *c)
{
	if (wire_get32(c) &&
	    (!w->cap[CAP_SHARING] ||
	     sharing_wire_read(w->cap[CAP_SHARING], w, c)))
		return -1;
	return 0;
}

static int cap_finish(void *state, struct experiment *e, struct database *db,
		      unsigned jobs)
{
	return sharing_finish(state, e, db, jobs);
}

/* The labels live with the data tree's objects once finished. */
static void cap_report(const void *state, const struct experiment *e,
		       FILE *f, size_t top)
{
	(void)state;
	if (e->data)
		sharing_report(e->data->sharing, e, f, top);
}

const struct prof_capability sharing_capability = {
	.name = "sharing",
	.new = cap_new,
	.free = cap_free,
	.read = cap_read,
	.side_free = cap_side_free,
	.ignored = "sharing data of this thread ignored",
	.new_worker = cap_new_worker,
	.thread_begin = cap_thread_begin,
	.thread_end = cap_thread_end,
	.merge = cap_merge,
	.wire_write = cap_wire_write,
	.wire_read = cap_wire_read,
	.finish = cap_finish,
	.report = cap_report,
};
