# structure.sh - structure_file, the writer of the hand-made structure
# files (hpcstruct(5)) the hpcprof tests and the fixture scripts describe
# their synthetic programs with.  Sourced by test-lib.sh, so every test has
# it, and by the fixture scripts of tests/lib/.

# structure_file MODULE SOURCE <PROCEDURES: on stdout, a structure file of
# one load module MODULE (i 1, has calls) whose one source file SOURCE
# (i 2) holds the procedures read from stdin (their P elements, ids from
# 3), as hpcstruct writes them.
structure_file() {
	printf '<?xml version="1.0"?>\n<HPCToolkitStructure i="0" version="4.9" n="">\n' &&
	printf '<LM i="1" n="%s" has-calls="1" v="{}">\n<F i="2" n="%s">\n' "$1" "$2" &&
	cat &&
	printf '</F>\n</LM>\n</HPCToolkitStructure>\n'
}
