/*
 * cct.h - the per-thread calling context tree, kept in an arena that is
 * the thread's live file (hpcrun-live.h; cct.c).
 *
 * Invariants:
 *  1. One writer at a time per tree: whoever holds its thread's td->busy
 *     (the handler, or code outside it that sets busy); cct_init,
 *     cct_release and cct_unlink run outside the handler.  One exception:
 *     the small blocks' counts, values of "^Small  " that the handler
 *     never writes, are added to by their thread alone (datacentric.c,
 *     invariant 8).
 *  2. Everything that grows the tree (cct_insert, cct_path_node,
 *     cct_phase_node, cct_xroot, cct_child) is async-signal-safe: nodes
 *     are bump-allocated from the arena, never freed one by one, and a
 *     new chunk is one hpcrun's writer mapped ahead, or anonymous memory
 *     (cct.c, invariants 1 and 5): no file is opened.  A node pointer
 *     stays valid until cct_release, which waits for the writer to be
 *     done with the tree.
 *  3. Node ids are even, from 12 up, parents before children; a node is
 *     written whole before its chunk's count takes it in, so a reader of
 *     the live file sees whole nodes only (cct.c, invariants 3 and 6).
 *  4. A live file no longer needed (cct_done) goes to the process's pool
 *     of free files, its magic cleared, for the next cct_init to rename
 *     and reuse, or is removed; the pool empties itself (its files
 *     removed) at cct_pool_close (cct.c, invariant 7).
 */
#ifndef HPCRUN_CCT_H
#define HPCRUN_CCT_H

#include <stddef.h>
#include <stdint.h>

#include "fd-gate.h"
#include "hpcrun-live.h"

/* Laid out as struct hpcrun_live_node: the arena is the live file. */
struct cct_node {
	uint64_t addr;			/* module-relative, or placeholder text */
	struct cct_node *parent, *child, *sibling;
	uint32_t id;
	uint32_t parent_id;		/* 0 for a root */
	uint16_t lm;
	double val[];			/* rt_cfg.nev values */
};

/* The roots of hpcrun --data (hpcrun(5)), made as samples need them. */
enum cct_xroot {
	CCT_HEAP, CCT_STATIC, CCT_STACK, CCT_SMALL, CCT_UNKNOWN, CCT_NOADDR,
	CCT_NXROOTS
};

/*
 * The arena: chunks mapped from the thread's live file (hpcrun-live.h),
 * the first holding the file's header, added as the tree grows (cct.c).
 */
struct cct {
	char *cur, *end;		/* free space of the last chunk */
	size_t node_size;
	uint32_t next_id;
	uint64_t nnodes;
	struct cct_node *primary, *top, *partial;
	struct cct_node *phases;	/* "^Phases " or NULL (hpcrun(5)) */
	struct cct_node *leaf;		/* of the last cct_insert, NULL: failed */
	struct cct_node *xroot[CCT_NXROOTS];	/* hpcrun --data's, or NULL */
	struct hpcrun_live_header *hdr;	/* the first chunk */
	uint64_t *commit;		/* node count of the last file chunk */
	uint64_t anon_commit;		/* ... or this, once chunks are anonymous */
	int nmaps;
	void *map[HPCRUN_LIVE_MAX_CHUNKS];
	size_t map_bytes[HPCRUN_LIVE_MAX_CHUNKS];
	struct cct_ahead {		/* the next file chunk (cct.c, invariant 5) */
		struct rt_fd_post post;	/* the writer's job: map it */
		unsigned state;		/* asked, ready, failed (cct.c) */
		int err;		/* why it failed (errno) */
		uint64_t off;
		size_t bytes;
		void *map;
		char *at;		/* asked for when cur passes it, or NULL */
	} ahead;
	int live;			/* chunks still come from the file */
	int live_err;			/* why they stopped (errno), 0 */
	int pooled;			/* map[0] is the pool's now (cct_done) */
	int thread;			/* the thread index in the file's name */
	unsigned gen;			/* ... and its GEN */
	char path[4400];		/* the live file */
};

/* A tree for thread (index; 0 = main) in a new live file, or in anonymous
 * memory when the file cannot be had (c->live_err says why); 0 or -errno
 * when no memory can be had either.  Outside the handler. */
int cct_init(struct cct *c, size_t nvals, int thread);
/* Unmaps the arena (the live file stays, unless cct_done gave it away)
 * and a chunk mapped ahead, once hpcrun's writer is done with c; accepts
 * an unused c. */
void cct_release(struct cct *c);
/* Maps bytes of the existing file path at off MAP_SHARED, its blocks
 * allocated first (a shared mapping of a hole raises SIGBUS when the disk
 * is full) and RLIMIT_FSIZE lifted for it; NULL with *err set (errno).
 * Outside the handler; opens its fd in the caller's fd table (hpcrun's
 * writer's). */
void *cct_map_file(const char *path, uint64_t off, size_t bytes, int *err);
/* Removes the live file (a tree never used). */
void cct_unlink(struct cct *c);
/* The live file is no longer needed (its profile is written, the tree is
 * not read or grown again before cct_release): its magic is cleared and
 * it goes to the pool of free files, or is removed when the pool is
 * closed or full or the file grew past its first chunk. */
void cct_done(struct cct *c);
/* Removes the pool's files and has cct_done remove from now on; wait 0
 * (in a signal handler that may have interrupted a pool user): when the
 * pool is in use, its files are left (their magic cleared: hpcprof
 * removes them).  cct_pool_open takes files again (an exec that failed);
 * cct_pool_after_fork, in a fork child, forgets the parent's files. */
void cct_pool_close(int wait);
void cct_pool_open(void);
void cct_pool_after_fork(void);
/* Inserts path (frames[n-1] outermost .. frames[0] leaf), taken at time
 * (rt_module_at), under root and adds val to event idx of the leaf; 0,
 * -ENOSPC when the arena is full, -ENOENT when a frame lies in no module;
 * c->leaf is then the path's leaf, or NULL.  Async-signal-safe: a new
 * chunk is the one mapped ahead, or anonymous memory (invariant 2). */
int cct_insert(struct cct *c, struct cct_node *root, const uintptr_t *frames,
	       int n, uint64_t time, int idx, double val);
/* Inserts path (as cct_insert) with no value; its leaf, or NULL. */
struct cct_node *cct_path_node(struct cct *c, struct cct_node *root,
			       const uintptr_t *frames, int n);
/* The child "S" + 7 digits of site under the root "^Phases " (both made
 * when missing; hpcrun(5)), or NULL.  Async-signal-safe. */
struct cct_node *cct_phase_node(struct cct *c, uint32_t site);
/* The root kind of c, made when missing; the child (lm, addr) of parent,
 * made when missing; NULL when the arena is full.  Async-signal-safe. */
struct cct_node *cct_xroot(struct cct *c, enum cct_xroot kind);
struct cct_node *cct_child(struct cct *c, struct cct_node *parent,
			   uint16_t lm, uint64_t addr);
/* The eight ASCII bytes of a placeholder node's address. */
uint64_t cct_placeholder(const char *s);

#endif
