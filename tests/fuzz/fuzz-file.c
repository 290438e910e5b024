/* fuzz-file.c - see fuzz-file.h. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <libxml/parser.h>

#include "error.h"
#include "fuzz-file.h"
#include "strbuf.h"

static struct strbuf dir = STRBUF_INIT;

static void remove_dir(void)
{
	DIR *d = opendir(dir.buf);
	struct dirent *e;

	while (d && (e = readdir(d)) != NULL)
		if (strcmp(e->d_name, ".") && strcmp(e->d_name, ".."))
			unlinkat(dirfd(d), e->d_name, 0);
	if (d)
		closedir(d);
	rmdir(dir.buf);
}

char *fuzz_file_init(const char *argv0, const char *input_name)
{
	const char *tmp = getenv("TMPDIR");

	hpc_set_progname(argv0);
	strbuf_addf(&dir, "%s/%s.XXXXXX", tmp && *tmp ? tmp : "/tmp",
		    hpc_progname());
	if (!mkdtemp(dir.buf))
		hpc_die(1, "'%s': %s", dir.buf, strerror(errno));
	atexit(remove_dir);
	xmlInitParser();
	return fuzz_file_path(input_name);
}

char *fuzz_file_path(const char *name)
{
	struct strbuf sb = STRBUF_INIT;

	strbuf_addf(&sb, "%s/%s", dir.buf, name);
	return strbuf_detach(&sb, NULL);
}

FILE *fuzz_devnull(void)
{
	static FILE *f;

	if (!f)
		f = fopen("/dev/null", "w");
	if (!f)
		hpc_die(1, "'/dev/null': %s", strerror(errno));
	return f;
}

void fuzz_file_write(const char *path, const uint8_t *data, size_t size)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	size_t done = 0;

	if (fd < 0)
		hpc_die(1, "'%s': %s", path, strerror(errno));
	while (done < size) {
		ssize_t n = write(fd, data + done, size - done);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			hpc_die(1, "'%s': %s", path, strerror(errno));
		done += (size_t)n;
	}
	if (close(fd) != 0)
		hpc_die(1, "'%s': %s", path, strerror(errno));
}
