/* threadname.c - see threadname.h. */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "error.h"
#include "hashmap.h"
#include "infile.h"
#include "strbuf.h"
#include "threadname.h"

/* threads.tsv holds a line per profile; never read more than this. */
#define MAX_THREADS_TSV ((uint64_t)4 << 30)

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

void thread_names_set(struct thread_names *tn, size_t t, const char *rank,
		      const char *tid, int tuple_rank)
{
	size_t i;

	if (t >= tn->n) {
		HPC_GROW(tn->th, t + 1, tn->alloc);
		for (i = tn->n; i <= t; i++)
			tn->th[i].rank = tn->th[i].tid = -1;
		tn->n = t + 1;
	}
	count_rank(tn, tn->th[t].rank, -1);
	tn->th[t].rank = number(rank);
	tn->th[t].tid = number(tid);
	count_rank(tn, tn->th[t].rank, 1);
	tn->tuple_rank |= tuple_rank;
}

int thread_names_read(struct thread_names *tn, const char *path)
{
	char line[8192];
	struct stat st;
	FILE *f;

	if (lstat(path, &st) && errno == ENOENT)
		return 0;
	f = infile_fopen(path, MAX_THREADS_TSV, "a table of threads");
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		/* thread profile identity program process rank thread-id ... */
		char *col[7], *p, *save = NULL;
		size_t n = 0;
		long t;

		if (line[0] == '#')
			continue;
		line[strcspn(line, "\n")] = '\0';
		for (p = strtok_r(line, "\t", &save); p && n < 7;
		     p = strtok_r(NULL, "\t", &save))
			col[n++] = p;
		t = n ? number(col[0]) : -1;
		if (t < 0 || n < 3)
			continue;
		thread_names_set(tn, (size_t)t, n == 7 ? col[5] : NULL,
				 n == 7 ? col[6] : NULL,
				 !strncmp(col[2], "RANK=", 5) ||
				 strstr(col[2], " RANK=") != NULL);
	}
	fclose(f);
	return 0;
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

	if (r < 0 || !thread_names_mpi(tn)) {
		strbuf_addf(out, "thread %zu", t);
		return;
	}
	strbuf_addf(out, "rank %ld", r);
	if (rank_threads(tn, r) > 1) {
		if (tid >= 0)
			strbuf_addf(out, " thread %ld", tid);
		else
			strbuf_addf(out, " thread %zu", t);
	}
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
	memset(tn, 0, sizeof(*tn));
}
