/*
 * cct.c - the per-thread calling context tree and its arena, and the
 * conversion of a thread's tree into a .hpcrun profile.
 *
 * Invariants:
 *  1. Nodes come from one mmap'ed arena per thread, bump-allocated and
 *     never freed one by one: the handler allocates without malloc or
 *     locks; the whole arena goes at thread end (cct_release).
 *  2. A node's children are a singly linked sibling list; a found child is
 *     moved to the front, so hot paths cost one comparison per level.
 *  3. Node ids are even, from 12 up, in creation order (parents before
 *     children), as in HPCToolkit's files.
 *  4. Roots: "^Primary" holds "| Main  " (main thread) or "| Thread"; full
 *     paths hang below that, paths that reached the stack bottom without
 *     passing main hang directly under "^Primary", and failed unwinds under
 *     the separate root "^Partial".
 *
 * cct_write_profile() is async-signal-safe too (it may run in a fatal
 * signal handler): its scratch memory comes from mmap.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "hpcrun-fmt.h"
#include "runtime.h"

#define ARENA_BYTES ((size_t)64 << 20)
/* Header pairs: the eleven HPCToolkit writes, then a build-id-ID pair for
 * each module with samples and a build ID (buildid.h). */
#define NHEADER 11
#define BUILDID_NAME_SIZE (sizeof(HPC_BUILDID_HEADER) + 8)

static uint64_t placeholder(const char *s)
{
	uint64_t v = 0;
	int i;

	for (i = 0; i < 8; i++)
		v = (v << 8) | (unsigned char)s[i];
	return v;
}

static struct cct_node *node_new(struct cct *c, struct cct_node *parent,
				 uint16_t lm, uint64_t addr)
{
	struct cct_node *n;

	if ((size_t)(c->end - c->cur) < c->node_size)
		return NULL;
	n = (struct cct_node *)(void *)c->cur;
	c->cur += c->node_size;
	memset(n, 0, c->node_size);
	n->addr = addr;
	n->lm = lm;
	n->id = c->next_id;
	c->next_id += 2;
	c->nnodes++;
	n->parent = parent;
	if (parent) {
		n->sibling = parent->child;
		parent->child = n;
	}
	return n;
}

int cct_init(struct cct *c, size_t nvals, int main_thread)
{
	void *p = mmap(NULL, ARENA_BYTES, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);

	memset(c, 0, sizeof(*c));
	if (p == MAP_FAILED)
		return -errno;
	c->base = c->cur = p;
	c->end = c->base + ARENA_BYTES;
	c->node_size = (sizeof(struct cct_node) + nvals * sizeof(double) + 7) & ~(size_t)7;
	c->next_id = 12;
	c->primary = node_new(c, NULL, 0, placeholder("^Primary"));
	c->top = node_new(c, c->primary, 0,
			  placeholder(main_thread ? "| Main  " : "| Thread"));
	c->partial = node_new(c, NULL, 0, placeholder("^Partial"));
	return 0;
}

void cct_release(struct cct *c)
{
	if (c->base)
		munmap(c->base, ARENA_BYTES);
	memset(c, 0, sizeof(*c));
}

int cct_insert(struct cct *c, struct cct_node *root, const uintptr_t *frames,
	       int n, uint64_t time, int idx, double val)
{
	const struct rt_module *m = NULL;
	struct cct_node *cur = root;
	int i;

	for (i = n - 1; i >= 0; i--) {
		struct cct_node *ch, *prev = NULL;
		uint64_t addr;
		uint16_t lm;

		if (!m || frames[i] < m->lo || frames[i] >= m->hi)
			m = rt_module_at(frames[i], time);
		if (!m)
			return -2;
		lm = m->id;
		addr = frames[i] - m->bias;
		for (ch = cur->child; ch; prev = ch, ch = ch->sibling)
			if (ch->addr == addr && ch->lm == lm)
				break;
		if (ch && prev) {		/* move to front */
			prev->sibling = ch->sibling;
			ch->sibling = cur->child;
			cur->child = ch;
		}
		if (!ch) {
			ch = node_new(c, cur, lm, addr);
			if (!ch)
				return -1;
		}
		cur = ch;
	}
	cur->val[idx] += val;
	return 0;
}

/* Preorder successor of n within the forest rooted at n's top ancestor. */
static struct cct_node *next_preorder(struct cct_node *n)
{
	if (n->child)
		return n->child;
	while (n) {
		if (n->sibling)
			return n->sibling;
		n = n->parent;
	}
	return NULL;
}

/* mmap'ed scratch; returns NULL on failure. */
static void *scratch(size_t bytes)
{
	void *p = mmap(NULL, bytes ? bytes : 1, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	return p == MAP_FAILED ? NULL : p;
}

int cct_write_profile(struct rt_thread *td)
{
	static const char *const kinds[] = {
		"SUMMARY", "NODE", "RANK", "THREAD", "GPUDEVICE", "GPUCONTEXT",
		"GPUSTREAM", "CORE",
	};
	struct cct *c = &td->cct;
	struct hpcrun_profile p;
	struct hpcrun_kv *hdr;
	struct hpcrun_metric met[HPCRUN_MAX_EVENTS];
	struct hpcrun_idkind_name idk[8];
	struct hpcrun_id_elem tuple[3];
	char tidbuf[24], hostbuf[24], pidbuf[24], rankbuf[24];
	const struct rt_module *const *mods;
	struct cct_node *n;
	size_t nmods, i, bytes, nvals = 0, nctx = 0, nnodes = 0;
	unsigned char *used;
	char *mem, *names;
	int fd, err, e;

	if (!c->base)
		return -EINVAL;
	mods = rt_module_all(&nmods);
	for (n = c->primary; n; n = next_preorder(n))
		for (e = 0; e < rt_cfg.nev; e++)
			nvals += n->val[e] != 0;
	for (n = c->partial; n; n = next_preorder(n))
		for (e = 0; e < rt_cfg.nev; e++)
			nvals += n->val[e] != 0;
	bytes = c->nnodes * sizeof(struct hpcrun_node) +
		nvals * sizeof(struct hpcrun_value) +
		c->nnodes * sizeof(struct hpcrun_ctx_values) +
		nmods * sizeof(struct hpcrun_lm) +
		(NHEADER + nmods) * sizeof(struct hpcrun_kv) + nmods + 2 +
		nmods * BUILDID_NAME_SIZE;
	mem = scratch(bytes);
	if (!mem)
		return -ENOMEM;
	memset(&p, 0, sizeof(p));
	p.nodes = (struct hpcrun_node *)(void *)mem;
	p.values = (struct hpcrun_value *)(void *)(p.nodes + c->nnodes);
	p.ctxs = (struct hpcrun_ctx_values *)(void *)(p.values + nvals);
	p.lms = (struct hpcrun_lm *)(void *)(p.ctxs + c->nnodes);
	hdr = (struct hpcrun_kv *)(void *)(p.lms + nmods);
	used = (unsigned char *)(hdr + NHEADER + nmods);
	names = (char *)used + nmods + 2;
	nvals = 0;
	for (i = 0; i < 2; i++) {
		struct cct_node *root = i ? c->partial : c->primary;

		if (i && !root->child)
			continue;	/* no failed unwinds: no "^Partial" */
		for (n = root; n; n = next_preorder(n)) {
			struct hpcrun_node *o = &p.nodes[nnodes++];
			int any = 0;

			o->id = n->id;
			o->parent = n->parent ? n->parent->id : 0;
			o->lm = n->lm;
			o->addr = n->addr;
			o->flags = HPCRUN_NODE_UNWOUND;
			if (n->lm && n->lm <= nmods)
				used[n->lm] = 1;
			for (e = 0; e < rt_cfg.nev; e++) {
				if (n->val[e] == 0)
					continue;
				if (!any) {
					p.ctxs[nctx].ctx = n->id;
					p.ctxs[nctx++].first = nvals;
					any = 1;
				}
				p.values[nvals].metric = (uint16_t)e;
				memcpy(&p.values[nvals++].bits, &n->val[e], 8);
			}
		}
	}
	p.nnodes = nnodes;
	p.nvalues = nvals;
	p.nctxs = (uint32_t)nctx;
	for (i = 0; i < nmods; i++) {
		p.lms[i].id = mods[i]->id;
		p.lms[i].path = mods[i]->path;
		p.lms[i].flags = used[mods[i]->id] ? HPCRUN_LM_ANALYZE : 0;
	}
	p.nlms = nmods;

	rt_fmt_u64(tidbuf, (uint64_t)td->index, 10, 0);
	rt_fmt_u64(hostbuf, rt_cfg.hostid, 16, 8);
	rt_fmt_u64(pidbuf, (uint64_t)rt_pid, 10, 0);
	rt_fmt_u64(rankbuf, rt_cfg.rank, 10, 0);
	hdr[0] = (struct hpcrun_kv){ "program-name", rt_cfg.progname };
	hdr[1] = (struct hpcrun_kv){ "program-path", rt_cfg.exe };
	hdr[2] = (struct hpcrun_kv){ "env-path", "" };
	hdr[3] = (struct hpcrun_kv){ "job-id", "" };
	hdr[4] = (struct hpcrun_kv){ "mpi-rank", rankbuf };
	hdr[5] = (struct hpcrun_kv){ "thread-id", tidbuf };
	hdr[6] = (struct hpcrun_kv){ "host-id", hostbuf };
	hdr[7] = (struct hpcrun_kv){ "process-id", pidbuf };
	hdr[8] = (struct hpcrun_kv){ "trace-min-time", "0" };
	hdr[9] = (struct hpcrun_kv){ "trace-max-time", "0" };
	hdr[10] = (struct hpcrun_kv){ "trace-disorder", "0" };
	hdr[2].value = rt_env_path;
	p.header = hdr;
	p.nheader = NHEADER;
	for (i = 0; i < nmods; i++) {
		char *name = names + i * BUILDID_NAME_SIZE;

		if (!used[mods[i]->id] || !mods[i]->buildid[0])
			continue;
		memcpy(name, HPC_BUILDID_HEADER, sizeof(HPC_BUILDID_HEADER) - 1);
		rt_fmt_u64(name + sizeof(HPC_BUILDID_HEADER) - 1, mods[i]->id,
			   10, 0);
		hdr[p.nheader++] = (struct hpcrun_kv){ name, mods[i]->buildid };
	}

	memset(met, 0, sizeof(met));
	for (e = 0; e < rt_cfg.nev; e++) {
		const struct rt_event *ev = &rt_cfg.ev[e];
		static const uint8_t flags[16] = { 1, 0, 2, 0, 0, 0, 1, 1 };

		met[e].name = ev->metric;
		met[e].description = ev->desc;
		memcpy(met[e].flags, flags, sizeof(flags));
		met[e].period = ev->metric_period;
		met[e].formula = "";
		met[e].format = "";
		met[e].is_frequency = (uint16_t)ev->is_frequency;
		met[e].threshold = ev->threshold;
		met[e].nsamples = td->nsamples[e];
	}
	p.metrics = met;
	p.nmetrics = (uint32_t)rt_cfg.nev;
	for (i = 0; i < 8; i++) {
		idk[i].kind = (uint16_t)i;
		idk[i].name = kinds[i];
	}
	p.idkinds = idk;
	p.nidkinds = 8;
	tuple[0] = (struct hpcrun_id_elem){ 0x4001, rt_cfg.hostid, 0 };
	tuple[1] = (struct hpcrun_id_elem){ 0xc007, 0, 0 };
	tuple[2] = (struct hpcrun_id_elem){ 0xc003, (uint64_t)td->index,
					    (uint64_t)td->index };
	p.idtuple = tuple;
	p.nidtuple = 3;

	fd = rt_create_file(td->index, ".hpcrun");
	if (fd < 0) {
		munmap(mem, bytes ? bytes : 1);
		return fd;
	}
	err = hpcrun_fmt_write(fd, &p);
	if (close(fd) && !err)
		err = -errno;
	munmap(mem, bytes ? bytes : 1);
	return err;
}
