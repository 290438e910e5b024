/*
 * hpcrun-events.h - the events hpcrun can sample, and the parser of
 * "EVENT[@PERIOD|@fFREQ]" specifications.
 *
 * Shared by the launcher (validation, --list-events) and the runtime
 * (linked into libhpcrun.so, so this module is async-signal-safe: no
 * malloc, no stdio, no locale; it only reads the static table).
 *
 * Invariants: every entry has a unique name; the table ends with an entry
 * whose name is NULL.  A parsed spec points into the table, never copies.
 */
#ifndef HPC_HPCRUN_EVENTS_H
#define HPC_HPCRUN_EVENTS_H

#include <stdint.h>

enum hpcrun_evkind {
	HPCRUN_EV_HW,		/* perf hardware event (PMU) */
	HPCRUN_EV_SW,		/* perf software event (always in the kernel) */
	HPCRUN_EV_RAW,		/* perf raw PMU event rNNNN */
	HPCRUN_EV_TIMER,	/* POSIX per-thread timer (CPUTIME, REALTIME) */
};

struct hpcrun_event {
	const char *name;	/* as the user spells it: "cpu-clock" */
	const char *desc;	/* the kernel's constant: "PERF_COUNT_SW_CPU_CLOCK" */
	enum hpcrun_evkind kind;
	uint32_t type;		/* perf_event_attr.type (timers: clockid) */
	uint64_t config;	/* perf_event_attr.config */
	const char *fallback;	/* event used when this one is unavailable */
};

/* Default sampling rate of perf events without @: 1000 samples/s. */
#define HPCRUN_DEFAULT_FREQ 1000
/* Default period of timer events, in microseconds (the tick is 4 ms here). */
#define HPCRUN_DEFAULT_TIMER_US 4000
/* The event sampled when no -e is given (falls back to CPUTIME). */
#define HPCRUN_DEFAULT_EVENT "cpu-clock"
/* At most this many events at once (each its own metric). */
#define HPCRUN_MAX_EVENTS 8

/* Bytes of user stack the kernel copies at each sample taken through a
 * ring buffer (hpcrun(1), "How samples are taken"): the default, and what
 * --stack-copy may ask for (multiples of 8; the kernel's limit is below
 * 64 KiB). */
#define HPCRUN_STACK_COPY 8192
#define HPCRUN_STACK_COPY_MIN 64
#define HPCRUN_STACK_COPY_MAX 65528

/* A parsed "NAME[@PERIOD|@fFREQ]". */
struct hpcrun_evspec {
	const struct hpcrun_event *ev;	/* points into the static table */
	uint64_t raw_config;		/* for rNNNN */
	uint64_t period;		/* events per sample (timers: us); 0 = freq */
	uint64_t freq;			/* samples per second when period == 0 */
};

/* The table, terminated by an entry with a NULL name. */
extern const struct hpcrun_event hpcrun_events[];

/* The table entry named name (exact, case-sensitive), or NULL. */
const struct hpcrun_event *hpcrun_event_find(const char *name, int len);

/*
 * Parses spec ("cycles@1000000", "cpu-clock@f2000", "CPUTIME@5000",
 * "r01c2").  Fills *out with defaults where nothing is given.  Returns 0, or
 * -1 with *why pointing at a static reason ("unknown event", "bad period").
 */
int hpcrun_evspec_parse(const char *spec, struct hpcrun_evspec *out,
			const char **why);

/*
 * Parses a --stack-copy size in bytes (decimal).  Returns 0, or -1 with
 * *why pointing at a static reason.
 */
int hpcrun_stack_copy_parse(const char *s, uint32_t *bytes, const char **why);

/*
 * Parses a --data-min-bytes size (decimal, 1 .. 2^40; HPCRUN_DATA carries
 * it to the runtime).  Returns 0, or -1 with *why pointing at a static
 * reason.
 */
#define HPCRUN_DATA_MIN_BYTES 1024
int hpcrun_data_min_parse(const char *s, uint64_t *bytes, const char **why);

#endif
