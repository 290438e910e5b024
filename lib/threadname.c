/* threadname.c - see threadname.h. */
#include <errno.h>
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "error.h"
#include "hashmap.h"
#include "strbuf.h"
#include "textrec.h"
#include "threadname.h"

static long number(const char *s)
{
	char *end;
	unsigned long v;

	if (!s || *s < '0' || *s > '9')
		return -1;
	errno = 0;
	v = strtoul(s, &end, 10);
	if (*end || errno || v > (unsigned long)INT32_MAX)
		return -1;
	return (long)v;
}

/* The threads of rank r. */
static size_t rank_threads(const struct thread_names *tn, long r)
{
	uintptr_t c = (uintptr_t)hmap_get_u64(tn->per_rank, (uint64_t)r);

	return c ? c - 1 : 0;
}

/* Adds d (+1 or -1) to the threads of rank r (r < 0: none). */
static void count_rank(struct thread_names *tn, long r, int d)
{
	if (r < 0)
		return;
	if (!tn->per_rank)
		tn->per_rank = hmap_new();
	hmap_put_u64(tn->per_rank, (uint64_t)r,
		     (void *)(uintptr_t)(rank_threads(tn, r) + 1 + d));
}

/* Notes that rank r has a thread of process pid (invariant 2: two
 * processes of one rank are told apart by their process). */
static void note_process(struct thread_names *tn, long r, long pid)
{
	uintptr_t seen;

	if (pid < 0)
		return;
	if (!tn->rank_process)
		tn->rank_process = hmap_new();
	seen = (uintptr_t)hmap_get_u64(tn->rank_process, (uint64_t)(r + 1));
	if (seen && seen != (uintptr_t)pid + 1)
		tn->processes = 1;
	else if (!seen)
		hmap_put_u64(tn->rank_process, (uint64_t)(r + 1),
			     (void *)((uintptr_t)pid + 1));
}

void thread_names_set(struct thread_names *tn, size_t t, const char *process,
		      const char *rank, const char *tid, int tuple_rank)
{
	size_t i;

	if (t >= tn->n) {
		HPC_GROW(tn->th, t + 1, tn->alloc);
		for (i = tn->n; i <= t; i++)
			tn->th[i].rank = tn->th[i].tid =
				tn->th[i].process = -1;
		tn->n = t + 1;
	}
	count_rank(tn, tn->th[t].rank, -1);
	tn->th[t].rank = number(rank);
	tn->th[t].tid = number(tid);
	tn->th[t].process = number(process);
	count_rank(tn, tn->th[t].rank, 1);
	note_process(tn, tn->th[t].rank, tn->th[t].process);
	tn->tuple_rank |= tuple_rank;
}

struct rows {
	size_t n;
	int (*row)(const struct threads_tsv_row *r, void *arg);
	void *arg;
};

/* A row: thread profile identity [program process rank thread-id ...]. */
static int tsv_row(struct textrec *r, void *arg)
{
	struct rows *rows = arg;
	struct threads_tsv_row row = { 0 };
	uint64_t t;

	if (r->f[0][0] == '#')
		return 0;
	if (r->nf < 3)
		return textrec_bad(r, "a thread row has at least 3 fields");
	if (textrec_u64(r, 0, &t))
		return -1;
	if (t != rows->n)
		return hpc_seterr("'%s': line %zu: thread %" PRIu64 " where "
				  "%zu was expected (rows are threads 0, 1, "
				  "... in order)", r->path, r->lineno, t,
				  rows->n);
	row.thread = rows->n++;
	row.profile = r->f[1];
	row.identity = r->f[2];
	if (r->nf >= 7) {
		row.program = r->f[3];
		row.process = r->f[4];
		row.rank = r->f[5];
		row.tid = r->f[6];
	}
	return rows->row(&row, rows->arg);
}

long threads_tsv_read(const char *path, int *missing,
		      int (*row)(const struct threads_tsv_row *r, void *arg),
		      void *arg)
{
	struct rows rows = { 0, row, arg };
	struct stat st;

	*missing = lstat(path, &st) && errno == ENOENT;
	if (*missing)
		return 0;
	if (textrec_read_tsv(path, THREADS_TSV_MAX_BYTES, THREADS_TSV_MAX_LINE,
			     "a table of threads", tsv_row, &rows) < 0)
		return -1;
	return (long)rows.n;
}

static int name_row(const struct threads_tsv_row *r, void *arg)
{
	thread_names_set(arg, r->thread, r->process, r->rank, r->tid,
			 !strncmp(r->identity, "RANK=", 5) ||
			 strstr(r->identity, " RANK=") != NULL);
	return 0;
}

int thread_names_read(struct thread_names *tn, const char *path)
{
	int missing;

	return threads_tsv_read(path, &missing, name_row, tn) < 0 ? -1 : 0;
}

int thread_names_mpi(const struct thread_names *tn)
{
	size_t i;

	if (tn->tuple_rank)
		return 1;
	for (i = 0; i < tn->n; i++)
		if (tn->th[i].rank > 0)
			return 1;
	return 0;
}

void thread_names_label(const struct thread_names *tn, size_t t,
			struct strbuf *out)
{
	long r = t < tn->n ? tn->th[t].rank : -1;
	long tid = t < tn->n ? tn->th[t].tid : -1;
	long pid = t < tn->n ? tn->th[t].process : -1;
	int mpi = r >= 0 && thread_names_mpi(tn);

	if (tid < 0) {
		if (mpi)
			strbuf_addf(out, "rank %ld ", r);
		strbuf_addf(out, "thread %zu", t);
		return;
	}
	if (mpi) {
		strbuf_addf(out, "rank %ld", r);
		if (rank_threads(tn, r) == 1 && !tn->processes)
			return;
		strbuf_addch(out, ' ');
	}
	if (tn->processes && pid >= 0)
		strbuf_addf(out, "process %ld ", pid);
	strbuf_addf(out, "thread %ld", tid);
}

const char *thread_names_field(const struct thread_names *tn, size_t t,
			       struct strbuf *out)
{
	strbuf_reset(out);
	if (thread_names_mpi(tn))
		thread_names_label(tn, t, out);
	else
		strbuf_addf(out, "%zu", t);
	return out->buf;
}

void thread_names_release(struct thread_names *tn)
{
	free(tn->th);
	hmap_free(tn->per_rank);
	hmap_free(tn->rank_process);
	memset(tn, 0, sizeof(*tn));
}
