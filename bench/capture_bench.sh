#!/bin/bash
# Packet decoding benchmark: reprise vs tshark vs tcpdump on one capture of real SMB and NFS traffic.
#
# Makes (unless given one) a capture of >= 80,000 packets on lo: smbd and nfs-ganesha from
# tests/fixtures, driven by smbclient (many small files: put/get/del) and libnfs's nfs-cp, recorded by
# tcpdump.  Then decodes it, in one run, with
#   reprise convert --to rpz F /dev/null      (every layer: TCP reassembly, RPC/SMB, ops, .rpz writing)
#   tshark -r F -T fields -e rpc.xid          (the dissectors, one field out)
#   tcpdump -nn -r F > /dev/null              (one line per packet)
# and prints packets/s, MB/s and the ratios.  Needs root (capturing on lo) to make the capture.
#   usage: bench/capture_bench.sh [capture.pcap]     REPRISE=path/to/reprise  RUNS=3
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
reprise=${REPRISE:-$top/build/cli/reprise}
runs=${RUNS:-3}
[ -x "$reprise" ] || { echo "capture_bench: no $reprise (build first, or set REPRISE)" >&2; exit 1; }
for t in tshark tcpdump; do command -v $t >/dev/null || { echo "capture_bench: $t not installed" >&2; exit 1; }; done

work=$(mktemp -d /tmp/reprise-capbench.XXXXXX)
tcpdump_pid=
cleanup() {
	[ -n "$tcpdump_pid" ] && kill "$tcpdump_pid" 2>/dev/null && wait "$tcpdump_pid" 2>/dev/null
	"$top/tests/fixtures/smbd.sh" stop "$work/smb" 2>/dev/null || true
	"$top/tests/fixtures/ganesha.sh" stop "$work/nfs" 2>/dev/null || true
	rm -rf "$work"
}
trap cleanup EXIT INT TERM

make_capture() {
	local out=$1 smbport=45445 nfsport=42049 mntport=42048
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
		nfs-cp "nfs://127.0.0.1/export/n$i.txt?$q" "$work/back.txt" > /dev/null
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
fi
packets=$(tcpdump -nn -r "$cap" 2>/dev/null | wc -l)
bytes=$(stat -c %s "$cap")
echo "capture: $packets packets, $bytes bytes"

# Wall seconds of the fastest of N runs of a command (output discarded).
best() {
	local n=$1 b= i t0 t1 s
	shift
	for i in $(seq 1 "$n"); do
		t0=$(date +%s.%N)
		"$@" > /dev/null 2>&1 || true
		t1=$(date +%s.%N)
		s=$(awk -v a="$t0" -v b="$t1" 'BEGIN{printf "%.4f", b - a}')
		if [ -z "$b" ] || awk -v x="$s" -v y="$b" 'BEGIN{exit !(x < y)}'; then b=$s; fi
	done
	echo "$b"
}

t_reprise=$(best "$runs" "$reprise" convert --to rpz -q "$cap" /dev/null)
t_tcpdump=$(best "$runs" tcpdump -nn -r "$cap")
t_tshark=$(best 1 tshark -r "$cap" -T fields -e rpc.xid)
"$reprise" convert --to rpz "$cap" /dev/null 2> "$work/summary.txt" || true

rate() { awk -v p="$packets" -v b="$bytes" -v t="$1" 'BEGIN{ if (t <= 0) t = 0.001; printf "%12.0f pkt/s %9.1f MB/s %8.3f s", p / t, b / t / 1e6, t }'; }
echo
printf "%-34s %s\n" "reprise convert --to rpz" "$(rate "$t_reprise")"
printf "%-34s %s\n" "tcpdump -nn -r" "$(rate "$t_tcpdump")"
printf "%-34s %s\n" "tshark -T fields -e rpc.xid" "$(rate "$t_tshark")"
echo
awk -v r="$t_reprise" -v d="$t_tcpdump" -v s="$t_tshark" 'BEGIN{ if (r <= 0) r = 0.001;
	printf "reprise vs tshark:  %.1fx faster (target >= 50x)\n", s / r;
	printf "reprise vs tcpdump: %.1fx faster (target >= 5x)\n", d / r }'
echo "reprise summary: $(head -1 "$work/summary.txt")"
