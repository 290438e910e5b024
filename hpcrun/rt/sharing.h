/*
 * sharing.h - hpcrun --sharing: which threads touch which bytes of the
 * program's data objects, when, reading or writing, from where; written
 * per thread into PROFILE-STEM.hpcshare (hpcrun(5), "Sharing files
 * (.hpcshare)"): main's always, another thread's when it has a record,
 * a drop or an untracked sample to tell.
 *
 * How it samples: it does nothing of its own to the program.  Every
 * sample --data places in a heap block or a static variable
 * (datacentric.c, rt_data_place) is also an access record here: the
 * thread, its CPU, the time, the object and offset, the access size and
 * whether the instruction reads, writes, or both (datacentric-memop.c),
 * and the sample's calling context -- a software form of address
 * sampling (PEBS, IBS; Cheetah, perf c2c).  A page-fault sample with its
 * address (-e page-faults@1 --data) is a first touch: it places its page
 * on the faulting CPU's NUMA node.  hpcprof orders the records of all
 * threads in time and labels each 64-byte line (hpcprof/sharing.h).
 *
 * Invariants:
 *  1. Nothing here runs unless rt_sharing.on (hpcrun --sharing,
 *     HPCRUN_SHARING), which implies rt_data.on.
 *  2. Never harm the program: no page is protected, no signal taken, no
 *     call wrapped; a record is a store into the thread's own buffer.
 *  3. rt_sharing_access and rt_sharing_commit run in the sample handler:
 *     they allocate nothing but the thread's record buffer, mapped (mmap)
 *     at its first record, take no lock and never wait; the object
 *     table is a fixed array whose slots change with atomics, and a full
 *     buffer or table counts drops (the log says how many).
 *  4. An object leaves the table before its memory goes back to the
 *     allocator (rt_sharing_forget, from rt_data_forget), so a block
 *     allocated again at the same address is another object.
 *  5. --watch (HPCRUN_WATCH, comma-separated fnmatch(3) globs) selects
 *     nothing out: it marks objects.  A static variable is watched when
 *     its symbol matches, a heap block when a function of its allocation
 *     path does (datacentric.c decides, outside the handler, when it
 *     reads a module's symbols and makes an allocation path); a watched
 *     block below --data-min-bytes is tracked all the same.  The file
 *     says which objects were watched ("watched OID"), so hpcprof always
 *     reports them, ranked first, whatever their evidence.
 */
#ifndef HPCRUN_SHARING_H
#define HPCRUN_SHARING_H

#include <stddef.h>
#include <stdint.h>

struct rt_thread;
struct cct_node;

struct rt_sharing_config {
	int on;
	int virtual_nodes;		/* --numa-nodes given */
};
extern struct rt_sharing_config rt_sharing;

/* Is name (a symbol of the program, not hpcrun's) matched by a --watch
 * glob?  Each glob that matches is remembered for the log (a glob that
 * matches nothing is said).  Outside the handler; 0 without --watch. */
int rt_sharing_watch_name(const char *name);
/* Were any --watch globs given? */
int rt_sharing_watching(void);

/* Per-thread state: a header from a pool at thread start, back to it at
 * thread end, its record buffer mapped at the first record (sharing.c). */
struct rt_share_thread;

/* The heap block at start goes back to the allocator: it leaves the
 * table (invariant 4). */
void rt_sharing_forget(uintptr_t start);

/*
 * In the sample handler, a sample of td placed at address a of an object
 * (kind 0: heap block, 1: static variable) [start, start + bytes) whose
 * node in td's tree is obj (NULL: none), watched (invariant 5) or not:
 * size bytes accessed (0:
 * unknown), rw 'r', 'w' or 'u' (read and written by one instruction),
 * first: a page fault (a first touch), at time (0: now).  The record
 * waits for rt_sharing_commit, which the handler calls once the sample's
 * path is in the tree; the next access replaces a record never committed.
 */
void rt_sharing_access(struct rt_thread *td, int kind, uintptr_t start,
		       uint64_t bytes, const struct cct_node *obj, int watched,
		       uintptr_t a, unsigned size, int rw, int first,
		       uint64_t time);
/* The waiting record of td is kept, its calling context leaf (NULL: none). */
void rt_sharing_commit(struct rt_thread *td, const struct cct_node *leaf);
/* In the sample handler: a sample fell in a block smaller than
 * --data-min-bytes, which has no object to name (counted for the log). */
void rt_sharing_untracked(struct rt_thread *td);

#endif
