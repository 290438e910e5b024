/* structfile.c - see structfile.h. */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "error.h"
#include "hashmap.h"
#include "strbuf.h"
#include "structfile.h"
#include "xmlsafe.h"

#define MAX_DEPTH 4096

struct structure *structure_new(const char *lm_path, const char *source)
{
	struct structure *s = xcalloc(1, sizeof(*s));

	s->strings = hmap_new();
	s->lm_path = structure_intern(s, lm_path);
	s->source = structure_intern(s, source);
	structure_add(s, SCOPE_LM, 0, s->lm_path, NULL, 0, 0);
	return s;
}

void structure_free(struct structure *s)
{
	size_t i;

	if (!s)
		return;
	for (i = 0; i < hmap_capacity(s->strings); i++)
		if (hmap_used(s->strings, i))
			free(hmap_value(s->strings, i));
	hmap_free(s->strings);
	free(s->scopes);
	free(s->ranges);
	free(s->procs);
	free(s);
}

const char *structure_intern(struct structure *s, const char *str)
{
	char *v;

	if (!str)
		return NULL;
	v = hmap_get_str(s->strings, str);
	if (!v) {
		v = xstrdup(str);
		hmap_put_str(s->strings, str, v);
	}
	return v;
}

uint32_t structure_add(struct structure *s, enum scope_kind kind,
		       uint32_t parent, const char *name, const char *file,
		       uint32_t line, uint64_t vma)
{
	struct scope *sc;

	HPC_GROW(s->scopes, s->nscopes + 1, s->scopes_alloc);
	sc = &s->scopes[s->nscopes];
	sc->kind = kind;
	sc->parent = parent;
	sc->name = structure_intern(s, name);
	sc->file = structure_intern(s, file);
	sc->line = line;
	sc->vma = vma;
	return (uint32_t)s->nscopes++;
}

void structure_add_range(struct structure *s, uint32_t scope, uint64_t lo,
			 uint64_t hi)
{
	if (hi <= lo)
		return;
	HPC_GROW(s->ranges, s->nranges + 1, s->ranges_alloc);
	s->ranges[s->nranges].lo = lo;
	s->ranges[s->nranges].hi = hi;
	s->ranges[s->nranges].scope = scope;
	s->nranges++;
}

static int cmp_range(const void *a, const void *b)
{
	const struct vrange *x = a, *y = b;

	if (x->lo != y->lo)
		return x->lo < y->lo ? -1 : 1;
	if (x->hi != y->hi)
		return x->hi < y->hi ? -1 : 1;
	return x->scope < y->scope ? -1 : x->scope > y->scope;
}

long structure_proc_of(const struct structure *s, size_t i)
{
	while (i > 0 && s->scopes[i].kind != SCOPE_PROC)
		i = s->scopes[i].parent;
	return i > 0 ? (long)i : -1;
}

void structure_finish(struct structure *s)
{
	uint64_t *hi = xcalloc(s->nscopes ? s->nscopes : 1, sizeof(*hi));
	size_t i;

	if (s->nranges)
		qsort(s->ranges, s->nranges, sizeof(*s->ranges), cmp_range);
	for (i = 0; i < s->nranges; i++) {
		long p = structure_proc_of(s, s->ranges[i].scope);

		if (p > 0 && s->ranges[i].hi > hi[p])
			hi[p] = s->ranges[i].hi;
	}
	s->nprocs = 0;
	for (i = 1; i < s->nscopes; i++) {
		struct vrange *r;

		if (s->scopes[i].kind != SCOPE_PROC)
			continue;
		HPC_GROW(s->procs, s->nprocs + 1, s->procs_alloc);
		r = &s->procs[s->nprocs++];
		r->lo = s->scopes[i].vma;
		r->hi = hi[i] > r->lo ? hi[i] : r->lo + 1;
		r->scope = (uint32_t)i;
	}
	if (s->nprocs)
		qsort(s->procs, s->nprocs, sizeof(*s->procs), cmp_range);
	free(hi);
}

/* Last element of a sorted table with lo <= addr, or -1. */
static long floor_search(const struct vrange *v, size_t n, uint64_t addr)
{
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (v[mid].lo <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	return (long)lo - 1;
}

long structure_lookup(const struct structure *s, uint64_t addr)
{
	long i = floor_search(s->ranges, s->nranges, addr);
	long k;

	/* Overlapping ranges: the nearest start that still covers addr. */
	for (k = i; k >= 0 && k > i - 16; k--)
		if (addr < s->ranges[k].hi)
			return s->ranges[k].scope;
	i = floor_search(s->procs, s->nprocs, addr);
	for (k = i; k >= 0 && k > i - 4; k--)
		if (addr < s->procs[k].hi)
			return s->procs[k].scope;
	return -1;
}

/* Parses "{[0x1-0x2) [0x3-0x4)}"; calls back per range; -1 if malformed. */
static int parse_ranges(const char *v, struct structure *s, uint32_t scope,
			uint64_t *first)
{
	const char *p = v;
	int n = 0;

	while (*p == ' ' || *p == '{')
		p++;
	while (*p && *p != '}') {
		char *end;
		uint64_t lo, hi;

		if (*p == ' ' || *p == ',') {
			p++;
			continue;
		}
		if (*p != '[')
			return -1;
		errno = 0;
		lo = strtoull(p + 1, &end, 0);
		if (errno || *end != '-')
			return -1;
		hi = strtoull(end + 1, &end, 0);
		if (errno || *end != ')')
			return -1;
		p = end + 1;
		if (!n++ && first)
			*first = lo;
		if (s)
			structure_add_range(s, scope, lo, hi);
	}
	return 0;
}

static uint32_t parse_line(const char *l)
{
	return l ? (uint32_t)strtoul(l, NULL, 10) : 0;
}

static int line_of(xmlTextReaderPtr r)
{
	return (int)xmlGetLineNo(xmlTextReaderCurrentNode(r));
}

struct parse_state {
	const char *path;
	xmlTextReaderPtr r;
	struct structure *cur;
	uint32_t stack[MAX_DEPTH];	/* scope index per element depth */
	/* n, f, l, v of the current element, reused (no malloc per element) */
	struct strbuf attr[4];
	int has[4];
};

/* Copies the current element's n, f, l and v attributes into st->attr. */
static void get_attrs(struct parse_state *st)
{
	static const char names[] = "nflv";

	memset(st->has, 0, sizeof(st->has));
	while (xmlTextReaderMoveToNextAttribute(st->r) == 1) {
		const char *a = (const char *)xmlTextReaderConstName(st->r);
		const char *k = a[0] && !a[1] ? strchr(names, a[0]) : NULL;
		const char *val;

		if (!k)
			continue;
		val = (const char *)xmlTextReaderConstValue(st->r);
		strbuf_reset(&st->attr[k - names]);
		strbuf_addstr(&st->attr[k - names], val ? val : "");
		st->has[k - names] = 1;
	}
	xmlTextReaderMoveToElement(st->r);
}

static int element_kind(const char *name, enum scope_kind *kind)
{
	static const struct { const char *n; enum scope_kind k; } map[] = {
		{ "LM", SCOPE_LM }, { "F", SCOPE_FILE }, { "P", SCOPE_PROC },
		{ "A", SCOPE_ALIEN }, { "L", SCOPE_LOOP }, { "S", SCOPE_STMT },
		{ "C", SCOPE_CALL },
	};
	size_t i;

	for (i = 0; i < sizeof(map) / sizeof(map[0]); i++)
		if (!strcmp(name, map[i].n)) {
			*kind = map[i].k;
			return 0;
		}
	return -1;
}

static int start_element(struct parse_state *st, const char *name, int depth,
			 struct structure ***out, size_t *nout, size_t *alloc)
{
	enum scope_kind kind;
	const char *n, *f, *l, *v;
	char *lm;
	uint32_t parent, idx;
	const char *file;
	uint64_t vma = 0;
	int ret = 0;

	if (depth == 0) {
		if (strcmp(name, "HPCToolkitStructure"))
			return hpc_seterr("%s:%d: root element is <%s>, not "
					  "<HPCToolkitStructure>", st->path,
					  line_of(st->r),
					  name);
		return 0;
	}
	if (depth >= MAX_DEPTH)
		return hpc_seterr("%s:%d: elements nested too deeply", st->path,
				  line_of(st->r));
	if (element_kind(name, &kind)) {
		/* Unknown elements are ignored; children attach above them. */
		st->stack[depth] = st->stack[depth - 1];
		return 0;
	}
	if (kind == SCOPE_LM) {
		if (depth != 1)
			return hpc_seterr("%s:%d: <LM> inside another element",
					  st->path,
					  line_of(st->r));
		lm = xmlsafe_attr(st->r, "n");
		if (!lm)
			return hpc_seterr("%s:%d: <LM> without n=", st->path,
					  line_of(st->r));
		st->cur = structure_new(lm, st->path);
		free(lm);
		HPC_GROW(*out, *nout + 1, *alloc);
		(*out)[(*nout)++] = st->cur;
		st->stack[depth] = 0;
		return 0;
	}
	if (!st->cur || depth < 2)
		return hpc_seterr("%s:%d: <%s> outside an <LM>", st->path,
				  line_of(st->r), name);
	parent = st->stack[depth - 1];
	get_attrs(st);
	n = st->has[0] ? st->attr[0].buf : NULL;
	f = kind == SCOPE_FILE ? n : st->has[1] ? st->attr[1].buf : NULL;
	l = st->has[2] ? st->attr[2].buf : NULL;
	v = st->has[3] ? st->attr[3].buf : NULL;
	file = f ? f : st->cur->scopes[parent].file;
	if (v && parse_ranges(v, NULL, 0, &vma)) {
		return hpc_seterr("%s:%d: bad address ranges v=\"%s\"",
				  st->path, line_of(st->r), v);
	}
	idx = structure_add(st->cur, kind, parent,
			    kind == SCOPE_PROC || kind == SCOPE_ALIEN ||
			    kind == SCOPE_FILE ? n : NULL,
			    file, parse_line(l), vma);
	if (v && (kind == SCOPE_STMT || kind == SCOPE_CALL))
		parse_ranges(v, st->cur, idx, NULL);
	st->stack[depth] = idx;
	return ret;
}

int structfile_read(const char *path, struct structure ***out, size_t *nout,
		    size_t *alloc)
{
	struct parse_state *st = xcalloc(1, sizeof(*st));
	size_t first = *nout, i;
	int ret = 0, rc;

	st->path = path;
	st->r = xmlsafe_open(path);
	if (!st->r) {
		free(st);
		return -1;
	}
	while ((rc = xmlTextReaderRead(st->r)) == 1) {
		int type = xmlTextReaderNodeType(st->r);

		if (type != XML_READER_TYPE_ELEMENT)
			continue;
		if (start_element(st, (const char *)xmlTextReaderConstName(st->r),
				  xmlTextReaderDepth(st->r), out, nout, alloc)) {
			ret = -1;
			break;
		}
	}
	if (rc < 0 && !ret)
		ret = xmlsafe_error(st->r, path);
	if (!ret && *nout == first)
		ret = hpc_seterr("'%s': no load module (<LM>) in structure file",
				 path);
	xmlFreeTextReader(st->r);
	for (i = 0; i < 4; i++)
		strbuf_release(&st->attr[i]);
	free(st);
	for (i = first; i < *nout; i++) {
		if (ret)
			structure_free((*out)[i]);
		else
			structure_finish((*out)[i]);
	}
	if (ret)
		*nout = first;
	return ret;
}

static const char kind_letter[] = "LFPALSC";

void structure_dump(FILE *f, const struct structure *s)
{
	size_t i, depth_alloc = 0;
	unsigned *depth = NULL;

	fprintf(f, "structure \"%s\" scopes %zu ranges %zu procedures %zu\n",
		s->lm_path, s->nscopes, s->nranges, s->nprocs);
	HPC_GROW(depth, s->nscopes, depth_alloc);
	for (i = 0; i < s->nscopes; i++) {
		const struct scope *sc = &s->scopes[i];

		depth[i] = i ? depth[sc->parent] + 1 : 0;
		fprintf(f, "%*s%c%s %zu l=%u", (int)depth[i] * 2, "",
			kind_letter[sc->kind], sc->kind == SCOPE_LM ? "M" : "",
			i, sc->line);
		if (sc->name && i)
			fprintf(f, " n=\"%s\"", sc->name);
		if (sc->kind == SCOPE_PROC || sc->kind == SCOPE_LOOP)
			fprintf(f, " v=0x%" PRIx64, sc->vma);
		fputc('\n', f);
	}
	for (i = 0; i < s->nprocs; i++)
		fprintf(f, "proc [0x%" PRIx64 "-0x%" PRIx64 ") %u\n",
			s->procs[i].lo, s->procs[i].hi, s->procs[i].scope);
	for (i = 0; i < s->nranges; i++)
		fprintf(f, "range [0x%" PRIx64 "-0x%" PRIx64 ") %u\n",
			s->ranges[i].lo, s->ranges[i].hi, s->ranges[i].scope);
	free(depth);
}
