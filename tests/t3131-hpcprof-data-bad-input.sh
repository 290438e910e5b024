#!/bin/sh
test_description='hpcprof: malformed data-centric subtrees give one line naming the file, no crash, the rest used'
. "$(dirname "$0")/test-lib.sh"

test_expect_success 'setup' '
	build_mkprofile &&
	sh "$TEST_DIRECTORY/lib/data-synthetic.sh"
'

# one_warning FILE: FILE holds one warning (and the line saying what hpcprof
# wrote).
one_warning() {
	test "$(grep -c warning "$1")" = 1 && grep -q "^hpcprof: wrote" "$1"
}

# bad NAME: a profile of thread 0 plus the spec lines on stdin, in bad-NAME/.
bad() {
	mkdir "bad-$1" &&
	{ grep -v "^node\|^value" t0.spec; cat; } >"$1.spec" &&
	./mkprofile "bad-$1/prog-000000-000-00001234-10-0.hpcrun" <"$1.spec" &&
	hpcprof -S prog.hpcstruct -o "db-$1" --text "$1.txt" "bad-$1" 2>"$1.err" &&
	test_valid_xml "$DTD_DIR/hpc-experiment.dtd" "db-$1/experiment.xml"
}

test_expect_success 'a variable node in no module: one line, its accesses unknown' '
	bad novar <<-\EOT &&
	node 30 0 0 ^Static
	node 31 30 0 ^Var 2
	node 32 31 0 ^Access
	node 33 32 1 1035
	node 34 33 1 4035
	value 34 0 10
	EOT
	one_warning novar.err &&
	grep "bad-novar/prog-000000-000-00001234-10-0.hpcrun.*node 31 under ^Static is no variable" novar.err &&
	grep "^100.00% 100.00%  *10 unknown" novar.txt &&
	grep "^100.00%  *10 *100.00%  *10  work" novar.txt
'

test_expect_success 'a static node without the variable flag is refused the same way' '
	bad noflag <<-\EOT &&
	node 30 0 0 ^Static
	node 31 30 1 1234
	node 32 31 0 ^Access
	node 33 32 1 1035
	node 34 33 1 4035
	value 34 0 7
	EOT
	one_warning noflag.err &&
	grep "node 31 under ^Static" noflag.err
'

test_expect_success 'values on an allocation path and no ^Access: one line, code intact' '
	bad alloc <<-\EOT &&
	node 1 0 0 ^Primary
	node 2 1 1 1035
	node 3 2 1 4005
	value 3 0 4
	node 10 0 0 ^Heap
	node 11 10 1 1015
	node 12 11 1 2005
	value 12 0 99
	EOT
	one_warning alloc.err &&
	grep "sample values on node 12, outside any access path" alloc.err &&
	grep "^Metric cycles: total 4$" alloc.txt
'

test_expect_success 'a stack root whose child is not ^Access: accesses kept on the stack' '
	bad stack <<-\EOT &&
	node 40 0 0 ^Stack
	node 42 40 1 1035
	node 43 42 1 4006
	value 43 0 5
	EOT
	one_warning stack.err &&
	grep "node 42 below ^Stack is not ^Access" stack.err &&
	grep "^100.00% 100.00%  *5 stack" stack.txt
'

test_expect_success 'a subtree under ^Access right below ^Heap, nested data placeholders' '
	bad nest <<-\EOT &&
	node 10 0 0 ^Heap
	node 13 10 0 ^Access
	node 14 13 0 ^Heap
	node 15 14 0 ^Access
	node 16 15 1 1035
	node 17 16 1 4015
	value 17 0 6
	node 20 0 0 ^Stack
	node 21 20 0 ^Access
	node 22 21 0 ^Access
	node 23 22 1 4015
	value 23 0 1
	EOT
	one_warning nest.err &&
	grep "^Metric cycles: total 7$" nest.txt
'

test_done
