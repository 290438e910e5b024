/* u-hpcshare.c - unit tests for lib/hpcshare.c (.hpcshare files). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "error.h"
#include "hpcshare.h"
#include "unit.h"

static char path[64];

/* Writes text to a fresh file and reads it back; NULL when refused. */
static struct hpcshare *parse(const char *text)
{
	FILE *f;

	snprintf(path, sizeof(path), "u-hpcshare-%d.hpcshare", (int)getpid());
	f = fopen(path, "w");
	fputs(text, f);
	fclose(f);
	return hpcshare_read(path);
}

#define HEAD "hpcshare: 1\nthread 1\nrank -1\ntopology virtual 2\n" \
	     "node 0 0,2-3\nnode 1 1\npage-size 4096\nspan 50 900\n"

static void reads_every_record(void)
{
	struct hpcshare *s = parse(HEAD
		"# a comment\n"
		"object 3 heap 0x7f0000001010 128 42\n"
		"object 1 static 0x601040 64 7\n"
		"watched 1\n"
		"future 1 2 3\n"
		"access 100 1 3 48 8 w 1 55\n"
		"access 100 3 1 0 0 r 0 0\n"
		"access 200 2 1 8 8 u 0 9\n"
		"dropped 3\nuntracked 2\n");

	CHECK(s != NULL);
	if (!s)
		return;
	CHECK_INT(s->thread, 1);
	CHECK_INT(s->rank, -1);
	CHECK_INT(s->virtual_topology, 1);
	CHECK_INT(s->nnodes, 2);
	CHECK_INT(hpcshare_cpu_node(s, 0), 0);
	CHECK_INT(hpcshare_cpu_node(s, 1), 1);
	CHECK_INT(hpcshare_cpu_node(s, 3), 0);
	CHECK_INT(hpcshare_cpu_node(s, 4), -1);
	CHECK_INT(s->page_size, 4096);
	CHECK_INT(s->has_span, 1);
	CHECK_INT(s->span_begin, 50);
	CHECK_INT(s->span_end, 900);
	CHECK_INT(s->nobjs, 2);
	CHECK_INT(s->objs[0].start, 0x7f0000001010);
	CHECK_INT(s->objs[0].kind, HPCSHARE_HEAP);
	CHECK_INT(s->objs[1].kind, HPCSHARE_STATIC);
	CHECK_INT(s->objs[0].watched, 0);
	CHECK_INT(s->objs[1].watched, 1);
	CHECK_INT(s->naccesses, 3);
	CHECK_INT(s->accesses[0].obj, 0);
	CHECK_INT(s->accesses[0].offset, 48);
	CHECK_INT(s->accesses[0].rw, HPCSHARE_W);
	CHECK_INT(s->accesses[0].first, 1);
	CHECK_INT(s->accesses[0].node, 55);
	CHECK_INT(s->accesses[1].obj, 1);
	CHECK_INT(s->accesses[1].size, 0);
	CHECK_INT(s->accesses[2].rw, HPCSHARE_U);
	CHECK_INT(s->dropped, 3);
	CHECK_INT(s->untracked, 2);
	hpcshare_free(s);
}

/* text is refused with an error that contains want. */
static void refused(const char *text, const char *want)
{
	struct hpcshare *s = parse(text);

	CHECK(s == NULL);
	if (!s && !strstr(hpc_lasterr(), want))
		CHECK_STR(hpc_lasterr(), want);
	hpcshare_free(s);
}

static void refuses_malformed(void)
{
	refused("hpcsync: 1\n", "line 1: not a sharing file");
	refused("", "empty sharing file");
	refused(HEAD "object 1 heap 0x10 64 1", "no newline");
	refused(HEAD "access 1 0 1 0 8 r 0 0\n",
		"line 9: access names an object not declared before it");
	refused(HEAD "object 1 heap 0x10 64 1\naccess 1 0 1 64 8 r 0 0\n",
		"line 10: access offset beyond its object");
	refused(HEAD "object 1 heap 0x10 64 1\naccess 1 0 1 0 8 x 0 0\n",
		"RW is not r, w or u");
	refused(HEAD "object 1 heap 0x10 64 1\naccess 1 0 1 0 65 r 0 0\n",
		"size above 64");
	refused(HEAD "object 1 heap 0x10 64 1\naccess 5 0 1 0 8 r 0 0\n"
		"access 4 0 1 0 8 r 0 0\n", "line 11: access earlier");
	refused(HEAD "object 1 heap 0x10 64 1\nobject 1 heap 0x90 64 1\n",
		"defined twice");
	refused(HEAD "object 1 heap 0x10 64 1\nwatched 2\n", "unknown object");
	refused(HEAD "object 1 heap 0x10 64 1\nwatched\n", "watched wants OID");
	refused(HEAD "object 1 mmap 0x10 64 1\n", "not heap or static");
	refused(HEAD "object 0 heap 0x10 64 1\n", "id 0");
	refused(HEAD "object 1 heap 0x10 0 1\n", "0 bytes");
	refused(HEAD "object 1 heap 0x10 -5 1\n", "line 9: expected a number");
	refused("hpcshare: 1\ntopology virtual 2\nnode 0 0\n", "announces 2");
	refused("hpcshare: 1\ntopology virtual 2\nnode 0 0-1\nnode 1 1\n",
		"two NUMA nodes");
	refused("hpcshare: 1\ntopology virtual 1\nnode 0 3-1\n",
		"bad CPU range");
	refused("hpcshare: 1\ntopology virtual 1\nnode 0 1,,2\n",
		"CPU list");
	refused("hpcshare: 1\nnode 0 1\n", "node before topology");
	refused("hpcshare: 1\npage-size 3000\n", "power of two");
	refused("hpcshare: 1\n\n", "line 2: empty line");
	refused("hpcshare: 1\nsummary 1 2\n", "summary wants");
	refused("hpcshare: 1\nspan 9 8\n", "span ends before");
	refused("hpcshare: 1\nspan 9\n", "span wants");
}

static void path_beside_profile(void)
{
	char *p = hpcshare_path_for("d/prog-0.hpcrun");

	CHECK_STR(p, "d/prog-0.hpcshare");
	free(p);
}

int main(void)
{
	unit_run("reads every record", reads_every_record);
	unit_run("refuses malformed files in one line", refuses_malformed);
	unit_run("the path beside a profile", path_beside_profile);
	unlink(path);
	return unit_done();
}
