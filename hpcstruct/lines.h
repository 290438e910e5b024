/*
 * lines.h - interned strings and the address -> source line map (lines.c).
 *
 * struct strtab interns file and function names: index 0 is always "",
 * an index stays valid (and its string unchanged) until strtab_release().
 *
 * struct linemap holds every DWARF line-table row of a binary, sorted by
 * address, one row per distinct address (the last row DWARF gives for an
 * address wins).  Row i covers [rows[i].addr, rows[i+1].addr); a row with
 * file 0 and line 0 ends a sequence (no line information after it).
 */
#ifndef HPCSTRUCT_LINES_H
#define HPCSTRUCT_LINES_H

#include <stddef.h>
#include <stdint.h>

#include <elfutils/libdw.h>

#include "hashmap.h"

struct strtab {
	char **v;
	size_t n, alloc;
	struct hmap *idx;
};

void strtab_init(struct strtab *t);
void strtab_release(struct strtab *t);
/* Returns the index of s (adding a copy when new); NULL and "" give 0. */
uint32_t strtab_intern(struct strtab *t, const char *s);
/*
 * Interns the source file name src of the unit cudie: a relative name
 * (clang's DWARF 5 names an included "k.h" "./k.h") is made absolute with
 * the unit's DW_AT_comp_dir, leading "./" dropped.  NULL and "" give 0.
 */
uint32_t strtab_intern_src(struct strtab *t, Dwarf_Die *cudie,
			   const char *src);
static inline const char *strtab_get(const struct strtab *t, uint32_t i)
{
	return t->v[i];
}

struct line_row {
	uint64_t addr;
	uint32_t file;		/* strtab index */
	uint32_t line;
};

struct linemap {
	struct line_row *rows;
	size_t n, alloc;
};

/*
 * Appends the rows of the compilation units of dw whose unit DIE offset
 * (dwarf_dieoffset) is a key of units, of every unit when units is NULL
 * (addresses moved by bias, file names interned in files), then sorts and
 * collapses them.
 */
void linemap_load(struct linemap *m, Dwarf *dw, uint64_t bias,
		  struct strtab *files, const struct hmap *units);
void linemap_release(struct linemap *m);
/*
 * Index of the row covering addr, or -1 when addr has no line.  Rows are
 * ordered, so a caller walking up in address order can continue from it.
 */
ptrdiff_t linemap_find(const struct linemap *m, uint64_t addr);

#endif
