/*
 * hpcrun-fmt.h - the .hpcrun per-thread profile, format 04.00 (HPCToolkit's).
 *
 * One in-memory model, struct hpcrun_profile, shared by the writer (linked
 * into libhpcrun.so, lib/hpcrun-fmt-write.c) and the reader and dumper
 * (hpcprof and tests, lib/hpcrun-fmt-read.c).  The byte layout is described
 * in man/hpcrun.5; HPCToolkit's measurements in tests/data/hpctoolkit/ are
 * the reference.  Invariant: for every
 * profile p, read(write(p)) yields p field for field (tests check it).
 *
 * All integers in the model are host order; the file is big-endian.
 */
#ifndef HPC_HPCRUN_FMT_H
#define HPC_HPCRUN_FMT_H

#include <stdint.h>
#include <stdio.h>

#define HPCRUN_FMT_MAGIC "HPCRUN-profile____"
#define HPCRUN_FMT_VERSION "04.00"
#define HPCRUN_FMT_FOOTER_MAGIC 0x48504352554E736DULL /* "HPCRUNsm" */
#define HPCRUN_FMT_END_ID 0x656E6421u                 /* "end!" */

/* Load-module flag: samples landed in this module (analyze it). */
#define HPCRUN_LM_ANALYZE 0x1ULL
/* CCT node flag: the node's address came from unwinding. */
#define HPCRUN_NODE_UNWOUND 0x1
#define HPCRUN_NODE_VARIABLE 0x2

/* Identifier kinds (the dictionary section). */
enum hpcrun_idkind {
	HPCRUN_ID_SUMMARY = 0, HPCRUN_ID_NODE = 1, HPCRUN_ID_RANK = 2,
	HPCRUN_ID_THREAD = 3, HPCRUN_ID_GPUDEVICE = 4, HPCRUN_ID_GPUCONTEXT = 5,
	HPCRUN_ID_GPUSTREAM = 6, HPCRUN_ID_CORE = 7,
};

struct hpcrun_kv {		/* header name/value pair */
	const char *name;
	const char *value;
};

struct hpcrun_lm {		/* load map entry */
	uint16_t id;		/* > 0; 0 is reserved for placeholder nodes */
	const char *path;
	uint64_t flags;		/* HPCRUN_LM_* */
	int used;		/* on reading: some node of the tree is in it
				 * (kept by hpcrun_profile_shed); not written */
};

struct hpcrun_node {		/* CCT node, preorder (parents first) */
	uint32_t id;
	uint32_t parent;	/* 0 = a root */
	uint16_t lm;		/* 0 = placeholder: addr holds 8 ASCII bytes */
	uint64_t addr;		/* module-relative */
	uint8_t flags;		/* HPCRUN_NODE_* */
};

struct hpcrun_metric {
	const char *name;
	const char *description;
	uint8_t flags[16];	/* see hpcrun-04.md; bytes kept verbatim */
	uint64_t period;
	const char *formula;
	const char *format;
	uint16_t is_frequency;
	uint16_t is_multiplexed;
	double threshold;
	uint64_t nsamples;
};

struct hpcrun_idkind_name {
	uint16_t kind;
	const char *name;
};

struct hpcrun_id_elem {		/* one element of the identity tuple */
	uint16_t kind;		/* as written: top two bits = interpretation */
	uint64_t physical;
	uint64_t logical;
};

struct hpcrun_value {		/* one non-zero metric value of a context */
	uint16_t metric;	/* index into metrics[] */
	uint64_t bits;		/* IEEE-754 double or integer, per metric */
};

struct hpcrun_ctx_values {	/* values[first .. next ctx's first) */
	uint32_t ctx;		/* CCT node id */
	uint64_t first;		/* index into values[] */
};

struct hpcrun_profile {
	struct hpcrun_kv *header;		size_t nheader;
	struct hpcrun_lm *lms;			size_t nlms;
	struct hpcrun_node *nodes;		uint64_t nnodes;
	struct hpcrun_metric *metrics;		uint32_t nmetrics;
	struct hpcrun_idkind_name *idkinds;	uint16_t nidkinds;
	struct hpcrun_id_elem *idtuple;		uint16_t nidtuple;
	struct hpcrun_value *values;		uint64_t nvalues;
	/* Non-empty contexts, without the trailing "end!" pair. */
	struct hpcrun_ctx_values *ctxs;		uint32_t nctxs;
};

/*
 * Writes p to the open file descriptor fd (positioned at offset 0 of an
 * empty file).  Async-signal-safe: no malloc, no stdio, no locks; only
 * write(2) from a stack buffer, so the runtime may call it while a thread
 * or the process is ending.  Returns 0, or a negative errno.
 */
int hpcrun_fmt_write(int fd, const struct hpcrun_profile *p);

/*
 * The bits a profile stores for value v of metric m: for a metric of
 * integer values (flags[2] == 1, as hpcrun --data's), v as an integer;
 * else v's IEEE-754 bits.  Async-signal-safe.
 */
uint64_t hpcrun_value_bits(const struct hpcrun_metric *m, double v);

/* HPCToolkit's identifier dictionary has this many kinds. */
#define HPCRUN_NIDKINDS 8
/*
 * Sets p's identifier dictionary (into idk) and identity tuple (into
 * tuple): node hostid, thread; the arrays must live as long as p.
 * Async-signal-safe.
 */
void hpcrun_fmt_identity(struct hpcrun_profile *p,
			 struct hpcrun_idkind_name idk[HPCRUN_NIDKINDS],
			 struct hpcrun_id_elem tuple[3], uint32_t hostid,
			 uint64_t thread);

/*
 * Reads the profile at path.  Returns a profile the caller frees with
 * hpcrun_profile_free(), or NULL with hpc_lasterr() saying what is wrong,
 * naming the file and the section ("'f.hpcrun': truncated CCT section").
 */
struct hpcrun_profile *hpcrun_fmt_read(const char *path);
/*
 * p's nodes indexed by id: a table by id when the ids are dense (at most a
 * few times the number of nodes, as hpcrun's are), else sorted; valid
 * while p's nodes stay as they are.  *dup is the smallest id that two
 * nodes share, or 0.  Free with hpcrun_node_index_free (NULL accepted).
 */
struct hpcrun_node_index;
struct hpcrun_node_index *hpcrun_node_index_new(const struct hpcrun_profile *p,
						 uint32_t *dup);
void hpcrun_node_index_free(struct hpcrun_node_index *x);
/* The position in the profile's nodes of the node with id, or -1: constant
 * time for dense ids, a binary search else. */
long hpcrun_node_position(const struct hpcrun_node_index *x, uint32_t id);
/* Frees p's CCT and values, keeping its header, load map, metrics and
 * identity (counts of what is freed become 0). */
void hpcrun_profile_shed(struct hpcrun_profile *p);
/* Frees a profile from hpcrun_fmt_read(). Accepts NULL. */
void hpcrun_profile_free(struct hpcrun_profile *p);

/* Header value for name, or NULL. Valid while p lives. */
const char *hpcrun_profile_header(const struct hpcrun_profile *p,
				  const char *name);

/* Prints every record as stable text (for hpcprof --dump and tests). */
void hpcrun_fmt_dump(FILE *f, const struct hpcrun_profile *p);

#endif
