/* parallel.c - see parallel.h. */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "error.h"
#include "parallel.h"

unsigned par_default_threads(void)
{
	long n = sysconf(_SC_NPROCESSORS_ONLN);

	if (n < 1)
		return 1;
	return n > PAR_DEFAULT_MAX ? PAR_DEFAULT_MAX : (unsigned)n;
}

/*
 * Runs fn on each of the n jobs at arg (size bytes apart): job 0 on the
 * calling thread, the others on threads of their own (on the calling
 * thread too when one cannot be started).
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
	size_t lo, hi;
};

static void *read_heads(void *arg)
{
	struct head_job *j = arg;
	size_t i;

	for (i = j->lo; i < j->hi; i++) {
		struct hpcrun_profile *p = hpcrun_fmt_read(j->paths[i]);

		j->out[i] = p;
		j->err[i] = p ? NULL : xstrdup(hpc_lasterr());
		if (p)
			hpcrun_profile_shed(p);
	}
	return NULL;
}

void par_read_heads(const char *const *paths, size_t n, unsigned nthreads,
		    struct hpcrun_profile **out, char **err)
{
	unsigned k, nj = jobs_for(nthreads, n);
	struct head_job *j = xcalloc(nj, sizeof(*j));

	for (k = 0; k < nj; k++) {
		j[k].paths = paths;
		j[k].out = out;
		j[k].err = err;
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

struct worker {
	struct experiment *w;
	const struct par_profile *in;
	size_t lo, hi;
	char **err;		/* per profile, for the caller to print */
	FILE *spill;
	int spill_err;
	struct record buf[RECORDS];
	size_t nbuf;
};

static void put(struct worker *k, uint32_t node, uint32_t metric, double v)
{
	if (k->nbuf == RECORDS) {
		if (fwrite(k->buf, sizeof(k->buf[0]), k->nbuf, k->spill) !=
		    k->nbuf)
			k->spill_err = 1;
		k->nbuf = 0;
	}
	k->buf[k->nbuf++] = (struct record){ node, metric, v };
}

static void spill_value(void *arg, uint32_t thread, const struct node *n,
			size_t raw, int ie, double v)
{
	(void)thread;
	put(arg, n->id, (uint32_t)(2 * raw + (size_t)ie), v);
}

static void *correlate(void *arg)
{
	struct worker *k = arg;
	size_t i;

	for (i = k->lo; i < k->hi; i++) {
		struct hpcrun_profile *p = hpcrun_fmt_read(k->in[i].path);

		if (!p) {
			k->err[i] = xstrdup(hpc_lasterr());
			continue;
		}
		put(k, 0, (uint32_t)i, 0);
		experiment_add_profile(k->w, p, k->in[i].map);
		hpcrun_profile_free(p);
	}
	if (k->nbuf && fwrite(k->buf, sizeof(k->buf[0]), k->nbuf, k->spill) !=
	    k->nbuf)
		k->spill_err = 1;
	k->nbuf = 0;
	if (fflush(k->spill) || ferror(k->spill))
		k->spill_err = 1;
	return NULL;
}

struct par_job {
	unsigned n;		/* workers */
	struct worker *w;
	struct node ***maps;	/* per worker: its ids -> the merged nodes */
	char **err;
	size_t lo, hi;
	int failed;		/* a temporary file could not be made */
};

struct par_job *par_start(struct experiment *e, const struct par_profile *in,
			  size_t lo, size_t hi, unsigned nthreads)
{
	struct par_job *j = xcalloc(1, sizeof(*j));
	unsigned k;

	j->n = jobs_for(nthreads, hi - lo);
	j->w = xcalloc(j->n, sizeof(*j->w));
	j->maps = xcalloc(j->n, sizeof(*j->maps));
	j->err = xcalloc(hi - lo + 1, sizeof(*j->err));
	j->lo = lo;
	j->hi = hi;
	for (k = 0; k < j->n; k++) {
		struct worker *w = &j->w[k];

		w->w = experiment_new_worker(e);
		w->w->thread_cb = spill_value;
		w->w->thread_arg = w;
		w->in = in;
		w->err = j->err - lo;
		range(hi - lo, j->n, k, &w->lo, &w->hi);
		w->lo += lo;
		w->hi += lo;
		w->spill = tmpfile();
		if (!w->spill && !j->failed) {
			hpc_seterr("cannot create a temporary file: %s",
				   strerror(errno));
			j->failed = 1;
		}
	}
	if (!j->failed)
		run_jobs(correlate, j->w, sizeof(*j->w), j->n);
	return j;
}

long par_failures(struct par_job *j)
{
	long failed = 0;
	size_t i;
	unsigned k;

	if (j->failed)
		return -1;
	for (i = 0; i < j->hi - j->lo; i++)
		if (j->err[i]) {
			hpc_warn("%s; skipping it", j->err[i]);
			failed++;
		}
	for (k = 0; k < j->n; k++)
		if (j->w[k].spill_err) {
			hpc_seterr("temporary file: write error");
			return -1;
		}
	return failed;
}

void par_merge(struct par_job *j, struct experiment *into)
{
	unsigned k;

	for (k = 0; k < j->n; k++)
		j->maps[k] = experiment_merge(into, j->w[k].w);
	for (k = 0; k < j->n; k++) {
		experiment_merge_fallbacks(into, j->w[k].w);
		experiment_free(j->w[k].w);
		j->w[k].w = NULL;
	}
}

int par_records(struct par_job *j, par_record_fn *fn, void *arg)
{
	struct record *buf = xmalloc(RECORDS * sizeof(*buf));
	unsigned k;
	int ret = 0;

	/* pread: two threads may read the records at once (par_correlate) */
	for (k = 0; k < j->n && !ret; k++) {
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
					fn(arg, thread, j->maps[k][r->node],
					   r->k, r->v);
			}
		}
		if (got < 0 || at % (off_t)sizeof(*buf))
			ret = hpc_seterr("temporary file: read error");
	}
	free(buf);
	return ret;
}

void par_free(struct par_job *j)
{
	unsigned k;
	size_t i;

	if (!j)
		return;
	for (k = 0; k < j->n; k++) {
		experiment_free(j->w[k].w);
		if (j->w[k].spill)
			fclose(j->w[k].spill);
		free(j->maps[k]);
	}
	for (i = 0; i < j->hi - j->lo; i++)
		free(j->err[i]);
	free(j->err);
	free(j->maps);
	free(j->w);
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

/* par_fold's halves: the statistics, and the report to e->thread_cb. */
static void fold_only(void *arg, uint32_t thread, struct node *n, uint32_t k,
		      double v)
{
	(void)thread;
	if (!n->acc)
		n->acc = accum_new(&((struct experiment *)arg)->metrics);
	accum_fold_value(n->acc, k, v);
}

static void report_only(void *arg, uint32_t thread, struct node *n,
			uint32_t k, double v)
{
	struct experiment *e = arg;

	e->thread_cb(e->thread_arg, thread, n, k / 2, (int)(k % 2), v);
}

struct report_job {
	struct par_job *j;
	struct experiment *e;
	int ret;
};

static void *report_all(void *arg)
{
	struct report_job *r = arg;

	r->ret = par_records(r->j, report_only, r->e);
	return NULL;
}

/*
 * par_records(j, par_fold, e) on two threads: the statistics on this one,
 * the report to e->thread_cb (thread-values.tsv) on another, each over
 * all the records in order.  The reporting thread reads only the nodes'
 * ids, which no one changes now.
 */
static int fold_and_report(struct par_job *j, struct experiment *e)
{
	struct report_job r = { j, e, 0 };
	pthread_t t;
	int ret;

	if (!e->thread_cb || pthread_create(&t, NULL, report_all, &r))
		return par_records(j, par_fold, e);
	ret = par_records(j, fold_only, e);
	pthread_join(t, NULL);
	return ret ? ret : r.ret;
}

long par_correlate(struct experiment *e, const struct par_profile *in,
		   size_t n, unsigned nthreads)
{
	struct par_job *j = par_start(e, in, 0, n, nthreads);
	long failed = par_failures(j);

	if (failed >= 0) {
		par_merge(j, e);
		if (nthreads > 1 ? fold_and_report(j, e)
				 : par_records(j, par_fold, e))
			failed = -1;
	}
	e->nthreads = n;
	e->metrics.nthreads = n;
	par_free(j);
	return failed;
}
