/*
 * tui.h - the curses browser over a struct browser (tui.c).
 */
#ifndef HPCVIEWER_TUI_H
#define HPCVIEWER_TUI_H

#include <curses.h>

#include "views.h"

/* Runs the interactive screen on the terminal until the user quits,
 * starting in view kind (in the phases view, phaseview.h, when phases is
 * set), with short C++ names (names.h) when short_names
 * is set (the < key toggles them).  The terminal is restored on every exit path
 * (normal, error, SIGINT/SIGTERM/SIGHUP).  Returns 0, or -1 with
 * hpc_lasterr() set when the terminal cannot be used. */
int tui_run(struct browser *b, enum view_kind kind, int phases,
	    int short_names);

/*
 * Takes over the terminal for a curses screen (tui_run's and the trace
 * screen's, tracetui.h), with the terminal restored on every way out as
 * tui.c's design note says; *color is set when colour pairs 1 (title
 * bar) and 2 (selection) exist.  Returns the screen, or NULL with
 * hpc_lasterr() set.  tui_screen_end gives the terminal back.
 */
SCREEN *tui_screen_start(int *color);
void tui_screen_end(SCREEN *scr);

#endif
