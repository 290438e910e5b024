/* structfile.c - see structfile.h. */
#include <errno.h>
#include <inttypes.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "addrsearch.h"
#include "error.h"
#include "hashmap.h"
#include "insn-mix.h"
#include "strbuf.h"
#include "structfile.h"
#include "structindex.h"
#include "xmlread.h"

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
	structindex_free(s->index);
	free(s->want);
	free(s->scopes);
	free(s->ranges);
	free(s->procs);
	free(s->mixruns);
	free(s->mixcodes);
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

static int cmp_mixrun(const void *a, const void *b)
{
	const struct mixrun *x = a, *y = b;

	return x->lo < y->lo ? -1 : x->lo > y->lo;
}

/* Sorts the mix runs; a run overlapping the one before it is dropped. */
static void finish_mix(struct structure *s)
{
	size_t i, out = 0;

	if (s->nmixruns > 1)
		qsort(s->mixruns, s->nmixruns, sizeof(*s->mixruns), cmp_mixrun);
	for (i = 0; i < s->nmixruns; i++)
		if (!out || s->mixruns[i].lo >= s->mixruns[out - 1].hi)
			s->mixruns[out++] = s->mixruns[i];
	s->nmixruns = out;
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
	finish_mix(s);
	s->has_mix |= s->nmixruns > 0;
}

_Static_assert(offsetof(struct vrange, lo) == 0, "addrsearch.h's key");
_Static_assert(offsetof(struct mixrun, lo) == 0, "addrsearch.h's key");

/* Last element of a sorted table with lo <= addr, or -1. */
static long floor_search(const struct vrange *v, size_t n, uint64_t addr)
{
	return (long)addrsearch_count_le(v, n, sizeof(*v), addr) - 1;
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

/* The code of the instruction covering addr (and its end), or -1. */
static int insn_code_at(const struct structure *s, uint64_t addr,
			uint64_t *end)
{
	size_t lo;
	const struct mixrun *r;
	uint64_t at;
	uint32_t k;

	lo = addrsearch_count_le(s->mixruns, s->nmixruns, sizeof(*s->mixruns),
				 addr);
	if (lo == 0 || addr >= s->mixruns[lo - 1].hi)
		return -1;
	r = &s->mixruns[lo - 1];
	for (at = r->lo, k = r->first;
	     at + insn_mix_len(s->mixcodes[k]) <= addr; k++)
		at += insn_mix_len(s->mixcodes[k]);
	*end = at + insn_mix_len(s->mixcodes[k]);
	return s->mixcodes[k];
}

int structure_insn_class(const struct structure *s, uint64_t addr)
{
	uint64_t end;
	int code = insn_code_at(s, addr, &end);

	return code < 0 ? -1 : (int)insn_mix_class((uint8_t)code);
}

int structure_insn_class_ending(const struct structure *s, uint64_t addr)
{
	uint64_t end;
	int code = addr ? insn_code_at(s, addr - 1, &end) : -1;

	return code < 0 || end != addr ? -1
				       : (int)insn_mix_class((uint8_t)code);
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

struct parse_state {
	const char *path;
	struct xmlread *x;
	struct structure *cur;
	struct structure *into;	/* set: the LM's scopes go into it */
	uint32_t stack[MAX_DEPTH];	/* scope index per element depth */
	/* n, f, l, v of the current element, reused (no malloc per element) */
	struct strbuf attr[4];
	int has[4];
	/* the S element just read, which an insn-mix may follow, or -1 */
	long last_stmt;
	size_t stmt_ranges;	/* its first range in cur->ranges */
};

/* Copies the current element's n, f, l and v attributes into st->attr. */
static void get_attrs(struct parse_state *st)
{
	static const char names[] = "nflv";

	xmlTextReaderPtr r = st->x->r;

	memset(st->has, 0, sizeof(st->has));
	while (xmlTextReaderMoveToNextAttribute(r) == 1) {
		const char *a = (const char *)xmlTextReaderConstName(r);
		const char *k = a[0] && !a[1] ? strchr(names, a[0]) : NULL;
		const char *val;

		if (!k)
			continue;
		val = (const char *)xmlTextReaderConstValue(r);
		strbuf_reset(&st->attr[k - names]);
		strbuf_addstr(&st->attr[k - names], val ? val : "");
		st->has[k - names] = 1;
	}
	xmlTextReaderMoveToElement(r);
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
	const char *n, *f, *l, *v, *lm;
	uint32_t parent, idx;
	const char *file;
	uint64_t vma = 0;

	if (depth == 0) {
		if (strcmp(name, "HPCToolkitStructure"))
			return xmlread_fail(st->x, NULL, "root element is <%s>, "
					    "not <HPCToolkitStructure>", name);
		return 0;
	}
	if (depth >= MAX_DEPTH)
		return xmlread_fail(st->x, NULL, "elements nested deeper than "
				    "%d", MAX_DEPTH);
	if (element_kind(name, &kind)) {
		/* Unknown elements are ignored; children attach above them. */
		st->stack[depth] = st->stack[depth - 1];
		return 0;
	}
	if (kind == SCOPE_LM) {
		if (depth != 1)
			return xmlread_fail(st->x, NULL, "<LM> inside another "
					    "element");
		lm = xmlread_attr(st->x, "n");
		if (!lm)
			return xmlread_fail(st->x, NULL, "<LM> without n=");
		if (st->into) {
			if (st->cur)
				return xmlread_fail(st->x, NULL, "a second "
						    "<LM>");
			st->cur = st->into;
			st->stack[depth] = 0;
			return 0;
		}
		st->cur = structure_new(lm, st->path);
		HPC_GROW(*out, *nout + 1, *alloc);
		(*out)[(*nout)++] = st->cur;
		st->stack[depth] = 0;
		return 0;
	}
	if (!st->cur || depth < 2)
		return xmlread_fail(st->x, NULL, "<%s> outside an <LM>", name);
	parent = st->stack[depth - 1];
	get_attrs(st);
	n = st->has[0] ? st->attr[0].buf : NULL;
	f = kind == SCOPE_FILE ? n : st->has[1] ? st->attr[1].buf : NULL;
	l = st->has[2] ? st->attr[2].buf : NULL;
	v = st->has[3] ? st->attr[3].buf : NULL;
	file = f ? f : st->cur->scopes[parent].file;
	if (v && parse_ranges(v, NULL, 0, &vma))
		return xmlread_fail(st->x, NULL, "bad address ranges v=\"%s\"",
				    v);
	idx = structure_add(st->cur, kind, parent,
			    kind == SCOPE_PROC || kind == SCOPE_ALIEN ||
			    kind == SCOPE_FILE ? n : NULL,
			    file, parse_line(l), vma);
	st->stmt_ranges = st->cur->nranges;
	if (v && (kind == SCOPE_STMT || kind == SCOPE_CALL))
		parse_ranges(v, st->cur, idx, NULL);
	st->stack[depth] = idx;
	st->last_stmt = kind == SCOPE_STMT ? (long)idx : -1;
	return 0;
}

/*
 * An insn-mix processing instruction right after an S element: its codes
 * tile the statement's ranges in order, cut into runs of at most
 * MIX_RUN_INSNS instructions (structfile.h, invariant 4).
 */
static int read_mix(struct parse_state *st, const char *data)
{
	struct structure *s = st->cur;
	size_t first = s->nmixcodes, k = first, i;
	long bytes = insn_mix_parse(data, &s->mixcodes, &s->nmixcodes,
				    &s->mixcodes_alloc);
	uint64_t total = 0;

	if (bytes < 0)
		return xmlread_fail(st->x, NULL, "%s", hpc_lasterr());
	for (i = st->stmt_ranges; i < s->nranges; i++)
		total += s->ranges[i].hi - s->ranges[i].lo;
	for (i = st->stmt_ranges; i < s->nranges && total == (uint64_t)bytes;
	     i++) {
		uint64_t at = s->ranges[i].lo;

		while (at < s->ranges[i].hi && k < s->nmixcodes) {
			struct mixrun *r;
			size_t n = 0;

			HPC_GROW(s->mixruns, s->nmixruns + 1, s->mixruns_alloc);
			r = &s->mixruns[s->nmixruns++];
			r->lo = at;
			r->first = (uint32_t)k;
			while (n++ < MIX_RUN_INSNS && at < s->ranges[i].hi &&
			       k < s->nmixcodes)
				at += insn_mix_len(s->mixcodes[k++]);
			r->hi = at;
		}
		if (at != s->ranges[i].hi)
			total = 0;	/* an instruction crosses the range's end */
	}
	if (total != (uint64_t)bytes || k != s->nmixcodes)
		return xmlread_fail(st->x, NULL, "insn-mix of %lu bytes does "
				    "not match its statement's %lu bytes of "
				    "whole instructions", (unsigned long)bytes,
				    (unsigned long)total);
	return 0;
}

/* Reads the document x into new structures appended to *out, or into
 * st->into; returns 0 or -1 with hpc_lasterr() set.  Closes x. */
static int parse(struct xmlread *x, const char *path, struct structure *into,
		 struct structure ***out, size_t *nout, size_t *alloc)
{
	struct parse_state *st = xcalloc(1, sizeof(*st));
	size_t i;
	int ret = 0, rc;

	st->path = path;
	st->x = x;
	st->into = into;
	st->last_stmt = -1;
	while ((rc = xmlread_next(st->x)) == 1) {
		xmlTextReaderPtr r = st->x->r;
		int type = xmlTextReaderNodeType(r);

		if (type == XML_READER_TYPE_PROCESSING_INSTRUCTION &&
		    st->last_stmt >= 0 &&
		    !strcmp((const char *)xmlTextReaderConstName(r),
			    INSN_MIX_TARGET)) {
			const char *data =
				(const char *)xmlTextReaderConstValue(r);

			st->last_stmt = -1;
			if (read_mix(st, data ? data : "")) {
				ret = -1;
				break;
			}
			continue;
		}
		if (type == XML_READER_TYPE_END_ELEMENT)
			st->last_stmt = -1;
		if (type != XML_READER_TYPE_ELEMENT)
			continue;
		if (start_element(st, (const char *)xmlTextReaderConstName(r),
				  xmlTextReaderDepth(r), out, nout, alloc)) {
			ret = -1;
			break;
		}
	}
	if (rc < 0)
		ret = -1;
	if (!ret && !st->cur)
		ret = hpc_seterr("'%s': no load module (<LM>) in structure file",
				 path);
	xmlread_close(st->x);
	for (i = 0; i < 4; i++)
		strbuf_release(&st->attr[i]);
	free(st);
	return ret;
}

int structfile_read(const char *path, struct structure ***out, size_t *nout,
		    size_t *alloc)
{
	struct xmlread *x = xmlread_open(path, &xmlread_structure);
	size_t first = *nout, i;
	int ret;

	if (!x)
		return -1;
	ret = parse(x, path, NULL, out, nout, alloc);
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

/* HPCPROF_STRUCT_INDEX: "0" reads whole files, "stats" says what each
 * load parsed. */
static const char *index_mode(void)
{
	const char *v = getenv("HPCPROF_STRUCT_INDEX");

	return v ? v : "";
}

int structfile_open(const char *path, struct structure ***out, size_t *nout,
		    size_t *alloc)
{
	struct structindex *ix = strcmp(index_mode(), "0") ?
				 structindex_open(path) : NULL;
	struct strbuf doc = STRBUF_INIT;
	struct structure *s;
	struct xmlread *x;

	if (!ix)
		return structfile_read(path, out, nout, alloc);
	/* the prolog alone gives the LM, parsed as any document is */
	if (structindex_document(ix, NULL, &doc) ||
	    !(x = xmlread_open_mem(path, doc.buf, doc.len,
				   &xmlread_structure)) ||
	    parse(x, path, NULL, out, nout, alloc)) {
		strbuf_release(&doc);
		structindex_free(ix);
		return structfile_read(path, out, nout, alloc);
	}
	strbuf_release(&doc);
	s = (*out)[*nout - 1];
	structure_finish(s);
	s->index = ix;
	s->has_mix = structindex_has_mix(ix);
	return 0;
}

void structure_want(struct structure *s, uint64_t addr)
{
	if (!s->index)
		return;
	HPC_GROW(s->want, s->nwant + 1, s->want_alloc);
	s->want[s->nwant++] = addr;
}

/* Parses the document in doc (or the whole file: NULL) into s. */
static int load_into(struct structure *s, const struct strbuf *doc)
{
	struct xmlread *x = doc ? xmlread_open_mem(s->source, doc->buf,
						   doc->len,
						   &xmlread_structure)
				: xmlread_open(s->source, &xmlread_structure);
	size_t n = 0, alloc = 0;
	struct structure **none = NULL;

	if (!x)
		return -1;
	return parse(x, s->source, s, &none, &n, &alloc);
}

/* Empties s back to its LM scope. */
static void reset(struct structure *s)
{
	s->nscopes = 1;
	s->nranges = s->nprocs = s->nmixruns = s->nmixcodes = 0;
}

int structure_load(struct structure *s)
{
	struct structindex *ix = s->index;
	size_t n, i, parsed = 0;
	uint8_t *mark;
	struct strbuf doc = STRBUF_INIT;
	int ret;

	if (!ix)
		return 0;
	s->index = NULL;
	n = structindex_nprocs(ix);
	mark = xcalloc(n ? n : 1, 1);
	for (i = 0; i < s->nwant; i++)
		structindex_select(ix, s->want[i], mark);
	free(s->want);
	s->want = NULL;
	s->nwant = s->want_alloc = 0;
	for (i = 0; i < n; i++)
		parsed += mark[i];
	ret = structindex_document(ix, mark, &doc);
	reset(s);
	if (!ret)
		ret = load_into(s, &doc);
	if (ret) {	/* the index is no guide: read the whole file */
		reset(s);
		parsed = n;
		ret = load_into(s, NULL);
		if (ret)
			reset(s);
	}
	structure_finish(s);
	if (!strcmp(index_mode(), "stats"))
		fprintf(stderr, "%s: '%s': %zu of %zu procedures parsed\n",
			hpc_progname(), s->source, parsed, n);
	strbuf_release(&doc);
	free(mark);
	structindex_free(ix);
	return ret;
}

int structure_partial(const struct structure *s)
{
	return s->index != NULL;
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
	for (i = 0; i < s->nmixruns; i++) {
		const struct mixrun *r = &s->mixruns[i];
		uint64_t at = r->lo;
		uint32_t k;

		fprintf(f, "mix [0x%" PRIx64 "-0x%" PRIx64 ") ", r->lo, r->hi);
		for (k = r->first; at < r->hi; at += insn_mix_len(s->mixcodes[k++]))
			fputc(insn_mix_letters[insn_mix_class(s->mixcodes[k])], f);
		fputc('\n', f);
	}
	free(depth);
}
