/*
 * u-hpcrun-fmt-write.c - unit tests for the .hpcrun 04.00 writer
 * (lib/hpcrun-fmt-write.c): HPCToolkit's own files, read and written back,
 * come out byte for byte; a profile like the ones libhpcrun.so writes has
 * the documented layout and reads back field for field; errors are
 * returned, not hidden.
 *
 * The fixtures are found at $HPC_TESTDATA/hpctoolkit (default tests/data,
 * relative to the source root where "make check" runs).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "hpcrun-fmt.h"
#include "infile.h"
#include "strbuf.h"
#include "unit.h"

static char tmp_path[4096];

static const char *const fixtures[] = {
	"loops-perf.m/testmeas-loops-000000-000-11ac0300-5176-0.hpcrun",
	"loops-perf.m/testmeas-loops-000000-001-11ac0300-5176-0.hpcrun",
	"loops-perf.m/testmeas-loops-000000-002-11ac0300-5176-0.hpcrun",
	"loops-perf.m/testmeas-loops-000000-003-11ac0300-5176-0.hpcrun",
	"loops-cputime-t.m/testmeas-loops-000000-000-11ac0300-4974-0.hpcrun",
	"loops-cputime-t.m/testmeas-loops-000000-001-11ac0300-4974-0.hpcrun",
	"loops-cputime-t.m/testmeas-loops-000000-002-11ac0300-4974-0.hpcrun",
	"loops-cputime-t.m/testmeas-loops-000000-003-11ac0300-4974-0.hpcrun",
};

static int write_to_tmp(const struct hpcrun_profile *p)
{
	int fd = open(tmp_path, O_WRONLY | O_CREAT | O_TRUNC, 0600), r;

	if (fd < 0)
		return -errno;
	r = hpcrun_fmt_write(fd, p);
	close(fd);
	return r;
}

static void fixtures_round_trip_byte_for_byte(void)
{
	const char *shared = getenv("HPC_TESTDATA");
	size_t i;

	if (!shared)
		shared = "tests/data";
	for (i = 0; i < sizeof(fixtures) / sizeof(fixtures[0]); i++) {
		struct strbuf orig = STRBUF_INIT, mine = STRBUF_INIT;
		char path[4096];
		struct hpcrun_profile *p;

		snprintf(path, sizeof(path), "%s/hpctoolkit/%s", shared,
			 fixtures[i]);
		p = hpcrun_fmt_read(path);
		CHECK(p != NULL);
		if (!p)
			continue;
		CHECK_INT(write_to_tmp(p), 0);
		CHECK_INT(infile_read(path, (uint64_t)1 << 30, "a profile", &orig), 0);
		CHECK_INT(infile_read(tmp_path, (uint64_t)1 << 30, "a profile", &mine), 0);
		CHECK_INT(mine.len, orig.len);
		if (mine.len == orig.len && memcmp(mine.buf, orig.buf, orig.len))
			unit_fail(__FILE__, __LINE__, "%s: bytes differ", fixtures[i]);
		hpcrun_profile_free(p);
		strbuf_release(&orig);
		strbuf_release(&mine);
	}
}

static uint64_t be(const char *p, int n)
{
	uint64_t v = 0;
	int i;

	for (i = 0; i < n; i++)
		v = (v << 8) | (unsigned char)p[i];
	return v;
}

/* A small profile shaped like the runtime's: placeholders, one path. */
static struct hpcrun_kv hdr[] = {
	{ "program-name", "a.out" }, { "thread-id", "3" }, { "env-path", "" },
};
static struct hpcrun_lm lms[] = {
	{ 1, "/bin/a.out", HPCRUN_LM_ANALYZE, 0 }, { 2, "/lib/libc.so.6", 0, 0 },
};
static struct hpcrun_node nodes[] = {
	{ 12, 0, 0, 0x5e5072696d617279ULL, 1 },		/* "^Primary" */
	{ 14, 12, 0, 0x7c204d61696e2020ULL, 1 },	/* "| Main  " */
	{ 16, 14, 1, 0x1234, 1 },
	{ 18, 16, 1, 0x5678, 1 },
};
static struct hpcrun_metric metrics[] = {
	{ "perf::cpu-clock", "PERF_COUNT_SW_CPU_CLOCK",
	  { 1, 0, 2, 0, 0, 0, 1, 1 }, 1, "", "", 1, 0, 1e6, 42 },
};
static struct hpcrun_idkind_name idkinds[] = { { 1, "NODE" }, { 3, "THREAD" } };
static struct hpcrun_id_elem tuple[] = { { 0x4001, 0xabcdef, 0 }, { 0xc003, 3, 3 } };
static struct hpcrun_value values[] = {
	{ 0, 0x412e848000000000ULL }, { 0, 0x4130000000000000ULL },
};
static struct hpcrun_ctx_values ctxs[] = { { 16, 0 }, { 18, 1 } };

static const struct hpcrun_profile small = {
	hdr, 3, lms, 2, nodes, 4, metrics, 1, idkinds, 2, tuple, 2, values, 2,
	ctxs, 2,
};

static void small_profile_layout(void)
{
	struct strbuf sb = STRBUF_INIT;
	const char *d, *foot;
	int s;

	CHECK_INT(write_to_tmp(&small), 0);
	CHECK_INT(infile_read(tmp_path, (uint64_t)1 << 30, "a profile", &sb), 0);
	d = sb.buf;
	CHECK(sb.len > 112 && sb.len % 1024 == 112);
	if (sb.len <= 112)
		return;
	CHECK(!memcmp(d, "HPCRUN-profile____04.00b", 24));
	CHECK_INT(be(d + 24, 4), 3);
	foot = d + sb.len - 112;
	CHECK_INT(be(foot + 104, 8), HPCRUN_FMT_FOOTER_MAGIC);
	CHECK_INT(be(foot + 96, 8), sb.len - 112);
	for (s = 0; s < 6; s++) {
		CHECK_INT(be(foot + 16 * s, 8) % 1024, 0);
		CHECK(be(foot + 16 * s + 8, 8) >= be(foot + 16 * s, 8));
	}
	/* CCT: u64 count then 19-byte nodes. */
	d = sb.buf + be(foot + 32, 8);
	CHECK_INT(be(d, 8), 4);
	CHECK_INT(be(foot + 40, 8) - be(foot + 32, 8), 8 + 4 * 19);
	CHECK(!memcmp(d + 8 + 10, "^Primary", 8));
	CHECK_INT(be(d + 8 + 19 * 2, 4), 16);
	CHECK_INT(be(d + 8 + 19 * 2 + 8, 2), 1);
	CHECK_INT(be(d + 8 + 19 * 2 + 10, 8), 0x1234);
	/* Sparse values end with the "end!" pair. */
	d = sb.buf + be(foot + 88, 8);
	CHECK_INT(be(d - 12, 4), HPCRUN_FMT_END_ID);
	CHECK_INT(be(d - 8, 8), 2);
	strbuf_release(&sb);
}

static void small_profile_reads_back(void)
{
	struct hpcrun_profile *p;
	size_t i;

	CHECK_INT(write_to_tmp(&small), 0);
	p = hpcrun_fmt_read(tmp_path);
	CHECK(p != NULL);
	if (!p)
		return;
	CHECK_INT(p->nheader, 3);
	for (i = 0; i < 3 && i < p->nheader; i++) {
		CHECK_STR(p->header[i].name, hdr[i].name);
		CHECK_STR(p->header[i].value, hdr[i].value);
	}
	CHECK_INT(p->nlms, 2);
	CHECK_STR(p->lms[1].path, "/lib/libc.so.6");
	CHECK_INT(p->lms[0].flags, HPCRUN_LM_ANALYZE);
	CHECK_INT(p->nnodes, 4);
	for (i = 0; i < 4 && i < p->nnodes; i++) {
		CHECK_INT(p->nodes[i].id, nodes[i].id);
		CHECK_INT(p->nodes[i].parent, nodes[i].parent);
		CHECK_INT(p->nodes[i].lm, nodes[i].lm);
		CHECK_INT(p->nodes[i].addr, nodes[i].addr);
		CHECK_INT(p->nodes[i].flags, nodes[i].flags);
	}
	CHECK_INT(p->nmetrics, 1);
	CHECK_STR(p->metrics[0].name, "perf::cpu-clock");
	CHECK(!memcmp(p->metrics[0].flags, metrics[0].flags, 16));
	CHECK_INT(p->metrics[0].is_frequency, 1);
	CHECK(p->metrics[0].threshold == 1e6);
	CHECK_INT(p->metrics[0].nsamples, 42);
	CHECK_INT(p->nidtuple, 2);
	CHECK_INT(p->idtuple[0].physical, 0xabcdef);
	CHECK_INT(p->idtuple[1].kind, 0xc003);
	CHECK_INT(p->nvalues, 2);
	CHECK_INT(p->values[1].bits, 0x4130000000000000ULL);
	CHECK_INT(p->nctxs, 2);
	CHECK_INT(p->ctxs[1].ctx, 18);
	CHECK_INT(p->ctxs[1].first, 1);
	hpcrun_profile_free(p);
}

static void write_errors_are_returned(void)
{
	int fd = open("/dev/full", O_WRONLY);

	CHECK_INT(hpcrun_fmt_write(-1, &small), -EBADF);
	if (fd >= 0) {
		CHECK_INT(hpcrun_fmt_write(fd, &small), -ENOSPC);
		close(fd);
	}
}

int main(void)
{
	int fd;

	snprintf(tmp_path, sizeof(tmp_path), "%s/u-hpcrun-fmt-write-XXXXXX",
		 getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
	fd = mkstemp(tmp_path);
	if (fd < 0)
		return 1;
	close(fd);
	unit_run("fixtures_round_trip_byte_for_byte", fixtures_round_trip_byte_for_byte);
	unit_run("small_profile_layout", small_profile_layout);
	unit_run("small_profile_reads_back", small_profile_reads_back);
	unit_run("write_errors_are_returned", write_errors_are_returned);
	unlink(tmp_path);
	return unit_done();
}
