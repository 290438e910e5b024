/*
 * output.h - the files hpcrun writes (hpcrun(5)): their names, the guard
 * around every write, the .hpcrun profile, the process's proc file, side
 * files, and async-signal-safe text helpers (output.c).
 *
 * Invariants:
 *  1. Profiles, the proc file and the log are written between rt_io_begin
 *     and rt_io_end or in rt_io_private, profiles, the log and side files
 *     on a fd thread's private table (fd-gate.c): the program can neither
 *     close our file's number, nor fill the table it is opened in, nor
 *     make our write fail or signal through its limits.
 *  2. A file is created with O_EXCL under a name no other process or
 *     thread uses (rt_create_file), and removed when it cannot be written
 *     whole.
 *  3. Everything here but rt_side_file, rt_live_proc_begin and
 *     rt_live_proc_modules is async-signal-safe, so a fatal signal's
 *     handler can write every profile and the log.
 *
 * Return values: 0 or a negative errno, as runtime.h says; apart from it
 * rt_file_path returns a length, 0 when the path does not fit, and
 * rt_say_lost takes a positive errno, as strerror does.
 */
#ifndef HPCRUN_OUTPUT_H
#define HPCRUN_OUTPUT_H

#include <signal.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/resource.h>

#include "hpcrun-fmt.h"
#include "writeall.h"

struct rt_thread;

/* Writes td's profile (hpcrun(5)) into the measurement directory as path
 * (filled in as soon as it is known, else ""); 0 or -errno (nothing left
 * behind).  Async-signal-safe. */
int rt_profile_write(struct rt_thread *td, char *path, size_t size);
/* The profile header's pairs of thread (-1: "thread-id" left ""), their
 * numbers formatted into num (the pairs point into num and rt_cfg); returns
 * how many (RT_NHEADER). */
#define RT_NHEADER 11
size_t rt_profile_header(struct hpcrun_kv *hdr, char num[4][24], int thread);
/* The metric table (rt_nmetrics() entries), with the sample counts ns
 * (NULL: 0); its strings are rt_cfg's or static. */
void rt_profile_metrics(struct hpcrun_metric *met, const uint64_t *ns);

/*
 * Creates OUTDIR/PROG-RANK-THREAD-HOSTID-PID-GEN SUFFIX (hpcrun(5)) with
 * O_EXCL, bumping GEN while the name is taken; an fd or a negative errno,
 * the name tried last in path.  Async-signal-safe.
 */
int rt_create_file(int thread, const char *suffix, char *path, size_t size);

/*
 * Path of OUTDIR/PROG-RANK-THREAD-HOSTID-PID-GEN SUFFIX into buf (at least
 * 4400 bytes); its length, or 0 when too long.  Async-signal-safe.
 */
size_t rt_file_path(char *buf, int thread, unsigned gen, const char *suffix);

/*
 * Around hpcrun's own writes (outside the handler): the fd gate held
 * (signals blocked), and the soft RLIMIT_FSIZE the program made finite,
 * and an RLIMIT_NOFILE it lowered under 16 (output.c), lifted to their
 * hard limits, so our writes neither fail for its limits nor raise
 * SIGXFSZ in it; rt_io_end puts the limits back (when no other write of
 * ours goes on) and takes away a SIGXFSZ or SIGPIPE our writes raised
 * anyway (pending: what was pending before, the program's).
 * Async-signal-safe.
 */
struct rt_io {
	sigset_t mask, pending;
};
void rt_io_begin(struct rt_io *io);
void rt_io_end(struct rt_io *io);
/* open(2) inside rt_io_begin/end or rt_io_private: refused for the
 * program's full table (EMFILE), it lifts RLIMIT_NOFILE as above until
 * the writes end, and tries again.  Async-signal-safe. */
int rt_io_open(const char *path, int flags, mode_t mode);
/* fn(arg) as a write of ours on a fd thread (rt_fd_private): the limits
 * lifted as by rt_io_begin, signals blocked, but not the gate, so writes
 * on several threads go on at once; fn's result.  What the fd thread's
 * writes raise stays pending there, blocked (fd-gate.c). */
int rt_io_private(int (*fn)(void *), void *arg);
/* In a fork child: the parent's writers are gone, their limits put back,
 * no message withheld yet. */
void rt_io_after_fork(void);
/* The soft limit res (RLIMIT_FSIZE or RLIMIT_NOFILE) lifted to the hard
 * one for a call of hpcrun's while it is under need; rt_limit_drop ends
 * the call, and the limit is put back when no call of hpcrun's needs it
 * lifted, unless the program set it meanwhile (rt_limit_set): what it
 * set stays.  Async-signal-safe. */
void rt_limit_take(int res, rlim_t need);
void rt_limit_drop(int res);
/* prlimit(2) for the program's setrlimit, setrlimit64, prlimit and
 * prlimit64 (output.c): on the process itself (pid 0 or its own) under
 * the lock of the lifts above.  Async-signal-safe. */
int rt_limit_set(pid_t pid, int res, const struct rlimit *nl,
		 struct rlimit *old);
/* Lets bytes of a file end at offset end under RLIMIT_FSIZE (in the
 * handler: no signal is raised): 0 with the limit taken as
 * rt_limit_take's (rt_limit_drop(RLIMIT_FSIZE) ends it), or -EFBIG when
 * the hard limit is lower. */
int rt_fsize_allow(uint64_t end);

/* The process's live proc file (hpcrun-live.h): created with the header,
 * metrics and modules (rt_live_proc_begin, forgetting any earlier one),
 * then each module not yet in it appended (rt_live_proc_modules);
 * rt_live_proc_end forgets it, and removes it when drop is set (every
 * profile written: nothing left to recover). */
void rt_live_proc_begin(void);
void rt_live_proc_modules(void);
void rt_live_proc_end(int drop);

/*
 * Side files beside a thread's profile (.hpcsync, .hpcshare: hpcrun(5)):
 * PROFILE-STEM SUFFIX, written by fill(o, arg) with the format's record
 * writers (lib/textrec.h) through rt_io_private, as the profile is: the
 * program's soft limits do not apply.  Created with O_EXCL and removed
 * when any write fails, the loss said on stderr ("hpcrun: 'FILE': why:
 * what") and counted in the log's write-errors.
 * profile: the profile's path, ending in ".hpcrun".  Outside handlers.
 */
struct textrec_out;
void rt_side_file(const char *profile, const char *suffix,
		  void (*fill)(struct textrec_out *o, void *arg), void *arg,
		  const char *what);

/* Async-signal-safe text helpers. */
size_t rt_fmt_u64(char *buf, uint64_t v, int base, int width);
/* s copied to p with its NUL; the end of the copy (at the NUL). */
char *rt_append(char *p, const char *s);
/* ns as seconds into buf, "0.45" (two decimals below 0.995 s, then one),
 * NUL-terminated; its length. */
size_t rt_fmt_seconds(char *buf, uint64_t ns);
/* Is this the launch's first process to say what marker names?  Creates
 * the empty file .hpcrun-MARKER-said in the measurement directory: 1
 * when it did (or cannot tell), 0 when another process had, and 0 under
 * hpcrun -q (rt_quiet). */
int rt_first_to_say(const char *marker);
/* hpc_write_all (writeall.h) of the string s. */
int rt_write_str(int fd, const char *s);
/*
 * hpcrun's messages on the program's stderr, the only writes of hpcrun to
 * it, and only while fd 2 holds the file it held when the process started
 * (rt_say_init, at start): one the program put there since is its own,
 * and a message is then withheld, counted (rt_say_withheld, the log's
 * stderr-withheld).  Each goes through rt_io_begin/rt_io_end, so the
 * program's RLIMIT_FSIZE neither cuts it short (below the hard limit) nor
 * lets it raise SIGXFSZ in the program (a message the hard limit would cut is
 * left out whole), and a stderr pipe nobody reads raises no SIGPIPE in
 * it.  Each line is one writev: the program's own writes never land
 * inside it.
 * Async-signal-safe.
 * rt_say: "hpcrun: " then the strings up to NULL, then a newline.
 * rt_say_lines: every whole line of text[0, len) after "hpcrun: ".
 * rt_say_lost: "hpcrun: 'PATH': strerror(err): what" (what was lost).
 */
void rt_say_init(void);
uint64_t rt_say_withheld(void);
void rt_say(const char *s, ...) __attribute__((sentinel));
/* hpcrun -q (HPCRUN_QUIET): notices and warnings go to the log alone;
 * rt_say_notice says line unless so (the caller logs it). */
extern int rt_quiet;
void rt_say_notice(const char *line);
void rt_say_lines(const char *text, size_t len);
void rt_say_lost(const char *path, int err, const char *what);

#endif
