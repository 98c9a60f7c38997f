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
#   usage: bench/capture_bench.sh [capture.pcap]     REPRISE=path/to/reprise  RUNS=3  KEEP=save-capture-here.pcap
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

# "WALL CPU" seconds (CPU = user + sys) of the fastest of N runs of a command, output discarded.
# The machine may be shared: CPU time is the steadier measure, wall time is shown too.
best() {
	local n=$1 bw= bc= i w c
	shift
	for i in $(seq 1 "$n"); do
		/usr/bin/time -o "$work/time" -f "%e %U %S" "$@" > /dev/null 2>&1 || true
		w=$(awk '{print $1}' "$work/time")
		c=$(awk '{printf "%.2f", $2 + $3}' "$work/time")
		if [ -z "$bc" ] || awk -v x="$c" -v y="$bc" 'BEGIN{exit !(x < y)}'; then bc=$c; fi
		if [ -z "$bw" ] || awk -v x="$w" -v y="$bw" 'BEGIN{exit !(x < y)}'; then bw=$w; fi
	done
	echo "$bw $bc"
}

t_decode=$(best "$runs" "$reprise" stat "$cap")
t_convert=$(best "$runs" "$reprise" convert --to rpz -q "$cap" /dev/null)
t_tcpdump=$(best "$runs" tcpdump -nn -r "$cap")
t_tshark=$(best 1 tshark -r "$cap" -T fields -e rpc.xid)
"$reprise" convert --to rpz "$cap" /dev/null 2> "$work/summary.txt" || true

# rate "WALL CPU": packets/s and MB/s by CPU time, then both times.
rate() {
	echo "$1" | awk -v p="$packets" -v b="$bytes" '{ c = $2 > 0 ? $2 : 0.01;
		printf "%10.0f pkt/s %8.1f MB/s   cpu %6.2f s  wall %6.2f s", p / c, b / c / 1e6, $2, $1 }'
}
echo
echo "rates by CPU time (user + sys), best of $runs runs (tshark: 1 run):"
printf "%-36s %s\n" "reprise stat (decode, no .rpz)" "$(rate "$t_decode")"
printf "%-36s %s\n" "reprise convert --to rpz /dev/null" "$(rate "$t_convert")"
printf "%-36s %s\n" "tcpdump -nn -r" "$(rate "$t_tcpdump")"
printf "%-36s %s\n" "tshark -T fields -e rpc.xid" "$(rate "$t_tshark")"
echo
ratio() { # name reprise-times peer-times target
	awk -v n="$1" -v r="$2" -v p="$3" -v t="$4" 'BEGIN{ split(r, R, " "); split(p, P, " ");
		rc = R[2] > 0 ? R[2] : 0.01; rw = R[1] > 0 ? R[1] : 0.01;
		printf "%-44s %6.1fx cpu  %6.1fx wall  (target >= %sx)\n", n, P[2] / rc, P[1] / rw, t }'
}
ratio "reprise stat vs tshark" "$t_decode" "$t_tshark" 50
ratio "reprise stat vs tcpdump" "$t_decode" "$t_tcpdump" 5
ratio "reprise convert (with zstd) vs tshark" "$t_convert" "$t_tshark" 50
ratio "reprise convert (with zstd) vs tcpdump" "$t_convert" "$t_tcpdump" 5
echo "reprise summary: $(head -1 "$work/summary.txt")"
