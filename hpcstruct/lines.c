/* lines.c - interned strings and the DWARF line table of a binary. */
#include <stdlib.h>
#include <string.h>

#include <dwarf.h>

#include "addrsearch.h"
#include "error.h"
#include "lines.h"
#include "strbuf.h"

void strtab_init(struct strtab *t)
{
	t->v = NULL;
	t->n = t->alloc = 0;
	t->idx = hmap_new();
	HPC_GROW(t->v, 1, t->alloc);
	t->v[0] = xstrdup("");
	t->n = 1;
}

void strtab_release(struct strtab *t)
{
	for (size_t i = 0; i < t->n; i++)
		free(t->v[i]);
	free(t->v);
	hmap_free(t->idx);
	t->v = NULL;
	t->n = t->alloc = 0;
	t->idx = NULL;
}

uint32_t strtab_intern(struct strtab *t, const char *s)
{
	void *v;

	if (!s || !*s || !t->v)
		return 0;
	if (hmap_lookup(t->idx, s, strlen(s), &v))
		return (uint32_t)(uintptr_t)v;
	HPC_GROW(t->v, t->n + 1, t->alloc);
	t->v[t->n] = xstrdup(s);
	hmap_put(t->idx, s, strlen(s), (void *)(uintptr_t)t->n);
	return (uint32_t)t->n++;
}

uint32_t strtab_intern_src(struct strtab *t, Dwarf_Die *cudie,
			   const char *src)
{
	Dwarf_Attribute a;
	const char *dir;
	struct strbuf sb = STRBUF_INIT;
	uint32_t i;

	if (!src || src[0] == '/' ||
	    !(dir = dwarf_formstring(dwarf_attr(cudie, DW_AT_comp_dir, &a))) ||
	    dir[0] != '/')
		return strtab_intern(t, src);
	while (src[0] == '.' && src[1] == '/')
		src += 2;
	strbuf_addf(&sb, "%s%s%s", dir, dir[strlen(dir) - 1] == '/' ? "" : "/", src);
	i = strtab_intern(t, sb.buf);
	strbuf_release(&sb);
	return i;
}

static int is_end(const struct line_row *r)
{
	return r->file == 0 && r->line == 0;
}

/* Address order; at one address a sequence end before a row that starts. */
static int row_cmp(const void *a, const void *b)
{
	const struct line_row *x = a, *y = b;

	if (x->addr != y->addr)
		return x->addr < y->addr ? -1 : 1;
	return is_end(y) - is_end(x);
}

struct run {
	size_t first, n;
};

static int is_sorted(const struct line_row *v, size_t n)
{
	for (size_t i = 1; i < n; i++)
		if (row_cmp(&v[i - 1], &v[i]) > 0)
			return 0;
	return 1;
}

/* Merges the sorted adjacent runs a and b of from into to, stably. */
static void merge(const struct line_row *from, struct line_row *to,
		  const struct run *a, const struct run *b)
{
	size_t i = a->first, j = b->first, k = a->first;
	size_t ie = a->first + a->n, je = b->first + b->n;

	while (i < ie && j < je)
		to[k++] = row_cmp(&from[j], &from[i]) < 0 ? from[j++] : from[i++];
	while (i < ie)
		to[k++] = from[i++];
	while (j < je)
		to[k++] = from[j++];
}

/*
 * Sorts v (cap elements allocated) stably (so, among rows of one address, DWARF's order stays).
 * libdw gives each unit's rows sorted by address, so a natural merge sort
 * over the units costs n log(units).  A unit that is not sorted (it never
 * happens with libdw) is sorted on its own first, then order among equal
 * rows of that unit is qsort's.
 */
static struct line_row *sort_rows(struct line_row *v, size_t n, size_t cap,
				  struct run *runs, size_t nruns)
{
	struct line_row *w;

	for (size_t r = 0; r < nruns; r++)
		if (!is_sorted(v + runs[r].first, runs[r].n))
			qsort(v + runs[r].first, runs[r].n, sizeof(*v), row_cmp);
	if (is_sorted(v, n))
		return v;
	w = xmalloc(cap * sizeof(*w));	/* same capacity as v */
	while (nruns > 1) {
		size_t out = 0;
		struct line_row *t;

		for (size_t r = 0; r < nruns; r += 2) {
			if (r + 1 < nruns) {
				merge(v, w, &runs[r], &runs[r + 1]);
				runs[out].first = runs[r].first;
				runs[out].n = runs[r].n + runs[r + 1].n;
			} else {
				memcpy(w + runs[r].first, v + runs[r].first,
				       runs[r].n * sizeof(*v));
				runs[out] = runs[r];
			}
			out++;
		}
		nruns = out;
		t = v;
		v = w;
		w = t;
	}
	free(w);
	return v;
}

void linemap_load(struct linemap *m, Dwarf *dw, uint64_t bias,
		  struct strtab *files, const struct hmap *units)
{
	struct line_row *v = m->rows;
	size_t n = m->n, alloc = m->alloc, out = 0;
	struct run *runs = NULL;
	size_t nruns = 0, runs_alloc = 0;
	Dwarf_CU *cu = NULL;
	Dwarf_Die cudie;
	/* libdw's file name pointer -> strtab index + 1: no string hashing */
	struct hmap *by_ptr = hmap_new();

	if (n > 0) {		/* rows already there form one sorted run */
		HPC_GROW(runs, 1, runs_alloc);
		runs[0].first = 0;
		runs[0].n = n;
		nruns = 1;
	}
	while (dwarf_get_units(dw, cu, &cu, NULL, NULL, &cudie, NULL) == 0) {
		Dwarf_Lines *lines;
		size_t nlines;
		const char *last_src = NULL;
		uint32_t last_file = 0;

		if ((units && !hmap_get_u64(units, dwarf_dieoffset(&cudie))) ||
		    dwarf_getsrclines(&cudie, &lines, &nlines) != 0)
			continue;
		HPC_GROW(v, n + nlines, alloc);
		HPC_GROW(runs, nruns + 1, runs_alloc);
		runs[nruns].first = n;
		for (size_t i = 0; i < nlines; i++) {
			Dwarf_Line *l = dwarf_onesrcline(lines, i);
			Dwarf_Addr addr;
			int lineno = 0;
			bool end = false;
			const char *src;

			if (!l || dwarf_lineaddr(l, &addr) != 0)
				continue;
			dwarf_lineendsequence(l, &end);
			v[n].addr = addr + bias;
			v[n].file = 0;
			v[n].line = 0;
			if (!end) {
				dwarf_lineno(l, &lineno);
				src = dwarf_linesrc(l, NULL, NULL);
				if (src != last_src) {
					void *idx = hmap_get_u64(by_ptr, (uintptr_t)src);

					if (!idx) {
						idx = (void *)(uintptr_t)(strtab_intern_src(files, &cudie, src) + 1);
						hmap_put_u64(by_ptr, (uintptr_t)src, idx);
					}
					last_src = src;
					last_file = (uint32_t)((uintptr_t)idx - 1);
				}
				/* a real row needs a file to differ from an end */
				v[n].file = last_file ? last_file :
					strtab_intern(files, "?");
				v[n].line = lineno > 0 ? (uint32_t)lineno : 0;
			}
			n++;
		}
		runs[nruns].n = n - runs[nruns].first;
		nruns++;
	}
	hmap_free(by_ptr);
	if (n > 1)
		v = sort_rows(v, n, alloc, runs, nruns);
	free(runs);
	/* collapse in place: the last row for an address wins */
	for (size_t i = 0; i < n; i++) {
		if (out > 0 && v[out - 1].addr == v[i].addr)
			v[out - 1] = v[i];
		else
			v[out++] = v[i];
	}
	m->rows = v;
	m->n = out;
	m->alloc = alloc;
}

void linemap_release(struct linemap *m)
{
	free(m->rows);
	m->rows = NULL;
	m->n = m->alloc = 0;
}

static int row_at_or_before(const void *elem, const void *key)
{
	return ((const struct line_row *)elem)->addr <= *(const uint64_t *)key;
}

ptrdiff_t linemap_find(const struct linemap *m, uint64_t addr)
{
	size_t lo = addrsearch_partition(m->rows, m->n, sizeof(*m->rows),
					 row_at_or_before, &addr);

	if (lo == 0)
		return -1;
	if (m->rows[lo - 1].file == 0 && m->rows[lo - 1].line == 0)
		return -1;
	return (ptrdiff_t)lo - 1;
}
