/* measdir.c - structure for every sampled binary of a measurement. */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <libelf.h>

#include "addrsearch.h"
#include "buildid.h"
#include "error.h"
#include "hashmap.h"
#include "binary.h"
#include "hpcpy.h"
#include "hpcrun-fmt.h"
#include "hpcrun-live.h"
#include "infile.h"
#include "measdir.h"
#include "opts.h"
#include "output.h"
#include "strbuf.h"
#include "structindex.h"
#include "version.h"
#include "xmlw.h"

/* A sampled module and the addresses of it the profiles name. */
struct module {
	char *path;
	uint64_t *addrs;	size_t naddrs, addrs_alloc;
};

static void add_addr(struct module *m, uint64_t a)
{
	HPC_GROW(m->addrs, m->naddrs + 1, m->addrs_alloc);
	m->addrs[m->naddrs++] = a;
}

/*
 * Adds the sampled modules of one profile to the set (path -> struct
 * module) and to out, and to each module the addresses of its CCT nodes:
 * each address and the one before it (a return address's call), as hpcprof
 * looks them up.
 */
static void collect(const char *file, struct hmap *seen,
		    struct module ***out, size_t *nout, size_t *alloc)
{
	struct hpcrun_profile *p = hpcrun_fmt_read(file);
	struct module **by_id;

	if (!p) {
		hpc_warn("%s", hpc_lasterr());
		return;
	}
	by_id = xcalloc((size_t)UINT16_MAX + 1, sizeof(*by_id));
	for (size_t i = 0; i < p->nlms; i++) {
		const char *path = p->lms[i].path;
		struct module *m;

		if (!(p->lms[i].flags & HPCRUN_LM_ANALYZE) || !path)
			continue;
		m = hmap_get_str(seen, path);
		if (!m) {
			m = xcalloc(1, sizeof(*m));
			m->path = xstrdup(path);
			hmap_put_str(seen, path, m);
			HPC_GROW(*out, *nout + 1, *alloc);
			(*out)[(*nout)++] = m;
		}
		by_id[p->lms[i].id] = m;
	}
	for (uint64_t i = 0; i < p->nnodes; i++) {
		const struct hpcrun_node *nd = &p->nodes[i];

		if (!by_id[nd->lm])
			continue;
		add_addr(by_id[nd->lm], nd->addr);
		if (nd->addr)
			add_addr(by_id[nd->lm], nd->addr - 1);
	}
	free(by_id);
	hpcrun_profile_free(p);
}

static int u64_cmp(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* Sorts v[*n] and drops repeats. */
static void sort_unique(uint64_t *v, size_t *n)
{
	size_t out = 0;

	if (*n > 1)
		qsort(v, *n, sizeof(*v), u64_cmp);
	for (size_t i = 0; i < *n; i++)
		if (out == 0 || v[out - 1] != v[i])
			v[out++] = v[i];
	*n = out;
}

/* The cache holds our structure files, at most this large each. */
#define STRUCT_MAX_BYTES ((uint64_t)4 << 30)

static const char lm_tag[] = "<LM i=\"2\" n=\"";
static const char end_tag[] = "</HPCToolkitStructure>\n";

/*
 * What the structure files hpcstruct writes hold, as far as a cached one
 * is concerned: bumped when they gain content (2: the instruction mix; 3:
 * partial files, which an older hpcstruct would take for whole ones; 4:
 * PLT stubs named as objdump names them, *ABS*+0xADDR@plt for IRELATIVE
 * ones), so an entry is never reused by an hpcstruct of another format.
 */
#define CACHE_FORMAT 4

/*
 * "buildid-HEX" or "hash-HEX-SIZE", prefixed by our version and the cache
 * format ("v0.1.0-f2-"); the build ID in hex ("" for none).
 */
static int cache_key(const char *path, struct strbuf *key,
		     char hex[HPC_BUILDID_HEX_SIZE])
{
	uint64_t size;
	int fd = infile_open(path, BINARY_MAX_BYTES, "an ELF file", &size);
	Elf *elf;

	*hex = 0;
	if (fd < 0)
		return -1;
	elf_version(EV_CURRENT);
	elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	if (elf)
		hpc_buildid_elf(elf, hex);
	strbuf_addf(key, "v%s-f%d-", HPC_VERSION, CACHE_FORMAT);
	if (*hex) {
		strbuf_addf(key, "buildid-%s", hex);
	} else if (size > 0) {
		void *m = mmap(NULL, (size_t)size, PROT_READ, MAP_PRIVATE, fd, 0);

		if (m == MAP_FAILED) {
			elf_end(elf);
			close(fd);
			return -1;
		}
		strbuf_addf(key, "hash-%016llx-%llu",
			    (unsigned long long)hpc_hash(m, (size_t)size),
			    (unsigned long long)size);
		munmap(m, (size_t)size);
	} else {
		strbuf_addstr(key, "empty");
	}
	elf_end(elf);
	close(fd);
	return 0;
}

/*
 * Reads the cache entry at path into sb when it is whole and was made for
 * the build whose ID is hex ("" for none): a regular file, not a symbolic
 * link (to anything at all), with the LM element, the closing tag at its
 * end and the build-ID comment of that build (output.h).  Returns 0, or
 * -1 with hpc_lasterr() saying what is wrong with it.
 */
static int read_cache_entry(const char *path, const char *hex,
			    struct strbuf *sb)
{
	size_t n = strlen(end_tag), idlen = 0;
	const char *lm, *id = "";
	struct stat st;

	if (lstat(path, &st) < 0)
		return hpc_seterr("'%s': %s", path, strerror(errno));
	if (S_ISLNK(st.st_mode))
		return hpc_seterr("'%s': a symbolic link, not a cached structure", path);
	if (infile_read(path, STRUCT_MAX_BYTES, "a structure file", sb) < 0)
		return -1;
	lm = strstr(sb->buf, lm_tag);
	if (!lm || sb->len < n || memcmp(sb->buf + sb->len - n, end_tag, n))
		return hpc_seterr("'%s': cached structure cut short (no %.*s)",
				  path, (int)n - 1, end_tag);
	lm = strchr(lm, '\n');
	if (lm && !strncmp(lm + 1, OUTPUT_BUILDID_OPEN, strlen(OUTPUT_BUILDID_OPEN))) {
		id = lm + 1 + strlen(OUTPUT_BUILDID_OPEN);
		idlen = strspn(id, "0123456789abcdef");
	}
	if (idlen != strlen(hex) || strncmp(id, hex, idlen))
		return hpc_seterr("'%s': cached structure of build ID %.*s, not of the binary's %s",
				  path, idlen ? (int)idlen : 4, idlen ? id : "none",
				  *hex ? hex : "none");
	return 0;
}

/*
 * The ranges a partial structure file in buf covers (OUTPUT_PARTIAL_OPEN,
 * on the line before the LM tag) into *out, sorted by lo; returns their
 * count, or -1 when the file is whole.  A list that cannot be read covers
 * nothing.
 */
static ptrdiff_t partial_cover(const char *buf, struct addr_range **out)
{
	const char *lm = strstr(buf, lm_tag);
	const char *p = strstr(buf, "\n" OUTPUT_PARTIAL_OPEN);
	size_t n = 0, alloc = 0;

	*out = NULL;
	if (!lm || !p || p > lm)
		return -1;
	p += 1 + strlen(OUTPUT_PARTIAL_OPEN);
	if (*p++ != '{')
		return 0;
	while (*p == '[' || (*p == ' ' && p[1] == '[')) {
		char *e;
		uint64_t lo, hi;

		p += *p == ' ' ? 2 : 1;
		lo = strtoull(p, &e, 16);
		if (e == p || *e != '-')
			break;
		p = e + 1;
		hi = strtoull(p, &e, 16);
		if (e == p || *e != ')' || hi <= lo ||
		    (n > 0 && lo < (*out)[n - 1].hi))
			break;
		HPC_GROW(*out, n + 1, alloc);
		(*out)[n++] = (struct addr_range){ lo, hi };
		p = e + 1;
	}
	return (ptrdiff_t)n;
}

/*
 * Can the cached structure file in sb serve o: whole, or partial and
 * covering every address o wants?  When it cannot and o wants addresses,
 * they become those and the covered ranges' starts (*merged, owned by the
 * caller), so the new file covers the old one's procedures too.
 */
static int cache_serves(const struct strbuf *sb, struct analyze_opts *o,
			uint64_t **merged)
{
	struct addr_range *cover;
	ptrdiff_t n = partial_cover(sb->buf, &cover);
	size_t missing = 0, nm;

	if (n < 0)
		return 1;
	for (size_t k = 0; o->addrs && k < o->naddrs; k++) {
		uint64_t a = o->addrs[k];
		size_t at = addrsearch_count_le(cover, (size_t)n, sizeof(*cover), a);

		missing += at == 0 || cover[at - 1].hi <= a;
	}
	if (o->addrs && !missing) {
		free(cover);
		return 1;
	}
	if (o->addrs) {
		nm = o->naddrs;
		*merged = xmalloc((nm + (size_t)n + 1) * sizeof(**merged));
		memcpy(*merged, o->addrs, nm * sizeof(**merged));
		for (ptrdiff_t k = 0; k < n; k++)
			(*merged)[nm++] = cover[k].lo;
		sort_unique(*merged, &nm);
		o->addrs = *merged;
		o->naddrs = nm;
	}
	free(cover);
	return 0;
}

/*
 * Writes the structure file in sb to to (through a temporary file renamed
 * over it).  With lm_path, the load module's name is rewritten to lm_path
 * (a cached file may come from another copy of the same binary).
 */
static int write_structure(const struct strbuf *sb, const char *to,
			   const char *lm_path)
{
	struct strbuf tmp = STRBUF_INIT;
	const char *lm, *end = NULL;
	FILE *f;
	int err;

	lm = lm_path ? strstr(sb->buf, lm_tag) : NULL;
	if (lm) {
		lm += strlen(lm_tag);
		end = strchr(lm, '"');
	}
	strbuf_addf(&tmp, "%s.tmp%ld", to, (long)getpid());
	f = fopen(tmp.buf, "w");
	if (!f) {
		strbuf_release(&tmp);
		return hpc_seterr("'%s': %s", to, strerror(errno));
	}
	if (end) {
		fwrite(sb->buf, 1, (size_t)(lm - sb->buf), f);
		xml_escape(f, lm_path, 1);
		fwrite(end, 1, sb->len - (size_t)(end - sb->buf), f);
	} else {
		fwrite(sb->buf, 1, sb->len, f);
	}
	err = output_close(f, 0);
	if (err)
		hpc_seterr("'%s': write error: %s", to, strerror(-err));
	else if (rename(tmp.buf, to) != 0)
		err = hpc_seterr("'%s': %s", to, strerror(errno));
	if (err)
		unlink(tmp.buf);
	strbuf_release(&tmp);
	return err ? -1 : 0;
}

static int mkdirs(const char *path)
{
	struct strbuf sb = STRBUF_INIT;
	int rc = 0;

	strbuf_addstr(&sb, path);
	for (size_t i = 1; i <= sb.len && rc == 0; i++) {
		if (sb.buf[i] != '/' && sb.buf[i] != 0)
			continue;
		sb.buf[i] = 0;
		if (mkdir(sb.buf, 0777) < 0 && errno != EEXIST)
			rc = -1;
		if (i < sb.len)
			sb.buf[i] = '/';
	}
	strbuf_release(&sb);
	return rc;
}

/* The cache directory (created), or "" when there is none. */
static void cache_dir(struct strbuf *dir)
{
	const char *env = getenv("HPCSTRUCT_CACHE");
	const char *xdg = getenv("XDG_CACHE_HOME");
	const char *home = getenv("HOME");

	if (env && *env)
		strbuf_addstr(dir, env);
	else if (xdg && *xdg)
		strbuf_addf(dir, "%s/hpctoolkit-c/hpcstruct", xdg);
	else if (home && *home)
		strbuf_addf(dir, "%s/.cache/hpctoolkit-c/hpcstruct", home);
	if (dir->len && mkdirs(dir->buf) < 0) {
		hpc_warn("'%s': cannot create the cache directory: %s",
			 dir->buf, strerror(errno));
		strbuf_reset(dir);
	}
}

/*
 * Analyzes (or takes from the cache) one module into DIR/structs/: the
 * procedures its addresses need, or the whole binary with all or when the
 * profiles name no address in it.  Two
 * modules with one basename get BASENAME.hpcstruct and BASENAME-2.hpcstruct
 * (readers match structure files to modules by the LM path inside).
 */
static int one_module(const char *dir, const struct module *m,
		      const char *cache, const struct analyze_opts *opts,
		      int quiet, int all, struct hmap *names)
{
	struct strbuf out = STRBUF_INIT, key = STRBUF_INIT, cached = STRBUF_INIT;
	struct strbuf sb = STRBUF_INIT;
	char hex[HPC_BUILDID_HEX_SIZE];
	const char *path = m->path;
	const char *slash = strrchr(path, '/');
	const char *base = slash ? slash + 1 : path;
	char *abs = realpath(path, NULL);
	struct analyze_opts o = *opts;
	uint64_t *merged = NULL;
	struct stat st;
	int rc = 0;

	if (!all && m->naddrs) {
		o.addrs = m->addrs;
		o.naddrs = m->naddrs;
	}
	strbuf_addf(&out, "%s/structs/%s", dir, base);
	for (int k = 2; hmap_get_str(names, out.buf); k++) {
		strbuf_reset(&out);
		strbuf_addf(&out, "%s/structs/%s-%d", dir, base, k);
	}
	hmap_put_str(names, out.buf, (void *)1);
	strbuf_addstr(&out, ".hpcstruct");
	if (*cache && cache_key(path, &key, hex) == 0) {
		/* the real file's basename, which names a library's procedures */
		const char *real = abs ? abs : path;

		strbuf_addf(&cached, "%s/%s-%s.hpcstruct", cache, key.buf,
			    strrchr(real, '/') ? strrchr(real, '/') + 1 : real);
		if (lstat(cached.buf, &st) == 0) {
			if (read_cache_entry(cached.buf, hex, &sb) < 0) {
				hpc_warn("%s; analyzing '%s' again", hpc_lasterr(), path);
			} else if (cache_serves(&sb, &o, &merged)) {
				if (write_structure(&sb, out.buf, real) == 0) {
					structindex_write(out.buf);
					if (!quiet)
						fprintf(stderr, "%s: '%s': reused cached structure (%s)\n",
							hpc_progname(), path, key.buf);
					goto done;
				}
				hpc_warn("%s; analyzing '%s' again", hpc_lasterr(), path);
			} else if (!quiet) {
				fprintf(stderr, "%s: '%s': cached structure is partial; %s\n",
					hpc_progname(), path,
					o.addrs ? "extending it" : "analyzing the whole binary");
			}
		}
	}
	if (analyze_binary(path, out.buf, &o) < 0) {
		/* the reason names the module (or its structure file) */
		hpc_error("%s; skipped", hpc_lasterr());
		rc = -1;
		goto done;
	}
	if (!quiet)
		fprintf(stderr, "%s: '%s': wrote '%s'\n", hpc_progname(), path,
			out.buf);
	strbuf_reset(&sb);
	if (cached.len &&
	    (infile_read(out.buf, STRUCT_MAX_BYTES, "a structure file", &sb) < 0 ||
	     write_structure(&sb, cached.buf, NULL) < 0))
		hpc_warn("cannot cache: %s", hpc_lasterr());
done:
	free(abs);
	free(merged);
	strbuf_release(&out);
	strbuf_release(&key);
	strbuf_release(&cached);
	strbuf_release(&sb);
	return rc;
}

static int name_cmp(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

int measdir_run(const char *dir, const struct analyze_opts *opts, int quiet,
		int all)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	struct hmap *seen = hmap_new(), *names = hmap_new();
	struct strlist files = { 0 };
	struct module **mods = NULL;
	size_t nmods = 0, mods_alloc = 0;
	struct strbuf sb = STRBUF_INIT, cache = STRBUF_INIT;
	int failed = 0;

	if (!d) {
		hpc_error("'%s': %s", dir, strerror(errno));
		hmap_free(seen);
		hmap_free(names);
		return -1;
	}
	/* what killed processes left */
	hpcrun_live_recover(dir, hpc_warn, NULL);
	while ((e = readdir(d))) {
		size_t len = strlen(e->d_name);

		if (len > 7 && !strcmp(e->d_name + len - 7, ".hpcrun")) {
			strbuf_reset(&sb);
			strbuf_addf(&sb, "%s/%s", dir, e->d_name);
			strlist_push(&files, strbuf_detach(&sb, NULL));
		}
	}
	closedir(d);
	if (files.n == 0) {
		hpc_error("'%s': not a measurement directory (no .hpcrun files)", dir);
		failed = 1;
		goto out;
	}
	if (files.n > 1)
		qsort(files.v, files.n, sizeof(*files.v), name_cmp);
	for (size_t i = 0; i < files.n; i++)
		collect(files.v[i], seen, &mods, &nmods, &mods_alloc);
	strbuf_addf(&sb, "%s/structs", dir);
	if (mkdir(sb.buf, 0777) < 0 && errno != EEXIST) {
		hpc_error("'%s': %s", sb.buf, strerror(errno));
		failed = 1;
		goto out;
	}
	cache_dir(&cache);
	for (size_t i = 0; i < nmods; i++) {
		struct module *m = mods[i];
		struct stat st;

		/* Python's frames: hpcprof makes their structure (hpcpy.h);
		 * the kernel's symbols, which hpcprof reads itself */
		if (!strcmp(m->path, HPCPY_MODULE) ||
		    !strncmp(m->path, "kernel_symbols/", 15) ||
		    strstr(m->path, "/kernel_symbols/vmlinux."))
			continue;
		if (m->path[0] == '[' || stat(m->path, &st) < 0 ||
		    !S_ISREG(st.st_mode)) {
			if (!quiet)
				fprintf(stderr, "%s: '%s': not a file, skipped\n",
					hpc_progname(), m->path);
			continue;
		}
		sort_unique(m->addrs, &m->naddrs);
		if (one_module(dir, m, cache.buf, opts, quiet, all, names) < 0)
			failed = 1;
	}
out:
	for (size_t i = 0; i < files.n; i++)
		free((char *)files.v[i]);
	for (size_t i = 0; i < nmods; i++) {
		free(mods[i]->path);
		free(mods[i]->addrs);
		free(mods[i]);
	}
	free(mods);
	strlist_release(&files);
	strbuf_release(&sb);
	strbuf_release(&cache);
	hmap_free(seen);
	hmap_free(names);
	return failed ? -1 : 0;
}
