/*
 * experiment.h - the experiment in memory: the canonical calling context
 * tree with static structure interleaved, and the flat (static) tree beside
 * it.
 *
 * Canonical tree (call-path view), as HPCToolkit builds it:
 *   ROOT -> [PROGRAM] -> PF (procedure frame) -> [ALIEN (inlined code) |
 *   LOOP]* -> STMT (samples) or CALL (call site) -> PF (callee) -> ...
 * An experiment of several programs (a process tree: make and its
 * compilers, a program and what it runs through system()) has one PROGRAM
 * node per program below the root, holding the calling contexts of all its
 * processes; with one program there is none.
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
 *     or PROGRAM above the sample (a procedure's exclusive cost includes its
 *     loops and inlined code, not its callees; a PROGRAM's is zero).  In
 *     the flat tree a sample adds to each static scope on its path at most
 *     once, so recursion never counts twice.
 *  4. Per-phase profiles (the profiles' "^Phases " subtree, hpcrun(5)) hang
 *     below PHASE nodes, children of the root: a sample there adds up to
 *     its PHASE node and stops, so the root, the code tree and the flat
 *     tree count every sample once (phases.h).  A PHASE node is keyed by
 *     its start site and its end site + 1 (0: any end, phases.h invariant
 *     4); a worker makes them only when it has phases of its
 *     own (measurements with synchronization data, phases.h invariant 5),
 *     and experiment_merge() merges them by their key, renumbered.
 */
#ifndef HPCPROF_EXPERIMENT_H
#define HPCPROF_EXPERIMENT_H

#include <stddef.h>
#include <stdint.h>

#include "capability.h"
#include "hpcrun-fmt.h"
#include "metrics.h"
#include "structfile.h"
#include "threadname.h"

enum node_kind {
	NODE_ROOT, NODE_PF, NODE_ALIEN, NODE_LOOP, NODE_STMT, NODE_CALL,
	NODE_FLAT_ROOT, NODE_LM, NODE_FILE, NODE_PROC,
	NODE_PROGRAM,		/* no flat counterpart */
	NODE_PHASE,		/* a per-phase profile's root: no flat
				 * counterpart, values kept out of the root */
	NODE_DATA,		/* data tree (datatree.h): its root, a kind,
				 * an object; written as PF, no flat
				 * counterpart */
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
	/* Its key below its parent (invariant 2): the structure its scope
	 * is from (NULL for LM, FILE and PROGRAM nodes) and (k1, k2). */
	const struct structure *st;
	uint64_t k1, k2;
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
 * Build-ID check: when a profile records the module's build ID
 * (buildid.h), the first sample resolved in the module compares it with
 * the binary a structure file names and with the binary at file.  A
 * structure file whose binary differs is set aside (rejected); a binary at
 * file that differs is not opened, and the module's addresses are kept as
 * they are (mismatch).  Without an ID on either side nothing is checked.
 * A module is one build of its path: profiles that record different build
 * IDs for one path (runs before and after a rebuild) give a module, and a
 * load module in the database, each; an unrecorded ID goes with any.
 */
/* How a module's code is attributed: hpcprof --text and the notices name
 * the modules by it. */
enum module_source { MODULE_STRUCTFILE, MODULE_DWARF, MODULE_NOTHING };

struct module {
	const char *path;		/* as in the load map */
	char *file;			/* path, or relative ones resolved
					 * against the profile's directory */
	uint32_t lm;			/* index in experiment.lms */
	struct structure *st;		/* structure file, or built on demand */
	enum module_source source;
	struct fallback *fb;		/* addresses no structure covers */
	char *measured;			/* build ID in the profiles, or NULL */
	char *on_disk;			/* differing build ID found, or NULL */
	int checked;			/* structure file checked */
	int mismatch;			/* binary at file differs: addresses */
	const char *rejected;		/* structure file set aside, or NULL */
	const char *rejected_binary;	/* the binary it was made from */
	uint32_t index;			/* in experiment.modules */
};

/*
 * One program of the experiment (profiles are grouped by their header's
 * program-name), with the processes and threads measured running it.  A
 * process that exec'ed counts once for each program it ran.
 */
struct program {
	char *name;			/* program-name */
	char *path;			/* program-path (or the name) */
	struct node *node;		/* its PROGRAM node, or the root */
	uint32_t lm;			/* its path's index in lms (several
					 * programs; experiment_register) */
	size_t nprocs, nthreads;
	struct hmap *pids;		/* "host-id:process-id" -> 1 */
};

/*
 * Scopes made on demand, beside the structures: for a module, those the
 * fallback makes for addresses no structure file covers (dwarf-fallback.h);
 * for the placeholders, a procedure per placeholder name.  content keys
 * each scope by its parent, kind, name, file and line (and a procedure's
 * address), as the fallback does, so merges find it again.
 */
struct overlay {
	struct structure *st;
	struct fallback *fb;	/* a worker's, once it needs one */
	struct hmap *content;	/* key -> index + 1 */
};

/* A leaf's k1 for a statement without a file (apart from a file ""). */
extern const char cct_no_file[];
/* A worker's load-module index of the placeholders (no module of its own
 * until merged into an experiment that is not a worker's). */
#define PLACEHOLDER_LM UINT32_MAX
/* The placeholders' module path (it names no binary). */
#define PLACEHOLDERS_PATH "<placeholders>"
/* A worker's load-module index of the data tree's own nodes ("<data>",
 * datatree.h), the same way. */
#define DATA_LM (UINT32_MAX - 1)
/* And of the per-phase profiles' roots ("<phases>", phases.h). */
#define PHASES_LM (UINT32_MAX - 2)

/*
 * The per-thread values as lines written in pieces at once (parallel.c):
 * line puts a value's line into buf (at most THREAD_LINE_MAX bytes) and
 * returns its length, the node's id in decimal and then tail bytes: tail
 * gives their number without writing them, so the workers count their
 * pieces' lengths as they correlate.  For a value that is a non-negative
 * integer, the tail is the decimal_len of the thread, of the column
 * (metrics_column's, STAT_SUM) and of the value, plus 4 (three tabs and a
 * newline): workers count those without a call.  begin marks where the
 * lines start (the calling thread, before any pwrite); pwrite writes n
 * bytes of lines at offset at from that start (any thread); end says they
 * took total bytes.  Each returns 0, or -1 with hpc_lasterr() set; a
 * writer may instead keep a failed write and say it when the file is
 * closed (database.c does).
 */
#define THREAD_LINE_MAX 128

/* The number of decimal digits of v (a line's node id takes as many):
 * compares below 10,000, a division per four digits above (workers count
 * every line's length, tens of millions of them). */
static inline size_t decimal_len(uint64_t v)
{
	size_t n = 1;

	while (v >= 10000) {
		v /= 10000;
		n += 4;
	}
	return n + (v >= 10) + (v >= 100) + (v >= 1000);
}

struct thread_lines {
	size_t (*line)(void *arg, char *buf, uint32_t thread, uint32_t node,
		       size_t raw, int ie, double v);
	size_t (*tail)(void *arg, uint32_t thread, size_t raw, int ie,
		       double v);
	int (*begin)(void *arg);
	int (*pwrite)(void *arg, const char *buf, size_t n, uint64_t at);
	int (*end)(void *arg, uint64_t total);
};

struct experiment {
	struct node *root, *flat_root;
	uint32_t next_id;
	size_t nnodes;
	/* (parent, kind, k1, k2) -> node: open addressing on the hash */
	struct child_slot *children;	size_t children_cap, nchildren;
	/* (x, module, addr, kind) -> the leaf place_addr() gave
	 * (experiment.c) */
	struct place_slot *places;	size_t places_cap, nplaces;
	struct name_table lms, files, procs;
	struct module **modules;	size_t nmodules, modules_alloc;
	struct structure **structs;	size_t nstructs, structs_alloc;
	struct metrics metrics;
	uint32_t sample_serial;
	struct node **touched;		size_t ntouched, touched_alloc;
	/* This thread's values by node id, (raw, ie) at [id * 2 * nraw +
	 * 2 * raw + ie] (experiment.c); folded at the thread's end. */
	double *scratch;		size_t scratch_rows;
	/* Per-thread values, reported as each thread is folded in. */
	void (*thread_cb)(void *arg, uint32_t thread, const struct node *n,
			  size_t raw, int ie, double v);
	/* the same by node id, when set (parallel.c, reading ids only) */
	void (*thread_id_cb)(void *arg, uint32_t thread, uint32_t node,
			     size_t raw, int ie, double v);
	/* or, when set with it, in pieces on several threads */
	const struct thread_lines *thread_lines;
	void *thread_arg;
	char *program;			/* the program the experiment is named
					 * for (run.c sets it; else the first
					 * profile's program-name) */
	/* The samples hpcrun took, and those taken in its own code (left out
	 * of the profiles: hpcrun(5), The log), summed over the measurement
	 * directories' logs (run.c); hpcprof --text reports the share once.
	 * Likewise the samples in the profiles and those of them whose
	 * unwind failed (below PARTIAL_ROOT_NAME). */
	uint64_t samples_taken, samples_in_hpcrun;
	uint64_t samples_recorded, samples_partial;
	/* From the same logs: the processes' CPU time (getrusage, ns), the
	 * system time no event counted, the samples taken in the kernel, and
	 * why the first log that did not count it says so ("" when all did);
	 * hpcprof --text says the kernel's share once. */
	uint64_t cpu_user_ns, cpu_system_ns, kernel_unmeasured_ns;
	uint64_t samples_kernel;
	char kernel_why[64];
	size_t nthreads;
	/* Each thread's rank and thread-id, as threads.tsv has them (set by
	 * database_thread): how the report names threads (threadname.h). */
	struct thread_names thread_names;
	struct program *programs;	size_t nprograms, programs_alloc;
	struct hmap *program_index;	/* name -> index + 1 */
	/* Each capability's state by enum prof_cap, or NULL: the run's
	 * (a worker's own; capability.h, invariant 2). */
	void *cap[NCAPS];
	struct datatree *data;		/* data-centric tree, or NULL when no
					 * profile has data roots */
	struct node **nodes;		size_t nodes_alloc;	/* by id - 1 */
	/* Accumulators by node id in one block (experiment_acc_block). */
	char *acc_block;		size_t acc_stride, acc_count;
	/*
	 * Scopes made on demand for addresses no structure file covers
	 * (dwarf-fallback.h), one overlay per module index, and the
	 * placeholders' procedures: each experiment has its own, so the
	 * shared structures stay read-only while workers add profiles.
	 */
	struct overlay *ov;		size_t nov;
	struct overlay *ph;
	const struct experiment *shared; /* a worker's: modules, programs,
					  * metrics and structures (else NULL) */
	int worker_stats;		/* a worker folds its threads' values
					 * into its nodes' accumulators too
					 * (parallel.c adds them up) */
};

/* An empty experiment; register raw metrics in e->metrics before adding. */
struct experiment *experiment_new(void);
void experiment_free(struct experiment *e);

/*
 * Reads a structure file into the experiment (matched to load modules by
 * path, then by basename).  Returns 0 or -1 with hpc_lasterr().
 */
int experiment_add_structfile(struct experiment *e, const char *path);
/* Gives e the structure st made in memory (a pseudo module's, matched
 * as a structure file's; capability.h: structures); e frees it. */
void experiment_add_structure(struct experiment *e, struct structure *st);

/*
 * Structure files with a procedure index are parsed only where samples
 * are (structfile.h, invariant 5): once the modules are registered and
 * checked, 1 when a module's structure waits to be parsed; then every
 * profile's addresses are noted (experiment_want_profile, each profile
 * whole, so that every worker and rank parses the same procedures) and
 * experiment_load_structures() parses them, before any placement.
 * Returns 0, or -1 with hpc_lasterr() for a structure left empty.
 */
int experiment_partial_structures(const struct experiment *e);
void experiment_want_profile(struct experiment *e,
			     const struct hpcrun_profile *p);
int experiment_load_structures(struct experiment *e);

/*
 * Registers the program of profile p (its program-name) and counts p as one
 * of its threads, and its process (host-id and process-id) as one of its
 * processes when new.
 * Call for every profile before the first experiment_add_profile(), which
 * puts each program's contexts below a PROGRAM node when there are several.
 * Returns the program's index in e->programs.
 */
size_t experiment_add_program(struct experiment *e,
			      const struct hpcrun_profile *p);

/*
 * Adds one thread's profile: correlates its CCT, inserts the contexts
 * (below its program's node) and sums its values per scope as thread
 * number e->nthreads (then incremented), reported through e->thread_cb
 * (a worker keeps no statistics).  metric_map[i] is the experiment's raw
 * metric index of the profile's metric i, or -1 when it is none (ignored,
 * or an attribute such as DATA:bytes).  Its modules are those
 * experiment_register() found for it.  The capabilities' walk hooks
 * (struct profile_hook) take their part of the profile: per-phase
 * profiles and values measured at calls (phases.h), data roots
 * (datatree.h), instruction-mix splits (mix.h).
 */
void experiment_add_profile(struct experiment *e,
			    const struct hpcrun_profile *p,
			    const int *metric_map);

/*
 * The profile being added (experiment_add_profile), as the hub walks it
 * and the hooks see it.  Arrays are indexed by a node's position in
 * p->nodes; nodes come parents first.
 */
struct profile_walk {
	struct experiment *e;
	const struct hpcrun_profile *p;
	const struct hpcrun_node_index *ids;	/* node id -> position */
	const long *parent;		/* [i]: the parent's position, or -1 */
	const char *has_child;		/* [i]: 1 when node i has children */
	const char *has_values;		/* [i]: 1 when node i has values */
	struct module **mods;		/* [load-map id]: module, or NULL */
	size_t nmods;
	struct node *top;		/* the profile's program root */
	struct node **attach;		/* [i]: where node i's children go
					 * (NULL: top; in a per-phase
					 * subtree, nowhere) */
	struct node **leaves;		/* [i]: its code tree leaf, or NULL */
	char *in_phase;			/* [i]: 1 when its values stop at
					 * its PHASE node (invariant 4) */
};

/*
 * A capability's part in adding a profile (its walk, capability.h).  The
 * hub (experiment.c) calls the walks of prof_capabilities[] in its order,
 * through these hooks; a NULL hook is skipped.
 *  begin:     1 when the capability takes part in w's profile, with
 *             *state for its other hooks; 0 and none of them is called.
 *  place:     node i, before code placement: 1 when the hook placed it
 *             (w->attach[i], w->leaves[i]) and neither later hooks nor
 *             code placement see it; 0 to go on.
 *  sample:    a sample value d (non-zero) of raw metric raw at node k,
 *             after the code tree took it at w->leaves[k] (if any).
 *  attribute: a value d of profile metric m at node k that maps to no raw
 *             metric (metric_map -1).
 *  end:       after the last value, before the thread's values are
 *             folded: adds what comes last and frees state.
 */
struct profile_hook {
	int (*begin)(struct profile_walk *w, void **state);
	int (*place)(void *state, struct profile_walk *w, uint64_t i);
	void (*sample)(void *state, struct profile_walk *w, uint64_t k,
		       size_t raw, double d);
	void (*attribute)(void *state, struct profile_walk *w, uint64_t k,
			  size_t m, double d);
	void (*end)(void *state, struct profile_walk *w);
};

/* For the hooks: adds sample value v of raw metric raw at node k's code
 * leaf (nothing when it has none), as the code tree adds its samples. */
void experiment_add_leaf_sample(struct profile_walk *w, uint64_t k,
				size_t raw, double v);
/* Adds v of raw metric raw from leaf up to the root and the flat tree, as
 * this thread's. */
void experiment_add_sample(struct experiment *e, struct node *leaf,
			   size_t raw, double v);
/* This thread's values of n (raw metric r at [2 * r], its exclusive part
 * at [2 * r + 1]), n counted as touched by it; valid until the next node
 * is touched. */
double *experiment_row(struct experiment *e, struct node *n);
/* The call a profile node at addr names, below x in module m: the
 * instruction before addr (a return address) unless addr is the entry
 * of its procedure (a wait's leaf that is an outlined function), where
 * the call is placed at addr itself. */
struct node *experiment_place_call(struct experiment *e, struct node *x,
				   const struct module *m, uint64_t addr);
/*
 * Places profile node i below x: a call site where it has children (into
 * *attach), a statement where it has values (into *leaf); a placeholder
 * (load module 0, or one not in the load map) passes x on to its children
 * and has a leaf of its own for its values, but for "^Partial", whose
 * children go below PARTIAL_ROOT_NAME.
 */
void experiment_place_node(struct profile_walk *w, uint64_t i,
			   struct node *x, struct node **attach,
			   struct node **leaf);
/* The one root of the paths hpcrun could not unwind to their start (its
 * "^Partial"): a PF of the "<placeholders>" module below the program's
 * root, the paths' outermost frames below it. */
#define PARTIAL_ROOT_NAME "<partial call paths>"
/* A PF named name (a procedure of the "<placeholders>" module) below x,
 * holding one statement: that statement. */
struct node *experiment_named_leaf(struct experiment *e, struct node *x,
				   const char *name);
/* experiment_named_leaf() for a placeholder node's 8 bytes, "<NAME>". */
struct node *experiment_placeholder_leaf(struct experiment *e,
					 struct node *x, uint64_t addr);
/* A placeholder node's 8 ASCII bytes (hpcrun(5)), trailing blanks
 * trimmed, non-printing ones as '?', into out (9 bytes). */
void experiment_placeholder_name(uint64_t addr, char *out);

/*
 * Registers profile p's program path (as a load module, when there are
 * several programs) and its load modules, in profile order: call once per
 * profile after every experiment_add_program(), before any worker adds a
 * profile.  dir is the profile's directory (see experiment_add_profile).
 */
void experiment_register(struct experiment *e, const struct hpcrun_profile *p,
			 const char *dir);
/* Checks every module's structure file against its measured build ID
 * (experiment.h, struct module); call after the last experiment_register(). */
void experiment_check_modules(struct experiment *e);

/*
 * A worker's experiment: it reads e's modules, programs, metrics and
 * structures (which must not change while it lives) and builds a tree of
 * its own with experiment_add_profile(); experiment_merge() then moves it
 * into e.  Free with experiment_free().
 */
struct experiment *experiment_new_worker(const struct experiment *e);

/*
 * Merges worker w's tree into e: w's nodes in w's creation order, each
 * found by its key below its parent's counterpart or made, so merging
 * workers of consecutive profile ranges in order yields the nodes, ids,
 * children order and name tables that adding every profile to one
 * experiment would.  Returns map[w's id] = e's node (caller frees);
 * nodes carry no values (values arrive per thread, parallel.h).
 */
struct node **experiment_merge(struct experiment *e,
			       const struct experiment *w);
/* A new node of kind below parent, with no key in e's children table
 * (experiment-wire.c's received trees are only merged from). */
struct node *experiment_node(struct experiment *e, struct node *parent,
			     enum node_kind kind);

/*
 * Accumulators for folding values by node id (parallel.h): a zeroed block
 * of one for every id e has now, node id's at e->acc_block + id *
 * e->acc_stride, so a fold touches no node.  experiment_acc_attach() then
 * gives each node without an accumulator its block's, when a value was
 * folded into it.  The block lives until experiment_free(e).
 */
void experiment_acc_block(struct experiment *e);
void experiment_acc_attach(struct experiment *e);
static inline struct accum *experiment_acc_of(const struct experiment *e,
					      uint32_t id)
{
	return (struct accum *)(void *)(e->acc_block + id * e->acc_stride);
}

/* e's overlay of module index module, and of the placeholders; made when
 * first asked for; valid until experiment_free(e). */
struct overlay *experiment_overlay(struct experiment *e, uint32_t module);
struct overlay *experiment_placeholders(struct experiment *e);

/* Opens, in e, the binaries that w's overlays read (after every merge, in
 * worker order; with w = e after adding profiles to e itself), so e's
 * modules say how they were attributed. */
void experiment_merge_fallbacks(struct experiment *e,
				const struct experiment *w);

/*
 * For datatree.c: the child of parent (NULL: a new root) with kind and
 * key (k1, k2), made when new (*is_new set).
 */
struct node *experiment_child(struct experiment *e, struct node *parent,
			      enum node_kind kind, uint64_t k1, uint64_t k2,
			      int *is_new);
/*
 * For datatree.c: the procedure, source file and line of the call at
 * module-relative addr (a return address) in module m, as the code tree
 * would place it; file "" and line 0 when unknown.  The strings live as
 * long as e.
 */
void experiment_call_site(struct experiment *e, const struct module *m,
			  uint64_t addr, const char **proc, const char **file,
			  uint32_t *line);

/* Index of name in t, adding it if new. */
uint32_t name_table_intern(struct name_table *t, const char *name);
/* Adds name to t as a new entry even when it is there (intern still finds
 * the first); its index. */
uint32_t name_table_add(struct name_table *t, const char *name);


#endif
