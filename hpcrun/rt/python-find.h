/*
 * python-find.h - the CPython interpreter of the profiled process: which
 * loaded module holds it, its version, where its runtime state and its
 * eval function are, and the layout of its memory (python-layout.h);
 * found outside the signal handler at start and after each dlopen
 * (python-find.c), read by the sample path (python-frames.c).
 *
 * A module holds an interpreter when its ELF symbols (.symtab, else
 * .dynsym: datacentric.h's rt_elf_syms) define _PyRuntime and
 * _PyEval_EvalFrameDefault: the python executable when libpython is
 * linked into it, or libpython3.X.so.  Its version is Py_Version (3.11
 * on: PY_VERSION_HEX), else the module's name (libpython3.10.so,
 * python3.10); 3.13 on, _Py_DebugOffsets.version at &_PyRuntime, whose
 * offsets are then the layout.  The function that clears and pops a
 * returning frame (3.12 on; a static function, so from .symtab) lets
 * the sample path name the frame being cleared (python-frames.c).  The
 * template of the perf trampoline (3.12 on, between the symbols
 * _Py_trampoline_func_start and _Py_trampoline_func_end), which python
 * -X perf copies into anonymous memory to call the eval function
 * through, lets the unwinder step through the copies (unwind.c,
 * invariant 6).
 *
 * Invariants:
 *  1. rt_python is set at most once per process, with a release store,
 *     to a struct py_interp that is never changed nor freed: the handler
 *     reads it with one acquire load (rt_python_get) and may keep the
 *     pointer.  The first interpreter found is the one measured; one in
 *     a module loaded later is ignored (said in the log).
 *  2. Each module is checked once, by the thread that claims it first
 *     (an atomic flag per module id) in rt_python_modules: the
 *     capability's modules hook at start and the dlopen wrapper after
 *     each dlopen, never in the handler.  Only the main program
 *     and the modules named libpython* are candidates; their ELF file is
 *     read on an fd thread (rt_fd_private).
 *  3. An interpreter whose version has no layout, or whose layout fails
 *     py_layout_check, leaves rt_python NULL and is said once per
 *     process on stderr and in the log: "hpcrun: Python X.Y: native
 *     frames only".  Its frames stay native: nothing else changes.
 *  4. With rt_cfg.python off (hpcrun --no-python), no module is checked
 *     and rt_python stays NULL.
 */
#ifndef HPCRUN_PYTHON_FIND_H
#define HPCRUN_PYTHON_FIND_H

#include <stdint.h>

#include "python-layout.h"
#include "unwind.h"

struct rt_module;

/* The eval function and its .cold part (when the symbols have one). */
#define PY_MAX_EVAL 2

struct py_interp {
	int major, minor;
	uint32_t hexversion;		/* PY_VERSION_HEX; 0: known by name */
	uint16_t module;		/* id of the module holding it */
	const char *path;		/* its path (loadmap.h, invariant 1) */
	uintptr_t runtime;		/* &_PyRuntime, in the process */
	uintptr_t eval_lo[PY_MAX_EVAL], eval_hi[PY_MAX_EVAL];
	int neval;
	/* The function the eval function calls to clear and pop a frame
	 * that returns or unwinds: 3.12 _PyEvalFrameClearAndPop, 3.13
	 * _PyEval_FrameClearAndPop, 3.11 _PyFrame_Clear (the other
	 * inlined); both 0 when the symbols have none or the layout has no
	 * tstate.datastack_top. */
	uintptr_t pop_lo, pop_hi;
	/* The perf trampoline's template (unwind.h); tramp.len 0 when the
	 * symbols have none or its code is not one rt_tramp_parse takes. */
	struct rt_tramp tramp;
	const struct py_layout *layout;	/* a table, or &debug_layout */
	struct py_layout debug_layout;	/* 3.13 on: from _Py_DebugOffsets */
};

/* Invariant 1. */
extern const struct py_interp *rt_python;

/* The process's interpreter, or NULL (async-signal-safe). */
static inline const struct py_interp *rt_python_get(void)
{
	return __atomic_load_n(&rt_python, __ATOMIC_ACQUIRE);
}

/* 1 when pc is in py's eval function (async-signal-safe), else 0. */
static inline int py_is_eval_pc(const struct py_interp *py, uintptr_t pc)
{
	int i;

	for (i = 0; i < py->neval; i++)
		if (pc >= py->eval_lo[i] && pc < py->eval_hi[i])
			return 1;
	return 0;
}

/* 1 when pc is in py's frame-popping function (async-signal-safe). */
static inline int py_is_pop_pc(const struct py_interp *py, uintptr_t pc)
{
	return pc >= py->pop_lo && pc < py->pop_hi;
}

/*
 * Whether live module m holds an interpreter, into *py: 0 when it does
 * and its layout is known and checked (py->layout set); -ENOENT when it
 * holds none; -ENOTSUP when it does but its version or layout is not
 * known (py->major and py->minor say which when known, else 0).  Reads
 * m's ELF file on an fd thread (rt_fd_private) and the module's memory
 * (Py_Version, _Py_DebugOffsets) under the loader's lock; outside
 * handlers.  py->layout may point into *py: keep py where it is.
 */
int py_find(const struct rt_module *m, struct py_interp *py);

/* Checks the modules not yet checked (invariant 2): at start and after
 * each dlopen; outside handlers. */
void rt_python_modules(void);

/* 1 when the process holds a CPython of 3.12 or later, whose os.fork()
 * counts the process's threads (runtime.h, A FORK IN CPYTHON): its
 * exported Py_Version says so, whatever --no-python and the layouts
 * known.  Outside handlers. */
int rt_python_counts_threads(void);

#endif
