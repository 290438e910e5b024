/* parallel.c - see parallel.h. */
#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "error.h"
#include "parallel.h"
#include "steptime.h"

unsigned par_allowed_cpus(void)
{
	cpu_set_t set;
	long n;

	if (!sched_getaffinity(0, sizeof(set), &set) && CPU_COUNT(&set) > 0)
		return (unsigned)CPU_COUNT(&set);
	n = sysconf(_SC_NPROCESSORS_ONLN);	/* more CPUs than a set holds */
	return n < 1 ? 1 : (unsigned)n;
}

unsigned par_default_threads(void)
{
	unsigned n = par_allowed_cpus();

	return n > PAR_DEFAULT_MAX ? PAR_DEFAULT_MAX : n;
}

/*
 * Runs fn on each of the n jobs at arg (size bytes apart; size 0: n
 * threads on one shared job): job 0 on the calling thread, the others on
 * threads of their own (on the calling thread too when one cannot be
 * started).
 */
static void run_jobs(void *(*fn)(void *), void *arg, size_t size, unsigned n)
{
	pthread_t *t = xcalloc(n, sizeof(*t));
	char *started = xcalloc(n, 1);
	unsigned k;

	for (k = 1; k < n; k++)
		started[k] = !pthread_create(&t[k], NULL, fn,
					     (char *)arg + k * size);
	fn(arg);
	for (k = 1; k < n; k++) {
		if (started[k])
			pthread_join(t[k], NULL);
		else
			fn((char *)arg + k * size);
	}
	free(started);
	free(t);
}

/* Job k of n over n_items items: [*lo, *hi). */
static void range(size_t n_items, unsigned n, unsigned k, size_t *lo,
		  size_t *hi)
{
	*lo = n_items * k / n;
	*hi = n_items * (k + 1) / n;
}

static unsigned jobs_for(unsigned nthreads, size_t n)
{
	if (nthreads < 1)
		nthreads = 1;
	return n < nthreads ? (n ? (unsigned)n : 1) : nthreads;
}

struct head_job {
	const char *const *paths;
	struct hpcrun_profile **out;
	char **err;
	void **side;
	char **side_err;
	size_t lo, hi;
};

static void *read_heads(void *arg)
{
	struct head_job *j = arg;
	size_t i, c;
	int bad;

	for (i = j->lo; i < j->hi; i++) {
		struct hpcrun_profile *p = hpcrun_fmt_read(j->paths[i]);

		j->out[i] = p;
		j->err[i] = p ? NULL : xstrdup(hpc_lasterr());
		if (!p)
			continue;
		hpcrun_profile_shed(p);
		for (c = 0; c < NCAPS; c++) {
			const struct prof_capability *cap = prof_capabilities[c];

			if (!cap->read)
				continue;
			bad = 0;
			j->side[i * NCAPS + c] = cap->read(j->paths[i], p, &bad);
			j->side_err[i * NCAPS + c] =
				bad ? xstrdup(hpc_lasterr()) : NULL;
		}
	}
	return NULL;
}

void par_read_heads(const char *const *paths, size_t n, unsigned nthreads,
		    struct hpcrun_profile **out, char **err, void **side,
		    char **side_err)
{
	unsigned k, nj = jobs_for(nthreads, n);
	struct head_job *j = xcalloc(nj, sizeof(*j));

	for (k = 0; k < nj; k++) {
		j[k].paths = paths;
		j[k].out = out;
		j[k].err = err;
		j[k].side = side;
		j[k].side_err = side_err;
		range(n, nj, k, &j[k].lo, &j[k].hi);
	}
	run_jobs(read_heads, j, sizeof(*j), nj);
	free(j);
}

/* A per-thread value as a worker reports it; node 0 starts thread k. */
struct record {
	uint32_t node, k;
	double v;
};

#define RECORDS 4096

struct par_job;

struct worker {
	struct par_job *job;
	struct experiment *w;
	const struct prof_input *in;
	size_t lo, hi, next;	/* its profiles [lo, hi), the next to add
				 * (job->lock: a thief may shorten hi) */
	struct prof_said *said;	/* per profile, for the caller to say */
	FILE *spill;		/* tmpfile(): in P_tmpdir */
	int spill_err;		/* errno of its first failed write, or 0 */
	uint8_t *inexact;	/* [k]: a value of (metric, ie) k not
				 * accum_exact_value's */
	/* Its piece of the report's length (struct thread_lines), counted
	 * when e->thread_lines is set and there are two workers or more: the
	 * lines' bytes after the node's id, and the records by node. */
	const struct thread_lines *tl;
	void *tl_arg;
	uint64_t tail;
	uint32_t *nrec;		size_t nrec_cap;
	size_t *col_len;	/* [k]: decimal_len of its column, + 4 */
	size_t thread_len;	/* decimal_len of the thread being added */
	struct record buf[RECORDS];
	size_t nbuf;
};

/* Keeps the reason of k's first failed write to its spill file. */
static void spill_failed(struct worker *k)
{
	if (!k->spill_err)
		k->spill_err = errno ? errno : EIO;
}

static void put(struct worker *k, uint32_t node, uint32_t metric, double v)
{
	if (k->nbuf == RECORDS) {
		if (fwrite(k->buf, sizeof(k->buf[0]), k->nbuf, k->spill) !=
		    k->nbuf)
			spill_failed(k);
		k->nbuf = 0;
	}
	k->buf[k->nbuf++] = (struct record){ node, metric, v };
}

static void spill_value(void *arg, uint32_t thread, const struct node *n,
			size_t raw, int ie, double v)
{
	struct worker *k = arg;

	size_t kk = 2 * raw + (size_t)ie;
	int exact = accum_exact_value(v);

	if (!exact)
		k->inexact[kk] = 1;
	put(k, n->id, (uint32_t)kk, v);
	if (!k->tl)
		return;
	if (exact)	/* most are: no call (struct thread_lines) */
		k->tail += k->thread_len + k->col_len[kk] +
			   decimal_len((uint64_t)v);
	else
		k->tail += k->tl->tail(k->tl_arg, thread, raw, ie, v);
	if (n->id >= k->nrec_cap) {
		size_t cap = k->nrec_cap ? k->nrec_cap : 1024;

		while (cap <= n->id)
			cap *= 2;
		k->nrec = xrealloc(k->nrec, cap * sizeof(*k->nrec));
		memset(k->nrec + k->nrec_cap, 0,
		       (cap - k->nrec_cap) * sizeof(*k->nrec));
		k->nrec_cap = cap;
	}
	k->nrec[n->id]++;
}

struct par_job {
	unsigned n;		/* workers */
	unsigned cap;		/* worker slots: the threads' and thieves' */
	pthread_mutex_t lock;	/* the workers' ranges while they run */
	struct worker *w;
	struct node ***maps;	/* per worker: its ids -> the merged nodes */
	size_t *nmaps;		/* their lengths (par_merge) */
	int partials;		/* workers fold (worker_stats) ... */
	struct accum ***part;	/* ... and par_merge keeps their
				 * accumulators here, by worker and id */
	struct prof_said *said;	/* [i - lo]: what adding profile i said */
	size_t lo, hi;
	size_t nk;		/* (metric, ie) pairs: 2 x raw metrics */
	int failed;		/* a temporary file could not be made */
};

/* The next profile of k's range, SIZE_MAX when none is left. */
static size_t take(struct worker *k)
{
	size_t i = SIZE_MAX;

	pthread_mutex_lock(&k->job->lock);
	if (k->next < k->hi)
		i = k->next++;
	pthread_mutex_unlock(&k->job->lock);
	return i;
}

/*
 * A spare worker slot given the second half of the profiles not started
 * by the worker with the most of them, or NULL: the thief's range follows
 * what its victim keeps, so the ranges stay contiguous.  A thief's tree
 * costs about two profiles more (its nodes made again, one more merge),
 * so it takes STEAL_MIN / 2 profiles or more.
 */
#define STEAL_MIN 4
static struct worker *steal(struct par_job *j)
{
	struct worker *v = NULL, *t = NULL;
	unsigned k;

	pthread_mutex_lock(&j->lock);
	for (k = 0; k < j->n; k++)
		if (!v || j->w[k].hi - j->w[k].next > v->hi - v->next)
			v = &j->w[k];
	if (v && j->n < j->cap && v->hi - v->next >= STEAL_MIN) {
		t = &j->w[j->n++];
		t->hi = v->hi;
		t->lo = t->next = v->next + (v->hi - v->next + 1) / 2;
		v->hi = t->lo;
	}
	pthread_mutex_unlock(&j->lock);
	return t;
}

static void correlate(struct worker *k)
{
	size_t i;

	while ((i = take(k)) != SIZE_MAX) {
		put(k, 0, (uint32_t)i, 0);
		k->thread_len = decimal_len(i);
		prof_thread_add(k->w, i, &k->in[i], &k->said[i]);
		if (k->said[i].err)	/* nothing added: no thread */
			k->nbuf--;
	}
	if (k->nbuf && fwrite(k->buf, sizeof(k->buf[0]), k->nbuf, k->spill) !=
	    k->nbuf)
		spill_failed(k);
	k->nbuf = 0;
	if (fflush(k->spill) || ferror(k->spill))
		spill_failed(k);
}

/* A thread: its worker's range, then what it can steal. */
static void *work(void *arg)
{
	struct worker *k = arg;

	do
		correlate(k);
	while ((k = steal(k->job)));
	return NULL;
}

static int cmp_lo(const void *a, const void *b)
{
	const struct worker *x = a, *y = b;

	return x->lo < y->lo ? -1 : x->lo > y->lo;
}

/* A worker slot to free (free_worker). */
struct free_job {
	struct par_job *j;
	unsigned k;
};

static void *free_worker(void *arg);

/* After the threads: the spare slots freed, the workers in range order
 * (so in profile order). */
static void workers_in_order(struct par_job *j)
{
	unsigned k;

	for (k = j->n; k < j->cap; k++)
		free_worker(&(struct free_job){ j, k });
	j->cap = j->n;
	qsort(j->w, j->n, sizeof(*j->w), cmp_lo);
	for (k = 0; k < j->n; k++)
		j->w[k].w->thread_arg = &j->w[k];
}

static struct par_job *start(struct experiment *e,
			     const struct prof_input *in, size_t lo,
			     size_t hi, unsigned nthreads, int partials)
{
	struct par_job *j = xcalloc(1, sizeof(*j));
	unsigned k, threads;

	threads = j->n = jobs_for(nthreads, hi - lo);
	j->cap = threads > 1 ? 2 * threads : 1;
	pthread_mutex_init(&j->lock, NULL);
	j->w = xcalloc(j->cap, sizeof(*j->w));
	j->maps = xcalloc(j->cap, sizeof(*j->maps));
	j->nmaps = xcalloc(j->cap, sizeof(*j->nmaps));
	j->said = xcalloc(hi - lo + 1, sizeof(*j->said));
	j->lo = lo;
	j->hi = hi;
	j->nk = 2 * e->metrics.nraw;
	j->partials = partials;
	if (partials)
		j->part = xcalloc(j->cap, sizeof(*j->part));
	for (k = 0; k < j->cap; k++) {
		struct worker *w = &j->w[k];

		w->job = j;
		w->w = experiment_new_worker(e);
		w->w->worker_stats = partials;
		w->w->thread_cb = spill_value;
		w->w->thread_arg = w;
		if (partials && e->thread_lines && threads > 1) {
			size_t kk;

			w->tl = e->thread_lines;
			w->tl_arg = e->thread_arg;
			w->col_len = xcalloc(2 * e->metrics.nraw + 1,
					     sizeof(*w->col_len));
			for (kk = 0; kk < 2 * e->metrics.nraw; kk++)
				w->col_len[kk] = 4 + decimal_len(
					metrics_column(&e->metrics, kk / 2,
						       STAT_SUM, (int)(kk % 2)));
		}
		w->inexact = xcalloc(2 * e->metrics.nraw + 1, 1);
		w->in = in;
		w->said = j->said - lo;
		if (k < threads) {
			range(hi - lo, threads, k, &w->lo, &w->hi);
			w->lo += lo;
			w->hi += lo;
			w->next = w->lo;
		}
		w->spill = tmpfile();
		if (!w->spill && !j->failed) {
			hpc_seterr("cannot create a temporary file: %s",
				   strerror(errno));
			j->failed = 1;
		}
	}
	if (!j->failed)
		run_jobs(work, j->w, sizeof(*j->w), threads);
	workers_in_order(j);
	return j;
}

struct par_job *par_start(struct experiment *e, const struct prof_input *in,
			  size_t lo, size_t hi, unsigned nthreads)
{
	return start(e, in, lo, hi, nthreads, 0);
}

long par_failures(struct par_job *j)
{
	long failed = 0;
	size_t i;
	unsigned k;

	if (j->failed)
		return -1;
	for (i = 0; i < j->hi - j->lo; i++)
		failed += prof_thread_say(&j->said[i],
					  j->w[0].in[j->lo + i].side);
	for (k = 0; k < j->n; k++)
		if (j->w[k].spill_err) {
			hpc_seterr("temporary file of the per-thread values in "
				   "'%s': write error: %s", P_tmpdir,
				   strerror(j->w[k].spill_err));
			return -1;
		}
	return failed;
}

/* par_merge's jobs on worker k: its maps and accumulators taken; worker
 * k + step's tree merged into its; its maps followed through the final
 * merge (m); its tree freed. */
struct merge_job {
	struct par_job *j;
	unsigned k, step;
	struct node **m;
};

static void *merge_start(void *arg)
{
	const struct merge_job *mj = arg;
	struct par_job *j = mj->j;
	struct experiment *w = j->w[mj->k].w;
	size_t i, n = (size_t)w->next_id + 1;

	j->nmaps[mj->k] = n;
	j->maps[mj->k] = xcalloc(n, sizeof(**j->maps));
	if (j->partials)
		j->part[mj->k] = xcalloc(n, sizeof(**j->part));
	for (i = 1; i < n; i++) {
		j->maps[mj->k][i] = w->nodes[i - 1];
		if (j->partials) {
			j->part[mj->k][i] = w->nodes[i - 1]->acc;
			w->nodes[i - 1]->acc = NULL;
		}
	}
	return NULL;
}

/* A round: worker k + step's tree into worker k's. */
static void *merge_pair(void *arg)
{
	const struct merge_job *mj = arg;
	struct par_job *j = mj->j;
	unsigned q, step = mj->step;
	struct node **m = experiment_merge(j->w[mj->k].w,
					   j->w[mj->k + step].w);
	size_t i;

	for (q = mj->k + step; q < mj->k + 2 * step && q < j->n; q++)
		for (i = 1; i < j->nmaps[q]; i++)
			if (j->maps[q][i])
				j->maps[q][i] = m[j->maps[q][i]->id];
	free(m);
	return NULL;
}

static void *merge_end(void *arg)
{
	const struct merge_job *mj = arg;
	struct par_job *j = mj->j;
	struct node **map = j->maps[mj->k];
	size_t i;

	for (i = 1; i < j->nmaps[mj->k]; i++)
		if (map[i])
			map[i] = mj->m[map[i]->id];
	return NULL;
}

static void *merge_free(void *arg)
{
	const struct merge_job *mj = arg;

	experiment_free(mj->j->w[mj->k].w);
	mj->j->w[mj->k].w = NULL;
	return NULL;
}

/*
 * Merged up a binary tree, the pairs of a round on threads of their own:
 * worker k + step's tree into worker k's for k = 0, 2 step, 4 step...,
 * then worker 0's into into.  A merge gives the nodes new to its target
 * ids in the order of the tree merged (experiment_merge), so the ids,
 * children and names are those of merging worker 1, 2, ... in turn
 * (invariant 2), in log2(N) + 1 steps rather than N.  maps[q] follows
 * worker q's nodes from tree to tree; their accumulators (j->part) are
 * taken by the ids they had.
 */
void par_merge(struct par_job *j, struct experiment *into)
{
	struct merge_job *mj = xcalloc(j->n, sizeof(*mj));
	unsigned k, step, np;
	struct node **m;

	for (k = 0; k < j->n; k++)
		mj[k] = (struct merge_job){ j, k, 0, NULL };
	run_jobs(merge_start, mj, sizeof(*mj), j->n);
	for (step = 1; step < j->n; step *= 2) {
		np = 0;
		for (k = 0; k + step < j->n; k += 2 * step)
			mj[np++] = (struct merge_job){ j, k, step, NULL };
		run_jobs(merge_pair, mj, sizeof(*mj), np);
	}
	m = experiment_merge(into, j->w[0].w);
	for (k = 0; k < j->n; k++) {
		experiment_merge_fallbacks(into, j->w[k].w);
		mj[k] = (struct merge_job){ j, k, 0, m };
	}
	run_jobs(merge_end, mj, sizeof(*mj), j->n);
	run_jobs(merge_free, mj, sizeof(*mj), j->n);
	free(m);
	free(mj);
}

/* What scan() gives fn: a record of worker w, its node in w's tree. */
typedef void scan_fn(void *arg, unsigned w, uint32_t thread, uint32_t node,
		     uint32_t k, double v);

/* Calls fn for every record of workers lo..hi-1 in thread order; 0 or -1
 * with hpc_lasterr().  pread: several threads may scan at once. */
static int scan_range(const struct par_job *j, unsigned lo, unsigned hi,
		      scan_fn *fn, void *arg)
{
	struct record *buf = xmalloc(RECORDS * sizeof(*buf));
	unsigned k;
	int ret = 0;

	for (k = lo; k < hi && !ret; k++) {
		int fd = fileno(j->w[k].spill);
		uint32_t thread = 0;
		off_t at = 0;
		ssize_t got;
		size_t i;

		while ((got = pread(fd, buf, RECORDS * sizeof(*buf), at)) > 0) {
			at += got;
			for (i = 0; i < (size_t)got / sizeof(*buf); i++) {
				const struct record *r = &buf[i];

				if (!r->node)
					thread = r->k;
				else
					fn(arg, k, thread, r->node, r->k, r->v);
			}
		}
		if (got < 0 || at % (off_t)sizeof(*buf))
			ret = hpc_seterr("temporary file of the per-thread "
					 "values in '%s': read error: %s",
					 P_tmpdir, got < 0 ? strerror(errno)
							   : "cut short");
	}
	free(buf);
	return ret;
}

/* Every record, in thread order. */
static int scan(const struct par_job *j, scan_fn *fn, void *arg)
{
	return scan_range(j, 0, j->n, fn, arg);
}

struct records_arg {
	const struct par_job *j;
	par_record_fn *fn;
	void *arg;
};

static void record_node(void *arg, unsigned w, uint32_t thread,
			uint32_t node, uint32_t k, double v)
{
	struct records_arg *a = arg;

	a->fn(a->arg, thread, a->j->maps[w][node], k, v);
}

int par_records(struct par_job *j, par_record_fn *fn, void *arg)
{
	struct records_arg a = { j, fn, arg };

	return scan(j, record_node, &a);
}

void par_inexact(const struct par_job *j, uint8_t *inexact)
{
	size_t k;
	unsigned w;

	for (w = 0; w < j->n; w++)
		for (k = 0; k < j->nk; k++)
			inexact[k] |= j->w[w].inexact[k];
}

/*
 * Worker k's temporary file and memory, freed on a thread of its own: the
 * kernel frees the file's pages then (some 300 MB for 256 profiles of
 * 20,000 nodes), and its accumulators are an allocation per node.
 */
static void *free_worker(void *arg)
{
	const struct free_job *f = arg;
	struct par_job *j = f->j;
	struct worker *w = &j->w[f->k];
	size_t i;

	if (w->spill)
		fclose(w->spill);
	experiment_free(w->w);
	free(w->inexact);
	free(w->nrec);
	free(w->col_len);
	if (j->part && j->part[f->k])
		for (i = 0; i < j->nmaps[f->k]; i++)
			free(j->part[f->k][i]);
	if (j->part)
		free(j->part[f->k]);
	free(j->maps[f->k]);
	return NULL;
}

void par_free(struct par_job *j)
{
	struct free_job *fj;
	unsigned k;
	size_t i;

	if (!j)
		return;
	fj = xcalloc(j->n, sizeof(*fj));
	for (k = 0; k < j->n; k++)
		fj[k] = (struct free_job){ j, k };
	run_jobs(free_worker, fj, sizeof(*fj), j->n);
	free(fj);
	free(j->part);
	for (i = 0; i < j->hi - j->lo; i++) {
		prof_said_release(&j->said[i]);
	}
	free(j->said);
	free(j->maps);
	free(j->nmaps);
	free(j->w);
	pthread_mutex_destroy(&j->lock);
	free(j);
}

void par_fold(void *arg, uint32_t thread, struct node *n, uint32_t k,
	      double v)
{
	struct experiment *e = arg;

	if (!n->acc)
		n->acc = accum_new(&e->metrics);
	if (e->thread_cb)
		e->thread_cb(e->thread_arg, thread, n, k / 2, (int)(k % 2), v);
	accum_fold_value(n->acc, k, v);
}

/* Folding and reporting by id: ids[w][node] is worker w's node's id in
 * e; folding into e's block of accumulators (experiment.h). */
struct by_id {
	const struct par_job *j;
	struct experiment *e;
	uint32_t **ids;
	int ret;		/* the reporting thread's */
	const uint8_t *fold;	/* [k]: fold the values of (metric, ie) k */
};

static void fold_id(void *arg, unsigned w, uint32_t thread, uint32_t node,
		    uint32_t k, double v)
{
	struct by_id *b = arg;

	(void)thread;
	if (b->fold[k])
		accum_fold_value(experiment_acc_of(b->e, b->ids[w][node]), k,
				 v);
}

static void report_id(void *arg, unsigned w, uint32_t thread, uint32_t node,
		      uint32_t k, double v)
{
	struct by_id *b = arg;

	b->e->thread_id_cb(b->e->thread_arg, thread, b->ids[w][node], k / 2,
			   (int)(k % 2), v);
}

static void *report_all(void *arg)
{
	struct by_id *b = arg;

	b->ret = scan(b->j, report_id, b);
	return NULL;
}

/*
 * The report in pieces (e->thread_lines): piece k is worker k's records,
 * the lines of threads that follow those of piece k - 1.  Each piece's
 * length is counted as its worker correlates (spill_value), so the pieces
 * are formatted once, at their offsets, on several threads taking pieces
 * in turn; the file is the one report_all writes, byte for byte.
 */
#define PIECE_BUF ((size_t)1 << 20)
struct pieces {
	struct by_id *b;
	unsigned nthreads;	/* threads formatting pieces */
	uint64_t *off;		/* [pieces + 1]: where each starts */
	unsigned next;		/* the next piece to take (atomic) */
	int ret;
};

struct piece_state {
	const struct by_id *b;
	char *buf;		/* lines not yet written */
	size_t used;
	uint64_t at, end;	/* where buf goes; where the piece ends */
	int over;		/* more lines than counted */
};

static void piece_flush(struct piece_state *ps)
{
	const struct experiment *e = ps->b->e;

	if (ps->at + ps->used > ps->end)
		ps->over = 1;
	else
		e->thread_lines->pwrite(e->thread_arg, ps->buf, ps->used,
					ps->at);
	ps->at += ps->used;
	ps->used = 0;
}

static void piece_value(void *arg, unsigned w, uint32_t thread,
			uint32_t node, uint32_t k, double v)
{
	struct piece_state *ps = arg;
	const struct experiment *e = ps->b->e;

	if (ps->used > PIECE_BUF - THREAD_LINE_MAX)
		piece_flush(ps);
	ps->used += e->thread_lines->line(e->thread_arg, ps->buf + ps->used,
					  thread, ps->b->ids[w][node], k / 2,
					  (int)(k % 2), v);
}

/* Piece k's length: its lines' tails and, record by record, their
 * nodes' ids in e. */
static uint64_t piece_len(const struct by_id *b, unsigned k)
{
	const struct worker *w = &b->j->w[k];
	uint64_t len = w->tail;
	size_t i;

	for (i = 1; i < w->nrec_cap && i < b->j->nmaps[k]; i++)
		if (w->nrec[i])
			len += w->nrec[i] * decimal_len(b->ids[k][i]);
	return len;
}

static int piece_write(struct pieces *p, unsigned k, char *buf)
{
	struct piece_state ps = { p->b, buf, 0, p->off[k], p->off[k + 1], 0 };
	int ret = scan_range(p->b->j, k, k + 1, piece_value, &ps);

	if (ps.used)
		piece_flush(&ps);
	if (!ret && (ps.over || ps.at != ps.end))
		ret = hpc_seterr("thread-values.tsv: a piece of %" PRIu64
				 " bytes was counted as %" PRIu64,
				 ps.at - p->off[k], ps.end - p->off[k]);
	return ret;
}

static void *piece_worker(void *arg)
{
	struct pieces *p = arg;
	char *buf = xmalloc(PIECE_BUF);
	unsigned k;

	while ((k = __atomic_fetch_add(&p->next, 1, __ATOMIC_RELAXED)) <
	       p->b->j->n)
		if (piece_write(p, k, buf))
			__atomic_store_n(&p->ret, -1, __ATOMIC_RELAXED);
	free(buf);
	return NULL;
}

static void *report_pieces(void *arg)
{
	struct pieces *p = arg;
	struct by_id *b = p->b;
	const struct thread_lines *tl = b->e->thread_lines;
	unsigned k;

	for (k = 0; k < b->j->n; k++)
		p->off[k + 1] = p->off[k] + piece_len(b, k);
	if (tl->begin(b->e->thread_arg)) {
		b->ret = -1;
		return NULL;
	}
	run_jobs(piece_worker, p, 0, p->nthreads);
	b->ret = p->ret ? p->ret : tl->end(b->e->thread_arg, p->off[b->j->n]);
	return NULL;
}

/*
 * The workers' accumulators (j->part) added into e's block, worker by
 * worker.  Returns the number of (metric, ie) whose sums are not those of
 * folding every value in thread order, fold[k] set for each: a value was
 * not exact (accum_exact_value) or a sum reached 2^53.  Where neither
 * happened the order of the additions made no difference.  Those sums are
 * cleared, to be folded again in order.
 */
static size_t add_partials(struct par_job *j, struct experiment *e,
			   uint32_t **ids, uint8_t *fold)
{
	size_t nk = 2 * e->metrics.nraw, k, i, n = 0;
	unsigned w;

	for (k = 0; k < nk; k++) {
		fold[k] = !j->partials;
		for (w = 0; w < j->n; w++)
			fold[k] |= j->w[w].inexact[k];
		n += fold[k];
	}
	for (w = 0; w < j->n && n < nk; w++)	/* some sums may stand */
		for (i = 1; i < j->nmaps[w]; i++)
			if (j->part[w][i])
				accum_add(experiment_acc_of(e, ids[w][i]),
					  j->part[w][i], e->metrics.stats, fold);
	for (k = 0, n = 0; k < nk; k++)
		n += fold[k];
	if (n == nk)
		experiment_acc_block(e);	/* start again */
	else if (n)
		for (i = 0; i < e->acc_count; i++) {
			struct accum *a = experiment_acc_of(e, (uint32_t)i);

			for (k = 0; k < nk; k++)
				if (fold[k])
					memset(a->v[k], 0, sizeof(a->v[k]));
		}
	return n;
}

/*
 * par_records(j, par_fold, e), faster: the statistics by id into e's block
 * of accumulators, the report to e->thread_id_cb (thread-values.tsv).
 * Where the workers' own sums are exact (add_partials) they stand, and the
 * rest of the values are folded again in thread order on this thread.
 * The report is written from the records too: with e->thread_lines in
 * pieces on nthreads threads of its own (on this one when nothing is
 * folded; when everything is, only from three threads on, the third
 * folding), else on one other thread (this one when there is only one).
 * Neither reads a node.
 */
static int fold_and_report(struct par_job *j, struct experiment *e,
			   unsigned nthreads)
{
	struct by_id b = { j, e, NULL, 0, NULL };
	struct pieces pc = { 0 };
	size_t nk = 2 * e->metrics.nraw, nfold;
	uint8_t *fold = xcalloc(nk + 1, 1);
	void *(*report)(void *) = NULL;
	void *arg = NULL;
	pthread_t t;
	unsigned k;
	size_t i;
	int ret = 0, started = 0;

	if (e->thread_cb && !e->thread_id_cb) {
		free(fold);
		return par_records(j, par_fold, e);
	}
	b.ids = xcalloc(j->n, sizeof(*b.ids));
	b.fold = fold;
	for (k = 0; k < j->n; k++) {
		b.ids[k] = xcalloc(j->nmaps[k], sizeof(**b.ids));
		for (i = 1; i < j->nmaps[k]; i++)
			b.ids[k][i] = j->maps[k][i] ? j->maps[k][i]->id : 0;
	}
	experiment_acc_block(e);
	nfold = add_partials(j, e, b.ids, fold);
	pc.b = &b;
	pc.nthreads = nthreads;	/* the pieces are the workers: one each */
	pc.off = xcalloc(j->n + 1, sizeof(*pc.off));
	if (e->thread_id_cb && e->thread_lines && j->w[0].tl &&
	    nthreads > (nfold == nk ? 2u : 1u)) {
		report = report_pieces;
		arg = &pc;
	} else if (e->thread_id_cb && nthreads > 1 && nfold) {
		report = report_all;
		arg = &b;
	}
	if (!nfold) {
		if (report)
			report(arg);
		else if (e->thread_id_cb)
			ret = scan(j, report_id, &b);
	} else {
		started = report && !pthread_create(&t, NULL, report, arg);
		ret = scan(j, fold_id, &b);
		if (started)
			pthread_join(t, NULL);
		else if (e->thread_id_cb && !ret)
			ret = scan(j, report_id, &b);
	}
	experiment_acc_attach(e);
	for (k = 0; k < j->n; k++)
		free(b.ids[k]);
	free(b.ids);
	free(pc.off);
	free(fold);
	return ret ? ret : b.ret;
}

int par_mergeable(const struct par_job *j)
{
	struct experiment **ws = xcalloc(j->n + 1, sizeof(*ws));
	unsigned k;
	int ok;

	for (k = 0; k < j->n; k++)
		ws[k] = j->w[k].w;
	ok = j->failed || prof_mergeable(ws, j->n);
	free(ws);
	return ok;
}

long par_correlate(struct experiment *e, const struct prof_input *in,
		   size_t n, unsigned nthreads)
{
	struct par_job *j = start(e, in, 0, n, nthreads, 1);
	long failed;

	if (!par_mergeable(j)) {
		par_free(j);
		return PAR_ONE_THREAD;
	}
	failed = par_failures(j);
	steptime_mark("correlate (workers)");
	if (failed >= 0) {
		par_merge(j, e);
		steptime_mark("merge the workers' trees");
		if (fold_and_report(j, e, nthreads))
			failed = -1;
		steptime_mark("fold per-thread values, thread-values.tsv");
	}
	e->nthreads = n;
	e->metrics.nthreads = n;
	par_free(j);
	return failed;
}
