#!/bin/bash
# Network replay against loopback servers, in one run (docs/BENCHMARKS.md, "Network replay"):
#   (a) client.txt (its first LINES lines) with 2 and 8 clients, as fast as possible, over NFSv3,
#       NFSv4 and SMB3: reprise's ops/s and MB/s;
#   (b) a fixed mix (FILES files: create, SIZE of 4 KiB writes, close, stat, open, 4 KiB reads, close,
#       unlink) by bench/net_peer (libnfs / libsmbclient synchronous calls, one request at a time)
#       next to reprise replaying the same mix as a loadfile, 1 client (one op at a time: a loadfile
#       records no overlap, so a wider window changes nothing there);
#   (c) the in-flight window on a captured asynchronous NFS trace (tests/data: a Linux NFSv4.1 client
#       writes, several calls in flight): --max-inflight 1 (one at a time; the default is now auto, the recorded depth) against 16, over NFSv3.
# Servers: tests/fixtures/ganesha.sh and smbd.sh on free ports of 127.0.0.1, stopped at the end.
# Also the CPU each side used (reprise's user+sys, the server's from /proc/PID/stat) to say which
# side is the bottleneck.
#   usage: bench/net_bench.sh     REPRISE=build/cli/reprise PEER=build/bench/net-peer LINES=6000 FILES=200 SIZE=65536 ROUNDS=3
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
reprise=${REPRISE:-$top/build/cli/reprise}
peer=${PEER:-$(dirname "$reprise")/../bench/net-peer}
lines=${LINES:-6000}
files=${FILES:-200}
size=${SIZE:-65536}
rounds=${ROUNDS:-3}
fixtures=$top/tests/fixtures
[ -x "$reprise" ] || { echo "net_bench: no $reprise (build first, or set REPRISE)" >&2; exit 1; }
[ -x "$peer" ] || { echo "net_bench: no $peer (set PEER)" >&2; exit 1; }
[ "$(id -u)" -eq 0 ] || { echo "net_bench: ganesha's VFS export needs root" >&2; exit 1; }
tmp=$(mktemp -d /tmp/reprise-netbench.XXXXXX) || exit 1
cleanup() {
	"$fixtures/ganesha.sh" stop "$tmp/nfs" >/dev/null 2>&1
	"$fixtures/smbd.sh" stop "$tmp/smb" >/dev/null 2>&1
	rm -rf "$tmp"
}
trap cleanup EXIT INT TERM
# Ports as the tests pick them (tests/lib/ports.sh): free of every socket, below the ephemeral range.
. "$top/tests/lib/ports.sh"
base=$(free_ports $$ 3) || exit 1
nport=$base mport=$((base + 1)) sport=$((base + 2))
"$fixtures/ganesha.sh" start "$tmp/nfs" "$nport" "$mport" >"$tmp/ganesha.out" 2>&1 || { cat "$tmp/ganesha.out" >&2; exit 1; }
"$fixtures/smbd.sh" start "$tmp/smb" "$sport" >"$tmp/smbd.out" 2>&1 || { cat "$tmp/smbd.out" >&2; exit 1; }
nfs_export=$tmp/nfs/export smb_share=$tmp/smb/share
url() { # url PROTO DIR
	case $1 in
	nfs3) echo "nfs://127.0.0.1/export/$2?version=3&nfsport=$nport&mountport=$mport" ;;
	nfs4) echo "nfs://127.0.0.1/export/$2?version=4&nfsport=$nport" ;;
	smb3) echo "smb://127.0.0.1:$sport/share/$2" ;;
	esac
}
root_of() { case $1 in nfs*) echo "$nfs_export" ;; smb3) echo "$smb_share" ;; esac; }
export REPRISE_SMB_PASSWORD=pw
smb_user=(--user root)
server_pids() { case $1 in nfs*) cat "$tmp/nfs/ganesha.pid" ;; smb3) pgrep -f "smbd.*$tmp/smb" | tr '\n' ' ' ;; esac; }
# CPU ticks of the server: its processes' own, and their reaped children's (smbd forks one per connection)
cpu_ticks() { t=0; for p in $(server_pids "$1"); do [ -r /proc/$p/stat ] && t=$((t + $(awk '{print $14 + $15 + $16 + $17}' /proc/$p/stat))); done; echo $t; }
# A directory of its own for every run: the servers cache what they saw, and one removed and made
# again behind their back would be stale to them.
fresh_dir() { d=$(mktemp -d "$(root_of "$1")/bXXXXXX") && chmod 777 "$d" && echo "${d##*/}"; }
hz=$(getconf CLK_TCK)

head -n "$lines" /usr/share/dbench/client.txt >"$tmp/client.txt"
# the fixed mix as a dbench loadfile: the same calls net_peer makes
python3 - "$files" "$size" >"$tmp/mix.txt" <<'PY'
import sys
files, size = int(sys.argv[1]), int(sys.argv[2])
print('NTCreateX "\\clients\\client1" 0x1 0x2 1 NT_STATUS_OK')
print("Close 1 NT_STATUS_OK")
h = 10
for i in range(files):
    p = '"\\clients\\client1\\peer-f%d"' % i
    print("NTCreateX %s 0x0 0x5 %d NT_STATUS_OK" % (p, h))
    for off in range(0, size, 4096):
        print("WriteX %d %d 4096 4096 NT_STATUS_OK" % (h, off))
    print("Close %d NT_STATUS_OK" % h)
    print("QUERY_PATH_INFORMATION %s 1004 NT_STATUS_OK" % p)
    print("NTCreateX %s 0x0 0x1 %d NT_STATUS_OK" % (p, h + 1))
    for off in range(0, size, 4096):
        print("ReadX %d %d 4096 4096 NT_STATUS_OK" % (h + 1, off))
    print("Close %d NT_STATUS_OK" % (h + 1))
    print("Unlink %s 0x6 NT_STATUS_OK" % p)
    h += 2
PY

# replay PROTO LOADFILE CLIENTS [OPTS...]: "ops/s MB/s reprise-cpu-s server-cpu-s mismatches"
replay() {
	proto=$1 load=$2 clients=$3
	shift 3
	d=$(fresh_dir "$proto")
	extra=()
	[ "$proto" = smb3 ] && extra=("${smb_user[@]}")
	s0=$(cpu_ticks "$proto")
	/usr/bin/time -f "%U %S" -o "$tmp/time" "$reprise" replay "$load" --target "$(url "$proto" "$d")" \
		--clients "$clients" -q --json "$tmp/r.json" "${extra[@]}" "$@" >"$tmp/out" 2>"$tmp/err" ||
		{ echo "replay failed: $(tail -2 "$tmp/err")"; return; }
	s1=$(cpu_ticks "$proto")
	python3 - "$tmp/r.json" "$tmp/time" "$((s1 - s0))" "$hz" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
u, s = open(sys.argv[2]).read().split()[-2:]
print("%.0f %.1f %.2f %.2f %d" % (d["ops_per_sec"], d["mb_per_sec"], float(u) + float(s), int(sys.argv[3]) / int(sys.argv[4]), d["mismatches"]))
PY
}
peer_run() {
	proto=$1
	d=$(fresh_dir "$proto")
	case $proto in nfs*) kind=nfs ;; *) kind=smb ;; esac
	NET_PEER_USER=root NET_PEER_PASS=pw "$peer" "$kind" "$(url "$proto" "$d")" "$files" "$size" | awk '{print $6}'
}
median() { sort -n | awk '{a[NR]=$1} END{print a[int((NR+1)/2)]}'; }

echo "# network replay benchmark, $(date -u '+%Y-%m-%d %H:%M UTC'), load $(cut -d' ' -f1-3 /proc/loadavg)"
echo "# (a) client.txt first $lines lines, afap: ops/s MB/s reprise-CPU-s server-CPU-s mismatches (median round by ops/s)"
for proto in nfs3 nfs4 smb3; do
	for c in 2 8; do
		for r in $(seq "$rounds"); do replay "$proto" "$tmp/client.txt" "$c"; done >"$tmp/a"
		echo "$proto clients=$c: $(sort -n "$tmp/a" | awk '{a[NR]=$0} END{print a[int((NR+1)/2)]}')"
	done
done
echo "# (b) fixed mix, $files files of $size bytes, 1 client: ops/s (median of $rounds, alternating)"
for proto in nfs3 nfs4 smb3; do
	: >"$tmp/p"; : >"$tmp/w1"
	for r in $(seq "$rounds"); do
		peer_run "$proto" >>"$tmp/p"
		replay "$proto" "$tmp/mix.txt" 1 | awk '{print $1}' >>"$tmp/w1"
	done
	p=$(median <"$tmp/p") w1=$(median <"$tmp/w1")
	echo "$proto: net_peer $p, reprise $w1 ($(awk -v a="$w1" -v b="$p" 'BEGIN{printf "%.2f", a/b}')x)"
done
echo "# (c) the in-flight window on a captured asynchronous NFS trace, over NFSv3"
cap=$top/tests/data/pcap/nfstrace__eth-ipv4-tcp-nfsv41.pcap
"$reprise" convert "$cap" "$tmp/async.rpz" 2>/dev/null
"$reprise" stat "$tmp/async.rpz" 2>/dev/null | grep -E "^(ops|clients|duration) " | sed "s/^/#   /"
for r in $(seq "$rounds"); do
	echo "$(replay nfs3 "$tmp/async.rpz" 1 --max-inflight 1 | awk '{print $1}') $(replay nfs3 "$tmp/async.rpz" 1 --max-inflight 16 | awk '{print $1}')"
done >"$tmp/c"
echo "nfs3 async trace: --max-inflight 1 $(awk '{print $1}' "$tmp/c" | median) ops/s, --max-inflight 16 $(awk '{print $2}' "$tmp/c" | median) ops/s"
