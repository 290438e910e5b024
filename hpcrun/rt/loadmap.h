/*
 * loadmap.h - the modules mapped in the process (loadmap.c).
 *
 * Invariants:
 *  1. A module's id is stable for the process (the main program is 1)
 *     and a struct rt_module, once seen, is never freed: a module pointer
 *     returned here stays valid until the process ends, and a module
 *     dlclosed since keeps its id and path (live == 0: its memory must
 *     not be read).  The array rt_module_all returns is never freed and
 *     its first *n entries never change: any thread may read it, with no
 *     lock, while another dlopens.  A module's live flag only goes from
 *     1 to 0; read it with an atomic load.
 *  2. The snapshots the handler reads are immutable and published with
 *     one atomic store; only rt_loadmap_refresh makes them, outside the
 *     handler.  rt_module_find and rt_module_at are async-signal-safe.
 *  3. Build IDs are read while the loader's lock holds the module mapped,
 *     never in the handler.
 */
#ifndef HPCRUN_LOADMAP_H
#define HPCRUN_LOADMAP_H

#include <stddef.h>
#include <stdint.h>

#include "buildid.h"

struct rt_module {
	uint16_t id;
	int live;
	uintptr_t bias;			/* load bias (dlpi_addr) */
	uintptr_t lo, hi;		/* all PT_LOAD segments */
	uintptr_t xlo, xhi;		/* executable segments */
	const unsigned char *eh_hdr;	/* PT_GNU_EH_FRAME, or NULL */
	char *path;
	char buildid[HPC_BUILDID_HEX_SIZE];	/* GNU build ID as hex, or "" */
};
/* Reads the modules mapped now and publishes their snapshot (at start,
 * after dlopen and dlclose; outside the handler: it allocates and takes
 * the loader's lock). */
void rt_loadmap_refresh(void);
/* Bumped by every refresh: caches keyed by address check it. */
extern unsigned rt_loadmap_gen;
/* The live module containing addr, or NULL (async-signal-safe). */
const struct rt_module *rt_module_find(uintptr_t addr);
/* The module that held addr at time (CLOCK_MONOTONIC ns; 0: now), or
 * else the live one holding it, or NULL (async-signal-safe).  One
 * dlclosed since has live == 0: its memory must not be read. */
const struct rt_module *rt_module_at(uintptr_t addr, uint64_t time);
/* The module the process does not map (the kernel: kernel-time.h,
 * invariant 3; Python's frames: HPCPY_MODULE, over [0, 0)) of path over
 * [lo, hi): the one added before, or a new one, in no snapshot and never
 * live, in every profile's load map; NULL when out of memory.  Outside
 * the handler. */
const struct rt_module *rt_module_add_unmapped(const char *path, uintptr_t lo,
					       uintptr_t hi);
/* The path of m's detached debug file by its build ID, where Debian's
 * -dbgsym packages put it (/usr/lib/debug/.build-id/XX/REST.debug), into
 * buf; 0 when m has no build ID. */
#define RT_DEBUG_PATH_SIZE (64 + HPC_BUILDID_HEX_SIZE)
int rt_module_debug_path(const struct rt_module *m,
			 char buf[RT_DEBUG_PATH_SIZE]);
/* Every module ever seen, in id order: *n of them, the array valid
 * until the process ends (any thread; async-signal-safe). */
const struct rt_module *const *rt_module_all(size_t *n);

#endif
