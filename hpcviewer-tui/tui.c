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

#include "dataview.h"
#include "disasm.h"
#include "error.h"
#include "infile.h"
#include "phaseview.h"
#include "sharingview.h"
#include "stdio-out.h"
#include "strbuf.h"
#include "threadname.h"
#include "tui.h"
#include "units.h"

#define HOT_THRESHOLD 0.5
#define HSCROLL_STEP 8	/* columns the scope scrolls by ([ and ]) */

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

/* The disassembly shown where there is no source. */
struct code {
	uint32_t lm, entry;	/* load module and procedure entry loaded */
	int metric;		/* metric of the gutter */
	struct disasm *d;	/* NULL: see err */
	char *err;
	double *gutter;		/* per instruction */
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
	struct code code;
	struct names *names;	/* built on first use */
	int short_names;
	size_t hscroll;		/* scope columns scrolled off to the left */
	struct phaseview *pv;	/* the phases view, loaded on first use */
	struct sharingview *sv;	/* sharing.tsv, loaded on first use */
	int sv_tried;
	int in_phases;		/* showing it */
	size_t psel, ptop;	/* its selected and first line on screen */
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

/* The short names, for labels too long for the screen (stdio_scope). */
static const struct names *fit_names(struct tui *t)
{
	if (!t->names)
		t->names = names_new(t->b->m);
	return t->names;
}

/* The short names when they are on, else NULL (full names). */
static const struct names *shown_names(struct tui *t)
{
	return t->short_names ? fit_names(t) : NULL;
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
		if (infile_read(path.buf, INFILE_MAX_SOURCE, "a source file",
				&s->text) == 0) {
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
		    !sc->phase &&
		    sc->line <= s->nlines)
			s->gutter[sc->line] += model_value(m, (uint32_t)i,
							   (size_t)met);
	}
}

/* Metric met's name with its unit (units.h), or "no metric"; the caller
 * frees it. */
static char *metric_heading(struct tui *t, int met)
{
	struct strbuf sb = STRBUF_INIT;

	if (met < 0)
		strbuf_addstr(&sb, "no metric");
	else
		units_heading(t->b->m->metrics[met].name,
			      t->b->m->metrics[met].unit, &sb);
	return strbuf_detach(&sb, NULL);
}

static void code_release(struct code *c)
{
	disasm_free(c->d);
	free(c->err);
	free(c->gutter);
	memset(c, 0, sizeof(*c));
	c->lm = MODEL_NONE;
}

/* Decodes the procedure at entry of load module lm, and sums the gutter
 * metric of every statement whose first sampled address falls in each
 * instruction (the database keeps one address per statement). */
static void code_load(struct tui *t, uint32_t lm, uint32_t entry)
{
	const struct model *m = t->b->m;
	struct code *c = &t->code;
	int met = gutter_metric(t);
	size_t i, k;

	if (c->lm == lm && c->entry == entry && c->metric == met)
		return;
	code_release(c);
	c->lm = lm;
	c->entry = entry;
	c->metric = met;
	c->d = disasm_procedure(model_str(m, lm), entry);
	if (!c->d) {
		c->err = xstrdup(hpc_lasterr());
		return;
	}
	c->gutter = xcalloc(c->d->ninsns + 1, sizeof(double));
	for (i = 1; i < m->nscopes && met >= 0; i++) {
		const struct scope *sc = &m->scopes[i];

		if (sc->kind == SK_STMT && sc->lm == lm && sc->addr &&
		    !sc->phase &&
		    (k = disasm_find(c->d, sc->addr)) < c->d->ninsns)
			c->gutter[k] += model_value(m, (uint32_t)i, (size_t)met);
	}
}

/*
 * Adds path to sb in at most room characters where it can be: a long path
 * loses the middle of its directories to "...", never its last component
 * (a file name, or the end of a message naming one).  The end kept is its
 * longest run of whole components that takes at most two thirds of the
 * room (at least the last component); its start fills the rest.
 */
static void add_path(struct strbuf *sb, const char *path, size_t room)
{
	size_t len = strlen(path), tail = 0, head, i;

	if (len <= room) {
		strbuf_addstr(sb, path);
		return;
	}
	for (i = len; i-- > 0;)
		if (path[i] == '/' && (!tail || len - i <= room * 2 / 3))
			tail = len - i;
	if (!tail)
		tail = len;
	head = room > tail + 3 ? room - tail - 3 : 0;
	strbuf_add(sb, path, head);
	strbuf_addstr(sb, "...");
	strbuf_addstr(sb, path + len - tail);
}

/* The room a path has in a heading of cols characters whose other text
 * takes fixed characters. */
static size_t path_room(int cols, size_t fixed)
{
	return cols > 0 && (size_t)cols > fixed ? (size_t)cols - fixed : 0;
}

/*
 * A pane's heading "-- BEFORE PATH AFTER --" in at most cols characters
 * where it can be: the path is shortened (add_path), never what is
 * around it, which says what the pane shows.
 */
static void pane_heading(const char *before, const char *path,
			 const char *after, int cols, struct strbuf *sb)
{
	strbuf_addf(sb, "-- %s", before);
	add_path(sb, path, path_room(cols, strlen(before) + strlen(after) +
				     strlen("--  --")));
	strbuf_addf(sb, "%s --", after);
}

/*
 * The pane where the row has no source: the machine code of its procedure
 * (perf annotate's fallback), the row's own instruction highlighted.
 * Returns 0 when the row has no code address either (nothing drawn).
 */
static int draw_code(struct tui *t, int top, int height)
{
	const struct model *m = t->b->m;
	uint32_t s = t->v->nodes[sel_node(t)].scope, frame, mark;
	struct code *c = &t->code;
	size_t i, first, at;
	struct strbuf sb = STRBUF_INIT, after = STRBUF_INIT;
	char *heading;
	int y;

	if (s == MODEL_NONE || s == 0)
		return 0;
	frame = model_is_frame(m, s) ? s : model_caller_frame(m, s);
	if (frame == MODEL_NONE || !m->scopes[frame].addr ||
	    !*model_str(m, m->scopes[frame].lm))
		return 0;
	code_load(t, m->scopes[frame].lm, m->scopes[frame].addr);
	attron(A_BOLD);
	if (!c->d) {
		pane_heading("no source, and no code: ", c->err, "", COLS, &sb);
		mvprintw(top, 0, "%s", sb.buf);
		strbuf_release(&sb);
		attroff(A_BOLD);
		return 1;
	}
	heading = metric_heading(t, c->metric);
	strbuf_addf(&after, " at 0x%llx-0x%llx (%s; %s at each statement's "
		    "first sampled instruction)",
		    (unsigned long long)c->d->start,
		    (unsigned long long)c->d->end, c->d->extent, heading);
	free(heading);
	pane_heading("no source: code of ", model_str(m, c->lm), after.buf,
		     COLS, &sb);
	mvprintw(top, 0, "%s", sb.buf);
	strbuf_release(&sb);
	strbuf_release(&after);
	attroff(A_BOLD);
	mark = m->scopes[s].addr ? m->scopes[s].addr : m->scopes[frame].addr;
	at = disasm_find(c->d, mark);
	first = at < c->d->ninsns && at > (size_t)height / 2 ?
		at - (size_t)height / 2 : 0;
	for (y = 0; y < height; y++) {
		const struct disasm_insn *in;
		char buf[64];

		i = first + (size_t)y;
		move(top + 1 + y, 0);
		clrtoeol();
		if (i >= c->d->ninsns)
			continue;
		in = &c->d->insns[i];
		if (c->gutter[i] != 0)
			snprintf(buf, sizeof(buf), "%9.2e", c->gutter[i]);
		else
			snprintf(buf, sizeof(buf), "%9s", "");
		if (i == at)
			attron(A_REVERSE);
		mvprintw(top + 1 + y, 0, "%s %8llx  ", buf,
			 (unsigned long long)in->addr);
		addnstr(in->text, COLS > 21 ? COLS - 21 : 0);
		if (i == at) {
			chgat(-1, A_REVERSE, 0, NULL);
			attroff(A_REVERSE);
		}
	}
	return 1;
}

/*
 * The data view's detail pane: the sharing detail of the selected object
 * (sharingview.h).  Returns 0 when there is none (the source pane then).
 */
static int draw_sharing(struct tui *t, int top, int height)
{
	const struct vnode *nd = &t->v->nodes[sel_node(t)];
	struct strbuf sb = STRBUF_INIT;
	const char *line, *nl;
	int missing, y = 0;

	if (t->v->kind != VIEW_DATA || nd->scope == MODEL_NONE ||
	    !dataview_is_object(nd->kind))
		return 0;
	if (!t->sv_tried) {
		t->sv_tried = 1;
		t->sv = sharingview_load(t->b->m->dbdir, &missing);
		if (!t->sv && !missing)
			set_status(t, "%s", hpc_lasterr());
	}
	if (!t->sv || sharingview_detail(t->sv, t->b->m->scopes[nd->scope].id,
					 &sb) < 0) {
		strbuf_release(&sb);
		return 0;
	}
	move(top, 0);
	clrtoeol();
	attron(A_BOLD);
	mvprintw(top, 0, "-- sharing of the selected object --");
	attroff(A_BOLD);
	for (line = sb.buf; *line && y < height; line = nl + 1, y++) {
		nl = strchr(line, '\n');
		move(top + 1 + y, 0);
		clrtoeol();
		addnstr(line, (int)(nl - line) < COLS ? (int)(nl - line) : COLS);
	}
	strbuf_release(&sb);
	return 1;
}

static void draw_source(struct tui *t, int top, int height)
{
	const struct vnode *nd = &t->v->nodes[sel_node(t)];
	struct source *s = &t->src;
	int y, first;
	struct strbuf sb = STRBUF_INIT, after = STRBUF_INIT;
	char buf[64], *heading;

	move(top, 0);
	clrtoeol();
	if (!nd->file && draw_code(t, top, height))
		return;
	if (!nd->file) {
		attron(A_BOLD);
		mvprintw(top, 0, "-- no source file for this row --");
		attroff(A_BOLD);
		return;
	}
	source_load(t, nd->file);
	if (!s->found && draw_code(t, top, height))
		return;
	attron(A_BOLD);
	if (!s->found) {
		pane_heading("source not in the database: ", s->path, "", COLS,
			     &sb);
		mvprintw(top, 0, "%s", sb.buf);
		strbuf_release(&sb);
		attroff(A_BOLD);
		return;
	}
	heading = metric_heading(t, s->metric);
	strbuf_addf(&after, " (%s per line)", heading);
	free(heading);
	pane_heading("", s->path, after.buf, COLS, &sb);
	mvaddnstr(top, 0, sb.buf, COLS);
	strbuf_release(&sb);
	strbuf_release(&after);
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

/* Draws row r with the ncols columns cols[] (stdio_layout). */
static void draw_row(struct tui *t, int y, size_t r, const size_t *cols,
		     size_t ncols)
{
	struct view *v = t->v;
	struct browser *b = t->b;
	uint32_t n = v->rows[r].node;
	struct strbuf sb = STRBUF_INIT;
	char cell[256];
	size_t k;

	for (k = 0; k < ncols; k++) {
		stdio_format_cell(v, n, cols[k], cell, sizeof(cell),
				  stdio_col_width(b, cols[k]));
		strbuf_addf(&sb, "%s  ", cell);
	}
	if (t->hscroll) {	/* the whole scope, its first columns cut */
		size_t start = sb.len, len;

		stdio_scope(v, &v->rows[r], SIZE_MAX, shown_names(t), NULL,
			    &sb);
		len = sb.len - start;
		len = t->hscroll < len ? t->hscroll : len;
		memmove(sb.buf + start, sb.buf + start + len,
			sb.len - start - len + 1);
		sb.len -= len;
	} else {
		stdio_scope(v, &v->rows[r], (size_t)COLS > sb.len ?
			    COLS - sb.len : 1, shown_names(t), fit_names(t),
			    &sb);
	}
	if (r == v->sel)
		attron(t->color ? COLOR_PAIR(2) : A_REVERSE);
	mvaddnstr(y, 0, sb.buf, COLS);
	if (r == v->sel) {
		chgat(-1, t->color ? 0 : A_REVERSE, t->color ? 2 : 0, NULL);
		attroff(t->color ? COLOR_PAIR(2) : A_REVERSE);
	}
	strbuf_release(&sb);
}

/* ---- phases view (phaseview.h) ---- */

/* P: loads and shows the phases view; 0, or -1 with the status set. */
static int enter_phases(struct tui *t)
{
	int missing;

	if (!t->pv) {
		t->pv = phaseview_load(t->b->m, &missing);
		if (!t->pv) {
			if (missing)
				set_status(t, "no phases.tsv in this database: "
					   "no synchronization data");
			else
				set_status(t, "%s", hpc_lasterr());
			return -1;
		}
	}
	phaseview_lines(t->pv, t->b->m, t->b->ncols ?
			t->b->cols[t->b->sort_col].metric : -1, 2);
	t->in_phases = 1;
	if (t->psel >= t->pv->nlines)
		t->psel = 0;
	return 0;
}

/* Strip cells of a thread line in reverse video by shade (darker = more
 * waiting), so a late thread is the light row. */
static void shade_strip(int y, const struct strbuf *line)
{
	const char *bar = strchr(line->buf, '|'), *c;

	if (!bar)
		return;
	for (c = bar + 1; *c && *c != '|' && c - line->buf < COLS; c++)
		if (*c == '#' || *c == '=')
			mvchgat(y, (int)(c - line->buf), 1,
				*c == '#' ? A_REVERSE | A_BOLD : A_REVERSE, 0,
				NULL);
}

static void draw_phases(struct tui *t)
{
	struct phaseview *pv = t->pv;
	int h = LINES - 2, y;
	struct strbuf sb = STRBUF_INIT;
	size_t r;

	erase();
	if (t->psel < t->ptop)
		t->ptop = t->psel;
	if (t->psel >= t->ptop + (size_t)h)
		t->ptop = t->psel - (size_t)h + 1;
	strbuf_addf(&sb, " hpcviewer-tui: %s | phases view (%zu sites, %zu "
		    "phase kinds)", t->b->m->title ? t->b->m->title
		    : "experiment", pv->ph->nsites, pv->ph->nkinds);
	attron(t->color ? COLOR_PAIR(1) : A_REVERSE);
	mvaddnstr(0, 0, sb.buf, COLS);
	chgat(-1, t->color ? 0 : A_REVERSE, t->color ? 1 : 0, NULL);
	attroff(t->color ? COLOR_PAIR(1) : A_REVERSE);
	for (y = 0; y < h && t->ptop + (size_t)y < pv->nlines; y++) {
		r = t->ptop + (size_t)y;
		if (pv->lines[r].kind == PV_HEADING)
			attron(A_BOLD | A_UNDERLINE);
		strbuf_reset(&sb);
		phaseview_fit(pv, r, (size_t)COLS, &sb);
		mvaddnstr(1 + y, 0, sb.buf, COLS);
		attroff(A_BOLD | A_UNDERLINE);
		if (pv->lines[r].kind == PV_THREAD)
			shade_strip(1 + y, &sb);
		if (r == t->psel)
			mvchgat(1 + y, 0, -1, t->color ? 0 : A_REVERSE,
				t->color ? 2 : 0, NULL);
	}
	strbuf_reset(&sb);
	if (t->status.len)
		strbuf_addstr(&sb, t->status.buf);
	else
		strbuf_addf(&sb, "line %zu/%zu  (Enter: the code of a phase "
			    "kind; t b f p: other views; ? help, q quit)",
			    t->psel + 1, pv->nlines);
	mvaddnstr(LINES - 1, 0, sb.buf, COLS);
	strbuf_release(&sb);
	refresh();
}

/* Enter on a phase kind or a line of its code: the top-down view there. */
static void phase_code(struct tui *t)
{
	uint32_t s = t->pv->lines[t->psel].scope, n;

	if (s == MODEL_NONE) {
		set_status(t, "Enter opens the code of a phase kind (its "
			   "lines below the phase kinds heading)");
		return;
	}
	t->v = browser_view(t->b, VIEW_TOP_DOWN);
	n = view_scope_node(t->v, s);
	if (n == VNONE) {
		set_status(t, "not in the top-down view");
		return;
	}
	t->in_phases = 0;
	t->v->sel = view_reveal(t->v, n);
}

/* A key in the phases view; 1 when it was one of its own. */
static int phase_key(struct tui *t, int key)
{
	size_t n = t->pv->nlines, page = (size_t)(LINES > 3 ? LINES - 3 : 1);

	switch (key) {
	case KEY_UP: case 'k':
		t->psel -= t->psel > 0;
		return 1;
	case KEY_DOWN: case 'j':
		t->psel += t->psel + 1 < n;
		return 1;
	case KEY_PPAGE:
		t->psel = t->psel > page ? t->psel - page : 0;
		return 1;
	case KEY_NPAGE:
		t->psel = t->psel + page < n ? t->psel + page : n - 1;
		return 1;
	case KEY_HOME: case 'g':
		t->psel = 0;
		return 1;
	case KEY_END: case 'G':
		t->psel = n ? n - 1 : 0;
		return 1;
	case '\n': case '\r': case KEY_ENTER: case KEY_RIGHT:
		phase_code(t);
		return 1;
	case 'P':
		return 1;
	default:
		t->in_phases = 0;	/* every other key leaves it */
		return 0;
	}
}

static void draw(struct tui *t)
{
	struct view *v = t->v;
	struct browser *b = t->b;
	struct strbuf sb = STRBUF_INIT;
	int h = tree_height(t), y;
	size_t *cols, ncols, dropped, k;

	if (t->in_phases) {
		draw_phases(t);
		return;
	}
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
	cols = xmalloc((b->ncols + 1) * sizeof(*cols));
	ncols = stdio_layout(b, (size_t)COLS, cols, &dropped);
	for (k = 0; k < ncols; k++)
		strbuf_addf(&sb, "%*s  ", (int)stdio_col_width(b, cols[k]),
			    b->cols[cols[k]].name);
	strbuf_addstr(&sb, "Scope");
	if (t->hscroll)
		strbuf_addf(&sb, " (scrolled %zu: [ ])", t->hscroll);
	if (dropped)
		strbuf_addf(&sb, " (+%zu columns: m)", dropped);
	attron(A_BOLD | A_UNDERLINE);
	mvaddnstr(1, 0, sb.buf, COLS);
	attroff(A_BOLD | A_UNDERLINE);
	for (y = 0; y < h && v->top + (size_t)y < v->nrows; y++)
		draw_row(t, 2 + y, v->top + (size_t)y, cols, ncols);
	free(cols);
	if (t->show_source && !draw_sharing(t, 2 + h, LINES - 3 - h - 1))
		draw_source(t, 2 + h, LINES - 3 - h - 1);
	strbuf_reset(&sb);
	if (t->status.len)
		strbuf_addstr(&sb, t->status.buf);
	else {
		strbuf_addf(&sb, "row %zu/%zu: ", v->sel + 1, v->nrows);
		stdio_label(v, sel_node(t), shown_names(t), &sb);
		stdio_one_line(&sb, 0);
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
	"  p                functions: procedures and modules, by exclusive cost",
	"  D                data: objects (heap, static, stack) and their accesses",
	"  P                phases: barriers, locks, phase kinds, per thread;",
	"                   Enter on a phase kind or its code: its top-down tree",
	"  H                hot path: expand while a child holds >= 50%",
	"  s  S             next sort column, reverse the sort",
	"  /  n             find (extended regex), find next",
	"  F  U             flatten / unflatten the flat view one level",
	"  z  Z             zoom into the row's subtree / zoom back out",
	"  m                show or hide a metric column",
	"  d                add a derived column: formula over $N or \"name\"",
	"  v                toggle the source pane (data view: an object's",
	"                   sharing: threads x lines, page x node)",
	"  T                per-thread distribution of the row's metric",
	"  <                short C++ names: <...> and (...) for long lists",
	"  [  ]             scroll the scope column left / right (whole names)",
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

/* m: the columns, "N:+name" shown or "N:-name" hidden, as many to a line
 * as fit (lines above the prompt), then the number to switch. */
static void do_columns(struct tui *t)
{
	struct browser *b = t->b;
	struct strbuf *lines = NULL, entry = STRBUF_INIT;
	size_t nl = 0, alloc = 0, c, i;
	char ask[48], buf[32];
	long k;

	for (c = 0; c < b->ncols; c++) {
		strbuf_reset(&entry);
		strbuf_addf(&entry, "%zu:%s%s", c + 1,
			    b->cols[c].hidden ? "-" : "+", b->cols[c].name);
		if (!nl || lines[nl - 1].len + 2 + entry.len > (size_t)COLS) {
			HPC_GROW(lines, nl + 1, alloc);
			strbuf_init(&lines[nl++]);
		} else {
			strbuf_addstr(&lines[nl - 1], "  ");
		}
		strbuf_addstr(&lines[nl - 1], entry.buf);
	}
	for (i = 0; i < nl; i++) {
		int y = LINES - 1 - (int)nl + (int)i;

		if (y >= 0) {
			mvaddnstr(y, 0, lines[i].buf, COLS);
			clrtoeol();
		}
		strbuf_release(&lines[i]);
	}
	free(lines);
	strbuf_release(&entry);
	snprintf(ask, sizeof(ask), "show/hide column (1-%zu): ", b->ncols);
	if (prompt(ask, buf, sizeof(buf)) < 0)
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

/* Appends "thread T (IDENTITY)" ("rank R thread T (IDENTITY)" in an MPI
 * measurement, threadname.h) for the first thread holding value x, and
 * how many more hold it. */
static void add_holder(const struct model *m, const double *vals, int nt,
		       double x, struct strbuf *sb)
{
	struct strbuf id = STRBUF_INIT;
	struct thread_names tn = THREAD_NAMES_INIT;
	int i, first = -1, more = 0;

	for (i = 0; i < nt; i++)
		if (vals[i] == x && first < 0)
			first = i;
		else if (vals[i] == x)
			more++;
	strbuf_addf(&id, "%s/threads.tsv", m->dbdir);
	(void)thread_names_read(&tn, id.buf);	/* else "thread T" */
	strbuf_reset(&id);
	thread_names_label(&tn, (size_t)first, sb);
	thread_names_release(&tn);
	if (!model_thread_name(m, (size_t)first, &id) && id.len)
		strbuf_addf(sb, " (%s)", id.buf);
	if (more)
		strbuf_addf(sb, " and %d more", more);
	strbuf_release(&id);
}

/* T: the selected row's per-thread values of the sort column's metric (its
 * Sum): min, mean and max, which threads hold the min and the max, and a
 * ten-bin text histogram.  Works in every view: a row's value per thread
 * is the sum over the scopes that make up the row (view_node_scopes). */
static void do_threads(struct tui *t)
{
	const struct model *m = t->b->m;
	struct view *v = t->v;
	uint32_t n = sel_node(t), *scopes;
	int met = stdio_sum_metric(m, t->b->cols[t->b->sort_col].metric);
	struct strbuf sb = STRBUF_INIT;
	double *vals = NULL, lo, hi, sum = 0;
	size_t count[10] = { 0 }, most = 0, i, ns = 0;
	int nt = 0, y = 0, width = COLS - 40;
	char *heading;

	if (met >= 0) {
		ns = view_node_scopes(v, n, m->metrics[met].type !=
				      MT_EXCLUSIVE, &scopes);
		nt = model_thread_sum(m, scopes, ns, (size_t)met, &vals);
		free(scopes);
	}
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
	heading = metric_heading(t, met);
	mvprintw(y++, 0, "Per-thread distribution of %s", heading);
	free(heading);
	stdio_label(v, n, shown_names(t), &sb);
	stdio_one_line(&sb, 0);
	mvprintw(y++, 0, "at %s: %d threads", sb.buf, nt);
	mvprintw(y++, 0, "min %.3g  mean %.3g  max %.3g", lo, sum / nt, hi);
	strbuf_reset(&sb);
	add_holder(m, vals, nt, hi, &sb);
	mvprintw(y++, 0, "max on %s", sb.buf);
	strbuf_reset(&sb);
	add_holder(m, vals, nt, lo, &sb);
	mvprintw(y++, 0, "min on %s", sb.buf);
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
	if (t->in_phases && key != 'q' && key != '?' && phase_key(t, key))
		return 1;
	switch (key) {
	case 'q':
		return 0;
	case 'P':
		enter_phases(t);
		break;
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
	case 'p':
		browser_sort_exclusive(t->b);
		switch_view(t, VIEW_FUNCTIONS);
		break;
	case 'D':
		if (t->b->m->data_root == MODEL_NONE)
			set_status(t, "no data-centric tree in this database "
			       "(profiles of hpcrun --data)");
		else
			switch_view(t, VIEW_DATA);
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
	case ']':
		t->hscroll += HSCROLL_STEP;
		break;
	case '[':
		t->hscroll -= t->hscroll < HSCROLL_STEP ? t->hscroll :
			      HSCROLL_STEP;
		break;
	case '<':
		t->short_names = !t->short_names;
		set_status(t, "%s names", t->short_names ? "short" : "full");
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

SCREEN *tui_screen_start(int *color)
{
	SCREEN *scr = newterm(NULL, stdout, stdin);

	if (!scr) {
		hpc_seterr("'%s': cannot use this terminal",
			   getenv("TERM") ? getenv("TERM") : "");
		return NULL;
	}
	screen_active = 1;
	atexit(restore_terminal);
	signal(SIGINT, on_signal);
	signal(SIGTERM, on_signal);
	signal(SIGHUP, on_signal);
	cbreak();
	noecho();
	keypad(stdscr, TRUE);
	curs_set(0);
	*color = 0;
	if (has_colors() && start_color() == OK) {
		use_default_colors();
		init_pair(1, COLOR_BLACK, COLOR_CYAN);
		init_pair(2, COLOR_BLACK, COLOR_YELLOW);
		*color = 1;
	}
	return scr;
}

void tui_screen_end(SCREEN *scr)
{
	restore_terminal();
	delscreen(scr);
	signal(SIGINT, SIG_DFL);
	signal(SIGTERM, SIG_DFL);
	signal(SIGHUP, SIG_DFL);
}

int tui_run(struct browser *b, enum view_kind kind, int phases,
	    int short_names)
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
	t.code.lm = MODEL_NONE;
	t.b = b;
	t.short_names = short_names;
	t.timing = getenv("HPCVIEWER_TUI_TIMING") != NULL;
	/* build every view now, so that no key waits for one (t, b, f, p, D) */
	browser_view(b, VIEW_BOTTOM_UP);
	browser_view(b, VIEW_FLAT);
	browser_view(b, VIEW_FUNCTIONS);
	if (b->m->data_root != MODEL_NONE)
		browser_view(b, VIEW_DATA);
	scr = tui_screen_start(&t.color);
	if (!scr)
		return -1;
	switch_view(&t, kind);
	t.v->sel = 0;
	if (phases)
		enter_phases(&t);
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
	tui_screen_end(scr);
	if (t.have_re)
		regfree(&t.re);
	source_release(&t.src);
	strbuf_release(&t.src.text);
	code_release(&t.code);
	names_free(t.names);
	phaseview_free(t.pv);
	sharingview_free(t.sv);
	strbuf_release(&t.status);
	return 0;
}
