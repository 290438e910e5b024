/*
 * datatree.h - the data-centric tree of an experiment: which
 * data objects the samples of `hpcrun --data` touched (heap objects named
 * by their allocation call path, static variables, thread stacks, small
 * heap blocks together, unknown addresses), and from which calling
 * contexts, loops and lines.
 *
 * Input (hpcrun(5), Data-centric roots and metrics): a sample at a memory access is
 * filed under one data root (^Heap, ^Static, ^Stack, ^Small, ^Unknown,
 * ^NoAddr) instead of ^Primary, its access path below the object's ^Access
 * node (below ^NoAddr itself) being the path it would have had under
 * ^Primary.  DATA:* metrics are object attributes.
 *
 * Invariants:
 *  1. The code tree is built as if the data roots did not exist: every
 *     access path goes below the program's root, as ^Primary's children
 *     do; allocation paths, variable nodes and the placeholders never
 *     enter the code or flat tree, so every code view is the one the run
 *     would give without --data, and DATA:* values enter no code total.
 *  2. The data tree has a root of its own (no parent, never in a code
 *     total): "<data objects>" -> one node per kind present ("<heap>",
 *     "<static>", "<stack>", "<small heap blocks>", "<unknown data>") ->
 *     one node per object -> its accessing contexts (PF/Pr/L/C/S, the
 *     structure as in the code tree).  A sample at an access adds its
 *     values once to each tree: an object's inclusive value is the sum over
 *     its accesses, and the data root's the total of samples with an
 *     address.  Samples under ^NoAddr enter only the code tree (and
 *     datatree.noaddr).
 *  3. An object is its kind and its identity: a heap object its allocation
 *     path (module and address of each frame), so the blocks of one path in
 *     every thread are one object, named by the path resolved to source
 *     ("alloc_b prog.c:12 < main prog.c:30", leaf first; " #2" added when
 *     two paths differ only within a line); a static one is
 *     "VAR [module]" (the module's ELF symbol at the address);
 *     a stack "thread N" (N: the database's thread number); small blocks
 *     and unknown addresses one object each.
 *  4. Attributes combine over profiles: bytes and blocks add up (a static
 *     variable's size, in every profile that has it, is taken once); accessed
 *     offsets by min and max; threads are counted once each, when a
 *     sample of theirs reaches the object.
 *  5. A malformed data subtree (a placeholder where a frame belongs, a
 *     variable node in no module, values on an allocation path) never
 *     stops hpcprof: the first problem of each profile is kept for one
 *     line naming the file, the subtree's accesses go to the code tree
 *     where they are recognisable, and to "unknown data" otherwise.
 *  6. A worker (parallel.h) builds a data tree of its own, and
 *     experiment_merge() carries it: the data root, kind and object nodes
 *     in the worker's creation order as the code tree's (an object found
 *     in the target by its identity, else made there), the attributes
 *     combined as profiles combine them (invariant 4: each thread is in
 *     one worker, so its counts add up), ^NoAddr values added in the
 *     order the worker took them.  Only the " #2" of invariant 3 depends
 *     on the order objects are made across workers: when two objects of
 *     different identities share a name anywhere in the workers
 *     (datatree_mergeable), the profiles are added on one thread instead.
 *     A merged tree is only merged from or written: its static objects
 *     are not found by address again.  Across hpcprof-mpi's ranks the
 *     same holds: a data tree travels with its tree (datatree_wire_*).
 */
#ifndef HPCPROF_DATATREE_H
#define HPCPROF_DATATREE_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "experiment.h"
#include "strbuf.h"

struct wire_cursor;

/* The kinds of data objects (invariant 2), and of the data roots of a
 * profile: one per kind, and ^NoAddr, whose accesses have no object. */
enum data_kind {
	DATA_NONE = -1,		/* not a data root */
	DATA_HEAP, DATA_STATIC, DATA_STACK, DATA_SMALL, DATA_UNKNOWN,
	DATA_NKINDS,		/* the number of kinds of objects */
	DATA_NOADDR = DATA_NKINDS	/* ^NoAddr */
};

/* Object attributes: the DATA:* metrics of the profiles, and threads. */
enum data_attr {
	DATTR_NONE, DATTR_BYTES, DATTR_BLOCKS, DATTR_OFFSET_LO,
	DATTR_OFFSET_HI, DATTR_THREADS,
	/* only with sharing data (sharing.h): the label's code and the
	 * NUMA remote share */
	DATTR_SHARING, DATTR_REMOTE, DATTR_COUNT
};

struct data_object {
	struct node *node;	/* its NODE_DATA node; node->proc names it */
	enum data_kind kind;
	int8_t sharing;		/* enum share_label + 1 (sharing.h), 0: none */
	double remote;		/* % of homed sampled accesses remote, or
				 * -1: no NUMA data */
	uint64_t bytes, blocks;
	uint64_t lo, hi;	/* offsets accessed: [lo - 1, hi); lo 0 =
				 * none recorded */
	size_t nthreads;	/* threads with samples on the object */
	uint32_t last_thread;	/* thread number + 1 last counted */
	char *key;		/* its by_name key (struct datatree) */
};

struct datatree {
	struct node *root;
	struct node *kinds[DATA_NKINDS];
	struct data_object *objs;	size_t nobjs, objs_alloc;
	struct hmap *by_name;		/* "KIND\tID" -> index + 1 (ID: a
					 * heap object's frames, others' name) */
	struct hmap *names;		/* "KIND\tNAME" of every object -> 1 */
	struct hmap *by_node;		/* object node id -> index + 1 */
	struct hmap *by_var;		/* (module, address) -> index + 1 */
	double *noaddr;			/* [raw metric]: ^NoAddr values */
	size_t nnoaddr;
	size_t nprofiles;		/* profiles with data roots */
	int renamed;			/* an object's name has " #N" */
	/* a worker's ^NoAddr values, in the order added, for the
	 * experiment it is merged into to add in that order */
	struct data_value *pending;	size_t npending, pending_alloc;
	char *problem;			/* this profile's first problem */
	/* sharing.h: the data nodes of the profile last classified, kept
	 * when keep_ids is set (node id -> index in ids + 1) */
	int keep_ids;
	struct data_id *ids;		size_t nids, ids_alloc;
	struct hmap *id_index;
	struct sharing *sharing;	/* set by sharing_finish; not owned */
};

struct data_value {
	size_t raw;
	double v;
};

/* A node of a data root in the profile last classified (keep_ids). */
struct data_id {
	uint32_t id;
	uint8_t role;			/* enum data_role */
	int32_t obj;			/* object index, -1 none */
	const struct module *m;		/* its module (frames), or NULL */
	uint64_t addr;			/* module-relative address */
};

/* Role of one node of a profile being added (see datatree_classify). */
enum data_role {
	DROLE_CODE,	/* not in a data root: code as ever */
	DROLE_ROOT,	/* a data root placeholder */
	DROLE_ALLOC,	/* a frame of an allocation path (under ^Heap) */
	DROLE_VAR,	/* a variable node (under ^Static) */
	DROLE_MARK,	/* ^Access */
	DROLE_ACCESS,	/* on an access path (obj < 0: under ^NoAddr) */
};

struct data_node {
	uint8_t role, kind;	/* enum data_role, enum data_kind */
	int32_t obj;		/* object index, -1 = none */
	struct node *attach;	/* data tree: where children go */
	struct node *leaf;	/* data tree: where its values go */
};

/*
 * Adding a profile (experiment.h, struct profile_hook): its data roots
 * classified (datatree_classify), access paths placed below their objects,
 * samples at accesses added to the data tree, DATA:* values to the
 * objects' attributes.
 */
extern const struct profile_hook datatree_profile_hook;

/*
 * Classifies the nodes of p (parent[i]: index of node i's parent, -1 for
 * a root; has_values[i]: node i has values; mods[lm], lm < nmods: the
 * module of load-map id lm, or NULL) and makes the objects they name: an allocation
 * path names a heap object where it has values (the sizes of blocks
 * allocated in this thread, accessed or not) or an ^Access child.  Returns a calloc'ed array with one data_node per
 * node (caller frees), or NULL when p has no data root (e->data is then
 * untouched).  attach and leaf are left for the caller (the placing hook
 * of datatree_profile_hook).
 */
struct data_node *datatree_classify(struct experiment *e,
				    const struct hpcrun_profile *p,
				    const long *parent, const char *has_values,
				    struct module **mods, size_t nmods);

/*
 * Keeps (on 1) the data nodes of each profile classified from now on, for
 * datatree_id(); makes e's data tree when there is none yet.
 */
void datatree_keep_ids(struct experiment *e, int on);

/* The node id of the profile last classified, when it is in a data root
 * and keep_ids was set; else NULL.  Valid until the next profile. */
const struct data_id *datatree_id(const struct experiment *e, uint32_t id);

/* The attribute a profile metric's name is (DATA:bytes, ...), or
 * DATTR_NONE for a sample metric. */
enum data_attr datatree_attr_of(const char *metric);

/* Applies one attribute value of a node (role ALLOC, VAR, ROOT or MARK). */
void datatree_set_attr(struct experiment *e, const struct data_node *dn,
		       enum data_attr a, uint64_t v);

/* Adds v of raw metric raw to the samples under ^NoAddr. */
void datatree_add_noaddr(struct experiment *e, size_t raw, double v);

/* Counts the thread being added on object obj (>= 0). */
void datatree_count_thread(struct experiment *e, int32_t obj);

/* Records the first problem of the profile being added (printf-like). */
void datatree_problem(struct experiment *e, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/*
 * Merging workers' data trees (invariant 6), for experiment_merge().
 * datatree_mergeable: 1 when the workers' trees ws[0..n) merge into the
 * tree of adding their profiles in order (no two objects of different
 * identities share a name).  datatree_root: e's data root, made when it
 * has none (w's root merges into it).  datatree_merge_key: the key below its kind's node
 * in e of w's object node n (its object index in e, or the next one).
 * datatree_merge_node: after e's node x for w's data node n (root
 * excepted) was found or made (is_new) with its fields: e's kinds and
 * objects (made) and the object's attributes combined.
 * datatree_merge_end: the rest of w's data tree (profile count, ^NoAddr
 * values).
 */
int datatree_mergeable(struct experiment *const *ws, size_t n);
struct node *datatree_root(struct experiment *e);
uint64_t datatree_merge_key(struct experiment *e, const struct experiment *w,
			    const struct node *n);
void datatree_merge_node(struct experiment *e, const struct experiment *w,
			 const struct node *n, struct node *x, int is_new);
void datatree_merge_end(struct experiment *e, const struct experiment *w);

/*
 * A worker's data tree as bytes, after its tree's nodes (experiment-wire.h,
 * invariant 6): its kinds' and objects' nodes as ids, the objects with
 * their identities and attributes, the ^NoAddr values in the order taken.
 * Only merged trees travel, and merging renames nothing (renamed stays 0;
 * hpcprof-mpi checks its workers with datatree_mergeable first).
 * datatree_wire_read makes it again in w, the worker experiment whose
 * nodes were read: 0, or -1 when the bytes are malformed.
 */
void datatree_wire_write(const struct datatree *dt, struct strbuf *sb);
int datatree_wire_read(struct experiment *w, struct wire_cursor *c);

/* The object of data tree node n (an object node), or NULL. */
const struct data_object *datatree_object(const struct experiment *e,
					  const struct node *n);

/* The kind's name as the database and the viewer say it ("heap"). */
const char *datatree_kind_name(enum data_kind k);

/* The attribute's metric name in the database ("DATA:bytes"). */
const char *datatree_attr_name(enum data_attr a);

/*
 * Value of attribute a of the object at n; returns 1 and sets *v when it
 * has one (offsets only when a range was recorded).
 */
int datatree_attr_value(const struct experiment *e, const struct node *n,
			enum data_attr a, double *v);

/*
 * hpcprof --text: coverage of raw metric m (the share of its total with a
 * data address, and of that the share on a named object) and the top
 * objects by m.  label names the metric with its unit; values are shown
 * times scale.
 */
void datatree_report(FILE *f, const struct experiment *e, size_t m,
		     const char *label, double scale, size_t top);

void datatree_free(struct datatree *dt);

#endif
