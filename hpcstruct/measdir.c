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

#include "buildid.h"
#include "error.h"
#include "hashmap.h"
#include "binary.h"
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

/* Adds the paths of sampled modules in one profile to the set. */
static void collect(const char *file, struct hmap *seen, struct strlist *out)
{
	struct hpcrun_profile *p = hpcrun_fmt_read(file);

	if (!p) {
		hpc_warn("%s", hpc_lasterr());
		return;
	}
	for (size_t i = 0; i < p->nlms; i++) {
		const char *path = p->lms[i].path;
		char *copy;

		if (!(p->lms[i].flags & HPCRUN_LM_ANALYZE) || !path ||
		    hmap_get_str(seen, path))
			continue;
		copy = xstrdup(path);
		hmap_put_str(seen, path, copy);
		strlist_push(out, copy);
	}
	hpcrun_profile_free(p);
}

/* The cache holds our structure files, at most this large each. */
#define STRUCT_MAX_BYTES ((uint64_t)4 << 30)

static const char lm_tag[] = "<LM i=\"2\" n=\"";
static const char end_tag[] = "</HPCToolkitStructure>\n";

/*
 * What the structure files hpcstruct writes hold, as far as a cached one
 * is concerned: bumped when they gain content (2: the instruction mix), so
 * an older cache entry is not reused for a newer hpcstruct.
 */
#define CACHE_FORMAT 2

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
 * Analyzes (or takes from the cache) one module into DIR/structs/.  Two
 * modules with one basename get BASENAME.hpcstruct and BASENAME-2.hpcstruct
 * (readers match structure files to modules by the LM path inside).
 */
static int one_module(const char *dir, const char *path, const char *cache,
		      const struct analyze_opts *opts, int quiet,
		      struct hmap *names)
{
	struct strbuf out = STRBUF_INIT, key = STRBUF_INIT, cached = STRBUF_INIT;
	struct strbuf sb = STRBUF_INIT;
	char hex[HPC_BUILDID_HEX_SIZE];
	const char *slash = strrchr(path, '/');
	const char *base = slash ? slash + 1 : path;
	char *abs = realpath(path, NULL);
	struct stat st;
	int rc = 0;

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
			if (read_cache_entry(cached.buf, hex, &sb) == 0 &&
			    write_structure(&sb, out.buf, real) == 0) {
				structindex_write(out.buf);
				if (!quiet)
					fprintf(stderr, "%s: '%s': reused cached structure (%s)\n",
						hpc_progname(), path, key.buf);
				goto done;
			}
			hpc_warn("%s; analyzing '%s' again", hpc_lasterr(), path);
		}
	}
	if (analyze_binary(path, out.buf, opts) < 0) {
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

int measdir_run(const char *dir, const struct analyze_opts *opts, int quiet)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	struct hmap *seen = hmap_new(), *names = hmap_new();
	struct strlist mods = { 0 }, files = { 0 };
	struct strbuf sb = STRBUF_INIT, cache = STRBUF_INIT;
	int failed = 0;

	if (!d) {
		hpc_error("'%s': %s", dir, strerror(errno));
		hmap_free(seen);
		hmap_free(names);
		return -1;
	}
	hpcrun_live_recover(dir, hpc_warn);	/* what killed processes left */
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
		collect(files.v[i], seen, &mods);
	strbuf_addf(&sb, "%s/structs", dir);
	if (mkdir(sb.buf, 0777) < 0 && errno != EEXIST) {
		hpc_error("'%s': %s", sb.buf, strerror(errno));
		failed = 1;
		goto out;
	}
	cache_dir(&cache);
	for (size_t i = 0; i < mods.n; i++) {
		struct stat st;

		if (mods.v[i][0] == '[' || stat(mods.v[i], &st) < 0 ||
		    !S_ISREG(st.st_mode)) {
			if (!quiet)
				fprintf(stderr, "%s: '%s': not a file, skipped\n",
					hpc_progname(), mods.v[i]);
			continue;
		}
		if (one_module(dir, mods.v[i], cache.buf, opts, quiet, names) < 0)
			failed = 1;
	}
out:
	for (size_t i = 0; i < files.n; i++)
		free((char *)files.v[i]);
	for (size_t i = 0; i < mods.n; i++)
		free((char *)mods.v[i]);
	strlist_release(&files);
	strlist_release(&mods);
	strbuf_release(&sb);
	strbuf_release(&cache);
	hmap_free(seen);
	hmap_free(names);
	return failed ? -1 : 0;
}
