/* u-units.c - unit tests for lib/units.c, the one unit rule of hpcprof
 * --text and hpcviewer-tui. */
#include <string.h>

#include "strbuf.h"
#include "unit.h"
#include "units.h"

static void clocks_are_seconds(void)
{
	struct unit u;

	/* frequency mode: each value is nanoseconds */
	u = units_of("perf::cpu-clock:Sum (I)", "PERF_COUNT_SW_CPU_CLOCK", 1,
		     "derived-incr");
	CHECK_STR(u.name, "s");
	CHECK(u.scale == 1e-9);
	/* with a period: samples of 1 ms */
	u = units_of("perf::task-clock", "PERF_COUNT_SW_TASK_CLOCK", 1e6,
		     "raw");
	CHECK_STR(u.name, "s");
	CHECK(u.scale == 1e6 * 1e-9);
	/* no period recorded */
	u = units_of("perf::cpu-clock", "PERF_COUNT_SW_CPU_CLOCK", 0, NULL);
	CHECK(u.scale == 1e-9);
}

static void others_as_recorded(void)
{
	static const struct {
		const char *name, *desc, *valtype;
	} same[] = {
		{ "CPUTIME (sec)", "CPUTIME (sec)", "raw" },
		{ "perf::page-faults", "PERF_COUNT_SW_PAGE_FAULTS", "raw" },
		{ "perf::cpu-clock:CoefVar (I)", "PERF_COUNT_SW_CPU_CLOCK",
		  "final" },
		{ "ratio (I)", "PERF_COUNT_SW_CPU_CLOCK", "derived" },
		{ "perf::cpu-clock", NULL, "raw" },
	};
	size_t i;

	for (i = 0; i < sizeof(same) / sizeof(same[0]); i++) {
		struct unit u = units_of(same[i].name, same[i].desc, 1e6,
					 same[i].valtype);

		CHECK(u.name == NULL);
		CHECK(u.scale == 1);
	}
}

static void headings(void)
{
	static const struct {
		const char *name, *unit, *heading;
	} cases[] = {
		{ "perf::cpu-clock:Sum (I)", "s", "perf::cpu-clock (s):Sum (I)" },
		{ "perf::cpu-clock", "s", "perf::cpu-clock (s)" },
		{ "cpu clock", "s", "cpu clock (s)" },
		{ "CPUTIME (sec):Sum (I)", NULL, "CPUTIME (sec):Sum (I)" },
	};
	struct strbuf sb = STRBUF_INIT;
	size_t i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct unit u = { cases[i].unit, 1 };

		strbuf_reset(&sb);
		units_heading(cases[i].name, u, &sb);
		CHECK_STR(sb.buf, cases[i].heading);
	}
	strbuf_release(&sb);
}

int main(void)
{
	unit_run("perf clocks are seconds, scaled by their period", clocks_are_seconds);
	unit_run("timers, counts, ratios and derived metrics as recorded", others_as_recorded);
	unit_run("the unit goes before the statistic", headings);
	return unit_done();
}
