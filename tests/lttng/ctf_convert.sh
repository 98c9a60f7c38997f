#!/bin/sh
# reprise convert of a recorded CTF trace (tests/data/ctf/direct): the ops, the summary, stat and
# replay reading the directory, and clear errors for damaged or foreign directories (exit 0 passed,
# 1 failed, 77 skipped in a build without the CTF conversion).
#   ctf_convert.sh REPRISE SRCDIR
set -u
reprise=$1 src=$2
trace="$src/tests/data/ctf/direct"
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT INT TERM
export LC_ALL=C TZ=UTC
if "$reprise" convert "$trace" "$tmp/t.rpz" 2>"$tmp/err" >/dev/null; then :; elif grep -q 'built without' "$tmp/err"; then
	echo "1..0 # SKIP $(cat "$tmp/err")"
	exit 77
fi
n=0 failed=0
ok() { n=$((n + 1)); echo "ok $n - $1"; }
not_ok() { n=$((n + 1)); failed=1; echo "not ok $n - $1"; for f in out err; do [ -f "$tmp/$f" ] && sed "s/^/# $f: /" "$tmp/$f" | head -20; done; }
run() { timeout 60 "$@" >"$tmp/out" 2>"$tmp/err"; }
check() { desc=$1; shift; if run "$@"; then ok "$desc"; else not_ok "$desc"; fi; }
fails() { desc=$1; shift; if run "$@"; then not_ok "$desc"; else ok "$desc"; fi; }
has() { if grep -Eq -- "$3" "$tmp/$2"; then ok "$1"; else echo "# $2 lacks: $3"; not_ok "$1"; fi; }

check "convert the session's output directory" "$reprise" convert "$trace" "$tmp/t.rpz"
has "the summary counts events, ops and processes" err '^ctf: 15 events from 1 trace -> 8 ops, 2 processes, 3 threads; other events 0, late 0'
check "cat" "$reprise" cat "$tmp/t.rpz"
if diff -u "$src/tests/lttng/expected_direct.ops" "$tmp/out" >"$tmp/diff"; then ok "the ops are the run's"; else sed 's/^/# /' "$tmp/diff"; not_ok "the ops are the run's"; fi
check "convert the directory holding metadata" "$reprise" convert "$trace/ust/uid/0/64-bit" "$tmp/u.rpz"
check "cat it" "$reprise" cat "$tmp/u.rpz"
if cmp -s "$src/tests/lttng/expected_direct.ops" "$tmp/out"; then ok "the same ops"; else not_ok "the same ops"; fi
check "stat reads the directory" "$reprise" stat "$trace"
has "its source is ctf" out '^source +ctf'
has "its start is the trace clock's" out '^start +2026-12-01 11:46:29\.59569'
check "cat reads the directory" "$reprise" cat "$trace"
if cmp -s "$src/tests/lttng/expected_direct.ops" "$tmp/out"; then ok "cat of the directory equals cat of its .rpz"; else not_ok "cat of the directory equals cat of its .rpz"; fi
mkdir "$tmp/target"
check "replay converts it first" "$reprise" replay --backend null --target "$tmp/target" "$trace"
has "and replays its ops" out '^ *rename +1 '
has "none failing" out '^Failed 0, mismatched 0$' 
mkdir -p "$tmp/bad/ust"
cp -r "$trace/ust/uid" "$tmp/bad/ust/"
truncate -s 100 "$tmp/bad/ust/uid/0/64-bit/metadata"
fails "a cut metadata file is an error" "$reprise" convert "$tmp/bad" "$tmp/b.rpz"
has "naming the file and the packet" err 'bad/ust/uid/0/64-bit/metadata: byte 0: metadata packet of 32768 bits .* does not fit the 100 bytes left'
if [ -e "$tmp/b.rpz" ]; then not_ok "no output is left"; else ok "no output is left"; fi
mkdir "$tmp/empty"
fails "a directory without a trace is an error" "$reprise" convert "$tmp/empty" "$tmp/b.rpz"
has "saying so" err 'empty: Is a directory, and no CTF trace'
fails "the metadata file alone is no input" "$reprise" convert "$trace/ust/uid/0/64-bit/metadata" "$tmp/b.rpz"
echo "1..$n"
exit $failed
