#!/bin/bash
# The .rpz pattern layer (issue 28, docs/rpz-format.md §4.4): sizes of one pass of a loadfile, the
# same trace repeated PASSES times, and 64 lockstep clients of it (--scale-space 64 --lockstep:
# paths under /client<k>, which §4.5 codes as shifted repeats of copy 0), as .rpz 2.1, .rpz --no-patterns (the 2.0 layout), and the loadfile text
# under zstd -19 and xz -9 (SKIP_TEXT=1 leaves the slow text compressors out); then decode and
# encode speed of the pattern file (with the reading, and the writer alone), pinned to CPU 0, CPU time.
# usage: bench/rpz_pattern_bench.sh [BUILD_DIR] [LOADFILE]   (a release build: meson setup rel --buildtype=release)
set -euo pipefail
build=${1:-rel}
in=${2:-/usr/share/dbench/client.txt}
passes=${PASSES:-10}
R=$build/cli/reprise
codec=$build/bench/rpz-codec
for x in "$R" "$codec"; do [ -x "$x" ] || { echo "rpz_pattern_bench: $x not built" >&2; exit 2; }; done
[ -r "$in" ] || { echo "rpz_pattern_bench: $in not readable" >&2; exit 2; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
size() { stat -c %s "$1"; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN {printf "%.3f", a / b}'; }

"$R" convert -q "$in" "$tmp/one.rpz"
"$R" convert -q --no-patterns "$in" "$tmp/one-plain.rpz"
"$codec" encode "$tmp/one.rpz" "$tmp/many.rpz" 0 0 "$passes" >/dev/null
"$R" convert -q --no-patterns "$tmp/many.rpz" "$tmp/many-plain.rpz"
"$R" convert -q --scale-space 64 --lockstep "$tmp/one.rpz" "$tmp/c64.rpz"
"$R" convert -q --no-patterns "$tmp/c64.rpz" "$tmp/c64-plain.rpz"
# the round trip: the same text as the plain files'
for k in one many c64; do
	cmp -s <("$R" cat "$tmp/$k.rpz") <("$R" cat "$tmp/$k-plain.rpz") || { echo "rpz_pattern_bench: $k: cat differs" >&2; exit 1; }
done
printf '%-22s %12s %12s %12s %12s\n' "" ".rpz 2.1" "--no-patt." "zstd -19" "xz -9"
for k in one many c64; do
	z=-; x=-
	if [ -z "${SKIP_TEXT:-}" ] && [ "$k" != c64 ]; then
		"$R" convert -q "$tmp/$k.rpz" "$tmp/$k.txt"
		z=$(nice zstd -q -19 -c "$tmp/$k.txt" | wc -c)
		x=$(nice xz -9 -c "$tmp/$k.txt" | wc -c)
		rm -f "$tmp/$k.txt"
	fi
	printf '%-22s %12s %12s %12s %12s\n' "$k" "$(size "$tmp/$k.rpz")" "$(size "$tmp/$k-plain.rpz")" "$z" "$x"
done
echo "$passes passes / one pass: .rpz 2.1 $(ratio "$(size "$tmp/many.rpz")" "$(size "$tmp/one.rpz")") (target <= 1.1), --no-patterns $(ratio "$(size "$tmp/many-plain.rpz")" "$(size "$tmp/one-plain.rpz")")"
echo "64 clients / one: .rpz 2.1 $(ratio "$(size "$tmp/c64.rpz")" "$(size "$tmp/one.rpz")") (shifted repeats and derived strings, rpz-format §4.5; target <= 1.2), --no-patterns $(ratio "$(size "$tmp/c64-plain.rpz")" "$(size "$tmp/one-plain.rpz")")"
for k in one many; do
	for f in "$k" "$k-plain"; do
		echo "decode $f: $(taskset -c 0 "$codec" decode "$tmp/$f.rpz" 5 | awk '/^mops_per_cpu_s/ {print $2}') M ops/s (CPU)"
	done
done
ops=$(taskset -c 0 "$codec" decode "$tmp/many.rpz" 1 | awk '/^ops/ {print $2}')
for f in many many-plain; do
	c0=$( { TIMEFORMAT='%U %S'; time taskset -c 0 "$codec" encode "$tmp/$f.rpz" "$tmp/re.rpz" >/dev/null; } 2>&1 | awk '{print $1 + $2}')
	echo "decode + encode $f ($ops ops): $(awk -v n="$ops" -v c="$c0" 'BEGIN {printf "%.1f", n / c / 1e6}') M ops/s (CPU)"
done
# the writer alone: the ops decoded to memory first, only the encode timed (best of 3, CPU)
for p in 1 "$passes"; do
	echo "encode alone, $p pass(es): $(taskset -c 0 "$codec" encode-mem "$tmp/one.rpz" "$tmp/re.rpz" "$p" 3 | awk '/^mops_per_cpu_s/ {print $2}') M ops/s (CPU)"
done
