#!/bin/sh
# Recreate tests/data/pcap/reprise__nfs4-locks.pcap: two libnfs NFSv4.0 clients taking, testing,
# contending for and releasing byte-range locks (LOCK, LOCKT, LOCKU) on a private nfs-ganesha on
# 127.0.0.1, captured with tcpdump.  Needs root, nfs-ganesha (VFS FSAL), rpcbind, tcpdump, and the
# nfs4-locks helper that meson builds when libnfs is found (tests/fixtures/nfs4_locks.c).
# Usage: tests/nfs4/make-lock-capture.sh BUILD_DIR [OUT.pcap]
set -eu
here=$(cd "$(dirname "$0")" && pwd)
build=$(realpath "${1:?usage: make-lock-capture.sh BUILD_DIR [OUT.pcap]}")
out=$(realpath -m "${2:-$here/../data/pcap/reprise__nfs4-locks.pcap}")
helper=$build/tests/nfs4/nfs4-locks
[ -x "$helper" ] || { echo "make-lock-capture.sh: $helper not built (libnfs missing?)" >&2; exit 1; }
port=${NFS4_LOCKS_PORT:-32049}
d=$(mktemp -d)
tp=
cleanup() {
	[ -n "$tp" ] && kill "$tp" 2>/dev/null || true
	"$here/../fixtures/ganesha.sh" stop "$d/srv" || true
	rm -rf "$d"
}
trap cleanup EXIT
"$here/../fixtures/ganesha.sh" start "$d/srv" "$port" "$((port + 1))"
tcpdump -i lo -s 0 -B 65536 --immediate-mode -U -Z root -w "$out" "tcp port $port" 2>/dev/null &
tp=$!
sleep 1
"$helper" "nfs://127.0.0.1/export?version=4&nfsport=$port"
sleep 1
kill "$tp"
wait "$tp" 2>/dev/null || true
tp=
echo "wrote $out"
