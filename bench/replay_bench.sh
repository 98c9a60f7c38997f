#!/bin/sh
# Replay benchmarks, side by side in one run on tmpfs (results: docs/BENCHMARKS.md, "## Replay").
#   1. reprise vs Debian's dbench on client.txt, 2 clients, same duration: ops/s and MB/s ratios,
#      ROUNDS alternating rounds (the machine is shared: a ratio per round, and the median), and
#      ops per CPU-second (user+sys of each tool's whole process tree), which load skews far less
#   2. the null backend: engine ops/s on one client thread (ops in memory, loadfile reader, .rpz
#      reader), and, with valgrind, instructions per op of one in-memory pass (clock reads excluded:
#      valgrind runs clock_gettime as a syscall, which it does not count)
#   3. trace timing at 10,000 ops/s: issue lag p50/p99/max, unpinned and pinned to CPU 0, ROUNDS
#      each, with the CPU time the hypervisor stole meanwhile (/proc/stat), each followed by the
#      machine's floor: a loop that only busy-waits to the same deadlines (bench/replay_lag_floor.c)
#   4. peak RSS replaying 1 M vs 10 M ops (null backend)
# Usage: bench/replay_bench.sh [BUILD_DIR]   (root, for the tmpfs mount)
#   BENCH_T=seconds per run (default 10), BENCH_ROUNDS=rounds (default 3)
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$top/build}
reprise=$build/cli/reprise
T=${BENCH_T:-10}
ROUNDS=${BENCH_ROUNDS:-3}
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
load() { cut -d' ' -f1-3 /proc/loadavg; }
steal() { awk '/^cpu / { print $9 }' /proc/stat; }
median() { sort -n | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
cputime() { awk '{ print $1 + $2 }' "$1"; } # a /usr/bin/time -f "%U %S" file

echo "reprise replay benchmarks, $(date -u '+%Y-%m-%d %H:%M UTC'), $(nproc) CPUs, load average $(load)"
echo "== 1. client.txt, 2 clients, ${T} s (+ $(echo "$T / 5" | bc -l | cut -c1-4) s warm-up), tmpfs, $ROUNDS rounds =="
: >"$work/ratios"
: >"$work/cpu_ratios"
for round in $(seq "$ROUNDS"); do
	mkdir "$mnt/dbench" "$mnt/reprise"
	l=$(load)
	# dbench 4.0: -t is the measured time, its warm-up (t/5) comes first; it prints a per-op count table.
	/usr/bin/time -f "%U %S" -o "$work/dbench.time" dbench -c "$loadfile" -D "$mnt/dbench" -t "$T" 2 \
		>"$work/dbench.out" 2>&1
	rm -rf "$mnt/dbench"
	/usr/bin/time -f "%U %S" -o "$work/reprise.time" "$reprise" replay "$loadfile" --target "$mnt/reprise" \
		--clients 2 -t "$T" -q --json "$work/reprise.json" >"$work/reprise.out" 2>&1
	rm -rf "$mnt/reprise"
	d_ops=$(awk '/^ *Operation/ { t = 1; next } t && /^ *[A-Za-z_]+ +[0-9]+ / { s += $2 } END { print s + 0 }' \
		"$work/dbench.out")
	d_mb=$(awk '/^Throughput/ { print $2 }' "$work/dbench.out")
	d_ops_s=$(echo "$d_ops / $T" | bc -l)
	r_ops_s=$(jq_ "$work/reprise.json" ops_per_sec)
	r_mb=$(jq_ "$work/reprise.json" mb_per_sec)
	r_mis=$(jq_ "$work/reprise.json" mismatches)
	r_all=$(echo "$(jq_ "$work/reprise.json" total_ops) + $(jq_ "$work/reprise.json" warmup_ops)" | bc)
	# dbench counts only the measured period; its CPU time covers the warm-up too: scale by 1.2 (t/5).
	d_cpu=$(echo "$d_ops * 1.2 / $(cputime "$work/dbench.time")" | bc -l)
	r_cpu=$(echo "$r_all / $(cputime "$work/reprise.time")" | bc -l)
	ratio=$(echo "$r_ops_s / $d_ops_s" | bc -l)
	cpu_ratio=$(echo "$r_cpu / $d_cpu" | bc -l)
	echo "$ratio" >>"$work/ratios"
	echo "$cpu_ratio" >>"$work/cpu_ratios"
	printf "round %d (load %s)\n" "$round" "$l"
	printf "  dbench : %10.0f ops/s  %8.2f MB/s  %9.0f ops/CPU-s\n" "$d_ops_s" "$d_mb" "$d_cpu"
	printf "  reprise: %10.0f ops/s  %8.2f MB/s  %9.0f ops/CPU-s  (%s mismatches)\n" "$r_ops_s" "$r_mb" "$r_cpu" "$r_mis"
	printf "  ratio  : %10.2fx ops/s %8.2fx MB/s %8.2fx ops/CPU-s\n" "$ratio" "$(echo "$r_mb / $d_mb" | bc -l)" "$cpu_ratio"
done
printf "median ratio over %d rounds: %.2fx ops/s, %.2fx ops/CPU-s   (target >= 1.5x ops/s)\n" "$ROUNDS" \
	"$(median <"$work/ratios")" "$(median <"$work/cpu_ratios")"

echo "== 2. null backend, client.txt, 1 client, ${T} s =="
# null always succeeds, so the recorded failures of client.txt are mismatches: skip quietly.
engine_bench=$build/bench/replay-engine-bench # built by meson: it links what the replay library needs
[ -x "$engine_bench" ] || { echo "no $engine_bench: build first" >&2; exit 1; }
printf "null (ops in memory):   %10.0f ops/s on one client thread (target >= 5 M/s/core)\n" \
	"$("$engine_bench" "$loadfile" "$T")"
"$reprise" replay "$loadfile" --target "$mnt" --backend null -t "$T" --warmup 1 -q --on-mismatch skip \
	--json "$work/null.json" >/dev/null
printf "null (loadfile reader): %10.0f ops/s on one client thread\n" "$(jq_ "$work/null.json" ops_per_sec)"
"$reprise" convert "$loadfile" "$work/client.rpz" >/dev/null 2>&1 &&
	"$reprise" replay "$work/client.rpz" --target "$mnt" --backend null -t "$T" --warmup 1 -q --on-mismatch skip \
		--json "$work/null-rpz.json" >/dev/null &&
	printf "null (.rpz reader):     %10.0f ops/s on one client thread\n" "$(jq_ "$work/null-rpz.json" ops_per_sec)"
if command -v valgrind >/dev/null; then
	n=$(grep -c . "$loadfile")
	valgrind --tool=callgrind --callgrind-out-file="$work/cg.out" --toggle-collect=rp__client_main \
		"$engine_bench" "$loadfile" 0 >/dev/null 2>&1
	ir=$(callgrind_annotate "$work/cg.out" 2>/dev/null | awk '/PROGRAM TOTALS/ { gsub(",", "", $1); print $1 }')
	printf "null (ops in memory):   %10.0f instructions per op in the client thread (callgrind, one pass of %d ops)\n" \
		"$(echo "$ir / $n" | bc -l)" "$n"
fi

echo "== 3. trace timing, 10,000 ops/s for ${T} s, posix on tmpfs, $ROUNDS rounds =="
mkdir "$mnt/trace"
awk -v n="$((T * 10000))" 'BEGIN { print "0 Mkdir \"\\\\d\" NT_STATUS_OK";
	for (i = 1; i <= n; i++) printf "%.6f QUERY_PATH_INFORMATION \"\\\\d\" 1004 NT_STATUS_OK\n", i / 10000 }' \
	>"$work/timed.load"
lag() { # how, json
	printf "%-16s p50 %6.1f us  p99 %8.1f us  max %8.1f us" "$1" "$(jq_ "$2" lag_us.p50)" "$(jq_ "$2" lag_us.p99)" \
		"$(jq_ "$2" lag_us.max)"
}
cc -O2 -std=c11 -D_GNU_SOURCE "$top/bench/replay_lag_floor.c" -o "$work/lag_floor"
for round in $(seq "$ROUNDS"); do
	for pin in "" "taskset -c 0"; do
		rm -rf "$mnt/trace"/*
		l=$(load)
		s0=$(steal)
		$pin "$reprise" replay "$work/timed.load" --target "$mnt/trace" --timing trace -q --json "$work/trace.json" \
			>/dev/null
		s1=$(steal)
		lag "${pin:-unpinned}:" "$work/trace.json"
		printf "  (load %s, %d ms stolen)\n" "$l" "$(((s1 - s0) * 1000 / $(getconf CLK_TCK)))"
		printf "%-16s %s\n" "  floor:" "$($pin "$work/lag_floor" "$T")"
	done
done
echo "(target p99 <= 20 us, max <= 1 ms)"

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
