/*
 * fuzz-config.c - libFuzzer harness for hpcprof's metric configuration
 * reader (hpcprof/config.c: 'hpcprof -M FILE', HPCPROF/HPCVIEW XML with
 * MathML COMPUTE), and the formula parser its COMPUTE text goes to next.
 *
 * Each input is written to a file (the reader takes a path) and read with
 * config_read(); of a configuration it accepts, each FILE metric is asked
 * whether it selects a metric (as hpcprof asks of every profile) and each
 * COMPUTE is parsed and evaluated as hpcprof would, with every name known.
 * A refusal is a correct answer to a bad input; a crash, a sanitizer
 * report, a leak, an exit or a hang is a bug.  Run by hand with a file
 * argument, the harness reads that file once:
 *   build-fuzz/bin/fuzz-config build-fuzz/artifacts/config-crash-1234
 */
#include <stddef.h>
#include <stdint.h>
#include <unistd.h>

#include "formula.h"
#include "fuzz-file.h"
#include "hpcprof/config.h"

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static char *path;

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	path = fuzz_file_init((*argv)[0], "fuzz-config.xml");
	return 0;
}

/* Every name is a measured metric: raw metric 0. */
static struct formula *any_metric(void *arg, const char *name)
{
	(void)arg;
	(void)name;
	return formula_raw(0);
}

static double one(void *arg, size_t raw)
{
	(void)arg;
	(void)raw;
	return 1;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct config c;
	size_t i;

	fuzz_file_write(path, data, size);
	if (config_read(path, &c) == 0) {
		for (i = 0; i < c.nmetrics; i++) {
			const struct config_metric *m = &c.metrics[i];
			struct formula *f;

			if (m->file)
				config_metric_selects(m, "run/p.hpcrun",
						      "cycles", 0);
			if (!m->compute)
				continue;
			f = formula_parse(m->compute, any_metric, NULL);
			if (f)
				formula_eval(f, one, NULL);
			formula_free(f);
		}
	}
	config_release(&c);
	unlink(path);
	return 0;
}
