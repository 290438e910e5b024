# python-lib.sh - pyenv's CPythons and the Python frames of folded stacks,
# for tests/t1290-python-e2e.sh and bench/hpcrun-python-*.sh (sourced; the
# tests after test-lib.sh, the benches with SRC_ROOT set).
#
# A profile's Python frame is named "FILE:FIRSTLINE QUALNAME" in every
# view (3.10: the plain name, which its code objects have alone), so in
# hpcviewer-tui --folded stacks too, where native frames are "NAME
# [MODULE]" and inlined code "NAME_[i]".

PYROOT=${PYENV_ROOT:-$HOME/.pyenv}

# pypath V: the interpreter of pyenv version V.* (V like 3.12), or
# nothing and status 1
pypath() {
	for d in "$PYROOT"/versions/"$1".*; do
		case ${d##*/} in *[!0-9.]*) continue ;; esac
		test -x "$d/bin/python$1" && { echo "$d/bin/python$1"; return 0; }
	done
	return 1
}

# pyenv_prereqs V...: for each V (like 3.12) a lazy prerequisite PY312,
# met when pyenv has that CPython (the tests only)
pyenv_prereqs() {
	for v in "$@"; do
		test_lazy_prereq "PY$(echo "$v" | tr -d .)" "pypath $v >/dev/null"
	done
}

# pyname V FILE.py QUALNAME: the name of FILE.py's function QUALNAME in a
# profile of Python V ("kernels.py:21 kernel_a"), from the source
# (tests/progs/py/pyquals.py)
pyname() {
	"$(pypath "$1")" "$SRC_ROOT/tests/progs/py/pyquals.py" "$2" |
	awk -v q="$3" -v v="$1" -v f="${2##*/}" '
		$1 == q { print f ":" $3 " " (v == "3.10" ? $2 : $1); exit }'
}

# frame_share FOLDED NAME...: each NAME's inclusive share (percent) of
# the samples under any of them, "NAME SHARE" a line
frame_share() {
	f=$1
	shift
	for n in "$@"; do printf '%s\n' "$n"; done |
	awk -v f="$f" '
		{ want[NR] = $0; n = NR }
		END {
			while ((getline line < f) > 0) {
				c = line; sub(/.* /, "", c)
				s = line; sub(/ [0-9]+$/, "", s)
				k = split(s, fr, ";")
				for (i = 1; i <= n; i++)
					for (j = 1; j <= k; j++)
						if (fr[j] == want[i] || index(fr[j], want[i] " [") == 1) {
							got[i] += c; all += c; break
						}
			}
			for (i = 1; i <= n; i++)
				printf "%s %.2f\n", want[i], all ? 100 * got[i] / all : 0
		}'
}

# in_order FOLDED NAME...: some stack holds the frames NAME... in that
# order, outermost first (other frames between them allowed); a NAME
# that begins with "~" is a regular expression a frame matches
in_order() {
	f=$1
	shift
	for n in "$@"; do printf '%s\n' "$n"; done |
	awk -v f="$f" '
		{ want[NR] = $0; n = NR }
		function is(fr, w) {
			if (substr(w, 1, 1) == "~")
				return fr ~ substr(w, 2)
			return fr == w || index(fr, w " [") == 1
		}
		END {
			while ((getline line < f) > 0) {
				s = line; sub(/ [0-9]+$/, "", s)
				k = split(s, fr, ";")
				i = 1
				for (j = 1; j <= k && i <= n; j++)
					if (is(fr[j], want[i]))
						i++
				if (i > n) exit 0
			}
			exit 1
		}' || { echo "no stack holds, in order: $*" >&2; return 1; }
}

# no_python FOLDED: no frame of a .py file
no_python() {
	! grep -q '\.py:[0-9]* ' "$1"
}

# innermost_python FOLDED: each Python function's share (percent) of all
# samples as the innermost Python frame of a .py file in their stack (its
# own time and that of the C code it called; frozen modules' frames are
# left out), "SHARE FILE QUALNAME" a line, largest first; samples without
# such a frame are "(none)"
innermost_python() {
	awk '
		{
			c = $NF; s = $0; sub(/ [0-9]+$/, "", s)
			k = split(s, fr, ";"); key = "(none)"
			for (j = k; j >= 1; j--)
				if (fr[j] ~ /^[^ ;\[]+\.py:[0-9]+ /) {
					key = fr[j]; sub(/ \[[^]]*\]$/, "", key)
					sub(/:[0-9]+ /, " ", key)
					break
				}
			got[key] += c; all += c
		}
		END { for (x in got) printf "%.2f %s\n", 100 * got[x] / all, x }
	' "$1" | sort -k1,1nr
}
