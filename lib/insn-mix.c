/* insn-mix.c - a statement's instruction mix as text (see insn-mix.h). */
#include <string.h>

#include "insn-mix.h"
#include "strbuf.h"

const char insn_mix_letters[IC_NCLASSES + 1] = "fvbslio";

const char *const insn_mix_names[IC_NCLASSES] = {
	"fp", "vec", "branch", "store", "load", "int", "other",
};

const char *const mix_group_names[MIX_NGROUPS] = {
	"fp", "mem", "int", "branch",
};

enum mix_group insn_mix_group(enum insn_class c)
{
	switch (c) {
	case IC_FP:
		return MIX_FP;
	case IC_LOAD:
	case IC_STORE:
		return MIX_MEM;
	case IC_INT:
	case IC_VEC:
		return MIX_INT;
	case IC_BRANCH:
		return MIX_BRANCH;
	default:
		return MIX_NONE;
	}
}

void insn_mix_format(struct strbuf *sb, const uint8_t *codes, size_t n)
{
	size_t count[IC_NCLASSES] = { 0 };
	size_t i;
	int c;

	for (i = 0; i < n; i++)
		count[insn_mix_class(codes[i])]++;
	for (c = 0; c < IC_NCLASSES; c++)
		if (count[c])
			strbuf_addf(sb, "%s=\"%zu\" ", insn_mix_names[c],
				    count[c]);
	strbuf_addstr(sb, "insns=\"");
	strbuf_grow(sb, 2 * n);
	for (i = 0; i < n; i++) {
		sb->buf[sb->len++] = insn_mix_letters[insn_mix_class(codes[i])];
		sb->buf[sb->len++] = "0123456789abcdef"[insn_mix_len(codes[i])];
	}
	sb->buf[sb->len] = 0;
	strbuf_addch(sb, '"');
}

static int hexdigit(int c)
{
	if (c >= '1' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	return -1;
}

long insn_mix_parse(const char *data, uint8_t **codes, size_t *n,
		    size_t *alloc)
{
	const char *p = data, *q;
	size_t first = *n;
	long bytes = 0;

	/* the pseudo-attribute insns="...": at the start or after a blank */
	for (;;) {
		p = strstr(p, "insns=\"");
		if (!p)
			return hpc_seterr("insn-mix without insns=\"...\"");
		if (p == data || p[-1] == ' ' || p[-1] == '\t' ||
		    p[-1] == '\n' || p[-1] == '\r')
			break;
		p++;
	}
	p += strlen("insns=\"");
	for (q = p; *q && *q != '"'; q += 2) {
		const char *l = strchr(insn_mix_letters, q[0]);
		int len = q[0] ? hexdigit(q[1]) : -1;

		if (!q[0] || !l || len < 0) {
			*n = first;
			return hpc_seterr("insn-mix: bad instruction code "
					  "'%.2s' at offset %zu", q,
					  (size_t)(q - data));
		}
		HPC_GROW(*codes, *n + 1, *alloc);
		(*codes)[(*n)++] = insn_mix_code((unsigned)len,
				(enum insn_class)(l - insn_mix_letters));
		bytes += len;
	}
	if (*q != '"') {
		*n = first;
		return hpc_seterr("insn-mix: insns=\"...\" not closed");
	}
	return bytes;
}
