/*
 * u-hpcshare-write.c - unit tests for the .hpcshare writer
 * (lib/hpcshare-write.c): a known record set gives exact bytes; each
 * record writer gives the bytes of the format strings hpcrun's own
 * writer used (hpcrun(5)); a model read back is the model written
 * (read(write(x)) = x).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "hpcshare.h"
#include "textrec.h"
#include "unit.h"

static char path[64];

static uint32_t lo0[] = { 0, 2 }, hi0[] = { 0, 3 }, lo1[] = { 1 }, hi1[] = { 1 };
static struct hpcshare_node nodes[] = {
	{ lo0, hi0, 2 }, { lo1, hi1, 1 },
};
static struct hpcshare_object objs[] = {
	{ 3, HPCSHARE_HEAP, 0x7f0000001010, 128, 42, 0 },
	{ 1, HPCSHARE_STATIC, 0x601040, 64, 7, 1 },
};
static struct hpcshare_access accesses[] = {
	{ 100, 1, 0, 48, 8, HPCSHARE_W, 1, 55 },
	{ 100, 3, 1, 0, 0, HPCSHARE_R, 0, 0 },
	{ 200, 2, 1, 8, 8, HPCSHARE_U, 0, 9 },
};

static void known_model(struct hpcshare *s)
{
	memset(s, 0, sizeof(*s));
	s->thread = 1;
	s->rank = -1;
	s->virtual_topology = 1;
	s->nodes = nodes;
	s->nnodes = 2;
	s->page_size = 4096;
	s->has_span = 1;
	s->span_begin = 50;
	s->span_end = 900;
	s->objs = objs;
	s->nobjs = 2;
	s->accesses = accesses;
	s->naccesses = 3;
	s->dropped = 3;
	s->untracked = 2;
}

static void write_model(struct textrec_out *o, const void *s)
{
	hpcshare_write(o, s);
}

static void known_records_exact_bytes(void)
{
	struct hpcshare s;
	char *got;

	known_model(&s);
	got = unit_written(path, write_model, &s);
	CHECK_STR(got,
		"hpcshare: 1\nthread 1\nrank -1\ntopology virtual 2\n"
		"node 0 0,2-3\nnode 1 1\npage-size 4096\nspan 50 900\n"
		"object 3 heap 0x7f0000001010 128 42\n"
		"object 1 static 0x601040 64 7\n"
		"watched 1\n"
		"access 100 1 3 48 8 w 1 55\n"
		"access 100 3 1 0 0 r 0 0\n"
		"access 200 2 1 8 8 u 0 9\n"
		"dropped 3\nuntracked 2\n");
	free(got);
	s.thread = -1;
	s.rank = 4;
	s.virtual_topology = 0;
	s.nnodes = s.nobjs = s.naccesses = 0;
	s.has_span = 0;
	s.dropped = s.untracked = 0;
	got = unit_written(path, write_model, &s);
	CHECK_STR(got, "hpcshare: 1\nrank 4\npage-size 4096\n"
		  "dropped 0\nuntracked 0\n");
	free(got);
}

/* One thread's file as hpcrun wrote it through the record writers:
 * the head, a node as its text, the object before its first access. */
struct runtime_file {
	const struct hpcshare *s;
	const char *cpulist;
	const struct hpcshare_object *obj;
	const struct hpcshare_access *a;
	int rw;			/* hpcrun's 'r', 'w', 'u' */
};

static void write_runtime_file(struct textrec_out *o, const void *x)
{
	const struct runtime_file *f = x;

	hpcshare_write_head(o, f->s, 1);
	hpcshare_write_node(o, 0, f->cpulist);
	hpcshare_write_pages(o, f->s);
	hpcshare_write_object(o, f->obj);
	hpcshare_write_access(o, f->a, f->obj);
	hpcshare_write_tail(o, f->s);
}

static void records_as_hpcrun_wrote_them(void)
{
	static const char *const lists[] = { "0-3,8", "0-0", "007", "1,2,3" };
	static const int rws[] = { 'r', 'w', 'u' };
	int i;

	for (i = 0; i < 2000; i++) {
		struct hpcshare s;
		struct hpcshare_object obj = {
			(uint32_t)unit_random(), (enum hpcshare_kind)(unit_random() % 2),
			unit_random(), unit_random(), (uint32_t)unit_random(), (int)(unit_random() % 2) };
		struct hpcshare_access a = {
			unit_random(), (uint32_t)unit_random(), 0, unit_random(), (uint8_t)(unit_random() % 65),
			0, (uint8_t)(unit_random() % 2), (uint32_t)unit_random() };
		struct runtime_file f = { &s, lists[i % 4], &obj, &a, rws[i % 3] };
		char old[2048], *got;
		size_t n = 0;

		memset(&s, 0, sizeof(s));
		s.thread = (long)(unit_random() % 1000);
		s.rank = (long)(unit_random() % 100) - 1;
		s.virtual_topology = (int)(unit_random() % 2);
		s.page_size = 4096;
		s.has_span = 1;
		s.span_begin = unit_random();
		s.span_end = unit_random();
		s.dropped = unit_random();
		s.untracked = unit_random() >> 9;
		a.rw = (uint8_t)(f.rw == 'w' ? HPCSHARE_W :
				 f.rw == 'u' ? HPCSHARE_U : HPCSHARE_R);
		/* sharing.c's format strings */
		n += (size_t)snprintf(old + n, sizeof(old) - n,
			"hpcshare: 1\nthread %d\nrank %ld\ntopology %s %d\n",
			(int)s.thread, s.rank,
			s.virtual_topology ? "virtual" : "real", 1);
		n += (size_t)snprintf(old + n, sizeof(old) - n, "node %d %s\n", 0,
				      f.cpulist);
		n += (size_t)snprintf(old + n, sizeof(old) - n,
			"page-size %lu\nspan %llu %llu\n", 4096ul,
			(unsigned long long)s.span_begin,
			(unsigned long long)s.span_end);
		n += (size_t)snprintf(old + n, sizeof(old) - n,
			"object %u %s 0x%llx %llu %u\n", obj.id,
			obj.kind ? "static" : "heap", (unsigned long long)obj.start,
			(unsigned long long)obj.bytes, obj.node);
		if (obj.watched)
			n += (size_t)snprintf(old + n, sizeof(old) - n,
					      "watched %u\n", obj.id);
		n += (size_t)snprintf(old + n, sizeof(old) - n,
			"access %llu %u %u %llu %u %c %u %u\n",
			(unsigned long long)a.time, a.cpu, obj.id,
			(unsigned long long)a.offset, a.size, f.rw, a.first,
			a.node);
		snprintf(old + n, sizeof(old) - n, "dropped %llu\nuntracked %llu\n",
			 (unsigned long long)s.dropped,
			 (unsigned long long)s.untracked);
		got = unit_written(path, write_runtime_file, &f);
		CHECK_STR(got, old);
		free(got);
	}
}

static void round_trip(void)
{
	struct hpcshare s, *back;
	char *first, *again;
	size_t i, k;

	known_model(&s);
	first = unit_written(path, write_model, &s);
	back = hpcshare_read(path);
	CHECK(back != NULL);
	if (!back) {
		free(first);
		return;
	}
	CHECK_INT(back->thread, 1);
	CHECK_INT(back->rank, -1);
	CHECK_INT(back->virtual_topology, 1);
	CHECK_INT(back->nnodes, 2);
	for (i = 0; i < back->nnodes && i < 2; i++) {
		CHECK_INT(back->nodes[i].nranges, nodes[i].nranges);
		for (k = 0; k < back->nodes[i].nranges && k < nodes[i].nranges; k++)
			CHECK(back->nodes[i].lo[k] == nodes[i].lo[k] &&
			      back->nodes[i].hi[k] == nodes[i].hi[k]);
	}
	CHECK_INT(back->page_size, 4096);
	CHECK(back->has_span && back->span_begin == 50 && back->span_end == 900);
	CHECK_INT(back->nobjs, 2);
	for (i = 0; i < back->nobjs && i < 2; i++) {
		const struct hpcshare_object *a = &back->objs[i], *b = &objs[i];

		CHECK(a->id == b->id && a->kind == b->kind &&
		      a->start == b->start && a->bytes == b->bytes &&
		      a->node == b->node && a->watched == b->watched);
	}
	CHECK_INT(back->naccesses, 3);
	for (i = 0; i < back->naccesses && i < 3; i++) {
		const struct hpcshare_access *a = &back->accesses[i],
					     *b = &accesses[i];

		CHECK(a->time == b->time && a->cpu == b->cpu &&
		      a->obj == b->obj && a->offset == b->offset &&
		      a->size == b->size && a->rw == b->rw &&
		      a->first == b->first && a->node == b->node);
	}
	CHECK_INT(back->dropped, 3);
	CHECK_INT(back->untracked, 2);
	again = unit_written(path, write_model, back);
	CHECK_STR(again, first);
	free(first);
	free(again);
	hpcshare_free(back);
}

int main(void)
{
	snprintf(path, sizeof(path), "u-hpcshare-write-%d.hpcshare", (int)getpid());
	unit_run("a known record set gives exact bytes", known_records_exact_bytes);
	unit_run("each record as hpcrun's format strings wrote it",
		 records_as_hpcrun_wrote_them);
	unit_run("read(write(x)) = x", round_trip);
	unlink(path);
	return unit_done();
}
