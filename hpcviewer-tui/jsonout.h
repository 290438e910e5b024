/*
 * jsonout.h - JSON strings for the viewer's exports (export.h), which
 * stream everything else with fprintf.
 *
 * Invariant: what jsonout_str writes is one valid JSON string of valid
 * UTF-8 whatever the bytes of s (names come from hostile databases): '"',
 * '\\' and control characters are escaped, and a byte that starts no valid
 * UTF-8 sequence is written as U+FFFD.
 */
#ifndef HPCVIEWER_JSONOUT_H
#define HPCVIEWER_JSONOUT_H

#include <stdio.h>

/* Writes s as a quoted JSON string. */
void jsonout_str(FILE *out, const char *s);

#endif
