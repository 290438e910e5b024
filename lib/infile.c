/* infile.c - see infile.h. */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "error.h"
#include "infile.h"
#include "strbuf.h"

static const char *kind_of(mode_t mode)
{
	if (S_ISFIFO(mode))
		return "a FIFO";
	if (S_ISCHR(mode))
		return "a character device";
	if (S_ISBLK(mode))
		return "a block device";
	if (S_ISSOCK(mode))
		return "a socket";
	return "a special file";
}

static int too_large(const char *path, uint64_t max_bytes, const char *what)
{
	return hpc_seterr("'%s': larger than %s may be (%" PRIu64 " bytes)",
			  path, what, max_bytes);
}

int infile_open(const char *path, uint64_t max_bytes, const char *what,
		uint64_t *size)
{
	struct stat st;
	int fd, flags;

	fd = open(path, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
	if (fd < 0)
		return hpc_seterr("'%s': %s", path, strerror(errno));
	if (fstat(fd, &st)) {
		hpc_seterr("'%s': %s", path, strerror(errno));
	} else if (S_ISDIR(st.st_mode)) {
		hpc_seterr("'%s': is a directory, not %s", path, what);
	} else if (!S_ISREG(st.st_mode)) {
		hpc_seterr("'%s': not a regular file (%s), not %s", path,
			   kind_of(st.st_mode), what);
	} else if ((uint64_t)st.st_size > max_bytes) {
		too_large(path, max_bytes, what);
	} else if ((flags = fcntl(fd, F_GETFL)) < 0 ||
		   fcntl(fd, F_SETFL, flags & ~O_NONBLOCK) < 0) {
		hpc_seterr("'%s': %s", path, strerror(errno));
	} else {
		if (size)
			*size = (uint64_t)st.st_size;
		return fd;
	}
	close(fd);
	return -1;
}

FILE *infile_fopen(const char *path, uint64_t max_bytes, const char *what)
{
	int fd = infile_open(path, max_bytes, what, NULL);
	FILE *f;

	if (fd < 0)
		return NULL;
	f = fdopen(fd, "rb");
	if (!f) {
		hpc_seterr("'%s': %s", path, strerror(errno));
		close(fd);
	}
	return f;
}

int infile_read(const char *path, uint64_t max_bytes, const char *what,
		struct strbuf *sb)
{
	uint64_t size, total = 0;
	int fd = infile_open(path, max_bytes, what, &size);
	ssize_t n;

	if (fd < 0)
		return -1;
	strbuf_grow(sb, (size_t)size);
	for (;;) {
		/* One byte past the limit tells a file that grew past it. */
		uint64_t left = max_bytes - total;

		strbuf_grow(sb, 65536);
		n = read(fd, sb->buf + sb->len,
			 left < 65536 ? (size_t)left + 1 : 65536);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		sb->len += (size_t)n;
		sb->buf[sb->len] = 0;
		total += (uint64_t)n;
		if (total > max_bytes)
			break;
	}
	if (n < 0)
		hpc_seterr("'%s': %s", path, strerror(errno));
	else if (total > max_bytes)
		too_large(path, max_bytes, what);
	close(fd);
	return n < 0 || total > max_bytes ? -1 : 0;
}
