#!/bin/sh
test_description='hpcprof names kernel samples from the kernel symbol lists HPCToolkit saves (kernel_symbols/, XZ or plain)'
. "$(dirname "$0")/test-lib.sh"

PERF=$FIXTURES/loops-perf.m
KSYMS=kernel_symbols/vmlinux.11ac0300

# The flat profile's scopes in load module $2 of database $1, sorted:
# "NAME VMA N=V" for each procedure (N=V its first metric value), "NAME S
# VMA" for each statement in it (one per line; without lines, one per
# sampled address).
flat_scopes() {
	sed -n "\\|<LM i=\"[0-9]*\" n=\"$2\">|,\\|</LM>|p" "$1/experiment.xml" |
	awk 'function attr(a) { if (!match($0, " " a "=\"[^\"]*\"")) return ""
				return substr($0, RSTART + length(a) + 3, RLENGTH - length(a) - 4) }
	     /^ *<P / { p = attr("n"); pv = attr("v"); m = 1 }
	     /^ *<M / && m { print p, pv, attr("n") "=" attr("v"); m = 0 }
	     /^ *<S / { print p, "S", attr("v") }' |
	sort
}

# The M values of the call-path root and of the flat profile's load
# module $2 in database $1.
totals() {
	sed -n "/<SecCallPathProfileData>/,/<PF /p" "$1/experiment.xml" |
		sed -n "s/.*<M n=\"\([0-9]*\)\" v=\"\([^\"]*\)\".*/root \1=\2/p" &&
	sed -n "\\|<LM i=\"[0-9]*\" n=\"$2\">|,/<F /p" "$1/experiment.xml" |
		sed -n "s/.*<M n=\"\([0-9]*\)\" v=\"\([^\"]*\)\".*/lm \1=\2/p"
}

# A copy $1 of the perf run whose kernel symbol list is made by "$2 <LIST".
copy_perf() {
	cp -r "$PERF" "$1" && chmod -R u+w "$1" &&
	sh -c "$2" <"$PERF/$KSYMS" >"$1/$KSYMS"
}

# The sampled kernel addresses (hpcprof --dump) and, by hand from
# "xz -dc <$PERF/$KSYMS | sort", the text symbol at or below each (the
# address of a frame that called on is a return address: the call is 1
# byte before it):
#   leaf 0xffffffffa10021dd        ffffffffa10021a0 t exit_to_usermode_loop
#   leaf 0xffffffffa11d8445        ffffffffa11d8440 T uprobe_deny_signal
#   call 0xffffffffa1a00a2f - 1    ffffffffa1a00a27 T retint_user
#        (a1a00a2f itself is swapgs_restore_regs_and_return_to_usermode)
#   call 0xffffffffa1002167 - 1    ffffffffa1002100 T prepare_exit_to_usermode
#   call 0xffffffffa1002222 - 1    ffffffffa10021a0 t exit_to_usermode_loop
#   call 0xffffffffa101fe6d - 1    ffffffffa101fde0 T do_signal
#   call 0xffffffffa108207e - 1    ffffffffa1082030 T get_signal
test_expect_success FIXTURES 'the perf run sampled seven kernel addresses' '
	hpcprof --dump "$PERF"/*.hpcrun >dump &&
	grep -x "  lm 19 flags 0x0 \"$KSYMS\"" dump &&
	grep " lm 19 addr " dump | sed "s/.* addr \([^ ]*\) .*/\1/" | sort -u >addrs &&
	cat >expect <<-\EOT &&
	0xffffffffa1002167
	0xffffffffa10021dd
	0xffffffffa1002222
	0xffffffffa101fe6d
	0xffffffffa108207e
	0xffffffffa11d8445
	0xffffffffa1a00a2f
	EOT
	test_cmp expect addrs
'

test_expect_success FIXTURES 'kernel samples are named by the symbol at or below them' '
	hpcprof -o db --text report "$PERF" 2>err &&
	test_valid_xml "$DTD_DIR/hpc-experiment.dtd" db/experiment.xml &&
	flat_scopes db "$KSYMS" >scopes &&
	cat >expect <<-\EOT &&
	do_signal 0xffffffffa101fde0 0=12500000
	exit_to_usermode_loop 0xffffffffa10021a0 0=12500000
	exit_to_usermode_loop S 0xffffffffa10021dd
	get_signal 0xffffffffa1082030 0=12500000
	prepare_exit_to_usermode 0xffffffffa1002100 0=12500000
	retint_user 0xffffffffa1a00a27 0=12500000
	uprobe_deny_signal 0xffffffffa11d8440 0=12500000
	uprobe_deny_signal S 0xffffffffa11d8445
	EOT
	test_cmp expect scopes &&
	for p in retint_user prepare_exit_to_usermode exit_to_usermode_loop \
		 do_signal get_signal uprobe_deny_signal; do
		grep "<Procedure i=\"[0-9]*\" n=\"$p\" f=\"[0-9]*\"/>" db/experiment.xml &&
		grep " $p \[vmlinux\.11ac0300+0xffffffff[0-9a-f]*\] in vmlinux\.11ac0300$" report || exit 1
	done &&
	! grep "unknown.* 0xffffffff" db/experiment.xml report
'

test_expect_success FIXTURES 'the calling context runs from the interrupt return to the sample' '
	xmllint --xpath "//PF[@n=//Procedure[@n=\"retint_user\"]/@i]/C/PF[@n=//Procedure[@n=\"prepare_exit_to_usermode\"]/@i]/C/PF[@n=//Procedure[@n=\"exit_to_usermode_loop\"]/@i]/C/PF[@n=//Procedure[@n=\"do_signal\"]/@i]/C/PF[@n=//Procedure[@n=\"get_signal\"]/@i]/C/PF[@n=//Procedure[@n=\"uprobe_deny_signal\"]/@i]/S/@v" db/experiment.xml >leaf &&
	echo " v=\"0xffffffffa11d8445\"" >expect &&
	test_cmp expect leaf
'

test_expect_success FIXTURES 'one notice for the module: kernel symbols only, no lines' '
	grep "vmlinux" err >notice &&
	echo "hpcprof: warning: '"'"'$KSYMS'"'"': kernel symbols only (no lines)" >expect &&
	test_cmp expect notice &&
	grep "<NV n=\"structure-none\" v=\"$KSYMS\"/>" db/experiment.xml
'

test_expect_success FIXTURES 'totals are those of the run without the list' '
	copy_perf nolist cat && rm nolist/$KSYMS &&
	hpcprof -o db-nolist nolist 2>err-nolist &&
	grep "$KSYMS.: binary not found; keeping addresses" err-nolist &&
	totals db-nolist "$KSYMS" >expect-totals &&
	flat_scopes db-nolist "$KSYMS" >expect-scopes &&
	test_line_count = 9 expect-scopes &&
	grep -x "root 0=3950000000" expect-totals &&
	grep -x "root 12=36" expect-totals &&
	grep -x "lm 0=12500000" expect-totals &&
	grep -x "lm 12=2" expect-totals &&
	totals db "$KSYMS" >actual &&
	test_cmp expect-totals actual
'

test_expect_success FIXTURES 'an uncompressed list gives the same database' '
	copy_perf plain "xz -dc" &&
	head -n 1 plain/$KSYMS >first &&
	echo "ffffffffa1000000 T startup_64" >expect &&
	test_cmp expect first &&
	hpcprof -o db-plain --text report-plain plain 2>err-plain &&
	sed "s/db-plain/db/" err-plain >err-plain-as-db &&
	test_cmp err err-plain-as-db &&
	test_cmp db/experiment.xml db-plain/experiment.xml &&
	test_cmp report report-plain
'

# unusable_list DIR: hpcprof on DIR warns once and keeps the kernel
# addresses (the leaf 0xffffffffa11d8445 among them) and the totals, as
# without a list; the warning goes to notices.
unusable_list() {
	hpcprof -o db-$1 $1 2>err-$1 &&
	test_valid_xml "$DTD_DIR/hpc-experiment.dtd" db-$1/experiment.xml &&
	flat_scopes db-$1 "$KSYMS" >scopes-$1 &&
	grep -x "&lt;unknown&gt; 0xffffffffa11d8445 \[vmlinux.11ac0300\] S 0xffffffffa11d8445" scopes-$1 &&
	test_cmp expect-scopes scopes-$1 &&
	totals db-$1 "$KSYMS" >totals-$1 &&
	test_cmp expect-totals totals-$1 &&
	grep vmlinux err-$1 >>notices
}

test_expect_success FIXTURES 'a truncated XZ list: a warning naming it, addresses kept, totals unchanged' '
	copy_perf cut "head -c 100000" &&
	rm -f notices && unusable_list cut &&
	echo "hpcprof: warning: '"'"'cut/$KSYMS'"'"': truncated XZ data; keeping addresses" >expect &&
	test_cmp expect notices
'

test_expect_success FIXTURES 'corrupt XZ data, lines that are not symbols, no addresses: warnings, addresses kept' '
	garble="xz -dc | sed \"3s/.*/this line is not a symbol/\"" &&
	copy_perf bad-line "$garble" &&
	copy_perf bad-line-xz "$garble | xz -c" &&
	copy_perf binary "cat $(ls "$PERF"/*-000-*.hpcrun)" &&
	copy_perf flipped cat &&
	printf XXXXXXXX | dd of=flipped/$KSYMS bs=1 seek=5000 conv=notrunc 2>/dev/null &&
	copy_perf hidden "xz -dc | sed \"s/^[0-9a-f]*/0000000000000000/\"" &&
	rm -f notices &&
	for d in bad-line bad-line-xz binary flipped hidden; do
		unusable_list $d || exit 1
	done &&
	cat >expect <<-EOT &&
	hpcprof: warning: '"'"'bad-line/$KSYMS'"'"': line 3 is not a kernel symbol ('"'"'ADDRESS TYPE NAME [MODULE]'"'"'); keeping addresses
	hpcprof: warning: '"'"'bad-line-xz/$KSYMS'"'"': line 3 is not a kernel symbol ('"'"'ADDRESS TYPE NAME [MODULE]'"'"'); keeping addresses
	hpcprof: warning: '"'"'binary/$KSYMS'"'"': line 1 is not a kernel symbol ('"'"'ADDRESS TYPE NAME [MODULE]'"'"'); keeping addresses
	hpcprof: warning: '"'"'flipped/$KSYMS'"'"': corrupt XZ data; keeping addresses
	hpcprof: warning: '"'"'hidden/$KSYMS'"'"': no text symbols at non-zero addresses; keeping addresses
	EOT
	test_cmp expect notices
'

test_expect_success 'setup: a profile of eight kernel samples and a crafted list' '
	build_mkprofile &&
	cat >k.spec <<-\EOT &&
	header program-name kprog
	lm 2 kernel_symbols/vmlinux.test
	metric samples int
	thread 0
	node 2 0 0 ^Primary
	# below the first symbol
	node 10 2 2 ffffffff80ffffff
	# three symbols at ffffffff81000000: the global one without a leading
	# underscore names it
	node 11 2 2 ffffffff81000010
	# the data symbol at ...200 is no text: still weak_text
	node 12 2 2 ffffffff81000210
	node 13 2 2 ffffffff81000310
	# a module function; its data symbol does not end it (foo: 16 + 32 + 64)
	node 14 2 2 ffffffffc0a01010
	node 15 2 2 ffffffffc0a01200
	# 1 MiB past foo is foo, one byte more is too far
	node 16 2 2 ffffffffc0b01000
	node 17 2 2 ffffffffc0b01001
	value 10 0 1
	value 11 0 2
	value 12 0 4
	value 13 0 8
	value 14 0 16
	value 15 0 32
	value 16 0 64
	value 17 0 128
	EOT
	mkdir -p k/kernel_symbols &&
	./mkprofile k/kprog-000000-000-0-1-0.hpcrun <k.spec &&
	printf "%s\n" \
		"0000000000000000 A fixed_percpu_data" \
		"ffffffff81000000 T _stext" \
		"ffffffff81000000 t local_at_start" \
		"ffffffff81000000 T startup_64" \
		"ffffffff81000100 W weak_text" \
		"ffffffff81000200 D some_data" \
		"" \
		"ffffffff81000300 t local_fn" \
		"ffffffffc0a01000 t foo	[ext4]" \
		"ffffffffc0a01100 d bar	[ext4]" \
		"0000000000000000 T hidden_fn" >list &&
	xz -c list >k/kernel_symbols/vmlinux.test
'

test_expect_success 'the crafted list: ties, weak text, module suffixes, data and address 0 skipped, reach' '
	hpcprof -o kdb k 2>err &&
	test_valid_xml "$DTD_DIR/hpc-experiment.dtd" kdb/experiment.xml &&
	grep warning err >notice &&
	echo "hpcprof: warning: '"'"'kernel_symbols/vmlinux.test'"'"': kernel symbols only (no lines)" >expect &&
	test_cmp expect notice &&
	flat_scopes kdb kernel_symbols/vmlinux.test >scopes &&
	cat >expect <<-\EOT &&
	&lt;unknown&gt; 0xffffffff80ffffff [vmlinux.test] 0xffffffff80ffffff 0=1
	&lt;unknown&gt; 0xffffffff80ffffff [vmlinux.test] S 0xffffffff80ffffff
	&lt;unknown&gt; 0xffffffffc0b01001 [vmlinux.test] 0xffffffffc0b01001 0=128
	&lt;unknown&gt; 0xffffffffc0b01001 [vmlinux.test] S 0xffffffffc0b01001
	foo 0xffffffffc0a01000 0=112
	foo S 0xffffffffc0a01010
	foo S 0xffffffffc0a01200
	foo S 0xffffffffc0b01000
	local_fn 0xffffffff81000300 0=8
	local_fn S 0xffffffff81000310
	startup_64 0xffffffff81000000 0=2
	startup_64 S 0xffffffff81000010
	weak_text 0xffffffff81000100 0=4
	weak_text S 0xffffffff81000210
	EOT
	test_cmp expect scopes &&
	! grep "n=\"\(_stext\|local_at_start\|some_data\|bar\|hidden_fn\|fixed_percpu_data\)\"" kdb/experiment.xml
'

test_expect_success 'a plain list in kernel_symbols/ is read the same' '
	rm k/kernel_symbols/vmlinux.test && cp list k/kernel_symbols/vmlinux.test &&
	hpcprof -o kdb-plain k 2>err &&
	grep warning err >notice &&
	echo "hpcprof: warning: '"'"'kernel_symbols/vmlinux.test'"'"': kernel symbols only (no lines)" >expect &&
	test_cmp expect notice &&
	test_cmp kdb/experiment.xml kdb-plain/experiment.xml
'

test_expect_success 'a line longer than 4096 bytes makes the list unusable' '
	{ cat list && printf "ffffffff82000000 T %05000d\n" 0; } >k/kernel_symbols/vmlinux.test &&
	hpcprof -o kdb-long k 2>err &&
	grep warning err >notice &&
	echo "hpcprof: warning: '"'"'k/kernel_symbols/vmlinux.test'"'"': line 12 is longer than 4096 bytes; keeping addresses" >expect &&
	test_cmp expect notice &&
	grep -c "<Procedure i=\"[0-9]*\" n=\"&lt;unknown&gt; 0x" kdb-long/experiment.xml >n &&
	echo 8 >expect && test_cmp expect n
'

test_done
