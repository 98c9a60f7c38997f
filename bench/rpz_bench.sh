#!/bin/bash
# .rpz size and speed against zstd -19 and gzip -9 of the same loadfile text, side by side in one run.
# usage: bench/rpz_bench.sh [BUILD_DIR] [LOADFILE]   (defaults: build, /usr/share/dbench/client.txt)
# Everything timed runs pinned to CPU 0 (taskset -c 0), one thread.  Times are given as wall
# time and as CPU time (user + sys): on a shared machine only the CPU time is comparable.
set -euo pipefail
build=${1:-build}
in=${2:-/usr/share/dbench/client.txt}
codec=$build/bench/rpz-codec
[ -x "$codec" ] || { echo "rpz_bench: $codec not built (ninja -C $build bench/rpz-codec)" >&2; exit 2; }
[ -r "$in" ] || { echo "rpz_bench: $in not readable (apt-get install dbench)" >&2; exit 2; }
for t in zstd gzip taskset awk; do
	command -v $t >/dev/null || { echo "rpz_bench: $t missing" >&2; exit 2; }
done
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
pin=(taskset -c 0)

# best of $1 runs of a shell command line: prints "wall cpu" in seconds
best() {
	local n=$1 cmd=$2 bw= bc= out w c
	for ((i = 0; i < n; i++)); do
		out=$( { TIMEFORMAT='%R %U %S'; time sh -c "$cmd" >/dev/null 2>&1; } 2>&1 )
		w=$(awk '{print $1}' <<<"$out")
		c=$(awk '{print $2 + $3}' <<<"$out")
		if [ -z "$bw" ] || awk -v a="$w" -v b="$bw" 'BEGIN {exit !(a < b)}'; then bw=$w; fi
		if [ -z "$bc" ] || awk -v a="$c" -v b="$bc" 'BEGIN {exit !(a < b)}'; then bc=$c; fi
	done
	echo "$bw $bc"
}
ratio() { awk -v a="$1" -v b="$2" 'BEGIN {printf "%.3f", a / b}'; }
size() { stat -c %s "$1"; }
w() { awk '{print $1}' <<<"$1"; }
c() { awk '{print $2}' <<<"$1"; }

p="${pin[*]}"
echo "input: $in ($(size "$in") bytes)"
enc_rpz=$(best 3 "$p '$codec' encode '$in' '$tmp/t.rpz'")
enc_zstd=$(best 1 "$p zstd -q -19 -c '$in' > '$tmp/t.zst'")
enc_gzip=$(best 1 "$p gzip -9 -c '$in' > '$tmp/t.gz'")
dec_rpz=$(best 5 "$p '$codec' decode '$tmp/t.rpz' 1")
dec_zstd=$(best 5 "$p zstd -q -d -c '$tmp/t.zst'")
dec_gzip=$(best 5 "$p gzip -d -c '$tmp/t.gz'")
inner=$("${pin[@]}" "$codec" decode "$tmp/t.rpz" 10)
ops=$(awk '/^ops/ {print $2}' <<<"$inner")
# memory: the same trace repeated PASSES times (default 20: 9.2 M ops) must read in the same memory
passes=${RPZ_BENCH_PASSES:-20}
"$codec" encode "$tmp/t.rpz" "$tmp/long.rpz" 0 0 "$passes" >/dev/null
long=$("${pin[@]}" "$codec" decode "$tmp/long.rpz" 1)
s_rpz=$(size "$tmp/t.rpz"); s_zstd=$(size "$tmp/t.zst"); s_gzip=$(size "$tmp/t.gz"); s_txt=$(size "$in")

printf '%-26s %12s %12s %12s\n' "" ".rpz" "zstd -19" "gzip -9"
printf '%-26s %12s %12s %12s\n' "size (bytes)" "$s_rpz" "$s_zstd" "$s_gzip"
printf '%-26s %12s %12s %12s\n' "bytes per op" "$(ratio "$s_rpz" "$ops")" "$(ratio "$s_zstd" "$ops")" "$(ratio "$s_gzip" "$ops")"
printf '%-26s %12s %12s %12s\n' "encode, CPU s (wall s)" "$(c "$enc_rpz") ($(w "$enc_rpz"))" "$(c "$enc_zstd") ($(w "$enc_zstd"))" "$(c "$enc_gzip") ($(w "$enc_gzip"))"
printf '%-26s %12s %12s %12s\n' "decode, CPU s (wall s)" "$(c "$dec_rpz") ($(w "$dec_rpz"))" "$(c "$dec_zstd") ($(w "$dec_zstd"))" "$(c "$dec_gzip") ($(w "$dec_gzip"))"
echo "ops: $ops"
echo ".rpz decode loop alone (open to last op, best of 10, one core): $(awk '/^mops_per_cpu_s/ {print $2}' <<<"$inner") M ops/s of CPU time, $(awk '/^mops_per_s/ {print $2}' <<<"$inner") M ops/s wall (target >= 20)"
echo "size  .rpz / zstd -19: $(ratio "$s_rpz" "$s_zstd") (target <= 0.5);  .rpz / gzip -9: $(ratio "$s_rpz" "$s_gzip");  text / .rpz: $(ratio "$s_txt" "$s_rpz")"
echo "CPU   encode .rpz / zstd -19: $(ratio "$(c "$enc_rpz")" "$(c "$enc_zstd")");  decode .rpz / zstd -d: $(ratio "$(c "$dec_rpz")" "$(c "$dec_zstd")")  (process times: exec and open included)"
echo "memory: peak RSS reading $ops ops: $(awk '/^peak_rss_kb/ {print $2}' <<<"$inner") KiB; reading $(awk '/^ops/ {print $2}' <<<"$long") ops ($passes passes, $(size "$tmp/long.rpz") bytes): $(awk '/^peak_rss_kb/ {print $2}' <<<"$long") KiB"
echo "load average: $(cut -d' ' -f1-3 /proc/loadavg) on $(nproc) CPUs (wall times are unreliable when it exceeds the CPU count)"
[ "$ops" -gt 0 ] || { echo "rpz_bench: no ops decoded" >&2; exit 1; }
