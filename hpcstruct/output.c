/* output.c - write scope trees as an HPCToolkit structure file (4.9). */
#include <errno.h>
#include <stdio_ext.h>
#include <stdlib.h>
#include <string.h>

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

struct output *output_new(FILE *f, const char *lm_name,
			  const struct strtab *strs)
{
	struct output *o = xcalloc(1, sizeof(*o));

	o->f = f;
	o->strs = strs;
	o->next_id = 3;
	o->cur_file = UINT32_MAX;
	fputs("<?xml version=\"1.0\"?>\n<!DOCTYPE HPCToolkitStructure [\n", f);
	fputs(structure_dtd, f);
	fputs("]>\n<HPCToolkitStructure i=\"0\" version=\"4.9\" n=\"\">\n", f);
	fputs("<LM i=\"2\" n=\"", f);
	xml_escape(f, lm_name, 1);
	fputs("\" has-calls=\"0\" v=\"{}\">\n", f);
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

static void add_hex(struct strbuf *sb, uint64_t v)
{
	char buf[20], *p = buf + sizeof(buf);

	do {
		*--p = "0123456789abcdef"[v & 15];
		v >>= 4;
	} while (v);
	strbuf_add(sb, "0x", 2);
	strbuf_add(sb, p, (size_t)(buf + sizeof(buf) - p));
}

struct render {
	struct xmlw *w;
	const struct strtab *strs;
	struct strbuf sb;
};

static void attr_num(struct render *r, const char *name, uint64_t v)
{
	char buf[24];

	xmlw_attr(r->w, name, fmt_dec(buf, v));
}

/* The id placeholder output_proc replaces: never produced by escaping. */
#define ID_SLOT " i=\"#\""

static void attr_id(struct render *r)
{
	xmlw_attr(r->w, "i", "#");
}

static void attr_ranges(struct render *r, const struct range *v, size_t n)
{
	strbuf_reset(&r->sb);
	strbuf_addch(&r->sb, '{');
	for (size_t k = 0; k < n; k++) {
		strbuf_add(&r->sb, k ? " [" : "[", k ? 2 : 1);
		add_hex(&r->sb, v[k].lo);
		strbuf_addch(&r->sb, '-');
		add_hex(&r->sb, v[k].hi);
		strbuf_addch(&r->sb, ')');
	}
	strbuf_addch(&r->sb, '}');
	xmlw_attr(r->w, "v", r->sb.buf);
}

static void write_scope(struct render *r, const struct scope *s)
{
	const char *file = strtab_get(r->strs, s->file);

	switch (s->kind) {
	case SCOPE_STMT:
		xmlw_start(r->w, "S");
		attr_id(r);
		attr_num(r, "l", s->line);
		attr_ranges(r, s->v, s->nv);
		xmlw_end(r->w);
		return;
	case SCOPE_LOOP:
		xmlw_start(r->w, "L");
		attr_id(r);
		attr_num(r, "l", s->line);
		xmlw_attr(r->w, "f", file);
		attr_ranges(r, s->v, s->nv);
		break;
	case SCOPE_CALLSITE:
	case SCOPE_ALIEN:
		xmlw_start(r->w, "A");
		attr_id(r);
		attr_num(r, "l", s->line);
		xmlw_attr(r->w, "f", file);
		xmlw_attr(r->w, "n", strtab_get(r->strs, s->name));
		xmlw_attr(r->w, "v", "{}");
		break;
	case SCOPE_PROC:
		break;
	}
	for (size_t k = 0; k < s->nkids; k++)
		write_scope(r, s->kids[k]);
	xmlw_end(r->w);
}

int output_render(struct proc_tree *t, const struct strtab *strs)
{
	const struct scope *root = t->root;
	struct range entry = { t->entry, t->entry + 1 };
	struct render r = { NULL, strs, STRBUF_INIT };
	FILE *m = open_memstream(&t->xml, &t->xml_len);
	int rc;

	if (!m)
		return hpc_seterr("out of memory for the output");
	/* one thread owns m: skip stdio's per-call locking (xmlw writes
	 * escaped text a character at a time) */
	__fsetlocking(m, FSETLOCKING_BYCALLER);
	r.w = xmlw_new(m);
	xmlw_start(r.w, "P");
	attr_id(&r);
	xmlw_attr(r.w, "n", t->name);
	if (t->linkname)
		xmlw_attr(r.w, "ln", t->linkname);
	attr_num(&r, "l", root->line);
	attr_ranges(&r, &entry, 1);
	for (size_t k = 0; k < root->nkids; k++)
		write_scope(&r, root->kids[k]);
	rc = xmlw_finish(r.w);
	if (fclose(m) != 0 && rc == 0)
		rc = hpc_seterr("out of memory for the output");
	strbuf_release(&r.sb);
	return rc;
}

void output_proc(struct output *o, const struct proc_tree *t)
{
	const char *p = t->xml, *end = t->xml + t->xml_len;
	static const char slot[] = ID_SLOT;
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
		const char *q = memmem(p, (size_t)(end - p), slot, sizeof(slot) - 1);

		if (!q) {
			fwrite(p, 1, (size_t)(end - p), o->f);
			break;
		}
		fwrite(p, 1, (size_t)(q - p), o->f);
		fputs(" i=\"", o->f);
		fputs(fmt_dec(buf, o->next_id++), o->f);
		fputc('"', o->f);
		p = q + sizeof(slot) - 1;
	}
}

int output_finish(struct output *o)
{
	int rc = 0;

	if (o->cur_file != UINT32_MAX)
		fputs("</F>\n", o->f);
	fputs("</LM>\n</HPCToolkitStructure>\n", o->f);
	if (fflush(o->f) != 0 || ferror(o->f))
		rc = hpc_seterr("write error: %s", strerror(errno));
	free(o);
	return rc;
}
