/*
 * rt-sharing.c - the sharing patterns of issue #16 with their ground truth
 * built in (CONTRACT-16.md), for hpcrun --sharing.
 *
 *   cc -O1 -g -pthread -no-pie -fno-pie -o rt-sharing rt-sharing.c
 *
 *   rt-sharing patterns [NTHREADS [ROUNDS]]
 *                                    one object per pattern (below),
 *                                    ROUNDS of each (default 4000000)
 *   rt-sharing numa serial|parallel  a 4 MiB block of 4 KiB pages
 *                                    initialized by one thread, or by
 *                                    each for its half
 *   rt-sharing syscalls              read/write/pread/recv/poll/stat...
 *                                    into and from heap and static
 *                                    buffers, its own mprotect and
 *                                    SIGSEGV handler, a fork
 *
 * Thread i runs on CPU i % (online CPUs); the main thread is thread 0.
 * Output: checksums that do not depend on timing, so a run under hpcrun
 * prints exactly what a plain run prints.
 *
 * The objects of "patterns" and the label each must get:
 *   alloc_private  heap, 64 KiB a thread, each thread its own    private
 *   table          static long[4096], filled by main first,      read-shared
 *                  then only read
 *   counters       static, packed longs, thread i stores c[i]    false-sharing
 *   padded         static, the same 128 bytes apart              private
 *   alloc_ring     heap 64 KiB, thread 0 writes each round,      producer-consumer
 *                  the others read
 *   cell           static long under cell_lock: read, then       migratory
 *                  write cell + 1, by each thread in turn
 *   flag           static long, every thread stores              write-shared
 *   alloc_latent   heap 128 bytes, aligned_alloc(4096, 128):     private, latent
 *                  thread 0 bytes 48-63, thread 1 bytes 64-79    false sharing
 * Each static object starts a page of its own.
 *
 * hpcrun --sharing sees accesses by timer samples, in proportion to the
 * time each instruction takes, and labels a 64-byte line only from 8
 * concurrent samples of it (hpcprof/sharing.h).  So each round touches
 * the hot part of a big object only (16 lines; 2 of table), and does
 * each object's work often enough that its lines get that many samples
 * at the default rate -- except table: reads of lines every cache holds
 * take a cycle, and it ends with too few samples at any work a test can
 * afford (t1100).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <setjmp.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <unistd.h>

#define NTHREADS_MAX 16
#define ROUNDS 4000000			/* of patterns, by default */
#define RING_LONGS 8192			/* 64 KiB */
#define PRIVATE_LONGS 8192
/* The longs of alloc_private, table and alloc_ring a round touches: 16
 * lines, so that each gets the samples a label needs (hpcrun(1)). */
#define HOT_LONGS 128
/* The longs of table read: 2 lines (reads of a cached table are cheap,
 * so few timer samples land on them). */
#define TABLE_HOT 16

long table[4096] __attribute__((aligned(4096)));
struct { long c[NTHREADS_MAX]; } counters __attribute__((aligned(4096)));
struct { long v; char pad[120]; } padded[NTHREADS_MAX] __attribute__((aligned(4096)));
long cell __attribute__((aligned(4096)));
pthread_mutex_t cell_lock __attribute__((aligned(4096))) = PTHREAD_MUTEX_INITIALIZER;
long flag __attribute__((aligned(4096)));

static int nthreads;
static long rounds = ROUNDS;
static volatile long *ring;
static volatile unsigned char *latent;
static long private_sum[NTHREADS_MAX], table_sum[NTHREADS_MAX];

static void pin(int i)
{
	cpu_set_t set;
	long n = sysconf(_SC_NPROCESSORS_ONLN);

	CPU_ZERO(&set);
	CPU_SET((int)(i % (n > 0 ? n : 1)), &set);
	sched_setaffinity(0, sizeof(set), &set);
}

__attribute__((noinline)) static void *alloc_private(void)
{
	return calloc(PRIVATE_LONGS, sizeof(long));
}

__attribute__((noinline)) static void *alloc_ring(void)
{
	return calloc(RING_LONGS, sizeof(long));
}

/* 128 bytes at the start of a page (so 64-byte aligned) that no other
 * object shares: both threads' writes fault on it. */
__attribute__((noinline)) static void *alloc_latent(void)
{
	void *p = aligned_alloc(4096, 128);

	if (p)
		memset(p, 0, 128);
	return p;
}

static void *worker(void *arg)
{
	int i = (int)(intptr_t)arg, k;
	volatile long *priv;
	volatile long *vt = table, *vc = counters.c;
	volatile long *vl = (volatile long *)(void *)latent;
	long r, s = 0, t = 0;

	pin(i);
	priv = alloc_private();
	if (!priv)
		return NULL;
	for (r = 0; r < rounds; r++) {
		for (k = 0; k < 4; k++)
			if (i == 0)
				vl[6 + (k & 1)] = r + k;	/* bytes 48-63 */
			else if (i == 1)
				vl[8 + (k & 1)] = r + k;	/* bytes 64-79 */
		for (k = 0; k < 16; k++) {
			long at = (r * 16 + k) % HOT_LONGS;

			priv[at] = priv[at] + k;
		}
		for (k = 0; k < 256; k++)
			t += vt[(r * 7 + k * 13) % TABLE_HOT];
		for (k = 0; k < 8; k++)
			vc[i] = r * 8 + k;
		for (k = 0; k < 8; k++)
			((volatile long *)&padded[i].v)[0] = r * 8 + k;
		if (i == 0)
			for (k = 0; k < 32; k++)
				ring[(r * 32 + k) % HOT_LONGS] = r + k;
		else
			for (k = 0; k < 32; k++)
				s += ring[(r * 32 + k) % HOT_LONGS];
		if (r % 16 == 0) {
			pthread_mutex_lock(&cell_lock);
			for (k = 0; k < 16; k++)
				*(volatile long *)&cell = *(volatile long *)&cell + 1;
			pthread_mutex_unlock(&cell_lock);
		}
		for (k = 0; k < 16; k++)
			*(volatile long *)&flag = i;
	}
	for (k = 0; k < PRIVATE_LONGS; k++)
		private_sum[i] += priv[k];
	table_sum[i] = t;
	free((void *)priv);
	(void)s;			/* what the readers saw depends on timing */
	return NULL;
}

static int patterns(int n)
{
	pthread_t t[NTHREADS_MAX];
	long sum = 0, k;
	int i;

	nthreads = n;
	pin(0);
	for (k = 0; k < 4096; k++)
		table[k] = k * 3 + 1;
	ring = alloc_ring();
	latent = alloc_latent();
	if (!ring || !latent)
		return 1;
	for (i = 1; i < n; i++)
		if (pthread_create(&t[i], NULL, worker, (void *)(intptr_t)i))
			return 1;
	worker((void *)0);
	for (i = 1; i < n; i++)
		pthread_join(t[i], NULL);
	for (i = 0; i < n; i++)
		sum += private_sum[i] + table_sum[i] + counters.c[i] + padded[i].v;
	sum += cell + latent[48] + latent[79];
	free((void *)ring);
	free((void *)latent);
	printf("patterns %d checksum %ld\n", n, sum);
	return 0;
}

/* ---- numa ---- */

#define NUMA_BYTES (4 << 20)
#define NUMA_LONGS (NUMA_BYTES / 8)
#define NUMA_PASSES 3000

static volatile long *numa_block;
static int numa_parallel;
static long numa_sum[2];

/* Its pages are 4 KiB, each first-touched on its own fault, where
 * transparent huge pages are on for every mapping too: one fault would
 * map 2 MiB of it (t1102 counts the first touches).  The block is mmap'd
 * whole, so the advice is for its pages only. */
__attribute__((noinline)) static void *alloc_numa(void)
{
	char *p = malloc(NUMA_BYTES);
	uintptr_t start = (uintptr_t)p & ~(uintptr_t)4095;

	if (p)
		madvise((void *)start, (uintptr_t)p + NUMA_BYTES - start, MADV_NOHUGEPAGE);
	return p;
}

static void numa_init(long lo, long hi)
{
	long k;

	for (k = lo; k < hi; k++)
		numa_block[k] = k;
}

static void *numa_worker(void *arg)
{
	int i = (int)(intptr_t)arg, p;
	long lo = 0, pages = NUMA_LONGS / 512, k, w, s = 0;
	/* the threads visit the pages in different orders (odd steps: each
	 * page once a pass), so which one comes first to a page is a coin
	 * toss, not fixed by where each started */
	long step = i ? 389 : 1;

	pin(i);
	if (numa_parallel) {
		pages /= 2;
		lo = i * pages * 512;
		numa_init(lo, lo + pages * 512);
	}
	for (p = 0; p < NUMA_PASSES; p++)
		for (k = 0; k < pages; k++) {
			volatile long *pg = numa_block + lo + ((k * step) % pages) * 512;

			for (w = 0; w < 512; w += 8)	/* a long a line */
				s += pg[w];
		}
	numa_sum[i] = s;
	return NULL;
}

static int numa(const char *how)
{
	pthread_t t;

	if (strcmp(how, "serial") && strcmp(how, "parallel"))
		return 2;
	numa_parallel = !strcmp(how, "parallel");
	pin(0);
	numa_block = alloc_numa();
	if (!numa_block)
		return 1;
	if (!numa_parallel)
		numa_init(0, NUMA_LONGS);
	if (pthread_create(&t, NULL, numa_worker, (void *)(intptr_t)1))
		return 1;
	numa_worker((void *)0);
	pthread_join(t, NULL);
	free((void *)numa_block);
	printf("numa %s checksum %ld\n", how, numa_sum[0] + numa_sum[1]);
	return 0;
}

/* ---- syscalls ---- */

char iobuf[16384] __attribute__((aligned(4096)));
static sigjmp_buf caught_jmp;
static volatile sig_atomic_t caught;

__attribute__((noinline)) static char *alloc_iobuf(void)
{
	return malloc(65536);
}

static void on_segv(int sig, siginfo_t *si, void *uc)
{
	(void)sig;
	(void)si;
	(void)uc;
	caught++;
	siglongjmp(caught_jmp, 1);
}

static unsigned long sum_bytes(const char *p, size_t n)
{
	unsigned long s = 0;
	size_t i;

	for (i = 0; i < n; i++)
		s = s * 31 + (unsigned char)p[i];
	return s;
}

static int syscalls(void)
{
	char *h = alloc_iobuf(), *page, path[] = "/tmp/rt-sharing-XXXXXX";
	int p[2], sv[2], fd, round, status;
	struct sigaction sa;
	struct iovec v[2];
	unsigned long s = 0;
	pid_t child;
	FILE *tf = tmpfile();
	struct pollfd *pf = (struct pollfd *)(void *)(h + 28672);
	struct stat *st = (struct stat *)(void *)(iobuf + 8704);
	struct stat64 *st64 = (struct stat64 *)(void *)(h + 30720);
	struct statx *stx = (struct statx *)(void *)(iobuf + 10240);
	char *root = h + 29696;

	if (!h || !tf || pipe(p) || socketpair(AF_UNIX, SOCK_STREAM, 0, sv) ||
	    (fd = mkstemp(path)) < 0)
		return 1;
	unlink(path);
	for (round = 0; round < 40; round++) {
		memset(iobuf, 'a' + round % 26, 4096);
		memset(h + 8192, 'A' + round % 26, 4096);
		/* pauses, so epochs protect the pages between the calls */
		usleep(2000);
		if (write(p[1], iobuf, 4096) != 4096 || read(p[0], h, 4096) != 4096)
			return 1;
		s += sum_bytes(h, 4096);
		usleep(2000);
		if (send(sv[0], h + 8192, 4096, 0) != 4096 ||
		    recv(sv[1], iobuf + 4096, 4096, MSG_WAITALL) != 4096)
			return 1;
		s += sum_bytes(iobuf + 4096, 4096);
		usleep(2000);
		if (pwrite(fd, iobuf, 4096, 0) != 4096 || pread(fd, h + 16384, 4096, 0) != 4096)
			return 1;
		s += sum_bytes(h + 16384, 4096);
		v[0].iov_base = iobuf + 8192;
		v[0].iov_len = 100;
		v[1].iov_base = h + 20480;
		v[1].iov_len = 100;
		if (writev(p[1], v, 2) != 200 || readv(p[0], v, 2) != 200)
			return 1;
		s += sum_bytes(iobuf + 8192, 100) + sum_bytes(h + 20480, 100);
		usleep(2000);
		if (fseek(tf, 0, SEEK_SET) || fwrite(iobuf, 1, 3000, tf) != 3000 ||
		    fflush(tf) || fseek(tf, 0, SEEK_SET) || fread(h + 24576, 1, 3000, tf) != 3000)
			return 1;
		s += sum_bytes(h + 24576, 3000);
		/* what the kernel writes back: poll's array, fstat's struct */
		usleep(2000);
		pf->fd = p[0];
		pf->events = POLLIN;
		if (write(p[1], "x", 1) != 1 || poll(pf, 1, 1000) != 1 ||
		    !(pf->revents & POLLIN) || read(p[0], iobuf + 9000, 1) != 1 ||
		    fstat(fd, st) || st->st_size != 4096)
			return 1;
		/* the stat family under its other names (64: what programs
		 * built with _FILE_OFFSET_BITS=64 call), a path read from a
		 * watched page */
		usleep(2000);
		strcpy(root, "/");
		if (stat64(root, st64) || !S_ISDIR(st64->st_mode) ||
		    lstat64(root, st64) || !S_ISDIR(st64->st_mode) ||
		    fstat64(fd, st64) || st64->st_size != 4096 ||
		    fstatat(AT_FDCWD, root, st, 0) || !S_ISDIR(st->st_mode) ||
		    fstatat64(fd, "", st64, AT_EMPTY_PATH) || st64->st_size != 4096 ||
		    statx(fd, "", AT_EMPTY_PATH, STATX_SIZE, stx) ||
		    stx->stx_size != 4096)
			return 1;
	}
	fclose(tf);
	printf("syscalls io checksum %lu\n", s);

	/* its own handler, for a fault on a page it protected itself */
	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = on_segv;
	sa.sa_flags = SA_SIGINFO;
	sigemptyset(&sa.sa_mask);
	if (sigaction(SIGSEGV, &sa, NULL))
		return 1;
	page = (char *)(((uintptr_t)h + 32768 + 4095) & ~(uintptr_t)4095);
	page[0] = 1;
	if (mprotect(page, 4096, PROT_READ))
		return 1;
	if (!sigsetjmp(caught_jmp, 1))
		page[0] = 2;		/* faults: its handler jumps back */
	if (mprotect(page, 4096, PROT_READ | PROT_WRITE))
		return 1;
	page[0] = 3;
	if (mprotect(iobuf + 12288, 4096, PROT_NONE))
		return 1;
	if (!sigsetjmp(caught_jmp, 1))
		s += *(volatile unsigned char *)&iobuf[12288];
	if (mprotect(iobuf + 12288, 4096, PROT_READ | PROT_WRITE))
		return 1;
	printf("syscalls own faults caught %d, page %d\n", (int)caught, page[0]);

	/* a child that keeps working */
	fflush(stdout);
	child = fork();
	if (child < 0)
		return 1;
	if (child == 0) {
		memset(h, 'c', 4096);
		if (write(p[1], h, 4096) != 4096)
			_exit(1);
		_exit(0);
	}
	if (read(p[0], iobuf, 4096) != 4096 || waitpid(child, &status, 0) != child)
		return 1;
	printf("syscalls child exit %d read %lu\n", WEXITSTATUS(status),
	       sum_bytes(iobuf, 4096));
	free(h);
	return 0;
}

int main(int argc, char **argv)
{
	if (argc >= 2 && !strcmp(argv[1], "patterns")) {
		int n = argc >= 3 ? atoi(argv[2]) : 2;

		if (argc >= 4)
			rounds = atol(argv[3]);
		if (n < 1 || n > NTHREADS_MAX || rounds < 1)
			return 2;
		return patterns(n);
	}
	if (argc == 3 && !strcmp(argv[1], "numa"))
		return numa(argv[2]);
	if (argc == 2 && !strcmp(argv[1], "syscalls"))
		return syscalls();
	fprintf(stderr, "usage: rt-sharing patterns [N [ROUNDS]] | numa serial|parallel | syscalls\n");
	return 2;
}
