/*
 * tr-mktrace.c - writes a call-path trace (.hpctrace) from text on stdin
 * with lib/hpctrace-write.c, so viewer tests know every record.
 *
 * cc -I"$SRC_ROOT/lib" -o mktrace "$TEST_PROGS/tr-mktrace.c" "$HPC_BUILD/obj/libhpc.a"
 * (add -fsanitize=address,undefined when HPC_BUILD is a SANITIZE=1 build)
 *
 * Usage: mktrace OUT.hpctrace <records
 * A line a record: "TIME ID", TIME in nanoseconds, ID a context id, "wID"
 * a wait in context ID, or "-" for no activity.  The writer's buffer holds
 * three records, so long traces take many writes.
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "hpctrace.h"

int main(int argc, char **argv)
{
	unsigned char buf[3 * HPCTRACE_REC_BYTES + 5];
	struct hpctrace_writer w;
	unsigned long long time;
	char id[32];
	int fd;

	if (argc != 2) {
		fprintf(stderr, "usage: mktrace OUT.hpctrace <records\n");
		return 2;
	}
	fd = open(argv[1], O_WRONLY | O_CREAT | O_TRUNC, 0644);
	if (fd < 0 || hpctrace_writer_start(&w, fd, buf, sizeof(buf))) {
		perror(argv[1]);
		return 1;
	}
	while (scanf("%llu %31s", &time, id) == 2) {
		uint32_t v = id[0] == '-' ? HPCTRACE_ID_NONE :
			     id[0] == 'w' ? HPCTRACE_ID_WAIT | (uint32_t)atol(id + 1) :
			     (uint32_t)atol(id);

		if (hpctrace_append(&w, time, v)) {
			perror(argv[1]);
			return 1;
		}
	}
	if (hpctrace_writer_flush(&w) || close(fd)) {
		perror(argv[1]);
		return 1;
	}
	return 0;
}
