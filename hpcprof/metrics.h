/*
 * metrics.h - raw metrics, their per-scope accumulators, summary statistics
 * over threads, and the metric columns of the database.
 *
 * Raw metrics are registered (by name) before any value is accumulated, so
 * every accumulator has the same layout: for each raw metric m and each of
 * inclusive (0) / exclusive (1), the running sum, sum of squares, minimum,
 * maximum and count over the threads that had a non-zero value (a
 * thread's own values are summed apart, experiment.c, and folded in when it
 * ends).  A thread that never touched a scope counts as 0 there
 * (so the minimum is 0 and the mean divides by all threads).
 *
 * Columns: for every raw metric, Sum, Mean, Min, Max, StdDev and CoefVar,
 * each inclusive then exclusive (partners); then every derived metric,
 * inclusive then exclusive.  A column's id is its index.  The database
 * stores the statistics (Mean to CoefVar) only when asked (stats,
 * hpcprof --stats): they follow from the per-thread values it always
 * stores (thread-values.tsv), and are most of its bytes otherwise; the
 * other columns keep their ids either way.  A column is
 * named for its metric's display name (a configuration's displayName)
 * when it has one: "cpu clock (I)", "cpu clock:Mean (I)"; else
 * "cpu:Sum (I)" (HPCToolkit's names) and, for derived metrics, "cpi (I)".
 */
#ifndef HPCPROF_METRICS_H
#define HPCPROF_METRICS_H

#include <stddef.h>
#include <stdint.h>

struct formula;

struct raw_metric {
	char *name;
	char *display;		/* column heading, or NULL: the name */
	char *description;
	int integer;		/* values were integers in the profile */
	uint64_t nsamples;	/* summed over profiles */
	uint64_t period;
	size_t nthreads;	/* profiles that have this metric */
	int hidden;		/* all its columns start hidden (show="0") */
};

enum mstat {
	STAT_SUM, STAT_MEAN, STAT_MIN, STAT_MAX, STAT_STDDEV, STAT_CV,
	NSTATS
};

struct derived_metric {
	char *name;
	char *display;		/* column heading, or NULL: the name */
	char *text;		/* the formula as the user wrote it */
	struct formula *f;
	int show, percent;
};

struct accum {
	size_t n;		/* 2 * number of raw metrics */
	/* [2 * m + ie]: sum, sumsq, min, max, count */
	double v[][5];
};

struct metrics {
	struct raw_metric *raw;		size_t nraw, raw_alloc;
	struct derived_metric *derived;	size_t nderived, derived_alloc;
	struct hmap *byname;		/* raw name -> index + 1 */
	size_t nthreads;
	int stats;			/* store the statistics columns */
	/* raw -> its first instruction-mix metric, or -1 (mix.h) */
	long *mix;			size_t nmix;
};

void metrics_init(struct metrics *m);
void metrics_release(struct metrics *m);

/* Index of the raw metric name, registering it when new. */
size_t metrics_raw(struct metrics *m, const char *name,
		   const char *description, int integer);
/* Sets the display name of raw metric i, unless it has one. */
void metrics_set_display(struct metrics *m, size_t i, const char *display);
/* The display name of raw metric i, or its name. */
const char *metrics_raw_label(const struct metrics *m, size_t i);
/* Index of the raw metric name, or -1. */
long metrics_find(const struct metrics *m, const char *name);

/* A zeroed accumulator for the registered raw metrics. */
struct accum *accum_new(const struct metrics *m);

/* Folds one thread's value x of (metric, ie) = (k / 2, k % 2) into the
 * statistics. */
void accum_fold_value(struct accum *a, size_t k, double x);

/* Number of columns (see the header comment). */
size_t metrics_ncolumns(const struct metrics *m);
/* Number of raw metric columns, the first ones: those of the derived
 * metrics follow. */
size_t metrics_nraw_columns(const struct metrics *m);
/* Name of column c, e.g. "cycles:Sum (I)" (see above); caller frees. */
char *metrics_column_name(const struct metrics *m, size_t c);
/* Column of (raw metric, stat, ie). */
size_t metrics_column(const struct metrics *m, size_t raw, enum mstat s,
		      int ie);
/* Does the database store column c (see above)? */
int metrics_column_stored(const struct metrics *m, size_t c);
/* For a column: raw metric (or -1 if derived), stat, ie, derived index. */
void metrics_column_info(const struct metrics *m, size_t c, long *raw,
			 enum mstat *s, int *ie, long *derived);

/*
 * Value of column c at a scope with accumulator a (NULL = all zero).
 * Returns 1 and sets *out when the scope has a value (non-zero and
 * finite), else 0.
 */
int metrics_value(const struct metrics *m, const struct accum *a, size_t c,
		  double *out);

/*
 * Is x a value whose sums are exact in any order: a non-negative integer
 * below 2^53 (not -0, NaN or infinite)?  Sums of such values are exact
 * while they stay below 2^53 (accum_add).
 */
int accum_exact_value(double x);
/*
 * Adds the values folded into src to dst, setting over[k] for each
 * (metric, ie) k = 2 * metric + ie whose sum (or, with stats, sum of
 * squares) reaches 2^53.  Where it stays below and every value folded
 * into either was one of accum_exact_value's, dst is bit for bit what
 * folding every value one by one into it gives, in any order.
 */
void accum_add(struct accum *dst, const struct accum *src, int stats,
	       uint8_t *over);

/* 1 when no thread's value was folded into a (accum_fold_value). */
int accum_empty(const struct accum *a);

/* Sum over threads of (raw, ie) at a; 0 when a is NULL. */
double accum_sum(const struct accum *a, size_t raw, int ie);

#endif
