#!/bin/sh
test_description='every program has --help, --version and a man page that agree'
. "$(dirname "$0")/test-lib.sh"

PROGRAMS="hpcrun hpcstruct hpcprof hpcviewer-tui"
# hpcprof-mpi is built only where mpicc is.
test -x "$HPC_BUILD/bin/hpcprof-mpi" && PROGRAMS="$PROGRAMS hpcprof-mpi"

# Options spelled in the first column of --help output.
help_options() {
	"$1" --help | sed -n 's/^ \{2,6\}\(-.*\)$/\1/p' | sed 's/  .*//' |
	tr ', ' '\n\n' | grep '^-' | sed 's/=.*//' | sort -u
}

# Options named on the .TP tag lines of the man page's OPTIONS section.
man_options() {
	sed -n '/^\.SH OPTIONS/,/^\.SH /p' "$SRC_ROOT/man/$1.1" |
	sed -n '/^\.TP/{n;p;}' |
	sed -e 's/\\f[BIRP]//g' -e 's/\\-/-/g' |
	tr ', ' '\n\n' | grep '^-' | sed 's/=.*//' | sort -u
}

for p in $PROGRAMS; do
	test_expect_success "$p --help lists the options its man page documents" "
		help_options $p >help.txt &&
		man_options $p >man.txt &&
		test -s help.txt &&
		test_cmp man.txt help.txt
	"
	test_expect_success "$p man page has every required section" "
		for s in NAME SYNOPSIS DESCRIPTION OPTIONS 'EXIT STATUS' FILES EXAMPLES 'SEE ALSO'; do
			grep -qx \".SH \$s\" \"\$SRC_ROOT/man/$p.1\" || { echo missing \$s; exit 1; }
		done
	"
	test_expect_success "$p --version names the program and version" "
		$p --version >out &&
		grep -Eq '^$p \(hpctoolkit-c\) [0-9]+\.[0-9]+\.[0-9]+\$' out
	"
	test_expect_success "$p refuses an unknown option with status 2" "
		status=0 && $p --no-such-option 2>err || status=\$? &&
		test \$status = 2 &&
		grep -q \"^$p: unknown option '--no-such-option'\" err
	"
done

test_done
