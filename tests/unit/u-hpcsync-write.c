/*
 * u-hpcsync-write.c - unit tests for the .hpcsync writer
 * (lib/hpcsync-write.c): a known record set gives exact bytes; each
 * record writer gives the bytes of the format strings hpcrun's own
 * writer used (hpcrun(5)); a model read back is the model written
 * (read(write(x)) = x).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "hpcsync.h"
#include "textrec.h"
#include "unit.h"

static char path[64];

/* A model with one of everything (orders of one sync, none of another). */
static struct hpcsync_site sites[] = {
	{ 1, HPCSYNC_BARRIER, 0x7ffd1000, 12, 4 },
	{ 2, HPCSYNC_MUTEX, 0x601040, 13, 0 },
	{ 3, HPCSYNC_MPI_BARRIER, 0x84000000, 14, 8 },
	{ 4, HPCSYNC_SEM, 0, 0, 0 },
};
static struct hpcsync_sync syncs[] = {
	{ .site = 1, .episodes = 10, .last = 3, .wait = 0.25,
	  .completion = 1.5e-6, .norders = 4, .orders = { 3, 2, 2, 3 } },
	{ .site = 3, .episodes = 7, .last = 0, .wait = 12.000000001,
	  .completion = 0 },
};
static struct hpcsync_lock locks[] = {
	{ 2, 100, 40, 0.012345678 }, { 4, 1, 1, 1e-9 },
};
static struct hpcsync_phase phases[] = {
	{ 0, 1, 1, 0.1, 0.2 }, { 1, 1, 9, 2.5, 3.000000002 },
};
static struct hpcsync_episode episodes[] = {
	{ 1, 0, 1000, 2000, 1500, 2, 50, 60 },
	{ 3, 5, 3000, 4000, 0, -1, 70, 80 },
};

static void known_model(struct hpcsync *s)
{
	memset(s, 0, sizeof(*s));
	s->thread = 3;
	s->rank = 1;
	s->clock = HPCSYNC_CLOCK_OTHER_HOST;
	s->clock_offset = -12345;
	s->clock_err = 800;
	s->sites = sites;
	s->nsites = 4;
	s->syncs = syncs;
	s->nsyncs = 2;
	s->locks = locks;
	s->nlocks = 2;
	s->phases = phases;
	s->nphases = 2;
	s->episodes = episodes;
	s->nepisodes = 2;
	s->kept = 2;
	s->total = 17;
}

static void write_model(struct textrec_out *o, const void *s)
{
	hpcsync_write(o, s);
}

static void known_records_exact_bytes(void)
{
	struct hpcsync s;
	char *got;

	known_model(&s);
	got = unit_written(path, write_model, &s);
	CHECK_STR(got,
		"hpcsync: 1\nthread: 3\nrank: 1\n"
		"clock: -12345 800 other-host\n"
		"site 1 barrier 0x7ffd1000 12 4\n"
		"site 2 mutex 0x601040 13 0\n"
		"site 3 mpi-barrier 0x84000000 14 8\n"
		"site 4 sem 0x0 0 0\n"
		"sync 1 10 0.250000000 0.000001500 3 3,2,2,3\n"
		"sync 3 7 12.000000001 0.000000000 0 -\n"
		"lock 2 100 40 0.012345678\n"
		"lock 4 1 1 0.000000001\n"
		"phase 0 1 1 0.100000000 0.200000000\n"
		"phase 1 1 9 2.500000000 3.000000002\n"
		"episode 1 0 1000 2000 1500 2 50 60\n"
		"episode 3 5 3000 4000 0 -1 70 80\n"
		"episodes: 2 17\n");
	free(got);
	s.thread = s.rank = -1;
	s.clock = HPCSYNC_CLOCK_NONE;
	s.nsites = s.nsyncs = s.nlocks = s.nphases = s.nepisodes = 0;
	s.kept = s.total = 0;
	got = unit_written(path, write_model, &s);
	CHECK_STR(got, "hpcsync: 1\nepisodes: 0 0\n");
	free(got);
}

/* hpcrun's writer's format strings, as sync.c had them, for a random
 * record of each kind; the record writers must give the same bytes. */
static char old[4096];

static void old_records(const struct hpcsync_site *st,
			const struct hpcsync_sync *y,
			const struct hpcsync_lock *l,
			const struct hpcsync_phase *p,
			const struct hpcsync_episode *e, uint64_t wait_ns,
			uint64_t completion_ns, uint64_t work_ns,
			uint64_t wall_ns)
{
	size_t n = 0;
	uint32_t k;

	n += (size_t)snprintf(old + n, sizeof(old) - n, "site %u %s 0x%lx %u %u\n",
			      st->id, hpcsync_kind_name(st->kind),
			      (unsigned long)st->object, st->node, st->nthreads);
	n += (size_t)snprintf(old + n, sizeof(old) - n, "sync %u %llu %.9f %.9f %llu ",
			      y->site, (unsigned long long)y->episodes,
			      (double)wait_ns / 1e9, (double)completion_ns / 1e9,
			      (unsigned long long)y->last);
	if (!y->norders)
		n += (size_t)snprintf(old + n, sizeof(old) - n, "-");
	for (k = 0; k < y->norders; k++)
		n += (size_t)snprintf(old + n, sizeof(old) - n, k ? ",%u" : "%u",
				      (unsigned)y->orders[k]);
	n += (size_t)snprintf(old + n, sizeof(old) - n, "\n");
	n += (size_t)snprintf(old + n, sizeof(old) - n, "lock %u %llu %llu %.9f\n",
			      l->site, (unsigned long long)l->calls,
			      (unsigned long long)l->blocked, (double)wait_ns / 1e9);
	n += (size_t)snprintf(old + n, sizeof(old) - n, "phase %u %u %llu %.9f %.9f\n",
			      p->start, p->end, (unsigned long long)p->count,
			      (double)work_ns / 1e9, (double)wall_ns / 1e9);
	snprintf(old + n, sizeof(old) - n,
		 "episode %u %llu %llu %llu %llu %d %llu %llu\n", e->site,
		 (unsigned long long)e->n, (unsigned long long)e->arrive,
		 (unsigned long long)e->depart, (unsigned long long)e->lastarr,
		 e->order, (unsigned long long)e->cpu_arrive,
		 (unsigned long long)e->cpu_depart);
}

struct records {
	struct hpcsync_site st;
	struct hpcsync_sync y;
	struct hpcsync_lock l;
	struct hpcsync_phase p;
	struct hpcsync_episode e;
};

static void write_records(struct textrec_out *o, const void *x)
{
	const struct records *r = x;

	hpcsync_write_site(o, &r->st);
	hpcsync_write_sync(o, &r->y);
	hpcsync_write_lock(o, &r->l);
	hpcsync_write_phase(o, &r->p);
	hpcsync_write_episode(o, &r->e);
}

static void records_as_hpcrun_wrote_them(void)
{
	int i;

	for (i = 0; i < 2000; i++) {
		struct records r;
		uint64_t wait = unit_random() >> 20, compl = unit_random() >> (unit_random() % 64),
			 work = unit_random() >> 24, wall = unit_random() >> 30;
		uint32_t k;
		char *got;

		memset(&r, 0, sizeof(r));
		r.st = (struct hpcsync_site){ (uint32_t)unit_random(),
			(enum hpcsync_kind)(unit_random() % HPCSYNC_NKINDS),
			unit_random() >> (unit_random() % 64), (uint32_t)unit_random(), (uint32_t)unit_random() % 100 };
		r.y.site = (uint32_t)unit_random();
		r.y.episodes = unit_random();
		r.y.wait = (double)wait / 1e9;
		r.y.completion = (double)compl / 1e9;
		r.y.last = unit_random() >> 3;
		r.y.norders = (uint32_t)(unit_random() % (HPCSYNC_MAX_ORDERS + 1));
		for (k = 0; k < r.y.norders; k++)
			r.y.orders[k] = (uint32_t)unit_random();
		r.l = (struct hpcsync_lock){ (uint32_t)unit_random(), unit_random(), unit_random(),
					     (double)wait / 1e9 };
		r.p = (struct hpcsync_phase){ (uint32_t)unit_random(), (uint32_t)unit_random(),
			unit_random(), (double)work / 1e9, (double)wall / 1e9 };
		r.e = (struct hpcsync_episode){ (uint32_t)unit_random(), unit_random(), unit_random(),
			unit_random(), unit_random(), (int32_t)(unit_random() % 70) - 1, unit_random(), unit_random() };
		old_records(&r.st, &r.y, &r.l, &r.p, &r.e, wait, compl, work,
			    wall);
		got = unit_written(path, write_records, &r);
		CHECK_STR(got, old);
		free(got);
	}
}

static void round_trip(void)
{
	struct hpcsync s, *back;
	char *first, *again;
	size_t i;

	known_model(&s);
	first = unit_written(path, write_model, &s);
	back = hpcsync_read(path);
	CHECK(back != NULL);
	if (!back) {
		free(first);
		return;
	}
	CHECK_INT(back->thread, 3);
	CHECK_INT(back->rank, 1);
	CHECK_INT(back->clock, HPCSYNC_CLOCK_OTHER_HOST);
	CHECK_INT(back->clock_offset, -12345);
	CHECK_INT(back->clock_err, 800);
	CHECK_INT(back->nsites, 4);
	for (i = 0; i < back->nsites && i < 4; i++)
		CHECK(!memcmp(&back->sites[i], &sites[i], sizeof(sites[i])));
	CHECK_INT(back->nsyncs, 2);
	for (i = 0; i < back->nsyncs && i < 2; i++) {
		const struct hpcsync_sync *a = &back->syncs[i], *b = &syncs[i];

		CHECK(a->site == b->site && a->episodes == b->episodes &&
		      a->last == b->last && a->wait == b->wait &&
		      a->completion == b->completion &&
		      a->norders == b->norders &&
		      !memcmp(a->orders, b->orders, sizeof(a->orders)));
	}
	CHECK_INT(back->nlocks, 2);
	for (i = 0; i < back->nlocks && i < 2; i++) {
		const struct hpcsync_lock *a = &back->locks[i], *b = &locks[i];

		CHECK(a->site == b->site && a->calls == b->calls &&
		      a->blocked == b->blocked && a->wait == b->wait);
	}
	CHECK_INT(back->nphases, 2);
	for (i = 0; i < back->nphases && i < 2; i++) {
		const struct hpcsync_phase *a = &back->phases[i], *b = &phases[i];

		CHECK(a->start == b->start && a->end == b->end &&
		      a->count == b->count && a->work == b->work &&
		      a->wall == b->wall);
	}
	CHECK_INT(back->nepisodes, 2);
	for (i = 0; i < back->nepisodes && i < 2; i++) {
		const struct hpcsync_episode *a = &back->episodes[i],
					     *b = &episodes[i];

		CHECK(a->site == b->site && a->n == b->n &&
		      a->arrive == b->arrive && a->depart == b->depart &&
		      a->lastarr == b->lastarr && a->order == b->order &&
		      a->cpu_arrive == b->cpu_arrive &&
		      a->cpu_depart == b->cpu_depart);
	}
	CHECK_INT(back->kept, 2);
	CHECK_INT(back->total, 17);
	again = unit_written(path, write_model, back);
	CHECK_STR(again, first);
	free(first);
	free(again);
	hpcsync_free(back);
}

int main(void)
{
	snprintf(path, sizeof(path), "u-hpcsync-write-%d.hpcsync", (int)getpid());
	unit_run("a known record set gives exact bytes", known_records_exact_bytes);
	unit_run("each record as hpcrun's format strings wrote it",
		 records_as_hpcrun_wrote_them);
	unit_run("read(write(x)) = x", round_trip);
	unlink(path);
	return unit_done();
}
