/*
 * seccomp-filters.h - how many seccomp filters the calling thread runs
 * under, as /proc/self/status says (hpcrun(1): a process that starts
 * under a filter installed since its launch is not measured).
 *
 * Invariants:
 *  1. Async-signal-safe and allocation-free (linked into libhpcrun.so):
 *     open, read and close of /proc/self/status, nothing else.
 *  2. Never fails the caller: what cannot be read is -1.
 */
#ifndef HPC_SECCOMP_FILTERS_H
#define HPC_SECCOMP_FILTERS_H

/* The thread's "Seccomp_filters" (Linux 5.9 on); before, 0 when its
 * "Seccomp" mode is 0 and 1 when it is not; -1 when neither is there. */
int hpc_seccomp_filters(void);

#endif
