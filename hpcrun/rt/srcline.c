/*
 * srcline.c - the source line of a code address through libdw, loaded
 * when a report first needs one (srcline.h has the invariants).
 *
 * A module's DWARF is its own file's, else the file the GNU build ID
 * names under /usr/lib/debug/.build-id (where Debian's -dbgsym packages
 * put it).  libelf reads a mapping, never a descriptor (elf_memory), so
 * everything that opens a file runs on hpcrun's fd thread
 * (rt_fd_private): the loader's open of libdw.so (rt_dlopen_own), and the
 * mappings.
 */
#include <dlfcn.h>
#include <elfutils/libdw.h>
#include <errno.h>
#include <fcntl.h>
#include <libelf.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fd-gate.h"
#include "futex.h"
#include "interpose.h"
#include "loadmap.h"
#include "runtime.h"
#include "srcline.h"

/* The libdw and libelf functions used, found in the dlopened libdw. */
static struct {
	int tried;
	__typeof__(elf_version) *elf_version;
	__typeof__(elf_memory) *elf_memory;
	__typeof__(elf_end) *elf_end;
	__typeof__(dwarf_begin_elf) *dwarf_begin_elf;
	__typeof__(dwarf_addrdie) *dwarf_addrdie;
	__typeof__(dwarf_getsrc_die) *dwarf_getsrc_die;
	__typeof__(dwarf_lineno) *dwarf_lineno;
	__typeof__(dwarf_linesrc) *dwarf_linesrc;
} dw;

#define MAX_FILES 64

/* One module's DWARF, read at its first lookup. */
struct dwfile {
	uint16_t id;
	int tried;
	void *map;
	size_t size;
	Elf *elf;
	Dwarf *dbg;
};
static struct dwfile files[MAX_FILES];
static unsigned lock;

static void load_libdw(void)
{
	void *h = rt_dlopen_own("libdw.so.1", RTLD_LAZY);

	if (!h)
		return;
#define FIND(name) dw.name = (__typeof__(dw.name))rt_optional_symbol(h, #name)
	FIND(elf_version);
	FIND(elf_memory);
	FIND(elf_end);
	FIND(dwarf_begin_elf);
	FIND(dwarf_addrdie);
	FIND(dwarf_getsrc_die);
	FIND(dwarf_lineno);
	FIND(dwarf_linesrc);
#undef FIND
	if (!dw.elf_version || !dw.elf_memory || !dw.elf_end || !dw.dwarf_begin_elf ||
	    !dw.dwarf_addrdie || !dw.dwarf_getsrc_die || !dw.dwarf_lineno ||
	    !dw.dwarf_linesrc || dw.elf_version(EV_CURRENT) == EV_NONE) {
		dw.dwarf_addrdie = NULL;
	}
}

struct map_job {
	const char *path;
	void *map;
	size_t size;
};

/* On the fd thread: the mapping of rt_map_file. */
static int map_file(void *p)
{
	struct map_job *j = p;
	struct stat st;
	void *m;
	int fd = open(j->path, O_RDONLY | O_CLOEXEC), err = 0;

	if (fd < 0)
		return -errno;
	if (fstat(fd, &st) || !S_ISREG(st.st_mode) || st.st_size <= 0) {
		err = -EINVAL;
	} else {
		m = mmap(NULL, (size_t)st.st_size, PROT_READ | PROT_WRITE, MAP_PRIVATE, fd, 0);
		if (m == MAP_FAILED) {
			err = -errno;
		} else {
			j->map = m;
			j->size = (size_t)st.st_size;
		}
	}
	close(fd);
	return err;
}

int rt_map_file(const char *path, void **map, size_t *size)
{
	struct map_job j = { path, NULL, 0 };
	int err = rt_fd_private(map_file, &j);

	*map = j.map;
	*size = j.size;
	return err;
}

/* f's DWARF from the file at path; 0 when it has some. */
static int open_dwarf(struct dwfile *f, const char *path)
{
	struct map_job j = { path, NULL, 0 };

	if (rt_map_file(path, &j.map, &j.size))
		return -ENOENT;
	f->elf = dw.elf_memory(j.map, j.size);
	if (f->elf)
		f->dbg = dw.dwarf_begin_elf(f->elf, DWARF_C_READ, NULL);
	if (f->dbg) {
		f->map = j.map;
		f->size = j.size;
		return 0;
	}
	if (f->elf)
		dw.elf_end(f->elf);
	f->elf = NULL;
	munmap(j.map, j.size);
	return -ENOENT;
}

static struct dwfile *dwfile_of(const struct rt_module *m)
{
	struct dwfile *f = &files[m->id % MAX_FILES];
	char debug[RT_DEBUG_PATH_SIZE];

	if (f->tried && f->id == m->id)
		return f;
	if (f->tried) {		/* another module in the slot: it goes */
		if (f->elf)
			dw.elf_end(f->elf);
		if (f->map)
			munmap(f->map, f->size);
	}
	memset(f, 0, sizeof(*f));
	f->id = m->id;
	f->tried = 1;
	if (open_dwarf(f, m->path) && rt_module_debug_path(m, debug))
		open_dwarf(f, debug);
	return f;
}

int rt_srcline(const struct rt_module *m, uint64_t off, char *buf, size_t size)
{
	struct dwfile *f;
	Dwarf_Die cu;
	Dwarf_Line *line;
	const char *src = NULL, *base;
	int lineno = 0;

	if (size)
		buf[0] = '\0';
	rt_lock_take(&lock);
	if (!dw.tried) {
		dw.tried = 1;
		load_libdw();
	}
	if (dw.dwarf_addrdie && m) {
		f = dwfile_of(m);
		if (f->dbg && dw.dwarf_addrdie(f->dbg, off, &cu) &&
		    (line = dw.dwarf_getsrc_die(&cu, off)) &&
		    !dw.dwarf_lineno(line, &lineno) && lineno > 0)
			src = dw.dwarf_linesrc(line, NULL, NULL);
	}
	if (src) {
		base = strrchr(src, '/');
		snprintf(buf, size, "%s:%d", base ? base + 1 : src, lineno);
	}
	rt_lock_drop(&lock);
	return src != NULL;
}
