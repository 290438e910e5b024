/* hpcshare-read.c - the .hpcshare reader (see hpcshare.h, man/hpcrun.5,
 * Sharing files). */
#include <stdlib.h>
#include <string.h>

#include "error.h"
#include "hashmap.h"
#include "hpcshare.h"
#include "strbuf.h"
#include "textrec.h"

char *hpcshare_path_for(const char *profile)
{
	return textrec_path_for(profile, HPCSHARE_SUFFIX);
}

static void node_release(struct hpcshare_node *n)
{
	free(n->lo);
	free(n->hi);
}

void hpcshare_free(struct hpcshare *s)
{
	size_t i;

	if (!s)
		return;
	for (i = 0; i < s->nnodes; i++)
		node_release(&s->nodes[i]);
	free(s->nodes);
	free(s->path);
	free(s->objs);
	free(s->accesses);
	hmap_free(s->index);
	free(s);
}

long hpcshare_cpu_node(const struct hpcshare *s, uint32_t cpu)
{
	size_t i, k;

	for (i = 0; i < s->nnodes; i++)
		for (k = 0; k < s->nodes[i].nranges; k++)
			if (cpu >= s->nodes[i].lo[k] && cpu <= s->nodes[i].hi[k])
				return (long)i;
	return -1;
}

/* The parse of one file. */
struct parser {
	struct textrec *r;
	struct hpcshare *s;
	size_t ntopology;	/* nodes the topology line announced */
	int seen_topology;
	size_t objs_alloc, accesses_alloc;
};

static int bad(struct parser *p, const char *what)
{
	return textrec_bad(p->r, what);
}

/* Parses CPULIST ("0-3,8") in field i into n. */
static int cpulist(struct parser *p, int i, struct hpcshare_node *n)
{
	char *c = p->r->f[i], *end;
	size_t alloc = 0;

	for (;;) {
		unsigned long lo, hi;

		if (*c < '0' || *c > '9')
			return bad(p, "expected a CPU list (0-3,8)");
		lo = hi = strtoul(c, &end, 10);
		if (*end == '-') {
			c = end + 1;
			if (*c < '0' || *c > '9')
				return bad(p, "expected a CPU list (0-3,8)");
			hi = strtoul(c, &end, 10);
		}
		if (lo > hi || hi > HPCSHARE_MAX_CPU)
			return bad(p, "bad CPU range");
		if (n->nranges >= HPCSHARE_MAX_CPU)
			return bad(p, "too many CPU ranges");
		if (n->nranges == alloc) {
			alloc = alloc ? 2 * alloc : 4;
			n->lo = xrealloc(n->lo, alloc * sizeof(*n->lo));
			n->hi = xrealloc(n->hi, alloc * sizeof(*n->hi));
		}
		n->lo[n->nranges] = (uint32_t)lo;
		n->hi[n->nranges++] = (uint32_t)hi;
		if (!*end)
			return 0;
		if (*end != ',')
			return bad(p, "expected a CPU list (0-3,8)");
		c = end + 1;
	}
}

static int rec_topology(struct parser *p)
{
	uint64_t n;

	if (p->r->nf != 3 || (strcmp(p->r->f[1], HPCSHARE_VIRTUAL) &&
			      strcmp(p->r->f[1], HPCSHARE_REAL)))
		return bad(p, "topology wants virtual|real NODES");
	if (textrec_u64(p->r, 2, &n))
		return -1;
	if (n < 1 || n > HPCSHARE_MAX_NODES)
		return bad(p, "topology: NODES out of range (1 to 1024)");
	if (p->seen_topology)
		return bad(p, "topology given twice");
	p->seen_topology = 1;
	p->ntopology = (size_t)n;
	p->s->virtual_topology = !strcmp(p->r->f[1], HPCSHARE_VIRTUAL);
	p->s->nodes = xcalloc(p->ntopology, sizeof(*p->s->nodes));
	return 0;
}

static int rec_node(struct parser *p)
{
	struct hpcshare_node n;
	uint64_t i;

	if (p->r->nf != 3)
		return bad(p, "node wants I CPULIST");
	if (!p->seen_topology)
		return bad(p, "node before topology");
	if (textrec_u64(p->r, 1, &i))
		return -1;
	if (i != p->s->nnodes || i >= p->ntopology)
		return bad(p, "node out of order or beyond the topology");
	memset(&n, 0, sizeof(n));
	if (cpulist(p, 2, &n)) {
		node_release(&n);
		return -1;
	}
	p->s->nodes[p->s->nnodes++] = n;
	return 0;
}

static int rec_object(struct parser *p)
{
	struct hpcshare_object o;

	memset(&o, 0, sizeof(o));
	if (p->r->nf != 6)
		return bad(p, "object wants OID KIND START BYTES NODE");
	if (textrec_u32(p->r, 1, &o.id) || textrec_u64(p->r, 3, &o.start) ||
	    textrec_u64(p->r, 4, &o.bytes) || textrec_u32(p->r, 5, &o.node))
		return -1;
	if (!strcmp(p->r->f[2], hpcshare_kind_name(HPCSHARE_HEAP)))
		o.kind = HPCSHARE_HEAP;
	else if (!strcmp(p->r->f[2], hpcshare_kind_name(HPCSHARE_STATIC)))
		o.kind = HPCSHARE_STATIC;
	else
		return bad(p, "object kind is not heap or static");
	if (!o.bytes)
		return bad(p, "object of 0 bytes");
	if (o.start + o.bytes < o.start)
		return bad(p, "object beyond the address space");
	if (textrec_define(p->r, p->s->index, o.id, p->s->nobjs + 1,
			   "object id 0 is reserved", "object defined twice"))
		return -1;
	HPC_GROW(p->s->objs, p->s->nobjs + 1, p->objs_alloc);
	p->s->objs[p->s->nobjs++] = o;
	return 0;
}

/* "watched OID": hpcrun --watch named the object, declared before. */
static int rec_watched(struct parser *p)
{
	uint32_t oid;
	uintptr_t v;

	if (p->r->nf != 2)
		return bad(p, "watched wants OID");
	if (textrec_u32(p->r, 1, &oid))
		return -1;
	v = (uintptr_t)hmap_get(p->s->index, &oid, sizeof(oid));
	if (!v)
		return bad(p, "watched names an unknown object");
	p->s->objs[v - 1].watched = 1;
	return 0;
}

static int rec_access(struct parser *p)
{
	struct hpcshare_access a;
	uint64_t time, size;
	uint32_t cpu, oid, node, first;
	const char *rw = p->r->f[6];
	uintptr_t v;

	if (p->r->nf != 9)
		return bad(p, "access wants TIME CPU OID OFFSET SIZE RW FIRST "
			   "NODE");
	memset(&a, 0, sizeof(a));
	if (textrec_u64(p->r, 1, &time) || textrec_u32(p->r, 2, &cpu) ||
	    textrec_u32(p->r, 3, &oid) || textrec_u64(p->r, 4, &a.offset) ||
	    textrec_u64(p->r, 5, &size) || textrec_u32(p->r, 7, &first) ||
	    textrec_u32(p->r, 8, &node))
		return -1;
	v = oid ? (uintptr_t)hmap_get(p->s->index, &oid, sizeof(oid)) : 0;
	if (!v)
		return bad(p, "access names an object not declared before it");
	if (a.offset >= p->s->objs[v - 1].bytes)
		return bad(p, "access offset beyond its object");
	if (size > 64)
		return bad(p, "access size above 64 bytes");
	if (first > 1)
		return bad(p, "access FIRST is not 0 or 1");
	if (!strcmp(rw, hpcshare_rw_name(HPCSHARE_R)))
		a.rw = HPCSHARE_R;
	else if (!strcmp(rw, hpcshare_rw_name(HPCSHARE_W)))
		a.rw = HPCSHARE_W;
	else if (!strcmp(rw, hpcshare_rw_name(HPCSHARE_U)))
		a.rw = HPCSHARE_U;
	else
		return bad(p, "access RW is not r, w or u");
	if (p->s->naccesses && time < p->s->accesses[p->s->naccesses - 1].time)
		return bad(p, "access earlier than the one before it");
	a.time = time;
	a.cpu = cpu;
	a.obj = (uint32_t)(v - 1);
	a.size = (uint8_t)size;
	a.first = (uint8_t)first;
	a.node = node;
	HPC_GROW(p->s->accesses, p->s->naccesses + 1, p->accesses_alloc);
	p->s->accesses[p->s->naccesses++] = a;
	return 0;
}

static int parse_line(struct textrec *r, void *arg)
{
	struct parser *p = arg;
	const char *k = r->f[0];
	long v;
	uint64_t u;

	p->r = r;
	if (r->lineno == 1)
		return !strcmp(k, HPCSHARE_MAGIC) && r->nf == 2 &&
		       !strcmp(r->f[1], HPCSHARE_VERSION) ? 0
			: bad(p, "not a sharing file (no 'hpcshare: 1')");
	if (k[0] == '#')
		return 0;
	if (!strcmp(k, HPCSHARE_THREAD) || !strcmp(k, HPCSHARE_RANK)) {
		int thread = !strcmp(k, HPCSHARE_THREAD);

		if (r->nf != 2 || textrec_long(r, 1, thread ? 0 : -1,
					       INT32_MAX, &v))
			return r->nf != 2 ? bad(p, "expected a number") : -1;
		*(thread ? &p->s->thread : &p->s->rank) = v;
		return 0;
	}
	if (!strcmp(k, HPCSHARE_TOPOLOGY))
		return rec_topology(p);
	if (!strcmp(k, HPCSHARE_NODE))
		return rec_node(p);
	if (!strcmp(k, HPCSHARE_PAGE_SIZE)) {
		if (r->nf != 2 || textrec_u64(r, 1, &u))
			return r->nf != 2 ? bad(p, "page-size wants BYTES") : -1;
		if (u < 64 || (u & (u - 1)) || u > ((uint64_t)1 << 40))
			return bad(p, "page-size is not a power of two from "
				   "64");
		p->s->page_size = u;
		return 0;
	}
	if (!strcmp(k, HPCSHARE_SPAN)) {
		if (r->nf != 3)
			return bad(p, "span wants BEGIN END");
		if (textrec_u64(r, 1, &p->s->span_begin) ||
		    textrec_u64(r, 2, &p->s->span_end))
			return -1;
		if (p->s->span_end < p->s->span_begin)
			return bad(p, "span ends before it begins");
		p->s->has_span = 1;
		return 0;
	}
	if (!strcmp(k, HPCSHARE_OBJECT))
		return rec_object(p);
	if (!strcmp(k, HPCSHARE_ACCESS))
		return rec_access(p);
	if (!strcmp(k, HPCSHARE_WATCHED))
		return rec_watched(p);
	if (!strcmp(k, HPCSHARE_DROPPED) || !strcmp(k, HPCSHARE_UNTRACKED))
		return r->nf != 2 ? bad(p, "expected a number")
			: textrec_u64(r, 1, !strcmp(k, HPCSHARE_DROPPED) ?
				      &p->s->dropped : &p->s->untracked) ?
			  -1 : 0;
	if (!strcmp(k, "summary")) {
		/* files of page-protection sampling: EPOCHS FAULTS DROPPED
		 * WATCHED_PAGES */
		if (r->nf != 5)
			return bad(p, "summary wants EPOCHS FAULTS DROPPED "
				   "WATCHED_PAGES");
		return textrec_u64(r, 3, &p->s->dropped) ? -1 : 0;
	}
	return 0;	/* a record of a later version */
}

struct range {
	uint32_t lo, hi;
};

static int cmp_range(const void *a, const void *b)
{
	const struct range *x = a, *y = b;

	return x->lo < y->lo ? -1 : x->lo > y->lo;
}

/* Does a CPU appear in two nodes (or twice in one)? */
static int cpus_overlap(const struct hpcshare *s)
{
	struct range *r;
	size_t i, k, n = 0;
	int over = 0;

	for (i = 0; i < s->nnodes; i++)
		n += s->nodes[i].nranges;
	r = xcalloc(n ? n : 1, sizeof(*r));
	for (i = 0, n = 0; i < s->nnodes; i++)
		for (k = 0; k < s->nodes[i].nranges; k++, n++) {
			r[n].lo = s->nodes[i].lo[k];
			r[n].hi = s->nodes[i].hi[k];
		}
	qsort(r, n, sizeof(*r), cmp_range);
	for (i = 1; i < n && !over; i++)
		over = r[i].lo <= r[i - 1].hi;
	free(r);
	return over;
}

struct hpcshare *hpcshare_read(const char *path)
{
	struct parser p;
	long n;

	memset(&p, 0, sizeof(p));
	p.s = xcalloc(1, sizeof(*p.s));
	p.s->path = xstrdup(path);
	p.s->thread = p.s->rank = -1;
	p.s->page_size = 4096;
	p.s->index = hmap_new();
	n = textrec_read(path, HPCSHARE_MAX_BYTES, HPCSHARE_MAX_LINE,
			 "a sharing file", parse_line, &p);
	if (n == 0)
		hpc_seterr("'%s': empty sharing file", path);
	if (n > 0 && p.s->nnodes != p.ntopology)
		n = hpc_seterr("'%s': topology announces %zu nodes, the file "
			       "lists %zu", path, p.ntopology, p.s->nnodes);
	if (n > 0 && cpus_overlap(p.s))
		n = hpc_seterr("'%s': a CPU is in two NUMA nodes", path);
	if (n <= 0) {
		hpcshare_free(p.s);
		return NULL;
	}
	return p.s;
}
