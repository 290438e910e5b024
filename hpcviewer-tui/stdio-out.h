/*
 * stdio-out.h - text and CSV output of a view's rows (stdio.c), and the
 * cell formatting the curses screen shares, so both show the same numbers.
 */
#ifndef HPCVIEWER_STDIO_OUT_H
#define HPCVIEWER_STDIO_OUT_H

#include <stdio.h>

#include "views.h"

/* Width of column c's cells (value and percentage, or its name if wider). */
size_t stdio_col_width(const struct browser *b, size_t c);
/* Formats node n's cell for column c into buf, right-aligned to width;
 * zero values are blank. */
void stdio_format_cell(struct view *v, uint32_t n, size_t c, char *buf,
		       size_t size, size_t width);
/* The tree marker for a row: "- " expanded, "+ " collapsed, "  " leaf. */
const char *stdio_marker(struct view *v, uint32_t n);

/* Prints v->rows as aligned text (header line first).  Returns 0, or -1
 * with hpc_lasterr() set when writing fails. */
int stdio_print(struct view *v, FILE *out);
/* Prints v->rows as CSV with raw values and percentages. */
int stdio_print_csv(struct view *v, FILE *out);

#endif
