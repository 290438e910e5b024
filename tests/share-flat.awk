# share-flat.awk NM DUMP HPCSHARE: the accesses of one .hpcshare file as
# "THREAD NAME RW OFFSET FIRST CPU TIME SIZE PATH START PAGE" (share-lib.sh, share_flat).
# NM: nm -S --defined-only of a non-PIE program, sorted; DUMP: hpcprof --dump
# of the thread's profile.

function hex(s,   i, v) {
	s = tolower(s); sub(/^0x/, "", s); v = 0
	for (i = 1; i <= length(s); i++)
		v = v * 16 + index("0123456789abcdef", substr(s, i, 1)) - 1
	return v
}

# The symbol of nm holding address a, or "?".
function sym(a,   i) {
	for (i = 1; i <= nsym; i++)
		if (a >= lo[i] && a < hi[i])
			return name[i]
	return "?"
}

FILENAME == ARGV[1] {
	if (NF == 4) { nsym++; lo[nsym] = hex($1); hi[nsym] = lo[nsym] + hex($2); name[nsym] = $4 }
	next
}

FILENAME == ARGV[2] {
	if ($1 == "node") { parent[$2] = $4; lm[$2] = $6; addr[$2] = $8 }
	next
}

$1 == "thread" { thread = $2 }
$1 == "object" {
	if ($3 == "static")
		oname[$2] = sym(hex($4))
	else if ($6 in addr && lm[$6] == 1)
		oname[$2] = sym(hex(addr[$6]) - 1)	# a return address
	else
		oname[$2] = "?"
	onode[$2] = $6
	ostart[$2] = $4
	olow[$2] = hex(substr($4, length($4) - 2)) % 4096
}
$1 == "access" {
	p = "none"
	if ($9 != 0) {
		p = "bad"
		for (n = $9; n in parent && n != 0; n = parent[n])
			if (n == onode[$4]) { p = "ok"; break }
	}
	print thread, oname[$4], $7, $5, $8, $3, $2, $6, p, ostart[$4],
		int((olow[$4] + $5) / 4096)
}
