/*
 * st-mkmeas.c - writes a minimal .hpcrun profile whose load map names the
 * given modules, for hpcstruct's measurement-directory tests.
 *   st-mkmeas OUT.hpcrun [+|-]PATH...   (+ = had samples, - = none)
 * Build: cc -Ilib -o st-mkmeas st-mkmeas.c build/obj/libhpc.a
 *        $(pkg-config --libs libdw libelf capstone libxml-2.0 zlib)
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "hpcrun-fmt.h"

int main(int argc, char **argv)
{
	struct hpcrun_profile p = { 0 };
	struct hpcrun_kv hdr[] = { { "program-name", "st-mkmeas" } };
	struct hpcrun_lm lms[64];
	int fd, rc;

	if (argc < 2 || argc - 2 > 64) {
		fprintf(stderr, "usage: st-mkmeas OUT.hpcrun [+|-]PATH...\n");
		return 2;
	}
	for (int i = 2; i < argc; i++) {
		lms[i - 2].id = (uint16_t)(i - 1);
		lms[i - 2].path = argv[i] + 1;
		lms[i - 2].flags = argv[i][0] == '+' ? HPCRUN_LM_ANALYZE : 0;
	}
	p.header = hdr;
	p.nheader = 1;
	p.lms = lms;
	p.nlms = (size_t)(argc - 2);
	fd = open(argv[1], O_WRONLY | O_CREAT | O_TRUNC, 0644);
	if (fd < 0) {
		perror(argv[1]);
		return 1;
	}
	rc = hpcrun_fmt_write(fd, &p);
	close(fd);
	if (rc < 0) {
		fprintf(stderr, "st-mkmeas: write failed\n");
		return 1;
	}
	return 0;
}
