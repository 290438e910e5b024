/* u-hpctrace.c - unit tests for lib/hpctrace-write.c and -read.c. */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "error.h"
#include "hpctrace.h"
#include "unit.h"

static char path[64];

/* Writes n records through a buffer of bufsize bytes; the file's fd is
 * closed.  Returns the writer's result. */
static int write_trace(const struct hpctrace_rec *r, size_t n, size_t bufsize)
{
	unsigned char buf[256];
	struct hpctrace_writer w;
	int fd, ret;
	size_t i;

	snprintf(path, sizeof(path), "u-hpctrace-%d.hpctrace", (int)getpid());
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	ret = hpctrace_writer_start(&w, fd, buf, bufsize);
	for (i = 0; i < n && !ret; i++)
		ret = hpctrace_append(&w, r[i].time, r[i].id);
	if (!ret)
		ret = hpctrace_writer_flush(&w);
	close(fd);
	return ret;
}

static void write_bytes(const void *p, size_t n)
{
	FILE *f;

	snprintf(path, sizeof(path), "u-hpctrace-%d.hpctrace", (int)getpid());
	f = fopen(path, "wb");
	fwrite(p, 1, n, f);
	fclose(f);
}

static void exact_bytes(void)
{
	static const unsigned char expect[] =
		"HPCRUN-trace______01.01b\0\0\0\0\0\0\0\0"
		"\0\0\0\0\0\0\x01\x02\0\0\0\x05"
		"\0\0\0\x01\0\0\0\0\x80\0\0\x07"
		"\x01\0\0\x01\0\0\0\0\0\0\0\0";
	const struct hpctrace_rec r[] = {
		{ 0x102, 5 }, { 0x100000000, HPCTRACE_ID_WAIT | 7 },
		{ 0x0100000100000000, HPCTRACE_ID_NONE },
	};
	unsigned char got[128];
	ssize_t n;
	int fd;

	CHECK_INT(write_trace(r, 3, 24), 0);
	fd = open(path, O_RDONLY);
	n = read(fd, got, sizeof(got));
	close(fd);
	CHECK_INT(n, HPCTRACE_HDR_BYTES + 3 * HPCTRACE_REC_BYTES);
	CHECK(!memcmp(got, expect, (size_t)n));
	unlink(path);
}

static void round_trip(void)
{
	struct hpctrace_rec r[100];
	struct hpctrace *t;
	size_t i;

	for (i = 0; i < 100; i++) {
		r[i].time = 1000000000ull + i * 1000000ull;
		r[i].id = (uint32_t)(i % 7 ? i : HPCTRACE_ID_WAIT | 3);
	}
	r[99].id = HPCTRACE_ID_NONE;
	/* 40 bytes: three records a write, the last write partial */
	CHECK_INT(write_trace(r, 100, 40), 0);
	t = hpctrace_open(path);
	CHECK(t != NULL);
	CHECK_INT(hpctrace_check(t, NULL, NULL), 0);
	CHECK_INT(t->nrecords, 100);
	CHECK(t->problem == NULL);
	CHECK_INT(t->tmin, 1000000000);
	CHECK_INT(t->tmax, 1099000000);
	for (i = 0; i < 100; i++) {
		CHECK_INT(hpctrace_get(t, i).time, r[i].time);
		CHECK_INT(hpctrace_get(t, i).id, r[i].id);
	}
	CHECK_INT(hpctrace_find(t, 999999999), UINT64_MAX);
	CHECK_INT(hpctrace_find(t, 1000000000), 0);
	CHECK_INT(hpctrace_find(t, 1000999999), 0);
	CHECK_INT(hpctrace_find(t, 1050500000), 50);
	CHECK_INT(hpctrace_find(t, UINT64_MAX), 99);
	hpctrace_close(t);
	unlink(path);
}

/* Equal times: the search finds the last of them (the latest context). */
static void equal_times_and_clamp(void)
{
	const struct hpctrace_rec r[] = {
		{ 10, 1 }, { 20, 2 }, { 20, 3 }, { 15, 4 }, { 30, 0 },
	};
	struct hpctrace *t;

	CHECK_INT(write_trace(r, 5, 256), 0);
	t = hpctrace_open(path);
	CHECK(t && !hpctrace_check(t, NULL, NULL) && !t->problem);
	CHECK_INT(hpctrace_find(t, 20), 3);	/* 15 written as 20 */
	CHECK_INT(hpctrace_get(t, 3).time, 20);
	CHECK_INT(hpctrace_find(t, 19), 0);
	hpctrace_close(t);
	unlink(path);
}

static int below_5(uint32_t id, void *arg)
{
	(void)arg;
	return id < 5;
}

static unsigned char bytes[128];

/* A header and n records of times 10, 20, ... and ids 1, 2, ... */
static size_t make(size_t n)
{
	size_t i, k;

	memset(bytes, 0, sizeof(bytes));
	memcpy(bytes, "HPCRUN-trace______01.01b", 24);
	for (i = 0; i < n; i++) {
		k = HPCTRACE_HDR_BYTES + i * HPCTRACE_REC_BYTES;
		bytes[k + 7] = (unsigned char)(10 * (i + 1));
		bytes[k + 11] = (unsigned char)(i + 1);
	}
	return HPCTRACE_HDR_BYTES + n * HPCTRACE_REC_BYTES;
}

static void keeps_what_is_good(void)
{
	struct hpctrace *t;
	size_t n = make(4);

	write_bytes(bytes, n - 5);	/* cut inside the fourth */
	t = hpctrace_open(path);
	CHECK(t != NULL);
	CHECK_INT(t->nrecords, 3);
	CHECK(t->problem && strstr(t->problem, "record 4: cut short (7 of 12 bytes)"));
	CHECK_INT(hpctrace_check(t, NULL, NULL), 0);	/* the rest is good */
	CHECK(strstr(t->problem, "record 4: cut short"));
	hpctrace_close(t);

	bytes[HPCTRACE_HDR_BYTES + 2 * HPCTRACE_REC_BYTES + 7] = 5;
	write_bytes(bytes, n);		/* third earlier than second */
	t = hpctrace_open(path);
	CHECK_INT(t->nrecords, 4);	/* unchecked: every whole record */
	CHECK(t->problem == NULL);
	CHECK_INT(t->tmax, 40);
	CHECK_INT(hpctrace_check(t, NULL, NULL), -1);
	CHECK_INT(t->nrecords, 2);
	CHECK_INT(t->tmax, 20);
	CHECK_STR(strstr(t->problem, "record 3"),
		  "record 3: time 5 before the previous record's 20; "
		  "the 2 records before it are kept");
	hpctrace_close(t);

	n = make(6);
	write_bytes(bytes, n);		/* ids 5 and 6 unknown */
	t = hpctrace_open(path);
	CHECK_INT(hpctrace_check(t, below_5, NULL), -1);
	CHECK_INT(t->nrecords, 4);
	CHECK(strstr(t->problem, "record 5: unknown context id 5"));
	CHECK_INT(t->tmax, 40);
	hpctrace_close(t);
	unlink(path);
}

static void refuses_bad_headers(void)
{
	size_t n = make(1);

	write_bytes(bytes, 20);
	CHECK(hpctrace_open(path) == NULL);
	CHECK(strstr(hpc_lasterr(), "shorter than its header"));
	bytes[0] = 'X';
	write_bytes(bytes, n);
	CHECK(hpctrace_open(path) == NULL);
	CHECK(strstr(hpc_lasterr(), "bad magic"));
	make(1);
	bytes[19] = '9';
	write_bytes(bytes, n);
	CHECK(hpctrace_open(path) == NULL);
	CHECK(strstr(hpc_lasterr(), "version '09.01' unknown"));
	make(1);
	bytes[31] = 1;		/* HPCToolkit's data-centric flag */
	write_bytes(bytes, n);
	CHECK(hpctrace_open(path) == NULL);
	CHECK(strstr(hpc_lasterr(), "flags 0x1 unknown"));
	unlink(path);
	CHECK(hpctrace_open(".") == NULL);
	CHECK(strstr(hpc_lasterr(), "is a directory"));
}

static void db_path(void)
{
	char *p = hpctrace_db_path("db", 12);

	CHECK_STR(p, "db/traces/12.hpctrace");
	free(p);
}

int main(void)
{
	unit_run("exact bytes of a small trace", exact_bytes);
	unit_run("read(write(x)) = x, binary search", round_trip);
	unit_run("equal times, an earlier time written as the last",
		 equal_times_and_clamp);
	unit_run("a bad body keeps the records before it (checked)",
		 keeps_what_is_good);
	unit_run("bad headers refused in one line", refuses_bad_headers);
	unit_run("database trace paths", db_path);
	return unit_done();
}
