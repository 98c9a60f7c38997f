#!/bin/sh
# Recreate tests/data/pcap/reprise__smb3-smbclient.pcap: the first capture a user makes, smbclient's
# everyday commands (mkdir, put, ls, get, rename, del, rmdir) over SMB 3.1.1 to a private smbd on
# 127.0.0.1:445 (tests/fixtures/smbd.sh), captured with tcpdump.  Needs root, samba, smbclient, tcpdump.
# Usage: tests/smb/make-smb3-smbclient-capture.sh [OUT.pcap]
set -eu
here=$(cd "$(dirname "$0")" && pwd)
out=$(realpath -m "${1:-$here/../data/pcap/reprise__smb3-smbclient.pcap}")
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
printf 'hello from reprise\n' >"$d/local.txt"
head -c 70000 /dev/zero | tr '\0' 'a' >"$d/big.bin"
cd "$d"
# `del` and `rmdir` take a pattern: smbclient lists it (QUERY_DIRECTORY) before it deletes what
# matched, and a `del` of a name that matches nothing ends that listing with STATUS_NO_SUCH_FILE.
smbclient //127.0.0.1/share -U root%pw -c "
mkdir docs; cd docs; put local.txt hello.txt; put big.bin big.bin; ls; get hello.txt back.txt;
rename hello.txt renamed.txt; del renamed.txt; del big.bin; del nothing.txt; mkdir sub; rmdir sub;
cd ..; rmdir docs; ls" >"$d/client.log" 2>&1 || true
sleep 1
kill "$tp"
wait "$tp" 2>/dev/null || true
tp=
echo "wrote $out"
