#!/bin/sh
# --csv on convert, stat and cat (docs/csv.md): a preset's records become reads and writes on one file per
# device, the summary says what the format cannot say, the trace replays; a bad map is a usage error, a bad
# line an error naming it (counted with --lenient).
#   csv.sh REPRISE
set -u
reprise=$1
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT INT TERM
. "${0%/*}/../lib/tap.sh"
echo "1..9"

cat >"$tmp/msr.csv" <<'CSV'
128166372003061629,usr,0,Write,4096,4096,30553
128166372003280000,usr,0,Read,0,8192,12000
128166372003290000,src1,1,Read,1048576,65536,8000
CSV
if "$reprise" convert --csv msr "$tmp/msr.csv" "$tmp/m.rpz" >"$tmp/out" 2>"$tmp/err"; then ok "convert --csv msr"; else not_ok "convert --csv msr"; fi
has "the summary says what the format cannot say" err '^csv \(msr\): lines 3, records 3: 2 reads .* on 2 files, one per device.*names no paths'
"$reprise" stat "$tmp/m.rpz" >"$tmp/stat" 2>&1
has "the trace's source is csv" stat '^source +csv'
"$reprise" cat --csv msr "$tmp/msr.csv" >"$tmp/cat" 2>&1
has "cat --csv reads it on the fly" cat 'c2 read path="/dev-src1_1" fh=2 off=1048576 len=65536'
mkdir "$tmp/t"
"$reprise" replay "$tmp/m.rpz" --target "$tmp/t" >"$tmp/out" 2>&1
has "it replays: prepare makes each device's file, no mismatch" out 'Failed 0, mismatched 0'
"$reprise" stat --csv nonesuch "$tmp/msr.csv" >"$tmp/out" 2>"$tmp/err"; rc=$?
if [ $rc -eq 2 ] && grep -q 'bad item' "$tmp/err"; then ok "a bad map: exit 2, what is wrong"; else not_ok "a bad map: exit 2 (got $rc)"; fi
printf 'not,a,record\n' >>"$tmp/msr.csv"
"$reprise" convert --csv msr "$tmp/msr.csv" "$tmp/b.rpz" >"$tmp/out" 2>"$tmp/err"; rc=$?
if [ $rc -ne 0 ] && grep -q 'msr.csv:4: not a record' "$tmp/err"; then ok "a bad line is an error naming it"; else not_ok "a bad line is an error naming it"; fi
"$reprise" convert --lenient --csv msr "$tmp/msr.csv" "$tmp/b.rpz" >"$tmp/out" 2>"$tmp/err"; rc=$?
if [ $rc -eq 0 ]; then ok "--lenient skips it"; else not_ok "--lenient skips it"; fi
has "and counts it" err 'bad lines 1'
exit 0
