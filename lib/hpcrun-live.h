/*
 * hpcrun-live.h - the live files hpcrun keeps while a process runs, so that
 * a process killed without warning (SIGKILL, the OOM killer) still leaves
 * its profiles; and their recovery into ordinary .hpcrun 04.00 profiles.
 *
 * Two kinds of file, named as profiles are (hpcrun(5)):
 *   PROG-RANK-THREAD-HOSTID-PID-GEN.hpcrun-live   one per thread: its
 *       calling context tree, mapped MAP_SHARED by the thread's handler, so
 *       the kernel keeps every store even when the process dies;
 *   PROG-RANK-000-HOSTID-PID-GEN.hpcrun-proc       one per process: the
 *       profile header, the metric table and the load map, appended with
 *       write(2) as they become known.
 * When a thread's .hpcrun is written, its live file is freed: removed, or
 * kept by the process for a thread to come (a free file, below), removed
 * at process end; when the process has written everything, its proc file
 * is removed too.  So what is left in a measurement directory is what a
 * process did not live to write.
 *
 * Layout (host byte order; byte_order tells a reader on another host):
 *  - A live file starts with struct hpcrun_live_header (HPCRUN_LIVE_HEADER
 *    bytes), then chunks: chunk[i] covers bytes [off, off + bytes) and
 *    holds nodes[i] node records of node_bytes each, from its start.
 *    Every chunk's blocks are allocated (fallocate) before it is used.
 *  - A node is struct hpcrun_live_node followed by nmetrics doubles.  Nodes
 *    are appended in creation order (ids 12, 14, ...), parents first; a
 *    node is written whole before its chunk's count takes it in (the
 *    commit), and only its values change after.  So every prefix the
 *    counts describe is a valid tree.
 *  - updates is odd while a sample is being recorded: a file left with an
 *    odd count ended in the middle of one (its last node may be
 *    uncommitted, its value added or not: one sample at most).
 *  - A proc file is HPCRUN_LIVE_PROC_MAGIC, then records: u32 type, u32
 *    payload bytes, payload.  Each record goes out in one write(2); a
 *    record cut short ends the file.
 *  - A free file: a live file whose magic is 16 zero bytes holds no tree,
 *    whatever its name (a finished thread's, cleared before the process
 *    keeps it for reuse; or one a new thread is setting up, the magic
 *    written last).  The magic is cleared before a file is kept, and a
 *    reused file is renamed to its new thread's name only after its
 *    header is cleared: so a free file is never taken for a thread's
 *    tree.  Recovery removes free files without a word.
 */
#ifndef HPC_HPCRUN_LIVE_H
#define HPC_HPCRUN_LIVE_H

#include <stdint.h>

#define HPCRUN_LIVE_MAGIC "HPCRUN-live_____"		/* 16 bytes */
#define HPCRUN_LIVE_PROC_MAGIC "HPCRUN-liveproc_"	/* 16 bytes */
#define HPCRUN_LIVE_VERSION 1
#define HPCRUN_LIVE_BYTE_ORDER 0x01020304u
#define HPCRUN_LIVE_HEADER 4096
#define HPCRUN_LIVE_MAX_CHUNKS 40
#define HPCRUN_LIVE_MAX_METRICS 16
#define HPCRUN_LIVE_SUFFIX ".hpcrun-live"
#define HPCRUN_LIVE_PROC_SUFFIX ".hpcrun-proc"

struct hpcrun_live_header {
	char magic[16];
	uint32_t version;
	uint32_t byte_order;
	uint32_t header_bytes;		/* HPCRUN_LIVE_HEADER */
	uint32_t node_bytes;
	uint32_t nmetrics;
	uint32_t thread;		/* thread index (0 = main) */
	uint64_t pid;
	uint64_t updates;		/* odd: a sample was being recorded */
	uint32_t nchunks;		/* committed after the chunk's entry */
	uint32_t pad;
	struct {
		uint64_t off, bytes;
		uint64_t nodes;		/* committed nodes in the chunk */
	} chunk[HPCRUN_LIVE_MAX_CHUNKS];
	uint64_t nsamples[HPCRUN_LIVE_MAX_METRICS];
};

struct hpcrun_live_node {
	uint64_t addr;			/* module-relative, or placeholder text */
	uint64_t links[3];		/* the runtime's pointers: not for readers */
	uint32_t id;
	uint32_t parent;		/* parent's id, 0 for a root */
	uint16_t lm;
	uint16_t pad[3];
	/* double val[nmetrics] */
};

/* Proc-file record types. */
enum hpcrun_live_record {
	/* name NUL value NUL: one profile header pair */
	HPCRUN_LIVE_REC_HEADER = 1,
	/* struct hpcrun_live_metric, then name NUL description NUL */
	HPCRUN_LIVE_REC_METRIC = 2,
	/* u16 id, path NUL build-ID hex NUL: one load-map entry */
	HPCRUN_LIVE_REC_MODULE = 3,
};

struct hpcrun_live_metric {
	uint64_t period;
	double threshold;
	uint16_t is_frequency;
	uint8_t flags[16];
};

/*
 * Turns what processes left in the measurement directory dir into
 * profiles: each THREAD's .hpcrun-live whose .hpcrun is missing (or cut
 * short) becomes that .hpcrun (header pair "hpcrun-recovered: killed"),
 * then its live file, and at the end its process's proc file, are
 * removed; a free live file is removed and not recovered.  Calls
 * say(fmt, ...) once per process recovered, and once per file that
 * cannot be ("'FILE': ...: not recovered"), those counted in *bad (when
 * not NULL).  Returns the number of profiles written, or -1 with
 * hpc_lasterr() when dir cannot be read.
 */
int hpcrun_live_recover(const char *dir,
			void (*say)(const char *fmt, ...)
			__attribute__((format(printf, 1, 2))), size_t *bad);

#endif
