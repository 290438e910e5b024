/*
 * pf-mkhpcpy.c - writes a thread's Python code file (.hpcpy) with
 * lib/hpcpy-write.c from the code objects tests/progs/py-codes.py dumps,
 * as hpcrun would have copied them, and prints each code's id, so tests
 * can build profiles whose [python] frames name real code.
 *
 * cc -I"$SRC_ROOT/lib" -o mkhpcpy "$TEST_PROGS/pf-mkhpcpy.c" "$HPC_BUILD/obj/libhpc.a"
 *
 * Usage: mkhpcpy OUT.hpcpy <DUMP >IDS
 * DUMP: py-codes.py's output ("lines" records are skipped); IDS: a line
 * "0xID QUALNAME" (QUALNAME escaped as in the dump) per code.
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "hpcpy.h"
#include "textrec.h"

static char line[1 << 20], qual[4096], file[4096], hex[1 << 19];
static char qraw[4096], fraw[4096];
static unsigned char table[1 << 18];

/* The dump's escaping (that of .hpcpy) undone into out; its length. */
static size_t unescape(const char *s, char *out)
{
	size_t n = 0;
	unsigned v;

	if (!strcmp(s, "%"))
		return 0;
	for (; *s; n++) {
		if (*s == '%' && sscanf(s + 1, "%2X", &v) == 1) {
			out[n] = (char)v;
			s += 3;
		} else {
			out[n] = *s++;
		}
	}
	return n;
}

int main(int argc, char **argv)
{
	struct textrec_out o;
	int fd, head = 0;

	if (argc != 2) {
		fprintf(stderr, "usage: mkhpcpy OUT.hpcpy <DUMP\n");
		return 2;
	}
	fd = open(argv[1], O_WRONLY | O_CREAT | O_EXCL, 0644);
	if (fd < 0) {
		perror(argv[1]);
		return 1;
	}
	textrec_out_init(&o, fd);
	while (fgets(line, sizeof(line), stdin)) {
		struct hpcpy_code c = { 0 };
		int major, minor;
		size_t k;
		unsigned v;

		if (strncmp(line, "code ", 5))
			continue;
		if (sscanf(line, "code %d %d %u %u %4095s %4095s %524287s",
			   &major, &minor, &c.firstlineno, &c.ncode, qual, file,
			   hex) != 7) {
			fprintf(stderr, "mkhpcpy: bad dump line: %s", line);
			return 1;
		}
		if (!head++)
			hpcpy_write_head(&o, major, minor);
		c.qualname = qraw;
		c.qualname_len = unescape(qual, qraw);
		c.filename = fraw;
		c.filename_len = unescape(file, fraw);
		for (k = 0; strcmp(hex, "-") && hex[2 * k] &&
			    sscanf(hex + 2 * k, "%2x", &v) == 1; k++)
			table[k] = (unsigned char)v;
		c.linetable = table;
		c.linetable_len = k;
		c.id = hpcpy_id(&c);
		hpcpy_write_code(&o, &c);
		printf("0x%llx %s\n", (unsigned long long)c.id, qual);
	}
	if (textrec_flush(&o) || close(fd)) {
		fprintf(stderr, "mkhpcpy: write failed\n");
		return 1;
	}
	return 0;
}
