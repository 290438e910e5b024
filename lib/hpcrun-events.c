/*
 * hpcrun-events.c - the event table and spec parser (see hpcrun-events.h).
 * Async-signal-safe and allocation-free: linked into libhpcrun.so.
 */
#include <linux/perf_event.h>
#include <stddef.h>
#include <string.h>
#include <time.h>

#include "hpcrun-events.h"

#define HW(n, c, d, fb) { n, d, HPCRUN_EV_HW, PERF_TYPE_HARDWARE, c, fb }
#define SW(n, c, d) { n, d, HPCRUN_EV_SW, PERF_TYPE_SOFTWARE, c, NULL }

const struct hpcrun_event hpcrun_events[] = {
	HW("cycles", PERF_COUNT_HW_CPU_CYCLES, "PERF_COUNT_HW_CPU_CYCLES", "cpu-clock"),
	HW("instructions", PERF_COUNT_HW_INSTRUCTIONS, "PERF_COUNT_HW_INSTRUCTIONS", NULL),
	HW("cache-references", PERF_COUNT_HW_CACHE_REFERENCES,
	   "PERF_COUNT_HW_CACHE_REFERENCES", NULL),
	HW("cache-misses", PERF_COUNT_HW_CACHE_MISSES, "PERF_COUNT_HW_CACHE_MISSES", NULL),
	HW("branch-instructions", PERF_COUNT_HW_BRANCH_INSTRUCTIONS,
	   "PERF_COUNT_HW_BRANCH_INSTRUCTIONS", NULL),
	HW("branch-misses", PERF_COUNT_HW_BRANCH_MISSES, "PERF_COUNT_HW_BRANCH_MISSES", NULL),
	HW("bus-cycles", PERF_COUNT_HW_BUS_CYCLES, "PERF_COUNT_HW_BUS_CYCLES", "cpu-clock"),
	HW("ref-cycles", PERF_COUNT_HW_REF_CPU_CYCLES, "PERF_COUNT_HW_REF_CPU_CYCLES",
	   "cpu-clock"),
	HW("stalled-cycles-frontend", PERF_COUNT_HW_STALLED_CYCLES_FRONTEND,
	   "PERF_COUNT_HW_STALLED_CYCLES_FRONTEND", NULL),
	HW("stalled-cycles-backend", PERF_COUNT_HW_STALLED_CYCLES_BACKEND,
	   "PERF_COUNT_HW_STALLED_CYCLES_BACKEND", NULL),
	SW("cpu-clock", PERF_COUNT_SW_CPU_CLOCK, "PERF_COUNT_SW_CPU_CLOCK"),
	SW("task-clock", PERF_COUNT_SW_TASK_CLOCK, "PERF_COUNT_SW_TASK_CLOCK"),
	SW("page-faults", PERF_COUNT_SW_PAGE_FAULTS, "PERF_COUNT_SW_PAGE_FAULTS"),
	SW("minor-faults", PERF_COUNT_SW_PAGE_FAULTS_MIN, "PERF_COUNT_SW_PAGE_FAULTS_MIN"),
	SW("major-faults", PERF_COUNT_SW_PAGE_FAULTS_MAJ, "PERF_COUNT_SW_PAGE_FAULTS_MAJ"),
	SW("context-switches", PERF_COUNT_SW_CONTEXT_SWITCHES,
	   "PERF_COUNT_SW_CONTEXT_SWITCHES"),
	SW("cpu-migrations", PERF_COUNT_SW_CPU_MIGRATIONS, "PERF_COUNT_SW_CPU_MIGRATIONS"),
	SW("alignment-faults", PERF_COUNT_SW_ALIGNMENT_FAULTS,
	   "PERF_COUNT_SW_ALIGNMENT_FAULTS"),
	SW("emulation-faults", PERF_COUNT_SW_EMULATION_FAULTS,
	   "PERF_COUNT_SW_EMULATION_FAULTS"),
	{ "rNNNN", "PERF_TYPE_RAW", HPCRUN_EV_RAW, PERF_TYPE_RAW, 0, NULL },
	{ "CPUTIME", "CPUTIME (sec)", HPCRUN_EV_TIMER, CLOCK_THREAD_CPUTIME_ID, 0, NULL },
	{ "REALTIME", "REALTIME (sec)", HPCRUN_EV_TIMER, CLOCK_REALTIME, 0, NULL },
	{ NULL, NULL, HPCRUN_EV_SW, 0, 0, NULL },
};

const struct hpcrun_event *hpcrun_event_find(const char *name, int len)
{
	const struct hpcrun_event *e;

	for (e = hpcrun_events; e->name; e++)
		if ((int)strlen(e->name) == len && !memcmp(e->name, name, (size_t)len))
			return e;
	return NULL;
}

/* Parses digits (base 10, or 16 when hex) in [s, end); -1 when not a number. */
static int parse_u64(const char *s, const char *end, int hex, uint64_t *out)
{
	uint64_t v = 0;

	if (s == end || end - s > 18)
		return -1;
	for (; s < end; s++) {
		unsigned d;

		if (*s >= '0' && *s <= '9')
			d = (unsigned)(*s - '0');
		else if (hex && *s >= 'a' && *s <= 'f')
			d = (unsigned)(*s - 'a' + 10);
		else if (hex && *s >= 'A' && *s <= 'F')
			d = (unsigned)(*s - 'A' + 10);
		else
			return -1;
		v = v * (hex ? 16 : 10) + d;
	}
	*out = v;
	return 0;
}

int hpcrun_evspec_parse(const char *spec, struct hpcrun_evspec *out,
			const char **why)
{
	const char *at = strchr(spec, '@');
	const char *name_end = at ? at : spec + strlen(spec);

	memset(out, 0, sizeof(*out));
	if (spec[0] == 'r' && name_end - spec > 1 &&
	    !parse_u64(spec + 1, name_end, 1, &out->raw_config)) {
		out->ev = hpcrun_event_find("rNNNN", 5);
	} else {
		out->ev = hpcrun_event_find(spec, (int)(name_end - spec));
	}
	if (!out->ev) {
		*why = "unknown event (see 'hpcrun --list-events')";
		return -1;
	}
	if (!at) {
		if (out->ev->kind == HPCRUN_EV_TIMER)
			out->period = HPCRUN_DEFAULT_TIMER_US;
		else
			out->freq = HPCRUN_DEFAULT_FREQ;
		return 0;
	}
	at++;
	if (*at == 'f') {
		if (out->ev->kind == HPCRUN_EV_TIMER) {
			*why = "timer events take a period in microseconds, not @f";
			return -1;
		}
		if (parse_u64(at + 1, at + strlen(at), 0, &out->freq) ||
		    out->freq == 0 || out->freq > 100000) {
			*why = "bad frequency (want @f1 .. @f100000)";
			return -1;
		}
		return 0;
	}
	if (parse_u64(at, at + strlen(at), 0, &out->period) || out->period == 0) {
		*why = "bad period (want a positive integer)";
		return -1;
	}
	return 0;
}

int hpcrun_stack_copy_parse(const char *s, uint32_t *bytes, const char **why)
{
	uint64_t v;

	if (parse_u64(s, s + strlen(s), 0, &v) || v < HPCRUN_STACK_COPY_MIN ||
	    v > HPCRUN_STACK_COPY_MAX || v % 8) {
		*why = "want a multiple of 8 from 64 to 65528 bytes";
		return -1;
	}
	*bytes = (uint32_t)v;
	return 0;
}

int hpcrun_data_min_parse(const char *s, uint64_t *bytes, const char **why)
{
	uint64_t v;

	if (parse_u64(s, s + strlen(s), 0, &v) || v < 1 || v > ((uint64_t)1 << 40)) {
		*why = "want a number of bytes from 1 to 2^40";
		return -1;
	}
	*bytes = v;
	return 0;
}
