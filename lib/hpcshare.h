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

/* "r", "w", "u". */
const char *hpcshare_rw_name(enum hpcshare_rw rw);

/* The .hpcshare path beside a profile: "d/p-0.hpcrun" -> "d/p-0.hpcshare".
 * Caller frees. */
char *hpcshare_path_for(const char *profile);

#endif
