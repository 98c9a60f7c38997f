#!/bin/bash
# Exact vs semantic NFSv3 replay against a loopback nfs-ganesha (docs/BENCHMARKS.md, "Exact NFSv3
# replay"): for each NFSv3 trace, the RPCs the replay puts on the wire per procedure (the replay's own
# traffic captured on lo, one client per connection, prepare's connection left out) next to the
# trace's, in both modes; and ops/s of each mode, ROUNDS alternating runs without capture, medians.
# Traces: a create/write/commit/remove mix (FILES files) and client.txt's first LINES lines, each
# made by capturing a semantic replay of a loadfile (what a libnfs client sends); the NFSv3 sample
# captures of tests/data/pcap, converted; and the capture of bench/net_peer's mix (PEER_FILES files
# of PEER_SIZE: libnfs's synchronous calls), whose replay is timed against net_peer itself, the
# program that made it.  Server: tests/fixtures/ganesha.sh, stopped at the end.
#   usage: bench/nfs_exact_bench.sh     REPRISE=build/cli/reprise PEER=build/bench/net-peer LINES=6000 FILES=1000 ROUNDS=3
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
reprise=${REPRISE:-$top/build/cli/reprise}
lines=${LINES:-6000}
files=${FILES:-1000}
rounds=${ROUNDS:-3}
peer=${PEER:-$(dirname "$reprise")/../bench/net-peer}
peer_files=${PEER_FILES:-200}
peer_size=${PEER_SIZE:-65536}
fixtures=$top/tests/fixtures
pcaps=$top/tests/data/pcap
[ -x "$reprise" ] || { echo "nfs_exact_bench: no $reprise (build first, or set REPRISE)" >&2; exit 1; }
[ "$(id -u)" -eq 0 ] || { echo "nfs_exact_bench: ganesha's VFS export and capturing on lo need root" >&2; exit 1; }
tmp=$(mktemp -d /tmp/reprise-nfsxbench.XXXXXX) || exit 1
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

# cap_start OUT: capture lo into OUT in the background ($bg), once the capture says it is on.
cap_start() {
	"$reprise" capture --iface lo --filter "tcp port $nport or tcp port $mport" --client-key conn --buffer 256 \
		--duration 600 -o "$1" 2>"$tmp/cap.err" &
	bg=$!
	for _ in $(seq 1 100); do grep -q '^reprise capture: on ' "$tmp/cap.err" && break; sleep 0.1; done
	sleep 0.5
}
# loop OUT TRACE [replay args]: replay TRACE into a fresh directory while capturing lo; the replay's
# output in $tmp/out, the capture's frames the kernel dropped in $dropped.
loop() {
	local out=$1 trace=$2
	shift 2
	cap_start "$out"
	"$reprise" replay "$trace" --target "$(url "$(fresh)")" -q "$@" >"$tmp/out" 2>&1
	sleep 0.5
	kill -INT "$bg"
	wait "$bg"
	bg=
	dropped=$(grep -Eo 'kernel drops [0-9]+' "$tmp/cap.err" || echo "kernel drops 0")
}

# procs TRACE [SKIP_CLIENT]: "PROCEDURE COUNT", the NFSv3 procedure of each op.
procs() {
	"$reprise" cat "$1" | awk -v skip="${2:-}" '
	BEGIN { split("stat GETATTR setattr SETATTR lookup LOOKUP access ACCESS readlink READLINK read READ write WRITE " \
		      "open CREATE mkdir MKDIR symlink SYMLINK mknod MKNOD unlink REMOVE rmdir RMDIR rename RENAME " \
		      "link LINK flush COMMIT", a, " "); for (i = 1; i < length(a); i += 2) m[a[i]] = a[i + 1] }
	$3 == skip { next }
	{ lv = ""; if (match($0, /level=[0-9]+/)) lv = substr($0, RSTART + 6, RLENGTH - 6)
	  p = m[$4]; if ($4 == "readdir") p = lv == 16 ? "READDIR" : "READDIRPLUS"
	  if ($4 == "statfs") p = lv == 18 ? "FSSTAT" : lv == 19 ? "FSINFO" : "PATHCONF"
	  if (p == "") p = $4; n[p]++ }
	END { for (p in n) print p, n[p] }' | sort
}
clients_of() { "$reprise" cat "$1" | awk '{ print $3 }' | sort -u | wc -l; }
# wire TRACE CAPTURE: the capture's procedures, prepare's connection (one more client than the trace) left out.
wire() {
	local skip=
	[ "$(clients_of "$2")" -gt "$(clients_of "$1")" ] && skip=$("$reprise" cat "$2" | awk 'NR == 1 { print $3 }')
	procs "$2" "$skip"
}
ops_per_sec() { sed -n 's/^Throughput [0-9.]* MB\/sec  \([0-9]*\) ops\/sec.*/\1/p' "$tmp/out"; }
median() { sort -n | awk '{ v[NR] = $1 } END { print NR ? v[int((NR + 1) / 2)] : "-" }'; }

# The traces.
{
	echo 'Mkdir "\d" NT_STATUS_OK'
	for i in $(seq 0 $((files - 1))); do
		h=$((1000 + i))
		echo "NTCreateX \"\\d\\f$i\" 0x0 0x2 $h NT_STATUS_OK"
		echo "WriteX $h 0 8192 8192 NT_STATUS_OK"
		echo "WriteX $h 8192 8192 8192 NT_STATUS_OK"
		echo "Flush $h NT_STATUS_OK"
		echo "Close $h NT_STATUS_OK"
		[ $((i % 2)) = 1 ] && echo "Unlink \"\\d\\f$((i - 1))\" 0x6 NT_STATUS_OK"
	done
} >"$tmp/mix.txt"
traces=
for t in mix client; do
	src=$tmp/$t.txt
	if [ "$t" = client ]; then
		[ -r /usr/share/dbench/client.txt ] || continue
		head -n "$lines" /usr/share/dbench/client.txt >"$src"
	fi
	loop "$tmp/$t.rpz" "$src" -O mode=semantic
	echo "# trace $t: $("$reprise" cat "$tmp/$t.rpz" | wc -l) ops ($dropped)"
	traces="$traces $t"
done
for p in zeek__nfs_nfs_base suricata-verify__nfs3-01__input nfstrace__eth-ipv6-tcp-nfsv3__pkts1-1500 \
	nfstrace__2sessions-tcp-wsize32k-tcp-wsize512k__pkts1-2400; do
	[ -r "$pcaps/$p.pcap" ] && "$reprise" convert "$pcaps/$p.pcap" -o "$tmp/$p.rpz" 2>/dev/null && traces="$traces $p"
done

if [ -x "$peer" ]; then
	cap_start "$tmp/peer.rpz"
	"$peer" nfs "$(url "$(fresh)")" "$peer_files" "$peer_size" >/dev/null
	sleep 0.5
	kill -INT "$bg"
	wait "$bg"
	bg=
	traces="$traces peer"
fi

echo "## RPCs on the wire per procedure: recorded, exact, semantic (prepare excluded)"
for t in $traces; do
	loop "$tmp/$t.x.rpz" "$tmp/$t.rpz"
	xline=$(grep '^Backend mode' "$tmp/out"); xmis=$(grep -o 'mismatched [0-9]*' "$tmp/out"); xd=$dropped
	loop "$tmp/$t.s.rpz" "$tmp/$t.rpz" -O mode=semantic
	smis=$(grep -o 'mismatched [0-9]*' "$tmp/out"); sd=$dropped
	echo "### $t"
	echo "# exact: $xline; $xmis; $xd.  semantic: $smis; $sd"
	procs "$tmp/$t.rpz" >"$tmp/rec"
	wire "$tmp/$t.rpz" "$tmp/$t.x.rpz" >"$tmp/x"
	wire "$tmp/$t.rpz" "$tmp/$t.s.rpz" >"$tmp/s"
	echo "| procedure | recorded | exact | semantic |"
	echo "|---|---|---|---|"
	join -a1 -a2 -e0 -o 0,1.2,2.2 "$tmp/rec" "$tmp/x" | join -a1 -a2 -e0 -o 0,1.2,1.3,2.2 - "$tmp/s" |
		awk '{ r += $2; x += $3; s += $4; print "| " $1 " | " $2 " | " $3 " | " $4 " |" }
		     END { printf "| all | %d | %d (%.2fx) | %d (%.2fx) |\n", r, x, r ? x / r : 0, s, r ? s / r : 0 }'
done

echo "## ops/s, $rounds alternating rounds without capture (medians; the trace's clients)"
echo "| trace | exact | semantic | exact / semantic |"
echo "|---|---|---|---|"
for t in $traces; do
	: >"$tmp/ox"; : >"$tmp/os"
	for _ in $(seq 1 "$rounds"); do
		"$reprise" replay "$tmp/$t.rpz" --target "$(url "$(fresh)")" -q >"$tmp/out" 2>&1; ops_per_sec >>"$tmp/ox"
		"$reprise" replay "$tmp/$t.rpz" --target "$(url "$(fresh)")" -q -O mode=semantic >"$tmp/out" 2>&1; ops_per_sec >>"$tmp/os"
	done
	x=$(median <"$tmp/ox"); s=$(median <"$tmp/os")
	echo "| $t | $x | $s | $(awk -v x="$x" -v s="$s" 'BEGIN { printf "%.2f", s ? x / s : 0 }') |"
done

if [ -x "$peer" ]; then
	echo "## net_peer (libnfs synchronous calls, $peer_files files of $peer_size) against the exact replay of its capture, $rounds alternating rounds"
	: >"$tmp/tp"; : >"$tmp/tx"
	for _ in $(seq 1 "$rounds"); do
		"$peer" nfs "$(url "$(fresh)")" "$peer_files" "$peer_size" | awk '{ print $4 }' >>"$tmp/tp"
		"$reprise" replay "$tmp/peer.rpz" --target "$(url "$(fresh)")" -q >"$tmp/out" 2>&1
		sed -n 's/^Throughput .* \([0-9.]*\) s measured.*/\1/p' "$tmp/out" >>"$tmp/tx"
	done
	p=$(median <"$tmp/tp"); x=$(median <"$tmp/tx")
	echo "net_peer $p s, reprise exact $x s: reprise / net_peer speed $(awk -v p="$p" -v x="$x" 'BEGIN { printf "%.2f", x ? p / x : 0 }') ($(grep '^Backend mode' "$tmp/out"))"
fi
