/*
 * views.h - the top-down, bottom-up and flat trees built from a model, and
 * the operations on them (sort, expand, hot path, find, zoom, flatten,
 * derived columns).  The screen (tui.c) and the text output (stdio.c) both
 * draw browser_rows(), so they show the very same rows.
 *
 * Invariants:
 *  1. A view is a tree of vnodes; vnode 0 is the root ("Experiment
 *     Aggregate Metrics") whose values are the model totals.  Children are
 *     built on first use (top-down and bottom-up lazily, flat at creation),
 *     and sorted by the browser's sort column before they are returned.
 *  2. A vnode holds one value per model metric (vnode_vals); columns are
 *     either a metric or a derived formula over other columns, evaluated on
 *     demand, so hiding or adding columns never rebuilds a tree.
 *  3. Top-down nodes are the model's scopes, but for one row: the
 *     per-phase profiles (model.h invariant 8) count the program's samples
 *     again, by phase, so they are the children of one row of kind
 *     SK_PHASES, last among the root's children whatever the sort, that
 *     holds no value and no percentage; the root's other children add up to its values, as
 *     in any calling-context tree, and the phases' rows keep their values
 *     (and percentages of the whole program's).  Bottom-up: level 1 holds each
 *     procedure (inclusive values not double-counted under recursion,
 *     exclusive summed), deeper levels the calling procedures, each with the
 *     cost of the callee instances reached through that caller; a caller
 *     already on the path is passed over (recursion folded), so no path
 *     repeats a procedure.  Flat: load
 *     module > file > procedure > inlined/loop > line, with the same rules.
 *     Only additive metrics (v="raw"/"derived-incr") are summed into
 *     bottom-up and flat nodes; statistics such as Min or StdDev across
 *     threads are not sums of their parts, so those cells stay empty there.
 *     Derived metrics with a view formula over additive metrics (an
 *     instruction-mix share, 100 * {M.fp} / {M}) are computed from the
 *     node's sums (model_derive), not summed.
 *     Bottom-up and functions: each procedure labelled with its module
 *     ("memcpy [libc.so.6]", "main [app]"; in the other views only a
 *     library's procedures are), so a procedure reads the same in both;
 *     but a Python procedure ("prog.py:12 fib"), whose name says its
 *     file, is never labelled with its pseudo module, [python].
 *     Functions: the bottom-up tree, meant to be sorted by an exclusive column
 *     (browser_sort_exclusive): which procedures take the time.
 *     Data (dataview.h): the data objects at level 1, each with its
 *     accessing contexts below, built as the top-down view is.
 *  4. Percentages are relative to the root value of the column, whatever
 *     the zoom.
 *  5. A view opens expanded far enough to show the hottest procedures:
 *     top-down along the hot path (VIEW_OPEN_HOT), flat down to the
 *     procedures of the hottest module's hottest file; bottom-up and
 *     functions list every procedure at level 1.
 */
#ifndef HPCVIEWER_VIEWS_H
#define HPCVIEWER_VIEWS_H

#include <stddef.h>
#include <stdint.h>

#include "model.h"
#include "strbuf.h"

#define VNONE UINT32_MAX
/* The share of its parent's value a child needs for the top-down view to
 * open down to it (invariant 5). */
#define VIEW_OPEN_HOT 0.5

enum view_kind {
	VIEW_TOP_DOWN, VIEW_BOTTOM_UP, VIEW_FLAT, VIEW_FUNCTIONS, VIEW_DATA,
	VIEW_COUNT
};

struct formula;

struct column {
	char *name;		/* header: the metric's name as the database
				 * gives it (its display name), the unit
				 * before the statistic, and (I)/(E) added
				 * only where two metrics share a name */
	int metric;		/* model metric index, or -1 for a derived one */
	struct formula *f;	/* derived columns only */
	int hidden;
	int show_percent;
};

struct vnode {
	uint32_t parent;
	uint32_t *children;
	uint32_t nchildren;
	uint32_t scope;		/* a model scope it stands for, or MODEL_NONE */
	uint32_t name, file, line;
	uint32_t inst_start, ninst;	/* bottom-up instances */
	uint32_t sort_gen;
	uint8_t kind;		/* enum scope_kind */
	uint8_t built, expanded;
};

struct row {
	uint32_t node;
	uint32_t depth;
};

struct view {
	struct browser *b;
	enum view_kind kind;
	struct vnode *nodes;
	size_t nnodes, nodes_alloc;
	double *vals;		/* nnodes * nmetrics */
	size_t vals_alloc;
	struct bu_inst *inst;	/* bottom-up instances */
	size_t ninst, inst_alloc;
	struct bu_state *bu;	/* bottom-up procedure ids and stamps */
	uint32_t *zoom;		/* zoom stack; the top is the display root */
	size_t nzoom, zoom_alloc;
	int flatten;		/* flat view: levels flattened */
	uint32_t *flat_top;	/* children of the display root when flattened */
	uint32_t *flat_of;	/* flat view: the node of each model scope */
	size_t nflat_top, flat_top_alloc;
	struct row *rows;
	size_t nrows, rows_alloc;
	size_t sel, top;	/* selected row, first row on screen (tui) */
};

struct browser {
	struct model *m;
	struct column *cols;
	size_t ncols;
	size_t sort_col;
	int sort_ascending;
	uint32_t sort_gen;
	struct view *views[VIEW_COUNT];
};

/* A browser over m (not owned) with the visible metrics as columns, sorted
 * by the first column.  Free with browser_free(). */
struct browser *browser_new(struct model *m);
void browser_free(struct browser *b);

/* The view of this kind, created on first use. */
struct view *browser_view(struct browser *b, enum view_kind kind);

/* Sort by column c (descending unless ascending). */
void browser_sort(struct browser *b, size_t c, int ascending);

/*
 * The column a user's metric name stands for: an exact heading, metric
 * name or id; else, ignoring case, the columns whose heading or metric
 * name contains NAME, narrowed by a trailing "I"/"E" ("(I)", "(E)",
 * "inclusive", "exclusive"; alone it means the first such column), and
 * the first of them in table order when they are statistics of one
 * metric ("cpu-clock" is "perf::cpu-clock:Sum (I)").  Returns the column,
 * or -1 with hpc_lasterr() set: "'NAME': no such metric (A, B, ...)" or
 * "'NAME': ambiguous metric (A, B, ...)", listing the columns.
 */
int browser_find_column(struct browser *b, const char *name);
/*
 * The columns text and the screen show unless asked for others: the first
 * column the database shows and its inclusive or exclusive partner (the
 * sampled metric's sums: the time of perf's cpu-clock or CPUTIME, as
 * hpcprof writes it first).  Every other column is hidden; the sort
 * column moves to the first shown one when it is hidden.
 */
void browser_show_default(struct browser *b);
/*
 * Shows the columns of LIST, names separated by commas as
 * browser_find_column() takes them, and hides the others; "all" shows
 * every column the database does not hide (show="0").  The sort column
 * moves to the first shown one when it is hidden.  Returns 0, or -1 with
 * hpc_lasterr() set for a name that is no column or an empty list.
 */
int browser_show_columns(struct browser *b, const char *list);
/* Sorts descending by the exclusive partner of the sort column's metric,
 * else by the first shown exclusive column; -1 when there is none. */
int browser_sort_exclusive(struct browser *b);

/* Adds a derived column "name = formula" (formula over column names in
 * double quotes, $N for column N counted from 1, numbers, + - * / and
 * parentheses).  Returns 0, or -1 with hpc_lasterr() set. */
int browser_add_derived(struct browser *b, const char *name, const char *formula);

/* Children of node n, built and sorted; valid until the next call that
 * builds nodes. */
const uint32_t *view_children(struct view *v, uint32_t n, uint32_t *count);
/* Does node n have children (builds them)? */
int view_has_children(struct view *v, uint32_t n);
double view_value(struct view *v, uint32_t n, size_t col);
/* The value of model metric met at node n (invariant 2). */
double view_metric_value(struct view *v, uint32_t n, size_t met);
/* Percentage of the column's total, or a negative number when none (no
 * total, or the per-phase profiles' row of invariant 3). */
double view_percent(struct view *v, uint32_t n, size_t col);
/* The row text: "loop at f.c:12", "main", ..., and for code without a
 * line its module and address: "loop at libfoo.so.1+0x1234". */
void view_label(struct view *v, uint32_t n, struct strbuf *out);
/* The label node n of a top-down view would have, for model scope s,
 * without building the node (as view_label; s must not be 0). */
void view_scope_label(struct view *v, uint32_t s, struct strbuf *out);
/* The top-down node of model code scope s (s > 0), building the path to
 * it, or VNONE when view v has none (it is no top-down view). */
uint32_t view_scope_node(struct view *v, uint32_t s);
/* "procedure", "loop", ... */
const char *view_kind_name(int kind);
const char *view_name(enum view_kind kind);

/* The model scopes whose values add up to node n's, for inclusive or
 * exclusive metrics (bottom-up: each instance's frame, recursion counted
 * once; flat: every scope the node stands for, nested ones once), in a
 * malloc'ed array *out (caller frees).  Returns their number. */
size_t view_node_scopes(struct view *v, uint32_t n, int inclusive,
			uint32_t **out);

/* Recomputes v->rows from the expansion state. */
void view_rows(struct view *v);
/* Expands every node down to depth levels below the display root (-1:
 * all). */
void view_expand_depth(struct view *v, long depth);
/* Expands from n while one child holds at least threshold of its parent's
 * value in the sort column; returns the last node of the path. */
uint32_t view_hot_path(struct view *v, uint32_t n, double threshold);
/* Makes n visible (expands its ancestors); recomputes rows and returns n's
 * row index. */
size_t view_reveal(struct view *v, uint32_t n);
/* The next node after n in pre-order (building children as needed) whose
 * label matches the compiled regex re (a regex_t *), wrapping around, or
 * VNONE. */
uint32_t view_find(struct view *v, const void *re, uint32_t n);
int view_zoom_in(struct view *v, uint32_t n);
int view_zoom_out(struct view *v);
uint32_t view_display_root(const struct view *v);
/* Flat view only: flatten / unflatten one level; returns -1 when nothing
 * changes. */
int view_flatten(struct view *v);
int view_unflatten(struct view *v);

#endif
