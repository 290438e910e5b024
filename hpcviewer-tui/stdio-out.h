/*
 * stdio-out.h - text and CSV output of a view's rows (stdio.c), and the
 * cell and scope formatting the curses screen shares, so both show the
 * same numbers and the same names.
 */
#ifndef HPCVIEWER_STDIO_OUT_H
#define HPCVIEWER_STDIO_OUT_H

#include <stdio.h>

#include "names.h"
#include "views.h"

/* How rows are printed (all zero: everything, full names, no width). */
struct stdio_opts {
	size_t width;		/* no line longer than this; 0: no limit */
	double percent_limit;	/* leave out rows (and what is under them)
				 * whose sort column holds less than this
				 * percentage of its total; 0: none */
	const struct names *names;	/* short C++ names, or NULL */
	const struct names *fit;	/* short names for a label too long
					 * for its width, or NULL */
};

/* Width of column c's cells (value and percentage, or its name if wider). */
size_t stdio_col_width(const struct browser *b, size_t c);
/* Formats node n's cell for column c into buf, right-aligned to width:
 * the value and its percentage of the column's total ("2.26e-01  74.8%"),
 * a percentage metric as one ("74.8%").  Zero values are blank, except
 * that a statistic over threads (Min, StdDev, ...) whose Sum is not zero
 * shows 0. */
void stdio_format_cell(struct view *v, uint32_t n, size_t c, char *buf,
		       size_t size, size_t width);
/* The Sum column of the raw metric that metric met is a statistic of
 * ("R:Mean (I)" -> "R:Sum (I)"), met itself when its name has no
 * statistic, or -1 when there is none. */
int stdio_sum_metric(const struct model *m, int met);
/* The tree marker for a row: "- " expanded, "+ " collapsed, "  " leaf. */
const char *stdio_marker(struct view *v, uint32_t n);
/* Node n's label, with its procedure name shortened by names (NULL: the
 * full name). */
void stdio_label(struct view *v, uint32_t n, const struct names *names,
		 struct strbuf *out);
/* Replaces each control character (below 0x20, and DEL) of sb from
 * byte from on by '?': a name may hold any (a Python function's, a file's
 * name), and in text and on the screen each row is one line. */
void stdio_one_line(struct strbuf *sb, size_t from);
/* Appends s, at most room characters of it: its start and end around
 * "..." when it is longer. */
void stdio_add_elided(struct strbuf *out, const char *s, size_t room);
/* Without a width, rows are indented as in a scope column this wide, so
 * that text is linear in the rows however deep the tree: the indentation
 * stops at 80 columns. */
#define STDIO_INDENT_WIDTH 160
/*
 * Appends row r's scope cell: indentation, marker and label, in at most
 * width characters.  When the indentation would take more than half the
 * width it stops there and a depth marker "[+D]" (D levels below the top
 * row) stands in for it; a label that does not fit takes its short name
 * from fit (unless NULL: names.h, so that rows stay apart), and one that
 * still does not fit keeps its start and its end around "...".  Width 0:
 * the label in full, indented as in STDIO_INDENT_WIDTH; SIZE_MAX: the
 * whole indentation and label.
 */
void stdio_scope(struct view *v, const struct row *r, size_t width,
		 const struct names *names, const struct names *fit,
		 struct strbuf *out);
/* Metric columns are left out before the scope column has fewer
 * characters than this. */
#define STDIO_SCOPE_MIN 30
/*
 * The columns a line of width characters shows (0: no limit), in table
 * order, into out[] (room for b->ncols): the sort column always, then the
 * other shown columns, in table order, while the scope column keeps
 * STDIO_SCOPE_MIN characters.  Returns their number; *dropped (unless
 * NULL) is the number of shown columns left out.
 */
size_t stdio_layout(const struct browser *b, size_t width, size_t *out,
		    size_t *dropped);
/* Is node n's sort-column value at least pct percent of its total (always
 * true for pct <= 0 and for a zero total)? */
int stdio_above_limit(struct view *v, uint32_t n, double pct);

/* Writes s as one CSV field, quoted when it holds a comma, quote or
 * newline. */
void stdio_csv_field(FILE *out, const char *s);

/* Prints v->rows as aligned text (header line first).  Returns 0, or -1
 * with hpc_lasterr() set when writing fails. */
int stdio_print(struct view *v, const struct stdio_opts *o, FILE *out);
/* Prints v->rows as CSV with raw values and percentages (o->width is not
 * used: fields are never shortened). */
int stdio_print_csv(struct view *v, const struct stdio_opts *o, FILE *out);

#endif
