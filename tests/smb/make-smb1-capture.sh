#!/bin/sh
# Recreate tests/data/pcap/reprise__smb1-nt1-smbclient.pcap: smbclient speaking SMB1 (NT1)
# to a private smbd on 127.0.0.1:445, captured with tcpdump.  Needs root, samba, smbclient, tcpdump.
# Usage: tests/smb/make-smb1-capture.sh OUT.pcap
set -eu
out=$(realpath -m "$1")
d=$(mktemp -d)
fixture=$(cd "$(dirname "$0")/../fixtures" && pwd)/smbd.sh
SMBD_PROTOCOLS="NT1 NT1" "$fixture" start "$d/smbd" 445
tcpdump -i lo -s 0 -B 65536 --immediate-mode -U -Z root -w "$out" 'tcp port 445' 2>/dev/null &
tp=$!
sleep 1
printf 'hello from reprise\n' >"$d/local.txt"
head -c 70000 /dev/zero | tr '\0' 'a' >"$d/big.bin"
cd "$d"
smbclient //127.0.0.1/share -U root%pw -m NT1 --option='client min protocol=NT1' -c "
mkdir docs; cd docs; put local.txt hello.txt; put big.bin big.bin; ls; get hello.txt back.txt;
rename hello.txt renamed.txt; allinfo renamed.txt; del renamed.txt; del big.bin; cd ..; rmdir docs; ls" >/dev/null
sleep 1
kill "$tp"
wait "$tp" 2>/dev/null || true
"$fixture" stop "$d/smbd"
rm -rf "$d"
echo "wrote $out"
