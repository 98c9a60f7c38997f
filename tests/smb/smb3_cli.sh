#!/bin/sh
# SMB3 decryption from the command line (TAP): --smb-keys files and --smb-key, the clear session's
# ops equal the decrypted one's, bad keys are usage errors that never print a key, no key and a
# wrong key are counted and explained, --strict fails on them (docs/capture.md, "Encrypted SMB3").
#   smb3_cli.sh REPRISE SOURCE_ROOT
set -u
reprise=$1 src=$2
pcaps=$src/tests/data/pcap
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT INT TERM
. "${0%/*}/../lib/tap.sh"
check() { desc=$1; shift; if "$@" >"$tmp/out" 2>"$tmp/err"; then ok "$desc"; else not_ok "$desc"; fi; }
check_exit() { desc=$1; want=$2; shift 2; "$@" >"$tmp/out" 2>"$tmp/err"; rc=$?
	if [ "$rc" = "$want" ]; then ok "$desc"; else echo "# exit $rc, wanted $want"; not_ok "$desc"; fi; }
# The ops without their times (fields 1-2): what a session did, whoever carried it.
ops() { "$reprise" cat "$1" | cut -d' ' -f3-; }

enc=$pcaps/reprise__smb3-enc-311-aes128gcm.pcap
keys=$enc.keys
line=$(grep -v '^#' "$keys")
sid=${line%%:*}
skey=$(echo "$line" | cut -d: -f2)
echo "1..29"

# 1-4. a keys file decrypts, and the ops are the clear session's, line for line
check "--smb-keys FILE decrypts" "$reprise" convert --smb-keys "$keys" "$enc" "$tmp/all.rpz"
has "the summary counts the decrypted messages" err 'decrypted 100, decrypt failed 0'
check "the same commands unencrypted" "$reprise" convert -q "$pcaps/reprise__smb3-clear-311.pcap" "$tmp/clear.rpz"
ops "$tmp/all.rpz" >"$tmp/a.ops"; ops "$tmp/clear.rpz" >"$tmp/c.ops"
if [ -s "$tmp/a.ops" ] && cmp -s "$tmp/a.ops" "$tmp/c.ops"; then ok "decrypted ops equal the clear session's ($(wc -l <"$tmp/c.ops") ops)"; else
	diff "$tmp/c.ops" "$tmp/a.ops" | head -10 | sed 's/^/# /'; not_ok "decrypted ops equal the clear session's"; fi

# 5-6. the session key alone, given on the command line, gives the same trace (3.1.1: preauth hash)
check "--smb-key SID:KEY (session key alone)" "$reprise" convert -q --smb-key "$sid:$skey" "$enc" "$tmp/one.rpz"
ops "$tmp/one.rpz" >"$tmp/o.ops"
if cmp -s "$tmp/o.ops" "$tmp/a.ops"; then ok "the same ops as with all four keys"; else not_ok "the same ops as with all four keys"; fi

# 7-8. no key: counted encrypted, the summary says how to give keys; --strict fails
check "no key: converts" "$reprise" convert "$enc" "$tmp/none.rpz"
has "no key: the summary names --smb-key and --smb-keys" err 'encrypted: 100 SMB3 messages had no key.*--smb-key .*--smb-keys FILE'

# 9-11. a wrong key: every message fails to verify, nothing decoded, no crash; --strict exits 1
bad=$(echo "$skey" | sed 's/.$/0/')
[ "$bad" = "$skey" ] && bad=$(echo "$skey" | sed 's/.$/1/')
check "a wrong key: converts" "$reprise" convert --smb-key "$sid:$bad" "$enc" "$tmp/bad.rpz"
has "a wrong key: failures counted and explained" err 'decrypt failed 100.*|decrypt failed: 100 SMB3 messages did not verify'
check_exit "a wrong key with --strict: exit 1" 1 "$reprise" convert --strict --smb-key "$sid:$bad" "$enc" "$tmp/bad2.rpz"

# 12-18. bad keys are usage errors (exit 2) that say what is wrong and where, never the key
printf '# keys\n\n%s\n%s:%s:zz\n' "$line" "0100000000000000" "$skey" >"$tmp/bad.keys"
check_exit "a bad line in --smb-keys: exit 2" 2 "$reprise" convert --smb-keys "$tmp/bad.keys" "$enc" "$tmp/x.rpz"
has "the error names file:line" err "bad.keys:4: SMB key: want SESSIONID:KEY or SESSIONID:KEY:S2C:C2S"
lacks "the error does not print the key" err "$skey"
check_exit "a short session id: exit 2" 2 "$reprise" convert --smb-key "1234:$skey" "$enc" "$tmp/x.rpz"
lacks "nor does that one" err "$skey"
check_exit "a missing --smb-keys file: exit 2" 2 "$reprise" convert --smb-keys "$tmp/nothere" "$enc" "$tmp/x.rpz"
has "naming it" err "nothere: No such file"

# A NUL byte is not text: refused with file:line, whether the file is all NULs or a NUL ends a key
# line early (read as "no keys" or as the line's head before); a file past the documented bound
# (/dev/zero never ended) is refused, under a timeout.
head -c 100 /dev/zero >"$tmp/nul.keys"
check_exit "--smb-keys: a file of NUL bytes: exit 2" 2 timeout 20 "$reprise" convert --smb-keys "$tmp/nul.keys" "$enc" "$tmp/x.rpz"
has "naming the NUL and where" err "nul.keys:1: a NUL byte"
{ printf '# keys\n%s' "$line"; printf '\000junk\n'; } >"$tmp/nul2.keys"
check_exit "--smb-keys: a NUL inside a key line: exit 2" 2 timeout 20 "$reprise" convert --smb-keys "$tmp/nul2.keys" "$enc" "$tmp/x.rpz"
has "naming the line" err "nul2.keys:2: a NUL byte"
check_exit "--smb-keys /dev/zero: ends, exit 2" 2 timeout 20 "$reprise" convert --smb-keys /dev/zero "$enc" "$tmp/x.rpz"
awk 'BEGIN { for (i = 0; i < 40000; i++) printf "# %070d\n", i }' >"$tmp/big.keys"
check_exit "--smb-keys over 2 MiB: exit 2" 2 timeout 20 "$reprise" convert --smb-keys "$tmp/big.keys" "$enc" "$tmp/x.rpz"
has "naming the bound" err "big.keys: larger than 2097152 bytes"

# 19-20. the key is nowhere in the trace or its metadata
"$reprise" cat --meta "$tmp/one.rpz" >"$tmp/out" 2>&1
lacks "the trace's metadata holds no key" out "$skey"
check_exit "a command's syscall capture takes no --smb-key: exit 2" 2 "$reprise" capture --smb-key "$sid:$skey" -o "$tmp/x.rpz" -- true

# 21-22. --help of convert and capture describe the options
"$reprise" convert --help >"$tmp/out" 2>&1
has "convert --help has --smb-key and --smb-keys" out '--smb-keys FILE'
"$reprise" capture --help >"$tmp/out" 2>&1
has "capture --help has --smb-key" out '--smb-key SID:KEY'
