/*
 * output.c - hpcrun's files: their names in the measurement directory,
 * the guard around every write, the .hpcrun profile, the process's live
 * proc file, side files, and the async-signal-safe text helpers.
 *
 * Its invariants are output.h's.  rt_profile_write() is async-signal-safe
 * (it may run in a fatal signal handler): its scratch memory comes from
 * mmap, its numbers from rt_fmt_u64.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <unistd.h>

#include "cct.h"
#include "datacentric.h"
#include "fd-gate.h"
#include "futex.h"
#include "hpcrun-fmt.h"
#include "loadmap.h"
#include "output.h"
#include "runtime.h"
#include "signals.h"
#include "textrec.h"

/* The process's live proc file (hpcrun-live.h) and the modules in it. */
static char proc_path[4400];
static size_t proc_modules;

/* The most pieces of a message written in one writev. */
#define SAY_PIECES 16

size_t rt_fmt_u64(char *buf, uint64_t v, int base, int width)
{
	char tmp[24];
	size_t n = 0, i;

	do {
		tmp[n++] = "0123456789abcdef"[v % (unsigned)base];
		v /= (unsigned)base;
	} while (v);
	while ((int)n < width)
		tmp[n++] = '0';
	for (i = 0; i < n; i++)
		buf[i] = tmp[n - 1 - i];
	buf[n] = '\0';
	return n;
}

char *rt_append(char *p, const char *s)
{
	size_t n = strlen(s);

	memcpy(p, s, n + 1);
	return p + n;
}

size_t rt_fmt_seconds(char *buf, uint64_t ns)
{
	int two = ns < 995000000;
	uint64_t unit = two ? 10000000 : 100000000;
	uint64_t n = (ns + unit / 2) / unit;
	size_t k = rt_fmt_u64(buf, n / (two ? 100 : 10), 10, 0);

	buf[k++] = '.';
	return k + rt_fmt_u64(buf + k, n % (two ? 100 : 10), 10, two ? 2 : 1);
}

int rt_first_to_say(const char *marker)
{
	char path[4400];
	int fd;

	if (rt_quiet)
		return 0;
	if (strlen(rt_cfg.outdir) + strlen(marker) + 16 > sizeof(path))
		return 1;
	rt_append(rt_append(rt_append(rt_append(path, rt_cfg.outdir),
				      "/.hpcrun-"), marker), "-said");
	fd = rt_io_open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
	if (fd >= 0)
		rt_sys_close(fd);
	return fd >= 0 || errno != EEXIST;
}

int rt_write_str(int fd, const char *s)
{
	return hpc_write_all(fd, s, strlen(s));
}

/* The file at fd 2 when the process started (rt_say_init), if open. */
static int say_open;
static dev_t say_dev;
static ino_t say_ino;
static uint64_t say_withheld;

int rt_quiet;

void rt_say_notice(const char *line)
{
	if (!rt_quiet)
		rt_say(line, NULL);
}

void rt_say_init(void)
{
	const char *q = getenv("HPCRUN_QUIET");
	struct stat st;

	rt_quiet = q && *q == '1';
	say_open = !fstat(2, &st);
	if (say_open) {
		say_dev = st.st_dev;
		say_ino = st.st_ino;
	}
}

uint64_t rt_say_withheld(void)
{
	return __atomic_load_n(&say_withheld, __ATOMIC_RELAXED);
}

/* Writes the n pieces of one message to stderr in one writev, so no write
 * of the program's own threads lands inside the line.  Only to the file
 * the process started with there: one the program has put at fd 2 since
 * (its own log, /dev/null) is the program's, and the message is withheld
 * (counted).  On a regular file, a message that the hard RLIMIT_FSIZE
 * (the soft one is lifted now) would cut short is left out whole.  errno
 * as found. */
static void say_pieces(struct iovec *iov, int n)
{
	struct rlimit lim;
	struct stat st;
	size_t len = 0;
	off_t at;
	int i, saved = errno;

	for (i = 0; i < n; i++)
		len += iov[i].iov_len;
	if (!say_open || fstat(2, &st) || st.st_dev != say_dev ||
	    st.st_ino != say_ino) {
		__atomic_add_fetch(&say_withheld, 1, __ATOMIC_RELAXED);
		n = 0;
	} else if (S_ISREG(st.st_mode) && !getrlimit(RLIMIT_FSIZE, &lim) &&
		   lim.rlim_cur != RLIM_INFINITY) {
		i = fcntl(2, F_GETFL);
		at = i >= 0 && (i & O_APPEND) ? st.st_size : lseek(2, 0, SEEK_CUR);
		if (at >= 0 && (rlim_t)at + len > lim.rlim_cur)
			n = 0;
	}
	while (n) {
		ssize_t k = writev(2, iov, n);

		if (k < 0 && errno == EINTR)
			continue;
		if (k <= 0)
			break;
		for (; n && (size_t)k >= iov->iov_len; iov++, n--)
			k -= (ssize_t)iov->iov_len;
		if (n) {
			iov->iov_base = (char *)iov->iov_base + k;
			iov->iov_len -= (size_t)k;
		}
	}
	errno = saved;
}

static void piece(struct iovec *iov, int *n, const char *s, size_t len)
{
	iov[*n].iov_base = (void *)s;
	iov[(*n)++].iov_len = len;
}

/* Every message on the program's stderr is written here, inside rt_io:
 * the program's soft RLIMIT_FSIZE does not cut it, and a SIGXFSZ or
 * SIGPIPE it raises is taken away, as for a profile.  One rt_io a
 * message, so messages of two threads never interleave. */
void rt_say(const char *s, ...)
{
	struct iovec iov[SAY_PIECES];
	struct rt_io io;
	va_list ap;
	int n = 0;

	rt_io_begin(&io);
	piece(iov, &n, "hpcrun: ", 8);
	va_start(ap, s);
	for (; s; s = va_arg(ap, const char *)) {
		if (n == SAY_PIECES - 1) {	/* a message of more pieces */
			say_pieces(iov, n);
			n = 0;
		}
		piece(iov, &n, s, strlen(s));
	}
	va_end(ap);
	piece(iov, &n, "\n", 1);
	say_pieces(iov, n);
	rt_io_end(&io);
}

void rt_say_lines(const char *text, size_t len)
{
	struct iovec iov[2];
	struct rt_io io;
	size_t i, start = 0;
	int n;

	rt_io_begin(&io);
	for (i = 0; i < len; i++)
		if (text[i] == '\n') {
			n = 0;
			piece(iov, &n, "hpcrun: ", 8);
			piece(iov, &n, text + start, i + 1 - start);
			say_pieces(iov, n);
			start = i + 1;
		}
	rt_io_end(&io);
}

void rt_say_lost(const char *path, int err, const char *what)
{
	const char *why = strerrordesc_np(err);

	rt_say("'", path, "': ", why ? why : "error", ": ", what, NULL);
}

struct side_job {
	void (*fill)(struct textrec_out *, void *);
	void *arg;
	char path[4400];
};

static int side_job(void *p)
{
	struct side_job *j = p;
	struct textrec_out *o = mmap(NULL, sizeof(*o), PROT_READ | PROT_WRITE,
				     MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	int fd, err;

	if (o == MAP_FAILED)
		return -ENOMEM;
	fd = rt_io_open(j->path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
	if (fd < 0) {
		err = -errno;
		munmap(o, sizeof(*o));
		return err;
	}
	textrec_out_init(o, fd);
	j->fill(o, j->arg);
	err = textrec_flush(o);
	if (close(fd) && !err)
		err = -errno;
	if (err)
		unlink(j->path);
	munmap(o, sizeof(*o));
	return err;
}

void rt_side_file(const char *profile, const char *suffix,
		  void (*fill)(struct textrec_out *o, void *arg), void *arg,
		  const char *what)
{
	struct side_job job;
	size_t len = strlen(profile), sl = strlen(suffix);
	int err;

	if (len < 7 || len - 7 + sl + 1 > sizeof(job.path) ||
	    strcmp(profile + len - 7, ".hpcrun"))
		return;
	job.fill = fill;
	job.arg = arg;
	memcpy(job.path, profile, len - 7);
	memcpy(job.path + len - 7, suffix, sl + 1);
	err = rt_io_private(side_job, &job);
	if (err) {
		rt_count_write_error();
		rt_say_lost(job.path, -err, what);
	}
}

size_t rt_file_path(char *path, int thread, unsigned gen, const char *suffix)
{
	size_t len, dl = strlen(rt_cfg.outdir), pl = strlen(rt_cfg.progname);

	if (pl > 200)
		pl = 200;
	if (dl + pl + 100 + strlen(suffix) > 4400)
		return 0;
	memcpy(path, rt_cfg.outdir, dl);
	len = dl;
	path[len++] = '/';
	memcpy(path + len, rt_cfg.progname, pl);
	len += pl;
	path[len++] = '-';
	len += rt_fmt_u64(path + len, rt_cfg.rank, 10, 6);
	path[len++] = '-';
	len += rt_fmt_u64(path + len, (uint64_t)thread, 10, 3);
	path[len++] = '-';
	len += rt_fmt_u64(path + len, rt_cfg.hostid, 16, 8);
	path[len++] = '-';
	len += rt_fmt_u64(path + len, (uint64_t)rt_pid, 10, 0);
	path[len++] = '-';
	len += rt_fmt_u64(path + len, gen, 10, 0);
	memcpy(path + len, suffix, strlen(suffix) + 1);
	return len + strlen(suffix);
}

int rt_create_file(int thread, const char *suffix, char *out, size_t size)
{
	char path[4400];
	unsigned gen;

	out[0] = '\0';
	for (gen = 0; gen < 1000; gen++) {
		size_t len = rt_file_path(path, thread, gen, suffix);
		int fd;

		if (!len || len >= size)
			return -ENAMETOOLONG;
		memcpy(out, path, len + 1);
		fd = rt_io_open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
		if (fd >= 0 || errno != EEXIST)
			return fd >= 0 ? fd : -errno;
	}
	return -EEXIST;
}

/* The process's limits while hpcrun writes: lifted by the first of its
 * calls that needs them, put back by the last one out, so hpcrun's calls
 * on several threads at once neither wait for each other nor put a limit
 * back under another one's write.  io_lock (futex.h) is held only for the
 * counts and the limits themselves, with signals blocked, and the
 * program's own setrlimit and prlimit take it too (rt_limit_set): a limit
 * the program sets while it is lifted is the one that stays.  A limit is
 * the process's, so the program's other threads see it lifted meanwhile:
 * RLIMIT_NOFILE is lifted for writes only when the soft limit is under
 * NOFILE_ROOM (hpcrun's files open in its fd threads' tables, numbered
 * from 0; a shell's soft 1024 under a hard one far above stays as it is),
 * RLIMIT_FSIZE only when the program made it finite. */
#define NOFILE_ROOM 16
static unsigned io_lock;
static struct lim {
	int res;
	unsigned users;		/* hpcrun's calls that need it lifted */
	int lifted;		/* by hpcrun, from old */
	struct rlimit old;
} lims[] = { { RLIMIT_FSIZE, 0, 0, { 0, 0 } },
	     { RLIMIT_NOFILE, 0, 0, { 0, 0 } } };

static struct lim *lim_of(int res)
{
	return res == RLIMIT_FSIZE ? &lims[0] : &lims[1];
}

static void io_lock_take(sigset_t *mask)
{
	rt_fd_block_signals(mask);
	rt_lock_take(&io_lock);
}

static void io_lock_drop(const sigset_t *mask)
{
	rt_lock_drop(&io_lock);
	rt_real_sigmask(SIG_SETMASK, mask, NULL);
}

/* prlimit(2) of the process itself, never through the wrappers below. */
static long sys_prlimit(int res, const struct rlimit *nl, struct rlimit *old)
{
	return syscall(SYS_prlimit64, 0, res, nl, old);
}

/* Lifts l's soft limit to the hard one when it is below need (and can
 * be); io_lock held. */
static void lift(struct lim *l, rlim_t need)
{
	struct rlimit now, nl;

	if (l->lifted || sys_prlimit(l->res, NULL, &now) ||
	    now.rlim_cur == RLIM_INFINITY || now.rlim_cur >= need ||
	    now.rlim_cur >= now.rlim_max)
		return;
	nl.rlim_cur = now.rlim_max;
	nl.rlim_max = now.rlim_max;
	if (!sys_prlimit(l->res, &nl, NULL)) {
		l->old = now;
		l->lifted = 1;
	}
}

/* Puts l back when lifted and no call of hpcrun's needs it; io_lock held.
 * A limit no longer at its lifted value was set by a call the wrappers
 * do not see (syscall(SYS_prlimit64)): it stays too. */
static void put_back(struct lim *l)
{
	struct rlimit now;

	if (l->users || !l->lifted)
		return;
	l->lifted = 0;
	if (!sys_prlimit(l->res, NULL, &now) &&
	    now.rlim_cur == l->old.rlim_max && now.rlim_max == l->old.rlim_max)
		sys_prlimit(l->res, &l->old, NULL);
}

void rt_limit_take(int res, rlim_t need)
{
	struct lim *l = lim_of(res);
	sigset_t mask;

	io_lock_take(&mask);
	l->users++;
	lift(l, need);
	io_lock_drop(&mask);
}

void rt_limit_drop(int res)
{
	struct lim *l = lim_of(res);
	sigset_t mask;

	io_lock_take(&mask);
	l->users--;
	put_back(l);
	io_lock_drop(&mask);
}

int rt_limit_set(pid_t pid, int res, const struct rlimit *nl,
		 struct rlimit *old)
{
	sigset_t mask;
	long r;
	int e;

	/* another process's, or none of hpcrun's writes to come (a sealed
	 * process makes no other system call than the program's own) */
	if ((pid && pid != rt_pid) || rt_sealed)
		return (int)syscall(SYS_prlimit64, pid, res, nl, old);
	io_lock_take(&mask);
	r = sys_prlimit(res, nl, old);
	e = errno;
	if (!r && nl && (res == RLIMIT_FSIZE || res == RLIMIT_NOFILE))
		lim_of(res)->lifted = 0;
	io_lock_drop(&mask);
	errno = e;
	return (int)r;
}

/* The program's own limits go through rt_limit_set; whether hpcrun is
 * active or not, they are the same system call. */
int setrlimit(__rlimit_resource_t res, const struct rlimit *rl)
{
	return rt_limit_set(0, (int)res, rl, NULL);
}

int setrlimit64(__rlimit_resource_t res, const struct rlimit64 *rl)
{
	return rt_limit_set(0, (int)res, (const struct rlimit *)rl, NULL);
}

int prlimit(pid_t pid, __rlimit_resource_t res, const struct rlimit *nl,
	    struct rlimit *old)
{
	return rt_limit_set(pid, (int)res, nl, old);
}

int prlimit64(pid_t pid, __rlimit_resource_t res, const struct rlimit64 *nl,
	      struct rlimit64 *old)
{
	return rt_limit_set(pid, (int)res, (const struct rlimit *)nl,
			    (struct rlimit *)old);
}

int rt_fsize_allow(uint64_t end)
{
	struct rlimit now;

	rt_limit_take(RLIMIT_FSIZE, (rlim_t)end);
	if (getrlimit(RLIMIT_FSIZE, &now) || now.rlim_cur == RLIM_INFINITY ||
	    now.rlim_cur >= end)
		return 0;
	rt_limit_drop(RLIMIT_FSIZE);
	return -EFBIG;
}

/* Both limits for a write, under one taking of the lock. */
static void limits_lift(void)
{
	struct lim *fs = lim_of(RLIMIT_FSIZE), *nf = lim_of(RLIMIT_NOFILE);
	sigset_t mask;

	io_lock_take(&mask);
	fs->users++;
	lift(fs, RLIM_INFINITY);
	nf->users++;
	lift(nf, NOFILE_ROOM);
	io_lock_drop(&mask);
}

static void limits_restore(void)
{
	struct lim *fs = lim_of(RLIMIT_FSIZE), *nf = lim_of(RLIMIT_NOFILE);
	sigset_t mask;

	io_lock_take(&mask);
	nf->users--;
	put_back(nf);
	fs->users--;
	put_back(fs);
	io_lock_drop(&mask);
}

int rt_io_open(const char *path, int flags, mode_t mode)
{
	int fd = open(path, flags, mode);
	sigset_t mask;

	if (fd >= 0 || errno != EMFILE)
		return fd;
	io_lock_take(&mask);
	if (lim_of(RLIMIT_NOFILE)->users)	/* inside the writes */
		lift(lim_of(RLIMIT_NOFILE), RLIM_INFINITY);
	io_lock_drop(&mask);
	return open(path, flags, mode);
}

void rt_io_after_fork(void)
{
	size_t i;

	say_withheld = 0;	/* the stderr of the start stays the one */
	io_lock = 0;		/* the parent's calls are not here */
	for (i = 0; i < sizeof(lims) / sizeof(lims[0]); i++) {
		lims[i].users = 0;
		put_back(&lims[i]);
	}
}

void rt_io_begin(struct rt_io *io)
{
	rt_fd_gate_lock(&io->mask);
	rt_sys_sigpending(&io->pending);
	limits_lift();
}

int rt_io_private(int (*fn)(void *), void *arg)
{
	sigset_t old;
	int err;

	rt_fd_block_signals(&old);
	limits_lift();
	err = rt_fd_private(fn, arg);
	limits_restore();
	rt_real_sigmask(SIG_SETMASK, &old, NULL);
	return err;
}

void rt_io_end(struct rt_io *io)
{
	/* what our writes raise: SIGXFSZ past the hard RLIMIT_FSIZE,
	 * SIGPIPE for a message to a stderr nobody reads */
	static const int raised[] = { SIGXFSZ, SIGPIPE };
	static const struct timespec zero;
	sigset_t pend, one;
	size_t i;

	limits_restore();
	rt_sys_sigpending(&pend);
	for (i = 0; i < sizeof(raised) / sizeof(raised[0]); i++)
		if (!sigismember(&io->pending, raised[i]) &&
		    sigismember(&pend, raised[i])) {
			sigemptyset(&one);
			sigaddset(&one, raised[i]);
			/* ours, not the program's; the kernel's, not
			 * the wrapper's (signals.c, THE SAMPLING SIGNAL, 8) */
			syscall(SYS_rt_sigtimedwait, &one, NULL, &zero,
				(size_t)(_NSIG / 8));
		}
	rt_fd_gate_unlock(&io->mask);
}

/* Appends a record of type to the proc file fd: fixed bytes of a, then
 * the strings s1 and s2 with their NULs (hpcrun-live.h). */
static void proc_record(int fd, uint32_t type, const void *a, size_t alen,
			const char *s1, const char *s2)
{
	unsigned char rec[8600];
	size_t l1 = strlen(s1) + 1, l2 = strlen(s2) + 1;
	uint32_t len = (uint32_t)(alen + l1 + l2);

	if (8 + alen + l1 + l2 > sizeof(rec))
		return;
	memcpy(rec, &type, 4);
	memcpy(rec + 4, &len, 4);
	memcpy(rec + 8, a, alen);
	memcpy(rec + 8 + alen, s1, l1);
	memcpy(rec + 8 + alen + l1, s2, l2);
	if (write(fd, rec, 8 + len) < 0)
		return;		/* the records before stay whole */
}

void rt_live_proc_modules(void)
{
	const struct rt_module *const *mods;
	struct rt_io io;
	size_t n, i;
	int fd;

	if (!proc_path[0])
		return;
	rt_io_begin(&io);
	mods = rt_module_all(&n);
	if (n > proc_modules && proc_path[0] &&
	    (fd = rt_io_open(proc_path, O_WRONLY | O_APPEND | O_CLOEXEC, 0)) >= 0) {
		for (i = proc_modules; i < n; i++)
			proc_record(fd, HPCRUN_LIVE_REC_MODULE, &mods[i]->id,
				    sizeof(mods[i]->id), mods[i]->path,
				    mods[i]->buildid);
		proc_modules = n;
		close(fd);
	}
	rt_io_end(&io);
}

void rt_live_proc_begin(void)
{
	struct hpcrun_kv hdr[RT_NHEADER];
	struct hpcrun_metric met[RT_MAX_METRICS];
	char num[4][24];
	struct rt_io io;
	size_t i, n;
	int fd;

	proc_modules = 0;
	rt_io_begin(&io);
	fd = rt_create_file(0, HPCRUN_LIVE_PROC_SUFFIX, proc_path, sizeof(proc_path));
	if (fd >= 0) {
		if (write(fd, HPCRUN_LIVE_PROC_MAGIC, 16) == 16) {
			n = rt_profile_header(hdr, num, -1);
			for (i = 0; i < n; i++)
				proc_record(fd, HPCRUN_LIVE_REC_HEADER, "", 0,
					    hdr[i].name, hdr[i].value);
			rt_profile_metrics(met, NULL);
			for (i = 0; i < (size_t)rt_nmetrics(); i++) {
				struct hpcrun_live_metric m;

				memset(&m, 0, sizeof(m));
				m.period = met[i].period;
				m.threshold = met[i].threshold;
				m.is_frequency = met[i].is_frequency;
				memcpy(m.flags, met[i].flags, sizeof(m.flags));
				proc_record(fd, HPCRUN_LIVE_REC_METRIC, &m, sizeof(m),
					    met[i].name, met[i].description);
			}
		}
		close(fd);
	} else {
		proc_path[0] = '\0';
	}
	rt_io_end(&io);
	rt_live_proc_modules();
}

void rt_live_proc_end(int drop)
{
	if (drop && proc_path[0])
		unlink(proc_path);
	proc_path[0] = '\0';
}

/* Header pairs: the eleven HPCToolkit writes, then a build-id-ID pair for
 * each module with samples and a build ID (buildid.h). */
#define BUILDID_NAME_SIZE (sizeof(HPC_BUILDID_HEADER) + 8)

/* Preorder successor of n within the forest rooted at n's top ancestor. */
static struct cct_node *next_preorder(struct cct_node *n)
{
	if (n->child)
		return n->child;
	while (n) {
		if (n->sibling)
			return n->sibling;
		n = n->parent;
	}
	return NULL;
}

/* mmap'ed scratch; returns NULL on failure. */
static void *scratch(size_t bytes)
{
	void *p = mmap(NULL, bytes ? bytes : 1, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	return p == MAP_FAILED ? NULL : p;
}

/* Creates the profile: the live file's name with .hpcrun, or a new one
 * when there is no live file; the fd or -errno, its name in path. */
static int open_profile(const struct cct *c, int thread, char *path, size_t size)
{
	size_t n = strlen(c->path), k = sizeof(HPCRUN_LIVE_SUFFIX) - 1;
	int fd;

	if (!c->path[0])
		return rt_create_file(thread, ".hpcrun", path, size);
	if (n - k + sizeof(".hpcrun") > size)
		return -ENAMETOOLONG;
	memcpy(path, c->path, n - k);
	memcpy(path + n - k, ".hpcrun", sizeof(".hpcrun"));
	fd = rt_io_open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
	return fd >= 0 ? fd : -errno;
}

size_t rt_profile_header(struct hpcrun_kv *hdr, char num[4][24], int thread)
{
	num[0][0] = '\0';
	if (thread >= 0)
		rt_fmt_u64(num[0], (uint64_t)thread, 10, 0);
	rt_fmt_u64(num[1], rt_cfg.hostid, 16, 8);
	rt_fmt_u64(num[2], (uint64_t)rt_pid, 10, 0);
	rt_fmt_u64(num[3], rt_cfg.rank, 10, 0);
	hdr[0] = (struct hpcrun_kv){ "program-name", rt_cfg.progname };
	hdr[1] = (struct hpcrun_kv){ "program-path", rt_cfg.exe };
	hdr[2] = (struct hpcrun_kv){ "env-path", rt_env_path };
	hdr[3] = (struct hpcrun_kv){ "job-id", "" };
	hdr[4] = (struct hpcrun_kv){ "mpi-rank", num[3] };
	hdr[5] = (struct hpcrun_kv){ "thread-id", num[0] };
	hdr[6] = (struct hpcrun_kv){ "host-id", num[1] };
	hdr[7] = (struct hpcrun_kv){ "process-id", num[2] };
	hdr[8] = (struct hpcrun_kv){ "trace-min-time", "0" };
	hdr[9] = (struct hpcrun_kv){ "trace-max-time", "0" };
	hdr[10] = (struct hpcrun_kv){ "trace-disorder", "0" };
	return RT_NHEADER;
}

void rt_profile_metrics(struct hpcrun_metric *met, const uint64_t *ns)
{
	static const uint8_t flags[16] = { 1, 0, 2, 0, 0, 0, 1, 1 };
	/* integers, shown without percentages */
	static const uint8_t data_flags[16] = { 1, 0, 1, 0, 0, 0, 1, 0 };
	static const char *const data_name[RT_DATA_NMETRICS][2] = {
		{ "DATA:bytes", "bytes allocated (data object)" },
		{ "DATA:blocks", "blocks allocated (data object)" },
		{ "DATA:offset-lo", "lowest byte offset accessed + 1" },
		{ "DATA:offset-hi", "highest byte offset accessed + size" },
	};
	int e, k;

	memset(met, 0, (size_t)rt_nmetrics() * sizeof(*met));
	for (e = 0; e < rt_cfg.nev; e++) {
		const struct rt_event *ev = &rt_cfg.ev[e];

		met[e].name = ev->metric;
		met[e].description = ev->desc;
		memcpy(met[e].flags, flags, sizeof(flags));
		met[e].period = ev->metric_period;
		met[e].formula = "";
		met[e].format = "";
		met[e].is_frequency = (uint16_t)ev->is_frequency;
		met[e].threshold = ev->threshold;
		met[e].nsamples = ns ? ns[e] : 0;
	}
	for (k = 0; e < rt_nmetrics(); e++, k++) {
		met[e].name = data_name[k][0];
		met[e].description = data_name[k][1];
		memcpy(met[e].flags, data_flags, sizeof(data_flags));
		met[e].period = 1;
		met[e].formula = "";
		met[e].format = "";
	}
}

/* Is n a variable node (a child of "^Static ")? */
static int is_variable(const struct cct *c, const struct cct_node *n)
{
	return n->parent && n->parent == c->xroot[CCT_STATIC];
}

int rt_profile_write(struct rt_thread *td, char *path, size_t size)
{
	struct cct *c = &td->cct;
	struct hpcrun_profile p;
	struct hpcrun_kv *hdr;
	struct hpcrun_metric met[RT_MAX_METRICS];
	struct hpcrun_idkind_name idk[HPCRUN_NIDKINDS];
	struct hpcrun_id_elem tuple[3];
	struct cct_node *roots[3 + CCT_NXROOTS];
	char num[4][24], dnum[3][24];
	struct hpcrun_kv dkv[3];
	size_t ndkv = 0, nroots = 0;
	int nm = rt_nmetrics();
	const struct rt_module *const *mods;
	struct cct_node *n;
	size_t nmods, i, bytes, nvals = 0, nctx = 0, nnodes = 0;
	unsigned char *used;
	char *mem, *names;
	int fd, err, e;

	path[0] = '\0';
	if (!c->hdr)
		return -EINVAL;
	mods = rt_module_all(&nmods);
	if (td->data)
		ndkv = rt_data_profile(td, dkv, dnum);
	roots[nroots++] = c->primary;
	if (c->partial->child)
		roots[nroots++] = c->partial;	/* no failed unwinds: no "^Partial" */
	if (c->phases && c->phases->child)
		roots[nroots++] = c->phases;
	for (i = 0; i < CCT_NXROOTS; i++)
		if (c->xroot[i])
			roots[nroots++] = c->xroot[i];
	for (i = 0; i < nroots; i++)
		for (n = roots[i]; n; n = next_preorder(n))
			for (e = 0; e < nm; e++)
				nvals += n->val[e] != 0;
	bytes = c->nnodes * sizeof(struct hpcrun_node) +
		nvals * sizeof(struct hpcrun_value) +
		c->nnodes * sizeof(struct hpcrun_ctx_values) +
		nmods * sizeof(struct hpcrun_lm) +
		(RT_NHEADER + 3 + nmods) * sizeof(struct hpcrun_kv) + nmods + 2 +
		nmods * BUILDID_NAME_SIZE;
	mem = scratch(bytes);
	if (!mem)
		return -ENOMEM;
	memset(&p, 0, sizeof(p));
	p.nodes = (struct hpcrun_node *)(void *)mem;
	p.values = (struct hpcrun_value *)(void *)(p.nodes + c->nnodes);
	p.ctxs = (struct hpcrun_ctx_values *)(void *)(p.values + nvals);
	p.lms = (struct hpcrun_lm *)(void *)(p.ctxs + c->nnodes);
	hdr = (struct hpcrun_kv *)(void *)(p.lms + nmods);
	used = (unsigned char *)(hdr + RT_NHEADER + 3 + nmods);
	names = (char *)used + nmods + 2;
	rt_profile_metrics(met, td->nsamples);	/* the data metrics are integers */
	nvals = 0;
	for (i = 0; i < nroots; i++) {
		for (n = roots[i]; n; n = next_preorder(n)) {
			struct hpcrun_node *o = &p.nodes[nnodes++];
			int any = 0;

			o->id = n->id;
			o->parent = n->parent ? n->parent->id : 0;
			o->lm = n->lm;
			o->addr = n->addr;
			o->flags = is_variable(c, n) ? HPCRUN_NODE_VARIABLE :
				   HPCRUN_NODE_UNWOUND;
			if (n->lm && n->lm <= nmods)
				used[n->lm] = 1;
			for (e = 0; e < nm; e++) {
				if (n->val[e] == 0)
					continue;
				if (!any) {
					p.ctxs[nctx].ctx = n->id;
					p.ctxs[nctx++].first = nvals;
					any = 1;
				}
				p.values[nvals].metric = (uint16_t)e;
				p.values[nvals++].bits =
					hpcrun_value_bits(&met[e], n->val[e]);
			}
		}
	}
	p.nnodes = nnodes;
	p.nvalues = nvals;
	p.nctxs = (uint32_t)nctx;
	for (i = 0; i < nmods; i++) {
		p.lms[i].id = mods[i]->id;
		p.lms[i].path = mods[i]->path;
		p.lms[i].flags = used[mods[i]->id] ? HPCRUN_LM_ANALYZE : 0;
	}
	p.nlms = nmods;
	p.header = hdr;
	p.nheader = rt_profile_header(hdr, num, td->index);
	for (i = 0; i < ndkv; i++)
		hdr[p.nheader++] = dkv[i];
	for (i = 0; i < nmods; i++) {
		char *name = names + i * BUILDID_NAME_SIZE;

		if (!used[mods[i]->id] || !mods[i]->buildid[0])
			continue;
		memcpy(name, HPC_BUILDID_HEADER, sizeof(HPC_BUILDID_HEADER) - 1);
		rt_fmt_u64(name + sizeof(HPC_BUILDID_HEADER) - 1, mods[i]->id,
			   10, 0);
		hdr[p.nheader++] = (struct hpcrun_kv){ name, mods[i]->buildid };
	}
	p.metrics = met;
	p.nmetrics = (uint32_t)nm;
	hpcrun_fmt_identity(&p, idk, tuple, rt_cfg.hostid, (uint64_t)td->index);

	fd = open_profile(c, td->index, path, size);
	if (fd < 0) {
		munmap(mem, bytes ? bytes : 1);
		return fd;
	}
	err = hpcrun_fmt_write(fd, &p);
	if (close(fd) && !err)
		err = -errno;
	if (err)
		unlink(path);	/* no file pretending to be a profile */
	munmap(mem, bytes ? bytes : 1);
	return err;
}
