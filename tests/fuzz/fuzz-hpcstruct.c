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
 * Files live in a directory made under $TMPDIR at start-up (fuzz-file.h).
 * Run by hand with a file argument, the harness analyzes that file once:
 *   build-fuzz/bin/fuzz-hpcstruct build-fuzz/artifacts/hpcstruct-crash-1234
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <unistd.h>

#include <libxml/parser.h>
#include <sanitizer/common_interface_defs.h>

#include "error.h"
#include "fuzz-file.h"
#include "hpcstruct/analyze.h"
#include "strbuf.h"

/* Small binaries are enough to reach every path, and keep runs fast. */
#define FUZZ_INSN_CAP 20000

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static char *in_path, *out_path;

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	in_path = fuzz_file_init((*argv)[0], "a.out");
	out_path = fuzz_file_path("a.out.hpcstruct");
	/* debug files are looked up locally only, never over the network */
	unsetenv("DEBUGINFOD_URLS");
	return 0;
}

/* Aborts, so libFuzzer keeps the input, unless out_path is well-formed. */
static void check_output(void)
{
	xmlParserCtxtPtr ctx = xmlNewParserCtxt();
	xmlDocPtr doc;

	if (!ctx)
		hpc_die(1, "out of memory");
	doc = xmlCtxtReadFile(ctx, out_path, NULL, XML_PARSE_NONET |
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

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const struct analyze_opts opts = {
		.jobs = 1,
		.progress = 0,
		.insn_cap = FUZZ_INSN_CAP,
	};

	fuzz_file_write(in_path, data, size);
	if (analyze_binary(in_path, out_path, &opts) == 0)
		check_output();
	unlink(out_path);
	return 0;
}
