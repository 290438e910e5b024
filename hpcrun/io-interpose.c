/*
 * io-interpose.c - the calls that hand a buffer to the kernel, wrapped for
 * hpcrun --sharing (exported through libhpcrun.map): the watched pages of
 * the buffer are pinned read-write around the real call (sharing.h,
 * invariant 5), so the kernel never meets a page hpcrun protected and the
 * call never fails with EFAULT where it would not have without hpcrun.
 *
 *   read, write, pread, pwrite, pread64, pwrite64, readv, writev,
 *   recv, recvfrom, recvmsg, send, sendto, sendmsg   the buffers (and a
 *                       message's name and control data)
 *   fread, fwrite       the buffer and the stream's own buffer
 *   mprotect            the program protects memory itself: its pages
 *                       leave the watch first (sharing.h, invariant 4)
 *
 * Invariants:
 *  1. Without --sharing every wrapper is one test and the real call.
 *  2. errno is the real call's; a pin taken is always given back, but when
 *     the thread is cancelled inside the call (its pages then stay open:
 *     unwatched, never wrong).
 */
#include <dlfcn.h>
#include <errno.h>
#include <stdio.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <unistd.h>

#include "runtime.h"
#include "sharing.h"

typedef ssize_t (*rw_fn)(int, void *, size_t);
typedef ssize_t (*prw_fn)(int, void *, size_t, off_t);
typedef ssize_t (*iov_fn)(int, const struct iovec *, int);
typedef ssize_t (*srto_fn)(int, void *, size_t, int, void *, void *);
typedef ssize_t (*msg_fn)(int, void *, int);
typedef size_t (*stdio_fn)(void *, size_t, size_t, FILE *);
typedef int (*mprotect_fn)(void *, size_t, int);

static struct {
	rw_fn read, write;
	prw_fn pread, pwrite, pread64, pwrite64;
	iov_fn readv, writev;
	srto_fn recvfrom, sendto;
	msg_fn recvmsg, sendmsg;
	stdio_fn fread, fwrite;
	mprotect_fn mprotect;
} real;

#define REAL(field, name) \
	do { \
		if (!real.field) \
			*(void **)&real.field = dlsym(RTLD_NEXT, name); \
	} while (0)

/* r, the result of a real call made with the buffer pinned: the pin
 * given back, errno kept. */
#define UNPIN_RETURN(p, n, r) \
	do { \
		int err_ = errno; \
		rt_sharing_unpin(p, n); \
		errno = err_; \
		return r; \
	} while (0)

RT_API ssize_t read(int fd, void *buf, size_t n)
{
	ssize_t r;

	REAL(read, "read");
	if (!rt_sharing.on)
		return real.read(fd, buf, n);
	rt_sharing_pin(buf, n);
	r = real.read(fd, buf, n);
	UNPIN_RETURN(buf, n, r);
}

RT_API ssize_t write(int fd, const void *buf, size_t n)
{
	ssize_t r;

	REAL(write, "write");
	if (!rt_sharing.on)
		return real.write(fd, (void *)(uintptr_t)buf, n);
	rt_sharing_pin(buf, n);
	r = real.write(fd, (void *)(uintptr_t)buf, n);
	UNPIN_RETURN(buf, n, r);
}

/* pread, pwrite and their 64 forms (off_t is 64 bits here). */
static ssize_t prw(prw_fn fn, int fd, void *buf, size_t n, off_t off)
{
	ssize_t r;

	if (!rt_sharing.on)
		return fn(fd, buf, n, off);
	rt_sharing_pin(buf, n);
	r = fn(fd, buf, n, off);
	UNPIN_RETURN(buf, n, r);
}

RT_API ssize_t pread(int fd, void *buf, size_t n, off_t off)
{
	REAL(pread, "pread");
	return prw(real.pread, fd, buf, n, off);
}

RT_API ssize_t pwrite(int fd, const void *buf, size_t n, off_t off)
{
	REAL(pwrite, "pwrite");
	return prw(real.pwrite, fd, (void *)(uintptr_t)buf, n, off);
}

RT_API ssize_t pread64(int fd, void *buf, size_t n, off_t off);
RT_API ssize_t pread64(int fd, void *buf, size_t n, off_t off)
{
	REAL(pread64, "pread64");
	return prw(real.pread64, fd, buf, n, off);
}

RT_API ssize_t pwrite64(int fd, const void *buf, size_t n, off_t off);
RT_API ssize_t pwrite64(int fd, const void *buf, size_t n, off_t off)
{
	REAL(pwrite64, "pwrite64");
	return prw(real.pwrite64, fd, (void *)(uintptr_t)buf, n, off);
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
	REAL(readv, "readv");
	return iov(real.readv, fd, v, n);
}

RT_API ssize_t writev(int fd, const struct iovec *v, int n)
{
	REAL(writev, "writev");
	return iov(real.writev, fd, v, n);
}

static ssize_t srto(srto_fn fn, int fd, void *buf, size_t n, int flags,
		    void *addr, void *alen)
{
	ssize_t r;

	if (!rt_sharing.on)
		return fn(fd, buf, n, flags, addr, alen);
	rt_sharing_pin(buf, n);
	r = fn(fd, buf, n, flags, addr, alen);
	UNPIN_RETURN(buf, n, r);
}

/* recv and send are recvfrom and sendto without an address. */
RT_API ssize_t recv(int fd, void *buf, size_t n, int flags)
{
	REAL(recvfrom, "recvfrom");
	return srto(real.recvfrom, fd, buf, n, flags, NULL, NULL);
}

RT_API ssize_t send(int fd, const void *buf, size_t n, int flags)
{
	REAL(sendto, "sendto");
	return srto(real.sendto, fd, (void *)(uintptr_t)buf, n, flags, NULL, 0);
}

RT_API ssize_t recvfrom(int fd, void *buf, size_t n, int flags,
			struct sockaddr *addr, socklen_t *alen)
{
	REAL(recvfrom, "recvfrom");
	return srto(real.recvfrom, fd, buf, n, flags, addr, alen);
}

RT_API ssize_t sendto(int fd, const void *buf, size_t n, int flags,
		      const struct sockaddr *addr, socklen_t alen)
{
	REAL(sendto, "sendto");
	return srto(real.sendto, fd, (void *)(uintptr_t)buf, n, flags,
		    (void *)(uintptr_t)addr, (void *)(uintptr_t)alen);
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
	REAL(recvmsg, "recvmsg");
	return msg(real.recvmsg, fd, m, flags);
}

RT_API ssize_t sendmsg(int fd, const struct msghdr *m, int flags)
{
	REAL(sendmsg, "sendmsg");
	return msg(real.sendmsg, fd, (struct msghdr *)(uintptr_t)m, flags);
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
	REAL(fread, "fread");
	return stdio(real.fread, p, size, n, f);
}

RT_API size_t fwrite(const void *p, size_t size, size_t n, FILE *f)
{
	REAL(fwrite, "fwrite");
	return stdio(real.fwrite, (void *)(uintptr_t)p, size, n, f);
}

RT_API int mprotect(void *p, size_t n, int prot)
{
	REAL(mprotect, "mprotect");
	if (rt_sharing.on && n) {
		int err = errno;

		rt_sharing_forget((uintptr_t)p, (uintptr_t)p + n);
		errno = err;
	}
	return real.mprotect(p, n, prot);
}
