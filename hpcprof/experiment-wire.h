/*
 * experiment-wire.h - a worker's tree (experiment.h: experiment_new_worker)
 * as bytes, so the ranks of hpcprof-mpi can send trees to each other and
 * merge them with experiment_merge().
 *
 * Invariants:
 *  1. Both sides have the same modules, structures and metrics: every rank
 *     registers every profile's header (run.c), in profile order, and
 *     reads the same structure files.  So a shared structure travels as the
 *     index of the first module that uses it, and its scopes as indices.
 *  2. Scopes made on demand (overlays) travel whole, in index order, so
 *     the receiver's copy has the same indices; leaf keys that are file
 *     names travel as strings and are interned again on arrival.
 *  3. Nodes travel in id order, each after its parent and flat
 *     counterpart, with the key it has below its parent, so the received
 *     tree merges exactly as the sender's would.
 *  4. Bytes are in the host's order: all ranks run on one architecture.
 *  5. A worker's phases (phases.h) follow its nodes, their sites' calls
 *     as node ids, so synchronization measurements merge across ranks as
 *     across threads.
 *  6. Its data tree (datatree.h) follows: the data root travels as a node
 *     with no parent, the objects with their identities, in index order,
 *     their nodes as ids; then its sharing (sharing.h), its blocks'
 *     objects as those indices.  So data-centric and sharing measurements
 *     merge across ranks as across threads, too.
 */
#ifndef HPCPROF_EXPERIMENT_WIRE_H
#define HPCPROF_EXPERIMENT_WIRE_H

#include "experiment.h"
#include "strbuf.h"

/* The pieces of the bytes, for the parts that travel with a tree. */
void wire_put32(struct strbuf *sb, uint32_t v);
void wire_put64(struct strbuf *sb, uint64_t v);
void wire_putstr(struct strbuf *sb, const char *s);	/* NULL: none */
/* n rows of size bytes each (structs of plain values), after their
 * count. */
void wire_put_rows(struct strbuf *sb, const void *rows, size_t n,
		   size_t size);

/* Reading bytes: once a read runs past the end, bad is set and every
 * read returns 0 or NULL. */
struct wire_cursor {
	const char *p, *end;
	int bad;
};
uint32_t wire_get32(struct wire_cursor *c);
uint64_t wire_get64(struct wire_cursor *c);
/* The next string (NULL for none), valid until buf's next use. */
const char *wire_getstr(struct wire_cursor *c, struct strbuf *buf);
/* The next n bytes, or NULL. */
const void *wire_getbytes(struct wire_cursor *c, size_t n);
/* rows (growing *alloc) with the rows wire_put_rows wrote appended, their
 * count added to *nrows; returns rows. */
void *wire_get_rows(struct wire_cursor *c, void *rows, size_t *nrows,
		    size_t *alloc, size_t size);

/* Appends the tree of w (a worker's experiment) to sb; with ids_only,
 * only what merging it needs to give every node its id (its sharing
 * accesses left out). */
void experiment_wire_write(const struct experiment *w, struct strbuf *sb,
			   int ids_only);

/*
 * A worker's experiment of e holding the tree in buf[0, len) (written by
 * experiment_wire_write on a rank with e's modules); free with
 * experiment_free.
 * NULL with hpc_lasterr() when the bytes are malformed.
 */
struct experiment *experiment_wire_read(const struct experiment *e,
					const char *buf, size_t len);

#endif
