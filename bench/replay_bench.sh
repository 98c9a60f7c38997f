#!/bin/sh
# Replay benchmarks, side by side in one run on tmpfs (results: docs/BENCHMARKS.md, "## Replay").
#   1. reprise vs Debian's dbench on client.txt, 2 clients, same duration: ops/s and MB/s ratios
#   2. the null backend: engine ops/s on one client (one core)
#   3. trace timing at 10,000 ops/s: issue lag p50/p99/max
#   4. peak RSS replaying 1 M vs 10 M ops (null backend)
# Usage: bench/replay_bench.sh [BUILD_DIR]   (root, for the tmpfs mount; BENCH_T=seconds, default 10)
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$top/build}
reprise=$build/cli/reprise
T=${BENCH_T:-10}
loadfile=/usr/share/dbench/client.txt
[ -x "$reprise" ] || { echo "no $reprise: build first" >&2; exit 1; }
[ -r "$loadfile" ] || { echo "no $loadfile: apt-get install dbench" >&2; exit 1; }
command -v dbench >/dev/null || { echo "no dbench: apt-get install dbench" >&2; exit 1; }
work=$(mktemp -d /tmp/reprise-bench-XXXXXX)
mnt=$work/mnt
mkdir "$mnt"
mount -t tmpfs -o size=4g tmpfs "$mnt"
trap 'umount "$mnt" 2>/dev/null; rm -rf "$work"' EXIT
jq_() { python3 "$top/bench/replay_json.py" "$@"; }

echo "== 1. client.txt, 2 clients, ${T} s (+ $(echo "$T / 5" | bc -l | cut -c1-4) s warm-up), tmpfs =="
mkdir "$mnt/dbench" "$mnt/reprise"
# dbench 4.0: -t is the measured time, its warm-up (t/5) comes first; it prints a per-op count table.
dbench -c "$loadfile" -D "$mnt/dbench" -t "$T" 2 >"$work/dbench.out" 2>&1
rm -rf "$mnt/dbench"
"$reprise" replay "$loadfile" --target "$mnt/reprise" --clients 2 -t "$T" -q --json "$work/reprise.json" >"$work/reprise.out"
rm -rf "$mnt/reprise"
d_ops=$(awk '/^ *Operation/ { t = 1; next } t && /^ *[A-Za-z_]+ +[0-9]+ / { s += $2 } END { print s + 0 }' "$work/dbench.out")
d_mb=$(awk '/^Throughput/ { print $2 }' "$work/dbench.out")
d_ops_s=$(echo "$d_ops / $T" | bc -l)
r_ops_s=$(jq_ "$work/reprise.json" ops_per_sec)
r_mb=$(jq_ "$work/reprise.json" mb_per_sec)
r_mis=$(jq_ "$work/reprise.json" mismatches)
printf "dbench : %10.0f ops/s  %8.2f MB/s\n" "$d_ops_s" "$d_mb"
printf "reprise: %10.0f ops/s  %8.2f MB/s  (%s mismatches)\n" "$r_ops_s" "$r_mb" "$r_mis"
printf "ratio  : %10.2fx ops/s %8.2fx MB/s   (target >= 1.5x)\n" "$(echo "$r_ops_s / $d_ops_s" | bc -l)" \
	"$(echo "$r_mb / $d_mb" | bc -l)"

echo "== 2. null backend, client.txt, 1 client, ${T} s =="
# null always succeeds, so the recorded failures of client.txt are mismatches: skip quietly.
cc -O2 -std=c11 -D_GNU_SOURCE -I"$top" "$top/bench/replay_engine_bench.c" "$build/replay/libreprise-replay.a" \
	"$build/formats/libreprise-formats.a" -lzstd -lpthread -lm -o "$work/engine_bench"
printf "null (ops in memory):   %10.0f ops/s on one client thread (target >= 5 M/s/core)\n" \
	"$("$work/engine_bench" "$loadfile" "$T")"
"$reprise" replay "$loadfile" --target "$mnt" --backend null -t "$T" --warmup 1 -q --on-mismatch skip \
	--json "$work/null.json" >/dev/null
printf "null (loadfile reader): %10.0f ops/s on one client thread\n" "$(jq_ "$work/null.json" ops_per_sec)"
"$reprise" convert "$loadfile" "$work/client.rpz" >/dev/null 2>&1 &&
	"$reprise" replay "$work/client.rpz" --target "$mnt" --backend null -t "$T" --warmup 1 -q --on-mismatch skip \
		--json "$work/null-rpz.json" >/dev/null &&
	printf "null (.rpz reader):     %10.0f ops/s on one client thread\n" "$(jq_ "$work/null-rpz.json" ops_per_sec)"

echo "== 3. trace timing, 10,000 ops/s for ${T} s, posix on tmpfs =="
mkdir "$mnt/trace"
awk -v n="$((T * 10000))" 'BEGIN { print "0 Mkdir \"\\\\d\" NT_STATUS_OK";
	for (i = 1; i <= n; i++) printf "%.6f QUERY_PATH_INFORMATION \"\\\\d\" 1004 NT_STATUS_OK\n", i / 10000 }' \
	>"$work/timed.load"
"$reprise" replay "$work/timed.load" --target "$mnt/trace" --timing trace -q --json "$work/trace.json" >/dev/null
printf "issue lag: p50 %.1f us  p99 %.1f us  max %.1f us  (target p99 <= 20 us, max <= 1 ms)\n" \
	"$(jq_ "$work/trace.json" lag_us.p50)" "$(jq_ "$work/trace.json" lag_us.p99)" "$(jq_ "$work/trace.json" lag_us.max)"
taskset -c 0 "$reprise" replay "$work/timed.load" --target "$mnt/trace" --timing trace -q --json "$work/trace0.json" >/dev/null
printf "pinned to cpu 0: p50 %.1f us  p99 %.1f us  max %.1f us\n" \
	"$(jq_ "$work/trace0.json" lag_us.p50)" "$(jq_ "$work/trace0.json" lag_us.p99)" "$(jq_ "$work/trace0.json" lag_us.max)"

echo "== 4. peak RSS, null backend, one pass over 1 M and 10 M ops =="
for n in 1000000 10000000; do
	awk -v n="$n" 'BEGIN { print "NTCreateX \"\\\\f\" 0x40 0x5 1 NT_STATUS_OK";
		for (i = 0; i < n - 2; i++) printf "ReadX 1 %d 4096 4096 NT_STATUS_OK\n", (i % 1000) * 4096;
		print "Close 1 NT_STATUS_OK" }' >"$work/big.load"
	if "$reprise" convert "$work/big.load" "$work/big.rpz" >/dev/null 2>&1; then in=$work/big.rpz; else in=$work/big.load; fi
	/usr/bin/time -f "%M" -o "$work/rss" "$reprise" replay "$in" --target "$mnt" --backend null -q >/dev/null
	printf "%9d ops (%s): peak RSS %6d KiB\n" "$n" "${in##*.}" "$(cat "$work/rss")"
	rm -f "$work/big.load" "$work/big.rpz"
done
