/* buildid.c - see buildid.h. */
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <elfutils/libdwelf.h>
#include <libelf.h>

#include "buildid.h"
#include "error.h"
#include "infile.h"

/* Formats n bytes of id as hex (cut at HPC_BUILDID_BYTES). */
static void to_hex(const unsigned char *id, ssize_t n,
		   char hex[HPC_BUILDID_HEX_SIZE])
{
	ssize_t i;

	hex[0] = 0;
	if (n > HPC_BUILDID_BYTES)
		n = HPC_BUILDID_BYTES;
	for (i = 0; i < n; i++)
		snprintf(hex + 2 * i, 3, "%02x", id[i]);
}

int hpc_buildid_elf(struct Elf *elf, char hex[HPC_BUILDID_HEX_SIZE])
{
	const unsigned char *id = NULL;
	ssize_t n = dwelf_elf_gnu_build_id(elf, (const void **)&id);

	to_hex(id, n, hex);
	return n > 0;
}

int hpc_buildid_file(const char *path, char hex[HPC_BUILDID_HEX_SIZE])
{
	const unsigned char *id = NULL;
	ssize_t n = -1;
	Elf *elf;
	int fd;

	hex[0] = 0;
	fd = infile_open(path, (uint64_t)64 << 30, "an ELF file", NULL);
	if (fd < 0)
		return -1;
	elf_version(EV_CURRENT);
	elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	if (!elf || elf_kind(elf) != ELF_K_ELF)
		hpc_seterr("'%s': not an ELF file", path);
	else if ((n = dwelf_elf_gnu_build_id(elf, (const void **)&id)) < 0)
		hpc_seterr("'%s': %s", path, elf_errmsg(-1));
	to_hex(id, n, hex);	/* id points into elf's memory */
	if (elf)
		elf_end(elf);
	close(fd);
	return n < 0 ? -1 : n > 0;
}

const char *hpc_buildid_measured(const struct hpcrun_profile *p, uint16_t lm)
{
	char name[sizeof(HPC_BUILDID_HEADER) + 8];
	const char *v;

	snprintf(name, sizeof(name), HPC_BUILDID_HEADER "%u", (unsigned)lm);
	v = hpcrun_profile_header(p, name);
	return v && *v ? v : NULL;
}
