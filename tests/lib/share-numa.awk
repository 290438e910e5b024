# share-numa.awk HPCSHARE...: "KNOWN REMOTE PERCENT" of the accesses that
# are not first touches (FIRST 0) to pages whose home is known: a page's
# home is the node of the CPU of its first touch (FIRST 1), an access is
# remote when its CPU's node is not its page's home (hpcrun(5)).  Pages
# are keyed by object and page index (exact with awk's doubles).
function hex(s,   i, c, v) { v = 0; s = tolower(s);
	for (i = 1; i <= length(s); i++) { c = index("0123456789abcdef", substr(s, i, 1)) - 1; v = v * 16 + c }
	return v }
$1 == "node" { split($3, cl, /[,-]/); for (c in cl) node[cl[c]] = $2 }
$1 == "object" { lo[$2] = hex(substr($4, length($4) - 2)) }
$1 == "access" { pg = $4 ":" int((lo[$4] + $5) / 4096); cpu = $3
	if ($8 == 1) home[pg] = node[cpu]; else { n++; ap[n] = pg; an[n] = node[cpu] } }
END { for (i = 1; i <= n; i++) if (ap[i] in home) { k++; if (home[ap[i]] != an[i]) r++ }
	printf "%d %d %d\n", k, r, k ? int(100 * r / k) : -1 }
