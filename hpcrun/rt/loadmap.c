/*
 * loadmap.c - the modules mapped in the process.
 *
 * rt_loadmap_refresh() (outside the signal handler: at start, after dlopen
 * and dlclose) walks dl_iterate_phdr, keeps every module ever seen with a
 * stable id (the main program is 1), and publishes a new immutable array of
 * the live modules sorted by address.  The handler reads the published
 * snapshot with one atomic load and a binary search; old snapshots are
 * never freed, so a handler still reading one is safe.  Modules that are
 * dlclosed keep their id and path, so earlier samples still resolve.  Each
 * snapshot is stamped with the time it was published and links to the one
 * before: a sample read from a ring buffer after a dlclose (and maybe a
 * dlopen that mapped another library at the same addresses) resolves in
 * the snapshot of its own time.
 *
 * Every module ever seen is also kept in id order in a table that only
 * grows: an entry, once published, never changes, and a full table is
 * copied into one twice its size and published, the old one kept, so a
 * reader of rt_module_all (any thread, dlopen or not) holds a consistent
 * prefix that is never freed; readers take no lock.  A module's live flag
 * changes only from 1 to 0, with atomic stores: the handler reads it.
 *
 * Each module's GNU build ID is read from its PT_NOTE segments in memory
 * while dl_iterate_phdr holds the loader's lock (so the module cannot be
 * unmapped meanwhile); rt_profile_write() records it in the profile header
 * (buildid.h), never the handler.
 */
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <link.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "addrsearch.h"
#include "loadmap.h"
#include "output.h"
#include "runtime.h"

struct snapshot {
	uint64_t time;			/* published (CLOCK_MONOTONIC ns) */
	const struct snapshot *prev;
	size_t n;
	const struct rt_module *mod[];
};

static struct snapshot *published;
/* How many snapshots back rt_module_at looks for a sample's time. */
#define HISTORY 64
unsigned rt_loadmap_gen;

/* Every module ever seen, in id order: mod[i] has id i + 1.  Entries
 * [0, n) are immutable; n grows with a release store. */
struct table {
	size_t n, cap;
	struct rt_module *mod[];
};

static struct table *all;	/* written under lock, read by anyone */
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;

/* Publishes m as the next entry of the table (under lock); 0 or -ENOMEM. */
static int table_append(struct rt_module *m)
{
	struct table *t = all, *bigger;
	size_t cap;

	if (t && t->n < t->cap) {
		t->mod[t->n] = m;
		__atomic_store_n(&t->n, t->n + 1, __ATOMIC_RELEASE);
		return 0;
	}
	cap = t ? 2 * t->cap : 64;
	bigger = malloc(sizeof(*bigger) + cap * sizeof(bigger->mod[0]));
	if (!bigger)
		return -ENOMEM;
	bigger->cap = cap;
	bigger->n = t ? t->n : 0;
	if (t)
		memcpy(bigger->mod, t->mod, t->n * sizeof(t->mod[0]));
	bigger->mod[bigger->n++] = m;
	/* The old table stays: a reader may still hold it. */
	__atomic_store_n(&all, bigger, __ATOMIC_RELEASE);
	return 0;
}

/* Writes the vdso image into the measurement directory; its path or NULL. */
static char *save_vdso(uintptr_t lo, uintptr_t hi)
{
	char dir[4200], *path;
	uint32_t h = 2166136261u;
	const unsigned char *p = (const unsigned char *)lo;
	const Elf64_Ehdr *eh = (const Elf64_Ehdr *)lo;
	uintptr_t i, size = hi - lo, mapped = (size + 4095) & ~(uintptr_t)4095, end;
	struct rt_io io;
	int fd, err = 0;
	size_t len;

	/* The image goes on past its loaded segment: its section headers,
	 * which hpcstruct needs, lie in the rest of the mapped pages. */
	if (size >= sizeof(*eh) && !memcmp(eh->e_ident, ELFMAG, SELFMAG)) {
		end = eh->e_shoff + (uintptr_t)eh->e_shnum * eh->e_shentsize;
		if (end > size && end <= mapped)
			size = end;
	}
	hi = lo + size;
	for (i = 0; i < hi - lo; i++)
		h = (h ^ p[i]) * 16777619u;
	len = strlen(rt_cfg.outdir);
	if (len + 40 > sizeof(dir))
		return NULL;
	memcpy(dir, rt_cfg.outdir, len);
	memcpy(dir + len, "/vdso", 6);
	mkdir(dir, 0777);
	path = malloc(len + 40);
	if (!path)
		return NULL;
	memcpy(path, dir, len + 5);
	path[len + 5] = '/';
	rt_fmt_u64(path + len + 6, h, 16, 8);
	memcpy(path + len + 14, ".vdso", 6);
	rt_io_begin(&io);	/* the program cannot close it; no SIGXFSZ */
	fd = rt_io_open(path, O_WRONLY | O_CREAT | O_EXCL, 0644);
	if (fd >= 0) {
		err = hpc_write_all(fd, p, hi - lo);
		if (close(fd) && !err)
			err = -errno;
		if (err)	/* never a cut copy that looks whole */
			unlink(path);
	}
	rt_io_end(&io);
	if (err)
		rt_say_lost(path, -err, "vDSO copy lost (its samples keep "
			    "their addresses)");
	return path;
}

/* One object as dl_iterate_phdr reported it, copied (name and headers). */
struct object {
	struct dl_phdr_info info;
	char buildid[HPC_BUILDID_HEX_SIZE];	/* "" when none */
	struct object *next;
};

/* 1 when [a, a + n) lies inside one PT_LOAD segment of the object. */
static int mapped(const struct dl_phdr_info *info, uintptr_t a, size_t n)
{
	int k;

	for (k = 0; k < info->dlpi_phnum; k++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[k];
		uintptr_t lo = info->dlpi_addr + ph->p_vaddr;

		if (ph->p_type == PT_LOAD && a >= lo && n <= ph->p_memsz &&
		    a - lo <= ph->p_memsz - n)
			return 1;
	}
	return 0;
}

/*
 * The NT_GNU_BUILD_ID note of a mapped object, as hex into hex ("" when it
 * has none).  Reads the object's memory: only while the loader's lock is
 * held (dl_iterate_phdr), never in the handler.
 */
static void read_buildid(const struct dl_phdr_info *info, char *hex)
{
	static const char digits[] = "0123456789abcdef";
	int k;

	hex[0] = 0;
	for (k = 0; k < info->dlpi_phnum; k++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[k];
		const unsigned char *p =
			(const unsigned char *)(info->dlpi_addr + ph->p_vaddr);
		size_t size = ph->p_memsz, off = 0, align;

		if (ph->p_type != PT_NOTE || !mapped(info, (uintptr_t)p, size))
			continue;
		align = ph->p_align == 8 ? 8 : 4;
		while (size - off >= sizeof(ElfW(Nhdr))) {
			ElfW(Nhdr) nh;
			size_t name, desc, n, i;

			memcpy(&nh, p + off, sizeof(nh));
			name = off + sizeof(nh);
			desc = name + ((nh.n_namesz + align - 1) & ~(align - 1));
			if (desc > size || nh.n_descsz > size - desc)
				break;
			if (nh.n_type == NT_GNU_BUILD_ID && nh.n_namesz == 4 &&
			    !memcmp(p + name, "GNU", 4)) {
				n = nh.n_descsz < HPC_BUILDID_BYTES ?
				    nh.n_descsz : HPC_BUILDID_BYTES;
				for (i = 0; i < n; i++) {
					hex[2 * i] = digits[p[desc + i] >> 4];
					hex[2 * i + 1] = digits[p[desc + i] & 15];
				}
				hex[2 * n] = 0;
				return;
			}
			off = desc + ((nh.n_descsz + align - 1) & ~(align - 1));
		}
	}
}

/* Appends m to the table with the next id (lock held); 0, or -1 when
 * out of ids or memory. */
static int all_add(struct rt_module *m)
{
	size_t n = all ? all->n : 0;

	if (n >= UINT16_MAX - 1)
		return -1;
	m->id = (uint16_t)(n + 1);
	return table_append(m) ? -1 : 0;
}

/* The module of object o, found among the live ones or added; NULL when
 * it maps nothing or memory runs out. */
static struct rt_module *visit(const struct object *o)
{
	const struct dl_phdr_info *info = &o->info;
	struct rt_module m, *found = NULL;
	size_t i, nall = all ? all->n : 0;
	int k;

	memset(&m, 0, sizeof(m));
	m.bias = info->dlpi_addr;
	m.lo = UINTPTR_MAX;
	for (k = 0; k < info->dlpi_phnum; k++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[k];
		uintptr_t a = info->dlpi_addr + ph->p_vaddr;

		if (ph->p_type == PT_LOAD) {
			if (a < m.lo)
				m.lo = a;
			if (a + ph->p_memsz > m.hi)
				m.hi = a + ph->p_memsz;
			if (ph->p_flags & PF_X) {
				if (!m.xlo || a < m.xlo)
					m.xlo = a;
				if (a + ph->p_memsz > m.xhi)
					m.xhi = a + ph->p_memsz;
			}
		} else if (ph->p_type == PT_GNU_EH_FRAME) {
			m.eh_hdr = (const unsigned char *)a;
		}
	}
	if (m.lo >= m.hi)
		return NULL;
	for (i = 0; i < nall; i++)
		if (all->mod[i]->live && all->mod[i]->lo == m.lo &&
		    all->mod[i]->bias == m.bias)
			found = all->mod[i];
	if (!found) {
		const char *name = info->dlpi_name;

		found = calloc(1, sizeof(*found));
		if (!found)
			return NULL;
		*found = m;
		found->live = 1;
		memcpy(found->buildid, o->buildid, sizeof(found->buildid));
		if (!name || !*name)
			found->path = strdup(rt_cfg.exe);
		else if (m.lo == getauxval(AT_SYSINFO_EHDR))
			found->path = save_vdso(m.lo, m.hi);
		else
			found->path = realpath(name, NULL);
		if (!found->path)
			found->path = strdup(name && *name ? name : "unknown");
		/* The main program is reported first and gets id 1. */
		if (!found->path || all_add(found)) {
			free(found->path);
			free(found);
			return NULL;
		}
	}
	return found;
}

/* dl_iterate_phdr callback: copies, so that no lock of ours is held while
 * the loader's lock is (a dlopen'ed constructor calling dlopen would
 * otherwise deadlock against a refresh on another thread). */
static int copy_object(struct dl_phdr_info *info, size_t size, void *arg)
{
	struct object ***tailp = arg, *o = calloc(1, sizeof(*o));
	ElfW(Phdr) *ph;

	(void)size;
	if (!o)
		return 0;
	o->info.dlpi_addr = info->dlpi_addr;
	o->info.dlpi_name = strdup(info->dlpi_name ? info->dlpi_name : "");
	ph = malloc(info->dlpi_phnum * sizeof(*ph) + 1);
	if (!o->info.dlpi_name || !ph) {
		free((void *)o->info.dlpi_name);
		free(ph);
		free(o);
		return 0;
	}
	memcpy(ph, info->dlpi_phdr, info->dlpi_phnum * sizeof(*ph));
	o->info.dlpi_phdr = ph;
	o->info.dlpi_phnum = info->dlpi_phnum;
	read_buildid(info, o->buildid);
	**tailp = o;
	*tailp = &o->next;
	return 0;
}

/* Growing array of the live modules of one refresh; seen[id] marks
 * those already in it. */
struct collect {
	const struct rt_module **v;
	size_t n, alloc;
	unsigned char seen[UINT16_MAX];
};

static void collect(const struct object *o, struct collect *c)
{
	struct rt_module *m = visit(o);

	if (!m || c->seen[m->id])
		return;
	c->seen[m->id] = 1;
	if (c->n == c->alloc) {
		const struct rt_module **n = realloc(c->v, (c->alloc + 32) * sizeof(*n));

		if (!n)
			return;
		c->v = n;
		c->alloc += 32;
	}
	c->v[c->n++] = m;
}

static int by_lo(const void *a, const void *b)
{
	const struct rt_module *x = *(const struct rt_module *const *)a;
	const struct rt_module *y = *(const struct rt_module *const *)b;

	return x->lo < y->lo ? -1 : x->lo > y->lo;
}

void rt_loadmap_refresh(void)
{
	struct collect *c = calloc(1, sizeof(*c));
	struct object *objs = NULL, **tail = &objs, *o;
	struct snapshot *s;
	size_t i;

	if (!c)
		return;
	dl_iterate_phdr(copy_object, &tail);
	pthread_mutex_lock(&lock);
	for (o = objs; o; o = o->next)
		collect(o, c);
	for (i = 0; all && i < all->n; i++)
		if (all->mod[i]->live && !c->seen[all->mod[i]->id])
			__atomic_store_n(&all->mod[i]->live, 0,
					 __ATOMIC_RELEASE);	/* dlclosed */
	s = malloc(sizeof(*s) + c->n * sizeof(s->mod[0]));
	if (s) {
		s->n = c->n;
		if (c->n)
			memcpy(s->mod, c->v, c->n * sizeof(s->mod[0]));
		qsort(s->mod, s->n, sizeof(s->mod[0]), by_lo);
		s->prev = published;
		s->time = rt_clock_ns(CLOCK_MONOTONIC);
		__atomic_store_n(&published, s, __ATOMIC_RELEASE);
		__atomic_add_fetch(&rt_loadmap_gen, 1, __ATOMIC_RELEASE);
	}
	pthread_mutex_unlock(&lock);
	free(c->v);
	free(c);
	while (objs) {
		o = objs->next;
		free((void *)objs->info.dlpi_name);
		free((void *)objs->info.dlpi_phdr);
		free(objs);
		objs = o;
	}
}

static int module_starts_le(const void *elem, const void *key)
{
	return (*(const struct rt_module *const *)elem)->lo <=
	       *(const uintptr_t *)key;
}

/* mod[] is sorted by lo; modules are mapped, so not empty and disjoint. */
static const struct rt_module *search(const struct snapshot *s, uintptr_t addr)
{
	size_t n;

	if (!s)
		return NULL;
	n = addrsearch_partition(s->mod, s->n, sizeof(s->mod[0]),
				 module_starts_le, &addr);
	return n && addr < s->mod[n - 1]->hi ? s->mod[n - 1] : NULL;
}

int rt_module_debug_path(const struct rt_module *m,
			 char buf[RT_DEBUG_PATH_SIZE])
{
	if (strlen(m->buildid) <= 2)
		return 0;
	snprintf(buf, RT_DEBUG_PATH_SIZE, "/usr/lib/debug/.build-id/%.2s/%s.debug",
		 m->buildid, m->buildid + 2);
	return 1;
}

const struct rt_module *rt_module_find(uintptr_t addr)
{
	return search(__atomic_load_n(&published, __ATOMIC_ACQUIRE), addr);
}

const struct rt_module *rt_module_at(uintptr_t addr, uint64_t time)
{
	const struct snapshot *now = __atomic_load_n(&published, __ATOMIC_ACQUIRE);
	const struct snapshot *s = now;
	const struct rt_module *m;
	int k;

	/* The snapshot published last at or before time; a module mapped
	 * after it but before the next one was published is in now. */
	for (k = 0; time && s && s->time > time && s->prev && k < HISTORY; k++)
		s = s->prev;
	m = search(s, addr);
	return m || s == now ? m : search(now, addr);
}

const struct rt_module *rt_module_add_unmapped(const char *path, uintptr_t lo,
					       uintptr_t hi)
{
	const struct table *t;
	struct rt_module *m = NULL;
	size_t i;

	pthread_mutex_lock(&lock);
	t = all;
	for (i = 0; t && i < t->n && !m; i++)
		if (!t->mod[i]->live && t->mod[i]->lo == lo &&
		    t->mod[i]->hi == hi && !strcmp(t->mod[i]->path, path))
			m = t->mod[i];
	if (!m && (m = calloc(1, sizeof(*m)))) {
		m->lo = m->xlo = lo;
		m->hi = m->xhi = hi;
		if (!(m->path = strdup(path)) || all_add(m)) {
			free(m->path);
			free(m);
			m = NULL;
		}
	}
	pthread_mutex_unlock(&lock);
	return m;
}

const struct rt_module *const *rt_module_all(size_t *n)
{
	const struct table *t = __atomic_load_n(&all, __ATOMIC_ACQUIRE);

	*n = t ? __atomic_load_n(&t->n, __ATOMIC_ACQUIRE) : 0;
	return t ? (const struct rt_module *const *)t->mod : NULL;
}
