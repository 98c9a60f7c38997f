#!/bin/sh
# Recreate tests/data/pcap/reprise__smb1-nt1-smbclient.pcap: smbclient speaking SMB1 (NT1)
# to a private smbd on 127.0.0.1:445, captured with tcpdump.  Needs root, samba, smbclient, tcpdump.
# Usage: tests/smb/make-smb1-capture.sh OUT.pcap
set -eu
out=$(realpath -m "$1")
d=$(mktemp -d)
mkdir -p "$d/share" "$d/state" "$d/priv" "$d/lock" "$d/cache" "$d/pid" "$d/ncalrpc"
cat >"$d/smb.conf" <<CONF
[global]
server role = standalone server
interfaces = lo
bind interfaces only = yes
smb ports = 445
disable netbios = yes
server min protocol = NT1
server max protocol = NT1
server smb encrypt = off
private dir = $d/priv
lock directory = $d/lock
state directory = $d/state
cache directory = $d/cache
pid directory = $d/pid
ncalrpc dir = $d/ncalrpc
log file = $d/log
passdb backend = tdbsam
load printers = no
disable spoolss = yes
map to guest = bad user
[share]
path = $d/share
read only = no
guest ok = yes
create mask = 0666
force create mode = 0666
directory mask = 0777
force directory mode = 0777
CONF
printf 'pw\npw\n' | smbpasswd -c "$d/smb.conf" -s -a root >/dev/null
smbd -D -s "$d/smb.conf"
sleep 1
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
kill "$(cat "$d/pid/smbd.pid")"
sleep 0.5
rm -rf "$d"
echo "wrote $out"
