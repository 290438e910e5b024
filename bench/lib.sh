# bench/lib.sh - what several bench scripts share; sourced after setting
# SRC_ROOT (the source tree) and BUILD (the build directory).

# bench_workdir NAME [DIR]: cd into DIR (made, kept) or into a new temporary
# directory /tmp/NAME.XXXXXX removed when the script exits; dir is its
# absolute path.
bench_workdir() {
	if [ -n "${2:-}" ]; then
		dir=$2
		mkdir -p "$dir"
	else
		dir=$(mktemp -d "/tmp/$1.XXXXXX")
		trap 'rm -rf "$dir"' EXIT
	fi
	dir=$(cd "$dir" && pwd)
	cd "$dir"
}

# syn_profiles COUNT NODES: syn/ holds COUNT profiles of NODES CCT nodes
# each (tests/syn-tree.sh's synthetic set; those there are kept) and
# syn.hpcstruct their structure.
syn_profiles() {
	[ -x mkprofile ] ||
		cc -I"$SRC_ROOT/lib" -o mkprofile "$SRC_ROOT/tests/progs/pf-mkprofile.c" \
			"$BUILD/obj/libhpc.a"
	[ -s syn.hpcstruct ] || sh "$SRC_ROOT/tests/syn-tree.sh" struct >syn.hpcstruct
	mkdir -p syn
	t=$(ls syn | wc -l)
	while [ "$t" -lt "$1" ]; do
		sh "$SRC_ROOT/tests/syn-tree.sh" profile "$t" "$2" |
			./mkprofile syn/syn-$(printf %05d "$t").hpcrun
		t=$((t + 1))
	done
}
