/*
 * model.h - an experiment database (experiment.xml, version 2.x) loaded into
 * a compact scope tree.  No presentation here: views.h builds the top-down,
 * bottom-up and flat trees from this model.
 *
 * Invariants:
 *  1. Scope 0 is the synthetic root ("Experiment Aggregate Metrics"); every
 *     other scope has a parent with a smaller index (pre-order numbering), so
 *     a forward loop over scopes visits parents before children.
 *  2. Children of a scope are linked first_child/next_sibling in document
 *     order; MODEL_NONE ends a list.
 *  3. Names, files and load modules are interned: scope fields hold indices
 *     into model->strs (0 is the empty string).  A scope without its own
 *     file or load module inherits its parent's.
 *  4. Metric values are sparse: scope s owns vals[s.val_start ..
 *     s.val_start + s.nval), each naming a metric index; absent = 0.
 *     A derived metric with a view formula has a value at every scope
 *     with values: the database's, else the formula over the scope's
 *     values (hpcprof writes derived metrics as formulas only).
 *     Values are held in the metric's shown unit (database value times
 *     metric.unit.scale, units.h): perf clocks in seconds, not nanoseconds.
 *  5. model->total[m] is the aggregate of metric m used for percentages:
 *     the data section's own <M> values when present, else for inclusive
 *     metrics the sum over top-level scopes, and for exclusive metrics the
 *     total of their inclusive partner (or the sum over procedure frames),
 *     per-phase profiles (invariant 8) left out.
 *  6. A procedure frame's name is bare: HPCToolkit names a shared
 *     library's procedures "NAME [LIBNAME]" (hpcstruct(5)), others do not,
 *     so the suffix is taken off when LIBNAME is the frame's module file
 *     (or a shared object's name), and the module is marked a library;
 *     hpcprof's names of code without a symbol ("<unknown> 0x1026
 *     [prog]", any module's) keep theirs and mark nothing.
 *     Modules whose file name is a shared object's ("libc.so.6",
 *     "libm-2.31.so") are libraries too; views add " [LIBNAME]" back.
 *  7. A data tree (hpcprof-database(5): the top-level PF whose Procedure
 *     has f="2", written after the code tree) is no child of the root:
 *     its scopes are data_root .. nscopes_all - 1, after the code scopes
 *     0 .. nscopes - 1, so every code view, which reads scopes below
 *     nscopes, is the one without it.  dataview.h reads it.
 *  8. A top-level procedure frame of load module "<phases>" is the root
 *     of a per-phase profile (hpcprof-database(5)): its samples are also
 *     in the code tree, so it and every scope below it have phase set and
 *     whatever sums over the whole tree (the totals, the bottom-up, flat
 *     and functions views, the source and code gutters, pictures) passes
 *     them over; the top-down view shows them as they are.
 *
 * Exclusive values follow HPCToolkit's convention: a frame's, loop's or
 * statement's exclusive value is its own cost rolled up over the static
 * structure inside it (not across calls).
 */
#ifndef HPCVIEWER_MODEL_H
#define HPCVIEWER_MODEL_H

#include <stddef.h>
#include <stdint.h>

#include "units.h"

struct formula;

#define MODEL_NONE UINT32_MAX

enum scope_kind {
	SK_ROOT,	/* synthetic root */
	SK_PROC,	/* PF, P, or Pr with a="0": a procedure (frame) */
	SK_INLINE,	/* Pr with a="1", or a named A: inlined code */
	SK_LOOP,	/* L */
	SK_STMT,	/* S */
	SK_CALL,	/* C: a call site */
	SK_FILE,	/* F (flat profiles) */
	SK_MODULE,	/* LM (flat profiles) */
	SK_ALIEN_SITE,	/* an unnamed A: the call site of inlined code */
	SK_DATA,	/* data tree: its root or a kind's group */
	SK_OBJ_HEAP,	/* data objects (dataview.h), by kind */
	SK_OBJ_STATIC,
	SK_OBJ_STACK,
	SK_OBJ_SMALL,
	SK_OBJ_UNKNOWN,
	SK_PHASES,	/* no scope: the top-down view's row over the
			 * per-phase profiles (views.h invariant 3) */
};

enum metric_type { MT_NIL, MT_INCLUSIVE, MT_EXCLUSIVE };

struct model_metric {
	char *name;		/* as in the database */
	char *id;		/* the Metric's i attribute */
	enum metric_type type;
	int partner;		/* metric index of the partner, or -1 */
	int show;		/* the DTD's show attribute (0-4) */
	int show_percent;
	int additive;		/* v="raw"/"derived-incr": sums over scopes */
	int percent;		/* a percentage: its formula (md) is
				 * "100 * ...", or its name has a "%" */
	struct unit unit;	/* shown unit; value held = database value *
				 * unit.scale (units.h) */
	struct formula *view;	/* a derived metric's MetricFormula
				 * t="view" when it names only additive
				 * metrics (model_derive), else NULL */
};

struct scope {
	uint32_t id;			/* the element's i attribute, 0 = none */
	uint32_t parent, first_child, next_sibling;
	uint32_t name, file, lm;	/* indices into strs */
	uint32_t line;			/* first line, 0 = unknown */
	uint32_t addr;			/* module-relative address (v: a
					 * frame's entry, a statement's first
					 * sampled address), 0 = unknown or
					 * past 4 GiB */
	uint32_t val_start;
	uint16_t nval;
	uint8_t kind;			/* enum scope_kind */
	uint8_t phase;			/* in a per-phase profile (inv. 8) */
};

struct scope_val {
	uint32_t metric;
	double v;
};

struct model {
	char *dbdir;		/* the directory holding experiment.xml */
	char *title;		/* Header n */
	struct model_metric *metrics;
	size_t nmetrics;
	double *total;		/* [nmetrics] */
	struct scope *scopes;
	size_t nscopes, scopes_alloc;	/* nscopes: the code scopes */
	size_t nscopes_all;		/* code and data scopes (invariant 7) */
	uint32_t data_root;		/* MODEL_NONE: no data tree */
	int data_attr[7];		/* dataview.h: metric index of DATA:bytes,
					 * blocks, offset-lo, offset-hi, threads,
					 * sharing, remote%; -1 when absent */
	struct scope_val *vals;
	size_t nvals, vals_alloc;
	char **strs;
	size_t nstrs, strs_alloc;
	struct hmap *str_index;
	unsigned char *lm_library;	/* [nlm_library]: invariant 6 */
	size_t nlm_library;
};

/*
 * Loads PATH (a database directory or its experiment.xml).  Returns NULL
 * with hpc_lasterr() set ("'PATH': what is wrong") when the input is
 * missing, malformed, truncated or not a version 2.x experiment.
 * Free with model_free().
 */
struct model *model_load(const char *path);
void model_free(struct model *m);

/*
 * The value of derived metric met (its view formula, struct model_metric)
 * over vals[0 .. nmetrics), the metric values of a row that sums scopes
 * (a bottom-up or flat row, in shown units): a share of the summed counts,
 * not a sum of shares.  0 when the formula divides by zero; met must have
 * a view formula.
 */
double model_derive(const struct model *m, size_t met, const double *vals);

/* The value of metric met at scope s (0 when absent). */
double model_value(const struct model *m, uint32_t s, size_t met);

/* The string for an interned index; never NULL. */
static inline const char *model_str(const struct model *m, uint32_t i)
{
	return m->strs[i];
}

/* Is scope s a procedure frame (a node that starts a new call)? */
int model_is_frame(const struct model *m, uint32_t s);

/* The nearest proper ancestor of s that is a frame, or MODEL_NONE. */
uint32_t model_caller_frame(const struct model *m, uint32_t s);

/*
 * Per-thread values of metric met at scope s, read from DBDIR/threads.tsv
 * and DBDIR/thread-values.tsv (hpcprof-database(5); the root is node 1, met
 * must be a column those files list, a Sum column).  Returns the number of
 * threads and a malloc'ed array of their values in *out (caller frees;
 * threads without a line are 0), 0 when the database has no per-thread
 * data, or -1 with hpc_lasterr() set when a file is malformed.
 */
int model_thread_values(const struct model *m, uint32_t s, size_t met,
			double **out);
/* The same, summed over the ns scopes s[] (each counted once). */
int model_thread_sum(const struct model *m, const uint32_t *s, size_t ns,
		     size_t met, double **out);
struct strbuf;
/* Appends thread t's identity from DBDIR/threads.tsv: "ring, process
 * 27541, rank 1, thread 3" from its program, process, rank and thread-id
 * columns (those known), or its identity tuple ("NODE=0 CORE=0 THREAD=3")
 * when the file has no such columns.  Returns 0, or -1 when there is no
 * line for t. */
int model_thread_name(const struct model *m, size_t thread,
		      struct strbuf *out);

/* Is load module lm (an interned index) a library (invariant 6)? */
int model_lm_is_library(const struct model *m, uint32_t lm);

#endif
