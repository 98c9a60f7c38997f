#!/bin/sh
# replay's prepare never rewrites a byte that was there before: a file long enough is kept as it is,
# one too short is extended beyond its end only (with a warning), --prepare-overwrite rewrites (issue 22).
#   prepare_keep.sh REPRISE SOURCE_ROOT
set -u
reprise=$1
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT INT TERM
. "${0%/*}/../lib/tap.sh"
check() { desc=$1; shift; if "$@" >"$tmp/out" 2>"$tmp/err"; then ok "$desc"; else not_ok "$desc"; fi; }
# json FILE EXPR: a value of the results, by a python expression on r.
json() { python3 -c 'import json,sys; r=json.load(open(sys.argv[1])); print(eval(sys.argv[2]))' "$1" "$2"; }

# The trace only reads: open /precious.txt, read 10 bytes, close.
cat >"$tmp/read.txt" <<'LOAD'
NTCreateX "\precious.txt" 0x0 0x1 1 NT_STATUS_OK
ReadX 1 0 10 10 NT_STATUS_OK
Close 1 NT_STATUS_OK
LOAD
printf 'precious!\n' >"$tmp/precious"   # 10 bytes: what the read needs
printf 'abc' >"$tmp/short"              # 3 bytes: too short for it

for fill in data zero sparse; do
	rm -rf "$tmp/t" && mkdir "$tmp/t" && cp -p "$tmp/precious" "$tmp/t/precious.txt"
	touch -d '2001-02-03 04:05:06' "$tmp/t/precious.txt"
	check "--prepare-fill $fill: a replay that reads a file there before" "$reprise" replay "$tmp/read.txt" \
		--target "$tmp/t" -q --prepare-fill "$fill" --json "$tmp/r.json"
	if cmp -s "$tmp/precious" "$tmp/t/precious.txt"; then ok "--prepare-fill $fill: its bytes are untouched"
	else od -c "$tmp/t/precious.txt" | sed 's/^/# /' | head -3; not_ok "--prepare-fill $fill: its bytes are untouched"; fi
	if [ "$(stat -c %Y "$tmp/t/precious.txt")" = "$(date -d '2001-02-03 04:05:06' +%s)" ]; then
		ok "--prepare-fill $fill: nothing wrote to it (mtime kept)"; else not_ok "--prepare-fill $fill: nothing wrote to it (mtime kept)"; fi
	has "--prepare-fill $fill: a warning says it was kept" err 'warning: prepare found 1 file already there: 1 kept as it was, 0 too short'
	[ "$(json "$tmp/r.json" '(r["prepare"]["kept"], r["prepare"]["extended"], r["prepare"]["written"], r["failures"])')" = "(1, 0, 0, 0)" ] \
		&& ok "--prepare-fill $fill: the JSON counts it kept, nothing written, no failure" \
		|| { json "$tmp/r.json" 'r["prepare"]' | sed 's/^/# /'; not_ok "--prepare-fill $fill: the JSON counts it kept, nothing written, no failure"; }
done

# A file too short: its bytes stay, the missing ones are written after them.
for fill in data sparse; do
	rm -rf "$tmp/t" && mkdir "$tmp/t" && cp "$tmp/short" "$tmp/t/precious.txt"
	check "--prepare-fill $fill: a file too short" "$reprise" replay "$tmp/read.txt" --target "$tmp/t" -q \
		--prepare-fill "$fill" --json "$tmp/r.json"
	[ "$(stat -c %s "$tmp/t/precious.txt")" = 10 ] && [ "$(head -c 3 "$tmp/t/precious.txt")" = abc ] \
		&& ok "--prepare-fill $fill: extended to 10 bytes, its first 3 kept" \
		|| { od -c "$tmp/t/precious.txt" | sed 's/^/# /' | head -3; not_ok "--prepare-fill $fill: extended to 10 bytes, its first 3 kept"; }
	has "--prepare-fill $fill: a warning says it was extended" err 'warning: prepare found 1 file already there: 0 kept as they were, 1 too short and extended beyond its end'
	want=7; [ "$fill" = sparse ] && want=1
	[ "$(json "$tmp/r.json" '(r["prepare"]["kept"], r["prepare"]["extended"], r["prepare"]["written"])')" = "(0, 1, $want)" ] \
		&& ok "--prepare-fill $fill: the JSON counts it extended, $want byte(s) written" \
		|| { json "$tmp/r.json" 'r["prepare"]' | sed 's/^/# /'; not_ok "--prepare-fill $fill: the JSON counts it extended, $want byte(s) written"; }
done

# A file that is not there is made as before, with no warning.
rm -rf "$tmp/t" && mkdir "$tmp/t"
check "a file that is not there" "$reprise" replay "$tmp/read.txt" --target "$tmp/t" -q --json "$tmp/r.json"
[ "$(stat -c %s "$tmp/t/precious.txt")" = 10 ] && [ "$(od -An -tx1 -N1 "$tmp/t/precious.txt" | tr -d ' ')" = 5a ] \
	&& ok "made and filled (10 bytes of the pattern)" || not_ok "made and filled (10 bytes of the pattern)"
lacks "no warning when prepare made everything" err 'already there'
[ "$(json "$tmp/r.json" '(r["prepare"]["files"], r["prepare"]["kept"], r["prepare"]["extended"], r["prepare"]["written"])')" = "(1, 0, 0, 10)" ] \
	&& ok "the JSON: 1 file made, none kept or extended" || not_ok "the JSON: 1 file made, none kept or extended"

# --prepare-overwrite: the old rewrite, asked for.
rm -rf "$tmp/t" && mkdir "$tmp/t" && cp "$tmp/precious" "$tmp/t/precious.txt"
check "--prepare-overwrite" "$reprise" replay "$tmp/read.txt" --target "$tmp/t" -q --prepare-overwrite --json "$tmp/r.json"
[ "$(od -An -tx1 "$tmp/t/precious.txt" | tr -d ' \n')" = 5a5a5a5a5a5a5a5a5a5a ] \
	&& ok "--prepare-overwrite rewrites the file with the fill pattern" || not_ok "--prepare-overwrite rewrites the file with the fill pattern"
lacks "--prepare-overwrite: no kept/extended warning" err 'already there'
[ "$(json "$tmp/r.json" '(r["prepare"]["kept"], r["prepare"]["written"])')" = "(0, 10)" ] \
	&& ok "--prepare-overwrite: the JSON counts 10 bytes written" || not_ok "--prepare-overwrite: the JSON counts 10 bytes written"

# A read-only file of before, long enough: kept, not a failure (prepare needs no write to it).
rm -rf "$tmp/t" && mkdir "$tmp/t" && cp "$tmp/precious" "$tmp/t/precious.txt" && chmod 0444 "$tmp/t/precious.txt"
check "a read-only file of before" "$reprise" replay "$tmp/read.txt" --target "$tmp/t" -q --json "$tmp/r.json"
cmp -s "$tmp/precious" "$tmp/t/precious.txt" && [ "$(json "$tmp/r.json" 'r["prepare"]["failures"]')" = 0 ] \
	&& ok "a read-only file of before: kept, no prepare failure" || not_ok "a read-only file of before: kept, no prepare failure"

echo "1..$n"
[ "$fails" = 0 ]
