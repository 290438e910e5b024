/* hpcviewer-tui.c - browse an experiment database in the terminal (#6). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "error.h"
#include "model.h"
#include "opts.h"
#include "stdio-out.h"
#include "tui.h"
#include "views.h"

static const char *const usage[] = {
	"[options] DBDIR",
	NULL,
};

static const struct opts_program prog = {
	"hpcviewer-tui", usage,
	"Browse an experiment database: top-down, bottom-up and flat views,\n"
	"interactively or as text (--stdio, --csv).",
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

/* Sorts by the column showing metric name; returns -1 after a message. */
static int sort_by_metric(struct browser *b, const char *name)
{
	int met = model_find_metric(b->m, name);
	size_t c;

	if (met < 0) {
		hpc_error("%s", hpc_lasterr());
		return -1;
	}
	for (c = 0; c < b->ncols; c++)
		if (b->cols[c].metric == met)
			break;
	if (c == b->ncols) {
		hpc_error("'%s': metric is not shown (show=\"4\")", name);
		return -1;
	}
	browser_sort(b, c, 0);
	return 0;
}

int main(int argc, char **argv)
{
	int stdio_mode = 0, csv = 0, ret = 0;
	const char *view = "top-down", *metric = NULL;
	long depth = -1;
	const struct opt opts[] = {
		OPT_FLAG(0, "stdio", &stdio_mode, "print the view as text and exit"),
		OPT_FLAG(0, "csv", &csv, "print CSV (implies --stdio)"),
		OPT_STRING(0, "view", &view, "VIEW",
			   "top-down, bottom-up or flat (default top-down)"),
		OPT_STRING(0, "metric", &metric, "NAME", "sort by metric NAME"),
		OPT_INT(0, "depth", &depth, "N",
			"with --stdio: print N levels below the root (default all)"),
		OPT_END(),
	};
	enum view_kind kind;
	struct model *m;
	struct browser *b;
	int first;

	hpc_set_progname(argv[0]);
	first = opts_parse(argc, argv, &prog, opts, 0);
	if (first < 0)
		return 2;
	if (first != argc - 1) {
		hpc_error("expected one database directory (see 'hpcviewer-tui --help')");
		return 2;
	}
	if (parse_view(view, &kind) < 0) {
		hpc_error("'%s': unknown view (top-down, bottom-up or flat)", view);
		return 2;
	}
	if (csv)
		stdio_mode = 1;
	m = model_load(argv[first]);
	if (!m) {
		hpc_error("%s", hpc_lasterr());
		return 1;
	}
	b = browser_new(m);
	if (metric && sort_by_metric(b, metric) < 0) {
		ret = 1;
	} else if (stdio_mode) {
		struct view *v = browser_view(b, kind);

		view_expand_depth(v, depth);
		if ((csv ? stdio_print_csv(v, stdout) : stdio_print(v, stdout)) < 0) {
			hpc_error("%s", hpc_lasterr());
			ret = 1;
		}
	} else if (tui_run(b, kind) < 0) {
		hpc_error("%s", hpc_lasterr());
		ret = 1;
	}
	browser_free(b);
	model_free(m);
	return ret;
}
