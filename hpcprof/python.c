/*
 * python.c - the Python capability (capability.h): the structure of the
 * pseudo load module HPCPY_MODULE, whose nodes are Python frames (hpcpy.h),
 * synthesized in memory from the threads' Python code files (.hpcpy)
 * before the profiles' modules are registered, so that the canonical and
 * flat trees treat Python procedures as they treat any other.
 *
 * Invariants:
 *  1. A code is one procedure, whatever number of threads and processes
 *     recorded it: the files' codes are united by id (hpcpy.h, invariant
 *     1), the first one read kept.  Its addresses are the id's whole slot,
 *     [id << HPCPY_OFFSET_BITS, (id + 1) << HPCPY_OFFSET_BITS): every
 *     node address of the code, and every such address - 1 (a caller's
 *     call site), lies in one of its statements.
 *  2. A procedure is named "FILE:LINE QUALNAME" (FILE the base name of
 *     its file, or as many of the path's last components as tell it from
 *     the database's other files of that base name: a/utils.py and
 *     b/utils.py, pkg/__init__.py; LINE its first line), with its file
 *     and first line as a procedure's; its statements are the line
 *     table's ranges (pyline.h), decoded for the Python version of the
 *     file the code came from, an instruction of no line and the rest of
 *     the slot at its first line.
 *     Every view and export then names it so without knowing Python.
 *  3. A code that no file holds (its process killed before writing it)
 *     is named "<python code 0xID>" by the fallback (dwarf-fallback.c),
 *     and the threads with Python frames but no code file are said in
 *     one line.
 */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "capability.h"
#include "error.h"
#include "experiment.h"
#include "hashmap.h"
#include "hpcpy.h"
#include "pyline.h"
#include "strbuf.h"
#include "structfile.h"
#include "textrec.h"

static void *py_read(const char *profile, const struct hpcrun_profile *p,
		     int *bad)
{
	char *path = textrec_path_for(profile, HPCPY_SUFFIX);
	struct hpcpy *py = NULL;

	(void)p;
	if (!access(path, F_OK)) {
		py = hpcpy_read(path);
		*bad = py == NULL;
	}
	free(path);
	return py;
}

static void py_side_free(void *side)
{
	hpcpy_free(side);
}

static const char *base_name(const char *path)
{
	const char *s = strrchr(path, '/');

	return s ? s + 1 : path;
}

/* The last k components of path (all of it when it has fewer). */
static const char *last_components(const char *path, int k)
{
	const char *p = path + strlen(path);

	while (p > path && !(p[-1] == '/' && --k == 0))
		p--;
	return p;
}

static int by_base(const void *a, const void *b)
{
	const char *x = *(const char *const *)a, *y = *(const char *const *)b;
	int c = strcmp(base_name(x), base_name(y));

	return c ? c : strcmp(x, y);
}

/* Are the last k components of paths[0..n) (distinct) distinct? */
static int tell_apart(const char *const *paths, size_t n, int k)
{
	size_t i, j;

	for (i = 0; i < n; i++)
		for (j = i + 1; j < n; j++)
			if (!strcmp(last_components(paths[i], k),
				    last_components(paths[j], k)))
				return 0;
	return 1;
}

/*
 * The names of the distinct files of codes[0..n) (invariant 2): a map
 * from each file to the part of it a procedure's name shows, pointing
 * into the file's own string.
 */
static struct hmap *file_names(const struct hpcpy_code *const *codes,
			       size_t n)
{
	struct hmap *names = hmap_new();
	const char **paths = xmalloc((n ? n : 1) * sizeof(*paths));
	size_t np = 0, i, j;
	int k;

	for (i = 0; i < n; i++)
		if (!hmap_get_str(names, codes[i]->filename)) {
			hmap_put_str(names, codes[i]->filename,
				     (void *)base_name(codes[i]->filename));
			paths[np++] = codes[i]->filename;
		}
	qsort(paths, np, sizeof(*paths), by_base);
	for (i = 0; i < np; i = j) {
		for (j = i + 1; j < np &&
		     !strcmp(base_name(paths[i]), base_name(paths[j])); j++)
			;
		if (j - i < 2)
			continue;
		for (k = 2; !tell_apart(paths + i, j - i, k); k++)
			;
		for (; i < j; i++)
			hmap_put_str(names, paths[i],
				     (void *)last_components(paths[i], k));
	}
	free(paths);
	return names;
}

/* Adds statement ranges [lo, hi) of the code's slot at line (scope made
 * on first use, *by_line: line -> scope + 1). */
static void add_stmt(struct structure *st, struct hmap *by_line,
		     uint32_t proc, const char *file, uint32_t line,
		     uint64_t lo, uint64_t hi)
{
	uintptr_t v = (uintptr_t)hmap_get_u64(by_line, line);

	if (!v) {
		v = structure_add(st, SCOPE_STMT, proc, NULL, file, line, lo) + 1;
		hmap_put_u64(by_line, line, (void *)v);
	}
	structure_add_range(st, (uint32_t)(v - 1), lo, hi);
}

/* Code c of a file of Python major.minor as a procedure of st, its file
 * shown as file (invariant 2). */
static void add_code(struct structure *st, const struct hpcpy_code *c,
		     int major, int minor, const char *file)
{
	uint64_t base = c->id << HPCPY_OFFSET_BITS, at = 0;
	uint64_t slot = (uint64_t)1 << HPCPY_OFFSET_BITS;
	struct strbuf name = STRBUF_INIT;
	struct hmap *by_line = hmap_new();
	struct pyline_range *r;
	uint32_t proc;
	long n, i;

	strbuf_addf(&name, "%s:%u %s", file, c->firstlineno, c->qualname);
	proc = structure_add(st, SCOPE_PROC, 0, name.buf, c->filename,
			     c->firstlineno, base);
	strbuf_release(&name);
	/* a code of unknown length (0) stays in its slot all the same */
	n = pyline_decode(major, minor, c->linetable, c->linetable_len,
			  c->firstlineno,
			  c->ncode ? c->ncode : (uint32_t)(slot - 1), &r);
	for (i = 0; i < n; i++) {
		if (at < r[i].start)
			add_stmt(st, by_line, proc, c->filename,
				 c->firstlineno, base + at, base + r[i].start);
		add_stmt(st, by_line, proc, c->filename,
			 r[i].line < 0 ? c->firstlineno : (uint32_t)r[i].line,
			 base + r[i].start, base + r[i].end);
		at = r[i].end;
	}
	add_stmt(st, by_line, proc, c->filename, c->firstlineno, base + at,
		 base + slot);
	free(r);
	hmap_free(by_line);
}

/* 1 when profile p recorded Python frames: a node of its tree is in
 * [python].  The load map is the process's, so [python] is in every
 * thread's, frames or none. */
static int has_python(const struct hpcrun_profile *p)
{
	size_t i;

	for (i = 0; p && i < p->nlms; i++)
		if (!strcmp(p->lms[i].path, HPCPY_MODULE))
			return p->lms[i].used;
	return 0;
}

static void py_structures(void *state, struct experiment *e,
			  const struct hpcrun_profile *const *profiles,
			  void *const *sides, size_t n)
{
	const struct hpcpy_code **codes = NULL;
	const struct hpcpy **of = NULL;
	struct structure *st;
	struct hmap *ids = hmap_new(), *names;
	size_t i, k, nc = 0, cap = 0, missing = 0;

	(void)state;
	for (i = 0; i < n; i++) {
		const struct hpcpy *py = sides[i];

		if (!py) {
			missing += has_python(profiles[i]);
			continue;
		}
		for (k = 0; k < py->ncodes; k++) {
			const struct hpcpy_code *c = &py->codes[k];

			if (hmap_get_u64(ids, c->id))
				continue;
			hmap_put_u64(ids, c->id, (void *)1);
			if (nc == cap) {
				cap = cap ? 2 * cap : 64;
				codes = xrealloc(codes, cap * sizeof(*codes));
				of = xrealloc(of, cap * sizeof(*of));
			}
			codes[nc] = c;
			of[nc++] = py;
		}
	}
	hmap_free(ids);
	if (nc) {
		names = file_names(codes, nc);
		st = structure_new(HPCPY_MODULE, HPCPY_MODULE);
		for (i = 0; i < nc; i++)
			add_code(st, codes[i], of[i]->major, of[i]->minor,
				 hmap_get_str(names, codes[i]->filename));
		hmap_free(names);
		structure_finish(st);
		experiment_add_structure(e, st);
	}
	free(codes);
	free(of);
	if (missing)
		hpc_warn("%zu thread%s with Python frames and no Python code "
			 "file (%s; a killed process?): code no other thread "
			 "has is named <python code 0xID>", missing,
			 missing == 1 ? "" : "s", HPCPY_SUFFIX);
}

const struct prof_capability python_capability = {
	.name = "python",
	.read = py_read,
	.side_free = py_side_free,
	.ignored = "Python code file ignored",
	.structures = py_structures,
};
