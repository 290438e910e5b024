/*
 * u-hpcrun-fmt.c - unit tests for the .hpcrun 04.00 reader and dumper
 * (lib/hpcrun-fmt-read.c) against HPCToolkit's own files, and robustness
 * against truncated and corrupted files.
 *
 * The fixtures are found at $HPC_TESTDATA/hpctoolkit (default tests/data,
 * relative to the source root where "make check" runs).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "hpcrun-fmt.h"
#include "infile.h"
#include "strbuf.h"
#include "unit.h"

static char perf0[4096], cpu0[4096], tmpfile_path[4096];

static int find_fixtures(void)
{
	const char *shared = getenv("HPC_TESTDATA");
	int fd;

	if (!shared)
		shared = "tests/data";
	snprintf(perf0, sizeof(perf0), "%s/hpctoolkit/loops-perf.m/"
		 "testmeas-loops-000000-000-11ac0300-5176-0.hpcrun", shared);
	snprintf(cpu0, sizeof(cpu0), "%s/hpctoolkit/loops-cputime-t.m/"
		 "testmeas-loops-000000-000-11ac0300-4974-0.hpcrun", shared);
	snprintf(tmpfile_path, sizeof(tmpfile_path), "%s/u-hpcrun-fmt-XXXXXX",
		 getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
	fd = mkstemp(tmpfile_path);
	if (fd >= 0)
		close(fd);
	return access(perf0, R_OK) == 0 && access(cpu0, R_OK) == 0 && fd >= 0;
}

static double dbl(uint64_t bits)
{
	double d;

	memcpy(&d, &bits, sizeof(d));
	return d;
}

static double metric_sum(const struct hpcrun_profile *p, unsigned metric)
{
	double sum = 0;
	uint64_t i;

	for (i = 0; i < p->nvalues; i++)
		if (p->values[i].metric == metric)
			sum += dbl(p->values[i].bits);
	return sum;
}

static void reads_perf_fixture(void)
{
	struct hpcrun_profile *p = hpcrun_fmt_read(perf0);
	char addr[9];
	int k;

	CHECK(p != NULL);
	if (!p)
		return;
	CHECK_INT(p->nheader, 11);
	CHECK_STR(hpcrun_profile_header(p, "program-name"), "testmeas-loops");
	CHECK_STR(hpcrun_profile_header(p, "process-id"), "5176");
	CHECK_STR(hpcrun_profile_header(p, "job-id"), "");
	CHECK(hpcrun_profile_header(p, "no-such-name") == NULL);
	CHECK_INT(p->nlms, 19);
	CHECK_INT(p->lms[0].id, 1);
	CHECK_INT(p->lms[0].flags, HPCRUN_LM_ANALYZE);
	CHECK_STR(p->lms[5].path, "/usr/lib/x86_64-linux-gnu/libc-2.31.so");
	CHECK_INT(p->lms[1].flags, 0);
	CHECK_INT(p->nnodes, 50);
	CHECK_INT(p->nodes[0].id, 12);
	CHECK_INT(p->nodes[0].parent, 0);
	CHECK_INT(p->nodes[0].lm, 0);
	for (k = 0; k < 8; k++)
		addr[k] = (char)(p->nodes[0].addr >> (56 - 8 * k));
	addr[8] = 0;
	CHECK_STR(addr, "^Primary");
	CHECK_INT(p->nodes[2].id, 20);
	CHECK_INT(p->nodes[2].parent, 18);
	CHECK_INT(p->nodes[2].lm, 1);
	CHECK_INT(p->nodes[2].addr, 0x1488);
	CHECK_INT(p->nodes[2].flags, HPCRUN_NODE_UNWOUND);
	CHECK_INT(p->nmetrics, 2);
	CHECK_STR(p->metrics[0].name, "perf::cpu-clock");
	CHECK_STR(p->metrics[0].description, "PERF_COUNT_SW_CPU_CLOCK");
	CHECK_STR(p->metrics[1].name, "perf::task-clock");
	CHECK_INT(p->metrics[0].flags[0], 1);	/* raw */
	CHECK_INT(p->metrics[0].flags[2], 2);	/* real */
	CHECK_INT(p->metrics[0].flags[6], 1);	/* show */
	CHECK_INT(p->metrics[0].period, 1);
	CHECK_INT(p->metrics[1].period, 100000000);
	CHECK_INT(p->metrics[0].is_frequency, 1);
	CHECK(p->metrics[0].threshold == 12500000.0);
	CHECK_INT(p->metrics[0].nsamples, 316);
	CHECK_INT(p->metrics[1].nsamples, 36);
	CHECK_INT(p->nidkinds, 8);
	CHECK_INT(p->idkinds[3].kind, HPCRUN_ID_THREAD);
	CHECK_STR(p->idkinds[3].name, "THREAD");
	CHECK_INT(p->nidtuple, 3);
	CHECK_INT(p->idtuple[0].kind, 0x4000 | HPCRUN_ID_NODE);
	CHECK_INT(p->idtuple[0].physical, 0x11ac0300);
	CHECK_INT(p->idtuple[2].kind, 0xc000 | HPCRUN_ID_THREAD);
	CHECK_INT(p->nvalues, 46);
	CHECK_INT(p->nctxs, 39);
	CHECK_INT(p->ctxs[0].ctx, 260);
	CHECK_INT(p->ctxs[0].first, 0);
	CHECK(metric_sum(p, 0) == 987500000.0);
	CHECK(metric_sum(p, 1) == 9.0);
	hpcrun_profile_free(p);
	hpcrun_profile_free(NULL);
}

static void reads_cputime_fixture(void)
{
	struct hpcrun_profile *p = hpcrun_fmt_read(cpu0);

	CHECK(p != NULL);
	if (!p)
		return;
	CHECK_INT(p->nlms, 18);
	CHECK_INT(p->nnodes, 69);
	CHECK_INT(p->nmetrics, 1);
	CHECK_STR(p->metrics[0].name, "CPUTIME (sec)");
	CHECK_INT(p->nvalues, 53);
	CHECK_INT(p->nctxs, 53);
	CHECK(fabs(metric_sum(p, 0) - 0.994165) < 1e-9);
	CHECK_STR(hpcrun_profile_header(p, "trace-min-time"),
		  "1714105057972403000");
	hpcrun_profile_free(p);
}

static char *dump_to_string(const struct hpcrun_profile *p)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	hpcrun_fmt_dump(f, p);
	fclose(f);
	return buf;
}

static void dump_is_stable_text(void)
{
	struct hpcrun_profile *p = hpcrun_fmt_read(perf0);
	char *text;

	CHECK(p != NULL);
	if (!p)
		return;
	text = dump_to_string(p);
	CHECK(!strncmp(text, "hpcrun-profile 04.00\nheader 11\n"
		       "  program-name = \"testmeas-loops\"\n", 64));
	CHECK(strstr(text, "\n  node 12 parent 0 lm 0 addr \"^Primary\" "
		     "flags 0x1\n") != NULL);
	CHECK(strstr(text, "\n  node 20 parent 18 lm 1 addr 0x1488 "
		     "flags 0x1\n") != NULL);
	CHECK(strstr(text, "\n  metric 0 \"perf::cpu-clock\" desc "
		     "\"PERF_COUNT_SW_CPU_CLOCK\" flags 01000200 00000101 "
		     "00000000 00000000 period 1 formula \"\" format \"\" "
		     "frequency 1 multiplexed 0 threshold 12500000 "
		     "samples 316\n") != NULL);
	CHECK(strstr(text, "\n  NODE interpretation 1 physical 0x11ac0300 "
		     "logical 0\n") != NULL);
	CHECK(strstr(text, "\nvalues 46 contexts 39\n  ctx 260: [0] "
		     "12500000\n") != NULL);
	CHECK(strstr(text, "\n  ctx 246: [0] 37500000 [1] 1\n") != NULL);
	free(text);
	hpcrun_profile_free(p);
}

static void write_prefix(const struct strbuf *sb, size_t len)
{
	FILE *f = fopen(tmpfile_path, "wb");

	CHECK(f != NULL);
	if (!f)
		return;
	CHECK_INT(fwrite(sb->buf, 1, len, f), len);
	CHECK_INT(fclose(f), 0);
}

static uint64_t be64(const char *p)
{
	uint64_t v = 0;
	int i;

	for (i = 0; i < 8; i++)
		v = v << 8 | (unsigned char)p[i];
	return v;
}

/* Must fail, name the file, and (where given) contain what. */
static void expect_error(size_t len, const char *what)
{
	struct hpcrun_profile *p = hpcrun_fmt_read(tmpfile_path);

	if (p) {
		unit_fail(__FILE__, __LINE__, "prefix of %zu bytes was accepted",
			  len);
		hpcrun_profile_free(p);
		return;
	}
	if (!strstr(hpc_lasterr(), tmpfile_path))
		unit_fail(__FILE__, __LINE__, "'%s' does not name the file",
			  hpc_lasterr());
	if (what && !strstr(hpc_lasterr(), what))
		unit_fail(__FILE__, __LINE__, "prefix %zu: '%s' lacks '%s'",
			  len, hpc_lasterr(), what);
}

static void truncations_are_errors(void)
{
	static const char *const names[] = {
		"header", "load map", "CCT", "metric table",
		"identifier dictionary", "sparse values",
	};
	struct strbuf sb = STRBUF_INIT;
	const char *footer;
	size_t len;
	int s;

	CHECK_INT(infile_read(perf0, (uint64_t)1 << 30, "a profile", &sb), 0);
	CHECK(sb.len > 112);
	footer = sb.buf + sb.len - 112;
	/* Every section boundary, and one byte either side of it. */
	for (s = 0; s < 6; s++) {
		uint64_t start = be64(footer + 16 * s);
		uint64_t end = be64(footer + 16 * s + 8);
		char what[64];

		snprintf(what, sizeof(what), "truncated %s section", names[s]);
		write_prefix(&sb, start + 1);
		expect_error(start + 1, what);
		write_prefix(&sb, end - 1);
		expect_error(end - 1, what);
		write_prefix(&sb, start);
		expect_error(start, s ? "section missing" : what);
		write_prefix(&sb, end);
		expect_error(end, s < 5 ? "section missing" : "footer missing");
	}
	/* Every length, without a footer: never accepted, never a crash. */
	for (len = 0; len < sb.len; len++) {
		write_prefix(&sb, len);
		expect_error(len, NULL);
	}
	write_prefix(&sb, sb.len);
	{
		struct hpcrun_profile *p = hpcrun_fmt_read(tmpfile_path);

		CHECK(p != NULL);
		hpcrun_profile_free(p);
	}
	strbuf_release(&sb);
}

static void corrupt_bytes_never_crash(void)
{
	struct strbuf sb = STRBUF_INIT;
	unsigned seed = 12345, accepted = 0, rejected = 0;
	int round;

	CHECK_INT(infile_read(perf0, (uint64_t)1 << 30, "a profile", &sb), 0);
	for (round = 0; round < 3000; round++) {
		struct strbuf copy = STRBUF_INIT;
		struct hpcrun_profile *p;
		int flips = 1 + round % 4, k;

		strbuf_add(&copy, sb.buf, sb.len);
		for (k = 0; k < flips; k++) {
			size_t at = (size_t)rand_r(&seed) % copy.len;

			copy.buf[at] ^= (char)(1 + rand_r(&seed) % 255);
		}
		write_prefix(&copy, copy.len);
		p = hpcrun_fmt_read(tmpfile_path);
		if (p) {
			char *text = dump_to_string(p);

			CHECK(text && !strncmp(text, "hpcrun-profile", 14));
			free(text);
			accepted++;
		} else {
			if (!strstr(hpc_lasterr(), tmpfile_path))
				unit_fail(__FILE__, __LINE__, "'%s' does not "
					  "name the file", hpc_lasterr());
			rejected++;
		}
		hpcrun_profile_free(p);
		strbuf_release(&copy);
	}
	/* Most flips hit padding or values; structural ones are caught. */
	CHECK(accepted > 0);
	CHECK(rejected > 0);
	strbuf_release(&sb);
}

/* read(write(p)) == p, field for field, for a profile with every kind of record. */
static void write_read_round_trip(void)
{
	static const struct hpcrun_kv header[] = {
		{ "program-name", "round trip" }, { "empty", "" },
	};
	static const struct hpcrun_lm lms[] = {
		{ 1, "/bin/prog", HPCRUN_LM_ANALYZE, 0 }, { 7, "/lib/x.so", 0, 0 },
	};
	static const struct hpcrun_node nodes[] = {
		{ 12, 0, 0, 0x5e5072696d617279ULL, 1 },	/* "^Primary" */
		{ 14, 12, 1, 0x1234, 1 }, { 16, 14, 7, 0xffffffffffffULL, 0 },
		{ 17, 14, 1, 0x1240, 0 },
	};
	struct hpcrun_metric metrics[2] = {
		{ "cycles", "CPU cycles", { 1, 1, 1, 0, 0, 1, 1, 1 }, 1000003,
		  "", "%g", 0, 1, 0.5, 77 },
		{ "time", "seconds", { 1, 2, 2 }, 1, "$0*2", "", 1, 0, 0, 0 },
	};
	static const struct hpcrun_idkind_name kinds[] = {
		{ 0, "SUMMARY" }, { 3, "THREAD" },
	};
	static const struct hpcrun_id_elem tuple[] = {
		{ 0x4001, 0xdeadbeef, 0 }, { 0xc003, 0, 5 },
	};
	double t = 0.25;
	struct hpcrun_value values[3] = { { 0, 42 }, { 1, 0 }, { 0, 7 } };
	static const struct hpcrun_ctx_values ctxs[] = { { 16, 0 }, { 17, 2 } };
	struct hpcrun_profile p = {
		(struct hpcrun_kv *)header, 2, (struct hpcrun_lm *)lms, 2,
		(struct hpcrun_node *)nodes, 4, metrics, 2,
		(struct hpcrun_idkind_name *)kinds, 2,
		(struct hpcrun_id_elem *)tuple, 2, values, 3,
		(struct hpcrun_ctx_values *)ctxs, 2,
	};
	struct hpcrun_profile *q;
	FILE *f;
	size_t i;

	memcpy(&values[1].bits, &t, sizeof(t));
	f = fopen(tmpfile_path, "wb");
	CHECK(f != NULL);
	if (!f)
		return;
	CHECK_INT(hpcrun_fmt_write(fileno(f), &p), 0);
	fclose(f);
	q = hpcrun_fmt_read(tmpfile_path);
	CHECK(q != NULL);
	if (!q)
		return;
	CHECK_INT(q->nheader, 2);
	for (i = 0; i < 2 && i < q->nheader; i++) {
		CHECK_STR(q->header[i].name, header[i].name);
		CHECK_STR(q->header[i].value, header[i].value);
	}
	CHECK_INT(q->nlms, 2);
	for (i = 0; i < 2 && i < q->nlms; i++) {
		CHECK_INT(q->lms[i].id, lms[i].id);
		CHECK_STR(q->lms[i].path, lms[i].path);
		CHECK_INT(q->lms[i].flags, lms[i].flags);
	}
	CHECK_INT(q->nnodes, 4);
	for (i = 0; i < 4 && i < q->nnodes; i++)
		CHECK(q->nodes[i].id == nodes[i].id &&
		      q->nodes[i].parent == nodes[i].parent &&
		      q->nodes[i].lm == nodes[i].lm &&
		      q->nodes[i].addr == nodes[i].addr &&
		      q->nodes[i].flags == nodes[i].flags);
	CHECK_INT(q->nmetrics, 2);
	for (i = 0; i < 2 && i < q->nmetrics; i++) {
		CHECK_STR(q->metrics[i].name, metrics[i].name);
		CHECK_STR(q->metrics[i].description, metrics[i].description);
		CHECK(!memcmp(q->metrics[i].flags, metrics[i].flags, 16));
		CHECK_INT(q->metrics[i].period, metrics[i].period);
		CHECK_STR(q->metrics[i].formula, metrics[i].formula);
		CHECK_STR(q->metrics[i].format, metrics[i].format);
		CHECK_INT(q->metrics[i].is_frequency, metrics[i].is_frequency);
		CHECK_INT(q->metrics[i].is_multiplexed,
			  metrics[i].is_multiplexed);
		CHECK(q->metrics[i].threshold == metrics[i].threshold);
		CHECK_INT(q->metrics[i].nsamples, metrics[i].nsamples);
	}
	CHECK_INT(q->nidkinds, 2);
	CHECK_STR(q->idkinds[1].name, "THREAD");
	CHECK_INT(q->nidtuple, 2);
	CHECK_INT(q->idtuple[0].kind, 0x4001);
	CHECK_INT(q->idtuple[0].physical, 0xdeadbeef);
	CHECK_INT(q->idtuple[1].logical, 5);
	CHECK_INT(q->nvalues, 3);
	for (i = 0; i < 3 && i < q->nvalues; i++) {
		CHECK_INT(q->values[i].metric, values[i].metric);
		CHECK_INT(q->values[i].bits, values[i].bits);
	}
	CHECK_INT(q->nctxs, 2);
	CHECK_INT(q->ctxs[1].ctx, 17);
	CHECK_INT(q->ctxs[1].first, 2);
	hpcrun_profile_free(q);
}

/* Writes a profile of the nodes (one module, no values) and reads it. */
static struct hpcrun_profile *nodes_profile(const struct hpcrun_node *nodes,
					    uint64_t n)
{
	static const struct hpcrun_lm lm = { 1, "/bin/prog", 0, 0 };
	struct hpcrun_profile p = { 0 };
	FILE *f = fopen(tmpfile_path, "wb");

	p.lms = (struct hpcrun_lm *)&lm;
	p.nlms = 1;
	p.nodes = (struct hpcrun_node *)nodes;
	p.nnodes = n;
	if (!f)
		return NULL;
	CHECK_INT(hpcrun_fmt_write(fileno(f), &p), 0);
	fclose(f);
	return hpcrun_fmt_read(tmpfile_path);
}

/* Reads back the profile of nodes[0..n) and checks that each of ids[0..k)
 * is at position want[] (-1: absent) in its index. */
static void check_positions(const struct hpcrun_node *nodes, uint64_t n,
			    const uint32_t *ids, const long *want, size_t k)
{
	struct hpcrun_profile *q = nodes_profile(nodes, n);
	struct hpcrun_node_index *x;
	uint32_t dup;
	size_t i;

	CHECK(q != NULL);
	if (!q)
		return;
	x = hpcrun_node_index_new(q, &dup);
	CHECK_INT(dup, 0);
	for (i = 0; i < k; i++)
		CHECK_INT(hpcrun_node_position(x, ids[i]), want[i]);
	hpcrun_node_index_free(x);
	hpcrun_profile_shed(q);
	CHECK(q->nodes == NULL && q->nnodes == 0);
	CHECK_STR(q->lms[0].path, "/bin/prog");
	hpcrun_profile_free(q);
}

/* hpcrun_node_position: dense ids (a table), sparse ones (a search), and
 * the smallest duplicate named either way. */
static void node_positions(void)
{
	static const struct hpcrun_node dense[] = {
		{ 12, 0, 1, 1, 0 }, { 16, 12, 1, 2, 0 }, { 14, 12, 1, 3, 0 },
	};
	static const uint32_t dense_ids[] = { 12, 14, 16, 13, 0, 4000000 };
	static const long dense_at[] = { 0, 2, 1, -1, -1, -1 };
	static const struct hpcrun_node sparse[] = {
		{ 4000000, 0, 1, 1, 0 }, { 7, 4000000, 1, 2, 0 },
		{ 3000000000u, 7, 1, 3, 0 },
	};
	static const uint32_t sparse_ids[] = { 4000000, 7, 3000000000u, 8 };
	static const long sparse_at[] = { 0, 1, 2, -1 };
	static const struct hpcrun_node dups[] = {
		{ 12, 0, 1, 1, 0 }, { 20, 12, 1, 2, 0 }, { 14, 12, 1, 3, 0 },
		{ 20, 12, 1, 4, 0 }, { 14, 12, 1, 5, 0 },
	};
	static const struct hpcrun_node sparse_dups[] = {
		{ 4000000, 0, 1, 1, 0 }, { 9, 4000000, 1, 2, 0 },
		{ 4000000, 9, 1, 3, 0 }, { 9, 9, 1, 3, 0 },
	};

	check_positions(dense, 3, dense_ids, dense_at, 6);
	check_positions(sparse, 3, sparse_ids, sparse_at, 4);
	CHECK(nodes_profile(dups, 5) == NULL);
	CHECK(strstr(hpc_lasterr(), "duplicate node id 14") != NULL);
	CHECK(nodes_profile(sparse_dups, 4) == NULL);
	CHECK(strstr(hpc_lasterr(), "duplicate node id 9") != NULL);
	hpcrun_node_index_free(NULL);
}

static void missing_and_foreign_files(void)
{
	struct strbuf sb = STRBUF_INIT;

	CHECK(hpcrun_fmt_read("/nonexistent/x.hpcrun") == NULL);
	CHECK(strstr(hpc_lasterr(), "'/nonexistent/x.hpcrun'") != NULL);
	strbuf_addstr(&sb, "HPCRUN-profile____03.00b");
	strbuf_addf(&sb, "%0200d", 0);
	write_prefix(&sb, sb.len);
	expect_error(sb.len, "unsupported hpcrun format version '03.00'");
	strbuf_reset(&sb);
	strbuf_addf(&sb, "%0300d", 7);
	write_prefix(&sb, sb.len);
	expect_error(sb.len, "not an hpcrun profile");
	strbuf_release(&sb);
}

int main(void)
{
	if (!find_fixtures()) {
		printf("# HPCToolkit fixtures not found (set HPC_TESTDATA); "
		       "skipping\n");
		unit_run("missing_and_foreign_files", missing_and_foreign_files);
		unlink(tmpfile_path);
		return unit_done();
	}
	unit_run("reads_perf_fixture", reads_perf_fixture);
	unit_run("reads_cputime_fixture", reads_cputime_fixture);
	unit_run("dump_is_stable_text", dump_is_stable_text);
	unit_run("truncations_are_errors", truncations_are_errors);
	unit_run("corrupt_bytes_never_crash", corrupt_bytes_never_crash);
	unit_run("missing_and_foreign_files", missing_and_foreign_files);
	unit_run("write_read_round_trip", write_read_round_trip);
	unit_run("node_positions", node_positions);
	unlink(tmpfile_path);
	return unit_done();
}
