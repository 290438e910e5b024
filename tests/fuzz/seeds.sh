#!/bin/sh
# seeds.sh [DIR] - how the seeds of corpus-hpcstruct/ were made.
#
# Rebuilds the compiled seeds into DIR (default tests/fuzz/corpus-hpcstruct)
# from tests/progs with the commands below (gcc 12 and clang 14 of Debian
# bookworm made the checked-in ones; another compiler gives other bytes,
# which is fine for a seed).  -z noseparate-code keeps each binary a few KB
# instead of one 4 KB page per segment.  The seeds found by fuzzing, named
# after what they exercise, are listed at the end; they are kept as they
# are and not rebuilt.
set -eu

src=$(cd "$(dirname "$0")/../progs" && pwd)
out=${1:-$(cd "$(dirname "$0")" && pwd)/corpus-hpcstruct}
small=-Wl,-z,noseparate-code
mkdir -p "$out"
cd "$out"

gcc -O2 -g $small -o nests-gcc-O2 "$src/st-nests.c"
strip -o nests-gcc-O2-stripped nests-gcc-O2
gcc -O2 -g -gz $small -o nests-gcc-O2-zdebug "$src/st-nests.c"
gcc -O2 -g -gsplit-dwarf $small -o nests-gcc-O2-split "$src/st-nests.c"
rm -f ./*.dwo
gcc -O2 -g $small -o control-gcc-O2 "$src/st-control.c"
gcc -O2 -g -fcf-protection $small -Wl,-z,ibtplt -o control-gcc-O2-ibtplt \
	"$src/st-control.c"
strip -o control-gcc-O2-stripped control-gcc-O2
clang -O2 -g $small -o control-clang-O2 "$src/st-control.c"
gcc -O2 -g $small -o inline-gcc-O2 "$src/st-inline.c"
gcc -O2 -gdwarf-4 $small -o inline-gcc-O2-dwarf4 "$src/st-inline.c"
clang -O2 -g $small -o inline-clang-O2 "$src/st-inline.c"
gcc -O2 -g $small -o outlier-gcc-O2 "$src/st-outlier.c"
gcc -O2 -g -shared -fPIC $small -o dso-gcc-O2.so "$src/rt-dso.c"
# cut inside the section contents, and inside the section headers
head -c 6000 nests-gcc-O2 >nests-gcc-O2-cut6000
size=$(wc -c <inline-gcc-O2)
head -c $((size - 300)) inline-gcc-O2 >inline-gcc-O2-cut-shdrs

chmod 644 ./*

# Inputs that showed bugs, each fixed (tests in t2001):
#   found-pltgot-over-text   the fuzzer's crash input, a mutated
#                            nests-gcc-O2-split whose .plt.got grew to 0x800
#                            bytes over .text: a PLT "procedure" in no
#                            section (-minimize_crash found nothing smaller)
#   found-latin1-symbol      nests-gcc-O2 with the symbol nest4 renamed
#                            "ne\351t4" (Latin-1) by hand: the structure
#                            file was not UTF-8, libxml2 refused it (the
#                            harness's well-formedness check catches it)
