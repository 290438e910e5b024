/*
 * fuzz-tsv.c - libFuzzer harness for the viewer's readers of the
 * per-thread tables and the sharing table of a database
 * (hpcprof-database(5)): threads.tsv (lib/threadname.c, the names every
 * view gives threads), thread-values.tsv (hpcviewer-tui/model.c, what T
 * shows) and sharing.tsv (hpcviewer-tui/sharingview.c, the data view's
 * detail).  phases.tsv has a harness of its own (fuzz-phases.c).
 *
 * An input is up to three files, cut at form feeds ('\f'): threads.tsv,
 * then thread-values.tsv, then sharing.tsv; a file the input does not
 * reach is missing from the database.  They are written beside a fixed
 * experiment.xml of six metrics and nine scopes (the database of
 * tests/t4013) and read as the viewer reads them: the threads' names and
 * labels, the per-thread values of each metric over all scopes, thread 0..3's
 * identity, and the sharing detail of nodes 0..15.  A refusal is a
 * correct answer to a bad input; a crash, a sanitizer report, a leak, an
 * exit or a hang is a bug.  Run by hand with a file argument, the harness
 * reads that file once:
 *   build-fuzz/bin/fuzz-tsv build-fuzz/artifacts/tsv-crash-1234
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "error.h"
#include "fuzz-file.h"
#include "hpcviewer-tui/model.h"
#include "hpcviewer-tui/sharingview.h"
#include "strbuf.h"
#include "threadname.h"

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const char experiment[] =
	"<?xml version=\"1.0\"?>\n"
	"<HPCToolkitExperiment version=\"2.2\"><Header n=\"threads\"/>\n"
	"<SecCallPathProfile i=\"0\" n=\"threads\"><SecHeader><MetricTable>\n"
	"<Metric i=\"0\" n=\"CPUTIME (sec):Sum (I)\" v=\"derived-incr\" t=\"inclusive\" partner=\"1\" show=\"1\" show-percent=\"1\"/>\n"
	"<Metric i=\"1\" n=\"CPUTIME (sec):Sum (E)\" v=\"derived-incr\" t=\"exclusive\" partner=\"0\" show=\"1\" show-percent=\"1\"/>\n"
	"<Metric i=\"2\" n=\"CPUTIME (sec):Min (I)\" v=\"final\" t=\"inclusive\" partner=\"3\" show=\"1\" show-percent=\"0\"/>\n"
	"<Metric i=\"3\" n=\"CPUTIME (sec):Min (E)\" v=\"final\" t=\"exclusive\" partner=\"2\" show=\"1\" show-percent=\"0\"/>\n"
	"<Metric i=\"4\" n=\"CPUTIME (sec):Max (I)\" v=\"final\" t=\"inclusive\" partner=\"5\" show=\"1\" show-percent=\"0\"/>\n"
	"<Metric i=\"5\" n=\"CPUTIME (sec):Max (E)\" v=\"final\" t=\"exclusive\" partner=\"4\" show=\"1\" show-percent=\"0\"/>\n"
	"</MetricTable><LoadModuleTable><LoadModule i=\"0\" n=\"/opt/threads\"/></LoadModuleTable>\n"
	"<FileTable><File i=\"0\" n=\"t.c\"/></FileTable>\n"
	"<ProcedureTable><Procedure i=\"0\" n=\"main\"/><Procedure i=\"1\" n=\"work\"/></ProcedureTable>\n"
	"</SecHeader><SecCallPathProfileData>\n"
	"<M n=\"0\" v=\"9\"/><M n=\"1\" v=\"9\"/><M n=\"4\" v=\"6\"/><M n=\"5\" v=\"6\"/>\n"
	"<PF i=\"2\" n=\"0\" lm=\"0\" f=\"0\" l=\"4\"><M n=\"0\" v=\"9\"/><M n=\"1\" v=\"1\"/>\n"
	"<S i=\"3\" l=\"5\"><M n=\"0\" v=\"1\"/><M n=\"1\" v=\"1\"/></S>\n"
	"<C i=\"4\" l=\"6\"><M n=\"0\" v=\"5\"/>\n"
	"<PF i=\"5\" n=\"1\" lm=\"0\" f=\"0\" l=\"10\"><M n=\"0\" v=\"5\"/><M n=\"1\" v=\"5\"/>\n"
	"<S i=\"6\" l=\"11\"><M n=\"0\" v=\"5\"/><M n=\"1\" v=\"5\"/></S></PF></C>\n"
	"<C i=\"7\" l=\"7\"><M n=\"0\" v=\"3\"/>\n"
	"<PF i=\"8\" n=\"1\" lm=\"0\" f=\"0\" l=\"10\"><M n=\"0\" v=\"3\"/><M n=\"1\" v=\"3\"/>\n"
	"<S i=\"9\" l=\"11\"><M n=\"0\" v=\"3\"/><M n=\"1\" v=\"3\"/></S></PF></C>\n"
	"</PF>\n"
	"</SecCallPathProfileData></SecCallPathProfile></HPCToolkitExperiment>\n";

static const char *const names[] = {
	"threads.tsv", "thread-values.tsv", "sharing.tsv",
};
static char *paths[3];
static struct model *m;

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	char *xml;
	size_t i;

	(void)argc;
	xml = fuzz_file_init((*argv)[0], "experiment.xml");
	fuzz_file_write(xml, (const uint8_t *)experiment,
			sizeof(experiment) - 1);
	m = model_load(xml);
	if (!m)
		hpc_die(1, "%s", hpc_lasterr());
	free(xml);
	for (i = 0; i < 3; i++)
		paths[i] = fuzz_file_path(names[i]);
	return 0;
}

/* The threads' names, as the phases view and timeline label them. */
static void read_names(void)
{
	struct thread_names tn = THREAD_NAMES_INIT;
	struct strbuf sb = STRBUF_INIT;
	size_t t;

	if (thread_names_read(&tn, paths[0]) == 0)
		for (t = 0; t < tn.n + 2; t++) {
			strbuf_reset(&sb);
			thread_names_label(&tn, t, &sb);
			thread_names_field(&tn, t, &sb);
		}
	thread_names_release(&tn);
	strbuf_release(&sb);
}

/* What T reads: the values of every metric summed over every scope,
 * the threads' identities. */
static void read_values(void)
{
	struct strbuf sb = STRBUF_INIT;
	uint32_t *all = xcalloc(m->nscopes, sizeof(*all));
	double *vals;
	size_t met, t;
	uint32_t s;

	for (s = 0; s < m->nscopes; s++)
		all[s] = s;
	for (met = 0; met < m->nmetrics; met++)
		if (model_thread_sum(m, all, m->nscopes, met, &vals) > 0)
			free(vals);
	free(all);
	for (t = 0; t < 4; t++) {
		strbuf_reset(&sb);
		(void)model_thread_name(m, t, &sb);
	}
	strbuf_release(&sb);
}

static void read_sharing(void)
{
	struct strbuf sb = STRBUF_INIT;
	struct sharingview *sv;
	uint32_t node;
	int missing;

	sv = sharingview_load(m->dbdir, &missing);
	for (node = 0; sv && node < 16; node++) {
		strbuf_reset(&sb);
		(void)sharingview_detail(sv, node, &sb);
	}
	sharingview_free(sv);
	strbuf_release(&sb);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const uint8_t *part = data, *end = data + size, *ff;
	size_t i;

	for (i = 0; i < 3; i++) {
		if (!part) {
			unlink(paths[i]);
			continue;
		}
		ff = memchr(part, '\f', (size_t)(end - part));
		fuzz_file_write(paths[i], part,
				(size_t)((ff ? ff : end) - part));
		part = ff ? ff + 1 : NULL;
	}
	read_names();
	read_values();
	read_sharing();
	for (i = 0; i < 3; i++)
		unlink(paths[i]);
	return 0;
}
