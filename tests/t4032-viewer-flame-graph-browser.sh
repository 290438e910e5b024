#!/bin/sh
test_description='hpcviewer-tui --flame-graph in a real headless browser: frames found, widths as the values, hover titles, click to zoom, a screenshot'
. "$(dirname "$0")/test-lib.sh"

DB=$TEST_DATA/viewer/small-db

test_lazy_prereq CHROMIUM 'command -v chromium'

# browser ARGS... FILE: headless Debian chromium on a file, its own profile
# in the trash directory; the wall clock only stops a hang (a loaded VM
# takes 5-30 s to start it).
browser() {
	_f=$1; shift
	timeout 300 chromium --headless --no-sandbox --disable-gpu \
		--user-data-dir="$TRASH/profile" "$@" "file://$TRASH/$_f" 2>>browser.log
}

# A copy of the flame graph with a script that measures what the browser
# laid out: each frame's label, class, and its rect's left and width in
# CSS pixels (getBoundingClientRect; "hidden" when not displayed), then
# clicks "compute" as a user would and measures again.  The lines go into
# the document, which --dump-dom prints.
measured_copy() {
	cat >measure.js <<-\EOT &&
	(function () {
	  function dump(tag) {
	    var out = [];
	    document.querySelectorAll("g.frame").forEach(function (g) {
	      var b = g.querySelector("rect").getBoundingClientRect();
	      var shown = getComputedStyle(g).display !== "none";
	      out.push(["M", tag, g.querySelector("title").textContent.split("\n")[0],
	                g.getAttribute("class"), shown ? b.left.toFixed(1) : "hidden",
	                shown ? b.width.toFixed(1) : "hidden"].join("|"));
	    });
	    return out.join("\n");
	  }
	  var s = dump("before"), target = null;
	  document.querySelectorAll("g.frame").forEach(function (g) {
	    if (g.querySelector("title").textContent.split("\n")[0] === "compute")
	      target = g;
	  });
	  target.dispatchEvent(new MouseEvent("click", { bubbles: true }));
	  s += "\n" + dump("zoomed");
	  var t = document.createElementNS("http://www.w3.org/2000/svg", "text");
	  t.setAttribute("id", "measured");
	  t.textContent = "\n" + s + "\n";
	  document.documentElement.appendChild(t);
	})();
	EOT
	{
		sed "\$d" "$1" &&
		echo "<script><![CDATA[" && cat measure.js && echo "]]></script>" &&
		echo "</svg>"
	} >"$2"
}

test_expect_success CHROMIUM 'setup: the flame graph, and a copy that measures itself' '
	hpcviewer-tui --flame-graph fg.svg "$DB" &&
	tail -n 1 fg.svg >last && echo "</svg>" >expect && test_cmp expect last &&
	measured_copy fg.svg measured.svg
'

test_expect_success CHROMIUM 'the browser loads the SVG: 9 frames, the known functions in its DOM' '
	browser fg.svg --dump-dom >dom &&
	test $(grep -c "<g class=\"frame " dom) = 9 &&
	for f in main compute helper "loop at app.c:8" "loop at app.c:22" "\[I\] vec_add"; do
		grep -q "<title>$f\$" dom || exit 1
	done &&
	grep -q "<g class=\"frame inline\">" dom &&
	test $(grep -c "<g class=\"frame loop\">" dom) = 2
'

test_expect_success CHROMIUM 'laid out: widths proportional to the values (1180 px for 10 s)' '
	browser measured.svg --dump-dom >dom &&
	grep "^M|before|" dom | cut -d"|" -f3- >before &&
	cat >expect <<-\EOT &&
	all|frame root|10.0|1180.0
	main|frame proc|10.0|1180.0
	helper|frame proc|10.0|118.0
	helper|frame proc|10.0|59.0
	loop at app.c:8|frame loop|128.0|944.0
	compute|frame proc|128.0|826.0
	helper|frame proc|128.0|236.0
	loop at app.c:22|frame loop|364.0|590.0
	[I] vec_add|frame inline|364.0|354.0
	EOT
	test_cmp expect before
'

# compute (7 s) fills the width: its callees grow by 1180/826, its
# callers are stretched under it, the rest is hidden.
test_expect_success CHROMIUM 'a click zooms into the frame' '
	browser measured.svg --dump-dom >dom &&
	grep "^M|zoomed|" dom | cut -d"|" -f3- >zoomed &&
	cat >expect <<-\EOT &&
	all|frame root|10.0|1180.0
	main|frame proc|10.0|1180.0
	helper|frame proc|hidden|hidden
	helper|frame proc|hidden|hidden
	loop at app.c:8|frame loop|10.0|1180.0
	compute|frame proc|10.0|1180.0
	helper|frame proc|10.0|337.1
	loop at app.c:22|frame loop|347.1|842.9
	[I] vec_add|frame inline|347.1|505.7
	EOT
	test_cmp expect zoomed
'

test_expect_success CHROMIUM 'a screenshot of the picture' '
	browser fg.svg --screenshot="$TRASH/shot.png" --window-size=1200,200 &&
	file shot.png >type &&
	grep -q "PNG image data, 1200 x 200" type &&
	test $(wc -c <shot.png) -gt 2000
'

test_done
