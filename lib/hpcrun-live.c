/*
 * hpcrun-live.c - recovery of the live files a killed process left (see
 * hpcrun-live.h for the format).
 *
 * Design notes:
 *  1. A live file is trusted no further than it checks: magic, version,
 *     byte order, header and node sizes, chunks inside the file and in
 *     order, node ids in creation order (12, 14, ...), each node's parent an
 *     earlier node, each module id in the process's load map.  The first
 *     node that fails ends the tree (nodes are appended, so what comes
 *     before is whole); a file whose header fails is not recovered and said.
 *  2. The profile is written under a temporary name and renamed, so a
 *     .hpcrun in the directory is always whole; only then do the live
 *     file and (once the last of its threads is done) the proc file go.
 *  3. Processes are told apart by the file name's PROG-RANK-*-HOSTID-PID;
 *     several proc files of one process (an exec that failed) add up.
 *  4. A live file still mapped by a running process (its /proc/PID/maps
 *     names it) is that process's, not a leftover: not touched.
 *  5. A live file whose magic is all zero bytes holds no tree (a free file
 *     of hpcrun's pool, or one being made): removed without a word, never
 *     recovered.
 *  6. Beside a thread's live file, its live code file (hpcpy.h,
 *     .hpcpy-live) names its Python frames: where the thread's profile
 *     is recovered, or was written but not a whole .hpcpy, the codes become
 *     its .hpcpy (written as note 2 says), and the live code file goes.
 *     A bad one is said in one line naming it and left; the profile is
 *     recovered all the same, its Python frames named by id.
 *  7. The profile is what hpcrun writes from the same tree: a live node
 *     holds a double per metric, and a metric of integer values (the
 *     data-centric ones, hpcrun(5)) is stored as the integer
 *     (hpcrun_value_bits); a child of the root "^Static " is a variable
 *     node (HPCRUN_NODE_VARIABLE), the others unwound.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "buildid.h"
#include "error.h"
#include "hpcpy.h"
#include "hpcrun-fmt.h"
#include "hpcrun-live.h"
#include "strbuf.h"
#include "textrec.h"

/* A process's proc file(s), decoded. */
struct proc {
	char *key;			/* PROG-RANK-HOSTID-PID */
	struct hpcrun_kv *hdr;		size_t nhdr;
	struct hpcrun_metric *met;	size_t nmet;
	struct hpcrun_lm *lms;		size_t nlms;
	char **buildid;			/* per lms[i] */
	char **files;			size_t nfiles;	/* proc files */
	size_t recovered, failed;
	int running;			/* its live files are still mapped */
	uint64_t pid;
	size_t alloc_hdr, alloc_met, alloc_lms, alloc_files;
};

struct recovery {
	struct proc *procs;
	size_t nprocs, alloc;
};

/* Reads a whole regular file (at most max bytes); NULL with an error. */
static unsigned char *slurp(const char *path, size_t max, size_t *size)
{
	struct stat st;
	unsigned char *buf;
	size_t got = 0;
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK);

	if (fd < 0) {
		hpc_seterr("'%s': %s", path, strerror(errno));
		return NULL;
	}
	if (fstat(fd, &st) || !S_ISREG(st.st_mode) || (size_t)st.st_size > max) {
		hpc_seterr("'%s': %s", path, S_ISREG(st.st_mode) ?
			   "too large for a live file" : "not a regular file");
		close(fd);
		return NULL;
	}
	buf = xmalloc((size_t)st.st_size + 1);
	while (got < (size_t)st.st_size) {
		ssize_t n = read(fd, buf + got, (size_t)st.st_size - got);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		got += (size_t)n;
	}
	close(fd);
	*size = got;
	return buf;
}

/*
 * The process key of a file name PROG-RANK-THREAD-HOSTID-PID-GEN.SUFFIX:
 * "PROG-RANK-HOSTID-PID" (malloc'ed), *thread its thread; NULL if the
 * name is not of that form.
 */
static char *name_key(const char *name, const char *suffix, long *thread)
{
	size_t n = strlen(name), k = strlen(suffix), i;
	const char *dash[5];
	int found = 0;
	char *key;

	if (n <= k || strcmp(name + n - k, suffix))
		return NULL;
	for (i = n - k; i > 0 && found < 5; i--)
		if (name[i - 1] == '-')
			dash[found++] = name + i - 1;
	if (found < 5)
		return NULL;
	/* dash[4] RANK dash[3] THREAD dash[2] HOSTID dash[1] PID dash[0] GEN */
	*thread = strtol(dash[3] + 1, NULL, 10);
	key = xmalloc(n);
	memcpy(key, name, (size_t)(dash[3] - name));
	memcpy(key + (dash[3] - name), dash[2], (size_t)(dash[0] - dash[2]));
	key[(dash[3] - name) + (dash[0] - dash[2])] = '\0';
	return key;
}

static struct proc *find_proc(struct recovery *r, const char *key)
{
	size_t i;

	for (i = 0; i < r->nprocs; i++)
		if (!strcmp(r->procs[i].key, key))
			return &r->procs[i];
	HPC_GROW(r->procs, r->nprocs + 1, r->alloc);
	memset(&r->procs[r->nprocs], 0, sizeof(r->procs[0]));
	r->procs[r->nprocs].key = xstrdup(key);
	return &r->procs[r->nprocs++];
}

/* The two NUL-terminated strings at p (len bytes); 0 or -1. */
static int two_strings(const unsigned char *p, size_t len, const char **a,
		       const char **b)
{
	const unsigned char *z = memchr(p, '\0', len);

	if (!z || !memchr(z + 1, '\0', len - (size_t)(z + 1 - p)))
		return -1;
	*a = (const char *)p;
	*b = (const char *)z + 1;
	return 0;
}

/* Adds the records of the proc file path to pr. */
static int read_proc(struct proc *pr, const char *path)
{
	size_t size, pos = 16, i;
	unsigned char *d = slurp(path, (size_t)64 << 20, &size);

	if (!d)
		return -1;
	if (size < 16 || memcmp(d, HPCRUN_LIVE_PROC_MAGIC, 16)) {
		free(d);
		return hpc_seterr("'%s': not an hpcrun proc file", path);
	}
	while (pos + 8 <= size) {
		uint32_t type, len;
		const unsigned char *p = d + pos + 8;
		const char *a, *b;

		memcpy(&type, d + pos, 4);
		memcpy(&len, d + pos + 4, 4);
		if (len > size - pos - 8)
			break;			/* cut short: the end */
		pos += 8 + (size_t)len;
		if (type == HPCRUN_LIVE_REC_HEADER && !two_strings(p, len, &a, &b)) {
			for (i = 0; i < pr->nhdr; i++)
				if (!strcmp(pr->hdr[i].name, a))
					break;
			if (i < pr->nhdr)
				continue;	/* a later file of the process */
			HPC_GROW(pr->hdr, pr->nhdr + 1, pr->alloc_hdr);
			pr->hdr[pr->nhdr].name = xstrdup(a);
			pr->hdr[pr->nhdr++].value = xstrdup(b);
		} else if (type == HPCRUN_LIVE_REC_METRIC &&
			   len > sizeof(struct hpcrun_live_metric) &&
			   !two_strings(p + sizeof(struct hpcrun_live_metric),
					len - sizeof(struct hpcrun_live_metric), &a, &b)) {
			struct hpcrun_live_metric m;
			struct hpcrun_metric *o;

			if (pr->nmet == HPCRUN_LIVE_MAX_METRICS || pr->nfiles)
				continue;	/* the first file's table */
			memcpy(&m, p, sizeof(m));
			HPC_GROW(pr->met, pr->nmet + 1, pr->alloc_met);
			o = &pr->met[pr->nmet++];
			memset(o, 0, sizeof(*o));
			o->name = xstrdup(a);
			o->description = xstrdup(b);
			memcpy(o->flags, m.flags, sizeof(o->flags));
			o->period = m.period;
			o->formula = xstrdup("");
			o->format = xstrdup("");
			o->is_frequency = m.is_frequency;
			o->threshold = m.threshold;
		} else if (type == HPCRUN_LIVE_REC_MODULE && len > 2 &&
			   !two_strings(p + 2, len - 2, &a, &b)) {
			uint16_t id;

			memcpy(&id, p, 2);
			for (i = 0; i < pr->nlms; i++)
				if (pr->lms[i].id == id)
					break;
			if (i < pr->nlms || !id)
				continue;
			HPC_GROW(pr->lms, pr->nlms + 1, pr->alloc_lms);
			pr->buildid = xrealloc(pr->buildid, pr->alloc_lms * sizeof(char *));
			pr->lms[pr->nlms].id = id;
			pr->lms[pr->nlms].path = xstrdup(a);
			pr->lms[pr->nlms].flags = 0;
			pr->buildid[pr->nlms++] = xstrdup(b);
		}
	}
	free(d);
	HPC_GROW(pr->files, pr->nfiles + 1, pr->alloc_files);
	pr->files[pr->nfiles++] = xstrdup(path);
	return 0;
}

static const char *proc_header(const struct proc *pr, const char *name)
{
	size_t i;

	for (i = 0; i < pr->nhdr; i++)
		if (!strcmp(pr->hdr[i].name, name))
			return pr->hdr[i].value;
	return NULL;
}

static long lm_index(const struct proc *pr, uint16_t id)
{
	size_t i;

	for (i = 0; i < pr->nlms; i++)
		if (pr->lms[i].id == id)
			return (long)i;
	return -1;
}

/* Checks the header of the live file d (size bytes); 0 or -1. */
static int check_header(const char *path, const unsigned char *d, size_t size,
			const struct proc *pr, struct hpcrun_live_header *h)
{
	uint32_t i;
	uint64_t end = HPCRUN_LIVE_HEADER;

	if (size < sizeof(*h))
		return hpc_seterr("'%s': truncated live file", path);
	memcpy(h, d, sizeof(*h));
	if (memcmp(h->magic, HPCRUN_LIVE_MAGIC, sizeof(h->magic)))
		return hpc_seterr("'%s': not a live file (bad magic)", path);
	if (h->version != HPCRUN_LIVE_VERSION)
		return hpc_seterr("'%s': live file version %u, not %u", path,
				  h->version, HPCRUN_LIVE_VERSION);
	if (h->byte_order != HPCRUN_LIVE_BYTE_ORDER)
		return hpc_seterr("'%s': live file of another byte order", path);
	if (h->header_bytes != HPCRUN_LIVE_HEADER || h->nchunks == 0 ||
	    h->nchunks > HPCRUN_LIVE_MAX_CHUNKS || h->nmetrics != pr->nmet ||
	    h->nmetrics > HPCRUN_LIVE_MAX_METRICS ||
	    h->node_bytes < sizeof(struct hpcrun_live_node) + h->nmetrics * 8 ||
	    h->node_bytes % 8)
		return hpc_seterr("'%s': inconsistent live file header", path);
	for (i = 0; i < h->nchunks; i++) {
		uint64_t room = h->chunk[i].bytes - (i ? 0 : HPCRUN_LIVE_HEADER);

		if (h->chunk[i].off != (i ? end : 0) || h->chunk[i].bytes > size ||
		    h->chunk[i].off > size - h->chunk[i].bytes ||
		    h->chunk[i].bytes < HPCRUN_LIVE_HEADER ||
		    h->chunk[i].nodes > room / h->node_bytes)
			return hpc_seterr("'%s': live file chunk %u lies outside "
					  "the file", path, i);
		end = h->chunk[i].off + h->chunk[i].bytes;
	}
	return 0;
}

/* Builds p from the live file d (whose header h checked) of process pr,
 * as hpcrun writes it (note 7); arrays malloc'ed into p (freed by
 * free_built). */
static void build(struct hpcrun_profile *p, const unsigned char *d,
		  const struct hpcrun_live_header *h, const struct proc *pr,
		  char *thread_id)
{
	size_t nnodes = 0, i, nvals = 0, n = 0, k;
	uint32_t c, partial_id = 0, static_id = 0;
	unsigned char *used = xcalloc(pr->nlms + 1, 1);
	uint64_t static_root = 0;
	int have_partial_child = 0;

	for (c = 0; c < 8; c++)		/* placeholder text, first byte high */
		static_root = static_root << 8 | (unsigned char)"^Static "[c];
	for (c = 0; c < h->nchunks; c++)
		nnodes += h->chunk[c].nodes;
	p->nodes = xcalloc(nnodes + 1, sizeof(*p->nodes));
	p->values = xcalloc(nnodes * h->nmetrics + 1, sizeof(*p->values));
	p->ctxs = xcalloc(nnodes + 1, sizeof(*p->ctxs));
	for (c = 0; c < h->nchunks; c++) {
		const unsigned char *q = d + h->chunk[c].off + (c ? 0 : HPCRUN_LIVE_HEADER);

		for (k = 0; k < h->chunk[c].nodes; k++, q += h->node_bytes) {
			struct hpcrun_live_node ln;
			struct hpcrun_node *o = &p->nodes[n];
			long lm;
			int any = 0;
			uint32_t m;

			memcpy(&ln, q, sizeof(ln));
			lm = ln.lm ? lm_index(pr, ln.lm) : 0;
			if (ln.id != 12 + 2 * n || ln.parent >= ln.id || lm < 0 ||
			    (ln.parent && ln.parent < 12) || (ln.parent & 1))
				goto done;	/* torn or damaged: the tree so far */
			if (n == 2)
				partial_id = ln.id;
			else if (ln.parent == partial_id && partial_id)
				have_partial_child = 1;
			if (!ln.parent && !ln.lm && ln.addr == static_root)
				static_id = ln.id;
			o->id = ln.id;
			o->parent = ln.parent;
			o->lm = ln.lm;
			o->addr = ln.addr;
			o->flags = ln.parent == static_id && static_id ?
				   HPCRUN_NODE_VARIABLE : HPCRUN_NODE_UNWOUND;
			if (ln.lm)
				used[lm] = 1;
			for (m = 0; m < h->nmetrics; m++) {
				double v;

				memcpy(&v, q + sizeof(ln) + 8 * m, 8);
				if (v == 0)
					continue;
				if (!any) {
					p->ctxs[p->nctxs].ctx = ln.id;
					p->ctxs[p->nctxs++].first = nvals;
					any = 1;
				}
				p->values[nvals].metric = (uint16_t)m;
				p->values[nvals++].bits =
					hpcrun_value_bits(&pr->met[m], v);
			}
			n++;
		}
	}
done:
	if (n > 2 && !have_partial_child) {
		/* no failed unwinds: no "^Partial" (as hpcrun writes it) */
		memmove(&p->nodes[2], &p->nodes[3], (n - 3) * sizeof(*p->nodes));
		n--;
	}
	p->nnodes = n;
	p->nvalues = nvals;
	p->lms = xcalloc(pr->nlms + 1, sizeof(*p->lms));
	p->header = xcalloc(pr->nhdr + pr->nlms + 2, sizeof(*p->header));
	for (i = 0; i < pr->nhdr; i++) {
		p->header[i] = pr->hdr[i];
		if (!strcmp(pr->hdr[i].name, "thread-id"))
			p->header[i].value = thread_id;
	}
	p->nheader = pr->nhdr;
	for (i = 0; i < pr->nlms; i++) {
		p->lms[i] = pr->lms[i];
		if (!used[i])
			continue;
		p->lms[i].flags = HPCRUN_LM_ANALYZE;
		if (pr->buildid[i][0]) {
			struct strbuf sb = STRBUF_INIT;

			strbuf_addf(&sb, HPC_BUILDID_HEADER "%u", pr->lms[i].id);
			p->header[p->nheader].name = strbuf_detach(&sb, NULL);
			p->header[p->nheader++].value = pr->buildid[i];
		}
	}
	p->nlms = pr->nlms;
	p->header[p->nheader].name = "hpcrun-recovered";
	p->header[p->nheader++].value = "killed";
	p->metrics = xcalloc(pr->nmet + 1, sizeof(*p->metrics));
	for (i = 0; i < pr->nmet; i++) {
		p->metrics[i] = pr->met[i];
		p->metrics[i].nsamples = h->nsamples[i];
	}
	p->nmetrics = (uint32_t)pr->nmet;
	free(used);
}

static void free_built(struct hpcrun_profile *p, const struct proc *pr)
{
	size_t i;

	for (i = pr->nhdr; i + 1 < p->nheader; i++)
		free((char *)p->header[i].name);
	free(p->nodes);
	free(p->values);
	free(p->ctxs);
	free(p->lms);
	free(p->header);
	free(p->metrics);
	free(p->idkinds);
	free(p->idtuple);
}

/* Is the profile at path there and whole? */
static int have_profile(const char *path)
{
	struct hpcrun_profile *p;

	if (access(path, F_OK))
		return 0;
	p = hpcrun_fmt_read(path);
	hpcrun_profile_free(p);
	return p != NULL;
}

/* Does the file at path start with a magic of zero bytes (note 5)? */
static int is_free(const char *path)
{
	static const char zero[16];
	char magic[16];
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK);
	ssize_t n;

	if (fd < 0)
		return 0;
	n = read(fd, magic, sizeof(magic));
	close(fd);
	return n == (ssize_t)sizeof(magic) && !memcmp(magic, zero, sizeof(zero));
}

/* Writes path through fill(fd, arg) (0 or a negative errno) into
 * PATH.tmp, renamed into place when whole (note 2); 0, or an errno. */
static int write_aside(const char *path, int (*fill)(int fd, const void *arg),
		       const void *arg)
{
	struct strbuf tmp = STRBUF_INIT;
	int fd, err = 0;

	strbuf_addf(&tmp, "%s.tmp", path);
	fd = open(tmp.buf, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0) {
		err = errno;
	} else {
		err = -fill(fd, arg);
		if (close(fd) && !err)
			err = errno;
		if (!err && rename(tmp.buf, path))
			err = errno;
		if (err)
			unlink(tmp.buf);
	}
	strbuf_release(&tmp);
	return err;
}

/* Codes arg (a struct hpcpy) as a .hpcpy on fd. */
static int fill_codes(int fd, const void *arg)
{
	const struct hpcpy *p = arg;
	struct textrec_out o;
	size_t i;

	textrec_out_init(&o, fd);
	hpcpy_write_head(&o, p->major, p->minor);
	for (i = 0; i < p->ncodes; i++)
		hpcpy_write_code(&o, &p->codes[i]);
	return textrec_flush(&o);
}

/* Profile arg (a struct hpcrun_profile) as a .hpcrun on fd. */
static int fill_profile(int fd, const void *arg)
{
	return hpcrun_fmt_write(fd, arg);
}

/* The live code file of the thread whose files are stem.* (note 6): made
 * its .hpcpy unless there is a whole one (the process may have died
 * while writing it), then removed; a bad one said and left. */
static void recover_codes(const char *stem, size_t n,
			  void (*say)(const char *fmt, ...))
{
	struct strbuf live = STRBUF_INIT, out = STRBUF_INIT;
	struct hpcpy *p = NULL;
	int err;

	strbuf_add(&live, stem, n);
	strbuf_addstr(&live, HPCPY_LIVE_SUFFIX);
	strbuf_add(&out, stem, n);
	strbuf_addstr(&out, HPCPY_SUFFIX);
	if (access(live.buf, F_OK)) {
		strbuf_release(&live);
		strbuf_release(&out);
		return;
	}
	if (!access(out.buf, F_OK) && (p = hpcpy_read(out.buf))) {
		hpcpy_free(p);
		unlink(live.buf);
	} else if (!(p = hpcpy_live_read(live.buf))) {
		say("%s: Python frames named by id only", hpc_lasterr());
	} else {
		err = write_aside(out.buf, fill_codes, p);
		if (err)
			say("'%s': %s: Python frames named by id only", out.buf,
			    strerror(err));
		else
			unlink(live.buf);
		hpcpy_free(p);
	}
	strbuf_release(&live);
	strbuf_release(&out);
}

/* Recovers the live file path (thread thread) of pr, and its live code
 * file (note 6); 1 written, 0 not needed, -1 failed (hpc_lasterr). */
static int recover_one(struct proc *pr, const char *path, long thread,
		       void (*say)(const char *fmt, ...))
{
	size_t size, n = strlen(path) - strlen(HPCRUN_LIVE_SUFFIX);
	struct hpcrun_live_header h;
	struct hpcrun_profile p;
	struct strbuf out = STRBUF_INIT;
	char tid[24];
	const char *host;
	unsigned char *d;
	int have, err = 0;

	strbuf_add(&out, path, n);
	strbuf_addstr(&out, ".hpcrun");
	if ((have = have_profile(out.buf)) || is_free(path)) {
		strbuf_release(&out);
		if (have)
			recover_codes(path, n, say);
		unlink(path);		/* written before it died, or free */
		return 0;
	}
	if (!pr->nfiles) {
		strbuf_release(&out);
		return hpc_seterr("'%s': no .hpcrun-proc file of its process", path);
	}
	d = slurp(path, (size_t)1 << 32, &size);
	if (!d || check_header(path, d, size, pr, &h)) {
		free(d);
		strbuf_release(&out);
		return -1;
	}
	memset(&p, 0, sizeof(p));
	snprintf(tid, sizeof(tid), "%ld", thread);
	build(&p, d, &h, pr, tid);
	host = proc_header(pr, "host-id");
	p.idkinds = xcalloc(HPCRUN_NIDKINDS, sizeof(*p.idkinds));
	p.idtuple = xcalloc(3, sizeof(*p.idtuple));
	hpcrun_fmt_identity(&p, p.idkinds, p.idtuple,
			    host ? (uint32_t)strtoul(host, NULL, 16) : 0,
			    (uint64_t)thread);
	err = write_aside(out.buf, fill_profile, &p);
	if (err) {
		hpc_seterr("'%s': %s", out.buf, strerror(err));
	} else {
		recover_codes(path, n, say);
		unlink(path);
	}
	pr->pid = h.pid;
	free_built(&p, pr);
	free(d);
	strbuf_release(&out);
	return err ? -1 : 1;
}

/* Is the live file base still mapped by its process (named in key), on
 * this host: a running process, not one to recover? */
static int in_use(const char *key, const char *base)
{
	struct strbuf path = STRBUF_INIT, maps = STRBUF_INIT;
	char buf[4096];
	ssize_t n;
	int fd, found;

	strbuf_addf(&path, "/proc/%ld/maps", strtol(strrchr(key, '-') + 1, NULL, 10));
	fd = open(path.buf, O_RDONLY | O_CLOEXEC);
	strbuf_release(&path);
	if (fd < 0)
		return 0;
	while ((n = read(fd, buf, sizeof(buf))) > 0)
		strbuf_add(&maps, buf, (size_t)n);
	close(fd);
	found = strstr(maps.buf, base) != NULL;
	strbuf_release(&maps);
	return found;
}

static void free_proc(struct proc *pr)
{
	size_t i;

	for (i = 0; i < pr->nhdr; i++) {
		free((char *)pr->hdr[i].name);
		free((char *)pr->hdr[i].value);
	}
	for (i = 0; i < pr->nmet; i++) {
		free((char *)pr->met[i].name);
		free((char *)pr->met[i].description);
		free((char *)pr->met[i].formula);
		free((char *)pr->met[i].format);
	}
	for (i = 0; i < pr->nlms; i++) {
		free((char *)pr->lms[i].path);
		free(pr->buildid[i]);
	}
	for (i = 0; i < pr->nfiles; i++)
		free(pr->files[i]);
	free(pr->hdr);
	free(pr->met);
	free(pr->lms);
	free(pr->buildid);
	free(pr->files);
	free(pr->key);
}

int hpcrun_live_recover(const char *dir, void (*say)(const char *fmt, ...),
			size_t *bad)
{
	struct recovery r = { NULL, 0, 0 };
	struct dirent *de;
	char **live = NULL;
	size_t nlive = 0, alive = 0, i;
	int written = 0;
	DIR *dp = opendir(dir);

	if (!dp)
		return hpc_seterr("'%s': %s", dir, strerror(errno));
	while ((de = readdir(dp))) {
		long thread;
		char *key = name_key(de->d_name, HPCRUN_LIVE_PROC_SUFFIX, &thread);
		struct strbuf sb = STRBUF_INIT;

		if (key) {
			strbuf_addf(&sb, "%s/%s", dir, de->d_name);
			if (read_proc(find_proc(&r, key), sb.buf)) {
				say("%s: not recovered", hpc_lasterr());
				if (bad)
					(*bad)++;
			}
			strbuf_release(&sb);
			free(key);
		} else if ((key = name_key(de->d_name, HPCRUN_LIVE_SUFFIX, &thread))) {
			free(key);
			HPC_GROW(live, nlive + 1, alive);
			strbuf_addf(&sb, "%s/%s", dir, de->d_name);
			live[nlive++] = strbuf_detach(&sb, NULL);
		}
	}
	closedir(dp);
	for (i = 0; i < nlive; i++) {
		const char *base = strrchr(live[i], '/') + 1;
		long thread;
		char *key = name_key(base, HPCRUN_LIVE_SUFFIX, &thread);
		struct proc *pr = find_proc(&r, key);
		int rc = in_use(key, base) ? -2 : recover_one(pr, live[i], thread, say);

		if (rc == -2) {
			pr->failed++;	/* running: keeps its proc file */
			pr->running = 1;
		} else if (rc < 0) {
			say("%s: not recovered", hpc_lasterr());
			pr->failed++;
			if (bad)
				(*bad)++;
		} else {
			pr->recovered += (size_t)rc;
			written += rc;
		}
		free(key);
		free(live[i]);
	}
	free(live);
	for (i = 0; i < r.nprocs; i++) {
		struct proc *pr = &r.procs[i];
		size_t k;

		if (pr->recovered)
			say("'%s': recovered %zu profile%s of killed process %llu "
			    "(%s)", dir, pr->recovered, pr->recovered == 1 ? "" : "s",
			    (unsigned long long)pr->pid, proc_header(pr, "program-name") ?
			    proc_header(pr, "program-name") : "?");
		if (pr->running)
			say("'%s': process %s still runs: its live profiles are "
			    "left alone", dir, strrchr(pr->key, '-') + 1);
		if (!pr->failed)
			for (k = 0; k < pr->nfiles; k++)
				unlink(pr->files[k]);
		free_proc(pr);
	}
	free(r.procs);
	return written;
}
