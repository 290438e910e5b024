/* outfile.c - see outfile.h. */
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <unistd.h>

#include "error.h"
#include "outfile.h"

FILE *outfile_open(const char *path)
{
	FILE *f;
	int fd;

	if (!strcmp(path, "-"))
		return stdout;
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC,
		  0644);
	if (fd < 0 && errno == ELOOP) {
		hpc_seterr("'%s': is a symbolic link; not written through",
			   path);
		return NULL;
	}
	f = fd >= 0 ? fdopen(fd, "w") : NULL;
	if (!f) {
		hpc_seterr("'%s': %s", path, strerror(errno));
		if (fd >= 0)
			close(fd);
	}
	return f;
}
