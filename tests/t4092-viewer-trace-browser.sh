#!/bin/sh
test_description='hpcviewer-tui --perfetto loaded into speedscope in headless Chromium: the threads and their phases with their times, a screenshot'
. "$(dirname "$0")/test-lib.sh"
. "$TEST_DIRECTORY/lib/trace-lib.sh"

# speedscope (npm package, runs offline) from $SPEEDSCOPE_DIR, the global
# npm root, or BUILD/npm (npm install --prefix build/npm speedscope).
speedscope_release() {
	for _d in "${SPEEDSCOPE_DIR:-/nonexistent}" \
		"$(npm root -g 2>/dev/null)/speedscope" \
		"$HPC_BUILD/npm/node_modules/speedscope"; do
		if [ -f "$_d/dist/release/index.html" ]; then
			echo "$_d/dist/release"
			return 0
		fi
	done
	return 1
}

test_lazy_prereq CHROMIUM 'command -v chromium'
test_lazy_prereq SPEEDSCOPE 'speedscope_release'
test_have_prereq SPEEDSCOPE ||
	echo "# no speedscope: npm install --prefix '$HPC_BUILD/npm' speedscope (or set SPEEDSCOPE_DIR) to run these"

# browser PAGE ARGS...: headless Debian chromium on the copy of speedscope
# with the profile, its own browser profile in the trash directory; the
# wall clock only stops a hang, virtual time runs the page's timers.
browser() {
	_p=$1; shift
	timeout 300 chromium --headless --no-sandbox --disable-gpu \
		--disable-background-networking --user-data-dir="$TRASH/profile" \
		--virtual-time-budget=30000 "$@" \
		"file://$TRASH/ss/$_p#localProfilePath=$TRASH/ss/profile.js" 2>>browser.log
}

# measure: the DOM of probe.html once its probe wrote its tables, into
# dom; three tries, since on a loaded machine virtual time can run out
# before speedscope has drawn what the probe waits for (seen under
# SANITIZE): a try without the tables is said in browser.log.
measure() {
	for _try in 1 2 3; do
		browser probe.html --dump-dom >dom &&
		if grep -q "<pre id=\"measured\">" dom; then
			return 0
		fi
		echo "try $_try: no tables in the DOM" >>browser.log
	done
	return 1
}

# A copy of speedscope that loads p.json as its command line does, and a
# page that opens its Sandwich view, lists the table rows (each thread's
# total, each procedure's total and self time), goes to the next thread
# ("n") and lists them again, into a <pre id="measured">.
test_expect_success CHROMIUM,SPEEDSCOPE 'setup: the export, speedscope loading it, a page that reads its tables' '
	build_mktrace &&
	trace_db db &&
	hpcviewer-tui --perfetto p.json db &&
	cp -r "$(speedscope_release)" ss &&
	printf "speedscope.loadFileFromBase64(\"p.json\", \"%s\")" \
		"$(base64 -w0 p.json)" >ss/profile.js &&
	cat >ss/probe.js <<-\EOT &&
	function rows(tag) {
	  var out = [];
	  document.querySelectorAll("tr").forEach(function (tr) {
	    var cells = [];
	    tr.querySelectorAll("td").forEach(function (td) { cells.push(td.textContent.trim()); });
	    if (cells.length) out.push(tag + "|" + cells.join("|"));
	  });
	  return out.join("\n");
	}
	// one step a tick, each once the page shows what it waits for
	var s = "", step = 0;
	var timer = setInterval(function () {
	  var text = document.body.textContent;
	  if (step === 0 && text.indexOf("thread 0 (tid 0)") >= 0) {
	    document.querySelectorAll("div,span,button").forEach(function (e) {
	      if (e.textContent.trim().endsWith("Sandwich") && e.children.length <= 1) e.click();
	    });
	    step = 1;
	  } else if (step === 1 && text.indexOf("main {") >= 0) {
	    s += rows("first") + "\n";
	    window.dispatchEvent(new KeyboardEvent("keypress", { key: "n", bubbles: true }));
	    step = 2;
	  } else if (step === 2 && text.indexOf("worker {") >= 0) {
	    s += rows("next");
	    var p = document.createElement("pre");
	    p.id = "measured";
	    p.textContent = "\n" + s + "\n";
	    document.body.appendChild(p);
	    clearInterval(timer);
	  }
	}, 250);
	EOT
	sed "s|</body>|<script src=\"probe.js\"></script></body>|" ss/index.html >ss/probe.html
'

test_expect_success CHROMIUM,SPEEDSCOPE 'speedscope finds both threads, main 3 s of a, b, c; the worker 1.4 s of x, y' '
	measure &&
	sed -n "/<pre id=\"measured\">/,/<\/pre>/p" dom | grep "|" | sed "s/&lt;/</" >actual &&
	cat >expect <<-\EOT &&
	first|1|phases (process 4242) (pid 4242), thread 0 (tid 0)|3.00s
	first|2|phases (process 4242) (pid 4242), thread 1 (tid 1)|1.40s
	first|1.00s (33%)|1.00s (33%)|c {"src":"phases.c:18"}
	first|1.00s (33%)|1.00s (33%)|b {"src":"phases.c:14"}
	first|1.00s (33%)|1.00s (33%)|a {"src":"phases.c:10"}
	first|3.00s (100%)|0.00ns (<0.01%)|main {"src":"phases.c:30"}
	next|1|phases (process 4242) (pid 4242), thread 0 (tid 0)|3.00s
	next|2|phases (process 4242) (pid 4242), thread 1 (tid 1)|1.40s
	next|800.00ms (57%)|800.00ms (57%)|y {"src":"phases.c:26"}
	next|600.00ms (43%)|600.00ms (43%)|x {"src":"phases.c:22"}
	next|1.40s (100%)|0.00ns (<0.01%)|worker {"src":"phases.c:40"}
	EOT
	test_cmp expect actual
'

test_expect_success CHROMIUM,SPEEDSCOPE 'a screenshot of its time-order view (kept in the trash directory)' '
	browser index.html --window-size=1200,300 --screenshot="$TRASH/speedscope.png" &&
	test -s speedscope.png
'

test_done
