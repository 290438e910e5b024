/* output.c - write scope trees as an HPCToolkit structure file (4.9). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "insn-mix.h"
#include "output.h"
#include "strbuf.h"

/* The internal subset HPCToolkit's hpcstruct writes (hpc-structure.dtd). */
static const char structure_dtd[] =
	"<!-- ******************************************************************** -->\n"
	"<!-- HPCToolkit Structure DTD                                             -->\n"
	"<!-- Version 4.9                                                          -->\n"
	"<!-- ******************************************************************** -->\n"
	"\n"
	"<!ELEMENT HPCToolkitStructure (LM)*>\n"
	"<!ATTLIST HPCToolkitStructure\n"
	"        version CDATA #REQUIRED\n"
	"        i       CDATA #REQUIRED\n"
	"        n       CDATA #IMPLIED>\n"
	"  <!-- Load module: -->\n"
	"  <!--   (i)d: unique identifier for cross referencing -->\n"
	"  <!--   (n)ame -->\n"
	"  <!--   (l)ine range: \"beg-end\" (inclusive range) -->\n"
	"  <!--   (v)ma-range-set: \"{[beg-end), [beg-end)...}\" -->\n"
	"  <!--   (t)arget: target function address -->\n"
	"  <!--   (d)evice: device name -->\n"
	"  <!ELEMENT LM (F|P)*>\n"
	"  <!ATTLIST LM\n"
	"        i CDATA #REQUIRED\n"
	"        n CDATA #REQUIRED\n"
	"        has-calls CDATA #REQUIRED\n"
	"        v CDATA #IMPLIED>\n"
	"  <!-- File: -->\n"
	"  <!ELEMENT F (P|L|S)*>\n"
	"  <!ATTLIST F\n"
	"        i CDATA #REQUIRED\n"
	"        n CDATA #REQUIRED>\n"
	"  <!-- Procedure: ln=link name (if different than name) -->\n"
	"  <!ELEMENT P (P|A|L|S|C)*>\n"
	"  <!ATTLIST P\n"
	"        i  CDATA #REQUIRED\n"
	"        n  CDATA #REQUIRED\n"
	"        ln CDATA #IMPLIED\n"
	"        l  CDATA #IMPLIED\n"
	"        s  CDATA #IMPLIED\n"
	"        v  CDATA #IMPLIED>\n"
	"  <!-- Alien: (f)ilename -->\n"
	"  <!ELEMENT A (A|L|S|C)*>\n"
	"  <!ATTLIST A\n"
	"        i CDATA #REQUIRED\n"
	"        f CDATA #IMPLIED\n"
	"        n CDATA #IMPLIED\n"
	"        ln CDATA #IMPLIED\n"
	"        l CDATA #IMPLIED\n"
	"        v CDATA #IMPLIED>\n"
	"  <!-- Loop -->\n"
	"  <!ELEMENT L (A|L|S|C)*>\n"
	"  <!ATTLIST L\n"
	"        i CDATA #REQUIRED\n"
	"        l CDATA #REQUIRED\n"
	"        f CDATA #IMPLIED\n"
	"        v CDATA #IMPLIED>\n"
	"  <!-- Statement -->\n"
	"  <!ELEMENT S EMPTY>\n"
	"  <!ATTLIST S\n"
	"        i CDATA #REQUIRED\n"
	"        l CDATA #REQUIRED\n"
	"        v CDATA #IMPLIED>\n"
	"  <!-- Callsite (a special Statement) -->\n"
	"  <!ELEMENT C (C)*>\n"
	"  <!ATTLIST C\n"
	"        i CDATA #REQUIRED\n"
	"        l CDATA #REQUIRED\n"
	"        v CDATA #IMPLIED\n"
	"        t CDATA #IMPLIED\n"
	"        d CDATA #IMPLIED>\n";

static void add_hex(struct strbuf *sb, uint64_t v)
{
	char buf[20], *p = buf + sizeof(buf);

	do {
		*--p = "0123456789abcdef"[v & 15];
		v >>= 4;
	} while (v);
	*--p = 'x';
	*--p = '0';
	strbuf_add(sb, p, (size_t)(buf + sizeof(buf) - p));
}

/* The partial-file line (output.h, OUTPUT_PARTIAL_OPEN) for cover[n]. */
static void write_partial(FILE *f, const struct addr_range *cover, size_t n)
{
	struct strbuf sb = STRBUF_INIT;

	strbuf_addstr(&sb, OUTPUT_PARTIAL_OPEN "{");
	for (size_t k = 0; k < n; k++) {
		strbuf_addstr(&sb, k ? " [" : "[");
		add_hex(&sb, cover[k].lo);
		strbuf_addch(&sb, '-');
		add_hex(&sb, cover[k].hi);
		strbuf_addch(&sb, ')');
	}
	strbuf_addstr(&sb, "}" OUTPUT_PARTIAL_CLOSE);
	fwrite(sb.buf, 1, sb.len, f);
	strbuf_release(&sb);
}

struct output *output_new(FILE *f, const char *lm_name, const char *buildid,
			  const struct strtab *strs,
			  const struct addr_range *cover, size_t ncover)
{
	struct output *o = xcalloc(1, sizeof(*o));

	o->f = f;
	o->strs = strs;
	o->next_id = 3;
	o->cur_file = UINT32_MAX;
	fputs("<?xml version=\"1.0\"?>\n<!DOCTYPE HPCToolkitStructure [\n", f);
	fputs(structure_dtd, f);
	fputs("]>\n<HPCToolkitStructure i=\"0\" version=\"4.9\" n=\"\">\n", f);
	if (cover)
		write_partial(f, cover, ncover);
	fputs("<LM i=\"2\" n=\"", f);
	xml_escape(f, lm_name, 1);
	fputs("\" has-calls=\"0\" v=\"{}\">\n", f);
	if (*buildid)	/* hex: nothing to escape */
		fprintf(f, OUTPUT_BUILDID_OPEN "%s" OUTPUT_BUILDID_CLOSE, buildid);
	return o;
}

/* Number formatting without printf: this is the renderer's inner loop. */
static const char *fmt_dec(char buf[24], uint64_t v)
{
	char *p = buf + 23;

	*p = 0;
	do {
		*--p = (char)('0' + v % 10);
		v /= 10;
	} while (v);
	return p;
}

/*
 * The id placeholder output_proc replaces: a control character, which
 * escaping never lets through (it writes '?').
 */
#define ID_SLOT '\001'

/*
 * A procedure's P element, written the way xmlw writes (xmlw.h): each
 * element on its own line indented by its depth, <X .../> when empty,
 * attribute values escaped like xml_escape(f, s, 1) does.
 */
struct render {
	struct strbuf *sb;
	const struct strtab *strs;
	const struct cfg *g;	/* the procedure's instructions */
	uint8_t *codes;		/* scratch: a statement's mix */
	size_t codes_alloc;
	size_t depth;		/* open elements */
	int tag_open;		/* start tag not yet closed with '>' */
};

static void add_escaped(struct strbuf *sb, const char *s)
{
	const unsigned char *p = (const unsigned char *)s, *run = p;

	for (; *p; p++) {
		const char *rep;

		if (*p >= 0x20 && *p < 0x80 && *p != '&' && *p != '<' &&
		    *p != '>' && *p != '"' && *p != '\'')
			continue;
		rep = xml_escape_char(&p, 1);
		if (!rep)
			continue;
		strbuf_add(sb, run, (size_t)(p - run));
		strbuf_addstr(sb, rep);
		run = p + 1;
	}
	strbuf_add(sb, run, (size_t)(p - run));
}

static void indent(struct render *r)
{
	strbuf_grow(r->sb, r->depth + 1);
	r->sb->buf[r->sb->len++] = '\n';
	memset(r->sb->buf + r->sb->len, ' ', r->depth);
	r->sb->len += r->depth;
	r->sb->buf[r->sb->len] = 0;
}

/* Opens element name and writes its id placeholder. */
static void start(struct render *r, const char *name)
{
	static const char id[] = { ' ', 'i', '=', '"', ID_SLOT, '"' };

	if (r->tag_open)
		strbuf_addch(r->sb, '>');
	if (r->depth)
		indent(r);
	strbuf_addch(r->sb, '<');
	strbuf_addstr(r->sb, name);
	strbuf_add(r->sb, id, sizeof(id));
	r->depth++;
	r->tag_open = 1;
}

/* Closes the innermost element, which start() opened as name. */
static void end(struct render *r, const char *name)
{
	r->depth--;
	if (r->tag_open) {
		strbuf_add(r->sb, "/>", 2);
		r->tag_open = 0;
	} else {
		indent(r);
		strbuf_add(r->sb, "</", 2);
		strbuf_addstr(r->sb, name);
		strbuf_addch(r->sb, '>');
	}
	if (!r->depth)
		strbuf_addch(r->sb, '\n');
}

/* ' name="' (name is plain) */
static void attr_name(struct render *r, const char *name)
{
	strbuf_addch(r->sb, ' ');
	strbuf_addstr(r->sb, name);
	strbuf_add(r->sb, "=\"", 2);
}

static void attr_str(struct render *r, const char *name, const char *value)
{
	attr_name(r, name);
	add_escaped(r->sb, value);
	strbuf_addch(r->sb, '"');
}

static void attr_num(struct render *r, const char *name, uint64_t v)
{
	char buf[24];

	attr_name(r, name);
	strbuf_addstr(r->sb, fmt_dec(buf, v));
	strbuf_addch(r->sb, '"');
}

static void attr_ranges(struct render *r, const struct range *v, size_t n)
{
	attr_name(r, "v");
	strbuf_addch(r->sb, '{');
	for (size_t k = 0; k < n; k++) {
		strbuf_add(r->sb, k ? " [" : "[", k ? 2 : 1);
		add_hex(r->sb, v[k].lo);
		strbuf_addch(r->sb, '-');
		add_hex(r->sb, v[k].hi);
		strbuf_addch(r->sb, ')');
	}
	strbuf_add(r->sb, "}\"", 2);
}

/*
 * The statement's instruction mix, right after its S element: its
 * instructions' codes in address order over its ranges (insn-mix.h).
 * Written only when the instructions tile the ranges exactly.
 */
static void write_mix(struct render *r, const struct scope *s)
{
	const struct cfg *g = r->g;
	size_t n = 0;

	for (size_t k = 0; k < s->nv; k++) {
		ptrdiff_t i = cfg_insn_at(g, s->v[k].lo);
		uint64_t at = s->v[k].lo;

		if (i < 0)
			return;
		for (; (size_t)i < g->ninsns && at < s->v[k].hi; i++) {
			const struct insn *in = &g->insns[i];

			if (in->addr != at || in->len == 0 || in->len > 15)
				return;
			HPC_GROW(r->codes, n + 1, r->codes_alloc);
			r->codes[n++] = insn_mix_code(in->len,
						      (enum insn_class)in->mix);
			at += in->len;
		}
		if (at != s->v[k].hi)
			return;
	}
	if (!n)
		return;
	strbuf_addstr(r->sb, "<?" INSN_MIX_TARGET " ");
	insn_mix_format(r->sb, r->codes, n);
	strbuf_add(r->sb, "?>", 2);
}

static void write_scope(struct render *r, const struct scope *s)
{
	const char *file = strtab_get(r->strs, s->file);
	const char *name = s->kind == SCOPE_LOOP ? "L" : "A";

	switch (s->kind) {
	case SCOPE_STMT:
		start(r, "S");
		attr_num(r, "l", s->line);
		attr_ranges(r, s->v, s->nv);
		end(r, "S");
		write_mix(r, s);
		return;
	case SCOPE_LOOP:
		start(r, name);
		attr_num(r, "l", s->line);
		attr_str(r, "f", file);
		attr_ranges(r, s->v, s->nv);
		break;
	case SCOPE_CALLSITE:
	case SCOPE_ALIEN:
		start(r, name);
		attr_num(r, "l", s->line);
		attr_str(r, "f", file);
		attr_str(r, "n", strtab_get(r->strs, s->name));
		attr_str(r, "v", "{}");
		break;
	case SCOPE_PROC:
		break;
	}
	for (size_t k = 0; k < s->nkids; k++)
		write_scope(r, s->kids[k]);
	end(r, name);
}

void output_render(struct proc_tree *t, const struct cfg *g,
		   const struct strtab *strs)
{
	const struct scope *root = t->root;
	struct range entry = { t->entry, t->entry + 1 };
	struct strbuf sb = STRBUF_INIT;
	struct render r = { &sb, strs, g, NULL, 0, 0, 0 };

	start(&r, "P");
	attr_name(&r, "n");
	add_escaped(&sb, t->name);
	if (t->libname) {	/* HPCToolkit's "NAME [LIBNAME]", ln="NAME" */
		strbuf_add(&sb, " [", 2);
		add_escaped(&sb, t->libname);
		strbuf_addch(&sb, ']');
	}
	strbuf_addch(&sb, '"');
	if (t->libname || t->linkname)
		attr_str(&r, "ln", t->linkname ? t->linkname : t->name);
	attr_num(&r, "l", root->line);
	attr_ranges(&r, &entry, 1);
	for (size_t k = 0; k < root->nkids; k++)
		write_scope(&r, root->kids[k]);
	end(&r, "P");
	free(r.codes);
	t->xml = strbuf_detach(&sb, &t->xml_len);
}

void output_proc(struct output *o, const struct proc_tree *t)
{
	const char *p = t->xml, *end = t->xml + t->xml_len;
	char buf[24];

	if (t->root->file != o->cur_file) {
		if (o->cur_file != UINT32_MAX)
			fputs("</F>\n", o->f);
		o->cur_file = t->root->file;
		fputs("<F i=\"", o->f);
		fputs(fmt_dec(buf, o->next_id++), o->f);
		fputs("\" n=\"", o->f);
		xml_escape(o->f, strtab_get(o->strs, t->root->file), 1);
		fputs("\">\n", o->f);
	}
	while (p < end) {
		const char *q = memchr(p, ID_SLOT, (size_t)(end - p));

		if (!q) {
			fwrite(p, 1, (size_t)(end - p), o->f);
			break;
		}
		fwrite(p, 1, (size_t)(q - p), o->f);
		fputs(fmt_dec(buf, o->next_id++), o->f);
		p = q + 1;
	}
	if (!o->err && ferror(o->f))	/* errno is still the write's */
		o->err = errno ? errno : EIO;
}

int output_finish(struct output *o)
{
	int err;

	if (o->cur_file != UINT32_MAX)
		fputs("</F>\n", o->f);
	fputs("</LM>\n</HPCToolkitStructure>\n", o->f);
	if ((fflush(o->f) != 0 || ferror(o->f)) && !o->err)
		o->err = errno ? errno : EIO;
	err = o->err;
	free(o);
	return -err;
}

int output_close(FILE *f, int err)
{
	if (!err && ferror(f))
		err = -(errno ? errno : EIO);
	if (fclose(f) != 0 && !err)
		err = -(errno ? errno : EIO);
	return err;
}
