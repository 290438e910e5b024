/*
 * hpcpy.h - the Python code file, .hpcpy (hpcrun(5) "Python code files"):
 * beside a thread's profile, the CPython code objects whose frames the
 * thread's samples hold, copied when first sampled, so that names and
 * lines are resolved after the run whatever became of the objects.
 *
 * A Python frame is a calling-context node of the pseudo load module
 * HPCPY_MODULE whose address is hpcpy_frame_addr(id, offset): the code's
 * id in the high bits, the byte offset of its current instruction (+ 1,
 * so that a caller's "address - 1" stays inside that instruction) in the
 * low HPCPY_OFFSET_BITS.  Lines come from the code's line table, decoded
 * for the Python version the file names (lib/pyline.c).
 *
 * Text lines, fields separated by single spaces (lib/textrec.h):
 *     hpcpy 01.00
 *     python MAJOR MINOR
 *     code 0xID FIRSTLINE NCODE QUALNAME FILENAME LINETABLE
 * QUALNAME and FILENAME are escaped: bytes 0x21-0x7e but '%' as they
 * are, every other byte as %XX (two upper-case hex digits), the empty
 * string as "%"; LINETABLE is the line table's bytes in lower-case hex,
 * "-" when empty.  NCODE is the bytecode's length in bytes.
 *
 * Invariants:
 *  1. An id is hpcpy_id() of the code's content (qualified name, file
 *     name, first line, bytecode length and line table), never 0 and below
 *     2^HPCPY_ID_BITS: the same code has the same id in every thread and
 *     process, with no coordination, so the nodes of its frames merge
 *     across them; a freed code object whose address is reused by other
 *     code gets a new id because its content differs.
 *  2. The writer is async-signal-safe (textrec-write.c, W1); hpcpy_id()
 *     too: no allocation, no lock.
 *  3. The reader refuses a file that is not one (one line naming it and
 *     the line, hpc_lasterr()); a code defined twice with one id is kept
 *     once.
 *
 * The live code file, .hpcpy-live (hpcrun(5)): while a thread runs
 * Python, hpcrun keeps its codes in a binary file beside its live tree
 * (hpcrun-live.h), mapped MAP_SHARED, so that a killed process's codes are
 * on disk; at a normal end the .hpcpy is written from the same records and
 * the live file removed.  Host byte order (byte_order tells).
 *  - struct hpcpy_live_header (HPCPY_LIVE_HEADER bytes), then chunk i at
 *    HPCPY_LIVE_HEADER + i * HPCPY_LIVE_CHUNK, HPCPY_LIVE_CHUNK bytes,
 *    holding used[i] bytes of records from its start; nchunks chunks.
 *  - A record is struct hpcpy_live_rec, then the qualified name, the file
 *    name and the line table, bytes long in all (a multiple of 8).
 *  4. A record is written whole, then its chunk's used count takes it in
 *     (the commit, a release store); a chunk is used only after nchunks
 *     counts it.  So a killed process's file holds whole records only.
 *     The magic is written last: a file without it holds no code.
 *  5. hpcpy_live_read takes a record only when its id is hpcpy_id() of
 *     its content (invariant 1): a torn or foreign file is refused, never
 *     misnames a frame.
 */
#ifndef HPC_HPCPY_H
#define HPC_HPCPY_H

#include <stddef.h>
#include <stdint.h>

struct textrec_out;

#define HPCPY_SUFFIX ".hpcpy"
#define HPCPY_MAGIC "hpcpy"
#define HPCPY_VERSION "01.00"
#define HPCPY_PYTHON "python"
#define HPCPY_CODE "code"
/* The pseudo load module of every Python frame. */
#define HPCPY_MODULE "[python]"
#define HPCPY_OFFSET_BITS 24
/* An id and an offset fit in 62 bits: the runtime tags a Python frame
 * with bit 62 alone, a value no user or kernel address has. */
#define HPCPY_ID_BITS 38
/* Bytes of a line table, and of a name, kept at most. */
#define HPCPY_MAX_LINETABLE 65536
#define HPCPY_MAX_NAME 1024

/* One code object.  The strings need not end with a NUL byte. */
struct hpcpy_code {
	uint64_t id;			/* invariant 1 */
	uint32_t firstlineno;
	uint32_t ncode;			/* bytecode bytes */
	const char *qualname;	size_t qualname_len;
	const char *filename;	size_t filename_len;
	const unsigned char *linetable;	size_t linetable_len;
};

struct hpcpy {
	int major, minor;
	struct hpcpy_code *codes;	/* each string and table malloc'd and
					 * NUL-terminated */
	size_t ncodes;
};

/* Invariant 1: FNV-1a over the content, folded to HPCPY_ID_BITS bits. */
static inline uint64_t hpcpy_id(const struct hpcpy_code *c)
{
	uint64_t h = 0xcbf29ce484222325ull;
	const unsigned char *parts[3] = {
		(const unsigned char *)c->qualname,
		(const unsigned char *)c->filename, c->linetable,
	};
	size_t lens[3] = { c->qualname_len, c->filename_len, c->linetable_len };
	uint64_t nums[2] = { c->firstlineno, c->ncode };
	size_t p, i;

	for (p = 0; p < 3; p++) {
		for (i = 0; i < lens[p]; i++)
			h = (h ^ parts[p][i]) * 0x100000001b3ull;
		h = (h ^ 0xff) * 0x100000001b3ull;	/* part separator */
	}
	for (p = 0; p < 2; p++)
		for (i = 0; i < 8; i++)
			h = (h ^ ((nums[p] >> (8 * i)) & 0xff)) * 0x100000001b3ull;
	h = (h ^ (h >> HPCPY_ID_BITS)) & ((1ull << HPCPY_ID_BITS) - 1);
	return h ? h : 1;
}

/* The node address of a frame of code id at instruction byte offset. */
static inline uint64_t hpcpy_frame_addr(uint64_t id, uint32_t offset)
{
	if (offset >= (1u << HPCPY_OFFSET_BITS) - 1)
		offset = (1u << HPCPY_OFFSET_BITS) - 2;
	return (id << HPCPY_OFFSET_BITS) | (offset + 1);
}

static inline uint64_t hpcpy_addr_id(uint64_t addr)
{
	return addr >> HPCPY_OFFSET_BITS;
}

#define HPCPY_LIVE_SUFFIX ".hpcpy-live"
#define HPCPY_LIVE_MAGIC "HPCPY-live______"	/* 16 bytes */
#define HPCPY_LIVE_BYTE_ORDER 0x01020304u
#define HPCPY_LIVE_HEADER 4096
#define HPCPY_LIVE_CHUNK ((size_t)1 << 20)
#define HPCPY_LIVE_MAX_CHUNKS 256

struct hpcpy_live_header {
	char magic[16];
	uint32_t byte_order;
	uint32_t major, minor;		/* the Python version */
	uint32_t nchunks;		/* committed after used[i] is 0 */
	uint64_t used[HPCPY_LIVE_MAX_CHUNKS];	/* committed bytes (inv. 4) */
};

struct hpcpy_live_rec {
	uint64_t id;
	uint32_t bytes;			/* of the record, a multiple of 8 */
	uint32_t firstlineno;
	uint32_t ncode;
	uint32_t qualname_len;
	uint32_t filename_len;
	uint32_t linetable_len;
};

/* The code record r of a live code file holds, its strings and table
 * pointing into q, the bytes after r's fixed part. */
static inline struct hpcpy_code hpcpy_live_code(const struct hpcpy_live_rec *r,
						const unsigned char *q)
{
	return (struct hpcpy_code){
		.id = r->id, .firstlineno = r->firstlineno, .ncode = r->ncode,
		.qualname = (const char *)q, .qualname_len = r->qualname_len,
		.filename = (const char *)q + r->qualname_len,
		.filename_len = r->filename_len,
		.linetable = q + r->qualname_len + r->filename_len,
		.linetable_len = r->linetable_len,
	};
}

/* ---- writer (lib/hpcpy-write.c; invariant 2) ---- */
void hpcpy_write_head(struct textrec_out *o, int major, int minor);
void hpcpy_write_code(struct textrec_out *o, const struct hpcpy_code *c);

/* ---- reader (lib/hpcpy-read.c; invariant 3) ---- */
/* Reads path; NULL with hpc_lasterr() set.  Free with hpcpy_free. */
struct hpcpy *hpcpy_read(const char *path);
void hpcpy_free(struct hpcpy *p);
/* Reads the live code file path (invariants 4 and 5; a code twice kept
 * once, as invariant 3); NULL with hpc_lasterr() set, one line naming the
 * file.  Free with hpcpy_free. */
struct hpcpy *hpcpy_live_read(const char *path);

#endif
