#!/bin/sh
test_description='hpcviewer-tui: --stdio --width 0 stops the indentation with a depth marker, so the text is linear in the rows'
. "$(dirname "$0")/test-lib.sh"

# main > f > g > ... > leaf, 200,000 frames (tests/lib/viewer-deep-db.sh), so
# 600,007 rows.  Indented two spaces a level, the text would be 80 GB;
# with --width 0 (no limit) the rows are indented as in a 160-column scope column
# (the rule of the screen and of --width): the indentation stops at 80
# columns, where "[+D] " says the depth.  The two metric cells take 46
# characters, so the longest line is 46 + 80 + "- " + "call at deep.c:12"
# = 145 characters.  Wall and CPU limits only stop a hang.
test_expect_success 'setup: the deep database' '
	sh "$TEST_DIRECTORY/lib/viewer-deep-db.sh" deep 200000
'

test_expect_success 'top-down --stdio --width 0: lines of bounded length' '
	(ulimit -t 120 && timeout 600 hpcviewer-tui --stdio --width 0 deep >out) &&
	test $(wc -l <out) = 600007 &&
	test $(awk "length(\$0) > n { n = length(\$0) } END { print n }" out) = 145 &&
	test $(wc -c <out) -le $((600007 * 146))
'

test_expect_success 'levels to 40 indented in full, the 41st and below marked' '
	sed -n "42p;43p" out >rows &&
	{
		printf "%21s  %21s  %80s- call at deep.c:12\n" "2.00e+05 100.0%" "" "" &&
		printf "%21s  %21s  %74s[+41] - g\n" "2.00e+05 100.0%" "1.00e+00   0.0%" ""
	} >expect &&
	test_cmp expect rows &&
	grep -n " leaf\$" out >leaf &&
	printf "400005:%21s  %21s  %70s[+400003] - leaf\n" "5.00e+00   0.0%" "5.00e+00   0.0%" "" >expect &&
	test_cmp expect leaf
'

test_expect_success 'CSV is not indented: its depth is a number' '
	hpcviewer-tui --csv --depth 45 deep >csv &&
	test $(grep -c "^[0-9]*,[a-z]*,[^ ]" csv) = $(($(wc -l <csv) - 1))
'

test_done
