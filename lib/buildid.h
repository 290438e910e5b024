/*
 * buildid.h - GNU build IDs: the NT_GNU_BUILD_ID note a linker writes
 * (ld --build-id, the default of gcc on most distributions), which names
 * one exact build of a binary.
 *
 * A build ID is handled as lowercase hex text, at most HPC_BUILDID_BYTES
 * bytes of it (longer ones are cut there, by the writer and the readers
 * alike), so IDs compare with strcmp and "" means "none".
 *
 * hpcrun records the build ID of every module in which a thread's samples
 * landed as a header pair of that thread's profile, named
 * HPC_BUILDID_HEADER followed by the module's load-map id in decimal
 * ("build-id-1" for the main program) with the hex as value; HPCToolkit's
 * tools ignore header pairs they do not know (hpcrun(5)).
 */
#ifndef HPC_BUILDID_H
#define HPC_BUILDID_H

#include <stdint.h>

#include "hpcrun-fmt.h"

#define HPC_BUILDID_BYTES 64
/* Room for the hex text of a build ID and its NUL. */
#define HPC_BUILDID_HEX_SIZE (2 * HPC_BUILDID_BYTES + 1)
#define HPC_BUILDID_HEADER "build-id-"

struct Elf;	/* libelf's Elf */

/*
 * The build ID of the open ELF file elf into hex: 1 when it has one, 0
 * when it has none or its notes cannot be read (hex is "" in both).
 */
int hpc_buildid_elf(struct Elf *elf, char hex[HPC_BUILDID_HEX_SIZE]);

/*
 * Reads the build ID of the ELF file at path into hex.  Returns 1 when it
 * has one, 0 when it has none (hex is ""), -1 when the file cannot be read
 * or is not ELF (hex is "", hpc_lasterr() says why).
 */
int hpc_buildid_file(const char *path, char hex[HPC_BUILDID_HEX_SIZE]);

/*
 * The build ID that profile p records for its load module lm, or NULL when
 * it records none.  Valid while p lives.
 */
const char *hpc_buildid_measured(const struct hpcrun_profile *p, uint16_t lm);

#endif
