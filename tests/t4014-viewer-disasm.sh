#!/bin/sh
test_description='hpcviewer-tui: disassembly where there is no source; its man page'
. "$(dirname "$0")/test-lib.sh"
. "$TEST_DIRECTORY/lib/viewer-screen.sh"

test_expect_success 'man page: the words after hpcprof-database(5) stay apart' '
	MANWIDTH=200 man -l "$TEST_DIRECTORY/../man/hpcviewer-tui.1" >man.txt 2>err &&
	grep -q "see hpcprof-database(5)): top-down, bottom-up, flat, functions" man.txt &&
	test_line_count = 0 err
'

# A stripped binary whose work() is known instruction by instruction:
#   cc -o work work.s && strip work
cat >work.s <<\EOT
	.text
	.globl	work
	.type	work, @function
work:
	.cfi_startproc
	xorl	%eax, %eax
.Lloop:
	addl	%edi, %eax
	decl	%edi
	jnz	.Lloop
	ret
	.cfi_endproc
	.size	work, .-work
	.globl	main
	.type	main, @function
main:
	.cfi_startproc
	movl	$3, %edi
	call	work
	xorl	%eax, %eax
	ret
	.cfi_endproc
	.size	main, .-main
	.section	.note.GNU-stack,"",@progbits
EOT

# The database hpcprof writes for it without source: work's statements at
# its first (loop), second and last instructions cost 5, 2 and 1.
test_lazy_prereq STRIPPED_DB '
	cc -o work work.s && w=$(nm work | awk "\$3 == \"work\" { print \$1 }") &&
	strip work && test -n "$w" &&
	w=$((0x$w)) && echo "$w" >work.addr && mkdir db &&
	cat >db/experiment.xml <<-EOT
	<?xml version="1.0"?>
	<HPCToolkitExperiment version="2.2"><Header n="work"/>
	<SecCallPathProfile i="0" n="work"><SecHeader><MetricTable>
	<Metric i="0" n="CPUTIME (sec):Sum (I)" v="derived-incr" t="inclusive" partner="1" show="1" show-percent="1"/>
	<Metric i="1" n="CPUTIME (sec):Sum (E)" v="derived-incr" t="exclusive" partner="0" show="1" show-percent="1"/>
	</MetricTable><LoadModuleTable><LoadModule i="0" n="$PWD/work"/></LoadModuleTable>
	<FileTable><File i="0" n="[work]"/></FileTable>
	<ProcedureTable><Procedure i="0" n="targ$(printf %x $w)"/></ProcedureTable>
	</SecHeader><SecCallPathProfileData>
	<PF i="2" n="0" lm="0" f="0" l="0" v="$(printf 0x%x $w)"><M n="0" v="8"/><M n="1" v="8"/>
	<L i="3" f="0" l="0" v="$(printf 0x%x $((w + 2)))"><M n="0" v="7"/><M n="1" v="7"/>
	<S i="4" f="0" l="0" v="$(printf 0x%x $((w + 2)))"><M n="0" v="5"/><M n="1" v="5"/></S>
	<S i="5" f="0" l="0" v="$(printf 0x%x $((w + 4)))"><M n="0" v="2"/><M n="1" v="2"/></S>
	</L>
	<S i="6" f="0" l="0" v="$(printf 0x%x $((w + 8)))"><M n="0" v="1"/><M n="1" v="1"/></S>
	</PF>
	</SecCallPathProfileData></SecCallPathProfile></HPCToolkitExperiment>
	EOT
'

test_expect_success TMUX,STRIPPED_DB 'no source: the pane shows the code, statement costs per instruction' '
	w=$(cat work.addr) &&
	open_viewer 200 30 db &&
	keys j H && wait_for "row 4/6: work+$(printf 0x%x $((w + 2)))" &&
	keys v && wait_for "/work at $(printf 0x%x-0x%x $w $((w + 9))) (unwind table; CPUTIME (sec):Sum (E) at each statement'"'"'s first sampled instruction) --" &&
	grep -q "^-- no source: code of /" screen.txt &&
	sed -n "/^-- no source/,\$p" screen.txt | sed -n 2,6p >code &&
	{
		printf "%9s %8x  %s\n" "" $w "xorl %eax, %eax" &&
		printf "%9s %8x  %s\n" 5.00e+00 $((w + 2)) "addl %edi, %eax" &&
		printf "%9s %8x  %s\n" 2.00e+00 $((w + 4)) "decl %edi" &&
		printf "%9s %8x  %s\n" "" $((w + 6)) "jne $(printf 0x%x $((w + 2)))"
	} >expect &&
	sed -n 1,4p code >top4 &&
	test_cmp expect top4 &&
	sed -n 5p code | grep -Eq "^ 1.00e\+00 +$(printf %x $((w + 8)))  retq?$"
'

test_expect_success TMUX,STRIPPED_DB 'a binary that is gone is named with the reason' '
	mv work work.gone &&
	open_viewer 200 30 db &&
	keys j v && wait_for "/work'"'"': No such file or directory --" &&
	grep -q "^-- no source, and no code: '"'"'/" screen.txt &&
	mv work.gone work
'

test_expect_success TMUX 'rows without code addresses keep their message' '
	mkdir nosrc && cp "$TEST_DIRECTORY/data/viewer/small-db/experiment.xml" nosrc/ &&
	open_viewer 100 30 nosrc &&
	keys j H v && wait_for "source not in the database: nosrc/src/vec.h --"
'

screen_done
test_done
