/* hpcsync-read.c - the .hpcsync reader (see hpcsync.h, man/hpcrun.5). */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "error.h"
#include "hashmap.h"
#include "hpcsync.h"
#include "strbuf.h"
#include "textrec.h"

char *hpcsync_path_for(const char *profile)
{
	return textrec_path_for(profile, HPCSYNC_SUFFIX);
}

void hpcsync_free(struct hpcsync *s)
{
	if (!s)
		return;
	free(s->path);
	free(s->sites);
	free(s->syncs);
	free(s->locks);
	free(s->phases);
	free(s->episodes);
	hmap_free(s->index);
	free(s);
}

const struct hpcsync_site *hpcsync_site(const struct hpcsync *s, uint32_t id)
{
	uintptr_t v = (uintptr_t)hmap_get(s->index, &id, sizeof(id));

	return v ? &s->sites[v - 1] : NULL;
}

/* The parse of one file: the line being read and where errors point. */
struct parser {
	struct textrec *r;
	struct hpcsync *s;
	size_t sites_alloc, syncs_alloc, locks_alloc, phases_alloc,
	       episodes_alloc;
	long name_thread;	/* the THREAD of the file's name, -1 none */
};

static int bad(struct parser *p, const char *what)
{
	return textrec_bad(p->r, what);
}

static int u64(struct parser *p, int i, uint64_t *out)
{
	return textrec_u64(p->r, i, out);
}

static int u32(struct parser *p, int i, uint32_t *out)
{
	return textrec_u32(p->r, i, out);
}

static int seconds(struct parser *p, int i, double *out)
{
	char *end;

	errno = 0;
	*out = strtod(p->r->f[i], &end);
	if (end == p->r->f[i] || *end || errno || !isfinite(*out) || *out < 0)
		return bad(p, "expected seconds (a number >= 0)");
	if (*out > HPCSYNC_MAX_SECONDS)
		return bad(p, "more seconds than any measurement (over 1e7)");
	return 0;
}

/*
 * The THREAD field of a name of hpcrun's form
 * PROGRAM-RANK-THREAD-HOSTID-PID-GEN.hpcsync (fields from the end: GEN,
 * PID, RANK and THREAD decimal, HOSTID hex), or -1 for any other name.
 */
static long name_thread(const char *path)
{
	static const char *const digits[5] = {
		"0123456789", "0123456789", "0123456789abcdefABCDEF",
		"0123456789", "0123456789",
	};
	const char *base = strrchr(path, '/'), *end, *p;
	long thread = -1;
	int k;

	base = base ? base + 1 : path;
	end = base + strlen(base);
	if ((size_t)(end - base) <= strlen(HPCSYNC_SUFFIX) ||
	    strcmp(end - strlen(HPCSYNC_SUFFIX), HPCSYNC_SUFFIX))
		return -1;
	end -= strlen(HPCSYNC_SUFFIX);
	for (k = 0; k < 5; k++, end = p - 1) {	/* GEN, PID, HOSTID, THREAD, RANK */
		for (p = end; p > base && p[-1] != '-'; p--)
			if (!strchr(digits[k], p[-1]))
				return -1;
		if (p == end || p <= base + 1)
			return -1;
		if (k == 3) {
			if (end - p > 9)
				return -1;
			thread = strtol(p, NULL, 10);
		}
	}
	return thread;
}

/* Index of site id in s->sites, or -1 after an error naming the record. */
static long site_index(struct parser *p, uint32_t id, const char *rec)
{
	uintptr_t v = id ? (uintptr_t)hmap_get(p->s->index, &id, sizeof(id)) : 0;
	char msg[96];

	if (v)
		return (long)v - 1;
	snprintf(msg, sizeof(msg), "%s names unknown site %u", rec, id);
	return bad(p, msg);
}

static int rec_site(struct parser *p)
{
	struct hpcsync_site st;
	int k;

	if (p->r->nf != 6)
		return bad(p, "site wants ID KIND OBJECT NODE NTHREADS");
	if (u32(p, 1, &st.id) || u64(p, 3, &st.object) ||
	    u32(p, 4, &st.node) || u32(p, 5, &st.nthreads))
		return -1;
	if (st.nthreads > HPCSYNC_MAX_THREADS)
		return bad(p, "more threads than any measurement (over 2^24)");
	for (k = 0; k < HPCSYNC_NKINDS; k++)
		if (!strcmp(p->r->f[2], hpcsync_kind_name((enum hpcsync_kind)k)))
			break;
	if (k == HPCSYNC_NKINDS)
		return bad(p, "unknown site kind");
	st.kind = (enum hpcsync_kind)k;
	if (textrec_define(p->r, p->s->index, st.id, p->s->nsites + 1,
			   "site id 0 is reserved for thread start",
			   "site defined twice"))
		return -1;
	HPC_GROW(p->s->sites, p->s->nsites + 1, p->sites_alloc);
	p->s->sites[p->s->nsites++] = st;
	return 0;
}

static int rec_sync(struct parser *p)
{
	struct hpcsync_sync y;
	char *c, *next;
	long k;

	memset(&y, 0, sizeof(y));
	if (p->r->nf != 7)
		return bad(p, "sync wants SITE EPISODES WAIT COMPLETION LAST "
			   "ORDERS");
	if (u32(p, 1, &y.site) || u64(p, 2, &y.episodes) ||
	    seconds(p, 3, &y.wait) || seconds(p, 4, &y.completion) ||
	    u64(p, 5, &y.last) || (k = site_index(p, y.site, "sync")) < 0)
		return -1;
	if (!hpcsync_is_barrier(p->s->sites[k].kind))
		return bad(p, "sync names a lock site");
	if (strcmp(p->r->f[6], "-")) {
		for (c = p->r->f[6]; c; c = next) {
			next = strchr(c, ',');
			if (next)
				*next++ = '\0';
			if (y.norders == HPCSYNC_MAX_ORDERS)
				return bad(p, "more than 64 arrival orders");
			p->r->f[6] = c;
			if (u64(p, 6, &y.orders[y.norders++]))
				return -1;
		}
	}
	HPC_GROW(p->s->syncs, p->s->nsyncs + 1, p->syncs_alloc);
	p->s->syncs[p->s->nsyncs++] = y;
	return 0;
}

static int rec_lock(struct parser *p)
{
	struct hpcsync_lock l;
	long k;

	if (p->r->nf != 5)
		return bad(p, "lock wants SITE CALLS BLOCKED WAIT");
	if (u32(p, 1, &l.site) || u64(p, 2, &l.calls) ||
	    u64(p, 3, &l.blocked) || seconds(p, 4, &l.wait) ||
	    (k = site_index(p, l.site, "lock")) < 0)
		return -1;
	if (hpcsync_is_barrier(p->s->sites[k].kind))
		return bad(p, "lock names a barrier site");
	HPC_GROW(p->s->locks, p->s->nlocks + 1, p->locks_alloc);
	p->s->locks[p->s->nlocks++] = l;
	return 0;
}

static int rec_phase(struct parser *p)
{
	struct hpcsync_phase ph;

	if (p->r->nf != 6)
		return bad(p, "phase wants START END COUNT WORK WALL");
	if (u32(p, 1, &ph.start) || u32(p, 2, &ph.end) ||
	    u64(p, 3, &ph.count) || seconds(p, 4, &ph.work) ||
	    seconds(p, 5, &ph.wall) ||
	    (ph.start && site_index(p, ph.start, "phase") < 0) ||
	    site_index(p, ph.end, "phase") < 0)
		return -1;
	HPC_GROW(p->s->phases, p->s->nphases + 1, p->phases_alloc);
	p->s->phases[p->s->nphases++] = ph;
	return 0;
}

static int rec_episode(struct parser *p)
{
	struct hpcsync_episode ep;
	char *end;
	long order;

	if (p->r->nf != 9)
		return bad(p, "episode wants SITE N ARRIVE DEPART LASTARR "
			   "ORDER CPUARRIVE CPUDEPART");
	if (u32(p, 1, &ep.site) || u64(p, 2, &ep.n) ||
	    u64(p, 3, &ep.arrive) || u64(p, 4, &ep.depart) ||
	    u64(p, 5, &ep.lastarr) || u64(p, 7, &ep.cpu_arrive) ||
	    u64(p, 8, &ep.cpu_depart) ||
	    site_index(p, ep.site, "episode") < 0)
		return -1;
	errno = 0;
	order = strtol(p->r->f[6], &end, 10);
	if (*end || end == p->r->f[6] || errno || order < -1 || order > INT32_MAX)
		return bad(p, "expected an arrival position (-1 or more)");
	ep.order = (int32_t)order;
	if (ep.depart < ep.arrive)
		return bad(p, "departure before arrival");
	HPC_GROW(p->s->episodes, p->s->nepisodes + 1, p->episodes_alloc);
	p->s->episodes[p->s->nepisodes++] = ep;
	return 0;
}

static int parse_line(struct textrec *r, void *arg)
{
	struct parser *p = arg;
	long v;
	char *end;

	p->r = r;
	if (p->r->lineno == 1)
		return !strcmp(p->r->f[0], HPCSYNC_MAGIC) && p->r->nf == 2 &&
		       !strcmp(p->r->f[1], HPCSYNC_VERSION) ? 0
			: bad(p, "not a synchronization file (no "
			      "'hpcsync: 1')");
	if (!strcmp(p->r->f[0], HPCSYNC_THREAD) ||
	    !strcmp(p->r->f[0], HPCSYNC_RANK)) {
		if (p->r->nf != 2)
			return bad(p, "expected a number");
		errno = 0;
		v = strtol(p->r->f[1], &end, 10);
		if (*end || end == p->r->f[1] || errno || v < 0)
			return bad(p, "expected a number");
		if (!strcmp(p->r->f[0], HPCSYNC_RANK)) {
			p->s->rank = v;
			return 0;
		}
		p->s->thread = v;
		if (p->name_thread >= 0 && v != p->name_thread) {
			char msg[96];

			snprintf(msg, sizeof(msg), "thread %ld, but the file "
				 "name says thread %ld", v, p->name_thread);
			return bad(p, msg);
		}
		return 0;
	}
	if (!strcmp(p->r->f[0], HPCSYNC_CLOCK)) {
		errno = 0;
		if (p->r->nf != 4 || u64(p, 2, &p->s->clock_err))
			return bad(p, "expected 'clock: OFFSET ERR same-host|other-host'");
		p->s->clock_offset = strtoll(p->r->f[1], &end, 10);
		if (*end || end == p->r->f[1] || errno)
			return bad(p, "expected a number of nanoseconds");
		p->s->clock = !strcmp(p->r->f[3], HPCSYNC_SAME_HOST) ?
			      HPCSYNC_CLOCK_SAME_HOST :
			      !strcmp(p->r->f[3], HPCSYNC_OTHER_HOST) ?
			      HPCSYNC_CLOCK_OTHER_HOST : HPCSYNC_CLOCK_NONE;
		if (!p->s->clock)
			return bad(p, "expected 'same-host' or 'other-host'");
		return 0;
	}
	if (!strcmp(p->r->f[0], HPCSYNC_SITE))
		return rec_site(p);
	if (!strcmp(p->r->f[0], HPCSYNC_SYNC))
		return rec_sync(p);
	if (!strcmp(p->r->f[0], HPCSYNC_LOCK))
		return rec_lock(p);
	if (!strcmp(p->r->f[0], HPCSYNC_PHASE))
		return rec_phase(p);
	if (!strcmp(p->r->f[0], HPCSYNC_EPISODE))
		return rec_episode(p);
	if (!strcmp(p->r->f[0], HPCSYNC_EPISODES)) {
		if (p->r->nf != 3 || u64(p, 1, &p->s->kept) ||
		    u64(p, 2, &p->s->total))
			return p->r->nf != 3 ? bad(p, "episodes: wants KEPT "
						"TOTAL") : -1;
		if (p->s->kept != p->s->nepisodes || p->s->kept > p->s->total)
			return bad(p, "episodes: KEPT differs from the "
				   "episode records");
		return 0;
	}
	return 0;	/* a record of a later version */
}

struct hpcsync *hpcsync_read(const char *path)
{
	struct parser p;
	long n;

	memset(&p, 0, sizeof(p));
	p.s = xcalloc(1, sizeof(*p.s));
	p.s->path = xstrdup(path);
	p.s->thread = p.s->rank = -1;
	p.s->index = hmap_new();
	p.name_thread = name_thread(path);
	n = textrec_read(path, HPCSYNC_MAX_BYTES, HPCSYNC_MAX_LINE,
			 "a synchronization file", parse_line, &p);
	if (n == 0)
		hpc_seterr("'%s': empty synchronization file", path);
	if (n <= 0) {
		hpcsync_free(p.s);
		return NULL;
	}
	return p.s;
}
