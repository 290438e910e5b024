/*
 * u-data-format.c - unit tests for the data-centric parts of the .hpcrun
 * format that hpcrun --data writes (hpcrun(5), "Data-centric roots and
 * metrics"): a profile shaped like the runtime's, with "^Static " ->
 * variable node (flag 0x2) -> "^Access " -> access path, and the integer
 * DATA:* metrics, written with lib/hpcrun-fmt-write.c, reads back with its
 * variable flag and integer values, and the dump prints those as integers;
 * the --data-min-bytes parser (lib/hpcrun-events.c) takes 1 .. 2^40.
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "hpcrun-events.h"
#include "hpcrun-fmt.h"
#include "unit.h"

static char tmp_path[4096];

static struct hpcrun_kv hdr[] = {
	{ "data-centric", "1" }, { "data-min-bytes", "1024" },
	{ "data-samples-nomem", "7" },
};
static struct hpcrun_lm lms[] = { { 1, "/bin/a.out", HPCRUN_LM_ANALYZE, 0 } };
static struct hpcrun_node nodes[] = {
	{ 12, 0, 0, 0x5e5072696d617279ULL, 1 },		/* "^Primary" */
	{ 14, 12, 0, 0x7c204d61696e2020ULL, 1 },	/* "| Main  " */
	{ 16, 0, 0, 0x5e53746174696320ULL, 1 },		/* "^Static " */
	{ 18, 16, 1, 0x4060, HPCRUN_NODE_VARIABLE },	/* static_arr */
	{ 20, 18, 0, 0x5e41636365737320ULL, 1 },	/* "^Access " */
	{ 22, 20, 0, 0x7c204d61696e2020ULL, 1 },	/* "| Main  " */
	{ 24, 22, 1, 0x1234, 1 },
};
static struct hpcrun_metric metrics[] = {
	{ "perf::cpu-clock", "PERF_COUNT_SW_CPU_CLOCK",
	  { 1, 0, 2, 0, 0, 0, 1, 1 }, 1, "", "", 1, 0, 1e6, 3 },
	{ "DATA:bytes", "bytes", { 1, 0, 1, 0, 0, 0, 1, 0 }, 1, "", "", 0, 0, 0, 0 },
	{ "DATA:blocks", "blocks", { 1, 0, 1, 0, 0, 0, 1, 0 }, 1, "", "", 0, 0, 0, 0 },
	{ "DATA:offset-lo", "lo", { 1, 0, 1, 0, 0, 0, 1, 0 }, 1, "", "", 0, 0, 0, 0 },
	{ "DATA:offset-hi", "hi", { 1, 0, 1, 0, 0, 0, 1, 0 }, 1, "", "", 0, 0, 0, 0 },
};
static struct hpcrun_idkind_name idkinds[] = { { 1, "NODE" }, { 3, "THREAD" } };
static struct hpcrun_id_elem tuple[] = { { 0x4001, 0xabcdef, 0 }, { 0xc003, 0, 0 } };
static struct hpcrun_value values[] = {
	{ 1, 524288 }, { 2, 1 },		/* the variable: bytes, blocks */
	{ 3, 9 }, { 4, 524288 },		/* its ^Access: offsets 8 .. end */
	{ 0, 0x4108000000000000ULL },		/* 3e6 ns at the access leaf */
};
static struct hpcrun_ctx_values ctxs[] = { { 18, 0 }, { 20, 2 }, { 24, 4 } };

static const struct hpcrun_profile prof = {
	hdr, 3, lms, 1, nodes, 7, metrics, 5, idkinds, 2, tuple, 2, values, 5,
	ctxs, 3,
};

static void data_profile_reads_back(void)
{
	struct hpcrun_profile *p;
	int fd = open(tmp_path, O_WRONLY | O_TRUNC), i;

	CHECK(fd >= 0);
	if (fd < 0)
		return;
	CHECK_INT(hpcrun_fmt_write(fd, &prof), 0);
	close(fd);
	p = hpcrun_fmt_read(tmp_path);
	CHECK(p != NULL);
	if (!p)
		return;
	CHECK_INT(p->nnodes, 7);
	CHECK_INT(p->nodes[3].flags, HPCRUN_NODE_VARIABLE);
	CHECK_INT(p->nodes[3].addr, 0x4060);
	CHECK_INT(p->nmetrics, 5);
	CHECK_STR(p->metrics[1].name, "DATA:bytes");
	CHECK_INT(p->metrics[1].flags[2], 1);
	CHECK_INT(p->nvalues, 5);
	for (i = 0; i < 4 && (uint64_t)i < p->nvalues; i++)
		CHECK_INT(p->values[i].bits, values[i].bits);
	CHECK_STR(p->header[2].name, "data-samples-nomem");
	hpcrun_profile_free(p);
}

static void dump_prints_integers(void)
{
	struct hpcrun_profile *p = hpcrun_fmt_read(tmp_path);
	char *buf = NULL;
	size_t len = 0;
	FILE *f;

	CHECK(p != NULL);
	if (!p)
		return;
	f = open_memstream(&buf, &len);
	hpcrun_fmt_dump(f, p);
	fclose(f);
	CHECK(strstr(buf, "524288") != NULL);
	CHECK(strstr(buf, "flags 0x2") != NULL);
	CHECK(strstr(buf, "^Static ") != NULL);
	free(buf);
	hpcrun_profile_free(p);
}

static void min_bytes_parse(void)
{
	uint64_t v = 0;
	const char *why = NULL;

	CHECK_INT(hpcrun_data_min_parse("1024", &v, &why), 0);
	CHECK_INT(v, 1024);
	CHECK_INT(hpcrun_data_min_parse("1", &v, &why), 0);
	CHECK_INT(hpcrun_data_min_parse("1099511627776", &v, &why), 0);
	CHECK_INT(v, (uint64_t)1 << 40);
	CHECK_INT(hpcrun_data_min_parse("1099511627777", &v, &why), -1);
	CHECK(why != NULL);
	CHECK_INT(hpcrun_data_min_parse("0", &v, &why), -1);
	CHECK_INT(hpcrun_data_min_parse("", &v, &why), -1);
	CHECK_INT(hpcrun_data_min_parse("12k", &v, &why), -1);
	CHECK_INT(hpcrun_data_min_parse("-5", &v, &why), -1);
}

int main(void)
{
	int fd;

	snprintf(tmp_path, sizeof(tmp_path), "%s/u-data-format-XXXXXX",
		 getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
	fd = mkstemp(tmp_path);
	if (fd < 0)
		return 1;
	close(fd);
	unit_run("data_profile_reads_back", data_profile_reads_back);
	unit_run("dump_prints_integers", dump_prints_integers);
	unit_run("min_bytes_parse", min_bytes_parse);
	unlink(tmp_path);
	return unit_done();
}
