#!/bin/sh
# reprise convert's slices (TAP): --from/--to seek with the .rpz index and give what a full decode
# filtered by time gives (also for a cut file, which has no index); --until and the old --to FORMAT;
# --clients, --ops, --path-prefix and --scale-time (--time-scale) and the dependencies it keeps; handles kept consistent, so slices replay on
# tmpfs with no unknown handle and no mismatch; the summary; bad lists, scales and windows.
#   slice.sh REPRISE SRCDIR
set -u
reprise=$1
src=$2
tmp=$(mktemp -d "${TMPDIR:-/tmp}/reprise-slice-XXXXXX") || exit 1
. "${0%/*}/../lib/tap.sh"
# the replays go to tmpfs when there is one
run=$(tap_tmpfs slice) || exit 1
trap 'rm -rf "$tmp" "$run"' EXIT INT TERM
check() { if [ "$2" = "$3" ]; then ok "$1"; else echo "# got '$2', want '$3'"; not_ok "$1"; fi; }
has() { if grep -qF -- "$3" "$2"; then ok "$1"; else echo "# no '$3' in:"; sed 's/^/# /' "$2" | head -10; not_ok "$1"; fi; }
# fails DESCRIPTION STATUS MESSAGE command...: exits STATUS and says MESSAGE, leaving no output
fails() {
	d=$1 want=$2 msg=$3
	shift 3
	rm -f "$tmp/bad.rpz"
	"$@" >/dev/null 2>"$tmp/err"
	rc=$?
	if [ "$rc" = "$want" ] && grep -qF -- "$msg" "$tmp/err" && [ ! -e "$tmp/bad.rpz" ]; then ok "$d"; else
		echo "# exit $rc, want $want and '$msg'"
		not_ok "$d"
	fi
}
echo "1..33"

smb=$src/samples/smb2-small-files.rpz

# A trace of 200000 stat ops over 20 s, 4 frames of 65536: --from 17.5 s starts at frame 2
awk 'BEGIN { for (i = 0; i < 200000; i++) printf "%d.%09d %d.%09d c%d stat path=\"/d/f%d\" -> OK\n",
	i / 10000, (i % 10000) * 100000, i / 10000, (i % 10000) * 100000 + 500, i % 3, i }' >"$tmp/big.txt"
"$reprise" convert -q "$tmp/big.txt" "$tmp/big.rpz"
"$reprise" convert "$tmp/big.rpz" --from 17.5 "$tmp/s.rpz" 2>"$tmp/sum"
has "--from seeks with the index" "$tmp/sum" "before --from, skipped with the index: 131072"
has "the summary: kept and dropped by reason, clients, span" "$tmp/sum" \
	"slice: kept 25000 of 200000 ops (dropped: before --from, skipped with the index: 131072, time: 43928); 3 clients; 17.500000 s to 19.999900 s; 25000 strings"
"$reprise" cat "$tmp/big.rpz" --from 17.5 >"$tmp/want.txt"
"$reprise" cat "$tmp/s.rpz" >"$tmp/got.txt"
check "the seek gives what a full decode filtered by time gives" "$(cmp -s "$tmp/want.txt" "$tmp/got.txt" && echo same) $(wc -l <"$tmp/got.txt")" "same 25000"
# the index cut off: no seek, the same ops
head -c $(($(wc -c <"$tmp/big.rpz") - 50)) "$tmp/big.rpz" >"$tmp/cut.rpz"
"$reprise" convert "$tmp/cut.rpz" --from 17.5 "$tmp/s2.rpz" 2>"$tmp/sum2"
"$reprise" cat "$tmp/s2.rpz" >"$tmp/got2.txt"
check "a file without its index is read from the start, with the same result" \
	"$(grep -c "skipped with the index" "$tmp/sum2") $(cmp -s "$tmp/want.txt" "$tmp/got2.txt" && echo same)" "0 same"
"$reprise" convert -q "$tmp/big.rpz" --from 5 --to 6.5 "$tmp/w1.rpz"
"$reprise" convert -q "$tmp/big.rpz" --from 5 --until 6.5 "$tmp/w2.rpz"
check "--to TIME ends the window (exclusive), --until is the same" \
	"$("$reprise" cat "$tmp/w1.rpz" | wc -l) $("$reprise" cat "$tmp/w1.rpz" | tail -1 | cut -c1-11) $(cmp -s "$tmp/w1.rpz" "$tmp/w2.rpz" && echo same)" \
	"15000 6.499900000 same"
"$reprise" convert -q "$smb" --to loadfile "$tmp/old.out"
"$reprise" convert -q "$smb" --format loadfile "$tmp/new.out"
check "--to rpz|loadfile, the old spelling of --format, still names the format" \
	"$(cmp -s "$tmp/old.out" "$tmp/new.out" && echo same) $(head -c 9 "$tmp/new.out")" "same NTCreateX"
"$reprise" convert -q "$tmp/big.rpz" "$tmp/q.rpz" --from 1 2>"$tmp/err"
check "-q: no summary" "$(wc -c <"$tmp/err")" "0"

# Filters on the SMB sample (429 ops, one client; handle 1 is the share root's)
"$reprise" convert "$smb" --ops open,read,close "$tmp/orc.rpz" 2>"$tmp/sum"
has "--ops keeps those ops" "$tmp/sum" "slice: kept 369 of 429 ops (dropped: ops: 60); 1 client"
check "and only those" "$("$reprise" cat "$tmp/orc.rpz" | awk '{ print $4 }' | sort -u | tr '\n' ' ')" "close open read "
"$reprise" convert "$smb" --clients 2-9 "$tmp/none.rpz" 2>"$tmp/sum"
has "--clients: a list that matches nothing keeps nothing, and says so" "$tmp/sum" "the slice keeps no op"
"$reprise" convert "$smb" --clients 0,1 "$tmp/all.rpz" 2>"$tmp/sum"
has "--clients 0,1 keeps the one client" "$tmp/sum" "slice: kept 429 of 429 ops; 1 client"
"$reprise" convert "$smb" --path-prefix /100-small-files "$tmp/sub.rpz" 2>"$tmp/sum"
has "--path-prefix: the subtree and the ops on its handles" "$tmp/sum" "slice: kept 307 of 429 ops (dropped: path: 92, handle: 30)"
check "nothing outside it" "$("$reprise" cat "$tmp/sub.rpz" | grep -o 'path="[^"]*"' | grep -vc '^path="/100-small-files')" "0"
"$reprise" convert -q "$smb" --path-prefix /100-small-files/1 "$tmp/one.rpz"
check "component-wise: /100-small-files/1 is not /100-small-files/10.txt" \
	"$("$reprise" cat "$tmp/one.rpz" | wc -l)" "0"
"$reprise" convert -q "$smb" --time-scale 0.5 "$tmp/fast.rpz"
check "--time-scale 0.5: every time halved" \
	"$("$reprise" cat "$smb" | tail -1 | cut -d' ' -f1-2) $("$reprise" cat "$tmp/fast.rpz" | tail -1 | cut -d' ' -f1-2)" \
	"12.498530000 12.498635000 6.249265000 6.249317500"
"$reprise" convert -q "$smb" --scale-time 0.5 "$tmp/fast2.rpz"
check "--scale-time is the option's name, --time-scale its old one: the same trace" \
	"$("$reprise" cat "$tmp/fast2.rpz" | md5sum)" "$("$reprise" cat "$tmp/fast.rpz" | md5sum)"
# Dependencies kept: every op still starts after each op that ended before it (every start and end
# keeps its place among the others), even at a scale that rounds times to the same nanosecond
"$reprise" convert -q "$src/samples/syscall/pgbench.rpz" --scale-time 1e-6 "$tmp/squeezed.rpz"
"$reprise" cat "$src/samples/syscall/pgbench.rpz" >"$tmp/orig.txt"
"$reprise" cat "$tmp/squeezed.rpz" >"$tmp/sq.txt"
check "--scale-time 1e-6: what ended before an op began still does" "$(python3 -c 'import sys
def times(f):
    out = []
    for line in open(f):
        a = line.split(" ", 2)
        s = float(a[0]); out.append((s, float(a[1]) if a[1] != "-" else s))
    return out
a, b = times(sys.argv[1]), times(sys.argv[2])
assert len(a) == len(b) > 8000
# points in the original order; their scaled values must not go backwards
pts = sorted(((t, k, i) for i, (s, e) in enumerate(a) for k, t in ((0, s), (1, e))))
bad = 0
prev = -1.0
for t, k, i in pts:
    v = b[i][k]
    bad += v < prev
    prev = max(prev, v)
print(len(a), bad)' "$tmp/orig.txt" "$tmp/sq.txt")" "$(wc -l <"$tmp/orig.txt") 0"

# Slices replay with no unknown handle and no mismatch: a window that starts inside open files,
# a subtree, and an op list without the opens
replay_clean() { # description trace
	rm -rf "$run/t"
	mkdir "$run/t"
	if "$reprise" replay -q "$2" --target "$run/t" --json "$tmp/r.json" >/dev/null 2>"$tmp/err"; then
		check "$1" "$(python3 -c 'import json, sys
d = json.load(open(sys.argv[1]))
print(d["total_ops"] > 0, d["unknown_handles"], d["mismatches"])' "$tmp/r.json")" "True 0 0"
	else
		not_ok "$1"
	fi
}
"$reprise" convert "$smb" --from 12.4561 "$tmp/late.rpz" 2>"$tmp/sum"
has "a window from inside an open file drops its ops (a handle opened before --from)" "$tmp/sum" "handle: 1"
replay_clean "the window replays: no unknown handle, no mismatch" "$tmp/late.rpz"
replay_clean "the subtree replays: no unknown handle, no mismatch" "$tmp/sub.rpz"
"$reprise" convert "$smb" --ops read,readdir "$tmp/noopen.rpz" 2>"$tmp/sum"
has "--ops without open keeps the opens and closes the kept reads and listings use, and says so" "$tmp/sum" \
	"kept 408 of 429 ops (dropped: ops: 21); with the 127 opens and 127 closes of the handles they use (not in --ops)"
replay_clean "... and replays: no unknown handle, no mismatch" "$tmp/noopen.rpz"
# a program's trace (pgbench: 8172 ops of 10 processes) cut to its reads and writes: they stay, with their opens
"$reprise" convert "$src/samples/syscall/pgbench.rpz" --ops read,write "$tmp/rw.rpz" 2>"$tmp/sum"
check "--ops read,write keeps every read and write of a syscall trace" \
	"$("$reprise" cat "$src/samples/syscall/pgbench.rpz" | awk '$4 == "read" || $4 == "write"' | wc -l) $(grep -c 'with the 131 opens and 42 closes' "$tmp/sum")" \
	"$("$reprise" cat "$tmp/rw.rpz" | awk '$4 == "read" || $4 == "write"' | wc -l) 1"
check "... and only those and their opens and closes" \
	"$("$reprise" cat "$tmp/rw.rpz" | awk '{ print $4 }' | sort -u | tr '\n' ' ')" "close open read write "
replay_clean "... which replay: no unknown handle, no mismatch" "$tmp/rw.rpz"
"$reprise" convert -q "$smb" --ops open,read "$tmp/noclose.rpz"
replay_clean "opens and reads without the closes replay: no unknown handle, no mismatch" "$tmp/noclose.rpz"

# Bad input: exit 2 with a clear error, nothing written
fails "a bad client list" 2 '--clients: "x" is no client id or range' "$reprise" convert "$smb" --clients 1,x "$tmp/bad.rpz"
fails "a backwards client range" 2 "range 5-3 ends before it starts" "$reprise" convert "$smb" --clients 5-3 "$tmp/bad.rpz"
fails "an unknown op name, with the valid ones listed" 2 'unknown op "reed"; the ops are open,close,read' \
	"$reprise" convert "$smb" --ops read,reed "$tmp/bad.rpz"
fails "a zero time scale" 2 "--scale-time: 0 is out of range" "$reprise" convert "$smb" --scale-time 0 "$tmp/bad.rpz"
fails "a negative time scale" 2 "--time-scale: -2 is out of range" "$reprise" convert "$smb" --time-scale -2 "$tmp/bad.rpz"
fails "--from after --to" 2 "--to must be after --from" "$reprise" convert "$smb" --from 5 --to 2 "$tmp/bad.rpz"
fails "--to neither a time nor a format" 2 "--to takes a time of the trace" "$reprise" convert "$smb" --to 1x "$tmp/bad.rpz"
