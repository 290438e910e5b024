#!/bin/sh
# check-structure.sh SOURCE STRUCTFILE - checks the loop structure and
# procedure lines that the // CHECK: comments of SOURCE state against a
# structure file.
#
# A comment on source line N says one of:
#   // CHECK: loop depth=D [near=K] [in=NAME|in=-] [proc=NAME]
#       some L element has l=N (or |l-N| <= K), D enclosing loops counting
#       itself, the innermost named alien around it is NAME (- = none),
#       inside the procedure named NAME;
#   // CHECK: loops=C proc=NAME      procedure NAME has exactly C loops;
#   // CHECK: proc=NAME              a procedure NAME exists;
#   // CHECK: alien=NAME [proc=NAME] some callee alien (A) named NAME has
#       l=N and a file f of SOURCE's basename (inside procedure NAME).
# Either of the last two may end in "decl": NAME's P then has l=N too (the
# comment sits on the line that declares it).
# Only loops in the F element of SOURCE's file (by basename) count.
# Prints one line per failed check and exits 1 if any failed.
# Works on any structure file with one element per line (ours and
# HPCToolkit's).
src=$1 xml=$2
base=$(basename "$src")
awk -v base="$base" '
function attr(s, name,   m) {
	if (match(s, " " name "=\"[^\"]*\"")) {
		m = substr(s, RSTART + length(name) + 3, RLENGTH - length(name) - 4)
		return m
	}
	return ""
}
/<F / { f = attr($0, "n"); sub(".*/", "", f); infile = (f == base) }
/<\/F>/ { infile = 0 }
!infile { next }
/<P / { proc = attr($0, "n"); sub(/ \[.*/, "", proc); depth = 0; sp = 0
	print "P", proc, attr($0, "l"); next }
/<\/P>/ { next }
/<A / { sp++; stk[sp] = "A"; nm[sp] = attr($0, "n")
	if (nm[sp] != "") { af = attr($0, "f"); sub(".*/", "", af)
		print "A", proc, attr($0, "l"), (af == "" ? "-" : af), nm[sp] }
	next }
/<L / { sp++; stk[sp] = "L"; depth++
	inner = "-"
	for (k = sp - 1; k >= 1; k--) if (stk[k] == "A" && nm[k] != "") { inner = nm[k]; break }
	print "L", proc, attr($0, "l"), depth, inner; next }
/<\/A>/ { sp--; next }
/<\/L>/ { sp--; depth--; next }
' "$xml" >loops.found.$$ || exit 2
grep -n '// CHECK:' "$src" | awk -v found=loops.found.$$ -v base="$base" '
BEGIN {
	while ((getline line < found) > 0) {
		split(line, w, " ")
		if (w[1] == "P") { procs[w[2]] = 1; pline[w[2]] = w[3]; continue }
		if (w[1] == "A") { na++; ap[na] = w[2]; al[na] = w[3]; af[na] = w[4]
			an[na] = substr(line, index(line, " " w[4] " ") + length(w[4]) + 2); continue }
		n++; lp[n] = w[2]; ll[n] = w[3]; ld[n] = w[4]; li[n] = w[5]
		count[w[2]]++
	}
}
{
	split($0, parts, ":"); src = parts[1] + 0
	rest = $0; sub(/.*\/\/ CHECK: */, "", rest)
	depth = ""; near = 0; inn = ""; proc = ""; loops = ""; isloop = 0; decl = 0; alien = ""
	m = split(rest, t, " ")
	for (i = 1; i <= m; i++) {
		if (t[i] == "loop") isloop = 1
		else if (t[i] ~ /^depth=/) depth = substr(t[i], 7)
		else if (t[i] ~ /^near=/) near = substr(t[i], 6) + 0
		else if (t[i] ~ /^in=/) inn = substr(t[i], 4)
		else if (t[i] ~ /^proc=/) proc = substr(t[i], 6)
		else if (t[i] ~ /^loops=/) loops = substr(t[i], 7)
		else if (t[i] == "decl") decl = 1
		else if (t[i] ~ /^alien=/) alien = substr(t[i], 7)
	}
	if (alien != "") {
		ok = 0; seen = ""
		for (k = 1; k <= na; k++) {
			if (an[k] != alien || (proc != "" && ap[k] != proc)) continue
			seen = seen " l=" al[k] " f=" af[k]
			if (al[k] == src && af[k] == base) ok = 1
		}
		if (!ok) { print "line " src ": no alien " alien " here (" (seen == "" ? "none" : "found" seen) ")"; bad = 1 }
		next
	}
	if (isloop) {
		ok = 0
		for (k = 1; k <= n; k++) {
			d = ll[k] - src; if (d < 0) d = -d
			if (d > near) continue
			if (depth != "" && ld[k] != depth) continue
			if (inn != "" && li[k] != inn) continue
			if (proc != "" && lp[k] != proc) continue
			ok = 1
		}
		if (!ok) { print "line " src ": no loop matching: " rest; bad = 1 }
	} else if (loops != "") {
		if ((count[proc] + 0) != loops) {
			print "line " src ": procedure " proc " has " (count[proc] + 0) " loops, expected " loops; bad = 1
		}
	} else if (proc != "" && !(proc in procs)) {
		print "line " src ": no procedure " proc; bad = 1
	}
	if (!isloop && decl && proc in procs && pline[proc] != src) {
		print "line " src ": procedure " proc " has l=" pline[proc] ", expected " src; bad = 1
	}
}
END { exit bad }
'
rc=$?
if [ $rc != 0 ]; then
	echo "loops found (proc line depth alien):"
	grep '^L' loops.found.$$
fi
rm -f loops.found.$$
exit $rc
