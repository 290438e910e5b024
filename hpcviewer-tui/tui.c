/*
 * tui.c - the curses browser: draws browser_rows() of the current view
 * with the same cells as --stdio, and maps keys to view operations.
 *
 * Terminal safety: the screen is taken over only after the database loaded
 * (main does that first); endwin() runs on every way out: return, exit()
 * (atexit), and SIGINT/SIGTERM/SIGHUP (the handler restores the terminal
 * and re-raises the signal with its default action).  endwin() is not on
 * the async-signal-safe list; calling it from the handler is the usual
 * curses practice, and the process dies right after, so the worst case is
 * a terminal left as it would have been without the handler.
 *
 * Layout (rows from the top): title bar, column header, tree rows, then
 * optionally the source pane (a separator line and the file), and a status
 * line at the bottom.
 */
#include <regex.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <curses.h>

#include "error.h"
#include "stdio-out.h"
#include "strbuf.h"
#include "tui.h"

#define HOT_THRESHOLD 0.5
#define SCOPE_MIN 30	/* columns never squeeze the scope below this */

struct source {
	uint32_t file;		/* model string index of the loaded file */
	int metric;		/* metric of the gutter */
	int found;
	char *path;
	struct strbuf text;
	char **lines;
	size_t nlines, lines_alloc;
	double *gutter;		/* per line (1-based), nlines + 1 */
};

struct tui {
	struct browser *b;
	struct view *v;
	int show_source;
	int color;
	int timing;		/* HPCVIEWER_TUI_TIMING: show redraw times */
	double last_ms;
	regex_t re;
	int have_re;
	struct strbuf status;
	struct source src;
};

static volatile sig_atomic_t screen_active;

static void restore_terminal(void)
{
	if (screen_active) {
		screen_active = 0;
		endwin();
	}
}

static void on_signal(int sig)
{
	restore_terminal();
	signal(sig, SIG_DFL);
	raise(sig);
}

static void set_status(struct tui *t, const char *fmt, ...) HPC_PRINTF(2, 3);
static void set_status(struct tui *t, const char *fmt, ...)
{
	va_list ap;

	strbuf_reset(&t->status);
	va_start(ap, fmt);
	strbuf_vaddf(&t->status, fmt, ap);
	va_end(ap);
}

static uint32_t sel_node(struct tui *t)
{
	return t->v->rows[t->v->sel].node;
}

/* ---- source pane ---- */

static void source_release(struct source *s)
{
	free(s->path);
	strbuf_release(&s->text);
	free(s->lines);
	free(s->gutter);
	memset(s, 0, sizeof(*s));
	strbuf_init(&s->text);
	s->file = MODEL_NONE;
}

/* The metric shown in the gutter: the sort column's, exclusive if it has
 * an exclusive partner. */
static int gutter_metric(struct tui *t)
{
	const struct browser *b = t->b;
	int met = b->cols[b->sort_col].metric;

	if (met < 0)
		met = b->ncols ? b->cols[0].metric : -1;
	if (met >= 0 && b->m->metrics[met].type == MT_INCLUSIVE &&
	    b->m->metrics[met].partner >= 0)
		met = b->m->metrics[met].partner;
	return met;
}

static void source_load(struct tui *t, uint32_t file)
{
	const struct model *m = t->b->m;
	struct source *s = &t->src;
	const char *name = model_str(m, file);
	struct strbuf path = STRBUF_INIT;
	const char *fmts[] = { "%s/%s", "%s/src/%s", "%s/src%s" };
	size_t i;
	int met = gutter_metric(t);

	if (s->file == file && s->metric == met)
		return;
	source_release(s);
	s->file = file;
	s->metric = met;
	while (name[0] == '.' && name[1] == '/')	/* hpcprof's "./src/..." */
		name += 2;
	for (i = 0; i < 3 && *name; i++) {
		if ((i == 2) != (name[0] == '/'))
			continue;
		strbuf_reset(&path);
		strbuf_addf(&path, fmts[i], m->dbdir, name);
		if (strbuf_read_file(&s->text, path.buf) == 0) {
			s->found = 1;
			break;
		}
	}
	if (!s->found) {
		strbuf_reset(&path);
		strbuf_addf(&path, name[0] == '/' ? "%s/src%s" : "%s/%s",
			    m->dbdir, name);
	}
	s->path = strbuf_detach(&path, NULL);
	if (!s->found)
		return;
	for (i = 0; i < s->text.len; i++) {
		if (i == 0 || s->text.buf[i - 1] == '\0') {
			HPC_GROW(s->lines, s->nlines + 1, s->lines_alloc);
			s->lines[s->nlines++] = s->text.buf + i;
		}
		if (s->text.buf[i] == '\n')
			s->text.buf[i] = '\0';
	}
	s->gutter = xcalloc(s->nlines + 1, sizeof(double));
	for (i = 1; i < m->nscopes && met >= 0; i++) {
		const struct scope *sc = &m->scopes[i];

		if (sc->file == file && sc->kind == SK_STMT && sc->line &&
		    sc->line <= s->nlines)
			s->gutter[sc->line] += model_value(m, (uint32_t)i,
							   (size_t)met);
	}
}

static void draw_source(struct tui *t, int top, int height)
{
	const struct vnode *nd = &t->v->nodes[sel_node(t)];
	struct source *s = &t->src;
	int y, first;
	char buf[64];

	move(top, 0);
	clrtoeol();
	if (!nd->file) {
		attron(A_BOLD);
		mvprintw(top, 0, "-- no source file for this row --");
		attroff(A_BOLD);
		return;
	}
	source_load(t, nd->file);
	attron(A_BOLD);
	if (!s->found) {
		mvprintw(top, 0, "-- source not in the database: %s --", s->path);
		attroff(A_BOLD);
		return;
	}
	mvprintw(top, 0, "-- %s (%s per line) --", s->path,
		 s->metric >= 0 ? t->b->m->metrics[s->metric].name : "no metric");
	attroff(A_BOLD);
	first = (int)nd->line - height / 2;
	if (first < 1)
		first = 1;
	for (y = 0; y < height; y++) {
		int ln = first + y;

		move(top + 1 + y, 0);
		clrtoeol();
		if ((size_t)ln > s->nlines)
			continue;
		if (s->gutter[ln] != 0)
			snprintf(buf, sizeof(buf), "%9.2e", s->gutter[ln]);
		else
			snprintf(buf, sizeof(buf), "%9s", "");
		if ((uint32_t)ln == nd->line)
			attron(A_REVERSE);
		mvprintw(top + 1 + y, 0, "%s %5d  ", buf, ln);
		addnstr(s->lines[ln - 1], COLS > 18 ? COLS - 18 : 0);
		if ((uint32_t)ln == nd->line) {
			chgat(-1, A_REVERSE, 0, NULL);
			attroff(A_REVERSE);
		}
	}
}

/* ---- main screen ---- */

/* Does column c fit on screen after the columns before it? */
static int col_fits(struct tui *t, size_t c)
{
	const struct browser *b = t->b;
	size_t used = 0, k;
	int first = 1;

	for (k = 0; k <= c; k++) {
		if (b->cols[k].hidden)
			continue;
		used += stdio_col_width(b, k) + 2;
		if (k < c)
			first = 0;
	}
	return first || used + SCOPE_MIN <= (size_t)COLS;
}

static size_t cols_off_screen(struct tui *t)
{
	size_t c, n = 0;

	for (c = 0; c < t->b->ncols; c++)
		if (!t->b->cols[c].hidden && !col_fits(t, c))
			n++;
	return n;
}

static int tree_height(struct tui *t)
{
	int h = LINES - 3;

	if (t->show_source)
		h = (LINES - 3) / 2;
	return h < 1 ? 1 : h;
}

static void keep_visible(struct tui *t)
{
	struct view *v = t->v;
	size_t h = (size_t)tree_height(t);

	if (v->sel < v->top)
		v->top = v->sel;
	if (v->sel >= v->top + h)
		v->top = v->sel - h + 1;
	if (v->top + h > v->nrows)
		v->top = v->nrows > h ? v->nrows - h : 0;
}

static void draw_row(struct tui *t, int y, size_t r)
{
	struct view *v = t->v;
	struct browser *b = t->b;
	uint32_t n = v->rows[r].node;
	struct strbuf sb = STRBUF_INIT;
	char cell[256];
	size_t c;

	for (c = 0; c < b->ncols; c++) {
		if (b->cols[c].hidden || !col_fits(t, c))
			continue;
		stdio_format_cell(v, n, c, cell, sizeof(cell),
				  stdio_col_width(b, c));
		strbuf_addf(&sb, "%s  ", cell);
	}
	strbuf_addf(&sb, "%*s%s", (int)(2 * v->rows[r].depth), "",
		    stdio_marker(v, n));
	view_label(v, n, &sb);
	if (r == v->sel)
		attron(t->color ? COLOR_PAIR(2) : A_REVERSE);
	mvaddnstr(y, 0, sb.buf, COLS);
	if (r == v->sel) {
		chgat(-1, t->color ? 0 : A_REVERSE, t->color ? 2 : 0, NULL);
		attroff(t->color ? COLOR_PAIR(2) : A_REVERSE);
	}
	strbuf_release(&sb);
}

static void draw(struct tui *t)
{
	struct view *v = t->v;
	struct browser *b = t->b;
	struct strbuf sb = STRBUF_INIT;
	int h = tree_height(t), y;
	size_t c;

	erase();
	keep_visible(t);
	strbuf_addf(&sb, " hpcviewer-tui: %s | %s view", b->m->title ?
		    b->m->title : "experiment", view_name(v->kind));
	if (v->nzoom > 1)
		strbuf_addf(&sb, " | zoom %zu", v->nzoom - 1);
	if (v->flatten)
		strbuf_addf(&sb, " | flatten %d", v->flatten);
	if (b->ncols)
		strbuf_addf(&sb, " | sort: %s %s", b->cols[b->sort_col].name,
			    b->sort_ascending ? "asc" : "desc");
	attron(t->color ? COLOR_PAIR(1) : A_REVERSE);
	mvaddnstr(0, 0, sb.buf, COLS);
	chgat(-1, t->color ? 0 : A_REVERSE, t->color ? 1 : 0, NULL);
	attroff(t->color ? COLOR_PAIR(1) : A_REVERSE);
	strbuf_reset(&sb);
	for (c = 0; c < b->ncols; c++)
		if (!b->cols[c].hidden && col_fits(t, c))
			strbuf_addf(&sb, "%*s  ", (int)stdio_col_width(b, c),
				    b->cols[c].name);
	strbuf_addstr(&sb, "Scope");
	if (cols_off_screen(t))
		strbuf_addf(&sb, " (+%zu columns: m)", cols_off_screen(t));
	attron(A_BOLD | A_UNDERLINE);
	mvaddnstr(1, 0, sb.buf, COLS);
	attroff(A_BOLD | A_UNDERLINE);
	for (y = 0; y < h && v->top + (size_t)y < v->nrows; y++)
		draw_row(t, 2 + y, v->top + (size_t)y);
	if (t->show_source)
		draw_source(t, 2 + h, LINES - 3 - h - 1);
	strbuf_reset(&sb);
	if (t->status.len)
		strbuf_addstr(&sb, t->status.buf);
	else {
		strbuf_addf(&sb, "row %zu/%zu: ", v->sel + 1, v->nrows);
		view_label(v, sel_node(t), &sb);
		strbuf_addstr(&sb, "  (? help, q quit)");
	}
	if (t->timing)
		strbuf_addf(&sb, "  [%.2f ms]", t->last_ms);
	mvaddnstr(LINES - 1, 0, sb.buf, COLS);
	strbuf_release(&sb);
	refresh();
}

static const char *const help_text[] = {
	"hpcviewer-tui keys",
	"",
	"  Up/Down, j/k     move        PgUp/PgDn, g/G   page, first, last",
	"  Enter, Space     expand or collapse the row",
	"  Right / Left     expand / collapse (or go to the parent)",
	"  t  b  f          top-down, bottom-up, flat view",
	"  H                hot path: expand while a child holds >= 50%",
	"  s  S             next sort column, reverse the sort",
	"  /  n             find (extended regex), find next",
	"  F  U             flatten / unflatten the flat view one level",
	"  z  Z             zoom into the row's subtree / zoom back out",
	"  m                show or hide a metric column",
	"  d                add a derived column: formula over $N or \"name\"",
	"  v                toggle the source pane",
	"  T                per-thread distribution of the row's metric",
	"  ?                this help          q  quit",
	"",
	"Columns: (I) inclusive, (E) exclusive, with % of the total.",
	"Press any key to return.",
	NULL,
};

static void show_help(void)
{
	int i;

	erase();
	for (i = 0; help_text[i]; i++)
		mvaddnstr(i, 0, help_text[i], COLS);
	refresh();
	getch();
}

/* Reads a line at the bottom; returns 0, or -1 when cancelled/empty. */
static int prompt(const char *what, char *buf, int size)
{
	move(LINES - 1, 0);
	clrtoeol();
	addstr(what);
	echo();
	curs_set(1);
	if (getnstr(buf, size - 1) != OK)
		buf[0] = '\0';
	noecho();
	curs_set(0);
	return buf[0] ? 0 : -1;
}

static void do_find(struct tui *t, int ask)
{
	char buf[256];
	uint32_t n;

	if (ask) {
		if (prompt("find (regex): ", buf, sizeof(buf)) < 0)
			return;
		if (t->have_re)
			regfree(&t->re);
		t->have_re = !regcomp(&t->re, buf, REG_EXTENDED | REG_NOSUB);
		if (!t->have_re) {
			set_status(t, "'%s': bad regular expression", buf);
			return;
		}
	}
	if (!t->have_re) {
		set_status(t, "no search yet: press /");
		return;
	}
	n = view_find(t->v, &t->re, sel_node(t));
	if (n == VNONE) {
		set_status(t, "not found");
		return;
	}
	t->v->sel = view_reveal(t->v, n);
}

static void do_columns(struct tui *t)
{
	struct browser *b = t->b;
	struct strbuf sb = STRBUF_INIT;
	char buf[32];
	size_t c;
	long k;

	for (c = 0; c < b->ncols; c++)
		strbuf_addf(&sb, "%s%zu:%s%s", c ? "  " : "", c + 1,
			    b->cols[c].hidden ? "-" : "+", b->cols[c].name);
	mvaddnstr(LINES - 2, 0, sb.buf, COLS);
	clrtoeol();
	strbuf_release(&sb);
	if (prompt("show/hide column number: ", buf, sizeof(buf)) < 0)
		return;
	k = strtol(buf, NULL, 10);
	if (k < 1 || (size_t)k > b->ncols) {
		set_status(t, "no column %s", buf);
		return;
	}
	b->cols[k - 1].hidden = !b->cols[k - 1].hidden;
}

static void do_derived(struct tui *t)
{
	char buf[256];

	if (prompt("derived column = ", buf, sizeof(buf)) < 0)
		return;
	if (browser_add_derived(t->b, buf, buf) < 0)
		set_status(t, "%s", hpc_lasterr());
	else
		set_status(t, "added column %zu: %s", t->b->ncols, buf);
}

/* The Sum column of the metric shown in column c ("R:Mean (I)" -> "R:Sum
 * (I)"), which is what thread-values.tsv lists; -1 when there is none. */
static int sum_metric(const struct model *m, int met)
{
	const char *name, *colon, *paren;
	struct strbuf want = STRBUF_INIT;
	size_t i;

	if (met < 0)
		return -1;
	name = m->metrics[met].name;
	colon = strrchr(name, ':');
	if (!colon)
		return met;
	paren = strchr(colon, '(');
	strbuf_add(&want, name, (size_t)(colon - name) + 1);
	strbuf_addf(&want, "Sum%s%s", paren ? " " : "", paren ? paren : "");
	for (i = 0; i < m->nmetrics; i++)
		if (!strcmp(m->metrics[i].name, want.buf))
			break;
	strbuf_release(&want);
	return i < m->nmetrics ? (int)i : -1;
}

/* T: the selected row's per-thread values of the sort column's metric:
 * min/mean/max and a ten-bin text histogram. */
static void do_threads(struct tui *t)
{
	const struct model *m = t->b->m;
	struct view *v = t->v;
	uint32_t n = sel_node(t);
	int met = sum_metric(m, t->b->cols[t->b->sort_col].metric);
	struct strbuf sb = STRBUF_INIT;
	double *vals, lo, hi, sum = 0;
	size_t count[10] = { 0 }, most = 0, i;
	int nt, y = 0, width = COLS - 40;

	if (v->kind != VIEW_TOP_DOWN) {
		set_status(t, "per-thread values: use the top-down view (t)");
		return;
	}
	nt = met < 0 ? 0 : model_thread_values(m, v->nodes[n].scope,
					       (size_t)met, &vals);
	if (nt < 0) {
		set_status(t, "%s", hpc_lasterr());
		return;
	}
	if (nt == 0) {
		set_status(t, "no per-thread data in this database");
		return;
	}
	lo = hi = vals[0];
	for (i = 0; i < (size_t)nt; i++) {
		lo = vals[i] < lo ? vals[i] : lo;
		hi = vals[i] > hi ? vals[i] : hi;
		sum += vals[i];
	}
	for (i = 0; i < (size_t)nt; i++) {
		size_t bin = hi > lo ? (size_t)(10 * (vals[i] - lo) / (hi - lo)) : 0;

		count[bin > 9 ? 9 : bin]++;
	}
	for (i = 0; i < 10; i++)
		most = count[i] > most ? count[i] : most;
	erase();
	view_label(v, n, &sb);
	mvprintw(y++, 0, "Per-thread distribution of %s", m->metrics[met].name);
	mvprintw(y++, 0, "at %s: %d threads", sb.buf, nt);
	mvprintw(y++, 0, "min %.3g  mean %.3g  max %.3g", lo, sum / nt, hi);
	y++;
	for (i = 0; i < 10 && y < LINES - 2; i++) {
		double b0 = lo + (hi - lo) * (double)i / 10;
		int bar = most ? (int)((size_t)(width > 1 ? width : 1) * count[i] / most) : 0;

		mvprintw(y++, 0, "%10.3g .. %-10.3g %6zu ", b0,
			 lo + (hi - lo) * (double)(i + 1) / 10, count[i]);
		while (bar-- > 0)
			addch('#');
		if (hi == lo)
			break;
	}
	mvprintw(LINES - 1, 0, "Press any key to return.");
	refresh();
	getch();
	free(vals);
	strbuf_release(&sb);
}

static void switch_view(struct tui *t, enum view_kind kind)
{
	t->v = browser_view(t->b, kind);
	view_rows(t->v);
}

static void toggle(struct tui *t, int want)
{
	struct view *v = t->v;
	uint32_t n = sel_node(t);

	if (!view_has_children(v, n)) {
		if (want == 0 && v->nodes[n].parent != VNONE &&
		    n != view_display_root(v))
			v->sel = view_reveal(v, v->nodes[n].parent);
		return;
	}
	if (want == 0 && !v->nodes[n].expanded && n != view_display_root(v)) {
		v->sel = view_reveal(v, v->nodes[n].parent);
		return;
	}
	v->nodes[n].expanded = want < 0 ? !v->nodes[n].expanded : want;
	view_rows(v);
}

/* Handles one key; returns 0 to quit. */
static int handle_key(struct tui *t, int key)
{
	struct view *v = t->v;
	size_t page = (size_t)tree_height(t);

	strbuf_reset(&t->status);
	switch (key) {
	case 'q':
		return 0;
	case KEY_UP: case 'k':
		if (v->sel)
			v->sel--;
		break;
	case KEY_DOWN: case 'j':
		if (v->sel + 1 < v->nrows)
			v->sel++;
		break;
	case KEY_PPAGE:
		v->sel = v->sel > page ? v->sel - page : 0;
		break;
	case KEY_NPAGE:
		v->sel = v->sel + page < v->nrows ? v->sel + page : v->nrows - 1;
		break;
	case KEY_HOME: case 'g':
		v->sel = 0;
		break;
	case KEY_END: case 'G':
		v->sel = v->nrows - 1;
		break;
	case '\n': case '\r': case KEY_ENTER: case ' ':
		toggle(t, -1);
		break;
	case KEY_RIGHT:
		toggle(t, 1);
		break;
	case KEY_LEFT:
		toggle(t, 0);
		break;
	case 't':
		switch_view(t, VIEW_TOP_DOWN);
		break;
	case 'b':
		switch_view(t, VIEW_BOTTOM_UP);
		break;
	case 'f':
		switch_view(t, VIEW_FLAT);
		break;
	case 'H':
		v->sel = view_reveal(v, view_hot_path(v, sel_node(t),
						      HOT_THRESHOLD));
		break;
	case 's': case 'S':
		if (t->b->ncols) {
			uint32_t n = sel_node(t);
			size_t c = t->b->sort_col;

			if (key == 's')
				do
					c = (c + 1) % t->b->ncols;
				while (t->b->cols[c].hidden && c != t->b->sort_col);
			browser_sort(t->b, c, key == 'S' ?
				     !t->b->sort_ascending : 0);
			v->sel = view_reveal(v, n);
		}
		break;
	case '/':
		do_find(t, 1);
		break;
	case 'n':
		do_find(t, 0);
		break;
	case 'F': case 'U':
		if (v->kind != VIEW_FLAT)
			set_status(t, "flatten works in the flat view (press f)");
		else if ((key == 'F' ? view_flatten(v) : view_unflatten(v)) < 0)
			set_status(t, "nothing to %s", key == 'F' ? "flatten" :
				   "unflatten");
		else
			v->sel = 0;
		break;
	case 'z':
		if (view_zoom_in(v, sel_node(t)) < 0)
			set_status(t, "nothing to zoom into");
		break;
	case 'Z':
		if (view_zoom_out(v) < 0)
			set_status(t, "not zoomed");
		break;
	case 'm':
		do_columns(t);
		break;
	case 'd':
		do_derived(t);
		break;
	case 'v':
		t->show_source = !t->show_source;
		break;
	case 'T':
		do_threads(t);
		break;
	case '?':
		show_help();
		break;
	case KEY_RESIZE:
		break;
	default:
		set_status(t, "unknown key (press ? for help)");
		break;
	}
	return 1;
}

static double now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

int tui_run(struct browser *b, enum view_kind kind)
{
	struct tui t;
	SCREEN *scr;
	int key;

	if (!isatty(STDIN_FILENO) || !isatty(STDOUT_FILENO))
		return hpc_seterr("not a terminal (use --stdio for text output)");
	memset(&t, 0, sizeof(t));
	strbuf_init(&t.status);
	strbuf_init(&t.src.text);
	t.src.file = MODEL_NONE;
	t.b = b;
	t.timing = getenv("HPCVIEWER_TUI_TIMING") != NULL;
	/* build every view now, so that no key waits for one (t, b, f) */
	browser_view(b, VIEW_BOTTOM_UP);
	browser_view(b, VIEW_FLAT);
	scr = newterm(NULL, stdout, stdin);
	if (!scr)
		return hpc_seterr("'%s': cannot use this terminal",
				  getenv("TERM") ? getenv("TERM") : "");
	screen_active = 1;
	atexit(restore_terminal);
	signal(SIGINT, on_signal);
	signal(SIGTERM, on_signal);
	signal(SIGHUP, on_signal);
	cbreak();
	noecho();
	keypad(stdscr, TRUE);
	curs_set(0);
	if (has_colors() && start_color() == OK) {
		use_default_colors();
		init_pair(1, COLOR_BLACK, COLOR_CYAN);
		init_pair(2, COLOR_BLACK, COLOR_YELLOW);
		t.color = 1;
	}
	switch_view(&t, kind);
	t.v->sel = 0;
	draw(&t);
	while ((key = getch()) != ERR) {
		double start = now_ms();

		if (!handle_key(&t, key))
			break;
		draw(&t);
		t.last_ms = now_ms() - start;
		if (t.timing)
			draw(&t);
	}
	restore_terminal();
	delscreen(scr);
	signal(SIGINT, SIG_DFL);
	signal(SIGTERM, SIG_DFL);
	signal(SIGHUP, SIG_DFL);
	if (t.have_re)
		regfree(&t.re);
	source_release(&t.src);
	strbuf_release(&t.src.text);
	strbuf_release(&t.status);
	return 0;
}
