#!/bin/sh
test_description='hpcstruct: the instruction mix of each statement (an FP loop, an integer and memory loop; gcc and clang -O2; stripped)'
. "$(dirname "$0")/test-lib.sh"

DTD=$DTD_DIR/hpc-structure.dtd

# loop_mix FILE PROC: the classes of the instructions in the loops of the
# procedures whose name starts with PROC, as "fp N other M CLASSES", where
# CLASSES lists the letters seen (hpcstruct(5), INSTRUCTION MIX).
loop_mix() {
	awk -v proc="$2" '
	/<P / { match($0, / n="[^"]*"/); name = substr($0, RSTART + 4, RLENGTH - 5)
		inproc = index(name, proc) == 1; inloop = 0 }
	inproc && /<L / { inloop++ }
	inproc && /<\/L>/ { inloop-- }
	inproc && inloop && /insns="/ {
		match($0, /insns="[^"]*"/); q = substr($0, RSTART + 7, RLENGTH - 8)
		for (i = 1; i < length(q); i += 2) {
			c = substr(q, i, 1); seen[c] = 1
			if (c == "f") fp++; else other++
		}
	}
	END { s = ""; for (c in seen) s = s c
		printf "fp %d other %d %s\n", fp, other, s }' "$1"
}

# mix_is_consistent FILE: every insn-mix follows an S on its line, and its
# counts are those of its sequence.
mix_is_consistent() {
	test "$(grep -c "<?insn-mix" "$1")" -gt 0 &&
	test "$(grep -c "<?insn-mix" "$1")" = "$(grep -c "<S [^>]*/><?insn-mix [^>]*?>$" "$1")" &&
	awk '/<\?insn-mix/ {
		match($0, /<\?insn-mix [^?]*\?>/); pi = substr($0, RSTART, RLENGTH)
		match(pi, /insns="[^"]*"/); q = substr(pi, RSTART + 7, RLENGTH - 8)
		split("", n)
		for (i = 1; i < length(q); i += 2) n[substr(q, i, 1)]++
		split("f:fp v:vec b:branch s:store l:load i:int o:other", kv, " ")
		for (k in kv) {
			split(kv[k], p, ":")
			want = n[p[1]] ? "" p[2] "=\"" n[p[1]] "\"" : ""
			if (want != "" && index(pi, " " want " ") == 0) { print "bad: " pi; bad = 1 }
			if (want == "" && index(pi, " " p[2] "=\"")) { print "bad: " pi; bad = 1 }
		}
	}
	END { exit bad }' "$1"
}

for cc in gcc clang; do
	prereq=
	test $cc = clang && prereq=CLANG
	test_expect_success $prereq "$cc -O2: the FP loop is FP arithmetic (256 scalar or 128 packed) but its 2-4 instructions of loop control" "
		$cc -O2 -g -o mx-$cc \"\$TEST_PROGS/mx-fpint.c\" &&
		hpcstruct -o mx-$cc.xml mx-$cc &&
		loop_mix mx-$cc.xml fp >fp-$cc &&
		read _ fp _ other letters <fp-$cc &&
		test \$fp -ge 128 && test \$other -ge 2 && test \$other -le 4
	"
	test_expect_success $prereq "$cc -O2: the integer loop has no FP, and loads, stores, integer ops and a branch" "
		loop_mix mx-$cc.xml ints >int-$cc &&
		read _ fp _ other letters <int-$cc &&
		test \$fp = 0 && test \$other -ge 6 &&
		for c in l s i b; do
			case \$letters in *\$c*) ;; *) echo \"no \$c in \$letters\"; false;; esac || return 1
		done
	"
	test_expect_success $prereq "$cc -O2: each mix follows its S, counts match the sequence" "
		mix_is_consistent mx-$cc.xml
	"
	test_expect_success "$prereq XMLLINT" "$cc -O2: the file stays valid against HPCToolkit's DTD" "
		test_valid_xml \"\$DTD\" mx-$cc.xml
	"
done

# bytes KIND <DUMP: the bytes of the [LO-HI) ranges of hpcprof --dump lines
# that start with KIND.
bytes() {
	grep "^$1 \[" | { s=0
	while read -r _ r _; do
		lo=${r#[}; lo=${lo%-*}; hi=${r#*-}; hi=${hi%)}
		s=$((s + hi - lo))
	done; echo $s; }
}

test_expect_success 'hpcprof reads the mix back: runs cover exactly the statements ranges' '
	hpcprof --dump mx-gcc.xml >dump &&
	test "$(grep -c "^mix \[0x" dump)" -gt 10 &&
	test "$(bytes range <dump)" = "$(bytes mix <dump)"
'

test_expect_success 'a stripped binary: line-less statements carry their mix too' '
	strip -o mx-stripped mx-gcc &&
	hpcstruct -o stripped.xml mx-stripped &&
	grep -q "<S [^>]*l=\"0\"[^>]*/><?insn-mix " stripped.xml &&
	mix_is_consistent stripped.xml &&
	awk "/<L / { l++ } /<\/L>/ { l-- } l && /insns=/ { match(\$0, /insns=\"[^\"]*\"/);
		q = substr(\$0, RSTART, RLENGTH); f += gsub(/f[0-9a-f]/, \"\", q) }
		END { exit !(f >= 128) }" stripped.xml
'

test_done
