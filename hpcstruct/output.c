/* output.c - write scope trees as an HPCToolkit structure file (4.9). */
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

	o->w = xmlw_new(f);
	o->strs = strs;
	o->next_id = 3;
	o->cur_file = UINT32_MAX;
	strbuf_init(&o->sb);
	xmlw_declaration(o->w);
	xmlw_doctype(o->w, "HPCToolkitStructure", structure_dtd);
	xmlw_start(o->w, "HPCToolkitStructure");
	xmlw_attr(o->w, "i", "0");
	xmlw_attr(o->w, "version", "4.9");
	xmlw_attr(o->w, "n", "");
	xmlw_start(o->w, "LM");
	xmlw_attr(o->w, "i", "2");
	xmlw_attr(o->w, "n", lm_name);
	xmlw_attr(o->w, "has-calls", "0");
	xmlw_attr(o->w, "v", "{}");
	return o;
}

/* Number formatting without printf: this is the writer's inner loop. */
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

static void attr_num(struct output *o, const char *name, uint64_t v)
{
	char buf[24];

	xmlw_attr(o->w, name, fmt_dec(buf, v));
}

static void attr_id(struct output *o)
{
	attr_num(o, "i", o->next_id++);
}

static void attr_ranges(struct output *o, const struct range *v, size_t n)
{
	strbuf_reset(&o->sb);
	strbuf_addch(&o->sb, '{');
	for (size_t k = 0; k < n; k++) {
		strbuf_add(&o->sb, k ? " [" : "[", k ? 2 : 1);
		add_hex(&o->sb, v[k].lo);
		strbuf_addch(&o->sb, '-');
		add_hex(&o->sb, v[k].hi);
		strbuf_addch(&o->sb, ')');
	}
	strbuf_addch(&o->sb, '}');
	xmlw_attr(o->w, "v", o->sb.buf);
}

static void write_scope(struct output *o, const struct scope *s)
{
	const char *file = strtab_get(o->strs, s->file);

	switch (s->kind) {
	case SCOPE_STMT:
		xmlw_start(o->w, "S");
		attr_id(o);
		attr_num(o, "l", s->line);
		attr_ranges(o, s->v, s->nv);
		xmlw_end(o->w);
		return;
	case SCOPE_LOOP:
		xmlw_start(o->w, "L");
		attr_id(o);
		attr_num(o, "l", s->line);
		xmlw_attr(o->w, "f", file);
		attr_ranges(o, s->v, s->nv);
		break;
	case SCOPE_CALLSITE:
	case SCOPE_ALIEN:
		xmlw_start(o->w, "A");
		attr_id(o);
		attr_num(o, "l", s->line);
		xmlw_attr(o->w, "f", file);
		xmlw_attr(o->w, "n", strtab_get(o->strs, s->name));
		xmlw_attr(o->w, "v", "{}");
		break;
	case SCOPE_PROC:
		break;
	}
	for (size_t k = 0; k < s->nkids; k++)
		write_scope(o, s->kids[k]);
	xmlw_end(o->w);
}

void output_proc(struct output *o, const struct proc_tree *t)
{
	const struct scope *root = t->root;
	struct range entry = { t->entry, t->entry + 1 };

	if (root->file != o->cur_file) {
		if (o->cur_file != UINT32_MAX)
			xmlw_end(o->w);
		o->cur_file = root->file;
		xmlw_start(o->w, "F");
		attr_id(o);
		xmlw_attr(o->w, "n", strtab_get(o->strs, root->file));
	}
	xmlw_start(o->w, "P");
	attr_id(o);
	xmlw_attr(o->w, "n", t->name);
	if (t->linkname)
		xmlw_attr(o->w, "ln", t->linkname);
	attr_num(o, "l", root->line);
	attr_ranges(o, &entry, 1);
	for (size_t k = 0; k < root->nkids; k++)
		write_scope(o, root->kids[k]);
	xmlw_end(o->w);
}

int output_finish(struct output *o)
{
	int rc = xmlw_finish(o->w);

	strbuf_release(&o->sb);
	free(o);
	return rc;
}
