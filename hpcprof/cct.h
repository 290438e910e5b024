/*
 * cct.h - the experiment in memory: the canonical calling context tree with
 * static structure interleaved, and the flat (static) tree beside it.
 *
 * Canonical tree (call-path view), as HPCToolkit builds it:
 *   ROOT -> PF (procedure frame) -> [ALIEN (inlined code) | LOOP]* ->
 *   STMT (samples) or CALL (call site) -> PF (callee) -> ...
 * Flat tree (static view):
 *   FLAT_ROOT -> LM -> FILE -> PROC -> [ALIEN | LOOP]* -> STMT | CALL
 *
 * Invariants:
 *  1. Node ids are unique over both trees and assigned in creation order;
 *     a canonical node's flat pointer names its static counterpart, whose id
 *     is written as the canonical node's s= attribute.
 *  2. A child is found by (parent, kind, key) in one hash map, so inserting
 *     the same context from many threads yields one node.
 *  3. Sample values enter only at STMT nodes.  Inclusive values add up every
 *     ancestor once per sample; exclusive values stop at the first CALL
 *     above the sample (a procedure's exclusive cost includes its loops and
 *     inlined code, not its callees).  In the flat tree a sample adds to each
 *     static scope on its path at most once, so recursion never counts twice.
 */
#ifndef HPCPROF_CCT_H
#define HPCPROF_CCT_H

#include <stddef.h>
#include <stdint.h>

#include "hpcrun-fmt.h"
#include "metrics.h"
#include "structfile.h"

enum node_kind {
	NODE_ROOT, NODE_PF, NODE_ALIEN, NODE_LOOP, NODE_STMT, NODE_CALL,
	NODE_FLAT_ROOT, NODE_LM, NODE_FILE, NODE_PROC,
};

struct node {
	uint32_t id;
	enum node_kind kind;
	struct node *parent, *first, *last, *next;
	struct node *flat;	/* canonical -> static counterpart */
	uint32_t lm, file, proc;	/* table indices (see struct experiment) */
	uint32_t line;
	uint64_t vma;		/* STMT/CALL address; PF/PROC entry; LOOP header */
	struct accum *acc;	/* metric values (metrics.h); NULL = none */
	uint32_t stamp;		/* flat dedupe: last sample that touched it */
	uint32_t tstamp;	/* thread number + 1 that last touched it */
};

/* A name table (load modules, files, procedures): index -> string. */
struct name_table {
	const char **names;
	size_t n, alloc;
	struct hmap *index;	/* name -> index + 1 */
};

/*
 * One load module seen in the profiles, with what we know of its code.
 *
 * Build-ID check (issue #5): when a profile records the module's build ID
 * (buildid.h), the first sample resolved in the module compares it with
 * the binary a structure file names and with the binary at file.  A
 * structure file whose binary differs is set aside (rejected); a binary at
 * file that differs is not opened, and the module's addresses are kept as
 * they are (mismatch).  Without an ID on either side nothing is checked.
 * A module is one build of its path: profiles that record different build
 * IDs for one path (runs before and after a rebuild) give a module, and a
 * load module in the database, each; an unrecorded ID goes with any.
 */
struct module {
	const char *path;		/* as in the load map */
	char *file;			/* path, or relative ones resolved
					 * against the profile's directory */
	uint32_t lm;			/* index in experiment.lms */
	struct structure *st;		/* structure file, or built on demand */
	int source;			/* MODULE_* below */
	struct fallback *fb;		/* addresses no structure covers */
	char *measured;			/* build ID in the profiles, or NULL */
	char *on_disk;			/* differing build ID found, or NULL */
	int checked;			/* structure file checked */
	int mismatch;			/* binary at file differs: addresses */
	const char *rejected;		/* structure file set aside, or NULL */
	const char *rejected_binary;	/* the binary it was made from */
};
enum { MODULE_STRUCTFILE, MODULE_DWARF, MODULE_NOTHING };
/* hpcprof --text and the notices name the modules by source. */

struct experiment {
	struct node *root, *flat_root;
	uint32_t next_id;
	size_t nnodes;
	struct hmap *children;		/* (parent id, kind, key) -> node */
	struct name_table lms, files, procs;
	struct module **modules;	size_t nmodules, modules_alloc;
	struct structure **structs;	size_t nstructs, structs_alloc;
	struct metrics metrics;
	uint32_t sample_serial;
	struct node **touched;		size_t ntouched, touched_alloc;
	/* Per-thread values, reported as each thread is folded in. */
	void (*thread_cb)(void *arg, uint32_t thread, const struct node *n,
			  size_t raw, int ie, double v);
	void *thread_arg;
	char *program;			/* program-name of the first profile */
	size_t nthreads;
};

/* An empty experiment; register raw metrics in e->metrics before adding. */
struct experiment *experiment_new(void);
void experiment_free(struct experiment *e);

/*
 * Reads a structure file into the experiment (matched to load modules by
 * path, then by basename).  Returns 0 or -1 with hpc_lasterr().
 */
int experiment_add_structfile(struct experiment *e, const char *path);

/*
 * Adds one thread's profile: correlates its CCT, inserts the contexts and
 * accumulates its values as thread number e->nthreads (then incremented).
 * metric_map[i] is the experiment's raw metric index of the profile's
 * metric i, or -1 to ignore it.  dir is the directory the profile was read
 * from: relative load-map paths (HPCToolkit's "vdso/HASH.vdso") name files
 * there.  Per-thread values are reported to e->thread_cb if set.
 */
void experiment_add_profile(struct experiment *e,
			    const struct hpcrun_profile *p,
			    const int *metric_map, const char *dir);

/* Index of name in t, adding it if new. */
uint32_t name_table_intern(struct name_table *t, const char *name);
/* Adds name to t as a new entry even when it is there (intern still finds
 * the first); its index. */
uint32_t name_table_add(struct name_table *t, const char *name);


#endif
