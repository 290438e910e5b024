#!/bin/sh
test_description='hpcprof reads structure files (ours and HPCToolkit), safely'
. "$(dirname "$0")/test-lib.sh"

S=$FIXTURES/loops-perf.m/structs

test_expect_success FIXTURES 'HPCToolkit structure of the loops program' '
	hpcprof --dump "$S/testmeas-loops.hpcstruct" >out &&
	head -n 1 out >first &&
	echo "structure \"/builds/hpctoolkit/hpctoolkit/builddir/tests/data/meas/testmeas-loops\" scopes 115 ranges 82 procedures 22" >expect &&
	test_cmp expect first &&
	grep -x "    P 24 l=24 n=\"func2\" v=0x1315" out &&
	grep -x "        L 33 l=26 v=0x135b" out &&
	grep -x "          A 43 l=35 n=\"test_separated_loops_helper\"" out &&
	grep -x "proc \[0x1315-0x13b6) 24" out &&
	grep -x "range \[0x13c2-0x13cb) 38" out &&
	grep -x "range \[0x1409-0x1412) 38" out
'

test_expect_success FIXTURES 'the libc structure (2424 procedures) reads' '
	hpcprof --dump "$S/libc-2.31.so.hpcstruct" >out &&
	grep -c "^proc " out >n &&
	echo 2424 >expect &&
	test_cmp expect n
'

test_expect_success 'malformed structure XML is an error with file and line' '
	printf "<HPCToolkitStructure i=\"0\" version=\"4.9\">\n<LM i=\"1\" n=\"x\" has-calls=\"0\">\n<P i=\"2\" n=\"f\">\n</LM>\n" >bad.hpcstruct &&
	test_must_fail hpcprof --dump bad.hpcstruct 2>err &&
	grep -x "hpcprof: '"'"'bad.hpcstruct'"'"': line 4: Opening and ending tag mismatch: P line 3 and LM" err
'

test_expect_success 'bad address ranges are reported with file and line' '
	printf "<HPCToolkitStructure i=\"0\" version=\"4.9\">\n<LM i=\"1\" n=\"x\" has-calls=\"0\">\n<P i=\"2\" n=\"f\" v=\"{[0x10-zz)}\"/>\n</LM></HPCToolkitStructure>\n" >badv.hpcstruct &&
	test_must_fail hpcprof --dump badv.hpcstruct 2>err &&
	grep -x "hpcprof: '"'"'badv.hpcstruct'"'"': line 3: bad address ranges v=\"{\[0x10-zz)}\"" err
'

test_expect_success 'external entities are refused, never read' '
	echo SECRET >secret.txt &&
	cat >xxe.hpcstruct <<-EOT &&
	<?xml version="1.0"?>
	<!DOCTYPE HPCToolkitStructure [ <!ENTITY x SYSTEM "file://$PWD/secret.txt"> ]>
	<HPCToolkitStructure i="0" version="4.9"><LM i="1" n="&x;" has-calls="0"/></HPCToolkitStructure>
	EOT
	hpcprof --dump xxe.hpcstruct >out 2>err || true &&
	! grep SECRET out err
'

test_expect_success 'a file without any LM is refused' '
	echo "<HPCToolkitStructure i=\"0\" version=\"4.9\"/>" >empty.hpcstruct &&
	test_must_fail hpcprof --dump empty.hpcstruct 2>err &&
	grep -x "hpcprof: '"'"'empty.hpcstruct'"'"': no load module (<LM>) in structure file" err
'

test_done
