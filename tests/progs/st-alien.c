/*
 * st-alien.c - the callee alien of inlined code carries the callee's file
 * and the line of its first statement, not of its declaration; also when
 * clang's DWARF 5 numbers the primary source file 0.
 * Expected structure in // CHECK: comments (tests/lib/check-structure.sh).
 * Build: cc -O2 -g -o st-alien st-alien.c   (tests use gcc and clang, -O0
 *        and -O2, as an executable and with -shared -fPIC)
 */
volatile int sink;

static inline __attribute__((always_inline)) void f_inlined(int n)
{
	sink = n;				// CHECK: alien=f_inlined proc=api
	for (int i = 0; i < n; i++)		// CHECK: loop depth=1 in=f_inlined proc=api
		sink += i;
}

__attribute__((noinline)) int api(int n)	// CHECK: proc=api decl
{
	f_inlined(n);
	return sink;
}

static inline __attribute__((always_inline)) int twice(int x)
{
	return 2 * x;				// CHECK: alien=twice proc=nested
}

static inline __attribute__((always_inline)) void outer(int n)
{
	sink = twice(n);			// CHECK: alien=outer proc=nested
	sink = n + 1;
}

__attribute__((noinline)) void nested(int n)	// CHECK: proc=nested decl
{
	outer(n);
}

int main(int argc, char **argv)
{
	(void)argv;
	nested(argc);
	return api(argc) & 0;
}
