/*
 * tracetui.h - the curses trace screen over a struct traceview
 * (tracetui.c): a row per thread, time across, a letter and colour per
 * procedure at the chosen call-path depth, the legend with each
 * procedure's share of the window, the call path of the cell under the
 * cursor; zoom and pan by keys (hpcviewer-tui(1), KEYS).
 */
#ifndef HPCVIEWER_TRACETUI_H
#define HPCVIEWER_TRACETUI_H

#include <stddef.h>

struct traceview;

/* Runs the screen until the user quits, at call-path depth (traceview.h,
 * invariant 4).  The terminal is handled as tui.h says.  Returns 0, or -1
 * with hpc_lasterr() set when the terminal cannot be used. */
int tracetui_run(const struct traceview *tv, size_t depth);

#endif
