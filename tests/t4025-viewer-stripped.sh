#!/bin/sh
test_description='hpcviewer-tui: loops, calls and statements of stripped code are placed by their addresses, as hpcprof --text places them'
. "$(dirname "$0")/test-lib.sh"

# A stripped shared library whose work() has a two-deep loop nest with a
# call in the outer loop, and a second loop beside the nest:
#   cc -shared -fPIC -nostdlib -o libnest.so nest.s && strip libnest.so
cat >nest.s <<\EOT
	.text
	.globl	leaf
	.hidden	leaf
	.type	leaf, @function
leaf:
	.cfi_startproc
	movl	%ecx, %eax
	ret
	.cfi_endproc
	.size	leaf, .-leaf
	.globl	work
	.type	work, @function
work:
	.cfi_startproc
	xorl	%eax, %eax
	movl	%edi, %ecx
.Louter:
	movl	%esi, %edx
.Linner:
	addl	%edx, %eax
	decl	%edx
	jnz	.Linner
	call	leaf
	decl	%ecx
	jnz	.Louter
.Lbeside:
	decl	%esi
	jnz	.Lbeside
	ret
	.cfi_endproc
	.size	work, .-work
	.section	.note.GNU-stack,"",@progbits
EOT

# The loops' addresses are the ones hpcstruct writes (L v="{[0xA-...)}");
# the samples: the inner loop (inner + 2), the outer loop after the call
# (inner + 11, which is also the call's return address), leaf's second
# instruction under the call, and the loop beside (beside + 2).
test_expect_success 'a stripped library through hpcstruct, hpcprof' '
	cc -shared -fPIC -nostdlib -o libnest.so nest.s && strip libnest.so &&
	hpcstruct -q -o nest.hpcstruct libnest.so &&
	sed -n "s/.*<L [^>]*v=\"{\[0x\([0-9a-f]*\)-.*/\1/p" nest.hpcstruct >loops &&
	test_line_count = 3 loops &&
	outer=$(sed -n 1p loops) && inner=$(sed -n 2p loops) &&
	beside=$(sed -n 3p loops) &&
	leaf=$(sed -n "s/.*<P [^>]*v=\"{\[0x\([0-9a-f]*\)-.*/\1/p" nest.hpcstruct | head -n 1) &&
	printf "%x %x %x %x %x %x %x\n" $((0x$outer)) $((0x$inner)) \
		$((0x$inner + 2)) $((0x$inner + 11)) $((0x$leaf + 2)) \
		$((0x$beside + 2)) $((0x$leaf)) >addrs &&
	read o i s1 s2 s3 s4 l <addrs &&
	build_mkprofile && mkdir m &&
	cat >spec <<-EOT &&
	header program-name nest
	lm 1 $PWD/libnest.so
	metric cycles int
	node 2 0 1 $s1
	node 4 0 1 $s2
	node 6 0 1 $s2
	node 8 6 1 $s3
	node 10 0 1 $s4
	value 2 0 500
	value 4 0 300
	value 8 0 100
	value 10 0 100
	EOT
	./mkprofile m/nest-000000-000-00001234-77-0.hpcrun <spec &&
	hpcprof -S nest.hpcstruct -o db --text report m 2>err
'

test_expect_success 'top-down: the nested loops are two rows with hpcstruct'"'"'s addresses' '
	read o i s1 s2 s3 s4 l <addrs &&
	hpcviewer-tui --csv db | cut -d, -f1-3 >out &&
	cat >expect <<-EOT &&
	depth,kind,scope
	0,root,Experiment Aggregate Metrics
	1,procedure,work [libnest.so]
	2,loop,loop at libnest.so+0x$o
	3,loop,loop at libnest.so+0x$i
	4,line,libnest.so+0x$s1
	3,line,libnest.so+0x$s2
	3,call,call at libnest.so+0x$(printf %x $((0x$s2 - 1)))
	4,procedure,targ$l [libnest.so]
	5,line,libnest.so+0x$s3
	2,loop,loop at libnest.so+0x$(printf %x $((0x$s4 - 2)))
	3,line,libnest.so+0x$s4
	EOT
	test_cmp expect out &&
	hpcviewer-tui --stdio db >text &&
	# the cycles columns first; the instruction-mix shares may follow
	grep "^ 9.00e+02  90.0%   8.00e+02  80.0%  .*    - loop at libnest.so+0x$o\$" text &&
	grep "^ 5.00e+02  50.0%   5.00e+02  50.0%  .*      - loop at libnest.so+0x$i\$" text
'

test_expect_success 'the same places as hpcprof --text' '
	read o i s1 s2 s3 s4 l <addrs &&
	grep "^Top loops" -A 4 report | sed -n "s/.*  \(loop at [^ ]*\) .*/\1/p" | sort >hpcprof-loops &&
	hpcviewer-tui --csv db | cut -d, -f3 | grep "^loop at " | sort >viewer-loops &&
	test_line_count = 3 viewer-loops &&
	test_cmp hpcprof-loops viewer-loops
'

test_expect_success 'flat: the loops beside each other stay two rows' '
	read o i s1 s2 s3 s4 l <addrs &&
	hpcviewer-tui --csv --view flat db | cut -d, -f1,3,6 | grep "^4,loop at" >out &&
	cat >expect <<-EOT &&
	4,loop at libnest.so+0x$o,900
	4,loop at libnest.so+0x$(printf %x $((0x$s4 - 2))),100
	EOT
	test_cmp expect out
'

test_expect_success 'statements with neither line nor address keep their file' '
	cat >x.xml <<-\EOT &&
	<?xml version="1.0"?>
	<HPCToolkitExperiment version="2.2"><Header n="x"/>
	<SecCallPathProfile i="0" n="x"><SecHeader><MetricTable>
	<Metric i="0" n="c:Sum (I)" v="derived-incr" t="inclusive" show="1" show-percent="1"/>
	</MetricTable><LoadModuleTable><LoadModule i="0" n="/lib/libq.so"/></LoadModuleTable>
	<FileTable><File i="0" n="[libq.so]"/></FileTable>
	<ProcedureTable><Procedure i="0" n="q"/></ProcedureTable>
	</SecHeader><SecCallPathProfileData>
	<PF i="2" n="0" lm="0" f="0" l="0"><M n="0" v="2"/>
	<L i="3" f="0" l="0"><M n="0" v="2"/><S i="4" l="0"><M n="0" v="2"/></S></L>
	</PF>
	</SecCallPathProfileData></SecCallPathProfile></HPCToolkitExperiment>
	EOT
	mkdir xdb && mv x.xml xdb/experiment.xml &&
	hpcviewer-tui --csv xdb | cut -d, -f3 | tail -n 2 >out &&
	printf "loop at [libq.so]\n[libq.so]\n" >expect &&
	test_cmp expect out
'

test_done
