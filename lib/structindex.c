/* structindex.c - see structindex.h. */
#include <errno.h>
#include <fcntl.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "addrsearch.h"
#include "error.h"
#include "insn-mix.h"
#include "structindex.h"

#define SX_MAGIC "HPCSIDX"
#define SX_VERSION 1
#define SX_ENDIAN 0x01020304u
#define SX_BUILDID 96		/* build ID (hex) bytes kept, NUL-padded */
#define SX_PROLOG_MAX (256 << 10)
#define RANGE_WINDOW 16		/* structure_lookup()'s statement window */
#define ENTRY_WINDOW 4		/* and its procedure window */
#define BLOCK 256		/* ranges per block of blockmax[] */
#define LONG_RANGE (64 << 10)	/* longer ranges are kept in longs[] */

struct sx_head {
	char magic[8];
	uint32_t version, endian;
	uint64_t size, mtime_sec, mtime_nsec, ino;
	uint64_t prolog;	/* bytes before the first F (or end tag) */
	uint64_t nfiles, nprocs, nranges, nentries, nlongs;
	uint32_t has_mix, pad;
	char buildid[SX_BUILDID];
};

struct sx_span {		/* an F start-tag line */
	uint64_t off, len;
};

struct sx_proc {		/* a P element, its lines whole */
	uint64_t off, len;
	uint32_t file, pad;
};

struct sx_range {
	uint64_t lo, hi;
	uint32_t proc, pad;
};
_Static_assert(offsetof(struct sx_range, lo) == 0, "addrsearch.h's key");

struct structindex {
	char *path;		/* the structure file */
	const struct sx_head *h;
	const struct sx_span *files;
	const struct sx_proc *procs;
	const struct sx_range *ranges, *entries;
	const uint64_t *longs;	/* indexes into ranges[] */
	const uint64_t *blockmax;	/* per block: max hi of ranges so far
					 * (long ones aside) */
	void *map;		/* the cached index mapped, or NULL */
	size_t maplen;
	void *owned;		/* the index made in memory, or NULL */
};

/* The parts of an index in one buffer, in file order. */
static size_t sx_size(const struct sx_head *h, size_t *at)
{
	size_t n = sizeof(*h);
	uint64_t nblocks = (h->nranges + BLOCK - 1) / BLOCK;

	at[0] = n;
	n += h->nfiles * sizeof(struct sx_span);
	at[1] = n;
	n += h->nprocs * sizeof(struct sx_proc);
	at[2] = n;
	n += h->nranges * sizeof(struct sx_range);
	at[3] = n;
	n += h->nentries * sizeof(struct sx_range);
	at[4] = n;
	n += h->nlongs * sizeof(uint64_t);
	at[5] = n;
	n += nblocks * sizeof(uint64_t);
	return n;
}

static void point(struct structindex *ix, const char *base)
{
	size_t at[6];

	ix->h = (const struct sx_head *)(const void *)base;
	sx_size(ix->h, at);
	ix->files = (const struct sx_span *)(const void *)(base + at[0]);
	ix->procs = (const struct sx_proc *)(const void *)(base + at[1]);
	ix->ranges = (const struct sx_range *)(const void *)(base + at[2]);
	ix->entries = (const struct sx_range *)(const void *)(base + at[3]);
	ix->longs = (const uint64_t *)(const void *)(base + at[4]);
	ix->blockmax = (const uint64_t *)(const void *)(base + at[5]);
}

/* The build ID of the build-id line ending the prolog p[0..n), or NULL. */
static const char *prolog_buildid(const char *p, size_t n, size_t *len)
{
	static const char open[] = "\n<!-- build-id: ";
	const char *q, *e;

	if (n < sizeof(open) + 5 || memcmp(p + n - 5, " -->\n", 5))
		return NULL;
	for (q = p + n - 6; q > p && *q != '\n'; q--)
		;
	if ((size_t)(p + n - q) < sizeof(open) + 4 ||
	    memcmp(q, open, sizeof(open) - 1))
		return NULL;
	q += sizeof(open) - 1;
	e = p + n - 5;
	if (e <= q || (size_t)(e - q) >= SX_BUILDID)
		return NULL;
	*len = (size_t)(e - q);
	return q;
}

/* Reads the prolog of the structure file and checks it against h. */
static int check_prolog(int fd, const struct sx_head *h)
{
	char *buf;
	const char *id;
	size_t len;
	int ok;

	if (h->prolog > SX_PROLOG_MAX || !h->prolog)
		return -1;
	buf = xmalloc(h->prolog);
	ok = pread(fd, buf, h->prolog, 0) == (ssize_t)h->prolog &&
	     (id = prolog_buildid(buf, h->prolog, &len)) != NULL &&
	     len == strnlen(h->buildid, SX_BUILDID) &&
	     !memcmp(id, h->buildid, len);
	free(buf);
	return ok ? 0 : -1;
}

static void fill_stat(struct sx_head *h, const struct stat *st)
{
	memcpy(h->magic, SX_MAGIC, sizeof(SX_MAGIC));
	h->version = SX_VERSION;
	h->endian = SX_ENDIAN;
	h->size = (uint64_t)st->st_size;
	h->mtime_sec = (uint64_t)st->st_mtim.tv_sec;
	h->mtime_nsec = (uint64_t)st->st_mtim.tv_nsec;
	h->ino = (uint64_t)st->st_ino;
}

/* The cached index at ipath when valid for the file (fd, st). */
static int open_cached(struct structindex *ix, const char *ipath, int fd,
		       const struct stat *st)
{
	struct sx_head want, *h;
	struct stat ist;
	size_t at[6];
	int ifd = open(ipath, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK);
	void *map;

	if (ifd < 0)
		return -1;
	if (fstat(ifd, &ist) || !S_ISREG(ist.st_mode) ||
	    (uint64_t)ist.st_size < sizeof(*h) ||
	    (uint64_t)ist.st_size > ((uint64_t)1 << 40)) {
		close(ifd);
		return -1;
	}
	map = mmap(NULL, (size_t)ist.st_size, PROT_READ, MAP_PRIVATE, ifd, 0);
	close(ifd);
	if (map == MAP_FAILED)
		return -1;
	h = map;
	memset(&want, 0, sizeof(want));
	fill_stat(&want, st);
	if (memcmp(h->magic, want.magic, sizeof(want.magic)) ||
	    h->version != want.version || h->endian != want.endian ||
	    h->size != want.size || h->mtime_sec != want.mtime_sec ||
	    h->mtime_nsec != want.mtime_nsec || h->ino != want.ino ||
	    h->nfiles > h->size || h->nprocs > h->size ||
	    h->nranges > h->size || h->nentries > h->size ||
	    h->nlongs > h->nranges ||
	    sx_size(h, at) != (size_t)ist.st_size || check_prolog(fd, h)) {
		munmap(map, (size_t)ist.st_size);
		return -1;
	}
	ix->map = map;
	ix->maplen = (size_t)ist.st_size;
	point(ix, map);
	return 0;
}

/* The index being made. */
struct build {
	struct sx_head h;
	struct sx_span *files;	size_t files_alloc;
	struct sx_proc *procs;	size_t procs_alloc;
	struct sx_range *ranges; size_t ranges_alloc;
	struct sx_range *entries; size_t entries_alloc;
};

static int starts(const char *p, const char *e, const char *s)
{
	size_t n = strlen(s);

	return (size_t)(e - p) >= n && !memcmp(p, s, n);
}

/*
 * Reads at *q (before e) a number ending in stop into *v: "0x" and hex
 * digits, as hpcstruct writes them, read here; anything else as strtoull()
 * with base 0 reads it.  Advances *q to stop; -1 when malformed.
 */
static int read_num(const char **q, const char *e, char stop, uint64_t *v)
{
	const char *p = *q;
	char num[24], *end;
	uint64_t x = 0;
	size_t k;

	if (e - p > 2 && p[0] == '0' && p[1] == 'x') {
		const char *d = p + 2;

		for (; d < e && d - p < 2 + 16; d++) {
			unsigned c = (unsigned char)*d;

			if (c - '0' < 10)
				x = x << 4 | (c - '0');
			else if ((c | 0x20) - 'a' < 6)
				x = x << 4 | ((c | 0x20) - 'a' + 10);
			else
				break;
		}
		if (d > p + 2 && d < e && *d == stop) {
			*q = d;
			*v = x;
			return 0;
		}
	}
	for (k = 0; p < e && *p != stop && k < sizeof(num) - 1;)
		num[k++] = *p++;
	num[k] = 0;
	errno = 0;
	x = strtoull(num, &end, 0);
	if (errno || *end || !k || p >= e || *p != stop)
		return -1;
	*q = p;
	*v = x;
	return 0;
}

/*
 * Adds the ranges of the v="{...}" in line [p, e) (the first one only
 * when first is set: a P's entry) to b; -1 when malformed.
 */
static int line_ranges(struct build *b, const char *p, const char *e,
		       uint32_t proc, int entry)
{
	static const char v[] = " v=\"{";
	const char *q = p;

	while ((size_t)(e - q) >= sizeof(v) - 1 &&
	       memcmp(q, v, sizeof(v) - 1))
		q++;
	if ((size_t)(e - q) < sizeof(v) - 1)
		return entry ? -1 : 0;
	q += sizeof(v) - 1;
	while (q < e && *q != '}') {
		uint64_t lo, hi;

		if (*q == ' ') {
			q++;
			continue;
		}
		if (*q != '[')
			return -1;
		q++;
		if (read_num(&q, e, '-', &lo))
			return -1;
		q++;
		if (read_num(&q, e, ')', &hi))
			return -1;
		q++;
		if (entry) {
			HPC_GROW(b->entries, b->h.nentries + 1,
				 b->entries_alloc);
			b->entries[b->h.nentries++] =
				(struct sx_range){ lo, lo, proc, 0 };
			return 0;
		}
		if (hi <= lo)
			continue;
		HPC_GROW(b->ranges, b->h.nranges + 1, b->ranges_alloc);
		b->ranges[b->h.nranges++] = (struct sx_range){ lo, hi, proc, 0 };
	}
	return q < e ? 0 : -1;
}

/*
 * Scans the structure file text[0..n) as this hpcstruct lays it out
 * (structindex.h); -1 when it is laid out otherwise.
 */
static int scan(struct build *b, const char *text, size_t n)
{
	const char *p = text, *end = text + n, *e;
	const char *mixpi = "<?" INSN_MIX_TARGET;
	const char *id;
	size_t idlen;
	int in_proc = 0, in_file = 0, done = 0;
	uint64_t proc_off = 0;

	/* the prolog: everything up to the first F, ending in build-id */
	while (p < end && !starts(p, end, "<F ") && !starts(p, end, "</LM>")) {
		if (starts(p, end, "<P "))
			return -1;
		e = memchr(p, '\n', (size_t)(end - p));
		if (!e || e - text >= SX_PROLOG_MAX)
			return -1;
		p = e + 1;
	}
	b->h.prolog = (uint64_t)(p - text);
	id = prolog_buildid(text, (size_t)(p - text), &idlen);
	if (!id)
		return -1;
	memcpy(b->h.buildid, id, idlen);
	for (; p < end; p = e + 1) {
		e = memchr(p, '\n', (size_t)(end - p));
		if (!e || done)
			return -1;
		if (in_proc && *p == ' ') {
			const char *q = p;

			while (q < e && *q == ' ')
				q++;
			if (q + 3 <= e && (q[1] == 'S' || q[1] == 'C') &&
			    q[0] == '<' && q[2] == ' ' &&
			    line_ranges(b, q, e, (uint32_t)(b->h.nprocs - 1), 0))
				return -1;
			if (!b->h.has_mix && e - q > 10 &&
			    memmem(q, (size_t)(e - q), mixpi, strlen(mixpi)))
				b->h.has_mix = 1;
			continue;
		}
		if (in_proc && starts(p, e + 1, "</P>\n")) {
			b->procs[b->h.nprocs - 1].len =
				(uint64_t)(e + 1 - text) - proc_off;
			in_proc = 0;
		} else if (in_proc) {
			return -1;
		} else if (in_file && starts(p, e, "<P ")) {
			HPC_GROW(b->procs, b->h.nprocs + 1, b->procs_alloc);
			proc_off = (uint64_t)(p - text);
			b->procs[b->h.nprocs++] = (struct sx_proc){
				proc_off, (uint64_t)(e + 1 - p),
				(uint32_t)(b->h.nfiles - 1), 0 };
			if (line_ranges(b, p, e, (uint32_t)(b->h.nprocs - 1),
					1))
				return -1;
			in_proc = !(e - p >= 2 && e[-2] == '/' && e[-1] == '>');
		} else if (!in_file && starts(p, e, "<F ") && e[-1] == '>') {
			HPC_GROW(b->files, b->h.nfiles + 1, b->files_alloc);
			b->files[b->h.nfiles++] = (struct sx_span){
				(uint64_t)(p - text), (uint64_t)(e + 1 - p) };
			in_file = 1;
		} else if (in_file && starts(p, e + 1, "</F>\n")) {
			in_file = 0;
		} else if (!in_file && starts(p, e + 1, "</LM>\n")) {
			static const char tail[] = "</HPCToolkitStructure>\n";

			if ((size_t)(end - e - 1) != sizeof(tail) - 1 ||
			    memcmp(e + 1, tail, sizeof(tail) - 1))
				return -1;
			done = 1;
			e = end - 1;
		} else {
			return -1;
		}
	}
	return done && b->h.nprocs < UINT32_MAX ? 0 : -1;
}

static int cmp_sx_range(const void *a, const void *b)
{
	const struct sx_range *x = a, *y = b;

	if (x->lo != y->lo)
		return x->lo < y->lo ? -1 : 1;
	if (x->hi != y->hi)
		return x->hi < y->hi ? -1 : 1;
	return x->proc < y->proc ? -1 : x->proc > y->proc;
}

/* Lays the index out in one buffer (the cached file's bytes). */
static char *lay_out(struct build *b, size_t *len)
{
	size_t at[6], i, nblocks;
	uint64_t *longs, *blockmax, max = 0;
	char *buf;

	/* a file of procedures without statements has no ranges (NULL) */
	if (b->h.nranges)
		qsort(b->ranges, b->h.nranges, sizeof(*b->ranges), cmp_sx_range);
	if (b->h.nentries)
		qsort(b->entries, b->h.nentries, sizeof(*b->entries), cmp_sx_range);
	for (i = 0; i < b->h.nranges; i++)
		b->h.nlongs += b->ranges[i].hi - b->ranges[i].lo > LONG_RANGE;
	*len = sx_size(&b->h, at);
	buf = xcalloc(1, *len);
	memcpy(buf, &b->h, sizeof(b->h));
	if (b->h.nfiles)
		memcpy(buf + at[0], b->files, b->h.nfiles * sizeof(*b->files));
	if (b->h.nprocs)
		memcpy(buf + at[1], b->procs, b->h.nprocs * sizeof(*b->procs));
	if (b->h.nranges)
		memcpy(buf + at[2], b->ranges,
		       b->h.nranges * sizeof(*b->ranges));
	if (b->h.nentries)
		memcpy(buf + at[3], b->entries,
		       b->h.nentries * sizeof(*b->entries));
	longs = (uint64_t *)(void *)(buf + at[4]);
	blockmax = (uint64_t *)(void *)(buf + at[5]);
	nblocks = (b->h.nranges + BLOCK - 1) / BLOCK;
	for (i = 0; i < b->h.nranges; i++) {
		const struct sx_range *r = &b->ranges[i];

		if (r->hi - r->lo > LONG_RANGE)
			*longs++ = i;
		else if (r->hi > max)
			max = r->hi;
		if (i % BLOCK == BLOCK - 1 || i + 1 == b->h.nranges)
			blockmax[i / BLOCK] = max;
	}
	(void)nblocks;
	return buf;
}

/* Writes the index beside the structure file (aside, then renamed). */
static void write_cache(const char *ipath, const char *buf, size_t len)
{
	struct strbuf tmp = STRBUF_INIT;
	FILE *f;
	int bad;

	strbuf_addf(&tmp, "%s.tmp%ld", ipath, (long)getpid());
	f = fopen(tmp.buf, "wxe");
	if (!f) {
		strbuf_release(&tmp);
		return;
	}
	bad = fwrite(buf, 1, len, f) != len;
	bad |= fclose(f) != 0;
	if (bad || rename(tmp.buf, ipath))
		unlink(tmp.buf);
	strbuf_release(&tmp);
}

static int make_index(struct structindex *ix, const char *ipath, int fd,
		      const struct stat *st)
{
	struct build b;
	void *text;
	size_t len;
	int rc;

	if (!st->st_size)
		return -1;
	text = mmap(NULL, (size_t)st->st_size, PROT_READ, MAP_PRIVATE, fd, 0);
	if (text == MAP_FAILED)
		return -1;
	memset(&b, 0, sizeof(b));
	fill_stat(&b.h, st);
	rc = scan(&b, text, (size_t)st->st_size);
	munmap(text, (size_t)st->st_size);
	if (!rc) {
		ix->owned = lay_out(&b, &len);
		point(ix, ix->owned);
		write_cache(ipath, ix->owned, len);
	}
	free(b.files);
	free(b.procs);
	free(b.ranges);
	free(b.entries);
	return rc;
}

struct structindex *structindex_open(const char *path)
{
	struct structindex *ix;
	struct strbuf ipath = STRBUF_INIT;
	struct stat st;
	/* O_NONBLOCK: a FIFO named as a structure file is refused, not
	 * waited on (no effect on a regular file's reads) */
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);

	if (fd < 0)
		return NULL;
	if (fstat(fd, &st) || !S_ISREG(st.st_mode)) {
		close(fd);
		return NULL;
	}
	ix = xcalloc(1, sizeof(*ix));
	ix->path = xstrdup(path);
	strbuf_addf(&ipath, "%s.idx", path);
	if (open_cached(ix, ipath.buf, fd, &st) &&
	    make_index(ix, ipath.buf, fd, &st)) {
		structindex_free(ix);
		ix = NULL;
	}
	close(fd);
	strbuf_release(&ipath);
	return ix;
}

void structindex_write(const char *path)
{
	structindex_free(structindex_open(path));
}

void structindex_free(struct structindex *ix)
{
	if (!ix)
		return;
	if (ix->map)
		munmap(ix->map, ix->maplen);
	free(ix->owned);
	free(ix->path);
	free(ix);
}

size_t structindex_nprocs(const struct structindex *ix)
{
	return (size_t)ix->h->nprocs;
}

int structindex_has_mix(const struct structindex *ix)
{
	return ix->h->has_mix != 0;
}

/* Marks the owners of the last w elements of v[0..n), ties included. */
static void mark_window(const struct sx_range *v, size_t n, size_t w,
			const struct structindex *ix, uint8_t *mark)
{
	size_t k = n;

	while (k > 0 && (n - k < w || v[k - 1].lo == v[n - w].lo)) {
		k--;
		if (v[k].proc < ix->h->nprocs)
			mark[v[k].proc] = 1;
	}
}

void structindex_select(const struct structindex *ix, uint64_t addr,
			uint8_t *mark)
{
	size_t nr = addrsearch_count_le(ix->ranges, ix->h->nranges,
					 sizeof(*ix->ranges), addr);
	size_t ne = addrsearch_count_le(ix->entries, ix->h->nentries,
					 sizeof(*ix->entries), addr);
	size_t k, i;

	mark_window(ix->ranges, nr, nr < RANGE_WINDOW ? nr : RANGE_WINDOW,
		    ix, mark);
	mark_window(ix->entries, ne, ne < ENTRY_WINDOW ? ne : ENTRY_WINDOW,
		    ix, mark);
	/* every range covering addr: back while a block's max reaches it */
	for (k = nr; k > 0;) {
		size_t b = (k - 1) / BLOCK;

		if (ix->blockmax[b] <= addr)
			break;
		for (; k > b * BLOCK; k--) {
			const struct sx_range *r = &ix->ranges[k - 1];

			if (addr < r->hi && r->proc < ix->h->nprocs)
				mark[r->proc] = 1;
		}
	}
	for (i = 0; i < ix->h->nlongs; i++) {
		const struct sx_range *r;

		if (ix->longs[i] >= ix->h->nranges)
			continue;
		r = &ix->ranges[ix->longs[i]];
		if (r->lo <= addr && addr < r->hi && r->proc < ix->h->nprocs)
			mark[r->proc] = 1;
	}
}

/* Appends bytes [off, off + len) of the file to sb, checked to start
 * with head and end with one of tails. */
static int copy_piece(int fd, uint64_t off, uint64_t len, const char *head,
		      const char *tail1, const char *tail2, struct strbuf *sb)
{
	size_t at = sb->len, h = strlen(head), t1 = strlen(tail1),
	       t2 = strlen(tail2);
	const char *p;

	if (len < h + t1 || len > ((uint64_t)1 << 32))
		return -1;
	strbuf_grow(sb, (size_t)len);
	if (pread(fd, sb->buf + at, (size_t)len, (off_t)off) != (ssize_t)len)
		return -1;
	sb->len += (size_t)len;
	sb->buf[sb->len] = 0;
	p = sb->buf + at;
	if (memcmp(p, head, h))
		return -1;
	if (!memcmp(p + len - t1, tail1, t1) ||
	    (len >= t2 && !memcmp(p + len - t2, tail2, t2)))
		return 0;
	return -1;
}

int structindex_document(const struct structindex *ix, const uint8_t *mark,
			 struct strbuf *sb)
{
	int fd = open(ix->path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	uint64_t i, file = UINT64_MAX;
	int bad = fd < 0;

	if (!bad) {
		strbuf_grow(sb, (size_t)ix->h->prolog);
		bad = pread(fd, sb->buf + sb->len, (size_t)ix->h->prolog, 0) !=
		      (ssize_t)ix->h->prolog;
		if (!bad) {
			sb->len += (size_t)ix->h->prolog;
			sb->buf[sb->len] = 0;
		}
	}
	for (i = 0; !bad && mark && i < ix->h->nprocs; i++) {
		const struct sx_proc *p = &ix->procs[i];

		if (!mark[i])
			continue;
		if (p->file != file) {
			if (file != UINT64_MAX)
				strbuf_addstr(sb, "</F>\n");
			file = p->file;
			bad = file >= ix->h->nfiles ||
			      copy_piece(fd, ix->files[file].off,
					 ix->files[file].len, "<F ", ">\n",
					 ">\n", sb);
		}
		if (!bad)
			bad = copy_piece(fd, p->off, p->len, "<P ", "\n</P>\n",
					 "/>\n", sb);
	}
	if (fd >= 0)
		close(fd);
	if (bad)
		return hpc_seterr("'%s': no longer matches its index '%s.idx'",
				  ix->path, ix->path);
	if (file != UINT64_MAX)
		strbuf_addstr(sb, "</F>\n");
	strbuf_addstr(sb, "</LM>\n</HPCToolkitStructure>\n");
	return 0;
}
