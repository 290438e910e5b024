/*
 * demangle.h - C++ names as people read them: hpcstruct's procedures and
 * hpcprof's, when it names code from symbols and DWARF alone (no
 * structure file), go through the one demangler, so a procedure has the
 * same name whichever tool named it.
 *
 * Invariants:
 *  1. The demangler is the C++ runtime's own (__cxa_demangle of
 *     libstdc++.so.6, loaded once, on first use, from any thread); without
 *     it every name stays as it is.
 *  2. Only an Itanium-ABI mangled name ("_Z...") is demangled; a name the
 *     demangler refuses stays as it is.
 *  3. NAME@plt, a PLT stub's name (elf-plt.h), is demangled as NAME and
 *     keeps its suffix: DEMANGLED@plt.
 */
#ifndef HPC_DEMANGLE_H
#define HPC_DEMANGLE_H

/* The demangled name (the caller frees it), or NULL when name stays. */
char *hpc_demangle(const char *name);

#endif
