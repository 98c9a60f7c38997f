#!/bin/bash
# NFS replay against the program that made the capture (docs/BENCHMARKS.md, "NFS replay against a plain
# libnfs loop"): bench/net_peer's mix (built with libnfs alone: net-peer-nfs) (PEER_FILES files of PEER_SIZE through libnfs's synchronous calls,
# one request at a time) is captured once on lo; then, ROUNDS rounds, each in a fresh directory of a
# private nfs-ganesha on 127.0.0.1, in turn: net_peer itself, `reprise replay` of its capture in exact
# mode (the default: its RPCs as they were) and in semantic mode (-O mode=semantic: libnfs path calls).
# Each run is a whole process, timed from outside: wall (a monotonic clock around it) and client CPU
# (user + system of the process and its threads: perf stat's task-clock when perf works, else GNU
# time's, whose 10 ms steps are coarse next to a run of ~0.1 s of CPU).  Per op means per RPC of the
# capture (the same RPCs for all three).  Besides the whole process, each one's own timing of its work:
# net_peer's (its mount and loop), the replay's measured span (its ops: ops / ops/s).  Printed: every
# run, then medians and the medians of the per-round ratios (speed: net_peer's time / the replay's;
# CPU: the replay's / net_peer's).
# BEFORE=another reprise binary (an older build) adds its exact and semantic replays to every round,
# in turn with the others: before and after in one run.
#   usage: bench/nfs_speed_bench.sh     REPRISE=build/cli/reprise PEER=build/bench/net-peer-nfs ROUNDS=7 PEER_FILES=200 PEER_SIZE=65536 BEFORE=
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
reprise=${REPRISE:-$top/build/cli/reprise}
peer=${PEER:-$(dirname "$reprise")/../bench/net-peer-nfs}
rounds=${ROUNDS:-7}
before=${BEFORE:-}
peer_files=${PEER_FILES:-200}
peer_size=${PEER_SIZE:-65536}
fixtures=$top/tests/fixtures
[ -x "$reprise" ] || { echo "nfs_speed_bench: no $reprise (build first, or set REPRISE)" >&2; exit 1; }
[ -x "$peer" ] || { echo "nfs_speed_bench: no $peer (built with libnfs: set PEER)" >&2; exit 1; }
[ -z "$before" ] || [ -x "$before" ] || { echo "nfs_speed_bench: BEFORE=$before is no program" >&2; exit 1; }
[ "$(id -u)" -eq 0 ] || { echo "nfs_speed_bench: ganesha's VFS export and capturing on lo need root" >&2; exit 1; }
tmp=$(mktemp -d /tmp/reprise-nfsspeed.XXXXXX) || exit 1
bg=
cleanup() {
	[ -n "$bg" ] && kill "$bg" 2>/dev/null
	"$fixtures/ganesha.sh" stop "$tmp/nfs" >/dev/null 2>&1
	rm -rf "$tmp"
}
trap cleanup EXIT INT TERM
# Ports as the tests pick them (tests/lib/ports.sh): free of every socket, below the ephemeral range.
. "$top/tests/lib/ports.sh"
nport=$(free_ports $$ 2) || exit 1
mport=$((nport + 1))
"$fixtures/ganesha.sh" start "$tmp/nfs" "$nport" "$mport" >"$tmp/ganesha.out" 2>&1 || { cat "$tmp/ganesha.out" >&2; exit 1; }
export_dir=$tmp/nfs/export
fresh() { basename "$(mktemp -d "$export_dir/rXXXXXX")"; }
url() { echo "nfs://127.0.0.1/export/$1?version=3&nfsport=$nport&mountport=$mport"; }

# The capture of net_peer's mix: what the replays replay.
"$reprise" capture --iface lo --filter "tcp port $nport or tcp port $mport" --client-key conn --buffer 256 \
	--duration 600 -o "$tmp/peer.rpz" 2>"$tmp/cap.err" &
bg=$!
for _ in $(seq 1 100); do grep -q '^reprise capture: on ' "$tmp/cap.err" && break; sleep 0.1; done
sleep 0.5
"$peer" nfs "$(url "$(fresh)")" "$peer_files" "$peer_size" >/dev/null || exit 1
sleep 0.5
kill -INT "$bg"
wait "$bg"
bg=
ops=$("$reprise" cat "$tmp/peer.rpz" | wc -l)
[ "$ops" -gt 0 ] || { echo "nfs_speed_bench: the capture has no ops" >&2; cat "$tmp/cap.err" >&2; exit 1; }

# measure NAME CMD...: one whole-process run; appends "NAME wall_s cpu_s own_s" to $tmp/runs.
use_perf=0
perf stat -e task-clock -x, -o "$tmp/probe" true >/dev/null 2>&1 && use_perf=1
measure() {
	local name=$1
	shift
	local t0 t1 cpu
	t0=$(date +%s%N)
	if [ "$use_perf" = 1 ]; then
		perf stat -e task-clock -x, -o "$tmp/stat" "$@" >"$tmp/out" 2>&1
		t1=$(date +%s%N)
		cpu=$(awk -F, '$3 == "task-clock" { printf "%.4f", $1 / 1000 }' "$tmp/stat")
	else
		/usr/bin/time -f '%U %S' -o "$tmp/stat" "$@" >"$tmp/out" 2>&1
		t1=$(date +%s%N)
		cpu=$(awk 'END { printf "%.4f", $1 + $2 }' "$tmp/stat")
	fi
	if [ "$name" != peer ] && ! grep -q 'mismatched 0' "$tmp/out"; then
		echo "# $name: $(grep -E '^(Failed|reprise)' "$tmp/out" | tr '\n' ' ')" >&2
	fi
	local own
	if [ "$name" = peer ]; then
		own=$(awk '$1 == "ops" { print $4 }' "$tmp/out")
	else
		own=$(sed -n 's/^Throughput [0-9.]* MB\/sec  \([0-9]*\) ops\/sec.*/\1/p' "$tmp/out" |
			awk -v o="$ops" '$1 > 0 { printf "%.4f", o / $1 }')
	fi
	echo "$name $(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.4f", (b - a) / 1e9 }') $cpu ${own:-0}" >>"$tmp/runs"
}

: >"$tmp/runs"
echo "# $(date -u '+%Y-%m-%d %H:%M UTC'), load $(cut -d' ' -f1 /proc/loadavg), $rounds rounds, $ops ops (RPCs) a run," \
	"CPU by $([ "$use_perf" = 1 ] && echo 'perf task-clock' || echo 'GNU time')"
# one NAME: that run, in a fresh directory.
one() {
	case $1 in
	peer) measure peer "$peer" nfs "$(url "$(fresh)")" "$peer_files" "$peer_size" ;;
	exact) measure exact "$reprise" replay "$tmp/peer.rpz" --target "$(url "$(fresh)")" -q ;;
	semantic) measure semantic "$reprise" replay "$tmp/peer.rpz" --target "$(url "$(fresh)")" -q -O mode=semantic ;;
	exact-before) measure exact-before "$before" replay "$tmp/peer.rpz" --target "$(url "$(fresh)")" -q ;;
	semantic-before) measure semantic-before "$before" replay "$tmp/peer.rpz" --target "$(url "$(fresh)")" -q -O mode=semantic ;;
	esac
}
names="peer ${before:+exact-before semantic-before} exact semantic"
n_names=$(echo $names | wc -w)
for r in $(seq 1 "$rounds"); do
	# Each round in another order (rotated), so a drift of the machine's load favours no one.
	set -- $names
	for _ in $(seq 1 $(((r - 1) % n_names))); do set -- "$@" "$1"; shift; done
	for n in "$@"; do one "$n"; done
	echo "# round $r: $(tail -n "$n_names" "$tmp/runs" | sort | tr '\n' ' ')"
done

median() { sort -g | awk '{ v[NR] = $1 } END { print NR ? (NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2) : "-" }'; }
col() { awk -v n="$1" -v c="$2" '$1 == n { print $c }' "$tmp/runs"; }
# ratio A B COLUMN: the median over rounds of A's figure / B's, paired round by round.
ratio() { paste <(col "$1" "$3") <(col "$2" "$3") | awk '$2 > 0 { printf "%.4f\n", $1 / $2 }' | median; }
echo "| run | wall (s) | wall / op (µs) | own time (s) | client CPU (s) | CPU / op (µs) | speed vs net_peer, wall | own time | CPU / op vs net_peer |"
echo "|---|---|---|---|---|---|---|---|---|"
for n in $names; do
	w=$(col $n 2 | median); c=$(col $n 3 | median); t=$(col $n 4 | median)
	if [ $n = peer ]; then s=1; u=1; k=1; else s=$(ratio peer $n 2); u=$(ratio peer $n 4); k=$(ratio $n peer 3); fi
	awk -v n=$n -v w="$w" -v c="$c" -v t="$t" -v o="$ops" -v s="$s" -v u="$u" -v k="$k" \
		'BEGIN { printf "| %s | %.3f | %.1f | %.3f | %.3f | %.1f | %.2f× | %.2f× | %.2f× |\n", n, w, w / o * 1e6, t, c, c / o * 1e6, s, u, k }'
done
