#!/bin/bash
# The nfs backend's NFSv4.0 exact mode keeps its lease through a gap of the trace longer than the lease
# (TAP; docs/replay.md, "Exact mode"): nfs-ganesha on 127.0.0.1 with a lease of 10 s, a trace that opens a
# file, writes, waits 22 s and writes, reads and closes, replayed with --timing trace: the idle client's
# RENEWs of its own keep the open's stateid, 0 mismatched, the renewals counted apart from the trace's ops.
#   nfs4_lease.sh REPRISE SOURCE_ROOT
set -u
reprise=$1
root=$2
fixtures=$root/tests/fixtures
. "${0%/*}/../lib/tap.sh"
. "${0%/*}/../lib/ports.sh"

[ "$(id -u)" -eq 0 ] || { echo "1..0 # SKIP ganesha's VFS export needs root"; exit 77; }
command -v ganesha.nfsd >/dev/null || { echo "1..0 # SKIP nfs-ganesha not installed"; exit 77; }
"$reprise" replay --list-backends 2>/dev/null | grep -q '^  nfs ' || { echo "1..0 # SKIP built without the nfs backend"; exit 77; }

tmp=$(mktemp -d /tmp/reprise-nfs4lease.XXXXXX) || exit 1
srv=$tmp/srv
cleanup() {
	"$fixtures/ganesha.sh" stop "$srv"
	[ -n "${KEEP_TMP:-}" ] || rm -rf "$tmp"
}
trap cleanup EXIT INT TERM

listening() { (exec 3<>/dev/tcp/127.0.0.1/"$1") 2>/dev/null; }
# Ports of our own, free ones, different per run (ganesha's NFS and MOUNT ports can move; rpcbind's cannot).
base=$(free_ports $$) || exit 1
nport=$base mport=$((base + 1))
GANESHA_LEASE=10 "$fixtures/ganesha.sh" start "$srv" "$nport" "$mport" >"$tmp/ganesha.out" 2>&1 || {
	echo "1..0 # SKIP ganesha did not start: $(tail -n 8 "$tmp/ganesha.out" 2>/dev/null | tr '\n' ' ')"
	exit 77
}
mkdir -m 777 "$srv/export/d"
url="nfs://127.0.0.1/export/d?version=4&nfsport=$nport&mountport=$mport"

cat >"$tmp/gap.txt" <<'TRACE'
0.010 0.011 c1 open path="/f" fh=1 want=read,write disp=create of=excl_verify raw=nfs4:access=0x3,disp=1,opts=0x2 -> OK (NFS4_OK)
0.020 0.021 c1 write path="/f" fh=1 off=0 len=4096 ret=4096 raw=nfs4 -> OK (NFS4_OK)
22.000 22.001 c1 write path="/f" fh=1 off=4096 len=4096 ret=4096 raw=nfs4 -> OK (NFS4_OK)
22.010 22.011 c1 read path="/f" fh=1 off=0 len=8192 ret=8192 raw=nfs4 -> OK (NFS4_OK)
22.020 22.021 c1 close path="/f" fh=1 raw=nfs4 -> OK (NFS4_OK)
TRACE
if timeout -k 5 120 "$reprise" replay "$tmp/gap.txt" --target "$url" --timing trace --json "$tmp/gap.json" \
	>"$tmp/out" 2>"$tmp/err"; then
	ok "a trace with a 22 s gap replayed with --timing trace (lease 10 s)"
else
	echo "# exit $?"
	not_ok "a trace with a 22 s gap replayed with --timing trace (lease 10 s)"
fi
has "every op exact, the renewals counted apart" out \
	'^Backend mode: exact \(5 ops sent as the request they were recorded as\); [1-9][0-9]* requests? of its own \(lease renewals\)$'
has "0 mismatched" out '^Failed 0, mismatched 0$'
has "the JSON counts the renewals apart" gap.json '"backend_own_requests": [1-9]'
if [ "$(stat -c %s "$srv/export/d/f" 2>/dev/null)" = 8192 ]; then ok "the write after the gap reached the file"
else not_ok "the write after the gap reached the file"; fi
echo "1..$n"
