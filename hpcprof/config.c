/* config.c - see config.h. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "config.h"
#include "error.h"
#include "strbuf.h"
#include "xmlread.h"

struct cparse {
	struct xmlread *x;
	struct config *c;
};


static char *attr(xmlNodePtr n, const char *name)
{
	xmlChar *v = xmlGetProp(n, (const xmlChar *)name);
	char *s;

	if (!v)
		return NULL;
	s = xstrdup((const char *)v);
	xmlFree(v);
	return s;
}

static int is(xmlNodePtr n, const char *name)
{
	return n->type == XML_ELEMENT_NODE &&
	       !strcmp((const char *)n->name, name);
}

/* Element children only; text must be whitespace, else an error. */
static xmlNodePtr next_elem(const struct cparse *cp, xmlNodePtr n, int *bad)
{
	for (; n; n = n->next) {
		if (n->type == XML_ELEMENT_NODE)
			return n;
		if (n->type == XML_TEXT_NODE) {
			const char *t = (const char *)n->content;

			while (t && *t && strchr(" \t\r\n", *t))
				t++;
			if (t && *t) {
				xmlread_fail(cp->x, n, "unexpected text "
					     "(expected an element)");
				*bad = 1;
				return NULL;
			}
		} else if (n->type == XML_ENTITY_REF_NODE) {
			xmlread_fail(cp->x, n, "entity references are not "
				     "allowed");
			*bad = 1;
			return NULL;
		}
	}
	return NULL;
}

static char *text_of(xmlNodePtr n)
{
	xmlChar *v = xmlNodeGetContent(n);
	char *s, *e, *b;

	s = xstrdup(v ? (const char *)v : "");
	xmlFree(v);
	for (b = s; *b && strchr(" \t\r\n", *b); b++)
		;
	for (e = b + strlen(b); e > b && strchr(" \t\r\n", e[-1]); e--)
		;
	*e = 0;
	memmove(s, b, (size_t)(e - b) + 1);
	return s;
}

static int mathml(const struct cparse *cp, xmlNodePtr n, struct strbuf *out);

static int mathml_apply(const struct cparse *cp, xmlNodePtr n,
			struct strbuf *out)
{
	static const struct { const char *tag; const char *infix; int fn; }
	ops[] = {
		{ "plus", " + ", 0 }, { "minus", " - ", 0 },
		{ "times", " * ", 0 }, { "divide", " / ", 0 },
		{ "power", " ^ ", 0 }, { "min", "min", 1 }, { "max", "max", 1 },
		{ "mean", "mean", 1 }, { "sdev", "sdev", 1 },
	};
	int bad = 0, k = -1, nargs = 0;
	xmlNodePtr op = next_elem(cp, n->children, &bad), a;
	size_t i;

	if (bad)
		return -1;
	if (!op)
		return xmlread_fail(cp->x, n, "empty <apply> (expected an "
				    "operator)");
	for (i = 0; i < sizeof(ops) / sizeof(ops[0]); i++)
		if (is(op, ops[i].tag))
			k = (int)i;
	if (k < 0)
		return xmlread_fail(cp->x, op, "unknown MathML operator <%s> "
				    "(expected plus, minus, times, divide, "
				    "power, min, max, mean or sdev)",
				    (const char *)op->name);
	for (a = next_elem(cp, op->next, &bad); a;
	     a = next_elem(cp, a->next, &bad))
		nargs++;
	if (bad)
		return -1;
	if (nargs == 0 ||
	    ((k == 3 || k == 4) && nargs != 2) || (k == 1 && nargs > 2))
		return xmlread_fail(cp->x, op, "wrong number of operands");
	if (ops[k].fn)
		strbuf_addf(out, "%s(", ops[k].infix);
	else
		strbuf_addstr(out, k == 1 && nargs == 1 ? "-(" : "(");
	nargs = 0;
	for (a = next_elem(cp, op->next, &bad); a;
	     a = next_elem(cp, a->next, &bad)) {
		if (nargs++)
			strbuf_addstr(out, ops[k].fn ? ", " : ops[k].infix);
		if (mathml(cp, a, out))
			return -1;
	}
	strbuf_addch(out, ')');
	return 0;
}

static int mathml(const struct cparse *cp, xmlNodePtr n, struct strbuf *out)
{
	if (is(n, "cn")) {
		char *t = text_of(n), *end;

		errno = 0;
		strtod(t, &end);
		if (!*t || *end || errno) {
			free(t);
			return xmlread_fail(cp->x, n, "<cn> is not a number");
		}
		strbuf_addstr(out, t);
		free(t);
		return 0;
	}
	if (is(n, "ci")) {
		char *t = text_of(n);

		if (!*t || strchr(t, '}')) {
			free(t);
			return xmlread_fail(cp->x, n, "<ci> must name a metric");
		}
		strbuf_addf(out, "{%s}", t);
		free(t);
		return 0;
	}
	if (is(n, "apply"))
		return mathml_apply(cp, n, out);
	return xmlread_fail(cp->x, n, "unexpected element in MathML (expected "
			    "cn, ci or apply)");
}

static void push(char ***v, size_t *n, char *s)
{
	size_t alloc = *n;

	HPC_GROW(*v, *n + 1, alloc);
	(*v)[(*n)++] = s;
}

static int required(const struct cparse *cp, xmlNodePtr n, const char *name,
		    char **out)
{
	*out = attr(n, name);
	if (!*out)
		return xmlread_fail(cp->x, n, "<%s> needs the attribute %s=",
				    (const char *)n->name, name);
	return 0;
}

static int bool_attr(xmlNodePtr n, const char *name, int dflt)
{
	char *v = attr(n, name);
	int r = v ? !strcmp(v, "true") : dflt;

	free(v);
	return r;
}

static int parse_metric(const struct cparse *cp, xmlNodePtr n)
{
	struct config *c = cp->c;
	struct config_metric *m;
	xmlNodePtr k;
	size_t alloc = c->nmetrics;
	int bad = 0;

	HPC_GROW(c->metrics, c->nmetrics + 1, alloc);
	m = &c->metrics[c->nmetrics++];
	memset(m, 0, sizeof(*m));
	if (required(cp, n, "name", &m->name))
		return -1;
	m->display_name = attr(n, "displayName");
	m->display = bool_attr(n, "display", 1);
	m->percent = bool_attr(n, "percent", 1);
	k = next_elem(cp, n->children, &bad);
	if (bad)
		return -1;
	if (k && is(k, "FILE")) {
		if (required(cp, k, "name", &m->file))
			return -1;
		m->select = attr(k, "select");
	} else if (k && is(k, "COMPUTE")) {
		struct strbuf sb = STRBUF_INIT;
		xmlNodePtr math = next_elem(cp, k->children, &bad), e;

		if (bad)
			return -1;
		if (!math || !is(math, "math"))
			return xmlread_fail(cp->x, math ? math : k,
					    "<COMPUTE> must hold <math>");
		e = next_elem(cp, math->children, &bad);
		if (bad)
			return -1;
		if (!e)
			return xmlread_fail(cp->x, math, "empty <math>");
		if (mathml(cp, e, &sb)) {
			strbuf_release(&sb);
			return -1;
		}
		m->compute = strbuf_detach(&sb, NULL);
	} else {
		return xmlread_fail(cp->x, k ? k : n, "<METRIC> must hold "
				    "<FILE> or <COMPUTE>");
	}
	return 0;
}

static int parse_root(const struct cparse *cp, xmlNodePtr root)
{
	struct config *c = cp->c;
	xmlNodePtr n;
	int bad = 0;

	if (!is(root, "HPCPROF") && !is(root, "HPCVIEW"))
		return xmlread_fail(cp->x, root, "root element must be "
				    "<HPCPROF> (or <HPCVIEW>)");
	for (n = next_elem(cp, root->children, &bad); n;
	     n = next_elem(cp, n->next, &bad)) {
		char *a, *b;

		if (is(n, "TITLE")) {
			if (required(cp, n, "name", &a))
				return -1;
			free(c->title);
			c->title = a;
		} else if (is(n, "PATH")) {
			if (required(cp, n, "name", &a))
				return -1;
			push(&c->paths, &c->npaths, a);
		} else if (is(n, "REPLACE")) {
			size_t k;

			if (required(cp, n, "in", &a))
				return -1;
			if (required(cp, n, "out", &b)) {
				free(a);
				return -1;
			}
			k = c->nreplace;
			push(&c->replace_from, &k, a);
			push(&c->replace_to, &c->nreplace, b);
		} else if (is(n, "STRUCTURE")) {
			if (required(cp, n, "name", &a))
				return -1;
			push(&c->structures, &c->nstructures, a);
		} else if (is(n, "METRIC")) {
			if (parse_metric(cp, n))
				return -1;
		} else if (!is(n, "GROUP") && !is(n, "DISPLAY")) {
			return xmlread_fail(cp->x, n, "unexpected element "
					    "(expected TITLE, PATH, REPLACE, "
					    "STRUCTURE or METRIC)");
		}
	}
	return bad ? -1 : 0;
}

int config_read(const char *path, struct config *c)
{
	struct cparse cp = { NULL, c };
	xmlNodePtr root = NULL;
	int rc, ret;

	memset(c, 0, sizeof(*c));
	cp.x = xmlread_open(path, &xmlread_config);
	if (!cp.x)
		return -1;
	while ((rc = xmlread_next(cp.x)) == 1)
		if (xmlTextReaderNodeType(cp.x->r) == XML_READER_TYPE_ELEMENT) {
			root = xmlread_expand(cp.x);
			break;
		}
	if (rc < 0 || !root)
		ret = rc < 0 || rc == 1 ? -1
					: hpc_seterr("'%s': no root element", path);
	else
		ret = parse_root(&cp, root);
	/* Read to the end so that trailing garbage is an error too. */
	while (!ret && (rc = xmlread_skip(cp.x)) == 1)
		;
	if (!ret && rc < 0)
		ret = -1;
	xmlread_close(cp.x);
	if (ret)
		config_release(c);
	return ret;
}

static void free_all(char **v, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		free(v[i]);
	free(v);
}

void config_release(struct config *c)
{
	size_t i;

	free(c->title);
	free_all(c->paths, c->npaths);
	free_all(c->replace_from, c->nreplace);
	free_all(c->replace_to, c->nreplace);
	free_all(c->structures, c->nstructures);
	for (i = 0; i < c->nmetrics; i++) {
		struct config_metric *m = &c->metrics[i];

		free(m->name);
		free(m->display_name);
		free(m->file);
		free(m->select);
		free(m->compute);
	}
	free(c->metrics);
	memset(c, 0, sizeof(*c));
}

int config_metric_selects(const struct config_metric *m,
			  const char *profile_path, const char *name,
			  uint32_t index)
{
	size_t n = strlen(m->file);
	char *end;
	unsigned long k;

	if (strcmp(profile_path, m->file) &&
	    (strncmp(profile_path, m->file, n) || profile_path[n] != '/'))
		return 0;
	if (!m->select)
		return 1;
	if (!strcmp(m->select, name))
		return 1;
	k = strtoul(m->select, &end, 10);
	return *m->select && !*end && k == index;
}
