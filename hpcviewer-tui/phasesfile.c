/* phasesfile.c - see phasesfile.h and hpcprof-database(5) (phases.tsv). */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "error.h"
#include "hashmap.h"
#include "phasesfile.h"
#include "strbuf.h"
#include "textrec.h"

#define PHASES_HEADER "# hpcprof phases 1"

struct reader {
	struct phases *ph;
	struct hmap *kinds;	/* (start, end) -> index + 1 */
	size_t sites_alloc, threads_alloc, kinds_alloc, kthreads_alloc,
	       episodes_alloc;
	uint32_t *kt_kind;	size_t kt_kind_alloc;	/* kthread -> kind */
};

static int real(const struct textrec *r, int i, double *out)
{
	char *end;

	errno = 0;
	*out = strtod(r->f[i], &end);
	if (end == r->f[i] || *end || errno || !isfinite(*out) || *out < 0)
		return textrec_bad(r, "expected a number >= 0");
	return 0;
}

/* Invariant 1: at least the fields of its kind. */
static int fields(const struct textrec *r, int n, const char *what)
{
	return r->nf < n ? textrec_bad(r, what) : 0;
}

static int site_of(const struct reader *rd, const struct textrec *r,
		   uint32_t id)
{
	return hmap_get(rd->ph->ids, &id, sizeof(id)) ? 0 :
	       textrec_bad(r, "names a site no site row gave");
}

static int rec_site(struct reader *rd, const struct textrec *r)
{
	struct phases *ph = rd->ph;
	struct phase_site s;
	uint64_t obj;

	memset(&s, 0, sizeof(s));
	if (fields(r, 19, "a site row has at least 19 fields") ||
	    textrec_u32(r, 1, &s.id) || textrec_u64(r, 4, &obj) ||
	    textrec_u32(r, 5, &s.node) || textrec_u32(r, 6, &s.participants) ||
	    textrec_u32(r, 7, &s.threads) || textrec_u64(r, 8, &s.episodes) ||
	    real(r, 9, &s.wait) || real(r, 10, &s.completion) ||
	    textrec_u64(r, 11, &s.last) || real(r, 12, &s.work) ||
	    real(r, 13, &s.lb) || real(r, 14, &s.gain) ||
	    textrec_u64(r, 15, &s.lock_calls) ||
	    textrec_u64(r, 16, &s.lock_blocked) || real(r, 17, &s.lock_wait))
		return -1;
	if (hmap_get(ph->ids, &s.id, sizeof(s.id)))
		return textrec_bad(r, "site given twice");
	s.kind = xstrdup(r->f[2]);
	s.function = xstrdup(r->f[3]);
	s.location = xstrdup(r->f[18]);
	HPC_GROW(ph->sites, ph->nsites + 1, rd->sites_alloc);
	ph->sites[ph->nsites++] = s;
	hmap_put(ph->ids, &s.id, sizeof(s.id), (void *)(uintptr_t)ph->nsites);
	return 0;
}

static int rec_thread(struct reader *rd, const struct textrec *r)
{
	struct phases *ph = rd->ph;
	struct phase_thread t;

	if (fields(r, 12, "a thread row has at least 12 fields") ||
	    textrec_u32(r, 1, &t.site) || textrec_u32(r, 2, &t.thread) ||
	    textrec_u64(r, 3, &t.episodes) || real(r, 4, &t.wait) ||
	    real(r, 5, &t.completion) || textrec_u64(r, 6, &t.last) ||
	    real(r, 7, &t.work) || textrec_u64(r, 9, &t.lock_calls) ||
	    textrec_u64(r, 10, &t.lock_blocked) ||
	    real(r, 11, &t.lock_wait) || site_of(rd, r, t.site))
		return -1;
	HPC_GROW(ph->threads, ph->nthreads + 1, rd->threads_alloc);
	ph->threads[ph->nthreads++] = t;
	return 0;
}

static int rec_phase(struct reader *rd, const struct textrec *r)
{
	struct phases *ph = rd->ph;
	struct phase_kind k;
	uint32_t key[2];

	memset(&k, 0, sizeof(k));
	if (fields(r, 9, "a phase row has at least 9 fields") ||
	    textrec_u32(r, 1, &k.start) || textrec_u32(r, 2, &k.end) ||
	    textrec_u32(r, 3, &k.node) || textrec_u32(r, 4, &k.threads) ||
	    textrec_u64(r, 5, &k.count) || real(r, 6, &k.work) ||
	    real(r, 7, &k.wall) || real(r, 8, &k.lb) ||
	    (k.start && site_of(rd, r, k.start)) || site_of(rd, r, k.end))
		return -1;
	key[0] = k.start;
	key[1] = k.end;
	if (hmap_get(rd->kinds, key, sizeof(key)))
		return textrec_bad(r, "phase kind given twice");
	HPC_GROW(ph->kinds, ph->nkinds + 1, rd->kinds_alloc);
	ph->kinds[ph->nkinds++] = k;
	hmap_put(rd->kinds, key, sizeof(key), (void *)(uintptr_t)ph->nkinds);
	return 0;
}

static int rec_phase_thread(struct reader *rd, const struct textrec *r)
{
	struct phases *ph = rd->ph;
	struct phase_kthread t;
	uint32_t key[2];
	uintptr_t k;

	if (fields(r, 7, "a phase-thread row has at least 7 fields") ||
	    textrec_u32(r, 1, &key[0]) || textrec_u32(r, 2, &key[1]) ||
	    textrec_u32(r, 3, &t.thread) || textrec_u64(r, 4, &t.count) ||
	    real(r, 5, &t.work) || real(r, 6, &t.wall))
		return -1;
	k = (uintptr_t)hmap_get(rd->kinds, key, sizeof(key));
	if (!k)
		return textrec_bad(r, "names a phase kind no phase row gave");
	HPC_GROW(ph->kthreads, ph->nkthreads + 1, rd->kthreads_alloc);
	HPC_GROW(rd->kt_kind, ph->nkthreads + 1, rd->kt_kind_alloc);
	rd->kt_kind[ph->nkthreads] = (uint32_t)(k - 1);
	ph->kthreads[ph->nkthreads++] = t;
	return 0;
}

static int rec_episode(struct reader *rd, const struct textrec *r)
{
	struct phases *ph = rd->ph;
	struct phase_episode e;
	long order;

	if (fields(r, 8, "an episode row has at least 8 fields") ||
	    textrec_u32(r, 1, &e.site) || textrec_u32(r, 2, &e.thread) ||
	    textrec_u64(r, 3, &e.n) || real(r, 4, &e.wait) ||
	    real(r, 5, &e.work) || site_of(rd, r, e.site))
		return -1;
	if (textrec_long(r, 6, -1, INT32_MAX, &order))
		return textrec_bad(r, "expected an arrival position");
	e.order = (int32_t)order;
	if (strcmp(r->f[7], "0") && strcmp(r->f[7], "1"))
		return textrec_bad(r, "expected 0 or 1");
	e.last = r->f[7][0] == '1';
	HPC_GROW(ph->episodes, ph->nepisodes + 1, rd->episodes_alloc);
	ph->episodes[ph->nepisodes++] = e;
	return 0;
}

static int rec_hidden(struct reader *rd, const struct textrec *r)
{
	return fields(r, 3, "a hidden-locks row has at least 3 fields") ||
	       textrec_u64(r, 1, &rd->ph->hidden_locks) ||
	       real(r, 2, &rd->ph->hidden_wait) ? -1 : 0;
}

/* The row kinds: what a row's first field names. */
static const struct {
	const char *kind;
	int (*read)(struct reader *rd, const struct textrec *r);
} kinds[] = {
	{ "site", rec_site },
	{ "thread", rec_thread },
	{ "phase", rec_phase },
	{ "phase-thread", rec_phase_thread },
	{ "episode", rec_episode },
	{ "hidden-locks", rec_hidden },
};

static int read_row(struct textrec *r, void *arg)
{
	size_t i;

	if (r->lineno == 1 && (r->nf != 1 || strcmp(r->f[0], PHASES_HEADER)))
		return textrec_bad(r, "not a table of phases (no '"
				   PHASES_HEADER "' line)");
	if (r->f[0][0] == '#')
		return 0;
	for (i = 0; i < sizeof(kinds) / sizeof(kinds[0]); i++)
		if (!strcmp(r->f[0], kinds[i].kind))
			return kinds[i].read(arg, r);
	return 0;	/* a row of a later version */
}

/* Site index of a site id known to exist (checked when read). */
static size_t site_index(const struct phases *ph, uint32_t id)
{
	return (uintptr_t)hmap_get(ph->ids, &id, sizeof(id)) - 1;
}

static const struct phases *sort_ph;

static int cmp_thread(const void *a, const void *b)
{
	const struct phase_thread *x = a, *y = b;
	size_t i = site_index(sort_ph, x->site), j = site_index(sort_ph, y->site);

	if (i != j)
		return i < j ? -1 : 1;
	return x->thread < y->thread ? -1 : x->thread > y->thread;
}

static int cmp_episode(const void *a, const void *b)
{
	const struct phase_episode *x = a, *y = b;
	size_t i = site_index(sort_ph, x->site), j = site_index(sort_ph, y->site);

	if (i != j)
		return i < j ? -1 : 1;
	if (x->thread != y->thread)
		return x->thread < y->thread ? -1 : 1;
	return x->n < y->n ? -1 : x->n > y->n;
}

/* Groups the rows under their sites and kinds (invariant 3). */
static void group(struct reader *rd)
{
	struct phases *ph = rd->ph;
	struct phase_kthread *kt;
	size_t i, *at;

	sort_ph = ph;
	if (ph->nthreads)	/* qsort wants an array, even of none */
		qsort(ph->threads, ph->nthreads, sizeof(*ph->threads),
		      cmp_thread);
	if (ph->nepisodes)
		qsort(ph->episodes, ph->nepisodes, sizeof(*ph->episodes),
		      cmp_episode);
	for (i = ph->nthreads; i-- > 0;) {
		struct phase_site *s = &ph->sites[site_index(ph,
						ph->threads[i].site)];

		s->first_thread = i;
		s->nthreads++;
	}
	for (i = ph->nepisodes; i-- > 0;) {
		struct phase_site *s = &ph->sites[site_index(ph,
						ph->episodes[i].site)];

		s->first_episode = i;
		s->nepisodes++;
		if (ph->episodes[i].wait > s->max_wait)
			s->max_wait = ph->episodes[i].wait;
	}
	/* phase-thread rows, stably bucketed by kind */
	for (i = 0; i < ph->nkthreads; i++)
		ph->kinds[rd->kt_kind[i]].nthreads++;
	at = xcalloc(ph->nkinds + 1, sizeof(*at));
	for (i = 1; i <= ph->nkinds; i++) {
		ph->kinds[i - 1].first_thread = at[i - 1];
		at[i] = at[i - 1] + ph->kinds[i - 1].nthreads;
	}
	kt = xcalloc(ph->nkthreads + 1, sizeof(*kt));
	for (i = 0; i < ph->nkthreads; i++)
		kt[at[rd->kt_kind[i]]++] = ph->kthreads[i];
	free(ph->kthreads);
	ph->kthreads = kt;
	free(at);
}

void phases_free(struct phases *ph)
{
	size_t i;

	if (!ph)
		return;
	hmap_free(ph->ids);
	for (i = 0; i < ph->nsites; i++) {
		free(ph->sites[i].kind);
		free(ph->sites[i].function);
		free(ph->sites[i].location);
	}
	free(ph->sites);
	free(ph->threads);
	free(ph->kinds);
	free(ph->kthreads);
	free(ph->episodes);
	thread_names_release(&ph->names);
	free(ph);
}

struct phases *phases_load(const char *dbdir, int *missing)
{
	struct strbuf path = STRBUF_INIT;
	struct reader rd;
	struct stat st;
	long n;

	strbuf_addf(&path, "%s/phases.tsv", dbdir);
	*missing = lstat(path.buf, &st) && errno == ENOENT;
	if (*missing) {
		strbuf_release(&path);
		return NULL;
	}
	memset(&rd, 0, sizeof(rd));
	rd.ph = xcalloc(1, sizeof(*rd.ph));
	rd.ph->ids = hmap_new();
	rd.kinds = hmap_new();
	n = textrec_read_tsv(path.buf, PHASES_MAX_BYTES, PHASES_MAX_LINE,
			     "a table of phases", read_row, &rd);
	if (!n)
		n = hpc_seterr("'%s': empty file, not a table of phases",
			       path.buf);
	if (n > 0) {
		group(&rd);
		strbuf_reset(&path);
		strbuf_addf(&path, "%s/threads.tsv", dbdir);
		n = thread_names_read(&rd.ph->names, path.buf);
	}
	hmap_free(rd.kinds);
	free(rd.kt_kind);
	strbuf_release(&path);
	if (n < 0) {
		phases_free(rd.ph);
		return NULL;
	}
	return rd.ph;
}

const struct phase_site *phases_site(const struct phases *ph, uint32_t id)
{
	uintptr_t v = (uintptr_t)hmap_get(ph->ids, &id, sizeof(id));

	return v ? &ph->sites[v - 1] : NULL;
}
