#!/usr/bin/env bash
# tools/wrap-long-lines.sh: re-wraps only the C lines over 100 columns with clang-format; counts them.
#
#   tools/wrap-long-lines.sh [FILE...]          re-wrap the long lines in place, then print the count
#   tools/wrap-long-lines.sh --count [FILE...]  print how many lines are over 100 columns
#   tools/wrap-long-lines.sh --list [FILE...]   print FILE:LINE:COLUMNS for each of them
#
# FILEs default to every tracked .c and .h (git ls-files): the project's own code, tests, fuzz
# targets and benches alike; nothing in the tree is vendored. A tab counts to the next multiple of
# 8 and a UTF-8 character as one column, as .editorconfig says. clang-format (14 or later) is given
# --lines for the long lines only, so the rest of a file, hand-formatted, stays byte for byte; the
# statement or comment holding a long line is re-wrapped as a whole. The style is the repository's
# .clang-format. What stays long is what clang-format will not split: string literals (so a message
# can still be found with grep), long names and URLs in comments; and the preprocessor lines (the
# option tables of cli/pick_opts.c, base/lazylib.h), which are left as they are: clang-format lays
# a macro table out one field a line with every "\" pushed past its longest string, and breaks a
# #define's trailing comment with a "\" inside it.
# A second run changes nothing.
set -eu
cd "$(dirname "$0")/.."
max=${WP_MAX_COLUMNS:-100}
mode=wrap
case ${1:-} in
--count) mode=count; shift ;;
--list) mode=list; shift ;;
-h | --help) sed -n '2,6p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
-*) echo "wrap-long-lines: unknown option '$1' (use --count, --list or none)" >&2; exit 2 ;;
esac
if [ $# -eq 0 ]; then
	mapfile -t files < <(git ls-files '*.c' '*.h')
else
	files=("$@")
fi

# FILE:LINE:COLUMNS for each line over $max columns; with WP_SKIP_MACROS=1, not the preprocessor
# lines and their "\" continuations (they are not re-wrapped).
long_lines() {
	perl -CSD -e '
		my ($max, $skip) = (shift, shift);
		for my $f (@ARGV) {
			open(my $fh, "<:encoding(UTF-8)", $f) or die "wrap-long-lines: cannot read $f: $!\n";
			my $cont = 0;
			while (my $l = <$fh>) {
				$l =~ s/\r?\n\z//;
				my $in_macro = $cont || $l =~ /\\\z/ || $l =~ /^\s*#/;
				$cont = $l =~ /\\\z/;
				next if $skip && $in_macro;
				my $c = 0;
				for my $ch (split //, $l) { $c += $ch eq "\t" ? 8 - $c % 8 : 1; }
				print "$f:$.:$c\n" if $c > $max;
			}
			close $fh;
		}' "$max" "${WP_SKIP_MACROS:-0}" "$@"
}

case $mode in
count) long_lines "${files[@]}" | wc -l; exit 0 ;;
list) long_lines "${files[@]}"; exit 0 ;;
esac

# Two things clang-format does that the tree never does, undone ($1: the file before clang-format,
# $2: after; a shape the file had before is left alone):
# - a comment that ends just past the limit is broken before its "*/", leaving " */" alone on a
#   line: the last word moves down to it;
# - a table typed inline, "static const struct { const char *a; int b; } rows[] = {", gets its
#   "} rows[] = {" put on a line of its own when a row of it is re-wrapped: joined back when the
#   line fits.
fix_up() {
	perl -e '
		my ($orig, $f) = @ARGV;
		sub cols { my $c = 0; $c += $_ eq "\t" ? 8 - $c % 8 : 1 for split //, $_[0]; $c }
		open(my $fh, "<:encoding(UTF-8)", $orig) or die "$orig: $!\n"; my @o = <$fh>; close $fh;
		my %had; for my $i (1 .. $#o) { $had{$o[$i - 1] . $o[$i]} = 1; }
		open($fh, "<:encoding(UTF-8)", $f) or die "$f: $!\n"; my @l = <$fh>; close $fh;
		my $n = 0;
		for (my $i = 1; $i <= $#l; $i++) {
			next if $had{$l[$i - 1] . $l[$i]};
			if ($l[$i] =~ /^\s* \*\/\n\z/ && $l[$i - 1] =~ /^(\s*(?:\/\*| \*) .*\S) (\S+)\n\z/) {
				my ($head, $word) = ($1, $2);
				$l[$i - 1] = "$head\n";
				$l[$i] =~ s/\*\//* $word *\//;
				$n++;
			} elsif ($l[$i] =~ /^\s*(\} \w+(?:\[\w*\])* = \{\n)\z/ && $l[$i - 1] =~ /^(\s*(?:\w+ )*struct \{ .*;)\n\z/) {
				my $joined = "$1 $l[$i]"; $joined =~ s/^(.*;) \s*/$1 /;
				next if cols($joined =~ s/\n\z//r) > 100;
				splice @l, $i - 1, 2, $joined;
				$i--;
				$n++;
			}
		}
		exit 0 unless $n;
		open($fh, ">:encoding(UTF-8)", $f) or die "$f: $!\n"; print $fh @l; close $fh or die "$f: $!\n";' "$1" "$2"
}

cf=${CLANG_FORMAT:-clang-format}
command -v "$cf" >/dev/null || { echo "wrap-long-lines: $cf not found (apt install clang-format)" >&2; exit 2; }
[ -f .clang-format ] || { echo "wrap-long-lines: no .clang-format at the repository root" >&2; exit 2; }
# One clang-format run per file, with a --lines range for each run of adjacent long lines. A
# statement re-wrapped but still long (a string literal) may settle only on the next pass, which
# sees it as a new range: passes repeat until one changes nothing, so a second run does nothing.
wrap_pass() {
WP_SKIP_MACROS=1 long_lines "${files[@]}" | perl -ne '
	my ($f, $n) = /^(.*):(\d+):\d+$/ or next;
	if (defined $cur && $f eq $cur && $n == $e + 1) { $e = $n; next; }
	print "$cur\t$b:$e\n" if defined $cur;
	($cur, $b, $e) = ($f, $n, $n);
	END { print "$cur\t$b:$e\n" if defined $cur }' |
	perl -ne 'chomp; my ($f, $r) = split /\t/; push @{$r{$f}}, $r; push @o, $f unless $s{$f}++;
		END { print join("\t", $_, @{$r{$_}}), "\n" for @o }' |
	while IFS=$'\t' read -r f ranges; do
		args=()
		for r in $ranges; do args+=("--lines=$r"); done
		cp "$f" "$tmp"
		"$cf" -i --style=file "${args[@]}" "$f"
		fix_up "$tmp" "$f"
		cmp -s "$tmp" "$f" || echo "$f"
	done
}
tmp=$(mktemp)
trap 'rm -f "$tmp"' EXIT
for pass in 1 2 3 4 5; do
	changed=$(wrap_pass | wc -l)
	[ "$changed" -eq 0 ] && break
done
long_lines "${files[@]}" | wc -l
