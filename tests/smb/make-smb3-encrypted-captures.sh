#!/bin/bash
# Recreate the encrypted SMB3 captures under tests/data/pcap/ and their keys: smbclient doing file
# work against a private smbd with 'server smb encrypt = required' (tests/fixtures/smbd.sh,
# SMBD_ENCRYPT) on 127.0.0.1:4455, captured with tcpdump, one capture per dialect and cipher,
# and the keys smbclient prints with 'debug encryption = yes' (tests/smb/smbclient-keys.awk)
# beside each as CAPTURE.keys (--smb-keys format).  reprise__smb3-enc-311-aes128gcm.pcap does
# smbclient's everyday commands; reprise__smb3-clear-311.pcap is the same commands unencrypted.
# Needs root, samba, smbclient, tcpdump.  Usage: tests/smb/make-smb3-encrypted-captures.sh [OUTDIR]
# SMB3_CAPTURE_PORT picks another port (tests/smb/smb3_live.sh runs it on one of its own).
set -eu
here=$(cd "$(dirname "$0")" && pwd)
out=$(realpath -m "${1:-$here/../data/pcap}")
mkdir -p "$out"
port=${SMB3_CAPTURE_PORT:-4455}
d=$(mktemp -d)
tp=
cleanup() {
	[ -n "$tp" ] && kill "$tp" 2>/dev/null || true
	"$here/../fixtures/smbd.sh" stop "$d/srv" || true
	rm -rf "$d"
}
trap cleanup EXIT
. "$here/../fixtures/smb3_session.sh"
printf 'hello from reprise\n' >"$d/local.txt"
head -c 70000 /dev/zero | tr '\0' 'a' >"$d/big.bin"
everyday="mkdir docs; cd docs; put local.txt hello.txt; put big.bin big.bin; ls; get hello.txt back.txt;
rename hello.txt renamed.txt; del renamed.txt; del big.bin; mkdir sub; rmdir sub; cd ..; rmdir docs"
short="mkdir d; put local.txt d/f.txt; get d/f.txt back.txt; rename d/f.txt d/g.txt; del d/g.txt; rmdir d"

# capture NAME ENCRYPT MAXPROTO CIPHER COMMANDS
capture() {
	local name=$1 enc=$2 proto=$3 cipher=$4 cmds=$5
	smb3_session "$out/$name.pcap" "$d/client.log" "$d/srv" "$port" "$enc" "$proto" "$cipher" "$d" -c "$cmds"
	if [ "$enc" = required ]; then
		{
			echo "# $name.pcap: SESSIONID:SESSIONKEY:S2C:C2S as smbclient printed them (debug encryption)"
			awk -f "$here/smbclient-keys.awk" "$d/client.log"
		} >"$out/$name.pcap.keys"
	fi
	echo "wrote $out/$name.pcap"
}

capture reprise__smb3-enc-311-aes128gcm required SMB3_11 aes-128-gcm "$everyday"
capture reprise__smb3-clear-311 off SMB3_11 aes-128-gcm "$everyday"
capture reprise__smb3-enc-311-aes128ccm required SMB3_11 aes-128-ccm "$short"
capture reprise__smb3-enc-311-aes256gcm required SMB3_11 aes-256-gcm "$short"
capture reprise__smb3-enc-311-aes256ccm required SMB3_11 aes-256-ccm "$short"
capture reprise__smb3-enc-300 required SMB3_00 aes-128-ccm "$short"
capture reprise__smb3-enc-302 required SMB3_02 aes-128-ccm "$short"
