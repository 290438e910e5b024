/* phases.c - see phases.h and man/hpcprof-database.5 (phases.tsv). */
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "error.h"
#include "experiment-wire.h"
#include "hashmap.h"
#include "hpcpy.h"
#include "phases.h"
#include "run.h"
#include "strbuf.h"
#include "threadname.h"

/* The metrics at the waiting sites (invariant 2). */
enum { M_WAIT, M_COMPLETION, M_EPISODES, M_LAST, M_LOCK_WAIT, M_BLOCKED,
       NMET };

static const char *const met_name[NMET] = {
	"barrier wait (s)", "barrier completion (s)", "barrier episodes",
	"last arrivals", "lock wait (s)", "lock blocked calls",
};

static const char *const met_desc[NMET] = {
	"seconds from this thread's arrival at a barrier to the last arrival",
	"seconds from the last arrival at a barrier to this thread's departure",
	"barrier episodes this thread went through",
	"barrier episodes this thread arrived at last",
	"seconds blocked in pthread_mutex_lock, pthread_cond_wait, sem_wait",
	"lock calls that had to wait",
};

struct gsite {
	char *key;			/* invariant 1's */
	enum hpcsync_kind kind;
	uint64_t object;
	uint32_t nthreads;
	const struct node *call;	/* where its values went, or NULL */
	char *label;			/* "f.c:12 [main]" */
	int hidden;			/* a runtime's lock, left out */
};

/* One site's aggregates in one thread. */
struct srow {
	uint32_t site, thread;
	uint64_t episodes, last, calls, blocked;
	double wait, completion, work, lock_wait;
	uint32_t norders;
	uint64_t orders[HPCSYNC_MAX_ORDERS];
};

/* One phase kind in one thread (sites: global index + 1, 0 = start). */
struct prow {
	uint32_t start, end, thread;
	uint64_t count;
	double work, wall;
};

struct erow {
	uint32_t site, thread;
	uint64_t n;
	double wait, work;
	int32_t order;
	int last;
	/* MPI_Barrier: the communicator's size (0 another kind), and the
	 * arrival and departure on rank 0's clock (s) */
	uint32_t comm;
	double arrive, depart;
};

/*
 * A value measured at a call, not sampled: it goes to a frame named callee
 * below the call site of the profile's node (whose address is inside the
 * call instruction); node 0 (no call path) puts it at the top.
 */
struct call_value {
	uint32_t node;		/* node id in the profile, or 0 */
	const char *callee;	/* "<wait in pthread_barrier_wait>" */
	size_t raw;		/* raw metric */
	double v;
	struct node *at;	/* set: the call site (or the top) */
};

struct phases {
	int any, all_locks;
	uint32_t nhidden;	/* lock sites left out (runtime_lock) */
	double hidden_wait;
	size_t raw[NMET];
	struct gsite *sites;	size_t nsites, sites_alloc;
	struct hmap *site_index;	/* invariant 1's key -> index + 1 */
	struct srow *rows;	size_t nrows, rows_alloc;
	struct prow *prows;	size_t nprows, prows_alloc;
	struct erow *erows;	size_t nerows, erows_alloc;
	size_t nfiles;		/* threads with a file */
	uint32_t *merged;	/* a worker's: its site -> into's (merging) */
	/* the thread being added */
	struct hmap *local;	/* hpcrun site id -> global index + 1 */
	struct call_value *extra;	size_t nextra, extra_alloc;
	uint32_t *extra_site;	size_t extra_site_alloc;
};

struct phases *phases_new(int all_locks)
{
	struct phases *ph = xcalloc(1, sizeof(*ph));

	ph->all_locks = all_locks;
	ph->site_index = hmap_new();
	ph->local = hmap_new();
	return ph;
}

void phases_free(struct phases *ph)
{
	size_t i;

	if (!ph)
		return;
	for (i = 0; i < ph->nsites; i++) {
		free(ph->sites[i].key);
		free(ph->sites[i].label);
	}
	free(ph->sites);
	free(ph->merged);
	hmap_free(ph->site_index);
	hmap_free(ph->local);
	free(ph->rows);
	free(ph->prows);
	free(ph->erows);
	free(ph->extra);
	free(ph->extra_site);
	free(ph);
}

/* The profile's thread number (identity tuple, else the thread-id
 * header), or -1 when it says none. */
static long profile_thread(const struct hpcrun_profile *p)
{
	const char *h = hpcrun_profile_header(p, "thread-id");
	uint16_t i;

	for (i = 0; i < p->nidtuple; i++)
		if ((p->idtuple[i].kind & 0x3fff) == HPCRUN_ID_THREAD)
			return p->idtuple[i].logical <= LONG_MAX ?
			       (long)p->idtuple[i].logical : -1;
	if (h && *h && strspn(h, "0123456789") == strlen(h) && strlen(h) < 10)
		return strtol(h, NULL, 10);
	return -1;
}

struct hpcsync *phases_read(const char *profile,
			    const struct hpcrun_profile *p, int *bad)
{
	char *path = hpcsync_path_for(profile);
	struct hpcsync *s = NULL;
	long t;

	*bad = 0;
	if (access(path, F_OK) == 0 || errno != ENOENT) {
		s = hpcsync_read(path);
		*bad = !s;
	}
	if (s && s->thread >= 0 && (t = profile_thread(p)) >= 0 &&
	    t != s->thread) {
		hpc_seterr("'%s': thread %ld, but its profile's is thread %ld",
			   path, s->thread, t);
		hpcsync_free(s);
		s = NULL;
		*bad = 1;
	}
	free(path);
	return s;
}

void phases_register(struct phases *ph, struct metrics *m, int any)
{
	int k;

	ph->any = any;
	if (!any)
		return;
	for (k = 0; k < NMET; k++)
		ph->raw[k] = metrics_raw(m, met_name[k], met_desc[k],
					 k == M_EPISODES || k == M_LAST ||
					 k == M_BLOCKED);
}

int phases_metric(const struct phases *ph, size_t m)
{
	int k;

	for (k = 0; ph->any && k < NMET; k++)
		if (ph->raw[k] == m)
			return 1;
	return 0;
}

const char *phases_thread_columns(const struct phases *ph)
{
	return ph->any ? "\tsync-wait-s\tsync-completion-s\tsync-episodes"
			 "\tlast-arrivals\tphase-work-s\tlock-wait-s" : NULL;
}

/* The index of the site of key (invariant 1), made on first use; its
 * participants the most any thread said. */
static uint32_t site_of(struct phases *ph, const char *key,
			enum hpcsync_kind kind, uint64_t object,
			uint32_t nthreads)
{
	uintptr_t v = (uintptr_t)hmap_get_str(ph->site_index, key);

	if (!v) {
		struct gsite *g;

		HPC_GROW(ph->sites, ph->nsites + 1, ph->sites_alloc);
		g = &ph->sites[ph->nsites++];
		memset(g, 0, sizeof(*g));
		g->key = xstrdup(key);
		g->kind = kind;
		g->object = object;
		v = ph->nsites;
		hmap_put_str(ph->site_index, key, (void *)v);
	}
	if (nthreads > ph->sites[v - 1].nthreads)
		ph->sites[v - 1].nthreads = nthreads;
	return (uint32_t)(v - 1);
}

/* The profile's load-map id of HPCPY_MODULE, or 0. */
static uint16_t py_lm(const struct hpcrun_profile *p)
{
	size_t k;

	for (k = 0; k < p->nlms; k++)
		if (!strcmp(p->lms[k].path, HPCPY_MODULE))
			return p->lms[k].id;
	return 0;
}

/* Appends the Python frames of node i's path, innermost first, to a
 * site's key (invariant 1); where[] maps every node id to its index + 1
 * when the profile has Python frames. */
static void py_path_key(const struct hpcrun_profile *p, struct hmap *where,
			size_t i, struct strbuf *key)
{
	uint16_t lm = py_lm(p);
	uintptr_t v;
	size_t steps;

	if (!lm)
		return;
	for (steps = 0; steps < p->nnodes && p->nodes[i].parent; steps++) {
		v = (uintptr_t)hmap_get(where, &p->nodes[i].parent,
					sizeof(uint32_t));
		if (!v)
			return;
		i = v - 1;
		if (p->nodes[i].lm == lm)
			strbuf_addf(key, " py%" PRIx64, p->nodes[i].addr);
	}
}

/*
 * The global index of the thread's hpcrun site (invariant 1); where[] maps
 * the profile's node ids of the sites to their index in p->nodes + 1.
 */
static uint32_t global_site(struct phases *ph, const struct hpcsync_site *st,
			    const struct hpcrun_profile *p, const char *proc,
			    struct hmap *where)
{
	struct strbuf key = STRBUF_INIT;
	const char *lm = NULL;
	uintptr_t v = st->node ? (uintptr_t)hmap_get(where, &st->node,
						     sizeof(st->node)) : 0;
	uint64_t addr = 0;
	uint32_t g;
	size_t k;

	if (v) {
		addr = p->nodes[v - 1].addr;
		for (k = 0; k < p->nlms; k++)
			if (p->lms[k].id == p->nodes[v - 1].lm)
				lm = p->lms[k].path;
	}
	if (lm) {
		strbuf_addf(&key, "%s %s+%" PRIx64, hpcsync_kind_name(st->kind),
			    lm, addr);
		py_path_key(p, where, v - 1, &key);
	} else
		strbuf_addf(&key, "%s %s #%u", hpcsync_kind_name(st->kind),
			    proc, st->id);
	g = site_of(ph, key.buf, st->kind, st->object, st->nthreads);
	strbuf_release(&key);
	return g;
}

/* Node id -> index in p->nodes + 1, for the nodes of s's sites (every
 * node when the profile has Python frames: py_path_key walks the paths):
 * one pass over the profile, whatever the number of sites. */
static struct hmap *site_nodes(const struct hpcsync *s,
			       const struct hpcrun_profile *p)
{
	struct hmap *want = hmap_new();
	uint64_t i;

	if (s && s->nsites && py_lm(p)) {
		for (i = 0; i < p->nnodes; i++)
			hmap_put(want, &p->nodes[i].id, sizeof(uint32_t),
				 (void *)(uintptr_t)(i + 1));
		return want;
	}

	for (i = 0; s && i < s->nsites; i++)
		if (s->sites[i].node)
			hmap_put(want, &s->sites[i].node, sizeof(uint32_t),
				 NULL);
	for (i = 0; s && s->nsites && i < p->nnodes; i++)
		if (hmap_lookup(want, &p->nodes[i].id, sizeof(uint32_t), NULL))
			hmap_put(want, &p->nodes[i].id, sizeof(uint32_t),
				 (void *)(uintptr_t)(i + 1));
	return want;
}

int phases_check(const struct hpcsync *s, const struct hpcrun_profile *p)
{
	struct hmap *where;
	size_t i;
	int ret = 0;

	if (!s)
		return 0;
	where = site_nodes(s, p);
	for (i = 0; i < s->nsites && !ret; i++)
		if (s->sites[i].node &&
		    !hmap_get(where, &s->sites[i].node, sizeof(uint32_t)))
			ret = hpc_seterr("'%s': site %" PRIu32 " names node %"
					 PRIu32 ", which its profile lacks",
					 s->path, s->sites[i].id,
					 s->sites[i].node);
	hmap_free(where);
	return ret;
}

/* The global key (index + 1, 0 thread start) of the thread's site id. */
static uint32_t local_key(struct phases *ph, uint32_t id)
{
	return id ? (uint32_t)(uintptr_t)hmap_get(ph->local, &id, sizeof(id))
		  : 0;
}

static void add_extra(struct phases *ph, uint32_t node, uint32_t site,
		      const char *callee, int met, double v)
{
	struct call_value *x;

	if (v == 0)
		return;
	HPC_GROW(ph->extra, ph->nextra + 1, ph->extra_alloc);
	HPC_GROW(ph->extra_site, ph->nextra + 1, ph->extra_site_alloc);
	x = &ph->extra[ph->nextra];
	x->node = node;
	x->callee = callee;
	x->raw = ph->raw[met];
	x->v = v;
	x->at = NULL;
	ph->extra_site[ph->nextra++] = site;
}

static struct srow *new_row(struct phases *ph, uint32_t site, uint32_t t)
{
	struct srow *r;

	HPC_GROW(ph->rows, ph->nrows + 1, ph->rows_alloc);
	r = &ph->rows[ph->nrows++];
	memset(r, 0, sizeof(*r));
	r->site = site;
	r->thread = t;
	return r;
}

/* Thread t's row of global site g (rows: g -> row index + 1), made on
 * first use: the thread's hpcrun sites that are one site of the
 * experiment (invariant 1) add up in one row. */
static struct srow *thread_row(struct phases *ph, struct hmap *rows,
			       uint32_t g, uint32_t t)
{
	uintptr_t v = (uintptr_t)hmap_get(rows, &g, sizeof(g));

	if (v)
		return &ph->rows[v - 1];
	new_row(ph, g, t);
	hmap_put(rows, &g, sizeof(g), (void *)(uintptr_t)ph->nrows);
	return &ph->rows[ph->nrows - 1];
}

/* The callee frame's name for a site kind, as a static string. */
static const char *callee_name(enum hpcsync_kind k)
{
	static char names[HPCSYNC_NKINDS][64];

	if (!names[k][0])
		snprintf(names[k], sizeof(names[k]), "<wait in %s>",
			 hpcsync_kind_function(k));
	return names[k];
}

int64_t phases_clock_offset(const struct hpcsync *s)
{
	return s->clock == HPCSYNC_CLOCK_OTHER_HOST ? s->clock_offset : 0;
}

/* The episodes kept: wait and work before each (per-thread order). */
static void add_episodes(struct phases *ph, const struct hpcsync *s,
			 size_t t)
{
	uint64_t prev_cpu = 0;
	size_t i;

	int64_t off = phases_clock_offset(s);

	for (i = 0; i < s->nepisodes; i++) {
		const struct hpcsync_episode *ep = &s->episodes[i];
		const struct hpcsync_site *st = hpcsync_site(s, ep->site);
		struct erow *r;

		HPC_GROW(ph->erows, ph->nerows + 1, ph->erows_alloc);
		r = &ph->erows[ph->nerows++];
		r->site = local_key(ph, ep->site) - 1;
		r->thread = (uint32_t)t;
		r->n = ep->n;
		r->wait = ep->lastarr >= ep->arrive && ep->lastarr ?
			  (double)(ep->lastarr - ep->arrive) * 1e-9 :
			  (double)(ep->depart - ep->arrive) * 1e-9;
		r->work = ep->cpu_arrive >= prev_cpu ?
			  (double)(ep->cpu_arrive - prev_cpu) * 1e-9 : 0;
		r->order = ep->order;
		r->last = ep->lastarr && ep->lastarr == ep->arrive;
		r->comm = st && st->kind == HPCSYNC_MPI_BARRIER && st->nthreads ?
			  st->nthreads : 0;
		r->arrive = (double)((int64_t)ep->arrive - off) * 1e-9;
		r->depart = (double)((int64_t)ep->depart - off) * 1e-9;
		prev_cpu = ep->cpu_depart;
	}
}

void phases_columns(const struct phases *ph, const struct hpcsync *s,
		    struct strbuf *cols)
{
	double wait = 0, completion = 0, episodes = 0, last = 0, work = 0,
	       lock_wait = 0;
	size_t i;

	if (!ph->any)
		return;
	if (!s) {
		strbuf_addstr(cols, "\t-\t-\t-\t-\t-\t-");
		return;
	}
	for (i = 0; i < s->nsyncs; i++) {
		wait += s->syncs[i].wait;
		completion += s->syncs[i].completion;
		episodes += (double)s->syncs[i].episodes;
		last += (double)s->syncs[i].last;
	}
	for (i = 0; i < s->nlocks; i++)
		lock_wait += s->locks[i].wait;
	for (i = 0; i < s->nphases; i++)
		work += s->phases[i].work;
	strbuf_addf(cols, "\t%.9f\t%.9f\t%.0f\t%.0f\t%.9f\t%.9f", wait,
		    completion, episodes, last, work, lock_wait);
}

void phases_thread(struct phases *ph, struct experiment *e, size_t t,
		   const struct hpcsync *s, const struct hpcrun_profile *p,
		   const char *proc)
{
	struct hmap *rows = hmap_new();	/* global site -> row index + 1 */
	struct hmap *kinds = hmap_new();	/* (start, end) -> prow + 1 */
	struct hmap *where;
	size_t i;

	ph->nextra = 0;
	hmap_free(ph->local);
	ph->local = hmap_new();
	e->cap[CAP_PHASES] = ph;
	ph->nfiles += s != NULL;
	where = site_nodes(s, p);
	for (i = 0; s && i < s->nsites; i++) {
		uint32_t g = global_site(ph, &s->sites[i], p, proc, where);

		hmap_put(ph->local, &s->sites[i].id, sizeof(s->sites[i].id),
			 (void *)(uintptr_t)(g + 1));
	}
	for (i = 0; s && i < s->nsyncs; i++) {
		const struct hpcsync_sync *y = &s->syncs[i];
		const struct hpcsync_site *st = hpcsync_site(s, y->site);
		uint32_t g = local_key(ph, y->site) - 1, k;
		const char *callee = callee_name(st->kind);
		struct srow *r = thread_row(ph, rows, g, (uint32_t)t);

		r->episodes += y->episodes;
		r->last += y->last;
		r->wait += y->wait;
		r->completion += y->completion;
		for (k = 0; k < y->norders && k < HPCSYNC_MAX_ORDERS; k++)
			r->orders[k] += y->orders[k];
		if (y->norders > r->norders)
			r->norders = y->norders;
		add_extra(ph, st->node, g, callee, M_WAIT, y->wait);
		add_extra(ph, st->node, g, callee, M_COMPLETION, y->completion);
		add_extra(ph, st->node, g, callee, M_EPISODES,
			  (double)y->episodes);
		add_extra(ph, st->node, g, callee, M_LAST, (double)y->last);
	}
	for (i = 0; s && i < s->nlocks; i++) {
		const struct hpcsync_lock *l = &s->locks[i];
		const struct hpcsync_site *st = hpcsync_site(s, l->site);
		uint32_t g = local_key(ph, l->site) - 1;
		const char *callee = callee_name(st->kind);
		struct srow *r = thread_row(ph, rows, g, (uint32_t)t);

		r->calls += l->calls;
		r->blocked += l->blocked;
		r->lock_wait += l->wait;
		add_extra(ph, st->node, g, callee, M_LOCK_WAIT, l->wait);
		add_extra(ph, st->node, g, callee, M_BLOCKED,
			  (double)l->blocked);
	}
	for (i = 0; s && i < s->nphases; i++) {
		const struct hpcsync_phase *q = &s->phases[i];
		struct prow *r;
		uint32_t end = local_key(ph, q->end);
		uint32_t key[2] = { local_key(ph, q->start), end };
		uintptr_t row = (uintptr_t)hmap_get(kinds, key, sizeof(key));

		if (row) {
			r = &ph->prows[row - 1];
		} else {
			HPC_GROW(ph->prows, ph->nprows + 1, ph->prows_alloc);
			r = &ph->prows[ph->nprows++];
			memset(r, 0, sizeof(*r));
			r->start = key[0];
			r->end = end;
			r->thread = (uint32_t)t;
			hmap_put(kinds, key, sizeof(key),
				 (void *)(uintptr_t)ph->nprows);
		}
		r->count += q->count;
		r->work += q->work;
		r->wall += q->wall;
		end--;
		row = (uintptr_t)hmap_get(rows, &end, sizeof(end));
		if (row)
			ph->rows[row - 1].work += q->work;
	}
	if (s)
		add_episodes(ph, s, t);
	hmap_free(rows);
	hmap_free(kinds);
	hmap_free(where);
}

/* The PHASE node of the phases from start site start to end site end
 * (experiment.h invariant 4; hpcrun's site ids of the thread being added,
 * or with ph NULL the keys themselves), or with ended 0 of the phases
 * after start, whatever their end; made on first use. */
static struct node *phase_root(struct experiment *e, struct phases *ph,
			       uint32_t start, uint32_t end, int ended)
{
	uint32_t k1 = ph ? local_key(ph, start) : start;
	uint32_t k2 = !ended ? 0 : (ph ? local_key(ph, end) : end) + 1;
	int is_new;
	struct node *n = experiment_child(e, e->root, NODE_PHASE, k1, k2,
					  &is_new);

	if (!is_new)
		return n;
	n->proc = name_table_intern(&e->procs, "<phase>");
	n->lm = e->shared ? PHASES_LM : name_table_intern(&e->lms, "<phases>");
	n->file = name_table_intern(&e->files, "");
	return n;
}

/* The site of a placeholder "S0000003" (letter 'S': a start) or
 * "E0000004" ('E': an end), or -1 for another name. */
static long phase_site(uint64_t addr, char letter)
{
	char name[16];
	char *end;
	long v;

	experiment_placeholder_name(addr, name);
	if (name[0] != letter || strlen(name) != 8 ||
	    strspn(name + 1, "0123456789") != 7)
		return -1;
	v = strtol(name + 1, &end, 10);
	return v;
}

/* Is addr the placeholder "^Phases " (the per-phase profiles' root)? */
static int is_phases_root(uint64_t addr)
{
	char name[16];

	experiment_placeholder_name(addr, name);
	return !strcmp(name, "^Phases");
}

/* Every profile: its "^Phases " subtree is this hook's. */
static int phases_begin(struct profile_walk *w, void **state)
{
	*state = w->e->cap[CAP_PHASES];
	return 1;
}

/*
 * "^Phases ", its start sites' placeholders and theirs of end sites
 * (hpcrun(5)): below the root, the PHASE node of each (start, end) an end
 * placeholder names, and of the start alone for code right below its
 * start placeholder (made in a worker only when it has synchronization
 * data: invariant 5); the rest of the subtree is code, placed below them.
 */
static int phases_place(void *state, struct profile_walk *w, uint64_t i)
{
	const struct hpcrun_node *nd = &w->p->nodes[i];
	long k = w->parent[i], kk, site, end;

	if (k < 0 && nd->lm == 0 && is_phases_root(nd->addr)) {
		w->in_phase[i] = 1;	/* children: "S0000003" */
		return 1;
	}
	if (!w->in_phase[i])
		return 0;
	kk = w->parent[k];
	if (kk < 0)			/* a start placeholder */
		return 1;
	if (w->parent[kk] >= 0)		/* code below a PHASE node, or none */
		return w->attach[k] ? 0 : 1;
	site = w->p->nodes[k].lm == 0 ? phase_site(w->p->nodes[k].addr, 'S')
				      : -1;
	if (site < 0 || (!state && w->e->shared))
		return 1;
	end = nd->lm == 0 ? phase_site(nd->addr, 'E') : -1;
	if (end >= 0) {
		w->attach[i] = phase_root(w->e, state, (uint32_t)site,
					  (uint32_t)end, 1);
		return 1;
	}
	if (!w->attach[k])
		w->attach[k] = phase_root(w->e, state, (uint32_t)site, 0, 0);
	return 0;
}

/*
 * The values measured at the thread's calls: each below the call site of
 * its node, attached where the node's parent was; then each site notes
 * the call node of its first value.
 */
static void phases_end(void *state, struct profile_walk *w)
{
	struct phases *ph = state;
	struct experiment *e = w->e;
	size_t i;

	for (i = 0; ph && i < ph->nextra; i++) {
		struct call_value *x = &ph->extra[i];
		long k = x->node ? hpcrun_node_position(w->ids, x->node) : -1;
		const struct hpcrun_node *nd = k >= 0 ? &w->p->nodes[k] : NULL;
		long pk = nd && nd->parent ?
			  hpcrun_node_position(w->ids, nd->parent) : -1;
		struct node *at = pk >= 0 && w->attach[pk] ? w->attach[pk]
							   : w->top;

		/* a node with children (the graft's call of a libomp join:
		 * a return address) is the call the tree walk placed */
		if (nd && nd->lm && nd->lm < w->nmods && w->mods[nd->lm])
			at = w->has_child[k] && w->attach[k] ? w->attach[k] :
			     experiment_place_call(e, at, w->mods[nd->lm],
						   nd->addr);
		x->at = at;
		if (x->v != 0 && x->v == x->v)
			experiment_add_sample(e, experiment_named_leaf(
						      e, at, x->callee),
					      x->raw, x->v);
	}
	for (i = 0; ph && i < ph->nextra; i++) {
		struct gsite *g = &ph->sites[ph->extra_site[i]];

		if (!g->call && ph->extra[i].at)
			g->call = ph->extra[i].at;
	}
}

struct phases *phases_new_worker(const struct phases *ph)
{
	struct phases *w = phases_new(ph->all_locks);

	w->any = ph->any;
	memcpy(w->raw, ph->raw, sizeof(w->raw));
	return w;
}

void phases_merge_sites(struct phases *into, struct phases *from)
{
	size_t i;

	free(from->merged);
	from->merged = xcalloc(from->nsites + 1, sizeof(*from->merged));
	for (i = 0; i < from->nsites; i++) {
		const struct gsite *g = &from->sites[i];

		from->merged[i] = site_of(into, g->key, g->kind, g->object,
					  g->nthreads);
	}
}

/* into's key (index + 1, 0 thread start) of a merged worker's. */
static uint32_t merged_key(const struct phases *from, uint32_t k)
{
	return k && k <= from->nsites ? from->merged[k - 1] + 1 : k;
}

/* into's index of a merged worker's site (UINT32_MAX: none). */
static uint32_t merged_site(const struct phases *from, uint32_t site)
{
	return merged_key(from, site + 1) - 1;
}

uint32_t phases_merge_key(const struct phases *from, uint32_t k)
{
	return from && from->merged ? merged_key(from, k) : k;
}

void phases_merge_end(struct phases *into, const struct phases *from,
		      struct node **map)
{
	size_t i;

	for (i = 0; i < from->nsites; i++) {
		struct gsite *g = &into->sites[from->merged[i]];

		if (!g->call && from->sites[i].call)
			g->call = map[from->sites[i].call->id];
	}
	HPC_GROW(into->rows, into->nrows + from->nrows, into->rows_alloc);
	HPC_GROW(into->prows, into->nprows + from->nprows, into->prows_alloc);
	HPC_GROW(into->erows, into->nerows + from->nerows, into->erows_alloc);
	for (i = 0; i < from->nrows; i++) {
		struct srow *r = &into->rows[into->nrows++];

		*r = from->rows[i];
		r->site = merged_site(from, r->site);
	}
	for (i = 0; i < from->nprows; i++) {
		struct prow *r = &into->prows[into->nprows++];

		*r = from->prows[i];
		r->start = merged_key(from, r->start);
		r->end = merged_key(from, r->end);
	}
	for (i = 0; i < from->nerows; i++) {
		struct erow *r = &into->erows[into->nerows++];

		*r = from->erows[i];
		r->site = merged_site(from, r->site);
	}
	into->nfiles += from->nfiles;
}

void phases_wire_write(const struct phases *ph, struct strbuf *sb)
{
	size_t i;

	wire_put32(sb, (uint32_t)ph->nsites);
	for (i = 0; i < ph->nsites; i++) {
		const struct gsite *g = &ph->sites[i];

		wire_putstr(sb, g->key);
		wire_put32(sb, g->kind);
		wire_put64(sb, g->object);
		wire_put32(sb, g->nthreads);
		wire_put32(sb, g->call ? g->call->id : 0);
	}
	wire_put_rows(sb, ph->rows, ph->nrows, sizeof(*ph->rows));
	wire_put_rows(sb, ph->prows, ph->nprows, sizeof(*ph->prows));
	wire_put_rows(sb, ph->erows, ph->nerows, sizeof(*ph->erows));
	wire_put64(sb, ph->nfiles);
}

int phases_wire_read(struct phases *ph, const struct experiment *w,
		     struct wire_cursor *c)
{
	struct strbuf key = STRBUF_INIT;
	uint32_t n = wire_get32(c), i, call;
	size_t k;

	for (i = 0; i < n && !c->bad; i++) {
		const char *s = wire_getstr(c, &key);
		uint32_t kind = wire_get32(c);
		uint64_t object = wire_get64(c);
		uint32_t nthreads = wire_get32(c), site;

		call = wire_get32(c);
		if (c->bad || !s || kind >= HPCSYNC_NKINDS ||
		    call > w->next_id) {
			c->bad = 1;
			break;
		}
		site = site_of(ph, s, (enum hpcsync_kind)kind, object, nthreads);
		if (site != i)	/* a key twice */
			c->bad = 1;
		ph->sites[site].call = call ? w->nodes[call - 1] : NULL;
	}
	strbuf_release(&key);
	ph->rows = wire_get_rows(c, ph->rows, &ph->nrows, &ph->rows_alloc,
				 sizeof(*ph->rows));
	ph->prows = wire_get_rows(c, ph->prows, &ph->nprows, &ph->prows_alloc,
				  sizeof(*ph->prows));
	ph->erows = wire_get_rows(c, ph->erows, &ph->nerows, &ph->erows_alloc,
				  sizeof(*ph->erows));
	ph->nfiles = (size_t)wire_get64(c);
	if (c->bad)
		return -1;
	for (k = 0; k < ph->nrows; k++)
		if (ph->rows[k].site >= ph->nsites ||
		    ph->rows[k].norders > HPCSYNC_MAX_ORDERS)
			return -1;
	for (k = 0; k < ph->nprows; k++)
		if (ph->prows[k].start > ph->nsites ||
		    ph->prows[k].end > ph->nsites)
			return -1;
	for (k = 0; k < ph->nerows; k++)
		if (ph->erows[k].site >= ph->nsites)
			return -1;
	return 0;
}

const struct profile_hook phases_profile_hook = {
	.begin = phases_begin,
	.place = phases_place,
	.end = phases_end,
};

/* A libgomp join's leaf is its outlined function, called from the
 * construct: that call, when the leaf's procedure has one (hpcrun(5));
 * a libomp join's leaf is the construct's call itself. */
static const struct node *construct_call(enum hpcsync_kind kind,
					 const struct node *n)
{
	const struct node *f;

	if (kind != HPCSYNC_OMP_JOIN)
		return n;
	for (f = n->parent; f && f->kind != NODE_PF; f = f->parent)
		;
	for (f = f ? f->parent : NULL; f && f->kind != NODE_CALL &&
	     f->kind != NODE_PF; f = f->parent)
		;
	return f && f->kind == NODE_CALL && f->line ? f : n;
}

/* The innermost Python call above n of the program's own code, else the
 * innermost Python call; NULL when none (phases.h, invariant 1). */
static const struct node *py_call(const struct experiment *e,
				  const struct node *n)
{
	const struct node *f, *first = NULL;

	for (f = n->parent; f; f = f->parent) {
		if (f->kind != NODE_CALL || f->lm >= e->lms.n ||
		    strcmp(e->lms.names[f->lm], HPCPY_MODULE))
			continue;
		if (!first)
			first = f;
		if (!strstr(e->files.names[f->file], "/lib/python"))
			return f;
	}
	return first;
}

/* "f.c:12 [main]" for the call site n (a CALL node), or its procedure;
 * for a libgomp join, "f.c:11 [main._omp_fn.0]": the construct's line
 * and the outlined function. */
static char *call_label(const struct experiment *e, enum hpcsync_kind kind,
			const struct node *n)
{
	struct strbuf sb = STRBUF_INIT;
	const struct node *f, *at;
	const char *file, *slash;

	if (py_call(e, n))
		n = py_call(e, n);
	at = construct_call(kind, n);
	if (at != n && at->file == n->file) {
		file = e->files.names[at->file];
		slash = strrchr(file, '/');
		file = slash ? slash + 1 : file;
		for (f = n->parent; f && f->kind != NODE_PF; f = f->parent)
			;
		strbuf_addf(&sb, "%s:%u", file, at->line);
		if (f)
			strbuf_addf(&sb, " [%s]", e->procs.names[f->proc]);
		return strbuf_detach(&sb, NULL);
	}
	file = e->files.names[n->file];
	slash = strrchr(file, '/');
	file = slash ? slash + 1 : file;
	for (f = n->parent; f && f->kind != NODE_PF; f = f->parent)
		;
	if (n->line && file[0])
		strbuf_addf(&sb, "%s:%u", file, n->line);
	else
		strbuf_addf(&sb, "%s+0x%" PRIx64,
			    strrchr(e->lms.names[n->lm], '/') ?
			    strrchr(e->lms.names[n->lm], '/') + 1 :
			    e->lms.names[n->lm], n->vma);
	if (f)
		strbuf_addf(&sb, " [%s]", e->procs.names[f->proc]);
	return strbuf_detach(&sb, NULL);
}

/* Is name the function name want, or a copy the compiler made of it
 * ("take_gil.lto_priv.0")? */
static int is_function(const char *name, const char *want)
{
	size_t n = strlen(want);

	return !strncmp(name, want, n) && (!name[n] || name[n] == '.');
}

/* Is call site n a wait for CPython's GIL: made by the interpreter's
 * take_gil or drop_gil (as itself or inlined in its caller) in a
 * libpython or python module (phases.h, invariant 1)? */
static int gil_wait(const struct experiment *e, const struct node *n)
{
	const struct node *f;
	const char *lm, *slash;

	for (f = n->parent; f && f->kind != NODE_CALL; f = f->parent) {
		if ((f->kind == NODE_PF || f->kind == NODE_ALIEN) &&
		    f->proc < e->procs.n && f->lm < e->lms.n &&
		    (is_function(e->procs.names[f->proc], "take_gil") ||
		     is_function(e->procs.names[f->proc], "drop_gil"))) {
			lm = e->lms.names[f->lm];
			slash = strrchr(lm, '/');
			lm = slash ? slash + 1 : lm;
			return !strncmp(lm, "libpython", 9) ||
			       !strncmp(lm, "python", 6);
		}
		if (f->kind == NODE_PF)
			break;
	}
	return 0;
}

/* The label of call site n (a CALL node): call_label's, and for a wait
 * for the GIL " (GIL wait)" after it. */
static char *site_label(const struct experiment *e, enum hpcsync_kind kind,
			const struct node *n)
{
	struct strbuf sb = STRBUF_INIT;
	char *label;

	if (!n || n->kind != NODE_CALL) {
		strbuf_addstr(&sb, "<unknown call path>");
		return strbuf_detach(&sb, NULL);
	}
	label = call_label(e, kind, n);
	if (!gil_wait(e, n))
		return label;
	strbuf_addf(&sb, "%s (GIL wait)", label);
	free(label);
	return strbuf_detach(&sb, NULL);
}

/* Per-site sums over its threads (for phases.tsv and --text). */
struct site_sum {
	uint32_t threads;
	uint64_t episodes, last, calls, blocked;
	double wait, completion, lock_wait, work_sum, work_max;
	uint32_t top_last_thread;
	uint64_t top_last;
};

static void sum_sites(const struct phases *ph, struct site_sum *ss)
{
	size_t i;

	memset(ss, 0, ph->nsites * sizeof(*ss));
	for (i = 0; i < ph->nrows; i++) {
		const struct srow *r = &ph->rows[i];
		struct site_sum *s = &ss[r->site];

		s->threads++;
		s->episodes = r->episodes > s->episodes ? r->episodes
							: s->episodes;
		s->last += r->last;
		s->calls += r->calls;
		s->blocked += r->blocked;
		s->wait += r->wait;
		s->completion += r->completion;
		s->lock_wait += r->lock_wait;
		s->work_sum += r->work;
		s->work_max = r->work > s->work_max ? r->work : s->work_max;
		if (r->last > s->top_last) {
			s->top_last = r->last;
			s->top_last_thread = r->thread;
		}
	}
}

/* mean / max of the threads' work: 1 when balanced; 0 without work. */
static double efficiency(double sum, double max, uint32_t threads)
{
	return max > 0 && threads ? sum / threads / max : 0;
}

static int cmp_srow(const void *a, const void *b)
{
	const struct srow *x = a, *y = b;

	if (x->site != y->site)
		return x->site < y->site ? -1 : 1;
	return x->thread < y->thread ? -1 : x->thread > y->thread;
}

static int cmp_prow(const void *a, const void *b)
{
	const struct prow *x = a, *y = b;

	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	if (x->end != y->end)
		return x->end < y->end ? -1 : 1;
	return x->thread < y->thread ? -1 : x->thread > y->thread;
}

static int cmp_erow(const void *a, const void *b)
{
	const struct erow *x = a, *y = b;

	if (x->site != y->site)
		return x->site < y->site ? -1 : 1;
	if (x->thread != y->thread)
		return x->thread < y->thread ? -1 : 1;
	return x->n < y->n ? -1 : x->n > y->n;
}

static void write_orders(FILE *f, const struct srow *r)
{
	uint32_t k;

	if (!r->norders)
		fputc('-', f);
	for (k = 0; k < r->norders; k++)
		fprintf(f, "%s%" PRIu64, k ? "," : "", r->orders[k]);
}

/* The PHASE nodes of e (keyed children of the root, experiment.h
 * invariant 4): by (start key, end key + 1), 0 for the phases after a
 * start whatever their end. */
struct phase_nodes {
	struct hmap *by_key;		/* (k1, k2) -> node */
	char *ended;			/* [nsites + 1]: a start has some of
					 * its phases by end */
};

static void phase_nodes_init(struct phase_nodes *pn, const struct phases *ph,
			     const struct experiment *e)
{
	struct node *n;

	pn->by_key = hmap_new();
	pn->ended = xcalloc(ph->nsites + 1, 1);
	for (n = e->root->first; n; n = n->next)
		if (n->kind == NODE_PHASE && n->k1 <= ph->nsites) {
			hmap_put_u64(pn->by_key, n->k1 << 32 | n->k2, n);
			if (n->k2)
				pn->ended[n->k1] = 1;
		}
}

static void phase_nodes_release(struct phase_nodes *pn)
{
	hmap_free(pn->by_key);
	free(pn->ended);
}

/* The per-phase profile of the phase kind from start to end (keys): its
 * own, or where the profiles keep phases by their start alone (hpcrun(5)),
 * the start's; NULL without one. */
static const struct node *kind_node(const struct phase_nodes *pn,
				    uint32_t start, uint32_t end)
{
	uint64_t k2 = pn->ended[start] ? (uint64_t)end + 1 : 0;

	return hmap_get_u64(pn->by_key, (uint64_t)start << 32 | k2);
}

static void write_tsv(struct phases *ph, const struct phase_nodes *pn,
		      FILE *f)
{
	struct site_sum *ss = xcalloc(ph->nsites + 1, sizeof(*ss));
	size_t i, j;

	sum_sites(ph, ss);
	fprintf(f, "# hpcprof phases 1\n"
		"# site\tsite\tkind\tfunction\tobject\tnode\tparticipants\t"
		"threads\tepisodes\twait-s\tcompletion-s\tlast-arrivals\t"
		"work-s\tlb-efficiency\timbalance-gain-s\tlock-calls\t"
		"lock-blocked\tlock-wait-s\tlocation\n"
		"# thread\tsite\tthread\tepisodes\twait-s\tcompletion-s\t"
		"last-arrivals\twork-s\torders\tlock-calls\tlock-blocked\t"
		"lock-wait-s\n"
		"# phase\tstart\tend\tnode\tthreads\tcount\twork-s\twall-s\t"
		"lb-efficiency\n"
		"# phase-thread\tstart\tend\tthread\tcount\twork-s\twall-s\n"
		"# episode\tsite\tthread\tn\twait-s\twork-s\torder\tlast\n"
		"# hidden-locks\tsites\tlock-wait-s\n");
	if (ph->nhidden)
		fprintf(f, "hidden-locks\t%" PRIu32 "\t%.9f\n", ph->nhidden,
			ph->hidden_wait);
	for (i = 0; i < ph->nsites; i++) {
		const struct gsite *g = &ph->sites[i];
		const struct site_sum *s = &ss[i];

		if (g->hidden)
			continue;
		fprintf(f, "site\t%zu\t%s\t%s\t0x%" PRIx64 "\t%" PRIu32 "\t%"
			PRIu32 "\t%" PRIu32 "\t%" PRIu64 "\t%.9f\t%.9f\t%" PRIu64
			"\t%.9f\t%.6f\t%.9f\t%" PRIu64 "\t%" PRIu64 "\t%.9f\t%s\n",
			i + 1, hpcsync_kind_name(g->kind),
			hpcsync_kind_function(g->kind), g->object,
			g->call ? g->call->id : 0, g->nthreads, s->threads,
			s->episodes, s->wait, s->completion, s->last,
			s->work_sum, efficiency(s->work_sum, s->work_max,
						s->threads),
			s->threads ? s->wait / s->threads : 0, s->calls,
			s->blocked, s->lock_wait, g->label);
	}
	if (ph->nrows)
		qsort(ph->rows, ph->nrows, sizeof(*ph->rows), cmp_srow);
	for (i = 0; i < ph->nrows; i++) {
		const struct srow *r = &ph->rows[i];

		if (ph->sites[r->site].hidden)
			continue;
		fprintf(f, "thread\t%" PRIu32 "\t%" PRIu32 "\t%" PRIu64 "\t%.9f"
			"\t%.9f\t%" PRIu64 "\t%.9f\t", r->site + 1, r->thread,
			r->episodes, r->wait, r->completion, r->last, r->work);
		write_orders(f, r);
		fprintf(f, "\t%" PRIu64 "\t%" PRIu64 "\t%.9f\n", r->calls,
			r->blocked, r->lock_wait);
	}
	if (ph->nprows)
		qsort(ph->prows, ph->nprows, sizeof(*ph->prows), cmp_prow);
	for (i = 0; i < ph->nprows; i = j) {
		double sum = 0, max = 0, wall = 0;
		uint64_t count = 0;
		uint32_t threads = 0;

		for (j = i; j < ph->nprows && ph->prows[j].start ==
		     ph->prows[i].start && ph->prows[j].end ==
		     ph->prows[i].end; j++) {
			sum += ph->prows[j].work;
			wall += ph->prows[j].wall;
			max = ph->prows[j].work > max ? ph->prows[j].work : max;
			count = ph->prows[j].count > count ? ph->prows[j].count
							   : count;
			threads++;
		}
		fprintf(f, "phase\t%" PRIu32 "\t%" PRIu32 "\t%" PRIu32 "\t%"
			PRIu32 "\t%" PRIu64 "\t%.9f\t%.9f\t%.6f\n",
			ph->prows[i].start, ph->prows[i].end,
			kind_node(pn, ph->prows[i].start, ph->prows[i].end) ?
			kind_node(pn, ph->prows[i].start, ph->prows[i].end)->id
			: 0,
			threads, count, sum,
			wall, efficiency(sum, max, threads));
		for (; i < j; i++)
			fprintf(f, "phase-thread\t%" PRIu32 "\t%" PRIu32 "\t%"
				PRIu32 "\t%" PRIu64 "\t%.9f\t%.9f\n",
				ph->prows[i].start, ph->prows[i].end,
				ph->prows[i].thread, ph->prows[i].count,
				ph->prows[i].work, ph->prows[i].wall);
	}
	if (ph->nerows)
		qsort(ph->erows, ph->nerows, sizeof(*ph->erows), cmp_erow);
	for (i = 0; i < ph->nerows; i++) {
		const struct erow *r = &ph->erows[i];

		if (ph->sites[r->site].hidden)
			continue;
		fprintf(f, "episode\t%" PRIu32 "\t%" PRIu32 "\t%" PRIu64
			"\t%.9f\t%.9f\t%" PRId32 "\t%d\n", r->site + 1,
			r->thread, r->n, r->wait, r->work, r->order, r->last);
	}
	free(ss);
}

static int cmp_mpi(const void *a, const void *b)
{
	const struct erow *x = *(struct erow *const *)a, *y = *(struct erow *const *)b;

	if (x->comm != y->comm)
		return x->comm < y->comm ? -1 : 1;
	return x->n < y->n ? -1 : x->n > y->n;
}

/*
 * MPI_Barrier episodes across ranks (invariant 6): episode n of every
 * rank at a communicator of one size is one episode; each rank's wait is
 * from its arrival to the last rank's, on rank 0's clock, at most its
 * time in the call; the latest arrival is the last.  A thread's site
 * aggregates take these when all its episodes there were kept.
 */
static void align_mpi(struct phases *ph)
{
	struct erow **v = NULL;
	size_t nv = 0, i, j, k;

	for (i = 0; i < ph->nerows; i++)
		if (ph->erows[i].comm) {
			v = xrealloc(v, (nv + 1) * sizeof(*v));
			v[nv++] = &ph->erows[i];
		}
	if (nv)
		qsort(v, nv, sizeof(*v), cmp_mpi);
	for (i = 0; i < nv; i = j) {
		double last = v[i]->arrive;
		size_t who = i;

		for (j = i + 1; j < nv && v[j]->comm == v[i]->comm &&
		     v[j]->n == v[i]->n; j++)
			if (v[j]->arrive > last) {
				last = v[j]->arrive;
				who = j;
			}
		if (j - i < 2)
			continue;	/* one rank's file only: nothing to align */
		for (k = i; k < j; k++) {
			double w = last - v[k]->arrive, in = v[k]->depart - v[k]->arrive;

			v[k]->wait = w < 0 ? 0 : w > in ? in : w;
			v[k]->last = k == who;
		}
	}
	for (i = 0; i < ph->nrows; i++) {
		struct srow *r = &ph->rows[i];
		double wait = 0, in = 0;
		uint64_t n = 0, last = 0;

		if (ph->sites[r->site].kind != HPCSYNC_MPI_BARRIER)
			continue;
		for (k = 0; k < nv; k++)
			if (v[k]->site == r->site && v[k]->thread == r->thread) {
				wait += v[k]->wait;
				in += v[k]->depart - v[k]->arrive;
				last += (uint64_t)v[k]->last;
				n++;
			}
		if (n && n == r->episodes) {
			r->wait = wait;
			r->completion = in - wait;
			r->last = last;
		}
	}
	free(v);
}

/* Libraries of the MPI runtime, by the start of their file name
 * (invariant 7). */
static const char *const runtime_libs[] = {
	"libmpi", "libopen-", "mca_", "libmca_", "libpmi", "libprrte",
	"libprte", "libevent", "libhwloc", "libucp", "libucs", "libuct",
	"libucm", "libfabric", "libpsm", NULL,
};

/* Whose code a module is, for a lock site's calling context. */
enum code_owner {
	CODE_NEITHER = -1,	/* a system library, hpcrun's, a placeholder */
	CODE_PROGRAM,		/* the program's */
	CODE_MPI,		/* an MPI runtime library */
};

static enum code_owner module_class(const struct experiment *e,
				    const char *path)
{
	const char *base = strrchr(path, '/');
	size_t i;

	if (path[0] != '/')
		return CODE_NEITHER;
	base = base ? base + 1 : path;
	for (i = 0; runtime_libs[i]; i++)
		if (!strncmp(base, runtime_libs[i], strlen(runtime_libs[i])))
			return CODE_MPI;
	for (i = 0; i < e->nprograms; i++)
		if (!strcmp(path, e->programs[i].path))
			return CODE_PROGRAM;
	if (!strncmp(base, "libhpcrun", 9) || !strncmp(path, "/lib", 4) ||
	    !strncmp(path, "/usr/lib", 8))
		return CODE_NEITHER;
	return CODE_PROGRAM;
}

/* Is lock site g the MPI runtime's (invariant 7)? */
static int runtime_lock(const struct experiment *e, const struct gsite *g)
{
	const struct node *n;

	if (!g->call || hpcsync_is_barrier(g->kind))
		return 0;
	for (n = g->call; n && n != e->root; n = n->parent) {
		enum code_owner c = n->lm < e->lms.n ?
			module_class(e, e->lms.names[n->lm]) : CODE_NEITHER;

		if (c != CODE_NEITHER)
			return c == CODE_MPI;
	}
	return 1;
}

/* Marks the lock sites left out (invariant 7) and sums them; a site a
 * phase names stays. */
static void hide_locks(struct phases *ph, const struct experiment *e)
{
	struct site_sum *ss;
	size_t i;

	if (ph->all_locks)
		return;
	ss = xcalloc(ph->nsites + 1, sizeof(*ss));
	sum_sites(ph, ss);
	for (i = 0; i < ph->nsites; i++)
		ph->sites[i].hidden = runtime_lock(e, &ph->sites[i]);
	for (i = 0; i < ph->nprows; i++) {
		if (ph->prows[i].start)
			ph->sites[ph->prows[i].start - 1].hidden = 0;
		if (ph->prows[i].end)
			ph->sites[ph->prows[i].end - 1].hidden = 0;
	}
	for (i = 0; i < ph->nsites; i++)
		if (ph->sites[i].hidden) {
			ph->nhidden++;
			ph->hidden_wait += ss[i].lock_wait;
		}
	free(ss);
}

/* "FUNCTION LOCATION" of the site of key k (index + 1), or "thread
 * start" for 0, into sb: a phase's start or end in its PHASE node's
 * name. */
static void phase_end_name(const struct phases *ph, uint32_t k,
			   struct strbuf *sb)
{
	if (k)
		strbuf_addf(sb, "%s %s",
			    hpcsync_kind_function(ph->sites[k - 1].kind),
			    ph->sites[k - 1].label);
	else
		strbuf_addstr(sb, "thread start");
}

int phases_finish(struct phases *ph, struct experiment *e,
		  struct database *db)
{
	struct strbuf sb = STRBUF_INIT;
	struct phase_nodes pn;
	struct node *n;
	FILE *f;
	uint32_t k;
	int ret;

	for (k = 0; ph->any && k < NMET; k++)	/* means over these threads */
		e->metrics.raw[ph->raw[k]].nthreads += ph->nfiles;
	for (k = 0; k < ph->nsites; k++)
		ph->sites[k].label = site_label(e, ph->sites[k].kind,
						 ph->sites[k].call);
	for (n = e->root->first; n; n = n->next) {
		if (n->kind != NODE_PHASE || n->k1 > ph->nsites ||
		    n->k2 > (uint64_t)ph->nsites + 1)
			continue;
		strbuf_reset(&sb);
		strbuf_addstr(&sb, n->k2 || !n->k1 ? "<phase from " : "<phase after ");
		phase_end_name(ph, (uint32_t)n->k1, &sb);
		if (n->k2) {
			strbuf_addstr(&sb, " to ");
			phase_end_name(ph, (uint32_t)n->k2 - 1, &sb);
		}
		strbuf_addch(&sb, '>');
		n->proc = name_table_intern(&e->procs, sb.buf);
	}
	strbuf_release(&sb);
	if (!ph->any)
		return 0;
	align_mpi(ph);
	hide_locks(ph, e);
	f = database_open_file(db, "phases.tsv");
	ret = -1;
	if (f) {
		phase_nodes_init(&pn, ph, e);
		write_tsv(ph, &pn, f);
		phase_nodes_release(&pn);
		ret = database_close_file(db, f, "phases.tsv");
	}
	return ret;
}

static const struct phases *sort_ph;
static const struct site_sum *sort_ss;

static int cmp_site_wait(const void *a, const void *b)
{
	const struct site_sum *x = &sort_ss[*(const uint32_t *)a];
	const struct site_sum *y = &sort_ss[*(const uint32_t *)b];
	double u = x->wait + x->lock_wait, v = y->wait + y->lock_wait;

	if (u != v)
		return u > v ? -1 : 1;
	return *(const uint32_t *)a < *(const uint32_t *)b ? -1 : 1;
}

void phases_report(const struct phases *ph, const struct experiment *e,
		   FILE *f, size_t top)
{
	const struct thread_names *tn = &e->thread_names;
	struct strbuf sb = STRBUF_INIT;
	struct site_sum *ss;
	uint32_t *order;
	size_t i, j, shown, width = 7;

	if (!ph->any)
		return;
	ss = xcalloc(ph->nsites + 1, sizeof(*ss));
	order = xcalloc(ph->nsites + 1, sizeof(*order));
	sum_sites(ph, ss);
	for (i = 0; i < ph->nsites; i++)
		order[i] = (uint32_t)i;
	sort_ph = ph;
	sort_ss = ss;
	qsort(order, ph->nsites, sizeof(*order), cmp_site_wait);
	fprintf(f, "\nBarriers and phases (wait: arrival to last arrival; "
		"LB eff: mean/max work of the phases ending there; imbalance "
		"gain: wait / threads):\n");
	fprintf(f, "%5s %-20s %8s %7s %12s %12s %7s %12s %9s  %s\n", "site",
		"kind", "episodes", "threads", "wait (s)", "complete (s)",
		"LB eff", "gain (s)", "last most", "location");
	for (i = 0; i < ph->nsites && i < top; i++) {
		const struct gsite *g = &ph->sites[order[i]];
		const struct site_sum *s = &ss[order[i]];
		char last[64];

		if (!hpcsync_is_barrier(g->kind))
			continue;
		if (s->top_last && thread_names_mpi(tn))
			snprintf(last, sizeof(last), "%s x%" PRIu64,
				 thread_names_field(tn, s->top_last_thread, &sb),
				 s->top_last);
		else if (s->top_last)
			snprintf(last, sizeof(last), "t%" PRIu32 " x%" PRIu64,
				 s->top_last_thread, s->top_last);
		else
			snprintf(last, sizeof(last), "-");
		fprintf(f, "%5u %-20s %8" PRIu64 " %7" PRIu32 " %12.6f %12.6f "
			"%7.3f %12.6f %9s  %s\n", order[i] + 1,
			hpcsync_kind_function(g->kind), s->episodes, s->threads,
			s->wait, s->completion,
			efficiency(s->work_sum, s->work_max, s->threads),
			s->threads ? s->wait / s->threads : 0, last, g->label);
	}
	for (i = 0; i < ph->nrows; i++)
		if (strlen(thread_names_field(tn, ph->rows[i].thread,
					       &sb)) > width)
			width = sb.len;
	fprintf(f, "\nPer thread at each barrier:\n%5s %*s %8s %12s %12s "
		"%9s\n", "site", (int)width, "thread", "episodes", "wait (s)",
		"work (s)", "last arr.");
	for (i = 0, shown = 0; i < ph->nrows && shown < top * 8; i++) {
		const struct srow *r = &ph->rows[i];

		if (!hpcsync_is_barrier(ph->sites[r->site].kind))
			continue;
		fprintf(f, "%5u %*s %8" PRIu64 " %12.6f %12.6f %9" PRIu64 "\n",
			r->site + 1, (int)width,
			thread_names_field(tn, r->thread, &sb),
			r->episodes, r->wait, r->work, r->last);
		shown++;
	}
	fprintf(f, "\nLock waits (by lock and waiting context):\n%5s %-20s "
		"%18s %10s %10s %12s  %s\n", "site", "kind", "lock", "calls",
		"blocked", "wait (s)", "location");
	for (i = 0, j = 0; i < ph->nsites && j < top; i++) {
		const struct gsite *g = &ph->sites[order[i]];
		const struct site_sum *s = &ss[order[i]];

		if (hpcsync_is_barrier(g->kind) || g->hidden)
			continue;
		fprintf(f, "%5u %-20s 0x%016" PRIx64 " %10" PRIu64 " %10"
			PRIu64 " %12.6f  %s\n", order[i] + 1,
			hpcsync_kind_function(g->kind), g->object, s->calls,
			s->blocked, s->lock_wait, g->label);
		j++;
	}
	if (!j)
		fprintf(f, "  (none)\n");
	if (ph->nhidden)
		fprintf(f, "  (%" PRIu32 " lock site%s of the MPI runtime left "
			"out, %.6f s wait; hpcprof --all-locks shows them)\n",
			ph->nhidden, ph->nhidden == 1 ? "" : "s",
			ph->hidden_wait);
	strbuf_release(&sb);
	free(order);
	free(ss);
}

/* The capability (capability.h): the run's phases, the .hpcsync files. */
static void *cap_new(const struct hpcprof_options *o)
{
	return phases_new(o->all_locks);
}

static void cap_free(void *state)
{
	phases_free(state);
}

static void *cap_read(const char *profile, const struct hpcrun_profile *p,
		      int *bad)
{
	return phases_read(profile, p, bad);
}

static void cap_side_free(void *side)
{
	hpcsync_free(side);
}

static void cap_metrics(void *state, struct experiment *e, int any)
{
	phases_register(state, &e->metrics, any);
}

static const char *cap_thread_columns(const void *state)
{
	return phases_thread_columns(state);
}

static void cap_columns(const void *state, const void *side,
			struct strbuf *cols)
{
	phases_columns(state, side, cols);
}

static void *cap_new_worker(const void *state)
{
	return phases_new_worker(state);
}

/* A thread's synchronization file, left out (-1) when its profile lacks
 * the file's nodes. */
static int cap_thread_begin(struct experiment *w, size_t t, const void *side,
			    const struct hpcrun_profile *p, const char *proc)
{
	const struct hpcsync *s = side;
	char *err = NULL;

	if (!w->cap[CAP_PHASES])
		return 0;
	if (s && phases_check(s, p)) {
		err = xstrdup(hpc_lasterr());
		s = NULL;
	}
	phases_thread(w->cap[CAP_PHASES], w, t, s, p, proc);
	if (!err)
		return 0;
	hpc_seterr("%s", err);
	free(err);
	return -1;
}

static void cap_merge_begin(struct experiment *e, const struct experiment *w)
{
	if (w->cap[CAP_PHASES])
		phases_merge_sites(e->cap[CAP_PHASES], w->cap[CAP_PHASES]);
}

static void cap_merge(struct experiment *e, const struct experiment *w,
		      struct node **map)
{
	if (w->cap[CAP_PHASES])
		phases_merge_end(e->cap[CAP_PHASES], w->cap[CAP_PHASES], map);
}

static void cap_wire_write(const struct experiment *w, struct strbuf *sb,
			   int ids_only)
{
	(void)ids_only;
	wire_put32(sb, w->cap[CAP_PHASES] != NULL);
	if (w->cap[CAP_PHASES])
		phases_wire_write(w->cap[CAP_PHASES], sb);
}

static int cap_wire_read(struct experiment *w, struct wire_cursor *c)
{
	if (wire_get32(c) &&
	    (!w->cap[CAP_PHASES] || phases_wire_read(w->cap[CAP_PHASES], w, c)))
		return -1;
	return 0;
}

static int cap_finish(void *state, struct experiment *e, struct database *db,
		      unsigned jobs)
{
	(void)jobs;
	return phases_finish(state, e, db);
}

static int cap_report_hides(const void *state, size_t m)
{
	return phases_metric(state, m);
}

static void cap_report(const void *state, const struct experiment *e,
		       FILE *f, size_t top)
{
	phases_report(state, e, f, top);
}

const struct prof_capability phases_capability = {
	.name = "phases",
	.new = cap_new,
	.free = cap_free,
	.read = cap_read,
	.side_free = cap_side_free,
	.ignored = "synchronization data of this thread ignored",
	.metrics = cap_metrics,
	.thread_columns = cap_thread_columns,
	.columns = cap_columns,
	.new_worker = cap_new_worker,
	.thread_begin = cap_thread_begin,
	.walk = &phases_profile_hook,
	.merge_begin = cap_merge_begin,
	.merge = cap_merge,
	.wire_write = cap_wire_write,
	.wire_read = cap_wire_read,
	.finish = cap_finish,
	.report_hides = cap_report_hides,
	.report = cap_report,
};
