/*
 * fuzz-phases.c - libFuzzer harness for the viewer's reader of phases.tsv
 * (hpcviewer-tui/phasesfile.c) and what draws it: the phases view
 * (hpcviewer-tui/phaseview.c), what 'hpcviewer-tui --view phases DB' and
 * the P key show, and the flame graph's timeline (hpcviewer-tui/timeline.c).
 *
 * Each input is written as phases.tsv into a directory of its own and
 * loaded with phaseview_load() for a model of that directory with no
 * scopes; of a table it accepts, the lines, the text and the CSV are made
 * as the viewer makes them (to /dev/null); of a timeline it accepts, the
 * SVG is drawn (to /dev/null).  A refusal is a correct answer
 * to a bad input; a crash, a sanitizer report, a leak, an exit or a hang
 * is a bug.  Run by hand with a file argument, the harness reads that file
 * once:
 *   build-fuzz/bin/fuzz-phases build-fuzz/artifacts/phases-crash-1234
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fuzz-file.h"
#include "hpcviewer-tui/phaseview.h"
#include "hpcviewer-tui/timeline.h"

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static char *path;
static struct model m;

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	path = fuzz_file_init((*argv)[0], "phases.tsv");
	m.dbdir = strdup(path);
	*strrchr(m.dbdir, '/') = '\0';
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct phaseview *pv;
	struct timeline *tl = NULL;
	int missing;

	fuzz_file_write(path, data, size);
	pv = phaseview_load(&m, &missing);
	if (pv) {
		phaseview_lines(pv, &m, -1, 3);
		phaseview_print(pv, 80, fuzz_devnull());
		phaseview_print_csv(pv, fuzz_devnull());
	}
	phaseview_free(pv);
	if (timeline_load(m.dbdir, &tl) == 0 && tl) {
		struct xmlw *w = xmlw_new(fuzz_devnull());

		timeline_write(tl, w, 0, 1200);
		(void)xmlw_finish(w);
	}
	timeline_free(tl);
	unlink(path);
	return 0;
}
