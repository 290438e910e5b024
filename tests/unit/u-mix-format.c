/* u-mix-format.c - unit tests for lib/insn-mix.c: a statement's mix as the
 * structure file writes it (hpcstruct(5), INSTRUCTION MIX) and back. */
#include <stdlib.h>
#include <string.h>

#include "insn-mix.h"
#include "strbuf.h"
#include "unit.h"

static void formats_counts_then_sequence(void)
{
	uint8_t codes[] = {
		insn_mix_code(4, IC_FP), insn_mix_code(4, IC_FP),
		insn_mix_code(3, IC_INT), insn_mix_code(15, IC_LOAD),
		insn_mix_code(2, IC_BRANCH),
	};
	struct strbuf sb = STRBUF_INIT;

	insn_mix_format(&sb, codes, 5);
	CHECK_STR(sb.buf, "fp=\"2\" branch=\"1\" load=\"1\" int=\"1\" "
		  "insns=\"f4f4i3lfb2\"");
	strbuf_release(&sb);
}

static void parses_back(void)
{
	uint8_t *codes = NULL;
	size_t n = 0, alloc = 0;
	long bytes;

	bytes = insn_mix_parse("fp=\"2\" int=\"1\" insns=\"f4f4i3lfb2\"",
			       &codes, &n, &alloc);
	CHECK_INT(bytes, 4 + 4 + 3 + 15 + 2);
	CHECK_INT(n, 5);
	CHECK_INT(insn_mix_class(codes[0]), IC_FP);
	CHECK_INT(insn_mix_len(codes[3]), 15);
	CHECK_INT(insn_mix_class(codes[3]), IC_LOAD);
	CHECK_INT(insn_mix_class(codes[4]), IC_BRANCH);
	/* appended after what is there */
	bytes = insn_mix_parse("insns=\"o1\"", &codes, &n, &alloc);
	CHECK_INT(bytes, 1);
	CHECK_INT(n, 6);
	CHECK_INT(insn_mix_class(codes[5]), IC_OTHER);
	free(codes);
}

static void refuses_bad_sequences(void)
{
	static const char *const bad[] = {
		"fp=\"2\"",			/* no sequence */
		"xinsns=\"f4\"",		/* not the pseudo-attribute */
		"insns=\"f4x2\"",		/* unknown class */
		"insns=\"f0\"",			/* zero length */
		"insns=\"f4f\"",		/* length missing */
		"insns=\"f4",			/* not closed */
		"insns=\"F4\"",			/* letters are lowercase */
	};
	uint8_t *codes = NULL;
	size_t n = 0, alloc = 0;

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		if (insn_mix_parse(bad[i], &codes, &n, &alloc) >= 0)
			unit_fail(__FILE__, __LINE__, "accepted '%s'", bad[i]);
		CHECK_INT(n, 0);
	}
	free(codes);
}

int main(void)
{
	unit_run("formats counts, then the sequence", formats_counts_then_sequence);
	unit_run("parses the sequence back", parses_back);
	unit_run("refuses bad sequences whole", refuses_bad_sequences);
	return unit_done();
}
