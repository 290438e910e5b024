/*
 * datacentric.h - hpcrun --data: the objects of the process and where the
 * data address of a sample falls (datacentric.c), the decoding of that
 * address (datacentric-memop.c), and the allocator entry points that feed the objects
 * (datacentric-alloc.c).  The profile's roots and metrics are in hpcrun(5),
 * "Data-centric roots and metrics".
 *
 * Invariants (each file's header says how it keeps them):
 *  1. Nothing here runs unless rt_data.on (hpcrun --data, HPCRUN_DATA).
 *  2. What the handler calls (rt_data_place, rt_memop_decode) allocates
 *     nothing, takes no lock and never waits.
 *  3. A block leaves the object map before its memory goes back to the
 *     allocator, so an address reused by another allocation is never
 *     attributed to the old object.
 *  4. With hpcrun --sharing (sharing.h) every sample placed in a heap
 *     block or a static variable is also its access record, and a block
 *     leaves sharing's table when it leaves the map.
 */
#ifndef HPCRUN_DATACENTRIC_H
#define HPCRUN_DATACENTRIC_H

#include <stddef.h>
#include <stdint.h>

struct rt_thread;
struct cct_node;

/* Metrics after the event metrics (hpcrun(5)). */
enum {
	RT_DATA_BYTES, RT_DATA_BLOCKS, RT_DATA_OFFSET_LO, RT_DATA_OFFSET_HI,
	RT_DATA_NMETRICS
};

struct rt_data_config {
	int on;
	uint64_t min_bytes;		/* --data-min-bytes */
};
extern struct rt_data_config rt_data;

/* Per-thread state (mmap'ed at thread start, freed at its end). */
struct rt_data_thread {
	struct rt_memop *memop;
	uint64_t small_bytes, small_blocks;	/* untracked blocks allocated,
					 * not yet on "^Small  " (datacentric.c,
					 * invariant 8) */
	uint64_t nomem;			/* samples without a memory operand */
	uintptr_t last_granule;		/* of the last small block */
	int stack_slot;			/* in the stack table, or -1 */
};

/* datacentric.c, outside the handler */
/* Builds the static-variable tables of modules not seen yet (after each
 * load-map refresh). */
void rt_data_modules(void);
/* A block [p, p+n) just allocated by the program: tracked (named by the
 * calling thread's call path) when n >= min_bytes, else counted as small. */
void rt_data_alloc(void *p, size_t n);
/* The block at p (or every block inside [p, p+n) when n) leaves the map;
 * before the memory goes back. */
void rt_data_forget(void *p, size_t n);
/* Is any block tracked?  (A cheap test before rt_data_forget.) */
int rt_data_tracking(void);
/* Between these, the calling thread's allocations are hpcrun's, not the
 * program's, though a library makes them (the TLS pthread_create
 * allocates for one of hpcrun's own threads, which a program thread may
 * start): not tracked.  begin returns what end restores. */
int rt_data_own_begin(void);
void rt_data_own_end(int was);
/* Before td's profile is written: the small blocks' counts still waiting
 * on "^Small  ";
 * the header pairs into kv (at most 3) with numbers in num; returns how
 * many. */
struct hpcrun_kv;
size_t rt_data_profile(struct rt_thread *td, struct hpcrun_kv *kv, char num[3][24]);

/*
 * In the handler: the node under which the access path of td's sample
 * of event idx hangs (regs: its registers, DWARF numbering; fault: its data address
 * when the event carries one, else NULL to decode), or NULL for the
 * code-centric tree (no memory operand, or no memory for nodes).
 */
struct cct_node *rt_data_place(struct rt_thread *td, int idx,
			       const uintptr_t *regs, const uintptr_t *fault,
			       uint64_t time);

/* The symbols of an ELF file, mapped (outside handlers): sym[0..n) with
 * their names in str[0..strsize); from .symtab, else .dynsym. */
struct rt_elf_syms {
	const unsigned char *map;
	size_t size;
	const void *sym;		/* Elf64_Sym[n] */
	size_t n;
	const char *str;
	size_t strsize;
};
/* Maps path's symbols into *s; 0 or negative errno (-ENOEXEC: no ELF
 * symbol table).  Opens a file: call it on an fd thread (rt_fd_private).
 * rt_elf_syms_close unmaps. */
int rt_elf_syms_open(const char *path, struct rt_elf_syms *s);
/* Unmaps what rt_elf_syms_open mapped; accepts an empty s. */
void rt_elf_syms_close(struct rt_elf_syms *s);
/* The name of symbol i, or "" (its string lies outside the table). */
const char *rt_elf_sym_name(const struct rt_elf_syms *s, size_t i);

/* datacentric-memop.c */
enum memop { MEMOP_NONE, MEMOP_ADDR, MEMOP_NOADDR };
struct rt_memop;
/* Loads Capstone, once per process (datacentric-memop.c, invariant 5). */
void rt_memop_load(void);
/* A decoder for the calling thread (outside the handler), or NULL: no
 * Capstone (said once), or *nomem set: no memory for one. */
struct rt_memop *rt_memop_new(int *nomem);
void rt_memop_free(struct rt_memop *m);
/* The first memory operand of the instruction at regs[16], or with
 * retired of the one that ends there (a timer's sample: datacentric-memop.c,
 * invariant 3): MEMOP_ADDR with its address and size, MEMOP_NONE, or
 * MEMOP_NOADDR; with MEMOP_ADDR *rw (rw not NULL) is 'r', 'w', or 'u' for
 * an operand read and written by the one instruction (add to memory, a
 * locked exchange).  Async-signal-safe. */
enum memop rt_memop_decode(struct rt_memop *m, const uintptr_t *regs,
			   uint64_t time, int retired, uintptr_t *addr,
			   unsigned *size, int *rw);

#endif
