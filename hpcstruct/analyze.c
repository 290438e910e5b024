/* analyze.c - one binary from ELF to structure file (see analyze.h). */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "addrsearch.h"
#include "analyze.h"
#include "binary.h"
#include "cfg.h"
#include "debuginfo.h"
#include "error.h"
#include "loops.h"
#include "noreturn.h"
#include "output.h"
#include "scopes.h"
#include "strbuf.h"
#include "structindex.h"
#include "x86.h"

/* Procedures analyzed ahead of the writer, at most. */
#define WINDOW 512
/* stdio buffer of the structure file. */
#define OUT_BUFFER (1 << 20)
/* Havlak steps per procedure before its loops are abandoned. */
#define LOOP_WORK_CAP 50000000ULL

struct job {
	const struct binary *b;
	struct scope_ctx ctx;
	const struct analyze_opts *opts;
	unsigned char *noreturn;
	size_t *order, n;
	struct proc_tree **results;	/* by position in order[] */
	size_t next;			/* next position to analyze */
	size_t written;			/* positions written so far */
	int writer_waiting, helpers_waiting, stop;
	pthread_mutex_t mu;
	pthread_cond_t done, window;
};

static struct proc_tree *analyze_proc(struct job *j, struct decoder *d,
				      struct cfg *g, struct loopnest *ln,
				      size_t pi)
{
	struct proc_tree *t;
	int rc;

	cfg_build(g, d, j->b, pi, j->noreturn, j->opts->insn_cap);
	rc = loops_find(ln, g, LOOP_WORK_CAP);
	t = scopes_build(&j->ctx, pi, g, ln);
	t->loops_abandoned = rc < 0;
	output_render(t, g, &j->ctx.d->strs);
	return t;
}

/* Claims the next position, or returns 0 (none left or window full). */
static int claim(struct job *j, size_t *k)
{
	if (j->stop || j->next >= j->n || j->next >= j->written + WINDOW)
		return 0;
	*k = j->next++;
	return 1;
}

static void *helper(void *arg)
{
	struct job *j = arg;
	struct decoder *d = decoder_new();
	struct cfg g = { 0 };
	struct loopnest ln = { 0 };

	pthread_mutex_lock(&j->mu);
	while (d && !j->stop && j->next < j->n) {
		size_t k;
		struct proc_tree *t;

		if (!claim(j, &k)) {
			j->helpers_waiting++;
			pthread_cond_wait(&j->window, &j->mu);
			j->helpers_waiting--;
			continue;
		}
		pthread_mutex_unlock(&j->mu);
		t = analyze_proc(j, d, &g, &ln, j->order[k]);
		pthread_mutex_lock(&j->mu);
		j->results[k] = t;
		if (j->writer_waiting)
			pthread_cond_signal(&j->done);
	}
	pthread_mutex_unlock(&j->mu);
	cfg_release(&g);
	loopnest_release(&ln);
	decoder_free(d);
	return NULL;
}

static int order_cmp(const void *a, const void *b, void *arg)
{
	const struct job *j = arg;
	size_t x = *(const size_t *)a, y = *(const size_t *)b;
	uint32_t fx, fy, lx, ly;
	int c;

	scopes_proc_home(&j->ctx, x, &fx, &lx);
	scopes_proc_home(&j->ctx, y, &fy, &ly);
	if (fx != fy) {
		c = strcmp(strtab_get(&j->ctx.d->strs, fx),
			   strtab_get(&j->ctx.d->strs, fy));
		if (c)
			return c;
	}
	return j->b->procs[x].lo < j->b->procs[y].lo ? -1 : 1;
}

static void warn_proc(const struct job *j, const struct proc_tree *t)
{
	if (t->truncated)
		hpc_warn("'%s': procedure '%s' has more than %zu instructions; only the first %zu were analyzed",
			 j->b->path, t->name, j->opts->insn_cap,
			 j->opts->insn_cap);
	if (t->loops_abandoned)
		hpc_warn("'%s': procedure '%s': loop analysis too costly, loops omitted",
			 j->b->path, t->name);
}

static void progress(const struct job *j, size_t k, int last)
{
	if (!j->opts->progress)
		return;
	if (last)
		fputs("\r\033[K", stderr);
	else if (k % 256 == 0)
		fprintf(stderr, "\r%s: '%s': %zu/%zu procedures", hpc_progname(),
			j->b->basename, k, j->n);
}

/*
 * Writes the procedures in order.  While the next one is not ready, this
 * thread analyzes procedures itself, so N jobs keep N threads busy: N - 1
 * helpers and this writer.
 */
static int run(struct job *j, struct output *o)
{
	int nhelpers = j->opts->jobs - 1, started = 0;
	pthread_t *tids = xcalloc((size_t)nhelpers + 1, sizeof(*tids));
	struct decoder *d = decoder_new();
	struct cfg g = { 0 };
	struct loopnest ln = { 0 };

	if (!d) {
		free(tids);
		return -1;
	}
	for (int i = 0; i < nhelpers; i++)
		if (pthread_create(&tids[started], NULL, helper, j) == 0)
			started++;
	for (size_t k = 0; k < j->n; k++) {
		struct proc_tree *t;
		size_t mine;

		pthread_mutex_lock(&j->mu);
		while (!(t = j->results[k])) {
			if (claim(j, &mine)) {
				pthread_mutex_unlock(&j->mu);
				t = analyze_proc(j, d, &g, &ln, j->order[mine]);
				pthread_mutex_lock(&j->mu);
				j->results[mine] = t;
				continue;
			}
			j->writer_waiting = 1;
			pthread_cond_wait(&j->done, &j->mu);
			j->writer_waiting = 0;
		}
		j->results[k] = NULL;
		pthread_mutex_unlock(&j->mu);
		output_proc(o, t);
		warn_proc(j, t);
		proc_tree_free(t);
		progress(j, k, 0);
		pthread_mutex_lock(&j->mu);
		j->written++;
		if (j->helpers_waiting)
			pthread_cond_broadcast(&j->window);
		pthread_mutex_unlock(&j->mu);
	}
	pthread_mutex_lock(&j->mu);
	j->stop = 1;
	pthread_cond_broadcast(&j->window);
	pthread_mutex_unlock(&j->mu);
	for (int i = 0; i < started; i++)
		pthread_join(tids[i], NULL);
	free(tids);
	cfg_release(&g);
	loopnest_release(&ln);
	decoder_free(d);
	progress(j, j->n, 1);
	return 0;
}

static int want_cmp(const void *a, const void *b)
{
	const struct addr_range *x = a, *y = b;

	return x->lo < y->lo ? -1 : x->lo > y->lo;
}

/* Does [lo, hi) hold one of addrs[n] (sorted)? */
static int holds(const uint64_t *addrs, size_t n, uint64_t lo, uint64_t hi)
{
	size_t k;

	if (hi <= lo)
		return 0;
	k = addrsearch_count_le(addrs, n, sizeof(*addrs), hi - 1);
	return k > 0 && addrs[k - 1] >= lo;
}

/*
 * The procedures of a partial analysis, into j->order[] (by index) and
 * *want (their parts, sorted by lo); *cover gets those parts and a
 * one-byte range for each wanted address no procedure holds, sorted: what
 * the file covers.
 */
static void select_procs(struct job *j, const struct analyze_opts *opts,
			 struct addr_range **want, size_t *nwant,
			 struct addr_range **cover, size_t *ncover)
{
	const struct binary *b = j->b;
	size_t nw = 0, nc = 0;
	struct addr_range *w, *c;

	j->order = xmalloc((b->nprocs + 1) * sizeof(*j->order));
	w = xmalloc((2 * b->nprocs + 1) * sizeof(*w));
	for (size_t i = 0; i < b->nprocs; i++) {
		const struct proc *p = &b->procs[i];

		if (!holds(opts->addrs, opts->naddrs, p->lo, p->hi) &&
		    !holds(opts->addrs, opts->naddrs, p->cold_lo, p->cold_hi))
			continue;
		j->order[j->n++] = i;
		w[nw++] = (struct addr_range){ p->lo, p->hi };
		if (p->cold_hi > p->cold_lo)
			w[nw++] = (struct addr_range){ p->cold_lo, p->cold_hi };
	}
	if (nw > 1)
		qsort(w, nw, sizeof(*w), want_cmp);
	c = xmalloc((nw + opts->naddrs + 1) * sizeof(*c));
	memcpy(c, w, nw * sizeof(*w));
	nc = nw;
	for (size_t k = 0; k < opts->naddrs; k++) {
		uint64_t a = opts->addrs[k];
		size_t at = addrsearch_count_le(w, nw, sizeof(*w), a);

		if ((at == 0 || w[at - 1].hi <= a) && a < UINT64_MAX)
			c[nc++] = (struct addr_range){ a, a + 1 };
	}
	if (nc > 1)
		qsort(c, nc, sizeof(*c), want_cmp);
	*want = w;
	*nwant = nw;
	*cover = c;
	*ncover = nc;
}

int analyze_binary(const char *path, const char *out_path,
		   const struct analyze_opts *opts)
{
	struct binary *b = opts->addrs ? binary_open_mangled(path) :
		binary_open(path);
	struct debuginfo *d;
	struct job j;
	struct strbuf tmp = STRBUF_INIT, fname = STRBUF_INIT;
	struct output *o;
	struct addr_range *want = NULL, *cover = NULL;
	size_t nwant = 0, ncover = 0;
	struct stat st;
	char *abs, *outbuf;
	const char *lm, *lmbase;
	FILE *f;
	int rc, in_place, err;

	if (!b)
		return -1;
	if (opts->progress)
		fprintf(stderr, "\r%s: '%s': reading debug information", hpc_progname(),
			b->basename);
	memset(&j, 0, sizeof(j));
	j.b = b;
	if (opts->addrs) {
		select_procs(&j, opts, &want, &nwant, &cover, &ncover);
		for (size_t k = 0; k < j.n; k++)
			binary_demangle(b, j.order[k]);
		d = debuginfo_load_at(b, want, nwant);
	} else {
		d = debuginfo_load(b);
		j.n = b->nprocs;
		j.order = xmalloc((j.n + 1) * sizeof(*j.order));
		for (size_t i = 0; i < j.n; i++)
			j.order[i] = i;
	}
	binary_drop_dwarf(b);	/* everything needed is in d now */
	j.opts = opts;
	j.ctx.b = b;
	j.ctx.d = d;
	/* the LM names the file by its real path, [BASENAME] after it */
	abs = realpath(path, NULL);
	lm = abs ? abs : path;
	lmbase = strrchr(lm, '/') ? strrchr(lm, '/') + 1 : lm;
	strbuf_addf(&fname, "[%s]", lmbase);
	j.ctx.nofile = strtab_intern(&d->strs, fname.buf);
	j.ctx.libname = b->shared ? lmbase : NULL;
	j.results = xcalloc(j.n + 1, sizeof(*j.results));
	if (j.n > 1)
		qsort_r(j.order, j.n, sizeof(*j.order), order_cmp, &j);
	pthread_mutex_init(&j.mu, NULL);
	pthread_cond_init(&j.done, NULL);
	pthread_cond_init(&j.window, NULL);
	j.noreturn = noreturn_find(b, d, opts->insn_cap,
				   opts->addrs ? j.order : NULL, j.n);
	if (!j.noreturn) {
		rc = -1;
		goto out;
	}

	/* a regular file is replaced whole; /dev/null, a FIFO, a tty is written */
	in_place = stat(out_path, &st) == 0 && !S_ISREG(st.st_mode);
	if (in_place)
		strbuf_addstr(&tmp, out_path);
	else
		strbuf_addf(&tmp, "%s.tmp%ld", out_path, (long)getpid());
	f = fopen(tmp.buf, "w");
	if (!f) {
		rc = hpc_seterr("'%s': %s", out_path, strerror(errno));
		goto out;
	}
	outbuf = xmalloc(OUT_BUFFER);	/* a write(2) per MB, not per 4 KB */
	setvbuf(f, outbuf, _IOFBF, OUT_BUFFER);
	o = output_new(f, lm, b->buildid, &d->strs,
		       opts->addrs ? cover : NULL, ncover);
	rc = run(&j, o);
	err = output_close(f, output_finish(o));
	if (err && rc == 0)
		rc = hpc_seterr("'%s': write error: %s", out_path, strerror(-err));
	free(outbuf);
	if (!in_place && rc == 0 && rename(tmp.buf, out_path) != 0)
		rc = hpc_seterr("'%s': %s", out_path, strerror(errno));
	if (!in_place && rc != 0)
		unlink(tmp.buf);
	if (!in_place && rc == 0)
		structindex_write(out_path);
out:
	pthread_cond_destroy(&j.done);
	pthread_cond_destroy(&j.window);
	pthread_mutex_destroy(&j.mu);
	free(j.noreturn);
	free(j.order);
	free(j.results);
	free(want);
	free(cover);
	strbuf_release(&tmp);
	strbuf_release(&fname);
	free(abs);
	debuginfo_free(d);
	binary_free(b);
	return rc;
}
