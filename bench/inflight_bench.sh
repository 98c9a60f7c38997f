#!/bin/sh
# The in-flight window on a slow backend (results: docs/BENCHMARKS.md, "In-flight window").
# A trace of CLIENTS clients, each with BURSTS bursts of 16 reads recorded 100 us apart and 2 ms
# long (16 in flight at once), replayed in trace timing on the fault backend with delay=2ms
# (each op sleeps 2 ms): --max-inflight 1 against 16 and auto (the default: the recorded depth, 16),
# ROUNDS alternating rounds. One at a time takes ops x 2 ms; the window should take about the
# recorded time.
# Usage: bench/inflight_bench.sh [BUILD_DIR]   BENCH_ROUNDS (default 3), BENCH_CLIENTS (default 4),
#   BENCH_BURSTS (default 50)
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$top/build}
reprise=$build/cli/reprise
ROUNDS=${BENCH_ROUNDS:-3}
CLIENTS=${BENCH_CLIENTS:-4}
BURSTS=${BENCH_BURSTS:-50}
[ -x "$reprise" ] || { echo "no $reprise: build first" >&2; exit 1; }
work=$(mktemp -d /tmp/reprise-inflight-bench-XXXXXX)
trap 'rm -rf "$work"' EXIT
cc -O2 -std=c11 -D_GNU_SOURCE -I"$top" "$top/bench/inflight_trace.c" "$build/formats/libreprise-formats.a" \
	-lzstd -lpthread -lm -o "$work/gen"
"$work/gen" "$work/t.rpz" "$CLIENTS" "$BURSTS" 16
ops=$((BURSTS * 16 + 2))
span=$(python3 -c "print('%.3f' % ((1 + $BURSTS * 4.1 + 0.1) / 1e3))")
echo "in-flight window, $(date -u '+%Y-%m-%d %H:%M UTC'), $(nproc) CPUs, load average $(cut -d' ' -f1-3 /proc/loadavg)"
echo "trace: $CLIENTS clients x $ops ops, 16 in flight, recorded span ${span} s; fault delay=2ms, trace timing"
echo "one at a time would take $ops x 2 ms = $(python3 -c "print('%.3f' % ($ops * 2e-3))") s per client"
printf '%-6s %-4s %9s %8s %9s %10s %8s %8s %10s %9s\n' round N elapsed_s ops/s depth_max depth_mean rec_max rec_mean lag_p50 lag_p99
for round in $(seq "$ROUNDS"); do
	for n in 1 16 auto; do
		"$reprise" replay "$work/t.rpz" --target "$work" --backend fault --backend-opt delay=2ms \
			--timing trace --max-inflight "$n" -q --json "$work/r.json" >/dev/null
		python3 - "$work/r.json" "$round" "$n" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
f = d["inflight"]
print("%-6s %-4s %9.3f %8.0f %9d %10.2f %8d %8.2f %10.1f %9.1f" % (sys.argv[2], sys.argv[3], d["elapsed_s"],
      d["ops_per_sec"], f["max"], f["mean"], f["recorded_max"], f["recorded_mean"], d["lag_us"]["p50"], d["lag_us"]["p99"]))
PY
	done
done
echo "(lag in us; elapsed_s is the measured period: start to the last completion)"
