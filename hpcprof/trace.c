/*
 * trace.c - the trace capability (capability.h): each thread's call-path
 * trace (.hpctrace beside its profile, hpcrun(5)) into the database as
 * traces/N.hpctrace (hpcprof-database(5)), N the thread's row of
 * threads.tsv, each record's id the experiment.xml scope id of the node
 * its sample landed at and its time on rank 0's clock.
 *
 * Invariants:
 *  1. A side file is the trace's path and its process's clock offset
 *     (phases_clock_offset of the .hpcsync beside it, 0 without one); the
 *     records are read where the profile is walked and again when the
 *     database is written, each time from a fresh mapping of the file
 *     (hpctrace.h, invariant 4), so memory does not grow with the traces
 *     and the side file stays read-only (capability.h, invariant 3).
 *  2. Walking thread t's profile checks its trace against the profile
 *     (hpctrace_check: an id no node of the profile has ends the kept
 *     records) and keeps, per thread, how many records are kept and, for
 *     each distinct profile node id of those, the tree node its records
 *     land at: the node's code leaf, else where its children go (but
 *     the program's root, which is no scope: the children of a node of
 *     a module not found), else the node placed as the call it is (a
 *     placeholder's leaf for such a module), below where its parent's
 *     children go.  That last is a wait's site no sample passed through
 *     (sync.c, invariants 1 and 6), whose leaf is a call's return
 *     address (an OpenMP worker's join through OMPT: the master's call
 *     of the region, alone below the worker's root when the region is
 *     in main) or an address in it (a lock or barrier called from a
 *     function never sampled), both placed at the address before, or a
 *     procedure's entry (libgomp's join: the outlined function,
 *     sync-region.c), placed at it as phases.c places the site's call.
 *     So every record names a scope of the code tree, and a trace costs
 *     its distinct ids in memory, not its records.
 *     What is wrong with a trace is said in one line by thread_end
 *     (capability.h, invariant 4) and makes the exit status 1; the
 *     records before it are kept.
 *  3. Those nodes are node ids of the experiment holding the state: a
 *     worker's until merged (map) or sent (its tree's ids travel as they
 *     are, experiment-wire.h invariant 3), then the run's, which are the
 *     ids experiment.xml gives its scopes.  So -j 1, -j N and hpcprof-mpi
 *     keep the same (thread, profile id, scope id) triples.
 *  4. finish writes the traces in thread order: id 0 and the wait bit
 *     kept, the id mapped, the time less the clock offset (0 at least:
 *     the order is kept).  A trace whose profile is not beside it in an
 *     input directory is named there, in one line, and left out.
 */
#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "capability.h"
#include "database.h"
#include "error.h"
#include "experiment-wire.h"
#include "hpcsync.h"
#include "hpctrace.h"
#include "phases.h"
#include "run.h"
#include "strbuf.h"
#include "textrec.h"

/* A side file (invariant 1). */
struct trace_side {
	char *path;
	int64_t offset;
};

/* A profile node id of a trace and the scope its samples land at. */
struct trace_pair {
	uint32_t id, node;
};

/* One thread's trace (invariant 2). */
struct trace_thread {
	uint64_t t;		/* its row of threads.tsv */
	char *path;
	int64_t offset;
	uint64_t nkept;
	struct trace_pair *pairs;	/* by id */
	size_t npairs;
};

/* The run's and each worker's state. */
struct trace_state {
	struct trace_thread *threads;	size_t nthreads, alloc;
	char **dirs;	size_t ndirs;	/* the run's input directories */
	/* the thread being added (a worker's) */
	const struct trace_side *cur;
	uint64_t cur_t;
	char *said;
};

static void *cap_new(const struct hpcprof_options *o)
{
	struct trace_state *s = xcalloc(1, sizeof(*s));
	struct stat st;
	size_t i;

	s->dirs = xcalloc(o->ninputs ? o->ninputs : 1, sizeof(*s->dirs));
	for (i = 0; i < o->ninputs; i++)
		if (!stat(o->inputs[i], &st) && S_ISDIR(st.st_mode))
			s->dirs[s->ndirs++] = xstrdup(o->inputs[i]);
	return s;
}

static void cap_free(void *state)
{
	struct trace_state *s = state;
	size_t i;

	if (!s)
		return;
	for (i = 0; i < s->nthreads; i++) {
		free(s->threads[i].path);
		free(s->threads[i].pairs);
	}
	free(s->threads);
	for (i = 0; i < s->ndirs; i++)
		free(s->dirs[i]);
	free(s->dirs);
	free(s->said);
	free(s);
}

static void *cap_new_worker(const void *state)
{
	(void)state;
	return xcalloc(1, sizeof(struct trace_state));
}

/* The clock offset of profile's process: its .hpcsync's, or 0. */
static int64_t clock_offset(const char *profile)
{
	char *path = hpcsync_path_for(profile);
	struct hpcsync *s = access(path, F_OK) ? NULL : hpcsync_read(path);
	int64_t off = s ? phases_clock_offset(s) : 0;

	hpcsync_free(s);
	free(path);
	return off;
}

static void *cap_read(const char *profile, const struct hpcrun_profile *p,
		      int *bad)
{
	char *path = textrec_path_for(profile, HPCTRACE_SUFFIX);
	struct trace_side *side;
	struct hpctrace *t;

	(void)p;
	*bad = 0;
	if (access(path, F_OK) && errno == ENOENT) {
		free(path);
		return NULL;
	}
	t = hpctrace_open(path);
	if (!t) {
		*bad = 1;
		free(path);
		return NULL;
	}
	hpctrace_close(t);
	side = xcalloc(1, sizeof(*side));
	side->path = path;
	side->offset = clock_offset(profile);
	return side;
}

static void cap_side_free(void *side)
{
	struct trace_side *s = side;

	if (s)
		free(s->path);
	free(s);
}

static int cap_thread_begin(struct experiment *w, size_t t, const void *side,
			    const struct hpcrun_profile *p, const char *proc)
{
	struct trace_state *s = w->cap[CAP_TRACE];

	(void)p;
	(void)proc;
	if (s) {
		s->cur = side;
		s->cur_t = t;
	}
	return 0;
}

static int walk_begin(struct profile_walk *w, void **state)
{
	struct trace_state *s = w->e->cap[CAP_TRACE];

	*state = s;
	return s && s->cur;
}

static int known_id(uint32_t id, void *arg)
{
	const struct profile_walk *w = arg;

	return hpcrun_node_position(w->ids, id) >= 0;
}

/* The tree node the records of profile node i land at (invariant 2). */
static uint32_t node_of(struct profile_walk *w, long i)
{
	const struct hpcrun_node *nd = &w->p->nodes[i];
	long k = w->parent[i];
	struct node *x = k >= 0 && w->attach[k] ? w->attach[k] : w->top;

	if (w->leaves[i])
		return w->leaves[i]->id;
	if (w->attach[i] && w->attach[i] != w->top)
		return w->attach[i]->id;
	if (nd->lm && nd->lm < w->nmods && w->mods[nd->lm])
		return experiment_place_call(w->e, x, w->mods[nd->lm],
					     nd->addr)->id;
	return experiment_placeholder_leaf(w->e, x, nd->addr)->id;
}

static int by_id(const void *a, const void *b)
{
	const struct trace_pair *x = a, *y = b;

	return x->id < y->id ? -1 : x->id > y->id;
}

/* The thread's kept records and the nodes of their ids (invariant 2). */
static void walk_end(void *state, struct profile_walk *w)
{
	struct trace_state *s = state;
	struct hpctrace *t = hpctrace_open(s->cur->path);
	struct trace_thread *th;
	char *seen;
	uint64_t i;
	size_t k;

	if (!t) {
		struct strbuf sb = STRBUF_INIT;

		strbuf_addf(&sb, "%s; %s", hpc_lasterr(),
			    trace_capability.ignored);
		s->said = strbuf_detach(&sb, NULL);
		return;
	}
	hpctrace_check(t, known_id, w);
	if (t->problem)
		s->said = xstrdup(t->problem);
	HPC_GROW(s->threads, s->nthreads + 1, s->alloc);
	th = &s->threads[s->nthreads++];
	memset(th, 0, sizeof(*th));
	th->t = s->cur_t;
	th->path = xstrdup(s->cur->path);
	th->offset = s->cur->offset;
	th->nkept = t->nrecords;
	seen = xcalloc(w->p->nnodes ? w->p->nnodes : 1, 1);
	for (i = 0; i < t->nrecords; i++) {
		uint32_t id = hpctrace_get(t, i).id & HPCTRACE_ID_MASK;
		long pos = id ? hpcrun_node_position(w->ids, id) : -1;

		if (pos < 0 || seen[pos])
			continue;
		seen[pos] = 1;
		th->npairs++;
	}
	th->pairs = xcalloc(th->npairs ? th->npairs : 1, sizeof(*th->pairs));
	for (i = 0, k = 0; i < w->p->nnodes; i++)
		if (seen[i]) {
			th->pairs[k].id = w->p->nodes[i].id;
			th->pairs[k++].node = node_of(w, (long)i);
		}
	qsort(th->pairs, th->npairs, sizeof(*th->pairs), by_id);
	free(seen);
	hpctrace_close(t);
}

static const struct profile_hook trace_profile_hook = {
	.begin = walk_begin,
	.end = walk_end,
};

static int cap_thread_end(struct experiment *w, size_t t, const void *side,
			  const char *path, const char *proc, char **said)
{
	struct trace_state *s = w->cap[CAP_TRACE];

	(void)t;
	(void)side;
	(void)path;
	(void)proc;
	if (!s)
		return 0;
	s->cur = NULL;
	*said = s->said;
	s->said = NULL;
	return *said != NULL;
}

/* Appends from's threads to into, their nodes through map (NULL: as
 * they are). */
static void add_threads(struct trace_state *into,
			const struct trace_state *from, struct node **map)
{
	size_t i, k;

	for (i = 0; i < from->nthreads; i++) {
		const struct trace_thread *f = &from->threads[i];
		struct trace_thread *th;

		HPC_GROW(into->threads, into->nthreads + 1, into->alloc);
		th = &into->threads[into->nthreads++];
		*th = *f;
		th->path = xstrdup(f->path);
		th->pairs = xcalloc(f->npairs ? f->npairs : 1,
				    sizeof(*th->pairs));
		for (k = 0; k < f->npairs; k++) {
			th->pairs[k] = f->pairs[k];
			if (map && map[f->pairs[k].node])
				th->pairs[k].node = map[f->pairs[k].node]->id;
		}
	}
}

static void cap_merge(struct experiment *e, const struct experiment *w,
		      struct node **map)
{
	if (w->cap[CAP_TRACE] && e->cap[CAP_TRACE])
		add_threads(e->cap[CAP_TRACE], w->cap[CAP_TRACE], map);
}

/* Not in the tree of ids rank 0 sends back (ids_only). */
static void cap_wire_write(const struct experiment *w, struct strbuf *sb,
			   int ids_only)
{
	const struct trace_state *s = w->cap[CAP_TRACE];
	size_t i;

	if (!s || ids_only) {
		wire_put64(sb, 0);
		return;
	}
	wire_put64(sb, s->nthreads);
	for (i = 0; i < s->nthreads; i++) {
		const struct trace_thread *th = &s->threads[i];

		wire_put64(sb, th->t);
		wire_putstr(sb, th->path);
		wire_put64(sb, (uint64_t)th->offset);
		wire_put64(sb, th->nkept);
		wire_put_rows(sb, th->pairs, th->npairs, sizeof(*th->pairs));
	}
}

static int cap_wire_read(struct experiment *w, struct wire_cursor *c)
{
	struct trace_state *s = w->cap[CAP_TRACE];
	struct strbuf buf = STRBUF_INIT;
	uint64_t n = wire_get64(c), i;

	if (n && !s)
		c->bad = 1;
	for (i = 0; i < n && !c->bad; i++) {
		struct trace_thread *th;
		const char *path;
		size_t alloc = 0, k;

		HPC_GROW(s->threads, s->nthreads + 1, s->alloc);
		th = &s->threads[s->nthreads];
		memset(th, 0, sizeof(*th));
		th->t = wire_get64(c);
		path = wire_getstr(c, &buf);
		th->offset = (int64_t)wire_get64(c);
		th->nkept = wire_get64(c);
		th->pairs = wire_get_rows(c, NULL, &th->npairs, &alloc,
					  sizeof(*th->pairs));
		for (k = 0; k < th->npairs && !c->bad; k++)
			if (!th->pairs[k].node ||
			    th->pairs[k].node > w->next_id)
				c->bad = 1;
		if (c->bad || !path) {
			c->bad = 1;
			free(th->pairs);
			break;
		}
		th->path = xstrdup(path);
		s->nthreads++;
	}
	strbuf_release(&buf);
	return c->bad ? -1 : 0;
}

static int by_thread(const void *a, const void *b)
{
	const struct trace_thread *x = a, *y = b;

	return x->t < y->t ? -1 : x->t > y->t;
}

/* The scope of profile node id in th (one its check kept: invariant 2). */
static uint32_t scope_of(const struct trace_thread *th, uint32_t id)
{
	size_t lo = 0, hi = th->npairs;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (th->pairs[mid].id < id)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < th->npairs && th->pairs[lo].id == id ? th->pairs[lo].node
							 : 0;
}

static void put_be(unsigned char *p, uint64_t v, int bytes)
{
	while (bytes-- > 0) {
		p[bytes] = (unsigned char)v;
		v >>= 8;
	}
}

/* Thread th's trace as the database's file rel (invariant 4). */
static int write_trace(struct database *db, const struct trace_thread *th,
		       const char *rel)
{
	unsigned char rec[HPCTRACE_HDR_BYTES];
	struct hpctrace *t = hpctrace_open(th->path);
	uint64_t i, n;
	FILE *f;

	if (!t) {
		hpc_warn("%s; %s", hpc_lasterr(), trace_capability.ignored);
		return 0;
	}
	f = database_open_file(db, rel);
	if (!f) {
		hpctrace_close(t);
		return -1;
	}
	memset(rec, 0, sizeof(rec));
	memcpy(rec, HPCTRACE_MAGIC, 18);
	memcpy(rec + 18, HPCTRACE_VERSION, 5);
	rec[23] = 'b';
	fwrite(rec, HPCTRACE_HDR_BYTES, 1, f);
	n = th->nkept < t->nrecords ? th->nkept : t->nrecords;
	for (i = 0; i < n; i++) {
		struct hpctrace_rec r = hpctrace_get(t, i);
		uint32_t id = r.id & HPCTRACE_ID_MASK;
		int64_t at = (int64_t)r.time - th->offset;

		if (id)
			id = scope_of(th, id) | (r.id & HPCTRACE_ID_WAIT);
		put_be(rec, at > 0 ? (uint64_t)at : 0, 8);
		put_be(rec + 8, id, 4);
		fwrite(rec, HPCTRACE_REC_BYTES, 1, f);
	}
	hpctrace_close(t);
	return database_close_file(db, f, rel);
}

/* Names each trace of an input directory without its profile. */
static void say_orphans(const struct trace_state *s)
{
	size_t d, len = strlen(HPCTRACE_SUFFIX);

	for (d = 0; d < s->ndirs; d++) {
		struct dirent **names;
		int n = scandir(s->dirs[d], &names, NULL, alphasort), k;

		for (k = 0; k < n; k++) {
			const char *name = names[k]->d_name;
			size_t nl = strlen(name);
			struct strbuf sb = STRBUF_INIT;

			if (nl > len && !strcmp(name + nl - len,
						HPCTRACE_SUFFIX)) {
				strbuf_addf(&sb, "%s/%.*s.hpcrun", s->dirs[d],
					    (int)(nl - len), name);
				if (access(sb.buf, F_OK))
					hpc_warn("'%s/%s': no profile '%s' "
						 "beside it; trace ignored",
						 s->dirs[d], name,
						 strrchr(sb.buf, '/') + 1);
			}
			strbuf_release(&sb);
			free(names[k]);
		}
		if (n >= 0)
			free(names);
	}
}

static int cap_finish(void *state, struct experiment *e, struct database *db,
		      unsigned jobs)
{
	struct trace_state *s = state;
	struct strbuf rel = STRBUF_INIT;
	size_t i;
	int ret = 0;

	(void)jobs;
	say_orphans(s);
	if (!e->cap[CAP_TRACE])
		return 0;
	qsort(s->threads, s->nthreads, sizeof(*s->threads), by_thread);
	for (i = 0; i < s->nthreads && !ret; i++) {
		strbuf_reset(&rel);
		strbuf_addf(&rel, "traces/%" PRIu64 "%s", s->threads[i].t,
			    HPCTRACE_SUFFIX);
		ret = write_trace(db, &s->threads[i], rel.buf);
	}
	strbuf_release(&rel);
	return ret;
}

const struct prof_capability trace_capability = {
	.name = "trace",
	.new = cap_new,
	.free = cap_free,
	.read = cap_read,
	.side_free = cap_side_free,
	.ignored = "trace of this thread ignored",
	.new_worker = cap_new_worker,
	.thread_begin = cap_thread_begin,
	.thread_end = cap_thread_end,
	.walk = &trace_profile_hook,
	.merge = cap_merge,
	.wire_write = cap_wire_write,
	.wire_read = cap_wire_read,
	.finish = cap_finish,
};
