/* traceview.c - see traceview.h. */
#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "error.h"
#include "model.h"
#include "stdio-out.h"
#include "traceview.h"

static int by_id(const void *a, const void *b)
{
	const struct trace_id *x = a, *y = b;

	return (x->id > y->id) - (x->id < y->id);
}

uint32_t traceview_scope(const struct traceview *tv, uint32_t id)
{
	size_t lo = 0, hi = tv->nids;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (tv->ids[mid].id == id)
			return tv->ids[mid].scope;
		if (tv->ids[mid].id < id)
			lo = mid + 1;
		else
			hi = mid;
	}
	return MODEL_NONE;
}

/* A trace's records that name no scope of the model (invariant 2). */
struct unknown_ids {
	const struct traceview *tv;
	uint64_t n;
	uint32_t first;
};

/* Counts id when it names no scope; never ends the kept records. */
static int count_unknown(uint32_t id, void *arg)
{
	struct unknown_ids *u = arg;

	if (traceview_scope(u->tv, id) == MODEL_NONE && !u->n++)
		u->first = id;
	return 1;
}

/* The table of ids (invariant 2) and the longest path in frames: the
 * code scopes outside per-phase profiles, parents first (model.h,
 * invariant 1). */
static void index_scopes(struct traceview *tv)
{
	const struct model *m = tv->m;
	uint32_t *frames = xcalloc(m->nscopes ? m->nscopes : 1, sizeof(*frames));
	size_t s;

	tv->ids = xcalloc(m->nscopes ? m->nscopes : 1, sizeof(*tv->ids));
	for (s = 1; s < m->nscopes; s++) {
		const struct scope *sc = &m->scopes[s];

		frames[s] = (sc->parent == MODEL_NONE ? 0 : frames[sc->parent]) +
			    (uint32_t)model_is_frame(m, (uint32_t)s);
		if (frames[s] > tv->max_frames)
			tv->max_frames = frames[s];
		if (sc->id && !sc->phase) {
			tv->ids[tv->nids].id = sc->id;
			tv->ids[tv->nids++].scope = (uint32_t)s;
		}
	}
	qsort(tv->ids, tv->nids, sizeof(*tv->ids), by_id);
	tv->max_frames++;	/* room for a path without frames */
	free(frames);
}

static int by_number(const void *a, const void *b)
{
	size_t x = *(const size_t *)a, y = *(const size_t *)b;

	return (x > y) - (x < y);
}

/* The thread numbers N of DIR's N.hpctrace files, sorted; -1 when DIR
 * cannot be opened. */
static long trace_numbers(const char *dir, size_t **out)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	size_t n = 0, alloc = 0;

	*out = NULL;
	if (!d)
		return -1;
	while ((e = readdir(d))) {
		const char *p = e->d_name;
		char *end;
		unsigned long long v;

		if (*p < '0' || *p > '9' || strlen(p) > 20 + strlen(HPCTRACE_SUFFIX))
			continue;
		errno = 0;
		v = strtoull(p, &end, 10);
		if (errno || strcmp(end, HPCTRACE_SUFFIX) || (p[0] == '0' && end != p + 1))
			continue;
		HPC_GROW(*out, n + 1, alloc);
		(*out)[n++] = (size_t)v;
	}
	closedir(d);
	qsort(*out, n, sizeof(**out), by_number);
	return (long)n;
}

/* Adds thread's trace as a row, checked while *checked, the bytes of the
 * traces checked so far, stays within TRACEVIEW_CHECK_BYTES. */
static void add_row(struct traceview *tv, size_t thread, size_t *alloc,
		    uint64_t *checked)
{
	char *path = hpctrace_db_path(tv->m->dbdir, thread);
	struct hpctrace *t = hpctrace_open(path);
	struct strbuf name = STRBUF_INIT;
	struct trace_row *r;

	free(path);
	if (!t) {
		strbuf_addf(&tv->problems, "%s\n", hpc_lasterr());
		return;
	}
	if (*checked + t->map_len <= TRACEVIEW_CHECK_BYTES) {
		struct unknown_ids u = { tv, 0, 0 };

		*checked += t->map_len;
		hpctrace_check(t, count_unknown, &u);
		if (u.n)
			strbuf_addf(&tv->problems, "'%s': %" PRIu64 " record%s "
				    "name%s no scope of the database (the "
				    "first: id %" PRIu32 "), shown as no "
				    "activity\n", t->path, u.n,
				    u.n == 1 ? "" : "s", u.n == 1 ? "s" : "",
				    u.first);
	}
	if (t->problem)
		strbuf_addf(&tv->problems, "%s\n", t->problem);
	if (!t->nrecords) {
		hpctrace_close(t);
		return;
	}
	HPC_GROW(tv->rows, tv->nrows + 1, *alloc);
	r = &tv->rows[tv->nrows];
	thread_names_label(&tv->names, thread, &name);
	r->thread = thread;
	r->name = strbuf_detach(&name, NULL);
	r->process = thread < tv->names.n ? tv->names.th[thread].process : -1;
	r->trace = t;
	if (!tv->nrows || t->tmin < tv->t0)
		tv->t0 = t->tmin;
	if (!tv->nrows || t->tmax > tv->t1)
		tv->t1 = t->tmax;
	tv->nrows++;
}

struct traceview *traceview_load(const struct model *m, int *missing)
{
	struct traceview *tv = xcalloc(1, sizeof(*tv));
	struct strbuf path = STRBUF_INIT;
	size_t *numbers, alloc = 0;
	uint64_t checked = 0;
	long n, i;

	*missing = 0;
	tv->m = m;
	strbuf_init(&tv->problems);
	strbuf_addf(&path, "%s/threads.tsv", m->dbdir);
	if (thread_names_read(&tv->names, path.buf) < 0) {
		strbuf_release(&path);
		traceview_free(tv);
		return NULL;
	}
	strbuf_reset(&path);
	strbuf_addf(&path, "%s/traces", m->dbdir);
	n = trace_numbers(path.buf, &numbers);
	strbuf_release(&path);
	if (n > 0)
		index_scopes(tv);
	for (i = 0; i < n; i++)
		add_row(tv, numbers[i], &alloc, &checked);
	free(numbers);
	if (!tv->nrows && !tv->problems.len) {
		*missing = 1;
		traceview_free(tv);
		return NULL;
	}
	tv->from = tv->t0;
	tv->to = tv->t1 > tv->t0 ? tv->t1 : tv->t0 + 1;
	return tv;
}

int traceview_window(struct traceview *tv, double from_s, double to_s)
{
	double span = (double)(tv->t1 - tv->t0) / 1e9;

	if (from_s < 0)
		from_s = 0;
	if (to_s >= 0 && !(from_s < to_s))
		return hpc_seterr("%g s to %g s: no time", from_s, to_s);
	if (to_s < 0 || to_s > span)
		to_s = span;
	if (!(from_s < to_s))
		return hpc_seterr("from %g s: the traces hold %g s", from_s,
				  span);
	tv->from = tv->t0 + (uint64_t)(from_s * 1e9);
	tv->to = tv->t0 + (uint64_t)(to_s * 1e9);
	if (tv->to <= tv->from)
		tv->to = tv->from + 1;
	return 0;
}

void traceview_span(const struct traceview *tv, size_t r, uint64_t *first,
		    uint64_t *end)
{
	const struct hpctrace *t = tv->rows[r].trace;
	uint64_t i = hpctrace_find(t, tv->from);

	*first = i == UINT64_MAX ? 0 : i;
	i = hpctrace_find(t, tv->to);
	*end = i == UINT64_MAX ? 0 : i + 1;
	if (*end < *first)	/* an unchecked trace out of order */
		*end = *first;
}

void traceview_free(struct traceview *tv)
{
	size_t i;

	if (!tv)
		return;
	for (i = 0; i < tv->nrows; i++) {
		free(tv->rows[i].name);
		hpctrace_close(tv->rows[i].trace);
	}
	free(tv->rows);
	free(tv->ids);
	thread_names_release(&tv->names);
	strbuf_release(&tv->problems);
	free(tv);
}

size_t traceview_frames(const struct traceview *tv, uint32_t s,
			uint32_t *out)
{
	const struct model *m = tv->m;
	size_t n = 0, i;
	uint32_t f;

	for (f = s; f != MODEL_NONE && n < tv->max_frames; f = m->scopes[f].parent)
		if (model_is_frame(m, f))
			out[n++] = f;
	if (!n)
		out[n++] = s;	/* a path without frames shows its leaf */
	for (i = 0; i < n / 2; i++) {
		uint32_t t = out[i];

		out[i] = out[n - 1 - i];
		out[n - 1 - i] = t;
	}
	return n;
}

enum trace_state traceview_at(const struct traceview *tv, size_t r,
			      uint64_t time, uint32_t *scope)
{
	const struct hpctrace *t = tv->rows[r].trace;
	uint64_t i = hpctrace_find(t, time);

	*scope = MODEL_NONE;
	if (i == UINT64_MAX)
		return TRACE_BEFORE;
	return traceview_record(tv, hpctrace_get(t, i), scope);
}

enum trace_state traceview_record(const struct traceview *tv,
				  struct hpctrace_rec r, uint32_t *scope)
{
	*scope = r.id == HPCTRACE_ID_NONE ? MODEL_NONE :
		 traceview_scope(tv, r.id & HPCTRACE_ID_MASK);
	if (*scope == MODEL_NONE)
		return TRACE_IDLE;
	return r.id & HPCTRACE_ID_WAIT ? TRACE_WAIT : TRACE_RUN;
}

void traceview_where(const struct traceview *tv, uint32_t s,
		     struct strbuf *out)
{
	const struct scope *sc = &tv->m->scopes[s];
	const char *file = model_str(tv->m, sc->file), *base;

	if (!*file)
		return;
	base = strrchr(file, '/');
	strbuf_addstr(out, base ? base + 1 : file);
	if (sc->line)
		strbuf_addf(out, ":%u", sc->line);
}

/* ---- pictures ---- */

static const char letters[] =
	"abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";

/* A procedure's letter: the first of its name when free, else the first
 * free one of letters[], else '*'; taken[] marks those given. */
static char pick_letter(const char *name, char *taken)
{
	const char *l = name[0] ? strchr(letters, name[0]) : NULL;
	size_t i;

	if (l && !taken[l - letters]) {
		taken[l - letters] = 1;
		return *l;
	}
	for (i = 0; i < sizeof(letters) - 1; i++)
		if (!taken[i]) {
			taken[i] = 1;
			return letters[i];
		}
	return '*';
}

static const struct model *sort_model;	/* for by_share */
static const struct trace_proc *sort_procs;

/* Legend order: most cells first, then by name. */
static int by_share(const void *a, const void *b)
{
	const struct trace_proc *x = &sort_procs[*(const uint32_t *)a];
	const struct trace_proc *y = &sort_procs[*(const uint32_t *)b];

	if (x->cells != y->cells)
		return x->cells > y->cells ? -1 : 1;
	return strcmp(model_str(sort_model, x->name),
		      model_str(sort_model, y->name));
}

/* The middle of column c of n in [from, to). */
static uint64_t column_time(uint64_t from, uint64_t to, size_t c, size_t n)
{
	unsigned __int128 span = to - from;

	return from + (uint64_t)(span * (2 * c + 1) / (2 * (unsigned __int128)n));
}

uint64_t trace_picture_time(const struct trace_picture *p, size_t c)
{
	return column_time(p->from, p->to, c, p->ncols);
}

/* The legend index of frame f's procedure, added when new. */
static uint32_t proc_of(struct trace_picture *p, uint32_t *by_name,
			size_t *alloc, const struct model *m, uint32_t f)
{
	uint32_t name = m->scopes[f].name;

	if (by_name[name] == UINT32_MAX) {
		HPC_GROW(p->procs, p->nprocs + 1, *alloc);
		p->procs[p->nprocs].name = name;
		p->procs[p->nprocs].frame = f;
		p->procs[p->nprocs].cells = 0;
		by_name[name] = (uint32_t)p->nprocs++;
	}
	return by_name[name];
}

void trace_picture_make(const struct traceview *tv, uint64_t from,
			uint64_t to, size_t row0, size_t nrows, size_t ncols,
			size_t depth, struct trace_picture *p)
{
	const struct model *m = tv->m;
	uint32_t *by_name = xmalloc(m->nstrs * sizeof(*by_name));
	uint32_t *path = xmalloc(tv->max_frames * sizeof(*path));
	uint32_t *rank, *order;
	struct trace_proc *sorted;
	char taken[sizeof(letters)];
	size_t alloc = 0, r, c, i;

	memset(p, 0, sizeof(*p));
	memset(by_name, 0xff, m->nstrs * sizeof(*by_name));
	p->from = from;
	p->to = to > from ? to : from + 1;
	if (row0 > tv->nrows)
		row0 = tv->nrows;
	if (nrows > tv->nrows - row0)
		nrows = tv->nrows - row0;
	p->row0 = row0;
	p->nrows = nrows;
	p->ncols = ncols;
	p->depth = depth;
	p->cells = xcalloc(nrows * ncols + 1, sizeof(*p->cells));
	for (r = 0; r < nrows; r++) {
		for (c = 0; c < ncols; c++) {
			uint32_t s, *cell = &p->cells[r * ncols + c];
			enum trace_state st = traceview_at(tv, row0 + r,
				column_time(p->from, p->to, c, ncols), &s);
			size_t n;

			if (st == TRACE_BEFORE || st == TRACE_IDLE) {
				*cell = st == TRACE_BEFORE ? TRACE_CELL_BEFORE
							   : TRACE_CELL_IDLE;
				continue;
			}
			n = traceview_frames(tv, s, path);
			*cell = proc_of(p, by_name, &alloc, m,
					path[depth && depth <= n ? depth - 1 : n - 1]);
			p->procs[*cell].cells++;
			p->busy++;
			if (st == TRACE_WAIT)
				*cell |= TRACE_CELL_WAIT;
		}
	}
	/* sort the legend, then renumber the cells */
	order = xmalloc((p->nprocs + 1) * sizeof(*order));
	rank = xmalloc((p->nprocs + 1) * sizeof(*rank));
	sorted = xmalloc((p->nprocs + 1) * sizeof(*sorted));
	for (i = 0; i < p->nprocs; i++)
		order[i] = (uint32_t)i;
	sort_model = m;
	sort_procs = p->procs;
	qsort(order, p->nprocs, sizeof(*order), by_share);
	memset(taken, 0, sizeof(taken));
	for (i = 0; i < p->nprocs; i++) {
		sorted[i] = p->procs[order[i]];
		sorted[i].letter = pick_letter(model_str(m, sorted[i].name), taken);
		rank[order[i]] = (uint32_t)i;
	}
	free(p->procs);
	p->procs = sorted;
	for (i = 0; i < nrows * ncols; i++)
		if (p->cells[i] < TRACE_CELL_IDLE)
			p->cells[i] = rank[p->cells[i] & ~TRACE_CELL_WAIT] |
				      (p->cells[i] & TRACE_CELL_WAIT);
	free(order);
	free(rank);
	free(path);
	free(by_name);
}

void trace_picture_release(struct trace_picture *p)
{
	free(p->cells);
	free(p->procs);
	memset(p, 0, sizeof(*p));
}

char trace_picture_char(const struct trace_picture *p, uint32_t cell)
{
	if (cell == TRACE_CELL_BEFORE)
		return ' ';
	if (cell == TRACE_CELL_IDLE)
		return '.';
	if (cell & TRACE_CELL_WAIT)
		return '=';
	return p->procs[cell].letter;
}

/* ---- text ---- */

static void add_seconds(struct strbuf *sb, uint64_t ns)
{
	strbuf_addf(sb, "%.6g s", (double)ns / 1e9);
}

/* Columns of a text line: what width leaves beside the names, at least
 * 10. */
#define TRACE_TEXT_MIN_COLS 10
#define TRACE_TEXT_WIDTH 100

int traceview_print(const struct traceview *tv, size_t depth, size_t width,
		    FILE *out)
{
	struct trace_picture p;
	struct strbuf sb = STRBUF_INIT;
	size_t namew = 0, ncols, r, c, i;
	uint64_t span = tv->to - tv->from;
	int whole = tv->from == tv->t0 && tv->to == tv->t1;

	for (r = 0; r < tv->nrows; r++)
		if (strlen(tv->rows[r].name) > namew)
			namew = strlen(tv->rows[r].name);
	if (!width)
		width = TRACE_TEXT_WIDTH;
	ncols = width > namew + 3 + TRACE_TEXT_MIN_COLS ? width - namew - 3
							: TRACE_TEXT_MIN_COLS;
	trace_picture_make(tv, tv->from, tv->to, 0, tv->nrows, ncols, depth, &p);
	strbuf_addf(&sb, "trace: %zu threads, ", tv->nrows);
	if (!whole) {
		add_seconds(&sb, tv->from - tv->t0);
		strbuf_addstr(&sb, " to ");
		add_seconds(&sb, tv->to - tv->t0);
		strbuf_addstr(&sb, ", ");
	}
	add_seconds(&sb, span);
	strbuf_addf(&sb, " in %zu columns of ", ncols);
	add_seconds(&sb, span / ncols);
	if (depth)
		strbuf_addf(&sb, ", call-path depth %zu\n", depth);
	else
		strbuf_addstr(&sb, ", deepest frames\n");
	for (r = 0; r < tv->nrows; r++) {
		strbuf_addf(&sb, "%-*s |", (int)namew, tv->rows[r].name);
		for (c = 0; c < ncols; c++)
			strbuf_addch(&sb, trace_picture_char(&p, p.cells[r * ncols + c]));
		strbuf_addstr(&sb, "|\n");
	}
	{
		struct strbuf start = STRBUF_INIT, end = STRBUF_INIT;

		add_seconds(&start, tv->from - tv->t0);
		add_seconds(&end, tv->to - tv->t0);
		strbuf_addf(&sb, "%-*s  %s", (int)namew, "", start.buf);
		if (ncols > start.len + end.len + 1)
			strbuf_addf(&sb, "%*s", (int)(ncols - start.len), end.buf);
		strbuf_release(&start);
		strbuf_release(&end);
	}
	strbuf_addf(&sb, "\nlegend: share of the %zu cells with a sample; "
		    "= waiting, . no activity\n", p.busy);
	for (i = 0; i < p.nprocs; i++) {
		const struct trace_proc *pr = &p.procs[i];
		size_t start = sb.len;

		strbuf_addf(&sb, "  %c  %5.1f%%  %s", pr->letter,
			    100.0 * (double)pr->cells / (double)p.busy,
			    model_str(tv->m, pr->name));
		if (pr->frame != MODEL_NONE) {
			strbuf_addstr(&sb, "  ");
			traceview_where(tv, pr->frame, &sb);
		}
		stdio_one_line(&sb, start);
		strbuf_addch(&sb, '\n');
	}
	trace_picture_release(&p);
	fputs(sb.buf, out);
	strbuf_release(&sb);
	if (fflush(out) || ferror(out))
		return hpc_seterr("standard output: %s", strerror(errno));
	return 0;
}
