/*
 * xmlw.h - a streaming XML writer that escapes correctly.
 *
 * Elements are opened with xmlw_start(), given attributes, and closed with
 * xmlw_end(); an element with no content is written as <X .../>.  Memory is
 * proportional to the nesting depth, never to the document.  Attribute values
 * and text are escaped (& < > " ' and newlines/tabs in attributes as
 * character references); bytes not allowed in XML 1.0 (control characters
 * other than tab, newline, carriage return) and bytes that are not part of
 * a UTF-8 character XML allows are written as '?', so the output is always
 * well-formed UTF-8.  Each element starts on its own line, indented by
 * its depth up to XMLW_MAX_INDENT spaces (or less, xmlw_set_indent):
 * deeper elements stay at that column, so the output grows linearly with
 * the tree, not with the sum of its depths (a 3,000-deep call path made
 * 112 MB of spaces).  Errors surface at xmlw_finish().
 */
#ifndef HPC_XMLW_H
#define HPC_XMLW_H

#include <stdint.h>
#include <stdio.h>

#include "error.h"

#define XMLW_MAX_INDENT 32

struct xmlw;

/* Writes to f (not closed by the writer), which no other thread may use
 * until xmlw_finish (the writer skips stdio's locks).  The caller frees
 * with xmlw_finish. */
struct xmlw *xmlw_new(FILE *f);
/*
 * A writer of a fragment: elements that go depth levels deep in a
 * document (their parents written by another writer), written exactly as
 * that writer would write them; xmlw_finish closes only its own.  So a
 * document's subtrees may be written on several threads, each to a file
 * of its own, and put in place with xmlw_fragment().
 */
struct xmlw *xmlw_new_at(FILE *f, size_t depth);
/* Elements started from now on are indented by at most max spaces
 * (clamped to XMLW_MAX_INDENT; 0: none, each line starts with its tag).
 * A fragment's writer must be given its document's setting. */
void xmlw_set_indent(struct xmlw *w, size_t max);
/* Writes len bytes of a fragment written at w's depth (xmlw_new_at) as
 * the next children of the current element. */
void xmlw_fragment(struct xmlw *w, const char *buf, size_t len);
/* Writes the XML declaration; call first. */
void xmlw_declaration(struct xmlw *w);
/* Writes <!DOCTYPE root [ dtd ]> with the DTD text inlined (NULL: none). */
void xmlw_doctype(struct xmlw *w, const char *root, const char *dtd_text);
void xmlw_start(struct xmlw *w, const char *name);
void xmlw_attr(struct xmlw *w, const char *name, const char *value);
void xmlw_attrf(struct xmlw *w, const char *name, const char *fmt, ...)
	HPC_PRINTF(3, 4);
/* xmlw_attrf(w, name, "%" PRIu64, v) and (w, name, "0x%" PRIx64, v),
 * without printf. */
void xmlw_attr_u64(struct xmlw *w, const char *name, uint64_t v);
void xmlw_attr_hex(struct xmlw *w, const char *name, uint64_t v);
/* Escaped character data inside the current element. */
void xmlw_text(struct xmlw *w, const char *text);
void xmlw_end(struct xmlw *w);
/*
 * Closes open elements, flushes, frees w.  Returns 0, or -1 if any write
 * failed (hpc_lasterr() says why).  Accepts NULL (returns 0).
 */
int xmlw_finish(struct xmlw *w);

/* Appends the escaped form of s to f (the writer's escaping, for reuse). */
void xml_escape(FILE *f, const char *s, int in_attr);
/*
 * The escaping of the character starting at *p, for writers that fill
 * their own buffers: the replacement to write (a static string), or NULL
 * when the character goes out as it is, and then *p is left on its last
 * byte (a UTF-8 character is 1 to 4 bytes).  in_attr as for xml_escape.
 */
const char *xml_escape_char(const unsigned char **p, int in_attr);

#endif
