#!/bin/bash
# convert --from with and without the .rpz index: the time to slice the last 1 % of a 1M-op trace.
# usage: bench/slice_bench.sh [BUILD_DIR]   (default: build)
# The trace: 1,000,002 ops (open, read, close on 333,334 handles, 8 clients, 5,000 paths) over 10 s,
# in 16 frames.  "Without" is the same file with its index cut off (the last 10 bytes), which the
# reader takes for a cut file and decodes from the start.  Best of 5, CPU time (user + sys) and wall.
set -euo pipefail
build=${1:-build}
reprise=$build/cli/reprise
[ -x "$reprise" ] || { echo "slice_bench: $reprise not built" >&2; exit 2; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
awk 'BEGIN { for (i = 0; i < 1000002; i += 3) { t = i * 10000; f = i / 3;
	printf "%d.%09d %d.%09d c%d open path=\"/d/%d/f%d\" fh=%d -> OK\n", t / 1e9, t % 1e9, t / 1e9, t % 1e9 + 1000, f % 8, f % 100, f % 5000, f + 1;
	t += 10000; printf "%d.%09d %d.%09d c%d read fh=%d off=0 len=4096 ret=4096 -> OK\n", t / 1e9, t % 1e9, t / 1e9, t % 1e9 + 1000, f % 8, f + 1;
	t += 10000; printf "%d.%09d %d.%09d c%d close fh=%d -> OK\n", t / 1e9, t % 1e9, t / 1e9, t % 1e9 + 1000, f % 8, f + 1 } }' >"$tmp/m.txt"
"$reprise" convert -q "$tmp/m.txt" "$tmp/m.rpz"
head -c $(($(stat -c %s "$tmp/m.rpz") - 10)) "$tmp/m.rpz" >"$tmp/noindex.rpz"
best() { # file -> "cpu wall" of the best of 5
	local bc= bw= out c w
	for _ in 1 2 3 4 5; do
		out=$( { TIMEFORMAT='%U %S %R'; time "$reprise" convert -q "$1" --from 9.9 "$tmp/s.rpz" >/dev/null 2>&1; } 2>&1 )
		c=$(awk '{ print $1 + $2 }' <<<"$out")
		w=$(awk '{ print $3 }' <<<"$out")
		if [ -z "$bc" ] || awk -v a="$c" -v b="$bc" 'BEGIN { exit !(a < b) }'; then bc=$c; fi
		if [ -z "$bw" ] || awk -v a="$w" -v b="$bw" 'BEGIN { exit !(a < b) }'; then bw=$w; fi
	done
	echo "$bc $bw"
}
"$reprise" convert "$tmp/m.rpz" --from 9.9 "$tmp/s.rpz" 2>&1 | sed 's/^/# /'
echo "| input | CPU s | wall s |"
echo "|---|---:|---:|"
read -r c w <<<"$(best "$tmp/m.rpz")"
echo "| with the index (seeks to frame 15 of 16) | $c | $w |"
read -r c w <<<"$(best "$tmp/noindex.rpz")"
echo "| without (decodes all 1,000,002 ops) | $c | $w |"
