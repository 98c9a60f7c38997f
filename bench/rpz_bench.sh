#!/bin/sh
# .rpz size and speed against zstd -19 and gzip -9 of the same loadfile text, side by side in one run.
# usage: bench/rpz_bench.sh [BUILD_DIR] [LOADFILE]   (defaults: build, /usr/share/dbench/client.txt)
# Everything timed runs pinned to CPU 0 (taskset -c 0), one thread.
set -eu
build=${1:-build}
in=${2:-/usr/share/dbench/client.txt}
codec=$build/bench/rpz-codec
[ -x "$codec" ] || { echo "rpz_bench: $codec not built (ninja -C $build bench/rpz-codec)" >&2; exit 2; }
[ -r "$in" ] || { echo "rpz_bench: $in not readable (apt-get install dbench)" >&2; exit 2; }
for t in zstd gzip taskset; do
	command -v $t >/dev/null || { echo "rpz_bench: $t missing" >&2; exit 2; }
done
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
pin="taskset -c 0"

# seconds of wall time for a command (best of $1 runs)
best() {
	n=$1; shift
	b=
	i=0
	while [ $i -lt "$n" ]; do
		s=$(date +%s.%N)
		"$@" >/dev/null
		e=$(date +%s.%N)
		d=$(awk -v s="$s" -v e="$e" 'BEGIN {print e - s}')
		if [ -z "$b" ] || awk -v d="$d" -v b="$b" 'BEGIN {exit !(d < b)}'; then b=$d; fi
		i=$((i + 1))
	done
	printf '%.3f' "$b"
}

size() { stat -c %s "$1"; }

echo "input: $in ($(size "$in") bytes)"
enc_rpz=$(best 3 $pin "$codec" encode "$in" "$tmp/t.rpz")
enc_zstd=$(best 1 sh -c "$pin zstd -q -19 -c '$in' > '$tmp/t.zst'")
enc_gzip=$(best 1 sh -c "$pin gzip -9 -c '$in' > '$tmp/t.gz'")
dec=$($pin "$codec" decode "$tmp/t.rpz" 5)
dec_rpz=$(echo "$dec" | awk '/^decode_s/ {print $2}')
ops=$(echo "$dec" | awk '/^ops/ {print $2}')
mops=$(echo "$dec" | awk '/^mops_per_s/ {print $2}')
mops_cpu=$(echo "$dec" | awk '/^mops_per_cpu_s/ {print $2}')
dec_zstd=$(best 5 sh -c "$pin zstd -q -d -c '$tmp/t.zst' > /dev/null")
dec_gzip=$(best 5 sh -c "$pin gzip -d -c '$tmp/t.gz' > /dev/null")
s_rpz=$(size "$tmp/t.rpz"); s_zstd=$(size "$tmp/t.zst"); s_gzip=$(size "$tmp/t.gz"); s_txt=$(size "$in")

ratio() { awk -v a="$1" -v b="$2" 'BEGIN {printf "%.3f", a / b}'; }
printf '%-22s %12s %10s %10s\n' "" ".rpz" "zstd -19" "gzip -9"
printf '%-22s %12s %10s %10s\n' "size (bytes)" "$s_rpz" "$s_zstd" "$s_gzip"
printf '%-22s %12s %10s %10s\n' "bytes per op" "$(ratio "$s_rpz" "$ops")" "$(ratio "$s_zstd" "$ops")" "$(ratio "$s_gzip" "$ops")"
printf '%-22s %12s %10s %10s\n' "encode (s, 1 core)" "$enc_rpz" "$enc_zstd" "$enc_gzip"
printf '%-22s %12s %10s %10s\n' "decode (s, 1 core)" "$dec_rpz" "$dec_zstd" "$dec_gzip"
echo "ops: $ops; .rpz decode on one core: $mops M ops/s wall, $mops_cpu M ops/s of CPU time (target >= 20)"
echo "load average while measuring: $(cut -d' ' -f1-3 /proc/loadavg) on $(nproc) CPUs (wall times suffer when it exceeds 1)"
echo "size .rpz / zstd -19: $(ratio "$s_rpz" "$s_zstd") (target <= 0.5); .rpz / gzip -9: $(ratio "$s_rpz" "$s_gzip"); text / .rpz: $(ratio "$s_txt" "$s_rpz")"
echo "encode .rpz / zstd -19: $(ratio "$enc_rpz" "$enc_zstd"); decode .rpz / zstd -d: $(ratio "$dec_rpz" "$dec_zstd")"
# the .rpz must hold the same ops: decode count equals the loadfile's op lines
[ "$ops" -gt 0 ] || { echo "rpz_bench: no ops decoded" >&2; exit 1; }
