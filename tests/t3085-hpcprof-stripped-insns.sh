#!/bin/sh
test_description='hpcprof: statements without a source line keep one S per sampled instruction, which the viewer'"'"'s disassembly gutter shows'
. "$(dirname "$0")/test-lib.sh"
. "$TEST_DIRECTORY/lib/viewer-screen.sh"

# A stripped shared library whose work() loops over a div:
#   cc -shared -fPIC -nostdlib -o libdiv.so div.s && strip libdiv.so
# Its loop body from work+7: movl (2 bytes), xorl (2), divl (2), addl (3),
# decl (2), jne (2); hpcstruct gives the body one statement (line 0).
cat >div.s <<\EOT
	.text
	.globl	work
	.type	work, @function
work:
	.cfi_startproc
	movl	%edi, %ecx
	movl	$1, %esi
.Lloop:
	movl	%ecx, %eax
	xorl	%edx, %edx
	divl	%esi
	addl	%eax, %r8d
	decl	%ecx
	jnz	.Lloop
	ret
	.cfi_endproc
	.size	work, .-work
	.section	.note.GNU-stack,"",@progbits
EOT

# Samples: 700 at the divl (work+11), 200 at the addl after it (work+13),
# 100 at the decl (work+16).
test_expect_success 'a stripped library through hpcstruct and hpcprof' '
	cc -shared -fPIC -nostdlib -o libdiv.so div.s && strip libdiv.so &&
	w=$(nm -D libdiv.so | awk "\$3 == \"work\" { print \$1 }") &&
	test -n "$w" && w=$((0x$w)) && echo $w >work.addr &&
	hpcstruct -q -o div.hpcstruct libdiv.so &&
	build_mkprofile && mkdir m &&
	cat >spec <<-EOT &&
	header program-name div
	lm 1 $PWD/libdiv.so
	metric cycles int
	node 2 0 1 $(printf 0x%x $((w + 11)))
	node 4 0 1 $(printf 0x%x $((w + 13)))
	node 6 0 1 $(printf 0x%x $((w + 16)))
	value 2 0 700
	value 4 0 200
	value 6 0 100
	EOT
	./mkprofile m/div-000000-000-00001234-77-0.hpcrun <spec &&
	hpcprof -S div.hpcstruct -o db m 2>err
'

test_expect_success 'top-down: one S per sampled address, with exactly its samples' '
	w=$(cat work.addr) &&
	sed -n "/<S i=\"[0-9]*\" s=/{N;s/.* l=\"0\" v=\"\(0x[0-9a-f]*\)\">\n *<M n=\"0\" v=\"\([^\"]*\)\".*/\1 \2/p;}" \
		db/experiment.xml >out &&
	{
		printf "0x%x 700\n" $((w + 11)) &&
		printf "0x%x 200\n" $((w + 13)) &&
		printf "0x%x 100\n" $((w + 16))
	} >expect &&
	test_cmp expect out
'

test_expect_success 'the viewer names each by its address' '
	w=$(cat work.addr) &&
	hpcviewer-tui --csv db | cut -d, -f2,3,6 | grep "^line," >out &&
	{
		printf "line,libdiv.so+0x%x,700\n" $((w + 11)) &&
		printf "line,libdiv.so+0x%x,200\n" $((w + 13)) &&
		printf "line,libdiv.so+0x%x,100\n" $((w + 16))
	} >expect &&
	test_cmp expect out
'

test_expect_success TMUX 'the disassembly gutter: each cost on its own instruction' '
	w=$(cat work.addr) &&
	open_viewer 200 30 db &&
	keys j H && wait_for "libdiv.so+$(printf 0x%x $((w + 11)))" &&
	keys v && wait_for "/libdiv.so at 0x" &&
	grep -q "^-- no source: code of /" screen.txt &&
	sed -n "/^-- no source/,\$p" screen.txt | sed -n 2,12p >code &&
	{
		printf "%9s %8x  %s\n" "" $((w + 7)) "movl %ecx, %eax" &&
		printf "%9s %8x  %s\n" "" $((w + 9)) "xorl %edx, %edx" &&
		printf "%9s %8x  %s\n" 7.00e+02 $((w + 11)) "divl %esi" &&
		printf "%9s %8x  %s\n" 2.00e+02 $((w + 13)) "addl %eax, %r8d" &&
		printf "%9s %8x  %s\n" 1.00e+02 $((w + 16)) "decl %ecx"
	} >expect &&
	grep -E "^.{9} +$(printf %x $((w + 7)))  " -A 4 code >five &&
	test_cmp expect five
'

screen_done
test_done
