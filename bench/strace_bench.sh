#!/bin/bash
# strace import speed: `reprise convert -q` of one large strace -f log, by this build and (optionally)
# another reprise binary, runs alternated, pinned to CPU 0; CPU time (user + sys), wall time, peak RSS.
# usage: bench/strace_bench.sh [BUILD_DIR] [OTHER_REPRISE] [LOG]
#   BUILD_DIR      default build (its cli/reprise is timed)
#   OTHER_REPRISE  a reprise binary to compare with (e.g. one built from an older commit), or "" for none
#   LOG            an strace log; default: one recorded here, strace -f -ttt -T -y of
#                  `tar cf - /usr/include | cat > /dev/null` and a cp -r/rm -r of /usr/include/linux
# ROUNDS (default 7) runs of each, alternated; the medians are printed, and their ratio.
set -euo pipefail
build=${1:-build}
other=${2:-}
log=${3:-}
rounds=${ROUNDS:-7}
new=$build/cli/reprise
[ -x "$new" ] || { echo "strace_bench: $new not built (ninja -C $build)" >&2; exit 2; }
[ -z "$other" ] || [ -x "$other" ] || { echo "strace_bench: $other is no executable" >&2; exit 2; }
for t in taskset awk /usr/bin/time; do
	command -v $t >/dev/null || { echo "strace_bench: $t missing" >&2; exit 2; }
done
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
if [ -z "$log" ]; then
	command -v strace >/dev/null || { echo "strace_bench: strace missing (apt-get install strace), or give LOG" >&2; exit 2; }
	log=$tmp/run.strace
	(cd "$tmp" && strace -f -ttt -T -y -o "$log" sh -c \
		'tar cf - /usr/include 2>/dev/null | cat > /dev/null; cp -r /usr/include/linux lx && rm -rf lx')
fi
echo "log: $log ($(wc -l <"$log") lines, $(stat -c %s "$log") bytes)"

# one run: "cpu wall rss_kb"
run() {
	/usr/bin/time -f '%U %S %e %M' -o "$tmp/t" taskset -c 0 "$1" convert -q "$log" "$tmp/out.rpz" >/dev/null 2>&1
	awk '{printf "%.3f %.3f %d\n", $1 + $2, $3, $4}' "$tmp/t"
}
median() { sort -n | awk '{v[NR] = $1} END {print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2}'; }

: >"$tmp/new"
: >"$tmp/old"
for ((i = 0; i < rounds; i++)); do
	run "$new" >>"$tmp/new"
	[ -z "$other" ] || run "$other" >>"$tmp/old"
done
"$new" convert "$log" "$tmp/out.rpz" 2>&1 >/dev/null | cut -c1-100
row() { # name file
	printf '%-14s CPU %6s s  wall %6s s  RSS %7s KB\n' "$1" "$(awk '{print $1}' "$2" | median)" \
		"$(awk '{print $2}' "$2" | median)" "$(awk '{print $3}' "$2" | median)"
}
row "this build" "$tmp/new"
if [ -n "$other" ]; then
	row "other" "$tmp/old"
	echo "CPU ratio this/other: $(awk -v a="$(awk '{print $1}' "$tmp/new" | median)" \
		-v b="$(awk '{print $1}' "$tmp/old" | median)" 'BEGIN {printf "%.2f", a / b}')"
fi
