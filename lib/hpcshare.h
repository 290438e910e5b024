/*
 * hpcshare.h - the per-thread sharing file hpcrun --sharing writes beside
 * a thread's profile (PROFILE-STEM.hpcshare, hpcrun(5) "Sharing files"):
 * the NUMA topology the run used, the thread's span, the objects its data
 * samples fell in, and those samples as accesses, in time order.  Read by
 * hpcprof (hpcprof/sharing.h).
 *
 * Invariants of a struct hpcshare that hpcshare_read() returns:
 *  1. Every object id is >= 1 and appears once in objs[]; every access
 *     names an object declared before it, and its offset is below the
 *     object's size (bytes >= 1); its size is 0 (unknown) to 64.
 *  2. Accesses are in the file's order, which is time order (times never
 *     decrease).
 *  3. nodes[] holds the topology's node lines, node i at index i, exactly
 *     topology's count of them when the file has a topology line; a CPU
 *     is in at most one node.  page_size is a power of two (4096 when the
 *     file does not say).
 *  4. The file was a regular file of at most HPCSHARE_MAX_BYTES, no line
 *     longer than HPCSHARE_MAX_LINE: memory is linear in the file's size.
 *     Unknown record keywords and '#' comment lines are skipped (the
 *     format may grow); malformed fields are refused.
 *
 * The format's three parts (textrec.h's pattern): this header's
 * vocabulary and model; hpcshare-write.c, a writer per record,
 * async-signal-safe, which libhpcrun.so calls (sharing.c);
 * hpcshare-read.c, the reader.  The writer writes what it is given: a
 * model that breaks the invariants above makes a file the reader refuses.
 */
#ifndef HPC_HPCSHARE_H
#define HPC_HPCSHARE_H

#include <stddef.h>
#include <stdint.h>

struct hmap;

#define HPCSHARE_SUFFIX ".hpcshare"
#define HPCSHARE_MAX_BYTES ((uint64_t)256 << 20)
#define HPCSHARE_MAX_LINE 4096
#define HPCSHARE_MAX_NODES 1024
#define HPCSHARE_MAX_CPU 65535

/* The records' keywords (hpcrun(5)); the first line is "hpcshare: 1". */
#define HPCSHARE_MAGIC "hpcshare:"
#define HPCSHARE_VERSION "1"
#define HPCSHARE_THREAD "thread"
#define HPCSHARE_RANK "rank"
#define HPCSHARE_TOPOLOGY "topology"	/* virtual|real NODES */
#define HPCSHARE_VIRTUAL "virtual"
#define HPCSHARE_REAL "real"
#define HPCSHARE_NODE "node"
#define HPCSHARE_PAGE_SIZE "page-size"
#define HPCSHARE_SPAN "span"
#define HPCSHARE_OBJECT "object"
#define HPCSHARE_WATCHED "watched"
#define HPCSHARE_ACCESS "access"
#define HPCSHARE_DROPPED "dropped"
#define HPCSHARE_UNTRACKED "untracked"

/* An object's kind: "heap", "static". */
enum hpcshare_kind { HPCSHARE_HEAP, HPCSHARE_STATIC };

/* An access: a read, a write, or both by one instruction (u). */
enum hpcshare_rw { HPCSHARE_R, HPCSHARE_W, HPCSHARE_U };

struct hpcshare_object {
	uint32_t id;
	enum hpcshare_kind kind;
	uint64_t start, bytes;
	uint32_t node;		/* CCT node id in the thread's profile */
	int watched;		/* a "watched" record names it (--watch) */
};

struct hpcshare_access {
	uint64_t time;		/* CLOCK_MONOTONIC ns */
	uint32_t cpu;
	uint32_t obj;		/* index in objs[] (not the file's id) */
	uint64_t offset;
	uint8_t size;		/* 0: unknown */
	uint8_t rw;		/* enum hpcshare_rw */
	uint8_t first;		/* a page fault: first touch of its page */
	uint32_t node;		/* access path leaf, 0: none */
};

/* One NUMA node: its CPUs as sorted, disjoint ranges [lo, hi]. */
struct hpcshare_node {
	uint32_t *lo, *hi;
	size_t nranges;
};

struct hpcshare {
	char *path;
	long thread, rank;	/* -1 when the file does not say */
	int virtual_topology;	/* 1: "topology virtual" */
	struct hpcshare_node *nodes;	size_t nnodes;
	uint64_t page_size;
	int has_span;
	uint64_t span_begin, span_end;	/* "span": the thread ran then */
	struct hpcshare_object *objs;	size_t nobjs;
	struct hpcshare_access *accesses;	size_t naccesses;
	uint64_t dropped;	/* "dropped" (or a "summary"'s third field) */
	uint64_t untracked;	/* "untracked" */
	struct hmap *index;	/* object id -> index in objs + 1 */
};

/*
 * Reads the file at path.  Returns a struct the caller frees with
 * hpcshare_free(), or NULL with hpc_lasterr() set to one line naming the
 * file and what is wrong ("'t.hpcshare': line 9: access names unknown
 * object 4").
 */
struct hpcshare *hpcshare_read(const char *path);
/* Frees s (NULL accepted). */
void hpcshare_free(struct hpcshare *s);

/* The node of cpu by s's topology, or -1 when no node lists it. */
long hpcshare_cpu_node(const struct hpcshare *s, uint32_t cpu);

/* "r", "w", "u"; "?" for a number that is none.  Async-signal-safe
 * (hpcshare-write.c). */
const char *hpcshare_rw_name(enum hpcshare_rw rw);
/* "heap", "static"; "?" for a number that is none.  Async-signal-safe. */
const char *hpcshare_kind_name(enum hpcshare_kind k);

/* The .hpcshare path beside a profile: "d/p-0.hpcrun" -> "d/p-0.hpcshare".
 * Caller frees. */
char *hpcshare_path_for(const char *profile);

/*
 * Writing (hpcshare-write.c): each function puts one record, or for head
 * and tail the records of s's scalar fields, into o (textrec.h: W1-W3,
 * async-signal-safe).  A file is head, node records 0 to NODES - 1,
 * page-size and span, then in time order each access, its object's
 * record before the object's first access (hpcrun writes it just
 * before), and the tail.
 */
struct textrec_out;
/* "hpcshare: 1", thread (when >= 0), rank, and "topology" when there are
 * nodes: nnodes of them (nodes[] is not read). */
void hpcshare_write_head(struct textrec_out *o, const struct hpcshare *s,
			 size_t nnodes);
/* "node I CPULIST", the list spelled as given ("0-3,8"). */
void hpcshare_write_node(struct textrec_out *o, size_t i, const char *cpulist);
/* "page-size", then "span" when s has one. */
void hpcshare_write_pages(struct textrec_out *o, const struct hpcshare *s);
/* The object's record, and "watched" after it when x is. */
void hpcshare_write_object(struct textrec_out *o,
			   const struct hpcshare_object *x);
/* An access to the object obj (a->obj is not read: the file names the
 * object by its id). */
void hpcshare_write_access(struct textrec_out *o,
			   const struct hpcshare_access *a,
			   const struct hpcshare_object *obj);
/* "dropped", "untracked". */
void hpcshare_write_tail(struct textrec_out *o, const struct hpcshare *s);
/* The whole of s in the order above, every object's record before the
 * first access; the file hpcshare_read() returns s from
 * (read(write(s)) = s). */
void hpcshare_write(struct textrec_out *o, const struct hpcshare *s);

#endif
