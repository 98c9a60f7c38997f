#!/bin/bash
# Packet decoding benchmark: reprise vs tshark vs tcpdump on one capture of real SMB and NFS traffic.
#
# Makes (unless given one) a capture of >= 80,000 packets on lo: smbd and nfs-ganesha from
# tests/fixtures, driven by smbclient (many small files: put/get/del) and libnfs's nfs-cp, recorded by
# tcpdump.  Then decodes it, in one run, with
#   reprise convert --format rpz F /dev/null      (every layer: TCP reassembly, RPC/SMB, ops, .rpz writing)
#   tshark -r F -T fields -e rpc.xid          (the dissectors, one field out)
#   tcpdump -nn -r F > /dev/null              (one line per packet)
# and prints packets/s, MB/s and the ratios.  Needs root (capturing on lo) to make the capture.
#
# Measure: CPU time (task-clock: user + sys, ns resolution) by `perf stat -r N`, so a 20 ms decode
# is well above the clock's resolution; N back-to-back runs of a decoder are also the "N times
# larger capture" figure.  The machine may be shared, so the decoders run interleaved in ROUNDS
# rounds and each figure is the median of its rounds' means (the spread across rounds is shown).
#   usage: bench/capture_bench.sh [capture.pcap]
#   REPRISE=path/to/reprise  RUNS=20 (reprise runs per round)  PEER_RUNS=5 (tcpdump)  TSHARK_RUNS=1
#   ROUNDS=3  KEEP=save-capture-here.pcap
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
reprise=${REPRISE:-$top/build/cli/reprise}
runs=${RUNS:-20}
peer_runs=${PEER_RUNS:-5}
tshark_runs=${TSHARK_RUNS:-1}
rounds=${ROUNDS:-3}
[ -x "$reprise" ] || { echo "capture_bench: no $reprise (build first, or set REPRISE)" >&2; exit 1; }
for t in tshark tcpdump perf; do command -v $t >/dev/null || { echo "capture_bench: $t not installed" >&2; exit 1; }; done

work=$(mktemp -d /tmp/reprise-capbench.XXXXXX)
tcpdump_pid=
cleanup() {
	[ -n "$tcpdump_pid" ] && kill "$tcpdump_pid" 2>/dev/null && wait "$tcpdump_pid" 2>/dev/null
	"$top/tests/fixtures/smbd.sh" stop "$work/smb" 2>/dev/null || true
	"$top/tests/fixtures/ganesha.sh" stop "$work/nfs" 2>/dev/null || true
	rm -rf "$work"
}
trap cleanup EXIT INT TERM

# Ports as the tests pick them (tests/lib/ports.sh): free of every socket, below the ephemeral range.
. "$top/tests/lib/ports.sh"

make_capture() {
	local out=$1 base
	base=$(free_ports $$ 3) || return 1
	local smbport=$base nfsport=$((base + 1)) mntport=$((base + 2))
	"$top/tests/fixtures/smbd.sh" start "$work/smb" $smbport
	"$top/tests/fixtures/ganesha.sh" start "$work/nfs" $nfsport $mntport
	tcpdump -i lo -s 0 -B 65536 --immediate-mode -U -w "$out" \
		"tcp port $smbport or tcp port $nfsport or tcp port $mntport" 2> "$work/tcpdump.log" &
	tcpdump_pid=$!
	sleep 1
	mkdir -p "$work/files"
	local n=${SMB_FILES:-3000} i
	for i in $(seq 1 "$n"); do printf 'file %d of the reprise capture benchmark\n' "$i" > "$work/files/f$i.txt"; done
	{
		echo "lcd $work/files"
		echo "mkdir bench"
		echo "cd bench"
		for i in $(seq 1 "$n"); do echo "put f$i.txt"; done
		for i in $(seq 1 "$n"); do echo "get f$i.txt g$i.txt"; done
		for i in $(seq 1 "$n"); do echo "del f$i.txt"; done
		echo "cd .."
		echo "rmdir bench"
	} > "$work/smb.cmds"
	smbclient "//127.0.0.1/share" -p $smbport -U root%pw -m SMB3 < "$work/smb.cmds" > "$work/smb.log" 2>&1
	local m=${NFS_FILES:-400} q="version=3&nfsport=$nfsport&mountport=$mntport"
	for i in $(seq 1 "$m"); do
		nfs-cp "$work/files/f$i.txt" "nfs://127.0.0.1/export/n$i.txt?$q" > /dev/null
	done
	for i in $(seq 1 "$((m / 4))"); do
		nfs-cp "nfs://127.0.0.1/export/n$i.txt?$q" "$work/back$i.txt" > /dev/null
	done
	sleep 1
	kill "$tcpdump_pid"
	wait "$tcpdump_pid" 2>/dev/null || true
	tcpdump_pid=
}

cap=${1:-}
if [ -z "$cap" ]; then
	cap=$work/bench.pcap
	echo "making the capture (smbd + nfs-ganesha on lo) ..."
	make_capture "$cap"
	[ -n "${KEEP:-}" ] && cp "$cap" "$KEEP" && echo "capture kept in $KEEP"
fi
packets=$(tcpdump -nn -r "$cap" 2>/dev/null | wc -l)
bytes=$(stat -c %s "$cap")
echo "capture: $packets packets, $bytes bytes"
"$reprise" convert --format rpz "$cap" /dev/null 2> "$work/summary.txt" || true
echo "reprise summary: $(head -1 "$work/summary.txt")"
echo "load average before: $(cut -d' ' -f1-3 /proc/loadavg)"

# "CPU_MS WALL_MS": the means over n runs of a command (its output discarded), by perf stat.
measure() {
	local n=$1
	shift
	perf stat -x, -o "$work/perf.csv" -r "$n" -e task-clock -- "$@" > /dev/null 2>&1 || true
	local cpu
	cpu=$(awk -F, '$3 == "task-clock" { print $1 }' "$work/perf.csv")
	[ -n "$cpu" ] || { echo "capture_bench: perf stat failed for: $*" >&2; exit 1; }
	echo "$cpu"
}

names=(stat convert tcpdump tshark)
declare -A all
for r in $(seq 1 "$rounds"); do
	all[stat]+="$(measure "$runs" "$reprise" stat "$cap") "
	all[convert]+="$(measure "$runs" "$reprise" convert --format rpz -q "$cap" /dev/null) "
	all[tcpdump]+="$(measure "$peer_runs" tcpdump -nn -r "$cap") "
	all[tshark]+="$(measure "$tshark_runs" tshark -r "$cap" -T fields -e rpc.xid) "
done
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"

# median, min and max of a list of numbers
stats() { echo "$1" | tr ' ' '\n' | grep . | sort -g | awk '{ a[NR] = $1 } END {
	printf "%.3f %.3f %.3f", (NR % 2 ? a[(NR + 1) / 2] : (a[NR / 2] + a[NR / 2 + 1]) / 2), a[1], a[NR] }'; }
declare -A med
for n in "${names[@]}"; do
	read -r m lo hi <<< "$(stats "${all[$n]}")"
	med[$n]=$m
	all[$n]="$lo $hi"
done

row() { # label name runs-per-round
	read -r lo hi <<< "${all[$2]}"
	awk -v l="$1" -v c="${med[$2]}" -v lo="$lo" -v hi="$hi" -v p="$packets" -v b="$bytes" -v n="$3" 'BEGIN {
		s = c / 1000; printf "%-38s %11.0f pkt/s %8.1f MB/s  cpu %8.2f ms (rounds %.2f-%.2f, %d runs each)\n",
		l, p / s, b / s / 1e6, c, lo, hi, n }'
}
echo
echo "CPU time (task-clock) per decode of the capture: median over $rounds rounds of the mean of each round's runs"
row "reprise stat F (decode)" stat "$runs"
row "reprise convert --format rpz F /dev/null" convert "$runs"
row "tcpdump -nn -r F > /dev/null" tcpdump "$peer_runs"
row "tshark -r F -T fields -e rpc.xid" tshark "$tshark_runs"
awk -v p="$packets" -v r="$runs" -v c="${med[stat]}" 'BEGIN {
	printf "(%d back-to-back runs of reprise stat = one capture of %d packets: %.2f s of CPU)\n", r, p * r, c * r / 1000 }'
echo
ratio() { # label reprise-name peer-name target
	awk -v l="$1" -v r="${med[$2]}" -v p="${med[$3]}" -v t="$4" 'BEGIN {
		x = p / r; printf "%-44s %7.1fx  (target >= %dx: %s)\n", l, x, t, (x >= t ? "met" : "NOT met") }'
}
ratio "reprise stat vs tshark" stat tshark 50
ratio "reprise stat vs tcpdump" stat tcpdump 5
ratio "reprise convert (with zstd) vs tshark" convert tshark 50
ratio "reprise convert (with zstd) vs tcpdump" convert tcpdump 5
