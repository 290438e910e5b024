/*
 * python-find.c - finds the CPython interpreter among the loaded modules
 * (python-find.h), and the python capability's hooks that do it at start.
 *
 * Candidates: the main program (python3.X with libpython linked in, or a
 * program embedding it statically) and each module whose file name
 * begins with "libpython"; the other modules' symbol tables are never
 * read, so a process without Python pays for one look at its main
 * program's symbols.  An interpreter is one with _PyEval_EvalFrameDefault
 * (3.6 on); one with PyEval_EvalFrameEx alone (2.7) is said, as any
 * version without a layout is, and keeps its native frames.
 *
 * The version, most reliable first: _Py_DebugOffsets.version at
 * &_PyRuntime (3.13 on; its offsets are the layout), Py_Version (3.11
 * on), the file name (libpython3.10.so, python3.10).  Memory of the
 * module is read only inside dl_iterate_phdr's callback, while the
 * loader's lock keeps it mapped (loadmap.h, invariant 3), and only
 * inside one of its PT_LOAD segments.
 */
#include <dlfcn.h>
#include <elf.h>
#include <errno.h>
#include <link.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "capability.h"
#include "datacentric.h"
#include "fd-gate.h"
#include "loadmap.h"
#include "output.h"
#include "python-find.h"
#include "runtime.h"

const struct py_interp *rt_python;

/* Which modules were claimed for a check (invariant 2), and the log's
 * lines, each written once by the thread that set its flag. */
static unsigned char checked[65536];
static int said_once, ignored_once;
static char said[160];			/* the native-frames-only line */
static char ignored[4200];		/* a second interpreter's line */

/* What the symbols say, module-relative. */
struct py_syms {
	uint64_t runtime, eval, eval_size, cold, cold_size, version;
	uint64_t pop, pop_size;		/* the frame-popping function */
	uint64_t clear, clear_size;	/* 3.11's, where that is inlined */
	uint64_t tramp, tramp_end;	/* the perf trampoline's template */
	int has_runtime, has_eval, has_cold, has_version;
	int has_eval_ex;	/* PyEval_EvalFrameEx: before 3.6 (2.7) */
	int trace_refs;			/* a Py_TRACE_REFS build */
};

struct syms_job {
	const char *path;
	struct py_syms y;
	int err;
};

/* The symbols of j->path we look for (on an fd thread). */
static int syms_job(void *p)
{
	struct syms_job *j = p;
	struct rt_elf_syms s;
	size_t i;

	memset(&j->y, 0, sizeof(j->y));
	j->err = rt_elf_syms_open(j->path, &s);
	if (j->err)
		return 0;
	for (i = 0; i < s.n; i++) {
		const Elf64_Sym *e = (const Elf64_Sym *)s.sym + i;
		const char *name;

		if (e->st_shndx == SHN_UNDEF || e->st_shndx >= SHN_LORESERVE)
			continue;
		name = rt_elf_sym_name(&s, i);
		if (name[0] != '_' && name[0] != 'P')
			continue;
		if (!strcmp(name, "_PyRuntime")) {
			j->y.runtime = e->st_value;
			j->y.has_runtime = 1;
		} else if (!strcmp(name, "_PyEval_EvalFrameDefault")) {
			j->y.eval = e->st_value;
			j->y.eval_size = e->st_size;
			j->y.has_eval = 1;
		} else if (!strcmp(name, "PyEval_EvalFrameEx")) {
			j->y.has_eval_ex = 1;
		} else if (!strcmp(name, "_PyEval_EvalFrameDefault.cold")) {
			j->y.cold = e->st_value;
			j->y.cold_size = e->st_size;
			j->y.has_cold = e->st_size > 0;
		} else if (!strcmp(name, "_PyEvalFrameClearAndPop") ||
			   !strcmp(name, "_PyEval_FrameClearAndPop")) {
			j->y.pop = e->st_value;
			j->y.pop_size = e->st_size;
		} else if (!strcmp(name, "_PyFrame_Clear")) {
			j->y.clear = e->st_value;
			j->y.clear_size = e->st_size;
		} else if (!strcmp(name, "Py_Version") && e->st_size >= 4) {
			j->y.version = e->st_value;
			j->y.has_version = 1;
		} else if (!strcmp(name, "_Py_trampoline_func_start")) {
			j->y.tramp = e->st_value;
		} else if (!strcmp(name, "_Py_trampoline_func_end")) {
			j->y.tramp_end = e->st_value;
		} else if (!strcmp(name, "_Py_PrintReferences")) {
			j->y.trace_refs = 1;
		}
	}
	rt_elf_syms_close(&s);
	return 0;
}

/* The memory we read of the module, under the loader's lock. */
struct mem_job {
	uintptr_t bias;
	uintptr_t version_at, runtime_at, tramp_at;	/* 0: not to read */
	uint32_t version;
	unsigned char debug[PY_DEBUG_OFFSETS_MAX];
	size_t debug_len;
	unsigned char tramp[RT_TRAMP_MAX];
	size_t tramp_len;		/* to read at tramp_at; then read */
	int done;
};

/* Bytes of [a, a + want) that lie in one PT_LOAD segment of info. */
static size_t loaded(const struct dl_phdr_info *info, uintptr_t a, size_t want)
{
	int k;

	for (k = 0; k < info->dlpi_phnum; k++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[k];
		uintptr_t lo = info->dlpi_addr + ph->p_vaddr;

		if (ph->p_type == PT_LOAD && a >= lo && a - lo < ph->p_memsz)
			return ph->p_memsz - (a - lo) < want ?
			       ph->p_memsz - (a - lo) : want;
	}
	return 0;
}

static int mem_job(struct dl_phdr_info *info, size_t size, void *p)
{
	struct mem_job *j = p;

	(void)size;
	if (info->dlpi_addr != j->bias || j->done)
		return 0;
	if (j->version_at && !loaded(info, j->version_at, 4))
		return 0;	/* another object at the same bias */
	if (j->runtime_at && !loaded(info, j->runtime_at, 16))
		return 0;
	j->done = 1;
	if (j->version_at)
		memcpy(&j->version, (const void *)j->version_at, 4);
	if (j->runtime_at) {
		j->debug_len = loaded(info, j->runtime_at, sizeof(j->debug));
		memcpy(j->debug, (const void *)j->runtime_at, j->debug_len);
	}
	if (j->tramp_at) {
		j->tramp_len = loaded(info, j->tramp_at, j->tramp_len);
		memcpy(j->tramp, (const void *)j->tramp_at, j->tramp_len);
	}
	return 1;
}

/* The X.Y of a file name "...python3.10...", into *major, *minor. */
static void version_from_name(const char *path, int *major, int *minor)
{
	const char *b = strrchr(path, '/'), *p;
	int ma = 0, mi = 0;

	p = strstr(b ? b + 1 : path, "python");
	if (!p)
		return;
	for (p += 6; *p >= '0' && *p <= '9' && ma < 100; p++)
		ma = ma * 10 + (*p - '0');
	if (*p++ != '.' || !(*p >= '0' && *p <= '9'))
		return;
	for (; *p >= '0' && *p <= '9' && mi < 1000; p++)
		mi = mi * 10 + (*p - '0');
	*major = ma;
	*minor = mi;
}

/* The frame-popping function's range, when the layout can use it: the
 * function the eval function calls to clear a frame it has unlinked
 * (3.11's _PyEvalFrameClearAndPop is inlined into it, and calls
 * _PyFrame_Clear). */
static void find_pop(struct py_interp *py, const struct rt_module *m,
		     const struct py_syms *y)
{
	uint64_t at = y->pop, size = y->pop_size;

	if (!at && py->layout->minor == 11) {
		at = y->clear;
		size = y->clear_size;
	}
	if (py->layout->tstate.datastack_top < 0 || !at || !size)
		return;
	py->pop_lo = m->bias + at;
	py->pop_hi = py->pop_lo + size;
}

int py_find(const struct rt_module *m, struct py_interp *py)
{
	struct syms_job sj = { .path = m->path };
	struct mem_job mj;
	uint32_t hex = 0;
	int err;

	memset(py, 0, sizeof(*py));
	rt_fd_private(syms_job, &sj);
	if (sj.err || !(sj.y.has_eval || sj.y.has_eval_ex))
		return -ENOENT;
	if (!sj.y.has_eval) {
		/* before 3.6 (2.7): said, its frames native */
		version_from_name(m->path, &py->major, &py->minor);
		return -ENOTSUP;
	}
	py->module = m->id;
	py->path = m->path;
	py->runtime = m->bias + sj.y.runtime;
	py->eval_lo[0] = m->bias + sj.y.eval;
	py->eval_hi[0] = py->eval_lo[0] + sj.y.eval_size;
	py->neval = 1;
	if (sj.y.has_cold) {
		py->eval_lo[1] = m->bias + sj.y.cold;
		py->eval_hi[1] = py->eval_lo[1] + sj.y.cold_size;
		py->neval = 2;
	}

	memset(&mj, 0, sizeof(mj));
	mj.bias = m->bias;
	mj.version_at = sj.y.has_version ? m->bias + sj.y.version : 0;
	mj.runtime_at = sj.y.has_runtime ? py->runtime : 0;
	if (sj.y.tramp && sj.y.tramp_end > sj.y.tramp &&
	    sj.y.tramp_end - sj.y.tramp <= RT_TRAMP_MAX) {
		mj.tramp_at = m->bias + sj.y.tramp;
		mj.tramp_len = sj.y.tramp_end - sj.y.tramp;
	}
	dl_iterate_phdr(mem_job, &mj);
	if (mj.done && mj.tramp_at)
		rt_tramp_parse(mj.tramp, mj.tramp_len, &py->tramp);
	if (mj.done && mj.version_at)
		hex = mj.version;
	if (hex >> 24 == 3) {
		py->major = 3;
		py->minor = hex >> 16 & 0xff;
		py->hexversion = hex;
	} else {
		version_from_name(m->path, &py->major, &py->minor);
	}
	if (!sj.y.has_runtime || !sj.y.eval_size || !mj.done)
		return -ENOTSUP;	/* before 3.7, or symbols we cannot use */

	/* 3.13 on, or a version we could not tell: _Py_DebugOffsets. */
	if (py->major != 3 || py->minor >= 13) {
		err = py_layout_from_debug(mj.debug, mj.debug_len,
					   &py->debug_layout, &hex);
		if (err != -EINVAL && hex >> 24 == 3) {
			if (py->hexversion && (hex >> 16) != (py->hexversion >> 16))
				return -ENOTSUP;	/* the two disagree */
			py->major = 3;
			py->minor = hex >> 16 & 0xff;
			py->hexversion = hex;
		}
		if (err)
			return -ENOTSUP;
		py->layout = &py->debug_layout;
		find_pop(py, m, &sj.y);
		return 0;
	}
	/* The tables are of release builds: Py_TRACE_REFS makes every
	 * object's header 16 bytes longer. */
	py->layout = py_layout_table(py->major, py->minor);
	if (!py->layout || py_layout_check(py->layout) || sj.y.trace_refs)
		return -ENOTSUP;
	find_pop(py, m, &sj.y);
	return 0;
}

/* 1 when m may hold an interpreter worth a look at its symbols. */
static int is_candidate(const struct rt_module *m)
{
	const char *b = strrchr(m->path, '/');

	if (!m->live || m->path[0] != '/')
		return 0;	/* the vDSO, a module gone */
	return m->id == 1 || !strncmp(b + 1, "libpython", 9);
}

/* Says the line of invariant 3, once: on stderr in every process that
 * has such an interpreter, unless hpcrun -q (rt_note shows its notices
 * once per run, and the pyenv shim's shell processes would have shown
 * theirs), in the log by python_log. */
static void say_native_only(const struct py_interp *py)
{
	if (__atomic_exchange_n(&said_once, 1, __ATOMIC_ACQ_REL))
		return;
	if (py->major)
		snprintf(said, sizeof(said), "Python %d.%d: native frames only",
			 py->major, py->minor);
	else
		snprintf(said, sizeof(said),
			 "Python (version unknown): native frames only");
	rt_say_notice(said);
}

/* Checks candidate m: publishes its interpreter, or says why not.  No
 * lock is held: py_find waits for an fd thread and the loader's lock. */
static void check(const struct rt_module *m)
{
	struct py_interp *py = malloc(sizeof(*py));
	const struct py_interp *none = NULL;
	int err;

	if (!py)
		return;
	err = py_find(m, py);
	if (!err && __atomic_compare_exchange_n(&rt_python, &none, py, 0,
						__ATOMIC_ACQ_REL,
						__ATOMIC_ACQUIRE))
		return;		/* published: kept for the process */
	if (!err || (err == -ENOTSUP && rt_python_get())) {
		/* A second interpreter: only named in the log. */
		if (!__atomic_exchange_n(&ignored_once, 1, __ATOMIC_ACQ_REL))
			snprintf(ignored, sizeof(ignored),
				 "python-ignored: '%s'\n", m->path);
	} else if (err == -ENOTSUP) {
		say_native_only(py);
	}
	free(py);
}

void rt_python_modules(void)
{
	const struct rt_module *const *m;
	size_t n, i;

	if (!rt_cfg.python)
		return;
	m = rt_module_all(&n);
	for (i = 0; i < n; i++)
		if (is_candidate(m[i]) &&
		    !__atomic_exchange_n(&checked[m[i]->id], 1, __ATOMIC_ACQ_REL))
			check(m[i]);
}

int rt_python_counts_threads(void)
{
	const unsigned long *v = dlsym(RTLD_DEFAULT, "Py_Version");

	return v && *v >= 0x030c0000;
}

static void python_log(void (*put_line)(const char *text))
{
	const struct py_interp *py = rt_python_get();
	char line[4400];

	if (!rt_cfg.python) {
		put_line("python: off\n");
		return;
	}
	if (py) {
		snprintf(line, sizeof(line),
			 "python: %d.%d (0x%08x) in '%s', eval ranges %d\n",
			 py->major, py->minor, (unsigned)py->hexversion,
			 py->path, py->neval);
		put_line(line);
	} else if (said[0]) {
		snprintf(line, sizeof(line), "python: %s\n", said);
		put_line(line);
	}
	if (ignored[0])
		put_line(ignored);
}

const struct rt_capability python_capability = {
	.name = "python",
	.modules = rt_python_modules,
	.log = python_log,
};
