/*
 * cct.c - the per-thread calling context tree and its arena (the
 * .hpcrun profile is written from it by output.c).
 *
 * Invariants:
 *  1. Nodes come from one arena per thread, bump-allocated and never freed
 *     one by one: the handler allocates without malloc or locks; the whole
 *     arena goes at thread end (cct_release).  The arena is the thread's
 *     live file (hpcrun-live.h), mapped MAP_SHARED in chunks: 64 KiB with
 *     the file's header first, each next one twice the last (at most
 *     16 MiB, 256 MiB in all), so a killed process's tree is on disk and
 *     a thread costs address space in proportion to its tree.
 *  2. A node's children are a singly linked sibling list; a found child is
 *     moved to the front, so hot paths cost one comparison per level.
 *  3. Node ids are even, from 12 up, in creation order (parents before
 *     children), as in HPCToolkit's files.
 *  4. Roots: "^Primary" holds "| Main  " (main thread) or "| Thread"; full
 *     paths hang below that, paths that reached the stack bottom without
 *     passing main hang directly under "^Primary", and failed unwinds under
 *     the separate root "^Partial".
 *  5. A chunk's blocks are allocated (fallocate) before it is mapped: a
 *     shared mapping of a hole raises SIGBUS when the disk is full.  The
 *     handler opens no file and changes no limit: when the last chunk
 *     passes half full, it asks hpcrun's writer (fd-gate.c, THE WRITER)
 *     for the next one, which opens the live file in its own fd table,
 *     allocates and maps the chunk (RLIMIT_FSIZE lifted as for a profile,
 *     rt_io_private) and publishes the mapping (c->ahead); when the last
 *     chunk is full, the handler takes that mapping.  When it is not
 *     ready (the writer was slow: live_err EAGAIN) or the file cannot
 *     grow, chunks come from anonymous memory from then on (live_err
 *     says why; the profile written at the end still has everything, a
 *     killed process's live file lacks those nodes), and when no memory
 *     can be had, samples are dropped as "arena-full".  A chunk mapped
 *     ahead that the tree never takes is unmapped by cct_release.
 *  6. A node is written whole, then its chunk's count takes it in (the
 *     commit, a release store); hdr->updates is odd while cct_insert runs.
 *  7. Free files: a thread's live file whose profile is written
 *     (cct_done) is not removed but kept, with its first chunk mapped, in
 *     a pool of at most POOL_MAX files, when it never grew past that
 *     chunk; the next cct_init takes one, clears its header, renames it
 *     to its own thread's name (RENAME_NOREPLACE, the GEN rule of
 *     create_live) and sets the magic last.  So a churning program
 *     creates one file a thread (its profile), not two and a removal: on
 *     an ext4 each create scans past the inodes freed lately.  A pooled
 *     file's magic is all zero bytes, cleared before it is pooled and
 *     until its new tree is made: hpcprof removes such a file and never
 *     takes it for a tree (hpcrun-live.h).  The pool is a futex lock and
 *     an array, used outside the handler only; rt_process_finish closes
 *     it (its files removed), a fork child forgets the parent's.
 */
#include <errno.h>
#include <fcntl.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "cct.h"
#include "futex.h"
#include "kernel-time.h"
#include "loadmap.h"
#include "output.h"
#include "python-frames.h"
#include "runtime.h"

/* The first chunk (with the live file's header) and the largest; the
 * arena stops growing at CCT_MAX_BYTES (then samples are "arena-full"). */
#define FIRST_CHUNK ((size_t)64 << 10)
#define MAX_CHUNK ((size_t)16 << 20)
#define CCT_MAX_BYTES ((size_t)256 << 20)
/* Free live files kept for threads to come (invariant 7). */
#define POOL_MAX 128

static struct {
	unsigned lock;			/* rt_lock */
	int closed;
	int n;
	struct pooled {
		void *map;		/* its first chunk */
		int thread;		/* the name it has */
		unsigned gen;
	} file[POOL_MAX];
} pool;

_Static_assert(sizeof(struct cct_node) == sizeof(struct hpcrun_live_node) &&
	       offsetof(struct cct_node, id) == offsetof(struct hpcrun_live_node, id) &&
	       offsetof(struct cct_node, parent_id) ==
	       offsetof(struct hpcrun_live_node, parent) &&
	       offsetof(struct cct_node, lm) == offsetof(struct hpcrun_live_node, lm),
	       "a tree node is a live-file node");
_Static_assert(HPCRUN_MAX_EVENTS <= HPCRUN_LIVE_MAX_METRICS, "live header");

uint64_t cct_placeholder(const char *s)
{
	uint64_t v = 0;
	int i;

	for (i = 0; i < 8; i++)
		v = (v << 8) | (unsigned char)s[i];
	return v;
}

static size_t chunk_bytes(int i)
{
	size_t b = FIRST_CHUNK << (i < 8 ? i : 8);

	return b < MAX_CHUNK ? b : MAX_CHUNK;
}

/* Outside the handler: the first chunk (cct_init), the next ones on
 * hpcrun's writer (ahead_map). */
void *cct_map_file(const char *path, uint64_t off, size_t bytes, int *err)
{
	void *p = MAP_FAILED;
	int fd, e;

	e = rt_fsize_allow(off + bytes);
	if (e) {
		*err = -e;
		return NULL;
	}
	fd = (int)syscall(SYS_open, path, O_RDWR | O_CLOEXEC);
	if (fd < 0) {
		*err = errno;
	} else {
		e = fallocate(fd, 0, (off_t)off, (off_t)bytes) ? errno : 0;
		if (!e)
			p = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_SHARED,
				 fd, (off_t)off);
		*err = e ? e : p == MAP_FAILED ? errno : 0;
		syscall(SYS_close, fd);
	}
	rt_limit_drop(RLIMIT_FSIZE);
	return p == MAP_FAILED ? NULL : p;
}

/* The next chunk, mapped ahead (invariant 5): c->ahead.state. */
enum { AHEAD_NONE, AHEAD_ASKED, AHEAD_READY, AHEAD_FAILED, AHEAD_GIVEN_UP };

/* On hpcrun's writer, in its fd table, the program's limits lifted: maps
 * the chunk asked for, unless the handler gave up on it meanwhile. */
static int ahead_map(void *arg)
{
	struct cct *c = arg;
	unsigned asked = AHEAD_ASKED;
	int err = 0;
	void *p;

	if (__atomic_load_n(&c->ahead.state, __ATOMIC_SEQ_CST) != AHEAD_ASKED)
		return 0;
	p = cct_map_file(c->path, c->ahead.off, c->ahead.bytes, &err);
	c->ahead.map = p;
	c->ahead.err = err;
	if (!__atomic_compare_exchange_n(&c->ahead.state, &asked,
					 p ? AHEAD_READY : AHEAD_FAILED, 0,
					 __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST) && p)
		munmap(p, c->ahead.bytes);
	return 0;
}

static void ahead_post(struct rt_fd_post *p)
{
	rt_io_private(ahead_map, (char *)p - offsetof(struct cct, ahead.post));
}

/* The last chunk is half full: the next one of the live file is asked
 * of the writer. */
static void ahead_ask(struct cct *c)
{
	const struct hpcrun_live_header *h = c->hdr;
	uint64_t off = h->chunk[c->nmaps - 1].off + h->chunk[c->nmaps - 1].bytes;
	size_t bytes = chunk_bytes(c->nmaps);

	c->ahead.at = NULL;
	if (c->nmaps == HPCRUN_LIVE_MAX_CHUNKS || off + bytes > CCT_MAX_BYTES)
		return;
	c->ahead.off = off;
	c->ahead.bytes = bytes;
	__atomic_store_n(&c->ahead.state, AHEAD_ASKED, __ATOMIC_SEQ_CST);
	if (rt_fd_post(&c->ahead.post)) {
		c->ahead.err = EAGAIN;
		__atomic_store_n(&c->ahead.state, AHEAD_FAILED, __ATOMIC_SEQ_CST);
	}
}

/* The chunk mapped ahead, or NULL with c->live_err set (EAGAIN: the
 * writer has not mapped it yet, and need not any more). */
static void *ahead_take(struct cct *c)
{
	unsigned s = AHEAD_ASKED;

	if (__atomic_compare_exchange_n(&c->ahead.state, &s, AHEAD_GIVEN_UP, 0,
					__ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST)) {
		c->live_err = EAGAIN;
		return NULL;
	}
	if (s == AHEAD_READY) {
		__atomic_store_n(&c->ahead.state, AHEAD_NONE, __ATOMIC_SEQ_CST);
		return c->ahead.map;
	}
	c->live_err = s == AHEAD_FAILED ? c->ahead.err : EAGAIN;
	return NULL;
}

/* The writer is done with c, and the chunk it mapped ahead that the tree
 * never took is unmapped. */
static void ahead_drop(struct cct *c)
{
	rt_fd_post_wait(&c->ahead.post);
	if (c->ahead.state == AHEAD_READY)
		munmap(c->ahead.map, c->ahead.bytes);
}

/* Makes p (bytes at off of the file, or anonymous) chunk c->nmaps. */
static void use_chunk(struct cct *c, void *p, uint64_t off, size_t bytes)
{
	struct hpcrun_live_header *h = c->hdr;
	int i = c->nmaps;

	c->map[i] = p;
	c->map_bytes[i] = bytes;
	c->nmaps = i + 1;
	c->cur = p;
	c->end = c->cur + bytes;
	if (!i) {
		c->hdr = h = p;
		c->cur += HPCRUN_LIVE_HEADER;
	}
	c->ahead.at = c->live ? c->cur + (c->end - c->cur) / 2 : NULL;
	if (c->live) {
		h->chunk[i].off = off;
		h->chunk[i].bytes = bytes;
		h->chunk[i].nodes = 0;
		c->commit = &h->chunk[i].nodes;
		__atomic_store_n(&h->nchunks, (uint32_t)i + 1, __ATOMIC_RELEASE);
	} else {
		c->commit = &c->anon_commit;
	}
}

/*
 * Makes p (bytes of the live file at off, or NULL) chunk c->nmaps; with
 * NULL, anonymous memory is (a killed process then loses the nodes in
 * it; the profile written at the end has them).  0, or -1 when no memory.
 */
static int place_chunk(struct cct *c, size_t bytes, uint64_t off, void *p)
{
	if (!p) {
		c->live = 0;
		p = mmap(NULL, bytes, PROT_READ | PROT_WRITE,
			 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (p == MAP_FAILED)
			return -1;
	}
	use_chunk(c, p, off, bytes);
	return 0;
}

/* Adds the first chunk, of bytes, from the live file when there is one
 * (cct_init, outside the handler); 0, or -1 when no memory. */
static int add_chunk(struct cct *c, size_t bytes)
{
	void *p = NULL;

	if (c->live)
		p = cct_map_file(c->path, 0, bytes, &c->live_err);
	return place_chunk(c, bytes, 0, p);
}

/* Adds the next chunk, of bytes, in the handler: the one the writer
 * mapped ahead while the file lasts, else anonymous memory.  0, or -1
 * when the arena is full or no memory. */
static int grow(struct cct *c, size_t bytes)
{
	const struct hpcrun_live_header *h = c->hdr;
	uint64_t off = h->chunk[h->nchunks - 1].off + h->chunk[h->nchunks - 1].bytes;

	if (c->nmaps == HPCRUN_LIVE_MAX_CHUNKS || off + bytes > CCT_MAX_BYTES)
		return -1;
	return place_chunk(c, bytes, off, c->live ? ahead_take(c) : NULL);
}

static struct cct_node *node_new(struct cct *c, struct cct_node *parent,
				 uint16_t lm, uint64_t addr)
{
	struct cct_node *n;

	if ((size_t)(c->end - c->cur) < c->node_size &&
	    grow(c, chunk_bytes(c->nmaps)))
		return NULL;
	n = (struct cct_node *)(void *)c->cur;
	c->cur += c->node_size;
	if (c->ahead.at && c->cur >= c->ahead.at)
		ahead_ask(c);
	memset(n, 0, c->node_size);
	n->addr = addr;
	n->lm = lm;
	n->id = c->next_id;
	c->next_id += 2;
	c->nnodes++;
	n->parent = parent;
	n->parent_id = parent ? parent->id : 0;
	/* whole before the count takes it in (hpcrun-live.h) */
	__atomic_store_n(c->commit, *c->commit + 1, __ATOMIC_RELEASE);
	if (parent) {
		n->sibling = parent->child;
		parent->child = n;
	}
	return n;
}

/* Creates the thread's live file with a GEN whose .hpcrun is free too;
 * the fd or -errno. */
static int create_live(struct cct *c, int thread)
{
	char hp[4400];
	unsigned gen;

	for (gen = 0; gen < 1000; gen++) {
		int fd;

		if (!rt_file_path(c->path, thread, gen, HPCRUN_LIVE_SUFFIX) ||
		    !rt_file_path(hp, thread, gen, ".hpcrun"))
			return -ENAMETOOLONG;
		if (!access(hp, F_OK))
			continue;
		fd = open(c->path, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
		if (fd >= 0) {
			c->thread = thread;
			c->gen = gen;
		}
		if (fd >= 0 || errno != EEXIST)
			return fd >= 0 ? fd : -errno;
	}
	return -EEXIST;
}

/* Makes a free file of the pool c's live file, its header cleared and
 * renamed to a name of thread's found as create_live finds one, its first
 * chunk c's (invariant 7); 1, or 0 when the pool has none or the rename
 * fails (the file is then removed; a file system that cannot rename
 * without replacing closes the pool). */
static int reuse_live(struct cct *c, int thread)
{
	char old[4400], hp[4400];
	struct pooled f;
	unsigned gen;
	int err = 0;

	rt_lock_take(&pool.lock);
	if (__atomic_load_n(&pool.closed, __ATOMIC_SEQ_CST) || !pool.n) {
		rt_lock_drop(&pool.lock);
		return 0;
	}
	f = pool.file[--pool.n];
	rt_lock_drop(&pool.lock);
	memset(f.map, 0, HPCRUN_LIVE_HEADER);
	if (!rt_file_path(old, f.thread, f.gen, HPCRUN_LIVE_SUFFIX)) {
		munmap(f.map, FIRST_CHUNK);	/* no name: not a file of ours */
		return 0;
	}
	for (gen = 0; gen < 1000 && !err; gen++) {
		if (!rt_file_path(c->path, thread, gen, HPCRUN_LIVE_SUFFIX) ||
		    !rt_file_path(hp, thread, gen, ".hpcrun"))
			break;
		if (!access(hp, F_OK))
			continue;
		if (!renameat2(AT_FDCWD, old, AT_FDCWD, c->path, RENAME_NOREPLACE)) {
			c->thread = thread;
			c->gen = gen;
			c->live = 1;
			use_chunk(c, f.map, 0, FIRST_CHUNK);
			return 1;
		}
		if (errno != EEXIST)
			err = errno;
	}
	c->path[0] = '\0';
	unlink(old);
	munmap(f.map, FIRST_CHUNK);
	if (err == EINVAL || err == ENOSYS)
		cct_pool_close(1);
	return 0;
}

int cct_init(struct cct *c, size_t nvals, int thread)
{
	struct hpcrun_live_header *h;
	struct rt_io io;
	int fd, reused;

	memset(c, 0, sizeof(*c));
	c->ahead.post.fn = ahead_post;
	c->node_size = (sizeof(struct cct_node) + nvals * sizeof(double) + 7) & ~(size_t)7;
	rt_io_begin(&io);
	reused = reuse_live(c, thread);	/* its first chunk mapped */
	fd = reused ? -1 : create_live(c, thread);
	rt_io_end(&io);
	if (fd >= 0) {
		syscall(SYS_close, fd);
		c->live = 1;
	} else if (!reused) {
		c->live_err = -fd;
		c->path[0] = '\0';
	}
	if (!reused && add_chunk(c, FIRST_CHUNK)) {
		cct_unlink(c);
		return -ENOMEM;
	}
	if (!c->live && c->path[0]) {
		cct_unlink(c);		/* no blocks for it: not a live file */
		c->path[0] = '\0';
	}
	h = c->hdr;
	h->version = HPCRUN_LIVE_VERSION;
	h->byte_order = HPCRUN_LIVE_BYTE_ORDER;
	h->header_bytes = HPCRUN_LIVE_HEADER;
	h->node_bytes = (uint32_t)c->node_size;
	h->nmetrics = (uint32_t)nvals;
	h->thread = (uint32_t)thread;
	h->pid = (uint64_t)rt_pid;
	c->next_id = 12;
	c->primary = node_new(c, NULL, 0, cct_placeholder("^Primary"));
	c->top = node_new(c, c->primary, 0,
			  cct_placeholder(thread == 0 ? "| Main  " : "| Thread"));
	c->partial = node_new(c, NULL, 0, cct_placeholder("^Partial"));
	/* the magic last: a file without it was never a tree */
	memcpy(h->magic, HPCRUN_LIVE_MAGIC, sizeof(h->magic));
	return 0;
}

void cct_release(struct cct *c)
{
	int i;

	ahead_drop(c);
	for (i = c->pooled ? 1 : 0; i < c->nmaps; i++)
		munmap(c->map[i], c->map_bytes[i]);
	memset(c, 0, sizeof(*c));
}

void cct_unlink(struct cct *c)
{
	if (c->path[0])
		unlink(c->path);
}

void cct_done(struct cct *c)
{
	if (!c->path[0])
		return;
	if (c->live && c->nmaps == 1) {
		/* free before it is pooled: never taken for a tree */
		memset(c->hdr->magic, 0, sizeof(c->hdr->magic));
		rt_lock_take(&pool.lock);
		if (!__atomic_load_n(&pool.closed, __ATOMIC_SEQ_CST) &&
		    pool.n < POOL_MAX) {
			pool.file[pool.n].map = c->map[0];
			pool.file[pool.n].thread = c->thread;
			pool.file[pool.n++].gen = c->gen;
			c->pooled = 1;
		}
		rt_lock_drop(&pool.lock);
	}
	if (!c->pooled)
		unlink(c->path);
}

void cct_pool_close(int wait)
{
	char path[4400];
	unsigned free_lock = 0;

	__atomic_store_n(&pool.closed, 1, __ATOMIC_SEQ_CST);
	if (wait)
		rt_lock_take(&pool.lock);
	else if (!__atomic_compare_exchange_n(&pool.lock, &free_lock, 1, 0,
					      __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST))
		return;
	while (pool.n) {
		struct pooled *f = &pool.file[--pool.n];

		if (rt_file_path(path, f->thread, f->gen, HPCRUN_LIVE_SUFFIX))
			unlink(path);
		munmap(f->map, FIRST_CHUNK);
	}
	rt_lock_drop(&pool.lock);
}

void cct_pool_open(void)
{
	__atomic_store_n(&pool.closed, 0, __ATOMIC_SEQ_CST);
}

void cct_pool_after_fork(void)
{
	pool.lock = 0;
	while (pool.n)			/* the parent's files */
		munmap(pool.file[--pool.n].map, FIRST_CHUNK);
}

struct cct_node *cct_child(struct cct *c, struct cct_node *parent,
			   uint16_t lm, uint64_t addr)
{
	struct cct_node *ch, *prev = NULL;

	for (ch = parent->child; ch; prev = ch, ch = ch->sibling)
		if (ch->addr == addr && ch->lm == lm)
			break;
	if (ch && prev) {		/* move to front */
		prev->sibling = ch->sibling;
		ch->sibling = parent->child;
		parent->child = ch;
	}
	return ch ? ch : node_new(c, parent, lm, addr);
}

struct cct_node *cct_xroot(struct cct *c, enum cct_xroot kind)
{
	static const char *const name[CCT_NXROOTS] = {
		"^Heap   ", "^Static ", "^Stack  ", "^Small  ", "^Unknown",
		"^NoAddr ",
	};

	if (!c->xroot[kind])
		c->xroot[kind] = node_new(c, NULL, 0, cct_placeholder(name[kind]));
	return c->xroot[kind];
}

/* cct_insert without the updates bracket; *leaf gets the leaf. */
static int insert_path(struct cct *c, struct cct_node *root,
		       const uintptr_t *frames, int n, uint64_t time, int idx,
		       double val, struct cct_node **leaf)
{
	const struct rt_module *m = NULL;
	struct cct_node *cur = root;
	int i;

	for (i = n - 1; i >= 0; i--) {
		if (rt_py_frame(frames[i])) {	/* python-frames.h, invariant 1 */
			if (!rt_py_lm)
				return -ENOENT;
			cur = cct_child(c, cur, rt_py_lm, frames[i] & ~RT_PY_FRAME);
			if (!cur)
				return -ENOSPC;
			continue;
		}
		if (!m || frames[i] < m->lo || frames[i] >= m->hi)
			m = frames[i] >= RT_KERNEL_LO ? rt_kernel.mod :
			    rt_module_at(frames[i], time);
		if (!m)
			return -ENOENT;
		cur = cct_child(c, cur, m->id, frames[i] - m->bias);
		if (!cur)
			return -ENOSPC;
	}
	cur->val[idx] += val;
	*leaf = cur;
	return 0;
}

int cct_insert(struct cct *c, struct cct_node *root, const uintptr_t *frames,
	       int n, uint64_t time, int idx, double val)
{
	struct cct_node *leaf;
	int rc;

	__atomic_store_n(&c->hdr->updates, c->hdr->updates + 1, __ATOMIC_RELEASE);
	rc = insert_path(c, root, frames, n, time, idx, val, &leaf);
	__atomic_store_n(&c->hdr->updates, c->hdr->updates + 1, __ATOMIC_RELEASE);
	c->leaf = rc ? NULL : leaf;
	return rc;
}

struct cct_node *cct_path_node(struct cct *c, struct cct_node *root,
			       const uintptr_t *frames, int n)
{
	struct cct_node *leaf = NULL;

	__atomic_store_n(&c->hdr->updates, c->hdr->updates + 1, __ATOMIC_RELEASE);
	if (insert_path(c, root, frames, n, 0, 0, 0.0, &leaf))
		leaf = NULL;
	__atomic_store_n(&c->hdr->updates, c->hdr->updates + 1, __ATOMIC_RELEASE);
	return leaf;
}

struct cct_node *cct_phase_node(struct cct *c, uint32_t site)
{
	char name[9] = "S";
	struct cct_node *ch;
	uint64_t addr;

	rt_fmt_u64(name + 1, site % 10000000, 10, 7);
	addr = cct_placeholder(name);
	__atomic_store_n(&c->hdr->updates, c->hdr->updates + 1, __ATOMIC_RELEASE);
	if (!c->phases)
		c->phases = node_new(c, NULL, 0, cct_placeholder("^Phases "));
	ch = c->phases ? cct_child(c, c->phases, 0, addr) : NULL;
	__atomic_store_n(&c->hdr->updates, c->hdr->updates + 1, __ATOMIC_RELEASE);
	return ch;
}
