/*
 * trace.h - hpcrun -t: each thread's call-path trace, the time order of
 * its samples as .hpctrace records (hpcrun(5) "Trace files",
 * lib/hpctrace.h), beside its profile (trace.c).
 *
 * Invariants:
 *  1. Only samples of one event are traced: the first time-based one
 *     (cpu-clock, task-clock, CPUTIME, REALTIME), whose samples say when;
 *     a count of cycles says nothing about when.  With none, or beside
 *     others, one line says so.
 *  2. A record's id is a node id of the thread's profile: the leaf the
 *     tree insert returned (a sample), or the interposed call's node
 *     (a wait, with HPCTRACE_ID_WAIT; its end, without).  Its time is
 *     CLOCK_MONOTONIC in nanoseconds (the perf ring's timestamps too).
 *  3. Appends hold td->busy (the handler, or rt_trace_wait and
 *     rt_trace_resume on td's own thread), so one appender at a time; they
 *     allocate nothing, take no lock, open no fd and write nothing: a
 *     record is stored in memory.  A thread's memory is two fixed
 *     buffers whatever the run's length.
 *  4. The buffer that fills is published (a release store) and posted to
 *     hpcrun's writer (fd-gate.c, THE WRITER), which appends it to the
 *     file from its own fd table, the program's limits lifted as for a
 *     profile (rt_io_private), and gives it back; records go on into the
 *     other buffer meanwhile.  With neither buffer given back, records
 *     are dropped and counted ("trace-records-dropped" in the log), never
 *     waited for.  The thread's end writes what is left (on a fd thread,
 *     after the writer's job).  No fd is held between two writes, so
 *     2000 threads hold none.  A SIGKILL loses the records not yet
 *     written: the buffer being filled (at most TRACE_BUF_RECORDS, 0.68 s
 *     of a thread at 1 kHz), a full one the writer had not written yet
 *     (written within milliseconds unless the disk stalls) and the
 *     closing "no activity" record; the file ends on a record boundary.
 *  5. Samples taken while the thread waits in a measured barrier or lock
 *     (a spinning wait) make no record: the wait is one interval, from
 *     its begin to a record back to the call's context at its end.
 *  6. Main's file is made at its beginning, so a traced measurement has
 *     one whatever its threads did; another thread's only once it made a
 *     record: when its first buffer is written, else at its end under its
 *     profile's stem.  A thread without a record has no file (an empty
 *     trace, hpcrun(5)) and costs no create, write or close: most short
 *     threads of a churning program take no sample.
 */
#ifndef HPCRUN_TRACE_H
#define HPCRUN_TRACE_H

#include <stdint.h>

struct rt_thread;

/* Records the sample of event idx taken at time (ns, CLOCK_MONOTONIC)
 * whose leaf is node id; nothing unless td is traced and idx is the
 * traced event.  In the handler, busy held (invariant 3). */
void rt_trace_sample(struct rt_thread *td, int idx, uint64_t time,
		     uint32_t id);
/* The sample just recorded (leaf node id), dated back to when its
 * context began, lasted until time: the same record again at time, so
 * the time in between is that context's, not "no activity" (REALTIME's
 * time off the CPU, source-timer.c).  In the handler, busy held. */
void rt_trace_until(struct rt_thread *td, int idx, uint64_t time, uint32_t id);
/* td (the calling thread) waits in the call of node id from time on, and
 * is back in that context at time (rt_trace_resume); nothing when td is
 * not the calling thread, or for a wait when id is 0.  rt_trace_resume
 * with id 0 writes no record: the wait ended where it was not seen
 * (another thread ended the episode), and samples make records again.
 * Outside handlers. */
void rt_trace_wait(struct rt_thread *td, uint64_t time, uint32_t id);
void rt_trace_resume(struct rt_thread *td, uint64_t time, uint32_t id);

#endif
