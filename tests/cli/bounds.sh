#!/bin/sh
# Input-driven bounds through the reprise command: numeric options out of range are usage errors
# naming the option; hostile LOOPs finish at once in every command; a UTF-8 BOM is accepted.
#   bounds.sh REPRISE SOURCE_ROOT
set -u
reprise=$1
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT INT TERM
. "${0%/*}/../lib/tap.sh"

# A command that never ends fails here (timeout exits 124) instead of stalling the suite.
run() { timeout 120 "$@" >"$tmp/out" 2>"$tmp/err"; }
check() { desc=$1; shift; if run "$@"; then ok "$desc"; else not_ok "$desc"; fi; }
check_fails() { desc=$1; want=$2; shift 2; run "$@"; rc=$?
	if [ "$rc" = "$want" ]; then ok "$desc"; else echo "# exit $rc, wanted $want"; not_ok "$desc"; fi; }
err_has() { if grep -q -- "$2" "$tmp/err"; then ok "$1"; else echo "# stderr lacks: $2"; not_ok "$1"; fi; }

printf 'Close 1 NT_STATUS_OK\n' >"$tmp/one.txt"
mkdir "$tmp/target"

# numeric options: each value out of its range exits 2 and names the option (cli/opts.c, the tables' ranges)
usage() { # desc option value command...
	desc=$1 opt=$2 val=$3; shift 3
	check_fails "$desc exits 2" 2 "$reprise" "$@" "--$opt" "$val"
	err_has "$desc names --$opt and the range" "--$opt: $val is out of range ("
}
usage "replay --clients 0" clients 0 replay "$tmp/one.txt" --target "$tmp/target"
usage "replay --clients 65536" clients 65536 replay "$tmp/one.txt" --target "$tmp/target"
usage "replay -t -5" time -5 replay "$tmp/one.txt" --target "$tmp/target"
usage "replay -t 0" time 0 replay "$tmp/one.txt" --target "$tmp/target"
usage "replay -t 1e300" time 1e300 replay "$tmp/one.txt" --target "$tmp/target"
usage "replay --speed 0" speed 0 replay "$tmp/one.txt" --target "$tmp/target"
usage "replay --speed -2" speed -2 replay "$tmp/one.txt" --target "$tmp/target"
usage "replay --warmup 1e9" warmup 1e9 replay "$tmp/one.txt" --target "$tmp/target"
usage "replay --clone-offset 2e6" clone-offset 2e6 replay "$tmp/one.txt" --target "$tmp/target"
usage "convert --level 0" level 0 convert "$tmp/one.txt" "$tmp/one.rpz"
usage "convert --level 23" level 23 convert "$tmp/one.txt" "$tmp/one.rpz"
usage "convert --level -1" level -1 convert "$tmp/one.txt" "$tmp/one.rpz"
usage "capture --buffer 0" buffer 0 capture --iface lo -o "$tmp/c.rpz"
usage "capture --buffer 4096" buffer 4096 capture --iface lo -o "$tmp/c.rpz"
usage "capture --max-flows 0" max-flows 0 capture --iface lo -o "$tmp/c.rpz"
usage "capture --duration 0" duration 0 capture --iface lo -o "$tmp/c.rpz"
check_fails "replay --speed nan exits 2" 2 "$reprise" replay "$tmp/one.txt" --target "$tmp/target" --speed nan
err_has "and names --speed" "--speed: 'nan' is not a number"
[ ! -e "$tmp/one.rpz" ] && ok "a refused --level writes nothing" || not_ok "a refused --level writes nothing"
check "the end of a range is accepted (--level 22)" "$reprise" convert --level 22 "$tmp/one.txt" "$tmp/one.rpz"
check "replay --clients 2 -t 0.05 runs" "$reprise" replay "$tmp/one.txt" --target "$tmp/target" --backend null --clients 2 -t 0.05 -q

# LOOP 1000000000 (a 45-byte loadfile): refused with the file and line, by every command, before it runs
printf 'LOOP 1000000000\nClose 1 NT_STATUS_OK\nENDLOOP\n' >"$tmp/loop.txt"
for c in "cat" "stat" "convert:$tmp/loop.rpz" "convert --prepare:$tmp/loop-p.txt" "replay --backend null --target $tmp/target" \
	"replay --backend null --target $tmp/target -t 1"; do
	cmd=${c%%:*} out=
	[ "$cmd" != "$c" ] && out=${c#*:}
	# shellcheck disable=SC2086 # cmd holds words
	check_fails "$cmd of LOOP 1000000000 exits 1" 1 "$reprise" $cmd "$tmp/loop.txt" $out
	err_has "$cmd names the file and line of the LOOP" "loop.txt:1: LOOP 1000000000 of a 2-line body expands past 16777216 lines"
done
check_fails "cat --lenient refuses it too" 1 "$reprise" cat --lenient "$tmp/loop.txt"
if [ "$(wc -l <"$tmp/out")" -le 1 ]; then ok "cat printed at most the first round"; else not_ok "cat printed at most the first round"; fi
[ ! -e "$tmp/loop-p.txt" ] || [ ! -s "$tmp/loop-p.txt" ] && ok "convert --prepare left no loadfile" || not_ok "convert --prepare left no loadfile"

# an empty LOOP 1000000000000 (27 bytes) ends at once: nothing in it, so nothing comes out of it
printf 'LOOP 1000000000000\nENDLOOP\n' >"$tmp/empty.txt"
printf 'LOOP 1000000000000\nENDLOOP\nClose 1 NT_STATUS_OK\n' >"$tmp/empty1.txt"
check "cat of an empty LOOP" "$reprise" cat "$tmp/empty.txt"
check "stat of an empty LOOP" "$reprise" stat "$tmp/empty.txt"
check "convert of an empty LOOP" "$reprise" convert "$tmp/empty.txt" "$tmp/empty.rpz"
check "convert --prepare of an empty LOOP" "$reprise" convert --prepare "$tmp/empty1.txt" "$tmp/empty-p.txt"
check_fails "replay of only an empty LOOP: no ops" 1 "$reprise" replay "$tmp/empty.txt" --backend null --target "$tmp/target"
err_has "and says so" "the trace has no ops"
check "replay of an empty LOOP and an op" "$reprise" replay "$tmp/empty1.txt" --backend null --target "$tmp/target" -q
check "replay -t of an empty LOOP and an op" "$reprise" replay "$tmp/empty1.txt" --backend null --target "$tmp/target" -q -t 0.2
check "cat of an empty LOOP and an op" "$reprise" cat "$tmp/empty1.txt"
if [ "$(wc -l <"$tmp/out")" -eq 1 ]; then ok "it gives the one op"; else not_ok "it gives the one op"; fi

# a read at a huge offset plans a huge file: convert --prepare refuses it instead of writing 2^47 WriteX lines,
# and an end past 2^64 saturates instead of wrapping to a tiny file
for off in 9223372036854775000 18446744073709551610; do
	printf 'NTCreateX "\\big" 0x0 0x1 5 NT_STATUS_OK\nReadX 5 %s 4096 4096 NT_STATUS_OK\nClose 5 NT_STATUS_OK\n' "$off" >"$tmp/big.txt"
	check_fails "convert --prepare of a read at $off exits 1" 1 "$reprise" convert --prepare "$tmp/big.txt" "$tmp/big-p.txt"
	err_has "and names the file and the limit" "prepare: big needs 9223372036854775807 bytes: the preamble would pass 16777216 ops"
done

# a UTF-8 byte-order mark at the start of a loadfile
printf '\357\273\277READ3 "/f" 0 4096 0x00000000\n' >"$tmp/bom.txt"
check "cat reads a loadfile with a BOM" "$reprise" cat "$tmp/bom.txt"
if grep -q 'read path="/f"' "$tmp/out"; then ok "as the NFS dialect"; else not_ok "as the NFS dialect"; fi

# -O is repeatable: every list's items reach the backend, in order (it was the last -O only)
check_fails "replay -O nosuch -O sync: the first list counts too (exit 1)" 1 \
	"$reprise" replay "$tmp/one.txt" --target "$tmp/target" -O nosuch -O sync -q
err_has "and its item is named" "backend posix: has no option 'nosuch'"
check "replay -O async -O async runs (a flag given twice)" "$reprise" replay "$tmp/one.txt" --backend null --target "$tmp/target" -O async -O async -q

# --user and --authfile reach the smb backend as option items taken whole (no comma list in
# between): a ',' in a password or a file name is no usage error, and the backend gets the whole name
if "$reprise" replay --list-backends | grep -q '^  smb '; then
	check_fails "replay --authfile with a ',' in its name: the backend reads it (exit 1, not 2)" 1 \
		"$reprise" replay "$tmp/one.txt" --target smb://127.0.0.1:1/share --authfile "$tmp/no,such" -q
	err_has "and names the whole file" "$tmp/no,such: No such file"
	check_fails "replay --user with a ',' in the password: no usage error (exit 1, not 2)" 1 \
		"$reprise" replay "$tmp/one.txt" --target smb://127.0.0.1:1/share --user 'bob%se,cretQ' -q
	if grep -q 'cretQ' "$tmp/err" "$tmp/out"; then not_ok "and the password is in no output"; else ok "and the password is in no output"; fi
else
	for d in 1 2 3 4; do ok "a ',' in --user or --authfile # skip built without the smb backend"; done
fi

echo "1..$n"
[ "$fails" -eq 0 ]
