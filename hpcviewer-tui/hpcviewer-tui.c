/* hpcviewer-tui.c - browse an experiment database in the terminal. */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "check.h"
#include "dataview.h"
#include "error.h"
#include "export.h"
#include "flame.h"
#include "flamegraph.h"
#include "folded.h"
#include "model.h"
#include "opts.h"
#include "outfile.h"
#include "phaseview.h"
#include "sharingview.h"
#include "stdio-out.h"
#include "traceview.h"
#include "tracetui.h"
#include "tui.h"
#include "views.h"

static const char *const usage[] = {
	"[options] DBDIR",
	NULL,
};

static const struct opts_program prog = {
	"hpcviewer-tui", usage,
	"Browse an experiment database: top-down, bottom-up, flat, functions,\n"
	"data, phases and trace views, interactively or as text (--stdio, --csv).",
};

static int parse_view(const char *s, enum view_kind *kind)
{
	int k;

	for (k = 0; k < VIEW_COUNT; k++)
		if (!strcmp(s, view_name((enum view_kind)k))) {
			*kind = (enum view_kind)k;
			return 0;
		}
	return -1;
}

/* Sorts by the column metric name stands for (browser_find_column),
 * shown even when the database hides it; returns -1 after a message. */
static int sort_by_metric(struct browser *b, const char *name)
{
	int c = browser_find_column(b, name);

	if (c < 0) {
		hpc_error("%s", hpc_lasterr());
		return -1;
	}
	b->cols[c].hidden = 0;
	browser_sort(b, (size_t)c, 0);
	return 0;
}

/* --percent-limit PCT: a number from 0 to 100. */
static int parse_percent(const char *s, double *pct)
{
	char *end;

	*pct = strtod(s, &end);
	if (end == s || *end || !(*pct >= 0 && *pct <= 100)) {
		hpc_error("'%s': --percent-limit wants a percentage (0-100)", s);
		return -1;
	}
	return 0;
}

/* The width of text output: --width (0: no limit), else COLUMNS when it
 * is set to a number, else the terminal's when standard output is one,
 * else TEXT_WIDTH, so that text to a pipe or a file has lines a reader
 * can take in. */
#define TEXT_WIDTH 120
static size_t text_width(long width)
{
	const char *cols = getenv("COLUMNS");
	struct winsize ws;
	char *end;
	long c;

	if (width >= 0)
		return (size_t)width;
	if (cols && *cols) {
		c = strtol(cols, &end, 10);
		if (!*end && c > 0)
			return (size_t)c;
	}
	if (isatty(STDOUT_FILENO) && !ioctl(STDOUT_FILENO, TIOCGWINSZ, &ws) &&
	    ws.ws_col > 0)
		return ws.ws_col;
	return TEXT_WIDTH;
}

/* What one output file gets: a picture (flame graph or folded stacks) or
 * an export of the traces (export.h). */
struct output {
	const struct flame *f;
	const char *title;
	const struct timeline *tl;
	int svg;
	const struct traceview *tv;
	size_t depth;
	long (*export)(const struct traceview *, size_t, FILE *);
	long written;		/* what export returned: events written */
};

/* Writes o to path ("-": standard output); 0, or -1 after a message
 * naming the file. */
static int write_output(struct output *o, const char *path)
{
	int to_stdout = !strcmp(path, "-");
	FILE *out = outfile_open(path);
	int ret;

	if (!out) {
		hpc_error("%s", hpc_lasterr());
		return -1;
	}
	if (o->export) {
		o->written = o->export(o->tv, o->depth, out);
		ret = o->written < 0 ? -1 : 0;
	} else if (o->svg)
		ret = flamegraph_write(o->f, o->title, o->tl, out);
	else
		ret = folded_write(o->f, out);
	if (!to_stdout && fclose(out) && !ret) {
		hpc_seterr("%s", strerror(errno));
		ret = -1;
	}
	if (ret < 0)
		hpc_error("'%s': %s", to_stdout ? "standard output" : path,
			  hpc_lasterr());
	return ret;
}

/* --folded and --flame-graph: the flame tree of the metric, written; the
 * flame graph with the timeline of the database's barrier episodes. */
static int pictures(struct browser *b, const char *metric,
		    const char *folded, const char *svg)
{
	int met = flame_metric(b, metric), ret = 0;
	struct timeline *tl = NULL;
	struct flame *f;

	if (met < 0 || (svg && timeline_load(b->m->dbdir, &tl) < 0)) {
		hpc_error("%s", hpc_lasterr());
		return 1;
	}
	f = flame_build(b, met);
	if (folded && write_output(&(struct output){ .f = f }, folded) < 0)
		ret = 1;
	if (svg && write_output(&(struct output){ .f = f, .title = b->m->title,
						  .tl = tl, .svg = 1 }, svg) < 0)
		ret = 1;
	flame_free(f);
	timeline_free(tl);
	return ret;
}

/* --stdio/--csv --view phases; returns the exit status. */
static int print_phases(struct browser *b, int csv, size_t depth,
			size_t width)
{
	int missing, ret = 0;
	struct phaseview *pv = phaseview_load(b->m, &missing);

	if (!pv) {
		if (missing)
			hpc_error("'%s': no phases.tsv: hpcprof found no "
				  "synchronization data (see hpcprof-database(5))",
				  b->m->dbdir);
		else
			hpc_error("%s", hpc_lasterr());
		return 1;
	}
	phaseview_lines(pv, b->m, b->ncols ? b->cols[b->sort_col].metric : -1,
			depth);
	if ((csv ? phaseview_print_csv(pv, stdout)
		 : phaseview_print(pv, width, stdout)) < 0) {
		hpc_error("%s", hpc_lasterr());
		ret = 1;
	}
	phaseview_free(pv);
	return ret;
}

/* --detail NAME: the sharing detail of data object NAME (sharingview.h);
 * returns the exit status. */
static int print_detail(const struct model *m, const char *name)
{
	struct strbuf sb = STRBUF_INIT;
	struct sharingview *sv;
	uint32_t s = dataview_find(m, name, &sb);
	int missing, ret = 0;

	if (s == MODEL_NONE) {
		if (sb.len)
			hpc_error("'%s': ambiguous data object name (%s)",
				  name, sb.buf);
		else
			hpc_error("'%s': no data object of that name", name);
		strbuf_release(&sb);
		return 1;
	}
	sv = sharingview_load(m->dbdir, &missing);
	if (!sv) {
		if (missing)
			hpc_error("'%s': no sharing data in this database "
				  "(profiles of hpcrun --sharing)", m->dbdir);
		else
			hpc_error("%s", hpc_lasterr());
		return 1;
	}
	if (sharingview_detail(sv, m->scopes[s].id, &sb) < 0) {
		hpc_error("'%s': no sharing data for this object", name);
		ret = 1;
	}
	fputs(sb.buf, stdout);
	if (fflush(stdout) || ferror(stdout)) {
		hpc_error("standard output: %s", strerror(errno));
		ret = 1;
	}
	strbuf_release(&sb);
	sharingview_free(sv);
	return ret;
}

/* --time-range FROM:TO, seconds from the traces' start (TO may be
 * empty: to their end); 0, or -1 after a message. */
static int set_window(struct traceview *tv, const char *range)
{
	char *end;
	double from = strtod(range, &end), to = -1;

	if (end == range || *end != ':' ||
	    (end[1] && ((to = strtod(end + 1, &end)), *end || to < 0)) ||
	    from < 0) {
		hpc_error("'%s': --time-range wants FROM:TO, seconds from the "
			  "traces' start (TO empty: to their end)", range);
		return -1;
	}
	if (traceview_window(tv, from, to) < 0) {
		hpc_error("--time-range %s: %s", range, hpc_lasterr());
		return -1;
	}
	return 0;
}

/* --view trace, --perfetto, --firefox: the traces of the database, each
 * file's problem said in a line (traceview.h, invariant 1); returns the
 * exit status. */
static int traces(const struct model *m, int stdio_mode, size_t depth,
		  size_t width, const char *range, const char *perfetto,
		  const char *firefox)
{
	int missing, ret = 0;
	struct traceview *tv = traceview_load(m, &missing);
	char *line, *nl;

	if (!tv) {
		if (missing)
			hpc_error("'%s': no traces in this database (traces/, "
				  "see hpcprof-database(5))", m->dbdir);
		else
			hpc_error("%s", hpc_lasterr());
		return 1;
	}
	for (line = tv->problems.buf; (nl = strchr(line, '\n')); line = nl + 1) {
		hpc_error("%.*s", (int)(nl - line), line);
		ret = 1;
	}
	if (!tv->nrows) {
		;	/* every trace refused, said above */
	} else if (range && set_window(tv, range) < 0) {
		ret = 1;
	} else if (perfetto || firefox) {
		struct output o = { .tv = tv, .depth = depth };
		int to_file = perfetto && strcmp(perfetto, "-");

		o.export = export_perfetto;
		if (perfetto && write_output(&o, perfetto) < 0)
			ret = 1;
		else if (perfetto && o.written > EXPORT_CHROME_EVENTS)
			hpc_warn("%s%s%s: %ld slices; chrome://tracing slows "
				 "past about %d (ui.perfetto.dev takes more): "
				 "--depth or --time-range write fewer",
				 to_file ? "'" : "", to_file ? perfetto :
				 "standard output", to_file ? "'" : "",
				 o.written, EXPORT_CHROME_EVENTS);
		o.export = export_firefox;
		if (firefox && write_output(&o, firefox) < 0)
			ret = 1;
	} else if ((stdio_mode ? traceview_print(tv, depth, width, stdout)
			       : tracetui_run(tv, depth)) < 0) {
		hpc_error("%s", hpc_lasterr());
		ret = 1;
	}
	traceview_free(tv);
	return ret;
}

int main(int argc, char **argv)
{
	int stdio_mode = 0, csv = 0, short_names = 0, ret = 0, phases;
	int check = 0, trace;
	const char *view = NULL, *metric = NULL, *limit = NULL;
	const char *folded = NULL, *svg = NULL, *detail = NULL;
	const char *perfetto = NULL, *firefox = NULL, *range = NULL;
	const char *metrics = NULL;
	long depth = LONG_MIN, width = -1;
	const struct opt opts[] = {
		OPT_FLAG(0, "stdio", &stdio_mode, "print the view as text and exit"),
		OPT_FLAG(0, "csv", &csv, "print CSV (implies --stdio)"),
		OPT_STRING(0, "view", &view, "VIEW",
			   "top-down, bottom-up, flat, functions, data, phases or trace (default top-down)"),
		OPT_STRING(0, "metric", &metric, "NAME",
			   "sort by (pictures: draw) metric NAME (E, I, cpu-clock, ...)"),
		OPT_STRING(0, "metrics", &metrics, "LIST",
			   "show the columns of these metrics (comma-separated; all: every one)"),
		OPT_INT(0, "depth", &depth, "N",
			"with --stdio: print N levels below the root (default all); trace: show call-path depth N (1: outermost frame; default the deepest)"),
		OPT_STRING(0, "percent-limit", &limit, "PCT",
			   "text, CSV: leave out rows under PCT% of the sort column"),
		OPT_INT(0, "width", &width, "N",
			"text: lines of at most N characters (0: no limit)"),
		OPT_FLAG(0, "short-names", &short_names,
			 "collapse long template and parameter lists"),
		OPT_STRING(0, "detail", &detail, "OBJECT",
			   "print the sharing detail of data object OBJECT and exit"),
		OPT_STRING(0, "folded", &folded, "FILE",
			   "write folded stacks of the calling contexts to FILE (- for stdout)"),
		OPT_STRING(0, "flame-graph", &svg, "FILE",
			   "write a flame graph (SVG) of the calling contexts to FILE"),
		OPT_STRING(0, "perfetto", &perfetto, "FILE",
			   "write the traces as Chrome trace-event JSON (Perfetto, chrome://tracing, speedscope) to FILE"),
		OPT_STRING(0, "firefox", &firefox, "FILE",
			   "write the traces as a Firefox Profiler (Gecko) profile to FILE"),
		OPT_STRING(0, "time-range", &range, "FROM:TO",
			   "trace view and exports: only seconds FROM to TO of the traces"),
		OPT_FLAG(0, "check-views", &check,
			 "check that every view adds up to the totals and exit (3: it does not)"),
		OPT_END(),
	};
	enum view_kind kind;
	struct model *m;
	struct browser *b;
	struct stdio_opts so = { 0, 0, NULL, NULL };
	struct names *names = NULL;
	int first;

	hpc_set_progname(argv[0]);
	first = opts_parse(argc, argv, &prog, opts, 0);
	if (first < 0)
		return 2;
	if (first != argc - 1) {
		hpc_error("expected one database directory (see 'hpcviewer-tui --help')");
		return 2;
	}
	if ((folded || svg) &&
	    (stdio_mode || csv || (view && strcmp(view, "top-down")))) {
		hpc_error("--folded and --flame-graph draw the calling contexts; "
			  "not with --stdio, --csv or --view");
		return 2;
	}
	if (folded && svg && !strcmp(folded, "-") && !strcmp(svg, "-")) {
		hpc_error("--folded and --flame-graph cannot both write to "
			  "standard output");
		return 2;
	}
	if ((perfetto || firefox) &&
	    (stdio_mode || csv || folded || svg || (view && strcmp(view, "trace")))) {
		hpc_error("--perfetto and --firefox write the traces; not with "
			  "--stdio, --csv, --folded, --flame-graph or another --view");
		return 2;
	}
	if (perfetto && firefox && !strcmp(perfetto, "-") && !strcmp(firefox, "-")) {
		hpc_error("--perfetto and --firefox cannot both write to "
			  "standard output");
		return 2;
	}
	if (!view)
		view = perfetto || firefox ? "trace" : "top-down";
	phases = !strcmp(view, "phases");
	trace = !strcmp(view, "trace");
	kind = VIEW_TOP_DOWN;
	if (!phases && !trace && parse_view(view, &kind) < 0) {
		hpc_error("'%s': unknown view (top-down, bottom-up, flat, functions, data, phases or trace)",
			  view);
		return 2;
	}
	if (trace && csv) {
		hpc_error("the trace view is text (--stdio), not CSV");
		return 2;
	}
	if (range && !trace) {
		hpc_error("--time-range is for the trace view and its exports");
		return 2;
	}
	if (csv)
		stdio_mode = 1;
	if (depth < 0 && depth != LONG_MIN) {
		hpc_error("'%ld': --depth wants a number of levels (0 or more)",
			  depth);
		return 2;
	}
	if (limit && parse_percent(limit, &so.percent_limit) < 0)
		return 2;
	if (width < -1) {
		hpc_error("'%ld': --width wants a number of characters "
			  "(0: no limit)", width);
		return 2;
	}
	if (csv && width > 0) {
		hpc_error("--width shortens text lines; CSV fields are never shortened");
		return 2;
	}
	m = model_load(argv[first]);
	if (!m) {
		hpc_error("%s", hpc_lasterr());
		return 1;
	}
	if (kind == VIEW_DATA && m->data_root == MODEL_NONE) {
		hpc_error("'%s': no data-centric tree in this database "
			  "(profiles of hpcrun --data)", argv[first]);
		model_free(m);
		return 1;
	}
	b = browser_new(m);
	if (metrics && browser_show_columns(b, metrics) < 0) {
		hpc_error("%s", hpc_lasterr());
		ret = 1;
	} else if (!metrics && !csv) {
		browser_show_default(b);
	}
	if (short_names || (stdio_mode && !csv))
		names = names_new(m);
	so.names = short_names ? names : NULL;
	so.fit = names;
	if (!metric && kind == VIEW_FUNCTIONS)
		browser_sort_exclusive(b);
	if (ret) {
		;	/* --metrics named no column */
	} else if (check) {
		ret = check_views(b, stdout) ? 3 : 0;
		if (fflush(stdout) || ferror(stdout)) {
			hpc_error("standard output: %s", strerror(errno));
			ret = 1;
		}
	} else if (detail) {
		ret = print_detail(m, detail);
	} else if (trace) {
		ret = traces(m, stdio_mode, depth == LONG_MIN ? 0 : (size_t)depth,
			     text_width(width), range, perfetto, firefox);
	} else if (folded || svg) {
		ret = pictures(b, metric, folded, svg);
	} else if (metric && sort_by_metric(b, metric) < 0) {
		ret = 1;
	} else if (stdio_mode && phases) {
		ret = print_phases(b, csv, depth == LONG_MIN ? 3 : (size_t)depth,
				   csv ? 0 : text_width(width));
	} else if (stdio_mode) {
		struct view *v = browser_view(b, kind);

		/* the functions view lists procedures; --depth shows callers */
		if (depth == LONG_MIN)
			depth = kind == VIEW_FUNCTIONS ? 1 : -1;
		view_expand_depth(v, depth);
		so.width = csv ? 0 : text_width(width);
		if ((csv ? stdio_print_csv(v, &so, stdout) :
		     stdio_print(v, &so, stdout)) < 0) {
			hpc_error("%s", hpc_lasterr());
			ret = 1;
		}
	} else if (tui_run(b, kind, phases, short_names) < 0) {
		hpc_error("%s", hpc_lasterr());
		ret = 1;
	}
	names_free(names);
	browser_free(b);
	model_free(m);
	return ret;
}
