/*
 * writeall.h - write(2) until every byte is out: the one loop under every
 * writer of hpcrun's files (profiles, side files, traces, the log, the
 * messages), shared by the runtime and the tools.
 *
 * Invariants:
 *  1. hpc_write_all() is async-signal-safe: no allocation, no lock, and
 *     errno as it found it (a signal handler may call it between the
 *     program's call and its errno check).
 *  2. It returns 0 when all n bytes were written, else the negative errno
 *     of the write that failed (-EIO for a write of 0 bytes); a write
 *     interrupted by a signal is made again.
 */
#ifndef HPC_WRITEALL_H
#define HPC_WRITEALL_H

#include <errno.h>
#include <stddef.h>
#include <unistd.h>

static inline int hpc_write_all(int fd, const void *buf, size_t n)
{
	const unsigned char *p = buf;
	int saved = errno, ret = 0;

	while (n) {
		ssize_t k = write(fd, p, n);

		if (k < 0 && errno == EINTR)
			continue;
		if (k <= 0) {
			ret = k < 0 ? -errno : -EIO;
			break;
		}
		p += k;
		n -= (size_t)k;
	}
	errno = saved;
	return ret;
}

#endif
