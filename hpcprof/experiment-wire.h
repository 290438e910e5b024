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
 */
#ifndef HPCPROF_EXPERIMENT_WIRE_H
#define HPCPROF_EXPERIMENT_WIRE_H

#include "experiment.h"
#include "strbuf.h"

/* Appends the tree of w (a worker's experiment) to sb. */
void experiment_wire_write(const struct experiment *w, struct strbuf *sb);

/*
 * A worker's experiment of e holding the tree in buf[0, len) (written by
 * experiment_wire_write on a rank with e's modules); free with
 * experiment_free.
 * NULL with hpc_lasterr() when the bytes are malformed.
 */
struct experiment *experiment_wire_read(const struct experiment *e,
					const char *buf, size_t len);

#endif
