/*
 * st-lexical.c - loops whose for statement spans lines, loop nests, and
 * inlined callees with and without loops, called inside loops; built as a
 * shared library, with and without -g, at -O0 and -O3 (t2060).  A loop's
 * line is its condition's line: the first line of a for statement that
 * holds its initialization and condition, not the line of its increment.
 * When init, condition and increment each have a line, the loop test's
 * branch has the first or the second (clang -O0 gives the branch the first).
 * Bounds and counters are volatile, so that -O3 keeps each loop one loop;
 * each procedure differs from the others, so that gcc -O3 folds none into
 * another (a folded copy has one line).
 * Expected structure in // CHECK: comments (tests/lib/check-structure.sh);
 * the procedures are exported, so they keep their names without -g.
 * Build: cc -O3 -g -shared -fPIC -o libst-lexical.so st-lexical.c
 *        (tests use gcc and clang, -O0 and -O3, with and without -g)
 */
volatile int lim_a = 3;
volatile int lim_b = 3;
volatile int lim_c = 3;
volatile int acc = 11;

static inline __attribute__((always_inline)) void add_once(void)
{
	acc ^= lim_b;
}

static inline __attribute__((always_inline)) void add_loop_top(void)
{
	acc -= 1;					// CHECK: alien=add_loop_top proc=lx_inline_loop
	for (volatile int c = 0; c < lim_c;		// CHECK: loop depth=1 in=add_loop_top proc=lx_inline_loop
	     c++)
		acc += c;
}

static inline __attribute__((always_inline)) void add_loop_nested(void)
{
	acc -= 2;					// CHECK: alien=add_loop_nested proc=lx_inline_in_nest
	for (volatile int c = 0; c < lim_c;		// CHECK: loop depth=3 in=add_loop_nested proc=lx_inline_in_nest
	     c++)
		acc ^= c;
}

static inline __attribute__((always_inline)) void add_loop_looped(void)
{
	acc -= 3;					// CHECK: alien=add_loop_looped proc=lx_inline_in_loop
	for (volatile int c = 0; c < lim_c;		// CHECK: loop depth=2 in=add_loop_looped proc=lx_inline_in_loop
	     c++)
		acc += 2 * c;
}

void lx_split(void)					// CHECK: loops=1 proc=lx_split
{
	acc = 1;
	for (volatile int a = 0; a < lim_a;		// CHECK: loop depth=1 in=- proc=lx_split
	     a++) {
		acc += lim_c;
	}
}

void lx_three_lines(void)				// CHECK: loops=1 proc=lx_three_lines
{
	acc = 2;
	for (volatile int a = 0;			// CHECK: loop depth=1 near=1 in=- proc=lx_three_lines
	     a < lim_a;
	     a++)
		acc -= lim_b;
}

void lx_nest2(void)					// CHECK: loops=2 proc=lx_nest2
{
	acc = 3;
	for (volatile int a = 0; a < lim_a;		// CHECK: loop depth=1 in=- proc=lx_nest2
	     a++) {
		for (volatile int b = 0; b < lim_b;	// CHECK: loop depth=2 in=- proc=lx_nest2
		     b++) {
			acc += lim_c;
		}
	}
}

void lx_nest3(void)					// CHECK: loops=3 proc=lx_nest3
{
	acc = 4;
	for (volatile int a = 0; a < lim_a;		// CHECK: loop depth=1 in=- proc=lx_nest3
	     a++) {
		for (volatile int b = 0; b < lim_b;	// CHECK: loop depth=2 in=- proc=lx_nest3
		     b++) {
			for (volatile int c = 0; c < lim_c;	// CHECK: loop depth=3 in=- proc=lx_nest3
			     c++) {
				acc += lim_c;
			}
		}
	}
}

void lx_early_exit(void)				// CHECK: loops=1 proc=lx_early_exit
{
	volatile int a = 0;

	while (a < lim_a) {				// CHECK: loop depth=1 in=- proc=lx_early_exit
		acc += a;
		if (acc == 12345)
			break;
		a++;
	}
}

void lx_inline_plain(void)				// CHECK: loops=1 proc=lx_inline_plain
{
	acc = 5;
	for (volatile int a = 0; a < lim_a;		// CHECK: loop depth=1 in=- proc=lx_inline_plain
	     a++) {
		add_once();
	}
}

void lx_inline_loop(void)				// CHECK: loops=1 proc=lx_inline_loop
{
	acc = 6;
	add_loop_top();
}

void lx_inline_in_loop(void)				// CHECK: loops=2 proc=lx_inline_in_loop
{
	acc = 7;
	for (volatile int a = 0; a < lim_a;		// CHECK: loop depth=1 in=- proc=lx_inline_in_loop
	     a++) {
		add_loop_looped();
	}
}

void lx_inline_in_nest(void)				// CHECK: loops=3 proc=lx_inline_in_nest
{
	acc = 8;
	for (volatile int a = 0; a < lim_a;		// CHECK: loop depth=1 in=- proc=lx_inline_in_nest
	     a++) {
		for (volatile int b = 0; b < lim_b;	// CHECK: loop depth=2 in=- proc=lx_inline_in_nest
		     b++) {
			add_loop_nested();
		}
	}
}
