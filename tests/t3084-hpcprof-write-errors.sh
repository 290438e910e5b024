#!/bin/sh
test_description='hpcprof names the file that failed first and why: full disk, file-size limit, -j 1 and -j 2'
. "$(dirname "$0")/test-lib.sh"

# A small tmpfs for the full-disk tests (we may be root in a container that
# may not mount): unmounted however the script ends.
test_lazy_prereq TMPFS 'mkdir -p probe && mount -t tmpfs -o size=64k tmpfs probe && umount probe'
test_lazy_prereq PRLIMIT 'command -v prlimit'
trap 'umount "$TRASH/mnt" 2>/dev/null' EXIT

test_expect_success 'two data-centric profiles with sharing files' '
	build_mkprofile &&
	sh "$TEST_DIRECTORY/lib/share-synthetic.sh" &&
	hpcprof -S prog.hpcstruct -o db data 2>err &&
	test -s db/thread-values.tsv &&
	test -s db/sharing.tsv
'

# thread-values.tsv fills while the profiles are added, sharing.tsv is
# written after them: on a disk with no room at all the values fail first.
for j in 1 2; do
	test_expect_success TMPFS "-j $j on a full disk: thread-values.tsv is named, not sharing.tsv" '
		mkdir -p mnt && mount -t tmpfs -o size=64k tmpfs mnt &&
		{ cat /dev/zero >mnt/filler 2>/dev/null || :; } &&
		test_must_fail hpcprof -j '$j' -S prog.hpcstruct -o mnt/db data 2>err &&
		grep -v "^hpcprof: warning: " err >actual &&
		echo "hpcprof: '"'"'mnt/db/thread-values.tsv'"'"': write error: No space left on device" >expect &&
		test_cmp expect actual &&
		test "$(ls -A mnt)" = filler &&
		umount mnt
	'
done

# Each worker keeps the values of its threads in a temporary file
# (tmpfile(3): in /tmp) until they are written in thread order; past the
# limit the write fails with "File too large" instead of SIGXFSZ.
for j in 1 2; do
	test_expect_success PRLIMIT "-j $j past a file-size limit: the temporary file, where and why" '
		status=0 &&
		prlimit --fsize=600 hpcprof -j '$j' -S prog.hpcstruct -o lim data 2>err ||
		status=$? &&
		test $status = 1 &&
		grep -v "^hpcprof: warning: " err >actual &&
		echo "hpcprof: temporary file of the per-thread values in '"'"'/tmp'"'"': write error: File too large" >expect &&
		test_cmp expect actual &&
		! test -e lim &&
		! ls -A | grep "\\.tmp-"
	'
done

test_expect_success PRLIMIT 'a limit one byte short of experiment.xml: it is named, with the reason' '
	size=$(wc -c <db/experiment.xml) &&
	status=0 &&
	prlimit --fsize=$((size - 1)) hpcprof -j 2 -S prog.hpcstruct -o lim data 2>err ||
	status=$? &&
	test $status = 1 &&
	grep -v "^hpcprof: warning: " err >actual &&
	echo "hpcprof: '"'"'lim/experiment.xml'"'"': write error: File too large" >expect &&
	test_cmp expect actual &&
	! test -e lim &&
	! ls -A | grep "\\.tmp-"
'

test_done
