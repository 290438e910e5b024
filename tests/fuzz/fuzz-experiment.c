/*
 * fuzz-experiment.c - libFuzzer harness for the viewer's loader of
 * experiment.xml (hpcviewer-tui/model.c), what 'hpcviewer-tui DB' and
 * 'hpcviewer-tui --stdio DB' read first.
 *
 * Each input is written as experiment.xml into a directory of its own (the
 * loader takes a path) and loaded with model_load(); of a model it
 * accepts, every scope is asked for each metric's value and its caller
 * frame, and the first scope for its per-thread values (the directory has
 * no threads.tsv: none).  A refusal (NULL) is a correct answer to a bad
 * input; a crash, a sanitizer report, a leak, an exit or a hang is a bug.
 * Run by hand with a file argument, the harness loads that file once:
 *   build-fuzz/bin/fuzz-experiment build-fuzz/artifacts/experiment-crash-1234
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <unistd.h>

#include "fuzz-file.h"
#include "hpcviewer-tui/model.h"

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static char *path;

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	path = fuzz_file_init((*argv)[0], "experiment.xml");
	return 0;
}

/* What the views ask of a model. */
static void walk(const struct model *m)
{
	double *values = NULL;
	size_t met;
	uint32_t s;

	for (s = 0; s < m->nscopes; s++) {
		for (met = 0; met < m->nmetrics; met++)
			model_value(m, s, met);
		model_caller_frame(m, s);
		model_str(m, m->scopes[s].name);
	}
	if (m->nmetrics && model_thread_values(m, 0, 0, &values) > 0)
		free(values);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct model *m;

	fuzz_file_write(path, data, size);
	m = model_load(path);
	if (m)
		walk(m);
	model_free(m);
	unlink(path);
	return 0;
}
