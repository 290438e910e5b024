/*
 * output.h - streams scope trees as a structure file (output.c).
 *
 * Writes HPCToolkit's structure format 4.9 (hpcstruct(5)): the DTD inline,
 * one LM, then F elements grouping consecutive procedures of one file (so
 * callers pass procedures ordered by file), P, A, L, S.  Ids ("i") are
 * unique and increase in document order.  Memory does not grow with the
 * document.
 */
#ifndef HPCSTRUCT_OUTPUT_H
#define HPCSTRUCT_OUTPUT_H

#include <stdint.h>
#include <stdio.h>

#include "lines.h"
#include "scopes.h"
#include "strbuf.h"
#include "xmlw.h"

struct output {
	struct xmlw *w;
	const struct strtab *strs;
	uint64_t next_id;
	uint32_t cur_file;	/* file of the open F, UINT32_MAX = none */
	struct strbuf sb;
};

/* Starts the document for load module lm_name on f (not closed here). */
struct output *output_new(FILE *f, const char *lm_name,
			  const struct strtab *strs);
void output_proc(struct output *o, const struct proc_tree *t);
/* Closes the document and frees o; 0, or -1 when a write failed. */
int output_finish(struct output *o);

#endif
