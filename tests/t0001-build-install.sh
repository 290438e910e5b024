#!/bin/sh
test_description='make install puts programs, runtime and man pages under PREFIX'
. "$(dirname "$0")/test-lib.sh"

test_expect_success 'make install PREFIX=DIR installs every piece' '
	make -s -C "$SRC_ROOT" BUILD="$HPC_BUILD" install PREFIX="$TRASH/inst" >out 2>&1 &&
	for p in hpcrun hpcstruct hpcprof hpcviewer-tui; do
		test -x inst/bin/$p &&
		test -f inst/share/man/man1/$p.1 || exit 1
	done &&
	test -f inst/lib/hpcrun/libhpcrun.so
'

test_expect_success 'installed programs run from their new place' '
	for p in hpcrun hpcstruct hpcprof hpcviewer-tui; do
		inst/bin/$p --version >v && grep -q "^$p " v || exit 1
	done
'

test_expect_success 'man pages format without warnings' '
	for m in "$SRC_ROOT"/man/*.[15]; do
		LC_ALL=C.UTF-8 MANWIDTH=80 man --warnings -l "$m" >/dev/null 2>warn || exit 1
		test ! -s warn || { cat warn; exit 1; }
	done
'

test_done
