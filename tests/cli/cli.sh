#!/bin/sh
# End-to-end checks of the reprise command: convert, cat, stat, errors, help, man page.
#   cli.sh REPRISE SOURCE_ROOT
set -u
reprise=$1 src=$2
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT INT TERM
. "${0%/*}/../lib/tap.sh"

check() { desc=$1; shift; if "$@" >"$tmp/out" 2>"$tmp/err"; then ok "$desc"; else not_ok "$desc"; fi; }
check_fails() { desc=$1; want=$2; shift 2; "$@" >"$tmp/out" 2>"$tmp/err"; rc=$?
	if [ "$rc" = "$want" ]; then ok "$desc"; else echo "# exit $rc, wanted $want"; not_ok "$desc"; fi; }
err_has() { if grep -q -- "$2" "$tmp/err"; then ok "$1"; else echo "# stderr lacks: $2"; not_ok "$1"; fi; }
out_has() { if grep -q -- "$2" "$tmp/out"; then ok "$1"; else echo "# stdout lacks: $2"; not_ok "$1"; fi; }

# help and usage
check "reprise --help lists the commands" "$reprise" --help
out_has "help names convert" "convert"
check_fails "an unknown command exits 2" 2 "$reprise" frobnicate
err_has "and says so" "unknown command 'frobnicate'"
check_fails "convert without arguments exits 2" 2 "$reprise" convert
err_has "with its usage" "usage: reprise convert"
check_fails "an unknown option exits 2" 2 "$reprise" cat --bogus x
for c in convert cat stat; do
	check "reprise $c --help" "$reprise" "$c" --help
done
"$reprise" --man >"$tmp/man" 2>"$tmp/err"
# The page lists the built backends: a build without the smb or the nfs backend (-Dsmbclient=disabled, -Dlibnfs=disabled) cannot match it.
if ! "$reprise" replay --list-backends | grep -q '^  smb '; then ok "docs/reprise.1 matches reprise --man # skip built without the smb backend"
elif "$reprise" -V | grep -q 'libnfs=no'; then ok "docs/reprise.1 matches reprise --man # skip built without the nfs backend"
elif cmp -s "$tmp/man" "$src/docs/reprise.1"; then ok "docs/reprise.1 matches reprise --man"; else
	echo "# regenerate: build/cli/reprise --man > docs/reprise.1"; not_ok "docs/reprise.1 matches reprise --man"; fi

# a small SMB loadfile through every form
cat >"$tmp/small.txt" <<'LOAD'
NTCreateX "\clients\client1\a.txt" 0x0 0x2 100 NT_STATUS_OK
WriteX 100 0 4096 4096 NT_STATUS_OK
ReadX 100 0 4096 4096 NT_STATUS_OK
Close 100 NT_STATUS_OK
Unlink "\clients\client1\a.txt" 0x6 NT_STATUS_OK
Unlink "\clients\client1\missing" 0x6 NT_STATUS_OBJECT_NAME_NOT_FOUND
LOAD
check "convert a loadfile to .rpz" "$reprise" convert "$tmp/small.txt" "$tmp/small.rpz"
check "cat the trace" "$reprise" cat "$tmp/small.rpz"
if [ "$(wc -l <"$tmp/out")" -eq 6 ]; then ok "cat prints one line per op"; else not_ok "cat prints one line per op"; fi
out_has "cat shows a write with its fields" 'c1 write fh=100 off=0 len=4096 ret=4096 raw=dbench-smb -> OK (NT_STATUS_OK)'
out_has "cat shows the original status" 'unlink path="/clients/client1/missing" raw=dbench-smb:opts=0x6 -> ENOENT (NT_STATUS_OBJECT_NAME_NOT_FOUND)'
check "stat --json" "$reprise" stat --json "$tmp/small.rpz"
cp "$tmp/out" "$tmp/stat.json"
# jq-like checks on the JSON: jsonq FILE EXPR (d is the document)
jsonq() { python3 -c "import json,sys; d=json.load(open(sys.argv[1])); sys.exit(0 if ($2) else 1)" "$1"; }
if jsonq "$tmp/stat.json" 'd["ops"] == 6'; then ok "stat counts ops"; else not_ok "stat counts ops"; fi
if jsonq "$tmp/stat.json" 'd["bytes_read"] == 4096'; then ok "stat counts bytes read"; else not_ok "stat counts bytes read"; fi
if jsonq "$tmp/stat.json" 'd["bytes_written"] == 4096'; then ok "stat counts bytes written"; else not_ok "stat counts bytes written"; fi
if jsonq "$tmp/stat.json" 'list(d["op_counts"].items()) == [("open", 1), ("close", 1), ("read", 1), ("write", 1), ("unlink", 2)]'
then ok "stat has the op mix"; else not_ok "stat has the op mix"; fi
check "convert the trace back to a loadfile" "$reprise" convert "$tmp/small.rpz" "$tmp/back.txt"
if diff -bw "$tmp/small.txt" "$tmp/back.txt" >"$tmp/err"; then ok "the loadfile round trip is exact"; else not_ok "the loadfile round trip is exact"; fi
check "convert again" "$reprise" convert "$tmp/small.txt" "$tmp/small2.rpz"
if cmp -s "$tmp/small.rpz" "$tmp/small2.rpz"; then ok "same ops give the same bytes"; else not_ok "same ops give the same bytes"; fi
check "cat reads a loadfile directly" "$reprise" cat "$tmp/small.txt"
check "stat reads a loadfile directly" "$reprise" stat "$tmp/small.txt"
out_has "the table names the source" "loadfile-smb"

# errors: clear messages, no crash
check_fails "a missing input fails" 1 "$reprise" cat "$tmp/nope.rpz"
err_has "naming the file" "nope.rpz"
printf '\211PNG\r\n\032\n garbage' >"$tmp/junk.bin"
check_fails "a non-trace fails" 1 "$reprise" stat "$tmp/junk.bin"
printf 'NTCreateX "\\x" 0x0 0x2 1 NT_STATUS_OK\nWriteX 1 zero 10 10 NT_STATUS_OK\n' >"$tmp/bad.txt"
check_fails "a bad loadfile line fails in strict mode" 1 "$reprise" convert "$tmp/bad.txt" "$tmp/bad.rpz"
err_has "with file:line" "bad.txt:2:"
check "--lenient skips it" "$reprise" convert --lenient "$tmp/bad.txt" "$tmp/bad.rpz"
err_has "and reports the count" "skipped 1 bad line"
check_fails "an unknown output format is refused" 2 "$reprise" convert "$tmp/small.txt" "$tmp/out.xyz"
size=$(wc -c <"$tmp/small.rpz")
head -c $((size - 3)) "$tmp/small.rpz" >"$tmp/cut.rpz"
"$reprise" cat "$tmp/cut.rpz" >"$tmp/out" 2>"$tmp/err"
rc=$?
if [ $rc -le 1 ] && [ -s "$tmp/err" ]; then ok "a cut trace is reported, not a crash (exit $rc)"; else not_ok "a cut trace is reported (exit $rc)"; fi

# dbench's own loadfile, when installed: the full round trip
client=/usr/share/dbench/client.txt
if [ -f "$client" ]; then
	check "convert client.txt" "$reprise" convert -q "$client" "$tmp/client.rpz"
	check "stat client.txt's trace" "$reprise" stat --json "$tmp/client.rpz"
	out_has "458,344 ops" '"ops": 458344,'
	check "client.rpz -> loadfile" "$reprise" convert -q "$tmp/client.rpz" "$tmp/client.txt"
	if diff -bw "$client" "$tmp/client.txt" >/dev/null; then ok "client.txt round-trips exactly"; else not_ok "client.txt round-trips exactly"; fi
	csize=$(wc -c <"$tmp/client.rpz")
	echo "# client.rpz: $csize bytes"
else
	echo "# skip: $client not installed"
fi

echo "1..$n"
[ $fails -eq 0 ]
