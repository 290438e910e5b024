#!/bin/sh
test_description='hpcrun unwind: the rows of a leaf function CFA table'
. "$(dirname "$0")/test-lib.sh"

test_expect_success 'setup: test program, nm listing, profile reader' '
	cc -O2 -o rt-rows "$TEST_PROGS/rt-rows.c" &&
	nm -S --defined-only rt-rows >rt-rows.nm &&
	build_rt_folded
'

# The leaves' table of the unwinder holds a row of rules for every pc of a
# 256-byte block it covers (unwind.c): a leaf in the other row of the same
# block must not take them.  A wrong rule names rows_decoy as the caller,
# or leaves the path partial.  A sample taken in the kernel (an interrupt
# while the leaf spins) ends in kernel frames below the leaf: they are
# the leaf's time.
test_expect_success 'a leaf spinning in two rows of one block unwinds to main every time' '
	hpcrun -o rows ./rt-rows 1.5 &&
	./rt-folded rows/*.hpcrun "$TRASH/rt-rows" rt-rows.nm | grep -v "^#" >f &&
	grep ";rows_leaf" f >leaf &&
	! grep rows_decoy f &&
	grep -q "^samples-partial: 0$" rows/*.log &&
	awk "{ p = \$1; sub(/;vmlinux\\.[^;]*(;vmlinux\\.[^;]*)*\$/, \"\", p); t += \$NF
	       if (p == \"^Primary;|Main;main;rows_caller;rows_leaf\") ok += \$NF }
	     END { print ok / 1e6, t / 1e6; exit !(t >= 700e6 && ok == t) }" leaf
'

test_done
