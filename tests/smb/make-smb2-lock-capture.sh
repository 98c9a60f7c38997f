#!/bin/sh
# Recreate tests/data/pcap/reprise__smb2-locks-smbtorture.pcap: Samba's smbtorture (Debian
# samba-testsuite) running its SMB2 byte-range lock tests smb2.lock.rw-shared and smb2.lock.contend
# against a private smbd on 127.0.0.1:445 (tests/fixtures/smbd.sh), captured with tcpdump.
# Neither smbclient (its `lock` is an SMB1 POSIX lock) nor libsmbclient nor the samba python
# bindings can send SMB2 LOCK; smbtorture can.  Needs root, samba, samba-testsuite, tcpdump.
# Usage: tests/smb/make-smb2-lock-capture.sh [OUT.pcap]
set -eu
here=$(cd "$(dirname "$0")" && pwd)
out=$(realpath -m "${1:-$here/../data/pcap/reprise__smb2-locks-smbtorture.pcap}")
command -v smbtorture >/dev/null || { echo "make-smb2-lock-capture.sh: smbtorture missing (apt-get install samba-testsuite)" >&2; exit 1; }
d=$(mktemp -d)
tp=
cleanup() {
	[ -n "$tp" ] && kill "$tp" 2>/dev/null || true
	"$here/../fixtures/smbd.sh" stop "$d/srv" || true
	rm -rf "$d"
}
trap cleanup EXIT
"$here/../fixtures/smbd.sh" start "$d/srv" 445
tcpdump -i lo -s 0 -B 65536 --immediate-mode -U -Z root -w "$out" 'tcp port 445' 2>/dev/null &
tp=$!
sleep 1
smbtorture //127.0.0.1/share -U root%pw smb2.lock.rw-shared smb2.lock.contend >"$d/torture.log" 2>&1 ||
	{ cat "$d/torture.log" >&2; exit 1; }
sleep 1
kill "$tp"
wait "$tp" 2>/dev/null || true
tp=
echo "wrote $out"
