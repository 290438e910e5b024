/* u-syncview-hpcsync.c - unit tests for lib/hpcsync.c (.hpcsync files). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "error.h"
#include "hpcsync.h"
#include "unit.h"

static char path[64];

/* Writes text to a fresh file and reads it back; NULL when refused. */
static struct hpcsync *parse(const char *text)
{
	FILE *f;

	snprintf(path, sizeof(path), "u-syncview-%d.hpcsync", (int)getpid());
	f = fopen(path, "w");
	fputs(text, f);
	fclose(f);
	return hpcsync_read(path);
}

static void reads_every_record(void)
{
	struct hpcsync *s = parse(
		"hpcsync: 1\nthread: 3\nrank: 1\n"
		"site 1 barrier 0x7f00 6 4\n"
		"site 2 cond 0x10 9 0\n"
		"sync 1 10 0.5 0.01 2 1,2,3,4\n"
		"lock 2 7 7 0.125\n"
		"phase 0 1 1 0.1 0.2\n"
		"future-record 1 2 3\n"
		"episode 1 0 1000 3000 2000 0 100 150\n"
		"episodes: 1 10\n");

	CHECK(s != NULL);
	if (!s)
		return;
	CHECK_INT(s->thread, 3);
	CHECK_INT(s->rank, 1);
	CHECK_INT(s->nsites, 2);
	CHECK_INT(s->sites[0].kind, HPCSYNC_BARRIER);
	CHECK_INT(s->sites[0].object, 0x7f00);
	CHECK_INT(s->sites[1].node, 9);
	CHECK_INT(s->nsyncs, 1);
	CHECK_INT(s->syncs[0].norders, 4);
	CHECK_INT(s->syncs[0].orders[3], 4);
	CHECK(s->syncs[0].wait == 0.5);
	CHECK_INT(s->locks[0].blocked, 7);
	CHECK(s->locks[0].wait == 0.125);
	CHECK_INT(s->phases[0].start, 0);
	CHECK(s->phases[0].wall == 0.2);
	CHECK_INT(s->nepisodes, 1);
	CHECK_INT(s->episodes[0].lastarr, 2000);
	CHECK_INT(s->kept, 1);
	CHECK_INT(s->total, 10);
	CHECK(hpcsync_site(s, 2) == &s->sites[1]);
	CHECK(hpcsync_site(s, 5) == NULL);
	CHECK_STR(hpcsync_kind_function(s->sites[1].kind), "pthread_cond_wait");
	hpcsync_free(s);
	unlink(path);
}

/* Each bad input is refused with one line naming the file and the line. */
static void refuses(const char *text, const char *what)
{
	struct hpcsync *s = parse(text);

	CHECK(s == NULL);
	if (s) {
		hpcsync_free(s);
		return;
	}
	CHECK(strstr(hpc_lasterr(), path) != NULL);
	if (!strstr(hpc_lasterr(), what))
		unit_fail(__FILE__, __LINE__, "'%s' lacks '%s'", hpc_lasterr(),
			  what);
	CHECK(strchr(hpc_lasterr(), '\n') == NULL);
	unlink(path);
}

static void refuses_bad_files(void)
{
	refuses("", "empty");
	refuses("hpcrun-hang: 1\n", "line 1: not a synchronization file");
	refuses("hpcsync: 1\nsync 4 1 0 0 0 1\n", "line 2: sync names unknown site 4");
	refuses("hpcsync: 1\nsite 1 spinlock 0x1 0 2\n", "unknown site kind");
	refuses("hpcsync: 1\nsite 1 barrier 0x1 0 2\nsite 1 barrier 0x1 0 2\n",
		"defined twice");
	refuses("hpcsync: 1\nsite 1 barrier 0x1 0 2\nsync 1 1 -1 0 0 1\n",
		"expected seconds");
	refuses("hpcsync: 1\nsite 1 barrier 0x1 0 2\nsync 1 1 nan 0 0 1\n",
		"expected seconds");
	refuses("hpcsync: 1\nsite 1 mutex 0x1 0 0\nsync 1 1 0 0 0 1\n",
		"lock site");
	refuses("hpcsync: 1\nsite 1 barrier 0x1 0 2\nlock 1 1 1 0\n",
		"barrier site");
	refuses("hpcsync: 1\nsite 1 barrier 0x1 0 2\nepisode 1 0 9 5 0 0 0 0\n",
		"departure before arrival");
	refuses("hpcsync: 1\nsite 1 barrier 0x1 0 2\nepisodes: 3 10\n",
		"KEPT differs");
	refuses("hpcsync: 1\nthread: 1", "truncated");
	refuses("hpcsync: 1\nsite 0 barrier 0x1 0 2\n", "reserved");
	refuses("hpcsync: 1\nsite 1 barrier 0x1 99999999999 2\n", "out of range");
	refuses("hpcsync: 1\nphase 0 0 1 0 0\n", "unknown site 0");
}

static void refuses_too_many_orders(void)
{
	char text[1024];
	int i, n;

	n = snprintf(text, sizeof(text),
		     "hpcsync: 1\nsite 1 barrier 0x1 0 2\nsync 1 1 0 0 0 ");
	for (i = 0; i < 65; i++)
		n += snprintf(text + n, sizeof(text) - (size_t)n, "%s1",
			      i ? "," : "");
	snprintf(text + n, sizeof(text) - (size_t)n, "\n");
	refuses(text, "more than 64");
}

static void path_beside_profile(void)
{
	char *p = hpcsync_path_for("d/prog-0.hpcrun");

	CHECK_STR(p, "d/prog-0.hpcsync");
	free(p);
}

int main(void)
{
	unit_run("reads every record, skips unknown ones", reads_every_record);
	unit_run("refuses bad files in one line naming them", refuses_bad_files);
	unit_run("refuses more than 64 arrival orders", refuses_too_many_orders);
	unit_run("the file beside a profile", path_beside_profile);
	return unit_done();
}
