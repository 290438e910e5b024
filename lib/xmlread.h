/*
 * xmlread.h - the one policy for reading XML input: structure files
 * (hpcprof -S, structs/), metric configurations (hpcprof -M) and
 * experiment databases (hpcviewer-tui) are all read through it, with
 * libxml2's streaming xmlTextReader underneath.
 *
 * The policy:
 *  1. Only a regular file is read (infile.h: no FIFO, device or
 *     directory), and no more of it than its format's max_bytes; libxml2
 *     never opens anything itself (its own file opening would decompress
 *     gzip and follow URLs).  An empty file is refused as such.
 *  2. Nothing is fetched: XML_PARSE_NONET, no DTD loading, no entity
 *     substitution, no default attributes, and an external-entity loader
 *     that refuses every request.
 *  3. No entity is expanded.  A document whose DTD declares a general
 *     entity is refused as soon as its prolog has been read, before any
 *     of its elements reaches the caller; references to undeclared
 *     entities are errors (or expand to nothing).  The five predefined
 *     entities and character references, one character each, are the
 *     only expansion, so what is read is never larger than the file.
 *     libxml2's own limits stay on (XML_PARSE_HUGE is never given): its
 *     amplification checks bound the parameter entities of the internal
 *     subset, and entity references met before the prolog is checked.
 *  4. At most 256 KiB come before the root element (the DTD of each of
 *     our formats is a few KiB); a tag, comment, processing instruction
 *     or CDATA section with a '>' inside other than its end is at most
 *     256 KiB long, a tag has at most 1024 attributes, and no markup or
 *     text is longer than 8 MiB (libxml2 refuses 10,000,000 bytes of one
 *     token).  libxml2's push parser scans an unfinished tag or DTD again
 *     for every 512 bytes that bring a '>', and compares each attribute
 *     with all before it, so either took minutes; a value of megabytes
 *     without a raw '>' (our writers escape it) is read in linear time,
 *     so the structure of a real library with enormous C++ names is read.
 *  5. Elements nest at most max_depth deep (libxml2's xmlParserMaxDepth,
 *     a process-wide setting, is set from the format at each open: open
 *     one reader at a time, from one thread).
 *  6. Whitespace between elements is dropped (XML_PARSE_NOBLANKS): none
 *     of the formats has meaningful blanks there, and the reader would
 *     walk up to the root from each such text node (quadratic in depth).
 *  7. Errors are one line, "'FILE': line N: what is wrong", whether
 *     libxml2 or the caller found them; the first one is kept and libxml2
 *     prints nothing.  Once an error is recorded every call fails.
 */
#ifndef HPC_XMLREAD_H
#define HPC_XMLREAD_H

#include <stdint.h>

#include <libxml/xmlreader.h>

#include "error.h"

struct xmlread_format {
	const char *what;	/* "a structure file": names it in errors */
	uint64_t max_bytes;
	unsigned max_depth;
};

extern const struct xmlread_format xmlread_structure;	/* 4 GiB, 4096 */
extern const struct xmlread_format xmlread_config;	/* 16 MiB, 256 */
extern const struct xmlread_format xmlread_experiment;	/* 64 GiB, 2^20 */

struct xmlread {
	xmlTextReaderPtr r;	/* the reader: query it with libxml2's calls */
	const char *path;
	/* private */
	const struct xmlread_format *fmt;
	int fd;			/* -1: reading mem[] instead */
	const char *mem;
	size_t memlen, mempos;
	uint64_t nread;
	int started, failed;
	int eof;		/* the file has been read to its end */
	char last;		/* its last byte read, blanks aside */
	long line;		/* lines read so far, from 1 */
	long run, run_line;	/* bytes since markup started, and its line */
	int in;			/* the kind of markup being read, or text */
	char quote;		/* the quote of a tag's open attribute value */
	char prev[2];		/* the two bytes before the last one */
	int attrs;		/* attribute values in the tag so far */
	int gt_inside;		/* the markup has a '>' not ending it */
	char err[512];		/* the first error, without the file */
};

/*
 * A reader for the file at path, or NULL with hpc_lasterr() set.  Free with
 * xmlread_close().
 */
struct xmlread *xmlread_open(const char *path,
			     const struct xmlread_format *fmt);
/*
 * A reader for the len bytes at buf (which must outlive it), named path in
 * errors, under the same policy as a file of that size.
 */
struct xmlread *xmlread_open_mem(const char *path, const char *buf,
				 size_t len, const struct xmlread_format *fmt);
void xmlread_close(struct xmlread *x);

/*
 * Moves to the next node (xmlTextReaderRead) or over the current element's
 * subtree (xmlTextReaderNext), checking the policy on the way: 1 at a
 * node, 0 at the end of the document, -1 with hpc_lasterr() set.
 */
int xmlread_next(struct xmlread *x);
int xmlread_skip(struct xmlread *x);

/*
 * The current element expanded into a tree (xmlTextReaderExpand), valid
 * until the reader moves past it; NULL with hpc_lasterr() set.
 */
xmlNodePtr xmlread_expand(struct xmlread *x);

/*
 * The value of the current element's attribute name, or NULL when it has
 * none; valid until the reader moves.
 */
const char *xmlread_attr(struct xmlread *x, const char *name);

/*
 * Records "'FILE': line N: MESSAGE" for node n (NULL: the current node)
 * as the error, unless one is recorded already, and sets hpc_lasterr() to
 * the first error; returns -1.
 */
int xmlread_fail(struct xmlread *x, xmlNodePtr n, const char *fmt, ...)
	HPC_PRINTF(3, 4);

/* -1 with hpc_lasterr() set when an error has been recorded, else 0. */
int xmlread_check(struct xmlread *x);

#endif
