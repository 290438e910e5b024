/*
 * tracetui.c - the curses trace screen (tracetui.h).
 *
 * Layout (rows from the top): title bar (window, depth), a row per thread
 * (name, then one cell per column), the legend, the call path under the
 * cursor, the keys.  Each redraw makes one picture of the rows on screen
 * (traceview.h, invariant 3): its cost follows the screen, not the trace.
 */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <curses.h>

#include "error.h"
#include "model.h"
#include "traceview.h"
#include "tracetui.h"
#include "tui.h"

/* Colour pairs of the procedures: after tui.c's two. */
#define PROC_PAIR0 3
#define PROC_COLORS 6

struct ttui {
	const struct traceview *tv;
	uint64_t from, to;	/* the window */
	size_t depth;
	size_t row, col;	/* the cursor: a thread, a column */
	size_t top;		/* first row on screen */
	int color;
};

static size_t name_width(const struct traceview *tv)
{
	size_t w = 0, r;

	for (r = 0; r < tv->nrows; r++)
		if (strlen(tv->rows[r].name) > w)
			w = strlen(tv->rows[r].name);
	return w < 24 ? w : 24;
}

static void add_seconds(struct strbuf *sb, uint64_t ns)
{
	strbuf_addf(sb, "%.6g s", (double)ns / 1e9);
}

/* The call path of the cursor's cell, outermost first. */
static void cursor_path(struct ttui *t, uint64_t time, struct strbuf *sb)
{
	const struct traceview *tv = t->tv;
	uint32_t s, *path = xmalloc(tv->max_frames * sizeof(*path));
	enum trace_state st = traceview_at(tv, t->row, time, &s);
	size_t n, i;

	strbuf_addf(sb, "%s at ", tv->rows[t->row].name);
	add_seconds(sb, time - tv->t0);
	strbuf_addstr(sb, ": ");
	if (st == TRACE_BEFORE || st == TRACE_IDLE) {
		strbuf_addstr(sb, st == TRACE_BEFORE ? "not started" : "no activity");
	} else {
		n = traceview_frames(tv, s, path);
		for (i = 0; i < n; i++)
			strbuf_addf(sb, "%s%s", i ? " > " : "",
				    model_str(tv->m, tv->m->scopes[path[i]].name));
		strbuf_addstr(sb, " (");
		traceview_where(tv, path[n - 1], sb);
		strbuf_addstr(sb, st == TRACE_WAIT ? "), waiting" : ")");
	}
	free(path);
}

static void draw(struct ttui *t)
{
	const struct traceview *tv = t->tv;
	size_t namew = name_width(tv), ncols, nrows, r, c, i;
	int rows_h = LINES - 5;
	struct trace_picture p;
	struct strbuf sb = STRBUF_INIT;

	erase();
	if (rows_h < 1 || COLS < (int)namew + 12) {
		mvaddstr(0, 0, "terminal too small");
		refresh();
		return;
	}
	ncols = (size_t)COLS - namew - 2;
	if (t->col >= ncols)
		t->col = ncols - 1;
	if (t->row < t->top)
		t->top = t->row;
	if (t->row >= t->top + (size_t)rows_h)
		t->top = t->row - (size_t)rows_h + 1;
	nrows = (size_t)rows_h;
	trace_picture_make(tv, t->from, t->to, t->top, nrows, ncols, t->depth, &p);
	strbuf_addstr(&sb, " trace: ");
	add_seconds(&sb, t->from - tv->t0);
	strbuf_addstr(&sb, " to ");
	add_seconds(&sb, t->to - tv->t0);
	if (t->depth)
		strbuf_addf(&sb, ", call-path depth %zu", t->depth);
	else
		strbuf_addstr(&sb, ", deepest frames");
	strbuf_addf(&sb, ", %zu threads", tv->nrows);
	attron(t->color ? COLOR_PAIR(1) : A_REVERSE);
	mvaddnstr(0, 0, sb.buf, COLS);
	for (i = sb.len; i < (size_t)COLS; i++)
		addch(' ');
	attroff(t->color ? COLOR_PAIR(1) : A_REVERSE);
	for (r = 0; r < p.nrows; r++) {
		int y = 1 + (int)r;

		mvaddnstr(y, 0, tv->rows[p.row0 + r].name, (int)namew);
		mvaddch(y, (int)namew + 1, '|');
		for (c = 0; c < ncols; c++) {
			uint32_t cell = p.cells[r * ncols + c];
			attr_t a = 0;

			if (cell < TRACE_CELL_IDLE && t->color)
				a |= COLOR_PAIR(PROC_PAIR0 +
					(int)((cell & ~TRACE_CELL_WAIT) % PROC_COLORS));
			if (cell < TRACE_CELL_IDLE && (cell & TRACE_CELL_WAIT))
				a |= A_UNDERLINE;
			if (p.row0 + r == t->row && c == t->col)
				a |= A_REVERSE | A_BOLD;
			attron(a);
			addch((chtype)(unsigned char)trace_picture_char(&p, cell));
			attroff(a);
		}
	}
	strbuf_reset(&sb);
	for (i = 0; i < p.nprocs; i++)
		strbuf_addf(&sb, "%c %s %.1f%%  ", p.procs[i].letter,
			    model_str(tv->m, p.procs[i].name),
			    p.busy ? 100.0 * (double)p.procs[i].cells / (double)p.busy : 0.0);
	mvaddnstr(LINES - 4, 0, sb.buf, COLS);
	strbuf_reset(&sb);
	cursor_path(t, trace_picture_time(&p, t->col), &sb);
	mvaddnstr(LINES - 3, 0, sb.buf, COLS);
	mvaddnstr(LINES - 1, 0, "arrows move  +/- zoom  </> pan  [/] depth  "
		  "d deepest  0 all  q quit", COLS);
	trace_picture_release(&p);
	strbuf_release(&sb);
	refresh();
}

/* Zooms around the cursor's time by num/den of the window. */
static void zoom(struct ttui *t, uint64_t num, uint64_t den)
{
	const struct traceview *tv = t->tv;
	size_t ncols = COLS > (int)name_width(tv) + 3 ?
		       (size_t)COLS - name_width(tv) - 2 : 1;
	uint64_t span = t->to - t->from;
	uint64_t at = t->from + span / ncols * t->col + span / ncols / 2;
	uint64_t next = span / den * num;

	if (next < 1000)
		next = 1000;	/* a microsecond */
	if (next > tv->t1 - tv->t0)
		next = tv->t1 - tv->t0;
	t->from = at > tv->t0 + next / 2 ? at - next / 2 : tv->t0;
	if (t->from + next > tv->t1)
		t->from = tv->t1 - next;
	t->to = t->from + next;
}

static void pan(struct ttui *t, int right)
{
	const struct traceview *tv = t->tv;
	uint64_t step = (t->to - t->from) / 4;

	if (right)
		step = tv->t1 - t->to < step ? tv->t1 - t->to : step;
	else
		step = t->from - tv->t0 < step ? t->from - tv->t0 : step;
	t->from = right ? t->from + step : t->from - step;
	t->to = right ? t->to + step : t->to - step;
}

/* 0 to quit. */
static int handle_key(struct ttui *t, int key)
{
	switch (key) {
	case 'q':
		return 0;
	case KEY_UP:
		if (t->row)
			t->row--;
		break;
	case KEY_DOWN:
		if (t->row + 1 < t->tv->nrows)
			t->row++;
		break;
	case KEY_LEFT:
		if (t->col)
			t->col--;
		break;
	case KEY_RIGHT:
		t->col++;	/* draw() keeps it on screen */
		break;
	case '+':
		zoom(t, 1, 2);
		break;
	case '-':
		zoom(t, 2, 1);
		break;
	case '<':
	case '>':
		pan(t, key == '>');
		break;
	case '[':	/* shallower; from the deepest, the longest path's */
		if (t->depth > 1)
			t->depth--;
		else if (!t->depth)
			t->depth = t->tv->max_frames - 1;
		break;
	case ']':
		if (t->depth && t->depth < t->tv->max_frames)
			t->depth++;
		break;
	case 'd':
		t->depth = 0;
		break;
	case '0':
		t->from = t->tv->t0;
		t->to = t->tv->t1 > t->from ? t->tv->t1 : t->from + 1;
		break;
	default:
		break;
	}
	return 1;
}

int tracetui_run(const struct traceview *tv, size_t depth)
{
	struct ttui t;
	SCREEN *scr;
	int key, i;

	if (!isatty(STDIN_FILENO) || !isatty(STDOUT_FILENO))
		return hpc_seterr("not a terminal (use --stdio for text output)");
	memset(&t, 0, sizeof(t));
	t.tv = tv;
	t.from = tv->from;
	t.to = tv->to;
	t.depth = depth;
	scr = tui_screen_start(&t.color);
	if (!scr)
		return -1;
	if (t.color)
		for (i = 0; i < PROC_COLORS; i++)
			init_pair((short)(PROC_PAIR0 + i), COLOR_BLACK,
				  (short)(COLOR_RED + i));
	draw(&t);
	while ((key = getch()) != ERR && handle_key(&t, key))
		draw(&t);
	tui_screen_end(scr);
	return 0;
}
