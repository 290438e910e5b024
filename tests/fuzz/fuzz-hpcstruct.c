/*
 * fuzz-hpcstruct.c - libFuzzer harness for hpcstruct's analysis of one
 * binary (issue #4).
 *
 * Each input is written to a file and run through analyze_binary(), the
 * very call hpcstruct makes for 'hpcstruct -o OUT BINARY': ELF headers and
 * sections, symbols, PLT, .eh_frame FDEs, libdw's DWARF (lines, subprograms,
 * inline trees), decoding, CFG, loops, scope trees and the XML writer.  The
 * input goes through a file rather than memory so that libdwfl opens it the
 * way it opens a real binary.  A refusal (analyze_binary returning -1) is a
 * correct answer to a bad input; a crash, a sanitizer report, a leak, an
 * exit or a hang is a bug, and so is a structure file that libxml2 (what
 * hpcprof reads it with) does not find well-formed.  (Validity against the
 * DTD depends on output.c, not on the input, and checking it would halve
 * the speed: t2000 checks it.)
 *
 * Files live in a directory made under $TMPDIR at start-up; the runner,
 * tests/fuzz/run-fuzz.sh, points TMPDIR into the build directory.  Run by
 * hand with a file argument, the harness analyzes that file once:
 *   build-fuzz/bin/fuzz-hpcstruct crash-1234
 */
#include <errno.h>
#include <fcntl.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <libxml/parser.h>
#include <sanitizer/common_interface_defs.h>

#include "analyze.h"
#include "error.h"
#include "strbuf.h"

/* Small binaries are enough to reach every path, and keep runs fast. */
#define FUZZ_INSN_CAP 20000

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static struct strbuf dir = STRBUF_INIT, in_path = STRBUF_INIT,
	out_path = STRBUF_INIT;

static void remove_dir(void)
{
	unlink(in_path.buf);
	unlink(out_path.buf);
	rmdir(dir.buf);
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	const char *tmp = getenv("TMPDIR");

	(void)argc;
	hpc_set_progname((*argv)[0]);
	/* debug files are looked up locally only, never over the network */
	unsetenv("DEBUGINFOD_URLS");
	strbuf_addf(&dir, "%s/fuzz-hpcstruct.XXXXXX", tmp && *tmp ? tmp : "/tmp");
	if (!mkdtemp(dir.buf))
		hpc_die(1, "'%s': %s", dir.buf, strerror(errno));
	strbuf_addf(&in_path, "%s/a.out", dir.buf);
	strbuf_addf(&out_path, "%s/a.out.hpcstruct", dir.buf);
	atexit(remove_dir);
	xmlInitParser();
	return 0;
}

/* Aborts, so libFuzzer keeps the input, unless out_path is well-formed. */
static void check_output(void)
{
	xmlParserCtxtPtr ctx = xmlNewParserCtxt();
	xmlDocPtr doc;

	if (!ctx)
		hpc_die(1, "out of memory");
	doc = xmlCtxtReadFile(ctx, out_path.buf, NULL, XML_PARSE_NONET |
			      XML_PARSE_NOERROR | XML_PARSE_NOWARNING);
	if (!doc) {
		const xmlError *e = xmlCtxtGetLastError(ctx);
		struct strbuf msg = STRBUF_INIT;

		/* stderr may be closed (-close_fd_mask=2); reports are not */
		strbuf_addf(&msg, "fuzz-hpcstruct: the structure file is not well-formed XML: %s",
			    e && e->message ? e->message : "(no message)");
		__sanitizer_report_error_summary(msg.buf);
		abort();
	}
	xmlFreeDoc(doc);
	xmlFreeParserCtxt(ctx);
}

static void write_input(const uint8_t *data, size_t size)
{
	int fd = open(in_path.buf, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	size_t done = 0;

	if (fd < 0)
		hpc_die(1, "'%s': %s", in_path.buf, strerror(errno));
	while (done < size) {
		ssize_t n = write(fd, data + done, size - done);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			hpc_die(1, "'%s': %s", in_path.buf, strerror(errno));
		done += (size_t)n;
	}
	if (close(fd) != 0)
		hpc_die(1, "'%s': %s", in_path.buf, strerror(errno));
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const struct analyze_opts opts = {
		.jobs = 1,
		.progress = 0,
		.insn_cap = FUZZ_INSN_CAP,
	};

	write_input(data, size);
	if (analyze_binary(in_path.buf, out_path.buf, &opts) == 0)
		check_output();
	unlink(out_path.buf);
	return 0;
}
