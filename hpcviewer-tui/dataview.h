/*
 * dataview.h - the data view of hpcviewer-tui: which data
 * objects the samples touched, and from which calling contexts, loops and
 * lines, from the data tree of an hpcprof database (hpcprof-database(5),
 * Data-centric tree; model.h invariant 7).
 *
 * Invariants:
 *  1. Level 1 of the view holds every object of the data tree, of every
 *     kind; the tree's kind groups ("<heap>", ...) are not rows: an
 *     object's kind is its own scope kind (SK_OBJ_HEAP ... SK_OBJ_UNKNOWN,
 *     the CSV kind "heap", "static", "stack", "small", "unknown").  Below an
 *     object are its accessing contexts, as the top-down view shows code
 *     (frames, loops, inlined code, lines), built the same lazy way, so the
 *     view is linear in the data tree's size.
 *  2. The view's root holds the data root's values: an object's percentage
 *     is its share of the samples that had a data address.
 *  3. An object's label is its name (a heap object's: its allocation path,
 *     leaf first, with the functions' names) and, when the database has
 *     them, its attributes: "(16384 bytes in 4 blocks, 2 threads, offsets
 *     [0, 16384))", with sharing data (hpcrun --sharing) its sharing
 *     label and remote share too: "(..., false-sharing, 50.0% remote)".
 *     The screen, --stdio and --csv print the same label; the CSV of the
 *     data view has a column "sharing" besides (dataview_sharing).
 */
#ifndef HPCVIEWER_DATAVIEW_H
#define HPCVIEWER_DATAVIEW_H

#include <stdint.h>

#include "model.h"
#include "strbuf.h"

/*
 * After loading: gives the data tree's kind groups SK_DATA and its objects
 * their SK_OBJ_* kind (by their group's name), and finds the attribute
 * metrics (model.data_attr).  Without a data tree it only sets
 * data_attr to -1.
 */
void dataview_classify(struct model *m);

/* Is kind (enum scope_kind) a data object's? */
int dataview_is_object(int kind);

/* The CSV kind of an object kind ("heap"), or NULL for another kind. */
const char *dataview_kind_name(int kind);

/* The sharing label of scope s ("false-sharing"): "" for a scope that is
 * no object or has none. */
const char *dataview_sharing(const struct model *m, uint32_t s);

/* The object scope named name: its name without attributes ("c [fs]",
 * "alloc_b prog.c:31 < main prog.c:13"), or the bare name of one object,
 * its name up to the first space ("c").  MODEL_NONE when no object has
 * it, or when several have the bare name: their names, quoted and comma
 * separated, are then appended to others. */
uint32_t dataview_find(const struct model *m, const char *name,
		       struct strbuf *others);

/* Does the database have sharing labels (DATA:sharing)? */
int dataview_has_sharing(const struct model *m);

/* Appends the label of object scope s (invariant 3) to out. */
void dataview_label(const struct model *m, uint32_t s, struct strbuf *out);

#endif
