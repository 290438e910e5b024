/*
 * u-hpcrun-live.c - unit tests for the recovery of live files
 * (lib/hpcrun-live.c): a live file and proc file made by hand, as
 * libhpcrun.so lays them out (hpcrun-live.h), become the profile they
 * describe; a torn tree ends at its first bad node; a free file (zero
 * magic) is removed unsaid; a data-centric tree keeps its variable nodes
 * and integer metrics; a bad header is said and the files are left;
 * a directory without live files is untouched.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "error.h"
#include "hpcrun-fmt.h"
#include "hpcrun-live.h"
#include "strbuf.h"
#include "unit.h"

#define NODE_BYTES (sizeof(struct hpcrun_live_node) + 8)
#define PREFIX "prog-000000-%03d-0000abcd-4242-0"

static char dir[] = "/tmp/u-hpcrun-live.XXXXXX";
static char said[4096];

static void say(const char *fmt, ...)
{
	size_t n = strlen(said);
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(said + n, sizeof(said) - n - 1, fmt, ap);
	va_end(ap);
	strcat(said, "\n");
}

static void put_record(FILE *f, uint32_t type, const void *a, size_t alen,
		       const char *s1, const char *s2)
{
	uint32_t len = (uint32_t)(alen + strlen(s1) + strlen(s2) + 2);

	fwrite(&type, 4, 1, f);
	fwrite(&len, 4, 1, f);
	fwrite(a, 1, alen, f);
	fwrite(s1, 1, strlen(s1) + 1, f);
	fwrite(s2, 1, strlen(s2) + 1, f);
}

/* The process's proc file: the header, cpu-clock, with data the integer
 * metric DATA:bytes after it (hpcrun --data's), module 1. */
static void write_proc_of(int data)
{
	struct hpcrun_live_metric m;
	struct strbuf p = STRBUF_INIT;
	uint16_t id = 1;
	FILE *f;

	strbuf_addf(&p, "%s/" PREFIX HPCRUN_LIVE_PROC_SUFFIX, dir, 0);
	f = fopen(p.buf, "w");
	fwrite(HPCRUN_LIVE_PROC_MAGIC, 1, 16, f);
	put_record(f, HPCRUN_LIVE_REC_HEADER, "", 0, "program-name", "prog");
	put_record(f, HPCRUN_LIVE_REC_HEADER, "", 0, "thread-id", "");
	put_record(f, HPCRUN_LIVE_REC_HEADER, "", 0, "host-id", "0000abcd");
	memset(&m, 0, sizeof(m));
	m.period = 1;
	m.threshold = 1e6;
	m.is_frequency = 1;
	put_record(f, HPCRUN_LIVE_REC_METRIC, &m, sizeof(m), "perf::cpu-clock", "CPU");
	if (data) {
		static const uint8_t flags[16] = { 1, 0, 1, 0, 0, 0, 1, 0 };

		memset(&m, 0, sizeof(m));
		m.period = 1;
		memcpy(m.flags, flags, sizeof(flags));
		put_record(f, HPCRUN_LIVE_REC_METRIC, &m, sizeof(m), "DATA:bytes",
			   "bytes");
	}
	put_record(f, HPCRUN_LIVE_REC_MODULE, &id, 2, "/bin/prog", "abcdef");
	fputs("cut short", f);
	fclose(f);
	strbuf_release(&p);
}

static void write_proc(void)
{
	write_proc_of(0);
}

/* A live file of thread t: ^Primary, | Main, ^Partial, then a path of
 * two frames in module 1 with value v at its leaf; bad_parent != 0 gives
 * the leaf that parent. */
static void write_live(int t, double v, uint32_t bad_parent)
{
	static unsigned char buf[HPCRUN_LIVE_HEADER + 8 * NODE_BYTES];
	struct hpcrun_live_header *h = (void *)buf;
	struct strbuf p = STRBUF_INIT;
	static const struct { uint64_t addr; uint32_t parent; uint16_t lm; } n[] = {
		{ 0x5e5072696d617279ULL, 0, 0 },	/* "^Primary" */
		{ 0x7c204d61696e2020ULL, 12, 0 },	/* "| Main  " */
		{ 0x5e5061727469616cULL, 0, 0 },	/* "^Partial" */
		{ 0x1000, 14, 1 },
		{ 0x2000, 18, 1 },
	};
	size_t i;
	int fd;

	memset(buf, 0, sizeof(buf));
	memcpy(h->magic, HPCRUN_LIVE_MAGIC, 16);
	h->version = HPCRUN_LIVE_VERSION;
	h->byte_order = HPCRUN_LIVE_BYTE_ORDER;
	h->header_bytes = HPCRUN_LIVE_HEADER;
	h->node_bytes = NODE_BYTES;
	h->nmetrics = 1;
	h->thread = (uint32_t)t;
	h->pid = 4242;
	h->nchunks = 1;
	h->chunk[0].bytes = sizeof(buf);
	h->chunk[0].nodes = 5;
	h->nsamples[0] = 7;
	for (i = 0; i < 5; i++) {
		struct hpcrun_live_node ln;
		double val = i == 4 ? v : 0;

		memset(&ln, 0, sizeof(ln));
		ln.addr = n[i].addr;
		ln.id = (uint32_t)(12 + 2 * i);
		ln.parent = i == 4 && bad_parent ? bad_parent : n[i].parent;
		ln.lm = n[i].lm;
		memcpy(buf + HPCRUN_LIVE_HEADER + i * NODE_BYTES, &ln, sizeof(ln));
		memcpy(buf + HPCRUN_LIVE_HEADER + i * NODE_BYTES + sizeof(ln), &val, 8);
	}
	strbuf_addf(&p, "%s/" PREFIX HPCRUN_LIVE_SUFFIX, dir, t);
	fd = open(p.buf, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	CHECK(write(fd, buf, sizeof(buf)) == (ssize_t)sizeof(buf));
	close(fd);
	strbuf_release(&p);
}

static struct hpcrun_profile *read_thread(int t)
{
	struct strbuf p = STRBUF_INIT;
	struct hpcrun_profile *prof;

	strbuf_addf(&p, "%s/" PREFIX ".hpcrun", dir, t);
	prof = hpcrun_fmt_read(p.buf);
	strbuf_release(&p);
	return prof;
}

static int exists(const char *suffix, int t)
{
	struct strbuf p = STRBUF_INIT;
	int r;

	strbuf_addf(&p, "%s/" PREFIX "%s", dir, t, suffix);
	r = !access(p.buf, F_OK);
	strbuf_release(&p);
	return r;
}

static void test_recovers(void)
{
	struct hpcrun_profile *p;
	double v;

	write_proc();
	write_live(0, 3e6, 0);
	write_live(1, 5e6, 0);
	said[0] = '\0';
	CHECK_INT(hpcrun_live_recover(dir, say, NULL), 2);
	CHECK(strstr(said, "recovered 2 profiles of killed process 4242 (prog)"));
	CHECK(!exists(HPCRUN_LIVE_SUFFIX, 0) && !exists(HPCRUN_LIVE_SUFFIX, 1));
	CHECK(!exists(HPCRUN_LIVE_PROC_SUFFIX, 0));
	p = read_thread(1);
	CHECK(p != NULL);
	if (!p)
		return;
	CHECK_INT(p->nnodes, 4);		/* no "^Partial": no failed unwinds */
	CHECK_INT(p->nodes[2].id, 18);
	CHECK_INT(p->nodes[3].parent, 18);
	CHECK_INT(p->nodes[3].addr, 0x2000);
	CHECK_INT(p->nctxs, 1);
	memcpy(&v, &p->values[0].bits, 8);
	CHECK(v == 5e6);
	CHECK_INT(p->metrics[0].nsamples, 7);
	CHECK_STR(p->metrics[0].name, "perf::cpu-clock");
	CHECK_STR(hpcrun_profile_header(p, "thread-id"), "1");
	CHECK_STR(hpcrun_profile_header(p, "build-id-1"), "abcdef");
	CHECK_STR(hpcrun_profile_header(p, "hpcrun-recovered"), "killed");
	CHECK_INT(p->nlms, 1);
	CHECK_INT(p->lms[0].flags, HPCRUN_LM_ANALYZE);
	hpcrun_profile_free(p);
	said[0] = '\0';
	CHECK_INT(hpcrun_live_recover(dir, say, NULL), 0);	/* nothing left */
	CHECK_STR(said, "");
}

static void test_torn(void)
{
	struct hpcrun_profile *p;

	write_proc();
	write_live(2, 1e6, 20);		/* the leaf names itself its parent */
	CHECK_INT(hpcrun_live_recover(dir, say, NULL), 1);
	p = read_thread(2);
	CHECK(p != NULL);
	if (p)
		CHECK_INT(p->nnodes, 3);	/* up to the bad node */
	hpcrun_profile_free(p);
}

/* A free file (its magic cleared, a finished thread's tree left behind
 * it) beside a live one: removed, never recovered, not said. */
static void test_free(void)
{
	static const char zero[16];
	struct strbuf p = STRBUF_INIT;
	int fd;

	write_proc();
	write_live(4, 2e6, 0);
	write_live(5, 4e6, 0);
	strbuf_addf(&p, "%s/" PREFIX HPCRUN_LIVE_SUFFIX, dir, 5);
	fd = open(p.buf, O_WRONLY);
	CHECK(pwrite(fd, zero, sizeof(zero), 0) == (ssize_t)sizeof(zero));
	close(fd);
	said[0] = '\0';
	CHECK_INT(hpcrun_live_recover(dir, say, NULL), 1);
	CHECK(strstr(said, "recovered 1 profile of killed process 4242 (prog)"));
	CHECK(!strstr(said, "not recovered"));
	CHECK(exists(".hpcrun", 4) && !exists(".hpcrun", 5));
	CHECK(!exists(HPCRUN_LIVE_SUFFIX, 5) && !exists(HPCRUN_LIVE_PROC_SUFFIX, 0));
	strbuf_release(&p);
}

/* hpcrun --data's tree: a variable under "^Static " with its bytes, an
 * access path below it.  The live file holds doubles; the profile is
 * what hpcrun writes from the tree: the variable node flagged, DATA:bytes
 * an integer. */
static void test_data(void)
{
	static unsigned char buf[HPCRUN_LIVE_HEADER + 8 * (NODE_BYTES + 8)];
	struct hpcrun_live_header *h = (void *)buf;
	struct hpcrun_profile *p;
	struct strbuf path = STRBUF_INIT;
	static const struct {
		uint64_t addr; uint32_t parent; uint16_t lm; double v[2];
	} n[] = {
		{ 0x5e5072696d617279ULL, 0, 0, { 0, 0 } },	/* "^Primary" */
		{ 0x7c204d61696e2020ULL, 12, 0, { 0, 0 } },	/* "| Main  " */
		{ 0x5e5061727469616cULL, 0, 0, { 0, 0 } },	/* "^Partial" */
		{ 0x5e53746174696320ULL, 0, 0, { 0, 0 } },	/* "^Static " */
		{ 0x4060, 18, 1, { 0, 524288 } },		/* a variable */
		{ 0x5e41636365737320ULL, 20, 0, { 0, 0 } },	/* "^Access " */
		{ 0x1223, 22, 1, { 2e6, 0 } },
	};
	size_t i;
	double v;
	int fd;

	write_proc_of(1);
	memset(buf, 0, sizeof(buf));
	memcpy(h->magic, HPCRUN_LIVE_MAGIC, 16);
	h->version = HPCRUN_LIVE_VERSION;
	h->byte_order = HPCRUN_LIVE_BYTE_ORDER;
	h->header_bytes = HPCRUN_LIVE_HEADER;
	h->node_bytes = NODE_BYTES + 8;
	h->nmetrics = 2;
	h->thread = 6;
	h->pid = 4242;
	h->nchunks = 1;
	h->chunk[0].bytes = sizeof(buf);
	h->chunk[0].nodes = 7;
	for (i = 0; i < 7; i++) {
		unsigned char *q = buf + HPCRUN_LIVE_HEADER + i * (NODE_BYTES + 8);
		struct hpcrun_live_node ln;

		memset(&ln, 0, sizeof(ln));
		ln.addr = n[i].addr;
		ln.id = (uint32_t)(12 + 2 * i);
		ln.parent = n[i].parent;
		ln.lm = n[i].lm;
		memcpy(q, &ln, sizeof(ln));
		memcpy(q + sizeof(ln), n[i].v, sizeof(n[i].v));
	}
	strbuf_addf(&path, "%s/" PREFIX HPCRUN_LIVE_SUFFIX, dir, 6);
	fd = open(path.buf, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	CHECK(write(fd, buf, sizeof(buf)) == (ssize_t)sizeof(buf));
	close(fd);
	strbuf_release(&path);
	CHECK_INT(hpcrun_live_recover(dir, say, NULL), 1);
	p = read_thread(6);
	CHECK(p != NULL);
	if (!p)
		return;
	CHECK_INT(p->nnodes, 6);		/* no "^Partial" */
	for (i = 0; i < p->nnodes; i++)
		CHECK_INT(p->nodes[i].flags, p->nodes[i].id == 20 ?
			  HPCRUN_NODE_VARIABLE : HPCRUN_NODE_UNWOUND);
	CHECK_INT(p->nctxs, 2);
	CHECK_INT(p->ctxs[0].ctx, 20);
	CHECK_INT(p->values[0].metric, 1);
	CHECK_INT(p->values[0].bits, 524288);
	CHECK_INT(p->ctxs[1].ctx, 24);
	CHECK_INT(p->values[1].metric, 0);
	memcpy(&v, &p->values[1].bits, 8);
	CHECK(v == 2e6);
	hpcrun_profile_free(p);
}

static void test_bad_header(void)
{
	struct strbuf p = STRBUF_INIT;
	size_t bad = 0;
	int fd;

	write_proc();
	strbuf_addf(&p, "%s/" PREFIX HPCRUN_LIVE_SUFFIX, dir, 3);
	fd = open(p.buf, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	CHECK(write(fd, "HPCRUN-live_____", 16) == 16);
	close(fd);
	said[0] = '\0';
	CHECK_INT(hpcrun_live_recover(dir, say, &bad), 0);
	CHECK(strstr(said, "truncated live file: not recovered"));
	CHECK_INT(bad, 1);
	CHECK(exists(HPCRUN_LIVE_SUFFIX, 3) && exists(HPCRUN_LIVE_PROC_SUFFIX, 0));
	strbuf_release(&p);
}

int main(void)
{
	struct strbuf cmd = STRBUF_INIT;

	if (!mkdtemp(dir))
		return 1;
	unit_run("a live file becomes the profile it describes", test_recovers);
	unit_run("a torn tree ends at its first bad node", test_torn);
	unit_run("a free file is removed, never recovered", test_free);
	unit_run("a data-centric tree becomes the profile hpcrun writes", test_data);
	unit_run("a bad header is said, the files left", test_bad_header);
	strbuf_addf(&cmd, "rm -rf %s", dir);
	if (system(cmd.buf))
		return 1;
	strbuf_release(&cmd);
	return unit_done();
}
