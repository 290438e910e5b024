/* hpcviewer-tui.c - browse an experiment database in the terminal (#6). */
#include <stdlib.h>

#include "error.h"
#include "opts.h"

static const char *const usage[] = {
	"[options] DBDIR",
	NULL,
};

static const struct opts_program prog = {
	"hpcviewer-tui", usage,
	"Browse an experiment database: top-down, bottom-up and flat views,\n"
	"interactively or as text (--stdio, --csv).",
};

int main(int argc, char **argv)
{
	int stdio_mode = 0, csv = 0;
	const char *view = "top-down", *metric = NULL;
	long depth = -1;
	const struct opt opts[] = {
		OPT_FLAG(0, "stdio", &stdio_mode, "print the view as text and exit"),
		OPT_FLAG(0, "csv", &csv, "with --stdio: print CSV"),
		OPT_STRING(0, "view", &view, "VIEW",
			   "top-down, bottom-up or flat (default top-down)"),
		OPT_STRING(0, "metric", &metric, "NAME", "sort by metric NAME"),
		OPT_INT(0, "depth", &depth, "N", "with --stdio: print N levels"),
		OPT_END(),
	};
	int first;

	hpc_set_progname(argv[0]);
	first = opts_parse(argc, argv, &prog, opts, 0);
	if (first < 0)
		return 2;
	if (first != argc - 1) {
		hpc_error("expected one database directory (see 'hpcviewer-tui --help')");
		return 2;
	}
	hpc_error("'%s': the viewer is not implemented yet", argv[first]);
	return 1;
}
