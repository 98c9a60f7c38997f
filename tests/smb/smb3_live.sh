#!/bin/bash
# SMB3 decryption against a real smbd (TAP): tests/smb/make-smb3-encrypted-captures.sh makes fresh
# encrypted captures (smbd with 'server smb encrypt = required'; 3.0, 3.0.2, 3.1.1 with each cipher)
# and one unencrypted with the same smbclient commands, with the keys smbclient printed; then
# (a) with all four keys the decrypted ops equal the unencrypted session's, line for line but times;
# (b) the session key alone gives the same trace (3.1.1 through the preauth hash); tshark with all
# four keys decrypts as many messages; (c) no key: all counted encrypted; a wrong key: all failed.
#   smb3_live.sh REPRISE SOURCE_ROOT
set -u
reprise=$1 root=$2
. "${0%/*}/../lib/tap.sh"
. "${0%/*}/../lib/ports.sh"
[ "$(id -u)" = 0 ] || { echo "1..0 # SKIP needs root (tcpdump on lo)"; exit 0; }
for t in smbd smbclient tcpdump; do
	command -v "$t" >/dev/null || { echo "1..0 # SKIP $t not installed"; exit 0; }
done
tmp=$(mktemp -d /tmp/reprise-smb3.XXXXXX) || exit 1
trap 'rm -rf "$tmp"' EXIT INT TERM
ops() { "$reprise" cat "$1" | cut -d' ' -f3-; }
count() { sed -n "s/.*$1 \([0-9]*\).*/\1/p" "$2" | head -1; }

# A free port of our own (tests/lib/ports.sh), different per run.
port=$(free_ports $$ 1) || exit 1
if ! SMB3_CAPTURE_PORT=$port "$root/tests/smb/make-smb3-encrypted-captures.sh" "$tmp/cap" >"$tmp/make.log" 2>&1; then
	echo "1..0 # SKIP could not make the captures: $(tail -c 300 "$tmp/make.log" | tr '\n' ' ')"
	exit 0
fi
caps=$(cd "$tmp/cap" && ls reprise__smb3-enc-*.pcap)
echo "1..$((2 + 5 * $(echo "$caps" | wc -w)))"

"$reprise" convert -q "$tmp/cap/reprise__smb3-clear-311.pcap" "$tmp/clear.rpz" 2>"$tmp/err"
ops "$tmp/clear.rpz" >"$tmp/clear.ops"
if [ "$(grep -c ' open ' "$tmp/clear.ops")" -ge 10 ]; then ok "the unencrypted session: $(wc -l <"$tmp/clear.ops") ops"; else not_ok "the unencrypted session has its ops"; fi
for c in $caps; do
	f=$tmp/cap/$c
	line=$(grep -v '^#' "$f.keys")
	sid=${line%%:*} skey=$(echo "$line" | cut -d: -f2)
	"$reprise" convert --smb-keys "$f.keys" "$f" "$tmp/all.rpz" 2>"$tmp/all.err"
	"$reprise" convert --smb-key "$sid:$skey" "$f" "$tmp/one.rpz" 2>"$tmp/one.err"
	"$reprise" convert "$f" "$tmp/none.rpz" 2>"$tmp/none.err"
	"$reprise" convert --smb-key "$sid:$(echo "$skey" | tr '0-9a-f' '1-9a-f0')" "$f" "$tmp/bad.rpz" 2>"$tmp/bad.err"
	d=$(count decrypted "$tmp/all.err") e=$(count encrypted "$tmp/none.err")
	ops "$tmp/all.rpz" >"$tmp/all.ops"
	ops "$tmp/one.rpz" >"$tmp/one.ops"
	if [ "${d:-0}" -gt 0 ] && [ "$(count 'decrypt failed' "$tmp/all.err")" = 0 ] && [ "$(count encrypted "$tmp/all.err")" = 0 ]; then
		ok "$c: all four keys decrypt all $d messages"; else cp "$tmp/all.err" "$tmp/err"; not_ok "$c: all four keys decrypt"; fi
	if [ -s "$tmp/one.ops" ] && cmp -s "$tmp/all.ops" "$tmp/one.ops"; then ok "$c: the session key alone gives the same $(wc -l <"$tmp/one.ops") ops"; else
		cp "$tmp/one.err" "$tmp/err"; not_ok "$c: the session key alone gives the same ops"; fi
	if [ "$e" = "$d" ] && grep -q -- '--smb-keys FILE' "$tmp/none.err"; then ok "$c: no key: $e counted encrypted, with the hint"; else
		cp "$tmp/none.err" "$tmp/err"; not_ok "$c: no key: counted encrypted"; fi
	if [ "$(count 'decrypt failed' "$tmp/bad.err")" = "$d" ]; then ok "$c: a wrong key: $d failures, nothing decoded"; else
		cp "$tmp/bad.err" "$tmp/err"; not_ok "$c: a wrong key: failures counted"; fi
	if command -v tshark >/dev/null; then
		td=$(tshark -r "$f" -d "tcp.port==$port,nbss" -o "uat:smb2_seskey_list:$(echo "$line" | tr : ,)" 2>/dev/null | grep -c 'Decrypted SMB3')
		if [ "$td" = "$d" ]; then ok "$c: tshark with all four keys decrypts $td too"; else
			echo "# tshark $td, reprise $d"; not_ok "$c: tshark decrypts as many"; fi
	else
		ok "$c: tshark comparison # SKIP tshark not installed"
	fi
done
# (a) the everyday commands: encrypted and decrypted equals unencrypted, op for op
f=$tmp/cap/reprise__smb3-enc-311-aes128gcm.pcap
"$reprise" convert -q --smb-keys "$f.keys" "$f" "$tmp/gcm.rpz" 2>"$tmp/err"
ops "$tmp/gcm.rpz" >"$tmp/gcm.ops"
if cmp -s "$tmp/gcm.ops" "$tmp/clear.ops"; then ok "decrypted 3.1.1 AES-128-GCM session = the unencrypted one, op for op"; else
	diff "$tmp/clear.ops" "$tmp/gcm.ops" >"$tmp/err"; not_ok "decrypted session = the unencrypted one"; fi
