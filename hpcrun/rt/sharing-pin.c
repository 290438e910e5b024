/*
 * sharing-pin.c - the calls that hand a buffer to the kernel, wrapped for
 * hpcrun --sharing (exported through libhpcrun.map): the watched pages of
 * the buffer are pinned read-write around the real call (sharing.h,
 * invariant 5), so the kernel never meets a page hpcrun protected and the
 * call never fails with EFAULT where it would not have without hpcrun.
 *
 *   read, write, pread, pwrite, pread64, pwrite64, readv, writev,
 *   recv, recvfrom, recvmsg, send, sendto, sendmsg   the buffers (and a
 *                       message's name and control data)
 *   fread, fwrite       the buffer and the stream's own buffer
 *   poll, select, epoll_wait, pipe, pipe2, waitpid, nanosleep,
 *   clock_nanosleep, accept, getsockopt   what the kernel writes back
 *                       (the array, sets, status, ...)
 *   stat, lstat, fstat, fstatat, statx and the 64 forms (what programs
 *   built with _FILE_OFFSET_BITS=64 call)   the struct written back and
 *                       the path read (the PATH_MAX bytes from its start:
 *                       its length is not known without reading it)
 *   mprotect            the program protects memory itself: its pages
 *                       leave the watch first (sharing.h, invariant 4)
 *
 * Invariants:
 *  1. Without --sharing every wrapper is one test and the real call.
 *  2. errno is the real call's; a pin taken is always given back, but when
 *     the thread is cancelled inside the call (its pages then stay open:
 *     unwatched, never wrong).
 */
#include <errno.h>
#include <limits.h>
#include <poll.h>
#include <stdio.h>
#include <sys/epoll.h>
#include <sys/mman.h>
#include <sys/select.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "interpose.h"
#include "runtime.h"
#include "sharing.h"

/* A wrapper hands the program's arguments on as they came; gcc would
 * check them against the access attributes glibc gives the real
 * functions' types (RT_REAL has the wrapper's type) as if hpcrun had
 * made them up. */
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#pragma GCC diagnostic ignored "-Wnonnull"

/* The real functions passed to the helpers shared by two forms (the
 * forms differ in const or in 64, not in what they do). */
typedef ssize_t (*prw_fn)(int, void *, size_t, off_t);
typedef ssize_t (*iov_fn)(int, const struct iovec *, int);
typedef ssize_t (*msg_fn)(int, void *, int);
typedef size_t (*stdio_fn)(void *, size_t, size_t, FILE *);
typedef int (*fstat_fn)(int, void *);
typedef int (*stat_fn)(const char *, void *);
typedef int (*fstatat_fn)(int, const char *, void *, int);

RT_REAL_DEFINE(read);
RT_REAL_DEFINE(write);
RT_REAL_DEFINE(pread);
RT_REAL_DEFINE(pwrite);
RT_REAL_DEFINE(pread64);
RT_REAL_DEFINE(pwrite64);
RT_REAL_DEFINE(readv);
RT_REAL_DEFINE(writev);
RT_REAL_DEFINE(recvfrom);
RT_REAL_DEFINE(sendto);
RT_REAL_DEFINE(recvmsg);
RT_REAL_DEFINE(sendmsg);
RT_REAL_DEFINE(fread);
RT_REAL_DEFINE(fwrite);
RT_REAL_DEFINE(mprotect);
RT_REAL_DEFINE(poll);
RT_REAL_DEFINE(select);
RT_REAL_DEFINE(epoll_wait);
RT_REAL_DEFINE(pipe);
RT_REAL_DEFINE(pipe2);
RT_REAL_DEFINE(waitpid);
RT_REAL_DEFINE(fstat);
RT_REAL_DEFINE(fstat64);
RT_REAL_DEFINE(fstatat);
RT_REAL_DEFINE(fstatat64);
RT_REAL_DEFINE(statx);
RT_REAL_DEFINE(nanosleep);
RT_REAL_DEFINE(clock_nanosleep);
RT_REAL_DEFINE(accept);
RT_REAL_DEFINE(getsockopt);

/* r, the result of a real call made with the buffer pinned: the pin
 * given back, errno kept. */
#define UNPIN_RETURN(p, n, r) \
	do { \
		int err_ = errno; \
		rt_sharing_unpin(p, n); \
		errno = err_; \
		return r; \
	} while (0)

/* Returns the result of call, made with [p, p+n) pinned under --sharing. */
#define RETURN_PINNED(p, n, call) \
	do { \
		__typeof__(call) r_; \
		if (!rt_sharing.on) \
			return call; \
		rt_sharing_pin(p, n); \
		r_ = call; \
		UNPIN_RETURN(p, n, r_); \
	} while (0)

RT_API ssize_t read(int fd, void *buf, size_t n)
{
	RETURN_PINNED(buf, n, RT_REAL(read)(fd, buf, n));
}

RT_API ssize_t write(int fd, const void *buf, size_t n)
{
	RETURN_PINNED(buf, n, RT_REAL(write)(fd, buf, n));
}

/* pread, pwrite and their 64 forms (off_t is 64 bits here). */
static ssize_t prw(prw_fn fn, int fd, void *buf, size_t n, off_t off)
{
	RETURN_PINNED(buf, n, fn(fd, buf, n, off));
}

RT_API ssize_t pread(int fd, void *buf, size_t n, off_t off)
{
	return prw(RT_REAL(pread), fd, buf, n, off);
}

RT_API ssize_t pwrite(int fd, const void *buf, size_t n, off_t off)
{
	return prw((prw_fn)RT_REAL(pwrite), fd, (void *)(uintptr_t)buf, n, off);
}

RT_API ssize_t pread64(int fd, void *buf, size_t n, off_t off);
RT_API ssize_t pread64(int fd, void *buf, size_t n, off_t off)
{
	return prw(RT_REAL(pread64), fd, buf, n, off);
}

RT_API ssize_t pwrite64(int fd, const void *buf, size_t n, off_t off);
RT_API ssize_t pwrite64(int fd, const void *buf, size_t n, off_t off)
{
	return prw((prw_fn)RT_REAL(pwrite64), fd, (void *)(uintptr_t)buf, n, off);
}

static void pin_iov(const struct iovec *v, int n, int pin)
{
	int i;

	for (i = 0; v && i < n; i++)
		(pin ? rt_sharing_pin : rt_sharing_unpin)(v[i].iov_base, v[i].iov_len);
}

static ssize_t iov(iov_fn fn, int fd, const struct iovec *v, int n)
{
	ssize_t r;
	int err;

	if (!rt_sharing.on)
		return fn(fd, v, n);
	pin_iov(v, n, 1);
	r = fn(fd, v, n);
	err = errno;
	pin_iov(v, n, 0);
	errno = err;
	return r;
}

RT_API ssize_t readv(int fd, const struct iovec *v, int n)
{
	return iov(RT_REAL(readv), fd, v, n);
}

RT_API ssize_t writev(int fd, const struct iovec *v, int n)
{
	return iov(RT_REAL(writev), fd, v, n);
}

/* recv and send are recvfrom and sendto without an address. */
RT_API ssize_t recv(int fd, void *buf, size_t n, int flags)
{
	RETURN_PINNED(buf, n, RT_REAL(recvfrom)(fd, buf, n, flags, NULL, NULL));
}

RT_API ssize_t send(int fd, const void *buf, size_t n, int flags)
{
	RETURN_PINNED(buf, n, RT_REAL(sendto)(fd, buf, n, flags, NULL, 0));
}

RT_API ssize_t recvfrom(int fd, void *buf, size_t n, int flags,
			struct sockaddr *addr, socklen_t *alen)
{
	RETURN_PINNED(buf, n, RT_REAL(recvfrom)(fd, buf, n, flags, addr, alen));
}

RT_API ssize_t sendto(int fd, const void *buf, size_t n, int flags,
		      const struct sockaddr *addr, socklen_t alen)
{
	RETURN_PINNED(buf, n, RT_REAL(sendto)(fd, buf, n, flags, addr, alen));
}

static ssize_t msg(msg_fn fn, int fd, struct msghdr *m, int flags)
{
	ssize_t r;
	int err;

	if (!rt_sharing.on || !m)
		return fn(fd, m, flags);
	pin_iov(m->msg_iov, (int)m->msg_iovlen, 1);
	rt_sharing_pin(m->msg_name, m->msg_namelen);
	rt_sharing_pin(m->msg_control, m->msg_controllen);
	r = fn(fd, m, flags);
	err = errno;
	pin_iov(m->msg_iov, (int)m->msg_iovlen, 0);
	rt_sharing_unpin(m->msg_name, m->msg_namelen);
	rt_sharing_unpin(m->msg_control, m->msg_controllen);
	errno = err;
	return r;
}

RT_API ssize_t recvmsg(int fd, struct msghdr *m, int flags)
{
	return msg((msg_fn)RT_REAL(recvmsg), fd, m, flags);
}

RT_API ssize_t sendmsg(int fd, const struct msghdr *m, int flags)
{
	return msg((msg_fn)RT_REAL(sendmsg), fd, (struct msghdr *)(uintptr_t)m, flags);
}

static size_t stdio(stdio_fn fn, void *p, size_t size, size_t n, FILE *f)
{
	size_t r, bytes = size * n, fb = 0;
	char *base = NULL;
	int err;

	if (!rt_sharing.on || !f)
		return fn(p, size, n, f);
	if (f->_IO_buf_base && f->_IO_buf_end > f->_IO_buf_base) {
		base = f->_IO_buf_base;
		fb = (size_t)(f->_IO_buf_end - base);
	}
	rt_sharing_pin(p, bytes);
	rt_sharing_pin(base, fb);
	r = fn(p, size, n, f);
	err = errno;
	rt_sharing_unpin(p, bytes);
	rt_sharing_unpin(base, fb);
	errno = err;
	return r;
}

RT_API size_t fread(void *p, size_t size, size_t n, FILE *f)
{
	return stdio(RT_REAL(fread), p, size, n, f);
}

RT_API size_t fwrite(const void *p, size_t size, size_t n, FILE *f)
{
	return stdio((stdio_fn)RT_REAL(fwrite), (void *)(uintptr_t)p, size, n, f);
}

/* ---- calls the kernel writes results back through ---- */

/* Up to four buffers of one call, pinned around it. */
struct pins {
	const void *p[4];
	size_t n[4];
	int k;
};

static void pins_add(struct pins *s, const void *p, size_t n)
{
	if (p && n && s->k < 4) {
		s->p[s->k] = p;
		s->n[s->k++] = n;
	}
}

static void pins_take(const struct pins *s)
{
	int i;

	for (i = 0; i < s->k; i++)
		rt_sharing_pin(s->p[i], s->n[i]);
}

/* r, the call's result, after the pins are given back (errno kept). */
static long pins_give(const struct pins *s, long r)
{
	int i, err = errno;

	for (i = 0; i < s->k; i++)
		rt_sharing_unpin(s->p[i], s->n[i]);
	errno = err;
	return r;
}

RT_API int poll(struct pollfd *f, nfds_t n, int timeout)
{
	struct pins s = { .k = 0 };

	if (!rt_sharing.on)
		return RT_REAL(poll)(f, n, timeout);
	pins_add(&s, f, n * sizeof(*f));
	pins_take(&s);
	return (int)pins_give(&s, RT_REAL(poll)(f, n, timeout));
}

RT_API int select(int n, fd_set *r, fd_set *w, fd_set *e, struct timeval *t)
{
	struct pins s = { .k = 0 };

	if (!rt_sharing.on)
		return RT_REAL(select)(n, r, w, e, t);
	pins_add(&s, r, sizeof(*r));
	pins_add(&s, w, sizeof(*w));
	pins_add(&s, e, sizeof(*e));
	pins_add(&s, t, sizeof(*t));
	pins_take(&s);
	return (int)pins_give(&s, RT_REAL(select)(n, r, w, e, t));
}

RT_API int epoll_wait(int fd, struct epoll_event *ev, int n, int timeout)
{
	struct pins s = { .k = 0 };

	if (!rt_sharing.on || n <= 0)
		return RT_REAL(epoll_wait)(fd, ev, n, timeout);
	pins_add(&s, ev, (size_t)n * sizeof(*ev));
	pins_take(&s);
	return (int)pins_give(&s, RT_REAL(epoll_wait)(fd, ev, n, timeout));
}

RT_API int pipe(int fd[2])
{
	struct pins s = { .k = 0 };

	if (!rt_sharing.on)
		return RT_REAL(pipe)(fd);
	pins_add(&s, fd, 2 * sizeof(int));
	pins_take(&s);
	return (int)pins_give(&s, RT_REAL(pipe)(fd));
}

RT_API int pipe2(int fd[2], int flags)
{
	struct pins s = { .k = 0 };

	if (!rt_sharing.on)
		return RT_REAL(pipe2)(fd, flags);
	pins_add(&s, fd, 2 * sizeof(int));
	pins_take(&s);
	return (int)pins_give(&s, RT_REAL(pipe2)(fd, flags));
}

RT_API pid_t waitpid(pid_t pid, int *status, int options)
{
	struct pins s = { .k = 0 };

	if (!rt_sharing.on)
		return RT_REAL(waitpid)(pid, status, options);
	pins_add(&s, status, sizeof(*status));
	pins_take(&s);
	return (pid_t)pins_give(&s, RT_REAL(waitpid)(pid, status, options));
}

/* fstat and fstat64 (struct stat64 is struct stat here). */
static int fstat_pinned(fstat_fn fn, int fd, void *st)
{
	struct pins s = { .k = 0 };

	if (!rt_sharing.on)
		return fn(fd, st);
	pins_add(&s, st, sizeof(struct stat));
	pins_take(&s);
	return (int)pins_give(&s, fn(fd, st));
}

RT_API int fstat(int fd, struct stat *st)
{
	return fstat_pinned((fstat_fn)RT_REAL(fstat), fd, st);
}

RT_API int fstat64(int fd, struct stat64 *st)
{
	return fstat_pinned((fstat_fn)RT_REAL(fstat64), fd, st);
}

/* stat, lstat and their 64 forms. */
static int stat_pinned(stat_fn fn, const char *path, void *st)
{
	struct pins s = { .k = 0 };

	if (!rt_sharing.on)
		return fn(path, st);
	pins_add(&s, path, PATH_MAX);
	pins_add(&s, st, sizeof(struct stat));
	pins_take(&s);
	return (int)pins_give(&s, fn(path, st));
}

/* One exported form of stat: NAME(path, TYPE *st). */
#define STAT_FORM(name, type) \
	RT_REAL_DEFINE(name); \
	RT_API int name(const char *path, type *st) \
	{ \
		return stat_pinned((stat_fn)RT_REAL(name), path, st); \
	}

STAT_FORM(stat, struct stat)
STAT_FORM(lstat, struct stat)
STAT_FORM(stat64, struct stat64)
STAT_FORM(lstat64, struct stat64)

/* fstatat and fstatat64. */
static int fstatat_pinned(fstatat_fn fn, int dirfd, const char *path,
			  void *st, int flags)
{
	struct pins s = { .k = 0 };

	if (!rt_sharing.on)
		return fn(dirfd, path, st, flags);
	pins_add(&s, path, PATH_MAX);
	pins_add(&s, st, sizeof(struct stat));
	pins_take(&s);
	return (int)pins_give(&s, fn(dirfd, path, st, flags));
}

RT_API int fstatat(int dirfd, const char *path, struct stat *st, int flags)
{
	return fstatat_pinned((fstatat_fn)RT_REAL(fstatat), dirfd, path, st, flags);
}

RT_API int fstatat64(int dirfd, const char *path, struct stat64 *st,
		     int flags)
{
	return fstatat_pinned((fstatat_fn)RT_REAL(fstatat64), dirfd, path, st, flags);
}

RT_API int statx(int dirfd, const char *path, int flags, unsigned mask,
		 struct statx *st)
{
	struct pins s = { .k = 0 };

	if (!rt_sharing.on)
		return RT_REAL(statx)(dirfd, path, flags, mask, st);
	pins_add(&s, path, PATH_MAX);
	pins_add(&s, st, sizeof(*st));
	pins_take(&s);
	return (int)pins_give(&s, RT_REAL(statx)(dirfd, path, flags, mask, st));
}

RT_API int nanosleep(const struct timespec *t, struct timespec *rem)
{
	struct pins s = { .k = 0 };

	if (!rt_sharing.on)
		return RT_REAL(nanosleep)(t, rem);
	pins_add(&s, t, sizeof(*t));
	pins_add(&s, rem, sizeof(*rem));
	pins_take(&s);
	return (int)pins_give(&s, RT_REAL(nanosleep)(t, rem));
}

RT_API int clock_nanosleep(clockid_t c, int flags, const struct timespec *t,
			   struct timespec *rem)
{
	struct pins s = { .k = 0 };

	if (!rt_sharing.on)
		return RT_REAL(clock_nanosleep)(c, flags, t, rem);
	pins_add(&s, t, sizeof(*t));
	pins_add(&s, rem, sizeof(*rem));
	pins_take(&s);
	return (int)pins_give(&s, RT_REAL(clock_nanosleep)(c, flags, t, rem));
}

RT_API int accept(int fd, struct sockaddr *a, socklen_t *len)
{
	struct pins s = { .k = 0 };

	if (!rt_sharing.on)
		return RT_REAL(accept)(fd, a, len);
	if (len) {
		pins_add(&s, len, sizeof(*len));
		pins_add(&s, a, *len);
	}
	pins_take(&s);
	return (int)pins_give(&s, RT_REAL(accept)(fd, a, len));
}

RT_API int getsockopt(int fd, int level, int name, void *v, socklen_t *len)
{
	struct pins s = { .k = 0 };

	if (!rt_sharing.on)
		return RT_REAL(getsockopt)(fd, level, name, v, len);
	if (len) {
		pins_add(&s, len, sizeof(*len));
		pins_add(&s, v, *len);
	}
	pins_take(&s);
	return (int)pins_give(&s, RT_REAL(getsockopt)(fd, level, name, v, len));
}

RT_API int mprotect(void *p, size_t n, int prot)
{
	if (rt_sharing.on && n) {
		int err = errno;

		rt_sharing_forget((uintptr_t)p, (uintptr_t)p + n);
		errno = err;
	}
	return RT_REAL(mprotect)(p, n, prot);
}
