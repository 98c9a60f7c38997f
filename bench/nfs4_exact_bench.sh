#!/bin/bash
# Exact vs semantic NFSv4.0 replay against a loopback nfs-ganesha (docs/BENCHMARKS.md, "Exact NFSv4.0
# replay"): for each NFSv4 trace, the COMPOUNDs and the operations inside them that the replay puts on
# the wire (its own traffic captured on lo by tcpdump, counted by tshark) next to the trace's, in both
# modes; and ops/s of each mode, ROUNDS alternating runs without capture, medians.  Traces: a
# create/write/read/commit/close/remove/rename mix (FILES files) and client.txt's first LINES lines, each
# made by capturing a semantic replay of the loadfile to version=4 (what libnfs's NFSv4.0 client sends),
# decoded by `reprise convert`; and `locks`, LOCK_FILES files each opened twice, locked, denied, tested and
# unlocked (LOCK, LOCKT, LOCKU), a text-form NFSv4 trace made a capture by an exact replay of it (the
# semantic path sends no locks: they are counted unsupported there).  Server: tests/fixtures/ganesha.sh,
# stopped at the end.
#   usage: bench/nfs4_exact_bench.sh     REPRISE=build/cli/reprise LINES=6000 FILES=1000 LOCK_FILES=100 ROUNDS=3
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
reprise=${REPRISE:-$top/build/cli/reprise}
lines=${LINES:-6000}
files=${FILES:-1000}
lock_files=${LOCK_FILES:-100}
rounds=${ROUNDS:-3}
fixtures=$top/tests/fixtures
[ -x "$reprise" ] || { echo "nfs4_exact_bench: no $reprise (build first, or set REPRISE)" >&2; exit 1; }
[ "$(id -u)" -eq 0 ] || { echo "nfs4_exact_bench: ganesha's VFS export and capturing on lo need root" >&2; exit 1; }
for t in tcpdump tshark; do command -v $t >/dev/null || { echo "nfs4_exact_bench: needs $t" >&2; exit 1; }; done
tmp=$(mktemp -d /tmp/reprise-nfs4xbench.XXXXXX) || exit 1
bg=
cleanup() {
	[ -n "$bg" ] && kill "$bg" 2>/dev/null && wait "$bg" 2>/dev/null
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
url() { echo "nfs://127.0.0.1/export/$1?version=4&nfsport=$nport&mountport=$mport"; }

# loop OUT TRACE [replay args]: replay TRACE into a fresh directory while tcpdump records lo into OUT.pcap.
loop() {
	local out=$1 trace=$2
	shift 2
	rm -f "$tmp/tcpdump.err" # its "listening on" is the new tcpdump's, not the last one's
	nice -n -10 tcpdump -i lo -s 0 -B 131072 --immediate-mode -w "$out.pcap" "tcp port $nport" 2>"$tmp/tcpdump.err" &
	bg=$!
	for _ in $(seq 1 100); do grep -q 'listening on' "$tmp/tcpdump.err" && break; sleep 0.1; done
	sleep 0.5
	"$reprise" replay "$trace" --target "$(url "$(fresh)")" -q "$@" >"$tmp/out" 2>&1
	sleep 1
	kill -INT "$bg"
	wait "$bg"
	bg=
	grep -Eo '[0-9]+ packets dropped by kernel' "$tmp/tcpdump.err" | grep -v '^0 ' | sed 's/^/# dropped: /'
}
# ops PCAP: "NAME COUNT": COMPOUND and each operation inside them.
ops() {
	tshark -r "$1" -d "tcp.port==$nport,rpc" -Y 'rpc.msgtyp == 0 && nfs' -T fields -e nfs.opcode 2>/dev/null | awk '
	BEGIN { split("3 ACCESS 4 CLOSE 5 COMMIT 6 CREATE 9 GETATTR 10 GETFH 12 LOCK 13 LOCKT 14 LOCKU 15 LOOKUP 18 OPEN " \
		      "20 OPEN_CONFIRM 22 PUTFH 24 PUTROOTFH 25 READ 26 READDIR 28 REMOVE 29 RENAME 30 RENEW 32 SAVEFH " \
		      "34 SETATTR 35 SETCLIENTID 36 SETCLIENTID_CONFIRM 38 WRITE", a, " "); for (i = 1; i < length(a); i += 2) m[a[i]] = a[i + 1] }
	$0 != "" { n["COMPOUND"]++; k = split($0, o, ","); for (i = 1; i <= k; i++) n[o[i] in m ? m[o[i]] : "OP" o[i]]++ }
	END { for (p in n) print p, n[p] }' | sort
}
opsps() { grep -Eo '[0-9.]+ ops/sec' "$1" | head -1 | cut -d' ' -f1; }
median() { sort -g | awk '{ a[NR] = $1 } END { print (NR % 2) ? a[(NR + 1) / 2] : (a[NR / 2] + a[NR / 2 + 1]) / 2 }'; }

{
	echo 'Mkdir "\d" NT_STATUS_OK'
	for i in $(seq 0 $((files - 1))); do
		h=$((1000 + i))
		echo "NTCreateX \"\\d\\f$i\" 0x0 0x2 $h NT_STATUS_OK"
		echo "WriteX $h 0 8192 8192 NT_STATUS_OK"
		echo "ReadX $h 0 4096 4096 NT_STATUS_OK"
		echo "Flush $h NT_STATUS_OK"
		echo "Close $h NT_STATUS_OK"
		[ $((i % 2)) = 1 ] && echo "Unlink \"\\d\\f$((i - 1))\" 0x6 NT_STATUS_OK"
		[ $((i % 5)) = 2 ] && echo "Rename \"\\d\\f$i\" \"\\d\\g$i\" NT_STATUS_OK"
	done
} >"$tmp/mix.txt"
traces=mix
client=/usr/share/dbench/client.txt
[ -r "$client" ] && head -n "$lines" "$client" >"$tmp/client.txt" && traces="mix client"
# Per file: two opens (two open-owners, so conflicting lock-owners), 6 LOCKs (one denied), 4 LOCKTs (2
# denied), 3 LOCKUs, the closes, the unlink.
{
	t=0
	line() { t=$((t + 1)); printf '%d.%03d %d.%03d c1 %s\n' $((t / 1000)) $((t % 1000)) $((t / 1000)) $((t % 1000)) "$1"; }
	ok4='-> OK (NFS4_OK)' denied='-> EAGAIN (NFS4ERR_DENIED)'
	for i in $(seq 0 $((lock_files - 1))); do
		a=$((200 + 2 * i)) b=$((201 + 2 * i)) k="path=\"/k$i\""
		line "open $k fh=$a want=read,write disp=create of=excl_verify raw=nfs4:access=0x3,disp=1,opts=0x2 $ok4"
		line "write $k fh=$a off=0 len=512 ret=512 raw=nfs4 $ok4"
		line "open $k fh=$b want=read,write raw=nfs4:access=0x3 $ok4"
		line "lock $k fh=$a off=0 len=100 raw=nfs4 $ok4"
		line "lock $k fh=$a off=200 len=50 flags=excl raw=nfs4 $ok4"
		line "lock $k fh=$b off=50 len=20 raw=nfs4 $ok4"
		line "lock $k fh=$b off=210 len=10 flags=excl raw=nfs4 $denied"
		line "lock $k fh=0 off=0 len=100 flags=excl,test raw=nfs4 $denied"
		line "unlock $k fh=$a off=0 len=250 flags=excl raw=nfs4 $ok4"
		line "lock $k fh=$b off=200 len=50 flags=excl,wait raw=nfs4 $ok4"
		line "lock $k fh=0 off=300 len=10 flags=excl,test raw=nfs4 $ok4"
		line "lock $k fh=0 off=200 len=10 flags=excl,test raw=nfs4 $denied"
		line "lock $k fh=$a off=0 len=10 raw=nfs4 $ok4"
		line "unlock $k fh=$a off=0 len=10 raw=nfs4 $ok4"
		line "unlock $k fh=$b off=0 len=250 flags=excl raw=nfs4 $ok4"
		line "lock $k fh=0 off=0 len=250 flags=excl,test raw=nfs4 $ok4"
		line "close $k fh=$b raw=nfs4 $ok4"
		line "close $k fh=$a raw=nfs4 $ok4"
		line "unlink $k raw=nfs4 $ok4"
	done
} >"$tmp/locks.txt"
[ "$lock_files" -gt 0 ] && traces="$traces locks"

printf '%-8s %10s %14s %16s %12s %14s\n' trace recorded exact semantic "exact ops/s" "semantic ops/s"
for t in $traces; do
	# The trace: what a replay to version=4 sent (semantic: libnfs's client; the locks' text: exact mode's).
	if [ "$t" = locks ]; then loop "$tmp/$t" "$tmp/$t.txt"; else loop "$tmp/$t" "$tmp/$t.txt" -O mode=semantic; fi
	"$reprise" convert "$tmp/$t.pcap" -o "$tmp/$t.rpz" 2>/dev/null
	loop "$tmp/$t.x" "$tmp/$t.rpz"
	grep -E '^(Backend mode|Failed)' "$tmp/out" | sed 's/^/# exact: /'
	loop "$tmp/$t.s" "$tmp/$t.rpz" -O mode=semantic
	grep -E '^Failed' "$tmp/out" | sed 's/^/# semantic: /'
	ops "$tmp/$t.pcap" >"$tmp/r.txt"
	ops "$tmp/$t.x.pcap" >"$tmp/x.txt"
	ops "$tmp/$t.s.pcap" >"$tmp/s.txt"
	for r in $(seq 1 "$rounds"); do
		"$reprise" replay "$tmp/$t.rpz" --target "$(url "$(fresh)")" >"$tmp/o" 2>&1
		opsps "$tmp/o" >>"$tmp/$t.xr"
		"$reprise" replay "$tmp/$t.rpz" --target "$(url "$(fresh)")" -O mode=semantic >"$tmp/o" 2>&1
		opsps "$tmp/o" >>"$tmp/$t.sr"
	done
	rec=$(awk '$1 == "COMPOUND" { print $2 }' "$tmp/r.txt")
	x=$(awk '$1 == "COMPOUND" { print $2 }' "$tmp/x.txt")
	s=$(awk '$1 == "COMPOUND" { print $2 }' "$tmp/s.txt")
	printf '%-8s %10d %8d (%.2fx) %9d (%.2fx) %12s %14s\n' "$t" "$rec" "$x" "$(echo "$x / $rec" | bc -l)" \
		"$s" "$(echo "$s / $rec" | bc -l)" "$(median <"$tmp/$t.xr")" "$(median <"$tmp/$t.sr")"
	echo "# $t per operation: recorded / exact / semantic"
	join -a1 -a2 -e0 -o 0,1.2,2.2 "$tmp/r.txt" "$tmp/x.txt" | join -a1 -a2 -e0 -o 0,1.2,1.3,2.2 - "$tmp/s.txt" |
		awk '{ printf "#   %-20s %8d %8d %8d\n", $1, $2, $3, $4 }'
done
