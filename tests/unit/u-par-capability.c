/*
 * u-par-capability.c - unit tests for hpcprof's capability table
 * (hpcprof/capability.h): each entry's hooks come in the pairs the hub relies
 * on, and the per-thread driver drops side files and says what a thread
 * said as hpcprof/capability.h, invariants 3 and 4, require.
 */
#include <stdlib.h>
#include <string.h>

#include "capability.h"
#include "error.h"
#include "experiment.h"
#include "hpcshare.h"
#include "hpcsync.h"
#include "unit.h"

/* The hub frees what it made, through the capability that made it. */
static void hooks_come_in_pairs(void)
{
	static const char *const names[NCAPS] = {
		[CAP_MIX] = "mix", [CAP_PHASES] = "phases",
		[CAP_DATA] = "data", [CAP_SHARING] = "sharing",
		[CAP_TRACE] = "trace", [CAP_PYTHON] = "python",
	};
	size_t c;

	for (c = 0; c < NCAPS; c++) {
		const struct prof_capability *cap = prof_capabilities[c];

		CHECK(cap != NULL);
		CHECK_STR(cap->name, names[c]);
		if (cap->read)
			CHECK(cap->side_free && cap->ignored);
		if (cap->new || cap->new_worker)
			CHECK(cap->free != NULL);
		CHECK(!cap->wire_write == !cap->wire_read);
		CHECK(!cap->thread_columns == !cap->columns);
		if (cap->merge_begin)
			CHECK(cap->merge != NULL);
	}
}

/* A profile that cannot be read again drops every side file. */
static void unreadable_profile_drops_side_files(void)
{
	struct experiment *e = experiment_new();
	void *side[NCAPS] = { NULL };
	struct prof_input in = { "/nonexistent/p.hpcrun", NULL, side, "h:1" };
	struct prof_said said = { 0 };

	side[CAP_PHASES] = xcalloc(1, sizeof(struct hpcsync));
	side[CAP_SHARING] = xcalloc(1, sizeof(struct hpcshare));
	prof_thread_add(e, 0, &in, &said);
	CHECK(said.err != NULL);
	CHECK_INT(said.nsaid, 0);
	CHECK_INT(said.failed, 1);
	CHECK_INT(e->nthreads, 0);
	CHECK_INT(prof_thread_say(&said, side), 1);
	CHECK(side[CAP_PHASES] == NULL);
	CHECK(side[CAP_SHARING] == NULL);
	CHECK(said.err == NULL);
	experiment_free(e);
}

/* Only the side files a hook dropped are freed; a message that does not
 * fail the thread leaves the exit status alone. */
static void say_drops_only_what_was_dropped(void)
{
	void *side[NCAPS] = { NULL };
	struct prof_said said = { 0 };

	side[CAP_PHASES] = xcalloc(1, sizeof(struct hpcsync));
	side[CAP_SHARING] = xcalloc(1, sizeof(struct hpcshare));
	said.said[said.nsaid++] = xstrdup("'p': data-centric tree: x");
	CHECK_INT(prof_thread_say(&said, side), 0);
	CHECK(side[CAP_PHASES] != NULL && side[CAP_SHARING] != NULL);
	said.said[said.nsaid++] = xstrdup("p.hpcsync: bad; ignored");
	said.drop = 1u << CAP_PHASES;
	said.failed = 1;
	CHECK_INT(prof_thread_say(&said, side), 1);
	CHECK(side[CAP_PHASES] == NULL);
	CHECK(side[CAP_SHARING] != NULL);
	CHECK_INT(said.nsaid, 0);
	prof_capabilities[CAP_SHARING]->side_free(side[CAP_SHARING]);
}

int main(void)
{
	unit_run("each capability's hooks come in pairs", hooks_come_in_pairs);
	unit_run("an unreadable profile drops every side file",
		 unreadable_profile_drops_side_files);
	unit_run("saying frees only the side files dropped",
		 say_drops_only_what_was_dropped);
	return unit_done();
}
