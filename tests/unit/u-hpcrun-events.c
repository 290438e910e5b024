/* u-hpcrun-events.c - unit tests for lib/hpcrun-events.c (event table, specs). */
#include <linux/perf_event.h>
#include <string.h>
#include <time.h>

#include "hpcrun-events.h"
#include "unit.h"

static void table_names_are_unique_and_fallbacks_exist(void)
{
	const struct hpcrun_event *e, *f;

	for (e = hpcrun_events; e->name; e++) {
		for (f = e + 1; f->name; f++)
			if (!strcmp(e->name, f->name))
				unit_fail(__FILE__, __LINE__, "'%s' twice", e->name);
		if (e->fallback && !hpcrun_event_find(e->fallback,
						      (int)strlen(e->fallback)))
			unit_fail(__FILE__, __LINE__, "'%s' falls back to unknown '%s'",
				  e->name, e->fallback);
	}
	CHECK_STR(hpcrun_event_find("cycles", 6)->fallback, "cpu-clock");
	CHECK(hpcrun_event_find("cycle", 5) == NULL);
	CHECK(hpcrun_event_find("cyclesX", 6) == hpcrun_event_find("cycles", 6));
}

static void defaults(void)
{
	struct hpcrun_evspec s;
	const char *why = NULL;

	CHECK_INT(hpcrun_evspec_parse("cpu-clock", &s, &why), 0);
	CHECK_INT(s.ev->type, PERF_TYPE_SOFTWARE);
	CHECK_INT(s.ev->config, PERF_COUNT_SW_CPU_CLOCK);
	CHECK_INT(s.period, 0);
	CHECK_INT(s.freq, HPCRUN_DEFAULT_FREQ);
	CHECK_INT(hpcrun_evspec_parse("CPUTIME", &s, &why), 0);
	CHECK_INT(s.ev->kind, HPCRUN_EV_TIMER);
	CHECK_INT(s.ev->type, CLOCK_THREAD_CPUTIME_ID);
	CHECK_INT(s.period, HPCRUN_DEFAULT_TIMER_US);
	CHECK_INT(s.freq, 0);
}

static void periods_frequencies_and_raw(void)
{
	struct hpcrun_evspec s;
	const char *why = NULL;

	CHECK_INT(hpcrun_evspec_parse("cycles@1000000", &s, &why), 0);
	CHECK_STR(s.ev->name, "cycles");
	CHECK_INT(s.period, 1000000);
	CHECK_INT(s.freq, 0);
	CHECK_INT(hpcrun_evspec_parse("page-faults@f2000", &s, &why), 0);
	CHECK_INT(s.ev->config, PERF_COUNT_SW_PAGE_FAULTS);
	CHECK_INT(s.freq, 2000);
	CHECK_INT(s.period, 0);
	CHECK_INT(hpcrun_evspec_parse("r01c2@5000", &s, &why), 0);
	CHECK_INT(s.ev->kind, HPCRUN_EV_RAW);
	CHECK_INT(s.raw_config, 0x1c2);
	CHECK_INT(s.period, 5000);
	CHECK_INT(hpcrun_evspec_parse("REALTIME@250", &s, &why), 0);
	CHECK_INT(s.period, 250);
}

static void bad_specs_say_why(void)
{
	struct hpcrun_evspec s;
	const char *why = NULL;

	CHECK_INT(hpcrun_evspec_parse("cpuclock", &s, &why), -1);
	CHECK_STR(why, "unknown event (see 'hpcrun --list-events')");
	CHECK_INT(hpcrun_evspec_parse("rxyz", &s, &why), -1);
	CHECK_STR(why, "unknown event (see 'hpcrun --list-events')");
	CHECK_INT(hpcrun_evspec_parse("cycles@", &s, &why), -1);
	CHECK_STR(why, "bad period (want a positive integer)");
	CHECK_INT(hpcrun_evspec_parse("cycles@0", &s, &why), -1);
	CHECK_INT(hpcrun_evspec_parse("cycles@12x", &s, &why), -1);
	CHECK_INT(hpcrun_evspec_parse("cycles@9999999999999999999", &s, &why), -1);
	CHECK_INT(hpcrun_evspec_parse("cycles@f0", &s, &why), -1);
	CHECK_STR(why, "bad frequency (want @f1 .. @f100000)");
	CHECK_INT(hpcrun_evspec_parse("cycles@f100001", &s, &why), -1);
	CHECK_INT(hpcrun_evspec_parse("cycles@f100000", &s, &why), 0);
	CHECK_INT(hpcrun_evspec_parse("CPUTIME@f100", &s, &why), -1);
	CHECK_STR(why, "timer events take a period in microseconds, not @f");
}

int main(void)
{
	unit_run("table: unique names, fallbacks exist", table_names_are_unique_and_fallbacks_exist);
	unit_run("defaults without @", defaults);
	unit_run("periods, frequencies and raw events", periods_frequencies_and_raw);
	unit_run("bad specifications say why", bad_specs_say_why);
	return unit_done();
}
