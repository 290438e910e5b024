/*
 * names.h - short forms of long (C++) procedure names for display.
 *
 * A template argument list or parameter list longer than 16 characters is
 * collapsed to "<...>" or "(...)" (shorter ones stay as written), so
 *   void std::sort<__gnu_cxx::__normal_iterator<int*, std::vector<int, ...
 * reads "void std::sort<...>(...)".  Names that would collapse to the same
 * short form keep, inside each collapsed list, up to three of the words
 * that set them apart ("std::sort<...int...>(...)" and
 * "std::sort<...double...>(...)"); names that words cannot tell apart keep
 * their full form.  So two procedures never share a short name.
 */
#ifndef HPCVIEWER_NAMES_H
#define HPCVIEWER_NAMES_H

#include <stdint.h>

#include "model.h"

struct names;

/* Short forms of the names of m's procedures and inlined code.  Free with
 * names_free(). */
struct names *names_new(const struct model *m);
void names_free(struct names *nm);

/* The short form of m's string name (an interned index), or NULL when the
 * name has none; valid until names_free(). */
const char *names_short(const struct names *nm, uint32_t name);

#endif
