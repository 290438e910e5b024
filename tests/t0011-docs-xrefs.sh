#!/bin/sh
test_description='cross-references in comments and docs name what exists; commit subjects are short'
. "$(dirname "$0")/test-lib.sh"

# Comments and docs point at each other's design notes in three forms:
#
#   invariants   "sync.h, invariant 2", "(cct.h invariant 4)",
#                "invariants 1, 2 and 4 of sharing.h", "invariant R1",
#                "`cct.h`, invariant 3" (Markdown);
#                without a file name the invariant is the referring file's
#   sections     "source-perf.c, THE RING", "(THE PRIVATE TABLE)": a design
#                note's section, whose heading opens a comment line
#                ("THE RING.  A signal per sample costs ..."); without a
#                file name, a section of the referring file
#   man pages    "hpcstruct(5), INSTRUCTION MIX": a .SH or .SS heading of
#                man/hpcstruct.5
#
# A file is found by its base name (or by a path's tail) anywhere in the
# tree; of several, the one in the referring file's directory, else any
# that has what is named.  An invariant exists when a numbered item "N."
# follows the word "Invariants" in the same comment block (in a C file) or
# before the next heading (elsewhere).  A reference may be broken across
# two comment lines.  Each broken one is printed as FILE:LINE: what.

cat >xrefs.pl <<\EOF
use strict;
use warnings;
use File::Find;
use File::Basename;

my ($root, $kind) = @ARGV;
chdir $root or die "xrefs: '$root': $!\n";

my @files;
my %by_base;
find({ no_chdir => 1, wanted => sub {
	my $p = $File::Find::name;
	$p =~ s{^\./}{};
	if (-d $_) {
		$File::Find::prune = 1
			if $p =~ m{(^|/)(\.git|build[^/]*|data|corpus-[^/]*|regress)$};
		return;
	}
	return unless $p =~ m{\.(c|h|sh|md|awk|map|[15])$} || $p =~ m{(^|/)Makefile$};
	push @{$by_base{basename($p)}}, $p;
	push @files, $p if ($p =~ m{^(hpcrun|hpcprof|hpcstruct|hpcviewer-tui|lib|docs|man|tests)/}
		|| $p eq 'README.md') && $p !~ m{t0011-docs-xrefs\.sh$};
} }, '.');

my %cache;
sub slurp {
	my ($p) = @_;
	return $cache{$p} if $cache{$p};
	open(my $fh, '<', $p) or return $cache{$p} = [];
	my @l = <$fh>;
	close $fh;
	chomp @l;
	return $cache{$p} = \@l;
}

# A line without its comment markers and roff fonts.
sub clean {
	my ($s) = @_;
	$s =~ s/\\f[BIRP]//g;
	$s =~ s/\\-/-/g;
	$s =~ s{^\s*(/\*+|\*+(?!/)|//+|#+)\s?}{};
	$s =~ s{\s*\*/\s*$}{};
	return $s;
}

my (%inv, %sect);
# Invariant labels ("3", "R1") and section headings ("THE RING") of p.
sub parse {
	my ($p) = @_;
	return if $inv{$p};
	my (%i, %s);
	my $c = $p =~ /\.[ch]$/;
	my ($in_comment, $collect) = (0, 0);
	for my $raw (@{slurp($p)}) {
		my $starts = $raw =~ m{/\*};
		$in_comment = 1 if $starts;
		my $l = clean($raw);
		if ($c) {
			$collect = 1 if $in_comment && $l =~ /\binvariants\b/i;
		} else {
			$collect = 0 if $raw =~ /^(#{1,6} |\.S[HS] )/ && $raw !~ /invariants/i;
			$collect = 1 if $l =~ /\binvariants\b/i;
		}
		$i{$1} = 1 if $collect && $l =~ /^\s*(?:[-*]\s*)?([A-Z]?\d+)\.\s/;
		$s{$1} = 1 if ($in_comment || !$c)
			&& $l =~ /^\s*(THE(?:\s+[A-Z][A-Z0-9'-]+)+)(?:[.:(]|\s*$|\s+\()/;
		if ($c && $raw =~ m{\*/}) {
			$in_comment = 0;
			$collect = 0;
		}
	}
	$inv{$p} = \%i;
	$sect{$p} = \%s;
}

# The files a reference from p without a file name means: p, and for a
# .c file its module's header beside it (which holds the invariants).
sub here {
	my ($p) = @_;
	(my $h = $p) =~ s/\.c$/.h/;
	return $h ne $p && -f $h ? ($p, $h) : ($p);
}

# The files a reference from p to name may mean.
sub candidates {
	my ($from, $name) = @_;
	my @c = grep { $_ eq $name || $_ =~ m{/\Q$name\E$} }
		@{$by_base{basename($name)} || []};
	my @here = grep { dirname($_) eq dirname($from) } @c;
	return @here ? @here : @c;
}

my $F = qr{[A-Za-z0-9_][A-Za-z0-9_./-]*\.(?:c|h|sh|md|awk|map)\b};
my $N = qr{[A-Z]?\d+\b};
my $LIST = qr{$N(?:(?:\s*,\s*(?:and\s+)?|\s+and\s+)$N)*};
my $THE = qr{THE(?:\s+[A-Z][A-Z0-9'-]+)+\b};

my ($checked, @broken) = (0);
sub report {
	my ($p, $n, $what) = @_;
	push @broken, "$p:$n: $what";
}

sub check_inv {
	my ($p, $n, $file, $list) = @_;
	my @c = defined $file ? candidates($p, $file) : here($p);
	my $named = defined $file ? $file : basename($p);
	unless (@c) {
		report($p, $n, "$file: no such file");
		return;
	}
	for my $k (split /\s*,\s*(?:and\s+)?|\s+and\s+/, $list) {
		$checked++;
		my $ok = 0;
		for (@c) { parse($_); $ok = 1 if $inv{$_}{$k}; }
		report($p, $n, "$named has no invariant $k") unless $ok;
	}
}

sub check_sect {
	my ($p, $n, $file, $name) = @_;
	$name =~ s/\s+/ /g;
	my @c = defined $file ? candidates($p, $file) : here($p);
	my $named = defined $file ? $file : basename($p);
	unless (@c) {
		report($p, $n, "$file: no such file");
		return;
	}
	$checked++;
	my $ok = 0;
	for (@c) { parse($_); $ok = 1 if $sect{$_}{$name}; }
	report($p, $n, "$named has no section $name") unless $ok;
}

sub check_man {
	my ($p, $n, $page, $sec, $name) = @_;
	my $m = "man/$page.$sec";
	$checked++;
	unless (-f $m) {
		report($p, $n, "$page($sec): no such man page");
		return;
	}
	my $ok = grep { /^\.S[HS]\s/ && uc(clean($_)) =~ /^\.S[HS]\s+"?\Q$name\E\b/ }
		@{slurp($m)};
	report($p, $n, "$page($sec) has no section $name") unless $ok;
}

for my $p (sort @files) {
	my @l = map { clean($_) } @{slurp($p)};
	my $c = $p =~ /\.[ch]$/;
	for my $i (0 .. $#l) {
		# line i with its neighbours, the matches that start on it
		my $prev = $i > 0 ? $l[$i - 1] . ' ' : '';
		my $text = $prev . $l[$i] . ($i < $#l ? ' ' . $l[$i + 1] : '');
		my ($lo, $hi) = (length $prev, length($prev) + length $l[$i]);
		my $n = $i + 1;
		while ($text =~ m{
			  (?<file>$F)`?,?\s+[Ii]nvariants?\s+(?<list>$LIST)
			| [Ii]nvariants?\s+(?<list>$LIST)\s+of\s+`?(?<file>$F)
			| [Ii]nvariants?\s+(?<list>$LIST)
			| (?<file>$F)`?,\s+(?<sect>$THE)
			| (?<page>[a-z][a-z-]*)\((?<sec>[15])\),\s+(?<mansect>[A-Z][A-Z-]+(?:\s+[A-Z][A-Z-]+)*)\b
			| (?<=\(|\s)(?<sect>$THE)(?=[),]|\s+says)
		}gx) {
			my $at = $-[0];
			next if $at < $lo || $at >= $hi;
			my %m = %+;
			if (defined $m{list}) {
				next if $kind ne 'invariants';
				check_inv($p, $n, $m{file}, $m{list});
			} elsif (defined $m{sect}) {
				next if $kind ne 'sections';
				check_sect($p, $n, $m{file}, $m{sect});
			} elsif (defined $m{page}) {
				next if $kind ne 'man';
				check_man($p, $n, $m{page}, $m{sec}, $m{mansect});
			}
		}
	}
}
print "$_\n" for @broken;
print STDERR "xrefs: $checked $kind references, ", scalar(@broken), " broken\n";
EOF

# check KIND ROOT: the broken references of KIND in the tree at ROOT, on
# stdout; the count checked on stderr.
check() {
	perl xrefs.pl "$2" "$1"
}

test_expect_success 'the checker finds good and broken references of each form' '
	rm -rf tree && mkdir -p tree/lib tree/docs tree/man tree/tests &&
	cat >tree/lib/a.h <<-\END &&
	/*
	 * a.h - a module.
	 *
	 * Invariants:
	 *  1. One.
	 *  2. Two.
	 *
	 * THE RING.  A section, and one with a list:
	 *  R1. An item.
	 * Invariants of the ring:
	 *  R2. Another.
	 */
	/* fine: invariants 1 and 2, invariant 3 */
	END
	cat >tree/lib/b.c <<-\END &&
	/* b.c: (a.h, invariant 2), a.h invariants 1, 2 and 3, invariant 1 of
	 * a.h, (a.h,
	 * invariant R2), (`a.h`, invariant 1), (a.h, THE RING), a.h, THE
	 * RINGS, (THE RING), nosuch.h, invariant 1, hpcx(5), FILE FORMAT. */
	END
	printf "%s\n" "/* a.c: its header has invariant 2 (invariant 2), not 9 (invariant 9). */" >tree/lib/a.c &&
	cat >tree/man/hpcx.5 <<-\END &&
	.SH NAME
	.SS File format (\-\-x)
	END
	printf "%s\n" "See hpcx(5), FILE FORMAT and hpcx(5), FILE, hpcx(5), NO SUCH, hpcy(1), NAME." >tree/docs/X.md &&
	check invariants tree >inv &&
	check sections tree >sect &&
	check man tree >man &&
	cat >expect <<-\END &&
	lib/a.c:1: a.c has no invariant 9
	lib/a.h:13: a.h has no invariant 3
	lib/b.c:1: a.h has no invariant 3
	lib/b.c:4: nosuch.h: no such file
	END
	test_cmp expect inv &&
	cat >expect <<-\END &&
	lib/b.c:3: a.h has no section THE RINGS
	lib/b.c:4: b.c has no section THE RING
	END
	test_cmp expect sect &&
	cat >expect <<-\END &&
	docs/X.md:1: hpcx(5) has no section NO SUCH
	docs/X.md:1: hpcy(1): no such man page
	END
	test_cmp expect man
'

test_expect_success 'every "FILE, invariant N" names an invariant of FILE' '
	check invariants "$SRC_ROOT" >broken 2>count &&
	cat count broken &&
	grep -Eq " ([5-9][0-9]|[1-9][0-9][0-9]+) invariants references" count &&
	test_line_count = 0 broken
'

test_expect_success 'every "FILE, THE NAME" names a section of FILE' '
	check sections "$SRC_ROOT" >broken 2>count &&
	cat count broken &&
	grep -Eq " [1-9][0-9]* sections references" count &&
	test_line_count = 0 broken
'

test_expect_success 'every "PAGE(5), SECTION" names a section of the man page' '
	check man "$SRC_ROOT" >broken 2>count &&
	cat count broken &&
	grep -Eq " [1-9][0-9]* man references" count &&
	test_line_count = 0 broken
'

# Commit subjects say what changed in at most 72 characters, the why in
# the body (STYLE.md), from the commit that moved the runtime to
# hpcrun/rt/ on; a clone without that history skips.
test_lazy_prereq GIT_HISTORY 'git -C "$SRC_ROOT" cat-file -e 618b44d^{commit}'
test_expect_success GIT_HISTORY 'commit subjects are at most 72 characters' '
	git -C "$SRC_ROOT" log --format=%s 618b44d^..HEAD >subjects &&
	test -s subjects &&
	awk "length > 72" subjects >long &&
	cat long &&
	test_line_count = 0 long
'

test_done
