/*
 * kallsyms.h - kernel symbol lists: the text of /proc/kallsyms that
 * HPCToolkit's hpcrun saves as kernel_symbols/vmlinux.HASH in a
 * measurement directory (XZ-compressed, or plain), one symbol a line:
 *
 *     ffffffffa1000000 T startup_64
 *     ffffffffc0a01000 t foo	[ext4]
 *
 * Only text symbols are kept (types t and T, and w and W: weak symbols that
 * are not objects, which nm and the kernel mark v or V), without their
 * [module] suffix; those at address 0 (hidden by kptr_restrict) are
 * skipped.  Where several share an address, one names it: global before
 * local before weak, then the one with fewer leading underscores, then the
 * first in the list.  A list is read whole or not at all: a line that is
 * not "ADDRESS TYPE NAME [MODULE]", damaged XZ data or a list too large to
 * be a kernel's makes it unusable.
 *
 * Memory is bounded: only a regular file of at most KALLSYMS_MAX_TEXT
 * bytes is opened (never a FIFO, infile.h), at most KALLSYMS_MAX_TEXT
 * bytes of (decompressed) text and KALLSYMS_MAX_SYMBOLS text symbols are read, the XZ decoder may
 * use KALLSYMS_XZ_MEMLIMIT bytes; a real kallsyms has ~200k lines, ~10 MB.
 */
#ifndef HPCPROF_KALLSYMS_H
#define HPCPROF_KALLSYMS_H

#include <stdint.h>

#define KALLSYMS_MAX_TEXT (64u << 20)
#define KALLSYMS_MAX_SYMBOLS (4u << 20)
#define KALLSYMS_MAX_LINE 4096
#define KALLSYMS_XZ_MEMLIMIT (128u << 20)
/* How far past its symbol an address may lie and still be named by it. */
#define KALLSYMS_REACH (1u << 20)

struct kallsyms;

/*
 * 1 when the file at path is to be read as a kernel symbol list: it starts
 * with the XZ magic (FD 37 7A 58 5A 00), or it is not an ELF file and path
 * has a directory component named kernel_symbols.  0 otherwise, and when
 * the file cannot be read.
 */
int kallsyms_is_list(const char *path);

/*
 * Reads the list at path (XZ or plain text, told apart by the magic).
 * Returns NULL with hpc_lasterr() set ("'PATH': what is wrong") when it
 * cannot be read or is not a usable list.  Free with kallsyms_free().
 */
struct kallsyms *kallsyms_read(const char *path);
void kallsyms_free(struct kallsyms *ks);

/*
 * The name of the text symbol with the greatest address <= addr, its
 * address in *start; NULL when addr lies below the first symbol or more
 * than KALLSYMS_REACH past the one before it.  Valid until kallsyms_free().
 */
const char *kallsyms_lookup(const struct kallsyms *ks, uint64_t addr,
			    uint64_t *start);

#endif
