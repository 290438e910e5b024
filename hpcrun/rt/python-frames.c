/*
 * python-frames.c - the Python frames of a sampled path (python-frames.h).
 *
 * THE WALK.  After the native unwind (sample.c), when some frame's pc is
 * in the interpreter's eval function, the thread's PyThreadState is found
 * (interpreters, then their threads, matched by the thread's id; the
 * pointer is kept per thread and checked again at each use) and its chain
 * of interpreter frames read from the current one outwards.  The chain
 * falls into the C calls of the eval function:
 *   3.10      one PyFrameObject per C call;
 *   3.11      frames up to and including the one marked is_entry;
 *   3.12+     frames up to the shim frame (owner PY_OWNED_BY_CSTACK)
 *             each C call pushes below its first one, the shim skipped.
 * 3.11 on, each call has an anchor on the C stack, in the eval function's
 * own stack frame: its _PyCFrame (3.11, the chain of cframes) or its shim
 * (3.12 on).  With the native frames' sps (unwind.h), each eval frame of
 * the path takes the call anchored between its sp and its caller's: a
 * call in its first or last instructions (its anchor not yet linked, or
 * unlinked) is no call's frames, and a thread that runs a sub-interpreter
 * has its calls in each interpreter's thread state, all placed by anchor.
 * 3.10 has no anchor: its eval frames, leaf first, take the calls in
 * turn, one frame each.  A call in its first or last instructions, its
 * frame not yet or no longer the thread's current one, leaves the chain
 * one frame shorter than the path's eval frames: then the innermost eval
 * frame takes none (leaf_unlinked), so the others take their own.
 * A frame not yet started (its instruction before the code's first) is
 * left out; an eval frame that gets no Python frame stays native.  A path
 * longer than RT_MAX_FRAMES keeps its innermost frames and is partial.
 *
 * THE TORN LINK.  3.12 on, a generator resumed or left inside the eval
 * loop (FOR_ITER_GEN, SEND_GEN, YIELD_VALUE) links its frame to its
 * caller's, or unlinks it, in stores the compiler may order either way
 * with the store of the current frame: for some instructions the current
 * frame is the generator's with no previous.  Its caller is then the
 * frame on top of the thread's data stack (a generator's frame is not
 * on it), and the chain goes on there (top_frame) to the call's shim.
 * A generator resumed from C (sum(gen)) is the first frame of a C call
 * of its own, whose shim the splice passes: when an eval frame inside
 * the one the spliced call is anchored in took no call, the generator's
 * frame goes to it.  Without this, every Python frame of the path was
 * lost (2-4% of the samples of a `for x in gen()` loop on 3.12).
 *
 * THE DYING FRAME.  3.11 on, a returning (or unwinding) frame is
 * unlinked from the chain before the frame-popping function
 * (python-find.h: pop_lo) frees its locals (cpython GH-99729), so the
 * chain names the caller while the callee's lists and dicts are freed.
 * When the native frame just inside an eval frame is in that function,
 * the frame being freed (dying_frame) goes innermost for that eval
 * frame, as the callee's work it is.
 *
 * Invariants (python-frames.h gives the module's):
 *  1. Every read of the interpreter's memory is a plain load or memcpy
 *     under the caller's fault recovery; pointers are checked to be
 *     user-space and aligned first, counts bounded (MAX_PY_STEPS frames,
 *     MAX_SEGS C calls, MAX_THREAD_TSTATES thread states of one thread,
 *     MAX_FRAME_SLOTS slots searched for a dying frame, within the
 *     thread's data stack chunk, MAX_INTERP interpreters, MAX_TSTATES
 *     thread states, HPCPY_MAX_NAME and HPCPY_MAX_LINETABLE bytes of
 *     content), so a torn or freed
 *     structure gives a wrong or missing frame, never a hang.
 *  2. The path is built in the thread's scratch array and copied over
 *     td->frames only when whole: a fault midway leaves the native path.
 *  3. The thread's state (struct py_thread: the caches and the scratch
 *     array) is one anonymous mapping made on the thread's first Python
 *     sample; the code arena is a list of anonymous chunks added as it
 *     fills (ARENA_CHUNK bytes, at most ARENA_MAX_CHUNKS), of records
 *     as the live code file holds them (hpcpy.h).  A code that
 *     finds no room still gets its id (from a copy in the state), and its
 *     frames are named by id alone after the run.  A code whose id the
 *     arena holds already (the same code in a new object: exec, a
 *     reloaded module) is not copied again, as far as the table of ids
 *     seen (SEEN_SLOTS) remembers.  Both go at
 *     thread_release; the arena is written at thread_written first.
 *  4. THE LIVE CODE FILE.  A thread whose tree has a live file (cct.c)
 *     mirrors its arena into a live code file beside it (hpcpy.h,
 *     .hpcpy-live), so that a killed process's codes survive as its
 *     tree does: arena chunk i is the file's chunk i, byte for byte,
 *     each record copied whole and then committed (the chunk's used
 *     count, a release store; hpcpy.h invariant 4).  The handler opens
 *     no file: on its first record, and when the arena has a chunk the
 *     file has not mapped, it asks hpcrun's writer (fd-gate.c, THE
 *     WRITER) to create the file and map the chunks (state ASKED), and
 *     copies what the file lacks once they are (READY), at its next
 *     Python sample (only while it waits, live_behind: the other samples
 *     read nothing of the file).  So only a thread that runs Python has the file,
 *     and a killed one lacks at most the codes copied since the writer
 *     last lagged.  When the file cannot be had (FAILED, or no writer), the
 *     arena alone goes on: the .hpcpy at the end still has everything.
 *     thread_written writes the .hpcpy from the arena, then removes the
 *     file (closed first, so the writer creates none after).
 *  5. A record, once its chunk's used count (stored with release) covers
 *     it, never changes, and chunks are only added (nchunks stored with
 *     release after the chunk's pointer): the hang detector reads another
 *     thread's codes (rt_py_frame_name) while that thread adds to them.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "capability.h"
#include "cct.h"
#include "fd-gate.h"
#include "hpcpy.h"
#include "loadmap.h"
#include "output.h"
#include "python-find.h"
#include "python-frames.h"
#include "python-layout.h"
#include "pyline.h"
#include "runtime.h"
#include "source.h"
#include "textrec.h"

#define MAX_PY_STEPS RT_MAX_FRAMES
#define MAX_INTERP 64
#define MAX_TSTATES 4096
#define MAX_SEGS 1024			/* C calls of the eval function */
#define MAX_THREAD_TSTATES 8		/* a thread's, one per interpreter */
#define CACHE_SLOTS 4096		/* a power of 2 */
#define CACHE_PROBES 4
#define SEEN_SLOTS 16384		/* a power of 2 */
#define SEEN_PROBES 8
#define ARENA_CHUNK HPCPY_LIVE_CHUNK	/* a chunk of the live file */
#define ARENA_MAX_CHUNKS HPCPY_LIVE_MAX_CHUNKS
#define MAX_FRAME_SLOTS 4096	/* co_framesize believed, searched */
/* ob_type in PyObject's header: release builds (python-find.c refuses
 * Py_TRACE_REFS and free-threaded ones). */
#define PY_OB_TYPE 8

/* One code object seen: the key a reuse of its address would change. */
struct code_key {
	uintptr_t code, name, file, linetable;
	int64_t firstlineno;
	uint64_t id;			/* 0: free slot */
};

/* The live code file's state (invariant 4). */
enum { LIVE_NONE, LIVE_ASKED, LIVE_READY, LIVE_FAILED, LIVE_OFF };

struct py_live {
	struct rt_fd_post post;		/* the writer's job (live_post) */
	unsigned state;			/* LIVE_*: the handler's and writer's */
	int closed;			/* thread_written began: no new file */
	int created;			/* the writer made the file */
	int want;			/* chunks the handler asks for */
	int nmapped;			/* chunk[0..nmapped) mapped */
	const struct rt_thread *td;
	struct hpcpy_live_header *hdr;
	char *chunk[ARENA_MAX_CHUNKS];
	char path[4400];
};

/* One C call of the eval function (THE WALK): its frames from start
 * outwards, of thread state ts; anchor, an address in the call's own
 * stack frame. */
struct py_seg {
	uintptr_t anchor, start, ts;
	/* a generator's frame whose link to its caller is torn (THE
	 * TORN LINK), and the frame the chain goes on at; 0 when none */
	uintptr_t torn, resume;
};

struct py_thread {
	uintptr_t tstate;		/* the thread's PyThreadState, or 0 */
	int live_behind;		/* the live file lacks codes or chunks */
	uint64_t faults, codes, codes_lost;
	int nchunks;
	char *chunk[ARENA_MAX_CHUNKS];
	size_t used[ARENA_MAX_CHUNKS];
	struct code_key cache[CACHE_SLOTS];
	uint64_t seen[SEEN_SLOTS];	/* ids in the arena (0: free) */
	uintptr_t scratch[RT_MAX_FRAMES];
	struct py_seg segs[MAX_SEGS];	/* THE WALK: the path's C calls */
	char name[HPCPY_MAX_NAME], file[HPCPY_MAX_NAME];
	unsigned char table[HPCPY_MAX_LINETABLE];
	struct py_live live;
};

uint16_t rt_py_lm;
/* Process totals for the log, added at each thread's release. */
static uint64_t total_threads, total_codes, total_lost, total_faults;

static const struct py_interp *interp(void)
{
	return rt_cfg.python ? rt_python_get() : NULL;
}

int rt_py_is_on(void)
{
	return interp() != NULL;
}

/* ---- reading the interpreter's memory (invariant 1) ---- */

static int ptr_ok(uintptr_t p)
{
	return p >= 4096 && p < ((uintptr_t)1 << 47) && !(p & 7);
}

static uintptr_t rd_ptr(uintptr_t base, long off)
{
	uintptr_t v;

	memcpy(&v, (const void *)(base + (uintptr_t)off), sizeof(v));
	return v;
}

static int64_t rd_i64(uintptr_t base, long off)
{
	int64_t v;

	memcpy(&v, (const void *)(base + (uintptr_t)off), sizeof(v));
	return v;
}

static int32_t rd_i32(uintptr_t base, long off)
{
	int32_t v;

	memcpy(&v, (const void *)(base + (uintptr_t)off), sizeof(v));
	return v;
}

static uint8_t rd_u8(uintptr_t base, long off)
{
	return *(const volatile uint8_t *)(base + (uintptr_t)off);
}

/* Appends the code point c as UTF-8 to out[*k..cap); 0 when it did not fit. */
static int put_utf8(char *out, size_t *k, size_t cap, uint32_t c)
{
	unsigned char b[4];
	size_t n, i;

	if (c < 0x80) {
		b[0] = (unsigned char)c;
		n = 1;
	} else if (c < 0x800) {
		b[0] = (unsigned char)(0xc0 | c >> 6);
		b[1] = (unsigned char)(0x80 | (c & 0x3f));
		n = 2;
	} else if (c < 0x10000) {
		b[0] = (unsigned char)(0xe0 | c >> 12);
		b[1] = (unsigned char)(0x80 | ((c >> 6) & 0x3f));
		b[2] = (unsigned char)(0x80 | (c & 0x3f));
		n = 3;
	} else {
		b[0] = (unsigned char)(0xf0 | (c >> 18 & 7));
		b[1] = (unsigned char)(0x80 | ((c >> 12) & 0x3f));
		b[2] = (unsigned char)(0x80 | ((c >> 6) & 0x3f));
		b[3] = (unsigned char)(0x80 | (c & 0x3f));
		n = 4;
	}
	if (cap - *k < n)
		return 0;
	for (i = 0; i < n; i++)
		out[(*k)++] = (char)b[i];
	return 1;
}

/* The str object s as UTF-8 into out (at most cap bytes, cut at a whole
 * character); its length, 0 when s is no compact str.  With path set, s
 * is a file name, whose bytes that are not UTF-8 CPython holds as the
 * surrogates U+DC80..U+DCFF (os.fsdecode): each goes back to its byte
 * (os.fsencode), so the name is the file's.  A str holding surrogates
 * has no UTF-8 copy (utf8): those are read code point by code point. */
static size_t read_str(const struct py_layout *l, uintptr_t s, char *out,
		       size_t cap, int path)
{
	uint32_t state, kind;
	int64_t len, i;
	uintptr_t data, utf8;
	size_t k = 0;

	if (!ptr_ok(s))
		return 0;
	state = (uint32_t)rd_i32(s, l->unicode.state);
	len = rd_i64(s, l->unicode.length);
	if (!(state & l->unicode.compact_bit) || len < 0)
		return 0;
	if (state & l->unicode.ascii_bit) {
		k = (size_t)len < cap ? (size_t)len : cap;
		memcpy(out, (const void *)(s + (uintptr_t)l->unicode.ascii_data), k);
		return k;
	}
	utf8 = rd_ptr(s, l->unicode.utf8);
	if (utf8) {
		int64_t n = rd_i64(s, l->unicode.utf8_length);

		if (n < 0 || utf8 < 4096)
			return 0;
		k = (size_t)n < cap ? (size_t)n : cap;
		while (k && k < (size_t)n && ((unsigned char *)utf8)[k] >> 6 == 2)
			k--;		/* no cut character */
		memcpy(out, (const void *)utf8, k);
		return k;
	}
	kind = (state >> l->unicode.kind_shift) & 7;
	data = s + (uintptr_t)l->unicode.compact_data;
	for (i = 0; i < len && (size_t)i < cap; i++) {
		uint32_t c = kind == 1 ? ((const uint8_t *)data)[i] :
			     kind == 2 ? ((const uint16_t *)data)[i] :
			     ((const uint32_t *)data)[i];

		if (path && c >= 0xdc80 && c <= 0xdcff && k < cap)
			out[k++] = (char)(c - 0xdc00);
		else if (!put_utf8(out, &k, cap, c))
			break;
	}
	return k;
}

/* ---- the live code file (invariant 4) ---- */

/* On hpcrun's writer, in its fd table, the program's limits lifted:
 * creates the live code file if need be and maps the chunks asked for;
 * READY, or FAILED. */
static int live_map(void *arg)
{
	struct py_live *lv = arg;
	const struct py_interp *in = rt_python_get();
	size_t n = strlen(lv->td->cct.path);
	size_t suf = sizeof(HPCRUN_LIVE_SUFFIX) - 1;
	int err = 0, fd, want = lv->want;

	if (__atomic_load_n(&lv->closed, __ATOMIC_SEQ_CST))
		err = ECANCELED;
	else if (n <= suf || n - suf + sizeof(HPCPY_LIVE_SUFFIX) > sizeof(lv->path))
		err = ENAMETOOLONG;	/* the tree's file: PATH.hpcrun-live */
	else if (!lv->hdr) {
		memcpy(lv->path, lv->td->cct.path, n - suf);
		memcpy(lv->path + n - suf, HPCPY_LIVE_SUFFIX,
		       sizeof(HPCPY_LIVE_SUFFIX));
		fd = (int)syscall(SYS_open, lv->path,
				  O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
		if (fd < 0)
			err = errno;
		else {
			syscall(SYS_close, fd);
			lv->created = 1;
			lv->hdr = cct_map_file(lv->path, 0, HPCPY_LIVE_HEADER, &err);
		}
		if (lv->hdr) {
			lv->hdr->byte_order = HPCPY_LIVE_BYTE_ORDER;
			lv->hdr->major = in ? (uint32_t)in->major : 3;
			lv->hdr->minor = in ? (uint32_t)in->minor : 0;
			/* the magic last: a file without it holds no code */
			memcpy(lv->hdr->magic, HPCPY_LIVE_MAGIC,
			       sizeof(lv->hdr->magic));
		}
	}
	while (!err && lv->nmapped < want) {
		char *p = cct_map_file(lv->path, HPCPY_LIVE_HEADER +
				       (uint64_t)lv->nmapped * ARENA_CHUNK,
				       ARENA_CHUNK, &err);

		if (p)
			lv->chunk[lv->nmapped++] = p;
	}
	__atomic_store_n(&lv->state, err ? LIVE_FAILED : LIVE_READY,
			 __ATOMIC_SEQ_CST);
	return 0;
}

static void live_post(struct rt_fd_post *p)
{
	rt_io_private(live_map, (char *)p - offsetof(struct py_live, post));
}

/*
 * In the handler, at each Python sample and record: copies to the live
 * code file what it lacks, each chunk's new records whole, then commits
 * them; asks the writer for the file or its next chunk when the arena has
 * one the file has not mapped.
 */
static void live_sync(struct py_thread *pt)
{
	struct py_live *lv = &pt->live;
	struct hpcpy_live_header *h = lv->hdr;
	unsigned s = __atomic_load_n(&lv->state, __ATOMIC_SEQ_CST);
	int i;

	pt->live_behind = s == LIVE_ASKED;
	if ((s != LIVE_NONE && s != LIVE_READY) || !pt->nchunks)
		return;
	for (i = s == LIVE_READY && h->nchunks ? (int)h->nchunks - 1 : 0;
	     s == LIVE_READY && i < pt->nchunks && i < lv->nmapped; i++) {
		if ((uint32_t)i >= h->nchunks) {
			h->used[i] = 0;
			__atomic_store_n(&h->nchunks, (uint32_t)i + 1,
					 __ATOMIC_RELEASE);
		}
		if (h->used[i] < pt->used[i]) {
			memcpy(lv->chunk[i] + h->used[i],
			       pt->chunk[i] + h->used[i],
			       pt->used[i] - h->used[i]);
			/* whole before the count takes it in (hpcpy.h) */
			__atomic_store_n(&h->used[i], pt->used[i],
					 __ATOMIC_RELEASE);
		}
	}
	if ((s == LIVE_READY && lv->nmapped >= pt->nchunks) ||
	    __atomic_load_n(&lv->closed, __ATOMIC_SEQ_CST))
		return;
	lv->want = pt->nchunks;
	__atomic_store_n(&lv->state, LIVE_ASKED, __ATOMIC_SEQ_CST);
	pt->live_behind = 1;
	if (rt_fd_post(&lv->post)) {	/* no writer */
		__atomic_store_n(&lv->state, LIVE_FAILED, __ATOMIC_SEQ_CST);
		pt->live_behind = 0;
	}
}

/* Outside the handler, td's sampling stopped: the writer done with the
 * file, which is removed when remove is set (its codes are in the
 * .hpcpy), and its mappings undone when unmap is. */
static void live_close(struct py_live *lv, int remove, int unmap)
{
	int i;

	__atomic_store_n(&lv->closed, 1, __ATOMIC_SEQ_CST);
	rt_fd_post_wait(&lv->post);
	if (remove && lv->created) {
		unlink(lv->path);
		lv->created = 0;
	}
	if (!unmap)
		return;
	for (i = 0; i < lv->nmapped; i++)
		munmap(lv->chunk[i], ARENA_CHUNK);
	if (lv->hdr)
		munmap(lv->hdr, HPCPY_LIVE_HEADER);
	lv->nmapped = 0;
	lv->hdr = NULL;
}

/* ---- the thread's state and its code arena (invariant 3) ---- */

static struct py_thread *thread_state(struct rt_thread *td)
{
	struct py_thread *pt = td->py;
	void *p;

	if (pt)
		return pt;
	p = mmap(NULL, sizeof(*pt), PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (p == MAP_FAILED)
		return NULL;
	pt = p;
	pt->live.post.fn = live_post;
	pt->live.td = td;
	if (!td->cct.path[0])		/* no live tree: nothing to name */
		pt->live.state = LIVE_OFF;
	__atomic_store_n(&td->py, pt, __ATOMIC_RELEASE);
	return pt;
}

/* Room for bytes in the arena, or NULL (a new chunk mapped if needed). */
static void *arena_room(struct py_thread *pt, size_t bytes)
{
	int i = pt->nchunks - 1;
	void *p;

	if (i < 0 || ARENA_CHUNK - pt->used[i] < bytes) {
		if (pt->nchunks == ARENA_MAX_CHUNKS || bytes > ARENA_CHUNK)
			return NULL;
		p = mmap(NULL, ARENA_CHUNK, PROT_READ | PROT_WRITE,
			 MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
		if (p == MAP_FAILED)
			return NULL;
		i = pt->nchunks;
		pt->chunk[i] = p;
		pt->used[i] = 0;
		__atomic_store_n(&pt->nchunks, i + 1, __ATOMIC_RELEASE);
	}
	return pt->chunk[i] + pt->used[i];
}

/* The bytecode of code: its first byte's address and its length in
 * bytes, or 0. */
static uintptr_t code_start(const struct py_layout *l, uintptr_t code,
			    uint32_t *ncode)
{
	int64_t n;
	uintptr_t b;

	if (l->code.code_adaptive >= 0) {
		n = rd_i64(code, l->code.size) * 2;
		b = code + (uintptr_t)l->code.code_adaptive;
	} else {
		b = rd_ptr(code, l->code.code);
		if (!ptr_ok(b))
			return 0;
		n = rd_i64(b, l->bytes.ob_size);
		b += (uintptr_t)l->bytes.ob_sval;
	}
	if (n <= 0 || n >= (int64_t)1 << HPCPY_OFFSET_BITS)
		return 0;
	*ncode = (uint32_t)n;
	return b;
}

/* Whether id is in the arena, as far as the table remembers; noted
 * there when not (and room is left). */
static int seen_before(struct py_thread *pt, uint64_t id)
{
	uint64_t h = id * 0x9e3779b97f4a7c15ull;
	int i;

	for (i = 0; i < SEEN_PROBES; i++) {
		uint64_t *e = &pt->seen[((h >> 40) + (uint64_t)i) & (SEEN_SLOTS - 1)];

		if (*e == id)
			return 1;
		if (!*e) {
			*e = id;
			return 0;
		}
	}
	return 0;
}

/* Copies code's content into the arena (or, with no room, the state's
 * buffers) and computes its id; 0 when it is no code object. */
static uint64_t code_new(struct py_thread *pt, const struct py_layout *l,
			 uintptr_t code, const struct code_key *k)
{
	struct hpcpy_code c;
	struct hpcpy_live_rec *r;
	uintptr_t qual = l->code.qualname >= 0 ? rd_ptr(code, l->code.qualname) :
			 k->name;
	uint32_t ncode = 0;
	int64_t tlen;
	size_t bytes;
	char *p;

	if (!code_start(l, code, &ncode) || !ptr_ok(k->linetable))
		return 0;
	memset(&c, 0, sizeof(c));
	c.firstlineno = (uint32_t)k->firstlineno;
	c.ncode = ncode;
	c.qualname_len = read_str(l, qual, pt->name, sizeof(pt->name), 0);
	c.filename_len = read_str(l, k->file, pt->file, sizeof(pt->file), 1);
	if (!c.qualname_len)
		return 0;
	tlen = rd_i64(k->linetable, l->bytes.ob_size);
	if (tlen < 0)
		return 0;
	c.linetable_len = tlen < HPCPY_MAX_LINETABLE ? (size_t)tlen :
			  HPCPY_MAX_LINETABLE;
	memcpy(pt->table, (const void *)(k->linetable + (uintptr_t)l->bytes.ob_sval),
	       c.linetable_len);
	c.qualname = pt->name;
	c.filename = pt->file;
	c.linetable = pt->table;
	c.id = hpcpy_id(&c);
	if (seen_before(pt, c.id))
		return c.id;
	bytes = (sizeof(*r) + c.qualname_len + c.filename_len +
		 c.linetable_len + 7) & ~(size_t)7;
	r = arena_room(pt, bytes);
	if (!r) {
		pt->codes_lost++;
		return c.id;
	}
	p = (char *)(r + 1);
	memcpy(p, c.qualname, c.qualname_len);
	c.qualname = p;
	p += c.qualname_len;
	memcpy(p, c.filename, c.filename_len);
	c.filename = p;
	p += c.filename_len;
	memcpy(p, c.linetable, c.linetable_len);
	c.linetable = (const unsigned char *)p;
	r->id = c.id;
	r->bytes = (uint32_t)bytes;
	r->firstlineno = c.firstlineno;
	r->ncode = c.ncode;
	r->qualname_len = (uint32_t)c.qualname_len;
	r->filename_len = (uint32_t)c.filename_len;
	r->linetable_len = (uint32_t)c.linetable_len;
	__atomic_store_n(&pt->used[pt->nchunks - 1],
			 pt->used[pt->nchunks - 1] + bytes, __ATOMIC_RELEASE);
	pt->codes++;
	live_sync(pt);
	return c.id;
}

/* The id of code (invariant 3 of python-frames.h), 0 when none. */
static uint64_t code_id(struct py_thread *pt, const struct py_layout *l,
			uintptr_t code)
{
	struct code_key k, *e, *victim;
	uint64_t h;
	int i;

	if (!ptr_ok(code))
		return 0;
	k.code = code;
	k.name = rd_ptr(code, l->code.name);
	k.file = rd_ptr(code, l->code.filename);
	k.linetable = rd_ptr(code, l->code.linetable);
	k.firstlineno = rd_i32(code, l->code.firstlineno);
	if (!ptr_ok(k.name) || !ptr_ok(k.file) || k.firstlineno < 0)
		return 0;
	h = (code >> 4) * 0x9e3779b97f4a7c15ull;
	h ^= (k.name ^ k.file ^ k.linetable) >> 4;
	victim = &pt->cache[(h >> 20) & (CACHE_SLOTS - 1)];
	for (i = 0; i < CACHE_PROBES; i++) {
		e = &pt->cache[((h >> 20) + (uint64_t)i) & (CACHE_SLOTS - 1)];
		if (e->id && e->code == k.code && e->name == k.name &&
		    e->file == k.file && e->linetable == k.linetable &&
		    e->firstlineno == k.firstlineno)
			return e->id;
		if (!e->id)
			victim = e;
	}
	k.id = code_new(pt, l, code, &k);
	if (k.id)
		*victim = k;
	return k.id;
}

/* ---- the walk ---- */

/* A thread the walk reads: its kernel id, and its pthread_self() (3.10's
 * thread_id). */
struct py_target {
	pid_t tid;
	uintptr_t self;
};

/* Is tstate the thread's? */
static int tstate_is(const struct py_layout *l, const struct py_target *t,
		     uintptr_t ts)
{
	if (l->tstate.native_thread_id >= 0)
		return rd_i64(ts, l->tstate.native_thread_id) == (int64_t)t->tid;
	return l->tstate.thread_id >= 0 &&
	       rd_ptr(ts, l->tstate.thread_id) == t->self;
}

static uintptr_t current_frame(const struct py_layout *l, uintptr_t ts);

/*
 * Thread t's PyThreadState, or 0; pt->tstate caches it.  A thread state
 * with no frame is looked for again: PyGILState_Release frees a C
 * thread's state after its call into Python, its memory still naming the
 * thread, and its next PyGILState_Ensure makes another.
 */
static uintptr_t find_tstate(const struct py_interp *in,
			     const struct py_layout *l,
			     const struct py_target *t, struct py_thread *pt)
{
	uintptr_t is, ts;
	int ni, nt = 0;

	if (pt->tstate && tstate_is(l, t, pt->tstate) &&
	    current_frame(l, pt->tstate))
		return pt->tstate;
	pt->tstate = 0;
	is = rd_ptr(in->runtime, l->runtime.interpreters_head);
	for (ni = 0; ptr_ok(is) && ni < MAX_INTERP; ni++) {
		ts = rd_ptr(is, l->interp.threads_head);
		for (; ptr_ok(ts) && nt < MAX_TSTATES; nt++) {
			if (tstate_is(l, t, ts))
				return pt->tstate = ts;
			ts = rd_ptr(ts, l->tstate.next);
		}
		is = rd_ptr(is, l->interp.next);
	}
	return 0;
}

/* The current interpreter frame of ts, or 0. */
static uintptr_t current_frame(const struct py_layout *l, uintptr_t ts)
{
	uintptr_t f = rd_ptr(ts, l->tstate.frame);

	if (l->tstate.frame_indirect >= 0 && ptr_ok(f))
		f = rd_ptr(f, l->tstate.frame_indirect);
	return ptr_ok(f) ? f : 0;
}

/* The byte offset of f's instruction in code (bytecode at start, ncode
 * bytes); -1 when f has not started. */
static int64_t frame_offset(const struct py_layout *l, uintptr_t f,
			    uintptr_t start, uint32_t ncode)
{
	int64_t off;

	if (l->frame.instr_kind == PY_INSTR_LASTI) {
		off = (int64_t)rd_i32(f, l->frame.instr) * 2;
		if (off < 0)
			off = 0;
	} else {
		off = (int64_t)(rd_ptr(f, l->frame.instr) - start);
		if (off < 0)
			return -1;
	}
	return off < ncode ? off : ncode - 1;
}

/* Appends interpreter frame f as a Python frame to out[*k] (room for it
 * checked by the caller), unless it has not started or its code is none
 * we can name. */
static void put_frame(const struct py_layout *l, struct py_thread *pt,
		      uintptr_t f, uintptr_t *out, int *k)
{
	uintptr_t code = rd_ptr(f, l->frame.code), start;
	uint32_t ncode = 0;
	int64_t off;
	uint64_t id;

	if (ptr_ok(code) && (start = code_start(l, code, &ncode)) &&
	    (off = frame_offset(l, f, start, ncode)) >= 0 &&
	    (id = code_id(pt, l, code)))
		out[(*k)++] = RT_PY_FRAME | hpcpy_frame_addr(id, (uint32_t)off);
}

/* Is d a frame whose previous is cur, of slots slots (any when 0)?  Its
 * code into *dcode. */
static int frame_above(const struct py_layout *l, uintptr_t d, uintptr_t cur,
		       int32_t slots, uintptr_t *dcode)
{
	if (rd_ptr(d, l->frame.previous) != cur)
		return 0;
	*dcode = rd_ptr(d, l->frame.code);
	return ptr_ok(*dcode) &&
	       (!slots || rd_i32(*dcode, l->code.framesize) == slots);
}

/*
 * The frame being cleared and popped while cur is its C call's current
 * frame (3.11 on: a returning frame is unlinked before its locals are
 * freed), or 0 when it cannot be told for sure.  Pushed right after
 * cur, it lies co_framesize slots of cur's code above cur on the data
 * stack, unless it opened a new chunk.  Else, and when cur is the shim
 * of its C call (whose first frame returns), it is the top of the data
 * stack: the frame s slots below the thread's datastack_top whose code's
 * co_framesize is s, for the least such s (3.11, which has no
 * co_framesize: the least s at all).  Either way its previous is cur,
 * and its code has the type of cur's code when cur is no shim.  It is
 * looked for only within the chunk in use, below its top, so no read
 * leaves the chunk.  A generator's frame (not on the data stack) fails
 * the checks.
 */
static uintptr_t dying_frame(const struct py_layout *l, uintptr_t ts,
			     uintptr_t cur)
{
	uintptr_t code = rd_ptr(cur, l->frame.code), d, dcode = 0, top, chunk;
	/* The bytes of a frame frame_above reads. */
	uintptr_t head = (uintptr_t)(l->frame.previous > l->frame.code ?
				     l->frame.previous : l->frame.code) + 8;
	int32_t slots = 0, s;
	int sized = l->code.framesize >= 0;

	if (rd_u8(cur, l->frame.entry) == PY_OWNED_BY_CSTACK || !ptr_ok(code))
		code = 0;
	else if (sized)
		slots = rd_i32(code, l->code.framesize);
	top = rd_ptr(ts, l->tstate.datastack_top);
	chunk = rd_ptr(ts, l->tstate.datastack_chunk);
	if (!ptr_ok(top) || !ptr_ok(chunk) || top <= chunk)
		return 0;
	d = cur + (uintptr_t)slots * sizeof(void *);
	if (slots > 0 && slots <= MAX_FRAME_SLOTS && d >= chunk &&
	    d < top && top - d >= head && frame_above(l, d, cur, 0, &dcode))
		goto found;
	for (s = 1; s <= MAX_FRAME_SLOTS; s++) {
		d = top - (uintptr_t)s * sizeof(void *);
		if (d < chunk)
			return 0;
		if (top - d >= head &&
		    frame_above(l, d, cur, sized ? s : 0, &dcode))
			goto found;
	}
	return 0;
found:
	if (code && rd_ptr(dcode, PY_OB_TYPE) != rd_ptr(code, PY_OB_TYPE))
		return 0;
	return d;
}

/*
 * The frame on top of the thread's data stack (THE TORN LINK): the least
 * s such that the frame s slots below datastack_top has a code of
 * gen_code's type whose co_framesize is s, within the chunk in use; 0
 * when none.
 */
static uintptr_t top_frame(const struct py_layout *l, uintptr_t ts,
			   uintptr_t gen_code)
{
	uintptr_t top = rd_ptr(ts, l->tstate.datastack_top), d, code;
	uintptr_t chunk = rd_ptr(ts, l->tstate.datastack_chunk);
	uintptr_t head = (uintptr_t)(l->frame.previous > l->frame.code ?
				     l->frame.previous : l->frame.code) + 8;
	uintptr_t type = rd_ptr(gen_code, PY_OB_TYPE);
	int32_t s;

	if (l->code.framesize < 0 || !ptr_ok(top) || !ptr_ok(chunk) ||
	    top <= chunk || !ptr_ok(type))
		return 0;
	for (s = 1; s <= MAX_FRAME_SLOTS; s++) {
		d = top - (uintptr_t)s * sizeof(void *);
		if (d < chunk)
			return 0;
		if (top - d < head)
			continue;
		code = rd_ptr(d, l->frame.code);
		if (ptr_ok(code) && rd_ptr(code, PY_OB_TYPE) == type &&
		    rd_i32(code, l->code.framesize) == s)
			return d;
	}
	return 0;
}

/*
 * The Python frames of one C call of the eval function, from *fp outwards,
 * appended to out[*k..cap); *fp then is the first frame of the next C
 * call, or 0 when there is none.  After frame torn, when not 0, the chain
 * goes on at resume (THE TORN LINK).  1 when the call's boundary lies
 * beyond the bounds (cap, MAX_PY_STEPS): its outer frames are not there.
 */
static int call_frames(const struct py_layout *l, struct py_thread *pt,
		       uintptr_t *fp, uintptr_t torn, uintptr_t resume,
		       uintptr_t *out, int *k, int cap, int *steps)
{
	uintptr_t f = *fp;

	*fp = 0;
	while (f) {
		uintptr_t prev;
		int entry = l->frame.entry_kind == PY_ENTRY_NONE;

		if (*k >= cap || (*steps)++ >= MAX_PY_STEPS)
			return 1;
		prev = rd_ptr(f, l->frame.previous);
		if (!ptr_ok(prev))
			prev = 0;
		if (f == torn && !prev)
			prev = resume;
		if (l->frame.entry_kind == PY_ENTRY_OWNER &&
		    rd_u8(f, l->frame.entry) == PY_OWNED_BY_CSTACK) {
			*fp = prev;	/* the shim: the call's boundary */
			return 0;
		}
		if (l->frame.entry_kind == PY_ENTRY_IS_ENTRY)
			entry = rd_u8(f, l->frame.entry) != 0;
		put_frame(l, pt, f, out, k);
		if (entry) {
			*fp = prev;
			return 0;
		}
		f = prev;
	}
	return 0;
}

/*
 * Appends the C calls of the eval function of thread state ts to
 * segs[*n..MAX_SEGS), innermost first, so anchors rise: 3.12 on, a
 * call's anchor is its shim frame (the eval function's local
 * entry_frame) and its frames are those before the shim (none when the
 * shim is current: its first frame returned or yielded); 3.11, the
 * anchor is the call's _PyCFrame (the eval function's local cframe) and
 * its first frame the cframe's current one.  A call in its first or last
 * instructions, before its anchor is linked or after it is unlinked, is
 * not there.  A call whose shim lies beyond MAX_PY_STEPS frames ends the
 * list with anchor 0: the innermost eval frame not yet matched takes it,
 * and the path is cut in it (expand).
 */
static void thread_segs(const struct py_layout *l, uintptr_t ts,
			struct py_seg *segs, int *n)
{
	uintptr_t f, start, next, torn = 0, resume = 0;
	int steps = 0;

	if (l->frame.entry_kind == PY_ENTRY_IS_ENTRY) {
		f = rd_ptr(ts, l->tstate.frame);
		for (; ptr_ok(f) && *n < MAX_SEGS && steps < MAX_SEGS; steps++) {
			next = rd_ptr(f, l->tstate.cframe_previous);
			if (!ptr_ok(next))
				return;	/* the root _PyCFrame, in ts */
			start = rd_ptr(f, l->tstate.frame_indirect);
			if (ptr_ok(start))
				segs[(*n)++] = (struct py_seg){ f, start, ts, 0, 0 };
			f = next;
		}
		return;
	}
	start = f = current_frame(l, ts);
	for (; f && *n < MAX_SEGS; steps++) {
		int owner;

		if (steps == MAX_PY_STEPS) {
			/* a call longer than a path can be: cut anyway */
			segs[(*n)++] = (struct py_seg){ 0, start, ts, torn, resume };
			return;
		}
		next = rd_ptr(f, l->frame.previous);
		if (!ptr_ok(next))
			next = 0;
		owner = rd_u8(f, l->frame.entry);
		if (owner == PY_OWNED_BY_CSTACK) {
			/* start == f: the call's frame returned, or yielded
			 * (the shim's is current until the call returns; the
			 * dying frame may be above it) */
			segs[(*n)++] = (struct py_seg){ f, start, ts, torn, resume };
			start = next;
			torn = resume = 0;
		} else if (!next && owner == PY_OWNED_BY_GENERATOR && !torn &&
			   (resume = top_frame(l, ts, rd_ptr(f, l->frame.code)))) {
			torn = f;	/* THE TORN LINK */
			next = resume;
		}
		f = next;
	}
}

/*
 * The C calls of the eval function of thread t, anchors rising, in
 * pt->segs; their count.  ts is t's thread state; in a process with
 * sub-interpreters, t's states in the other interpreters are added (a
 * thread runs in one at a time, the others' calls below it on its
 * stack).
 */
static int collect_segs(const struct py_interp *in, const struct py_layout *l,
			const struct py_target *t, struct py_thread *pt,
			uintptr_t ts)
{
	struct py_seg *segs = pt->segs, one;
	uintptr_t is, o;
	int n = 0, ni, nt = 0, states = 1, a, b;

	thread_segs(l, ts, segs, &n);
	is = rd_ptr(in->runtime, l->runtime.interpreters_head);
	if (!ptr_ok(is) || !ptr_ok(rd_ptr(is, l->interp.next)))
		return n;
	for (ni = 0; ptr_ok(is) && ni < MAX_INTERP; ni++) {
		o = rd_ptr(is, l->interp.threads_head);
		for (; ptr_ok(o) && nt < MAX_TSTATES; nt++) {
			if (o != ts && tstate_is(l, t, o) &&
			    states++ < MAX_THREAD_TSTATES)
				thread_segs(l, o, segs, &n);
			o = rd_ptr(o, l->tstate.next);
		}
		is = rd_ptr(is, l->interp.next);
	}
	for (a = 1; a < n; a++) {	/* runs of rising anchors: few moves */
		one = segs[a];
		for (b = a; b > 0 && segs[b - 1].anchor > one.anchor; b--)
			segs[b] = segs[b - 1];
		segs[b] = one;
	}
	return n;
}

/*
 * The C call whose anchor lies in native frame i's own stack frame,
 * [sps[i], sps[i + 1]) (up to the stack's top when frame i + 1 is not
 * above it); NULL when there is none (the call is in its first or last
 * instructions).  Calls whose anchors lie below are passed over: *j
 * counts the calls taken or passed.
 */
static const struct py_seg *seg_of(const struct py_seg *segs, int nseg, int *j,
				   const uintptr_t *sps, int i, int n)
{
	uintptr_t lo = sps[i];
	uintptr_t hi = i + 1 < n && sps[i + 1] > lo ? sps[i + 1] : UINTPTR_MAX;

	while (*j < nseg && segs[*j].anchor && segs[*j].anchor < lo)
		(*j)++;
	if (*j >= nseg || segs[*j].anchor >= hi)
		return NULL;
	return &segs[(*j)++];
}

/*
 * 3.10: with the path's eval frames nev, is the chain from the thread's
 * current frame f one call shorter (its innermost call in its first or
 * last instructions)?  Bounded by nev steps.
 */
static int leaf_unlinked(const struct py_layout *l, uintptr_t f, int nev)
{
	int calls = 0;

	while (f && calls < nev && calls < MAX_PY_STEPS) {
		calls++;
		f = rd_ptr(f, l->frame.previous);
		if (!ptr_ok(f))
			f = 0;
	}
	return calls == nev - 1;
}

/* Does the native path frames[0..n) run Python? */
static int runs_python(const struct py_interp *in, const uintptr_t *frames,
		       int n)
{
	int i;

	for (i = 0; i < n; i++)
		if (py_is_eval_pc(in, frames[i]))
			return 1;
	return 0;
}

/*
 * frames[0..n) (n <= max <= RT_MAX_FRAMES), a native path of thread t,
 * each eval frame replaced by its Python frames, walked with pt's caches
 * and arena; the new count.  With sps (each frame's sp, unwind.h) and a
 * layout that anchors its C calls (3.11 on), an eval frame takes the
 * call anchored in its own stack frame; else (3.10) the eval frames take
 * the chain's calls in turn, but for an innermost call not linked yet or
 * any more.  A path longer than max is cut to its innermost max frames,
 * *cut set.
 */
static int expand(const struct py_interp *in, struct py_thread *pt,
		  const struct py_target *t, uintptr_t *frames,
		  const uintptr_t *sps, int n, int max, int *cut)
{
	const struct py_layout *l = in->layout;
	const struct py_seg *seg = NULL;
	uintptr_t ts, f = 0, fts, d, torn;
	int i, j = 0, k = 0, steps = 0, nseg = -1, skip = -1, nev = 0;
	int left = -1;	/* where an eval frame went native, since a call */

	*cut = 0;
	if (pt->live_behind)
		live_sync(pt);	/* what the writer was late for */
	ts = find_tstate(in, l, t, pt);
	if (!ts)
		return n;
	if (sps && l->frame.entry_kind != PY_ENTRY_NONE)
		nseg = collect_segs(in, l, t, pt, ts);
	else
		f = current_frame(l, ts);
	if (nseg < 0 && l->frame.entry_kind == PY_ENTRY_NONE) {
		for (i = n - 1; i >= 0; i--)
			if (py_is_eval_pc(in, frames[i])) {
				nev++;
				skip = i;	/* the innermost, in the end */
			}
		if (!leaf_unlinked(l, f, nev))
			skip = -1;
	}
	for (i = 0; i < n; i++) {
		int k0 = k;

		if (k >= max) {
			*cut = 1;
			break;
		}
		fts = ts;
		if (py_is_eval_pc(in, frames[i]) && i != skip &&
		    (nseg < 0 || (seg = seg_of(pt->segs, nseg, &j, sps, i, n)))) {
			if (seg) {
				f = seg->start;
				fts = seg->ts;
			}
			if (i > 0 && py_is_pop_pc(in, frames[i - 1]) &&
			    f && (d = dying_frame(l, fts, f)))
				put_frame(l, pt, d, pt->scratch, &k);
			torn = seg ? seg->torn : 0;
			if (torn && torn == f && left >= 0) {
				/* the torn generator's own C call is the eval
				 * frame inside, whose shim the splice passed
				 * (THE TORN LINK): its frame goes there */
				put_frame(l, pt, torn, pt->scratch, &left);
				f = seg->resume;
				torn = 0;
			}
			left = -1;
			if (call_frames(l, pt, &f, torn, seg ? seg->resume : 0,
					pt->scratch, &k, max, &steps)) {
				*cut = 1;
				break;
			}
		}
		if (k == k0) {
			if (left < 0 && py_is_eval_pc(in, frames[i]))
				left = k;
			pt->scratch[k++] = frames[i];
		}
	}
	memcpy(frames, pt->scratch, (size_t)k * sizeof(uintptr_t));
	return k;
}

int rt_py_expand(struct rt_thread *td, const uintptr_t *sps, int n, int *cut)
{
	const struct py_interp *in = interp();
	struct py_target t = { td->tid, td->py_self };
	struct py_thread *pt;

	*cut = 0;
	if (!in || !rt_py_lm || !runs_python(in, td->frames, n) ||
	    !(pt = thread_state(td)))
		return n;
	return expand(in, pt, &t, td->frames, sps, n, RT_MAX_FRAMES, cut);
}

int rt_py_expand_blocked(struct rt_thread *self, const struct rt_thread *td,
			 uintptr_t *frames, const uintptr_t *sps, int n,
			 int max)
{
	const struct py_interp *in = interp();
	struct py_target t = { td->tid, td->py_self };
	struct py_thread *pt;
	int cut;

	if (!in || !rt_py_lm || n > max || max > RT_MAX_FRAMES ||
	    !runs_python(in, frames, n) || !(pt = thread_state(self)))
		return n;
	return expand(in, pt, &t, frames, sps, n, max, &cut);
}

uint64_t rt_py_key(struct rt_thread *td)
{
	const struct py_interp *in = interp();
	const struct py_layout *l;
	struct py_target t = { td->tid, td->py_self };
	struct py_thread *pt;
	uintptr_t ts, f, one;
	uint64_t h = 0;
	int steps, k;

	if (!in || !rt_py_lm || !(pt = thread_state(td)))
		return 0;
	l = in->layout;
	ts = find_tstate(in, l, &t, pt);
	f = ts ? current_frame(l, ts) : 0;
	for (steps = 0; f && steps < MAX_PY_STEPS; steps++) {
		k = 0;
		put_frame(l, pt, f, &one, &k);
		if (k)
			h = (h ^ one) * 0x100000001b3ull;
		f = rd_ptr(f, l->frame.previous);
		if (!ptr_ok(f))
			f = 0;
	}
	return h;
}

int rt_py_frame_name(const struct rt_thread *td, uintptr_t frame, char *buf,
		     size_t size)
{
	const struct py_thread *pt = __atomic_load_n(&td->py, __ATOMIC_ACQUIRE);
	const struct py_interp *in = rt_python_get();
	uint64_t id = hpcpy_addr_id(frame & ~RT_PY_FRAME);
	/* hpcpy_frame_addr's offset */
	uint32_t offset = (uint32_t)(frame & ((1u << HPCPY_OFFSET_BITS) - 1)) - 1;
	int c, nc = pt ? __atomic_load_n(&pt->nchunks, __ATOMIC_ACQUIRE) : 0;
	int32_t line;

	for (c = 0; c < nc; c++) {
		size_t used = __atomic_load_n(&pt->used[c], __ATOMIC_ACQUIRE), at;
		const struct hpcpy_live_rec *r;
		const char *file, *slash;
		struct hpcpy_code k;
		int flen;

		for (at = 0; at + sizeof(*r) <= used; at += r->bytes) {
			r = (const struct hpcpy_live_rec *)(const void *)(pt->chunk[c] + at);
			if (!r->bytes)
				break;
			if (r->id != id)
				continue;
			k = hpcpy_live_code(r, (const unsigned char *)(r + 1));
			file = k.filename;
			flen = (int)k.filename_len;
			slash = memrchr(file, '/', k.filename_len);
			if (slash) {
				flen -= (int)(slash + 1 - file);
				file = slash + 1;
			}
			line = in ? pyline_line(in->major, in->minor, k.linetable,
						k.linetable_len, k.firstlineno,
						k.ncode, offset) : -1;
			if (line >= 0)
				snprintf(buf, size, "%.*s:%u %.*s at %.*s:%d", flen,
					 file, k.firstlineno, (int)k.qualname_len,
					 k.qualname, flen, file, (int)line);
			else
				snprintf(buf, size, "%.*s:%u %.*s", flen, file,
					 k.firstlineno, (int)k.qualname_len,
					 k.qualname);
			return 1;
		}
	}
	return 0;
}

void rt_py_fault(struct rt_thread *td)
{
	if (td->py)
		td->py->faults++;
}

/* ---- the capability: .hpcpy files, the log ---- */

void rt_py_modules(void)
{
	static int switched;
	const struct rt_module *m;

	if (!interp())
		return;
	if (!rt_py_lm && (m = rt_module_add_unmapped(HPCPY_MODULE, 0, 0)))
		__atomic_store_n(&rt_py_lm, m->id, __ATOMIC_RELEASE);
	/* threads sampling through rings since before (source-perf.c,
	 * THE SWITCH) */
	if (!__atomic_exchange_n(&switched, 1, __ATOMIC_ACQ_REL))
		rt_perf_leave_rings();
}

static void py_thread_begin(struct rt_thread *td)
{
	td->py_self = (uintptr_t)pthread_self();
	rt_py_modules();
}

static void fill_hpcpy(struct textrec_out *o, void *arg)
{
	const struct py_thread *pt = arg;
	const struct py_interp *in = rt_python_get();
	int i;

	hpcpy_write_head(o, in ? in->major : 3, in ? in->minor : 0);
	for (i = 0; i < pt->nchunks; i++) {
		size_t off = 0;

		while (off < pt->used[i]) {
			const struct hpcpy_live_rec *r =
				(const void *)(pt->chunk[i] + off);
			struct hpcpy_code c =
				hpcpy_live_code(r, (const unsigned char *)(r + 1));

			hpcpy_write_code(o, &c);
			off += r->bytes;
		}
	}
}

static void py_thread_written(struct rt_thread *td, const char *profile)
{
	struct py_thread *pt = td->py;

	if (!pt)
		return;
	__atomic_add_fetch(&total_threads, 1, __ATOMIC_RELAXED);
	__atomic_add_fetch(&total_codes, pt->codes, __ATOMIC_RELAXED);
	__atomic_add_fetch(&total_lost, pt->codes_lost, __ATOMIC_RELAXED);
	__atomic_add_fetch(&total_faults, pt->faults, __ATOMIC_RELAXED);
	if (pt->codes)
		rt_side_file(profile, HPCPY_SUFFIX, fill_hpcpy, pt,
			     "Python frames keep their code ids only");
	live_close(&pt->live, 1, 0);	/* invariant 4 */
}

static void py_thread_release(struct rt_thread *td)
{
	struct py_thread *pt = td->py;
	int i;

	if (!pt)
		return;
	td->py = NULL;
	live_close(&pt->live, 0, 1);
	for (i = 0; i < pt->nchunks; i++)
		munmap(pt->chunk[i], ARENA_CHUNK);
	munmap(pt, sizeof(*pt));
}

static void py_log(void (*put)(const char *text))
{
	static const char *const key[6] = {
		"python-threads: ", "python-codes: ", "python-codes-lost: ",
		"python-faults: ", "python-threads-switched: ",
		"python-switch-unread: ",
	};
	const uint64_t v[6] = { total_threads, total_codes, total_lost,
				total_faults, rt_perf_switched, rt_perf_switch_unread };
	char num[24];
	int i;

	if (!rt_py_lm)
		return;
	for (i = 0; i < 6; i++) {
		put(key[i]);
		rt_fmt_u64(num, v[i], 10, 0);
		put(num);
		put("\n");
	}
}

const struct rt_capability pyframes_capability = {
	.name = "python-frames",
	.modules = rt_py_modules,
	.thread_begin = py_thread_begin,
	.thread_written = py_thread_written,
	.thread_release = py_thread_release,
	.log = py_log,
};
