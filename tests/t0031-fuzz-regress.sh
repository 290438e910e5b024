#!/bin/sh
test_description='inputs that found bugs (tests/fuzz/regress/NAME/) fed to the tools: success or a clean refusal, never a signal, a hang or a sanitizer report'
. "$(dirname "$0")/test-lib.sh"

# Each file of tests/fuzz/regress/NAME/ is an input of the fuzz harness
# fuzz-NAME (tests/fuzz/README of run-fuzz.sh), run here through the tool
# that reads it the same way:
#   hpcstruct    hpcstruct -o OUT FILE
#   hpcrun-fmt   hpcprof --dump FILE.hpcrun
#   structfile   hpcprof --dump FILE.hpcstruct
#   config       hpcprof -M FILE on a measurement directory
#   experiment   hpcviewer-tui --stdio on a directory with FILE as experiment.xml
#   kallsyms     hpcprof on a measurement directory with FILE as its
#                kernel_symbols/ list
#   formula      hpcprof --metric "x=TEXT OF FILE" on a measurement directory
#   phases       hpcviewer-tui --stdio --view phases on a database with FILE
#                as phases.tsv
REGRESS=$SRC_ROOT/tests/fuzz/regress

# clean_run CMD...: CMD exits 0, or 1 with its last line of stderr in the
# tools' error style ("PROG: ..."), within 60 seconds and without a
# sanitizer report.
clean_run() {
	local status=0 prog
	prog=$(basename "$1")
	timeout 60 "$@" >out 2>err || status=$?
	if [ $status != 0 ] && [ $status != 1 ]; then
		echo "'$prog' exited with status $status (124: timed out; >128: signal)" >&2
		tail -n 20 err >&2
		return 1
	fi
	if grep -E "Sanitizer|runtime error:" err >&2; then
		return 1
	fi
	if [ $status = 1 ] && ! tail -n 1 err | grep -q "^$prog: "; then
		echo "'$prog' failed without a message in the error style:" >&2
		tail -n 5 err >&2
		return 1
	fi
}

# run_input NAME FILE: FILE through the tool that reads NAME's inputs.
run_input() {
	case $1 in
	hpcstruct)  clean_run hpcstruct -o out.hpcstruct "$2" ;;
	hpcrun-fmt) cp "$2" input.hpcrun && clean_run hpcprof --dump input.hpcrun ;;
	structfile) cp "$2" input.hpcstruct && clean_run hpcprof --dump input.hpcstruct ;;
	config)     rm -rf db && clean_run hpcprof -M "$2" -o db meas ;;
	experiment) rm -rf db && mkdir db && cp "$2" db/experiment.xml &&
		    clean_run hpcviewer-tui --stdio db ;;
	kallsyms)   rm -rf db meas-k && cp -r meas meas-k &&
		    cp "$2" meas-k/kernel_symbols/vmlinux.11ac0300 &&
		    clean_run hpcprof -o db meas-k ;;
	formula)    rm -rf db && clean_run hpcprof --metric "x=$(cat "$2")" -o db meas ;;
	phases)     rm -rf db && mkdir db &&
		    cp "$TEST_DATA/viewer/small-db/experiment.xml" "$2" db/ &&
		    mv "db/$(basename "$2")" db/phases.tsv &&
		    clean_run hpcviewer-tui --stdio --view phases db ;;
	*)          echo "no tool for $1 inputs" >&2; return 1 ;;
	esac
}

test_expect_success 'setup: a measurement directory' '
	cp -r "$FIXTURES/loops-perf.m" meas
'

for dir in "$REGRESS"/*/; do
	name=$(basename "$dir")
	for file in "$dir"*; do
		[ -f "$file" ] || continue
		test_expect_success "$name: $(basename "$file")" "
			run_input $name '$file'
		"
	done
done

test_done
