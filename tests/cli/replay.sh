#!/bin/sh
# Honest replay results through the reprise command (TAP): failures the trace recorded are told
# from mismatches, --fail-on-mismatch and --on-mismatch abort exit 1, a non-empty target is warned
# about, --cleanup removes only what the run made, prepared files hold data (--prepare-fill),
# --drop-caches says what it did, mismatches are grouped, an interrupted run reports the time it ran.
#   replay.sh REPRISE SOURCE_ROOT
set -u
reprise=$1
tmp=$(mktemp -d) || exit 1
pid=
trap '[ -n "$pid" ] && kill "$pid" 2>/dev/null; rm -rf "$tmp"' EXIT INT TERM
. "${0%/*}/../lib/tap.sh"

# A command that never ends fails here (timeout exits 124) instead of stalling the suite.
run() { timeout 120 "$@" >"$tmp/out" 2>"$tmp/err"; }
check() { desc=$1; shift; if run "$@"; then ok "$desc"; else not_ok "$desc"; fi; }
check_fails() { desc=$1; want=$2; shift 2; run "$@"; rc=$?
	if [ "$rc" = "$want" ]; then ok "$desc"; else echo "# exit $rc, wanted $want"; not_ok "$desc"; fi; }
fresh() { rm -rf "$tmp/t"; mkdir "$tmp/t"; }

# 1. dbench's client.txt (its first 6000 lines, a minute of CPU less than all of it) fails
# thousands of opens and stats on purpose: failed as recorded, no mismatch, nothing alarming.
client=/usr/share/dbench/client.txt
if [ -r "$client" ]; then
	head -n 6000 "$client" >"$tmp/client.txt"
	fresh
	check "client.txt replays" "$reprise" replay "$tmp/client.txt" --target "$tmp/t" -q
	has "client.txt: its failures are all as recorded, 0 mismatched" out '^Failed [1-9][0-9]* \(all as recorded\), mismatched 0$'
	has "the legend tells Failed from Mismatch" out 'Failed: the op returned an error, which the trace may have recorded too'
	lacks "client.txt: no mismatch lines" err 'mismatch'
else
	for d in "client.txt replays" "client.txt: its failures are all as recorded" "the legend" "no mismatch lines"; do
		ok "$d # skip no $client (dbench package)"
	done
fi
check "replay --help" "$reprise" replay --help
has "--help says what Failed and Mismatch count" out 'Mismatch counts the ops whose result differs from the recording'
has "--help lists --fail-on-mismatch" out '--fail-on-mismatch'

# 2. Mismatches: three reads on a handle no op opened (EBADF where the trace has OK) and a
# stat of a name that is not there (ENOENT where the trace has OK), in two copies.
cat >"$tmp/bad.txt" <<'LOAD'
ReadX 7 0 10 10 NT_STATUS_OK
ReadX 7 10 10 10 NT_STATUS_OK
ReadX 7 20 10 10 NT_STATUS_OK
QUERY_PATH_INFORMATION "\nothere" 1004 NT_STATUS_OBJECT_NAME_NOT_FOUND
LOAD
fresh
check "mismatches without --fail-on-mismatch exit 0" "$reprise" replay "$tmp/bad.txt" --target "$tmp/t" -q --clients 2
has "the summary counts them as not recorded" out '^Failed 8 \(2 as recorded, 6 not\), mismatched 6, unknown handles 6'
has "one line for the six reads: count, op, expected, got" err '^reprise replay: mismatch: 6 x read, expected OK, got EBADF; first: client c1 copy 1 op 1 fh=7$'
if [ "$(grep -c 'mismatch:' "$tmp/err")" = 1 ]; then ok "grouped: no line repeated"; else not_ok "grouped: no line repeated"; fi
fresh
check_fails "--fail-on-mismatch exits 1 after the run" 1 "$reprise" replay "$tmp/bad.txt" --target "$tmp/t" -q --fail-on-mismatch
has "--fail-on-mismatch: the run went to the end" out 'stopped: end'
has "--fail-on-mismatch says why it fails" err '3 mismatches \(--fail-on-mismatch\)'
fresh
check_fails "--on-mismatch abort exits 1" 1 "$reprise" replay "$tmp/bad.txt" --target "$tmp/t" -q --on-mismatch abort
has "--on-mismatch abort stops at the first" out 'stopped: mismatch'
printf 'QUERY_PATH_INFORMATION "\\nothere" 1004 NT_STATUS_OBJECT_NAME_NOT_FOUND\n' >"$tmp/good.txt"
fresh
check "--fail-on-mismatch without a mismatch exits 0" "$reprise" replay "$tmp/good.txt" --target "$tmp/t" -q --fail-on-mismatch

# 3. A target that is not empty is warned about; what prepare makes does not count.
cat >"$tmp/prep.txt" <<'LOAD'
NTCreateX "\data\in.bin" 0x0 0x1 1 NT_STATUS_OK
ReadX 1 0 65536 65536 NT_STATUS_OK
ReadX 1 4000000 65536 65536 NT_STATUS_OK
Close 1 NT_STATUS_OK
QUERY_PATH_INFORMATION "\data\sub\x" 1004 NT_STATUS_OK
Mkdir "\made" NT_STATUS_OK
NTCreateX "\made\f" 0x0 0x2 3 NT_STATUS_OK
WriteX 3 0 10 10 NT_STATUS_OK
Close 3 NT_STATUS_OK
LOAD
fresh
check "a run that prepares files into an empty target" "$reprise" replay "$tmp/prep.txt" --target "$tmp/t" -q
lacks "no warning for an empty target" err 'not empty'
has "the Prepare line says what was written, how, and how long it took" out '^Prepare: 2 directories, 2 files, 4.1 MB written \(data\) in [0-9.]+ s$'
check "the same again, into what the first run left" "$reprise" replay "$tmp/prep.txt" --target "$tmp/t" -q
has "a target that is not empty is warned about" err "warning: $tmp/t is not empty \\(2 entries before the run\\)"

# 4b. --prepare-only: prepare alone (its line, the tree), then --no-prepare runs the workload on it without a warning
fresh
check "--prepare-only runs prepare alone" "$reprise" replay "$tmp/prep.txt" --target "$tmp/t" --prepare-only
has "and prints its line" out '^Prepare: 2 directories, 2 files, 4.1 MB written \(data\) in [0-9.]+ s$'
lacks "and no run: no throughput" out 'Throughput'
if [ -f "$tmp/t/data/in.bin" ] && [ ! -e "$tmp/t/made" ]; then ok "the tree prepare makes, none of the run's"; else not_ok "the tree prepare makes, none of the run's"; fi
check "then the run with --no-prepare" "$reprise" replay "$tmp/prep.txt" --target "$tmp/t" --no-prepare -q
lacks "which does not warn of the tree it was told is ready" err 'not empty'
has "and has no mismatch" out 'mismatched 0'
run "$reprise" replay "$tmp/prep.txt" --target "$tmp/t" --prepare-only --no-prepare
if [ $? = 2 ] && grep -q -- '--no-prepare does not go with it' "$tmp/err"; then ok "--prepare-only with --no-prepare: a usage error"; else not_ok "--prepare-only with --no-prepare: a usage error"; fi

# 5. Prepared files hold data (the test's own temp dir: st_blocks counts what is allocated).
blocks_ok() { # file: allocated >= size
	set -- $(stat -c '%s %b %B' "$1"); [ $(($2 * $3)) -ge "$1" ]; }
for fill in data zero; do
	fresh
	check "--prepare-fill=$fill" "$reprise" replay "$tmp/prep.txt" --target "$tmp/t" -q --prepare-fill=$fill
	if blocks_ok "$tmp/t/data/in.bin"; then ok "$fill: the prepared file has all its blocks"; else stat "$tmp/t/data/in.bin" | sed 's/^/# /'; not_ok "$fill: the prepared file has all its blocks"; fi
	has "$fill: the Prepare line names the fill" out "^Prepare: .* written \\($fill\\)"
done
if [ "$(od -An -tx1 -j 1000000 -N 4 "$tmp/t/data/in.bin" | tr -d ' ')" = 00000000 ]; then ok "zero: zeros"; else not_ok "zero: zeros"; fi
fresh
run "$reprise" replay "$tmp/prep.txt" --target "$tmp/t" -q
case $(od -An -tx1 -j 1000000 -N 4 "$tmp/t/data/in.bin" | tr -d ' ') in
00000000|'') not_ok "data (the default): not zeros" ;;
*) ok "data (the default): not zeros" ;;
esac
fresh
check "--prepare-fill=sparse" "$reprise" replay "$tmp/prep.txt" --target "$tmp/t" -q --prepare-fill=sparse
if blocks_ok "$tmp/t/data/in.bin"; then not_ok "sparse: the prepared file is sparse"; else ok "sparse: the prepared file is sparse"; fi
has "sparse: the Prepare line says so" out '^Prepare: 2 directories, 2 files, 4.1 MB in size, sparse \(1 byte written\)'
check_fails "--prepare-fill=bogus is a usage error" 2 "$reprise" replay "$tmp/prep.txt" --target "$tmp/t" -q --prepare-fill=bogus
fresh
check "--drop-caches" "$reprise" replay "$tmp/good.txt" --target "$tmp/t" -q --drop-caches
if [ "$(id -u)" = 0 ]; then
	has "--drop-caches as root: dropped" out '; caches dropped$'
else
	has "--drop-caches as a user: a note" out '; caches NOT dropped \(--drop-caches needs root\)$'
fi

# 4. --cleanup removes what the run and prepare made, and nothing of before (a file, a directory
# and what is in it, a symlink to a directory outside the target and what is there).
fresh
mkdir "$tmp/outside" "$tmp/t/data"
echo keep >"$tmp/t/pre.txt"
echo keep >"$tmp/t/data/old.txt"
echo keep >"$tmp/outside/o.txt"
ln -s ../outside "$tmp/t/link"
check "--cleanup" "$reprise" replay "$tmp/prep.txt" --target "$tmp/t" -q --cleanup
has "--cleanup says what it removed and left" out '^Cleanup: [1-9][0-9]* entries the run made removed, 4 of before left$'
(cd "$tmp/t" && find . | sort) >"$tmp/left"
printf '.\n./data\n./data/old.txt\n./link\n./pre.txt\n' >"$tmp/want"
if diff -u "$tmp/want" "$tmp/left" >"$tmp/err"; then ok "--cleanup leaves what was there, only"; else not_ok "--cleanup leaves what was there, only"; fi
if [ "$(cat "$tmp/t/pre.txt" "$tmp/t/data/old.txt" "$tmp/outside/o.txt")" = "keep
keep
keep" ] && [ "$(ls "$tmp/outside")" = o.txt ]; then ok "--cleanup: the files of before and outside untouched"; else not_ok "--cleanup: the files of before and outside untouched"; fi
fresh
check "--cleanup with copies" "$reprise" replay "$tmp/prep.txt" --target "$tmp/t" -q --cleanup --clients 3 --json "$tmp/t/run.json"
if [ "$(ls -A "$tmp/t")" = run.json ]; then ok "--cleanup removes the client directories, keeps the report"; else ls -A "$tmp/t" | sed 's/^/# /'; not_ok "--cleanup removes the client directories, keeps the report"; fi

# 6. An interrupted run reports the time it ran, though no op completed in it: the second op is
# 100 s after the first and the run is stopped once its progress line shows a second gone.
cat >"$tmp/gap.txt" <<'LOAD'
0.000 QUERY_PATH_INFORMATION "\a" 1004 NT_STATUS_OBJECT_NAME_NOT_FOUND
100.000 QUERY_PATH_INFORMATION "\b" 1004 NT_STATUS_OBJECT_NAME_NOT_FOUND
LOAD
fresh
"$reprise" replay "$tmp/gap.txt" --target "$tmp/t" --timing trace >"$tmp/out" 2>"$tmp/err" &
pid=$!
i=0
while [ $i -lt 600 ] && ! grep -Eq ' [1-9][0-9]*\.[0-9] s$' "$tmp/err"; do sleep 0.1; i=$((i + 1)); done
kill -INT "$pid"
wait "$pid"
rc=$?
pid=
if [ "$rc" = 130 ]; then ok "SIGINT: exit 130"; else echo "# exit $rc"; not_ok "SIGINT: exit 130"; fi
has "SIGINT: stopped: interrupted" out 'stopped: interrupted'
has "SIGINT: the measured time is the time it ran, not its last op's" out ' clients?  ([1-9][0-9]*|0\.[5-9][0-9]*)\.?[0-9]* s measured'


# reprise's own text form (reprise cat's output) replays as the trace it prints: the same op count
# and the same files as the .rpz (it was taken for an strace log: "convert it first").
src=$2
"$reprise" cat "$src/samples/smb2-small-files.rpz" >"$tmp/text.txt"
fresh
check "replay of the text form (reprise cat output) runs" "$reprise" replay -q "$tmp/text.txt" --target "$tmp/t" --json "$tmp/text.json"
lacks "not taken for an strace log" err 'strace'
fresh
run "$reprise" replay -q "$src/samples/smb2-small-files.rpz" --target "$tmp/t" --json "$tmp/rpz.json"
text_ops=$(python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))["total_ops"])' "$tmp/text.json" 2>&1)
rpz_ops=$(python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))["total_ops"])' "$tmp/rpz.json" 2>&1)
if [ -n "$text_ops" ] && [ "$text_ops" = "$rpz_ops" ]; then ok "the text form replays the .rpz's $rpz_ops ops"; else
	echo "# text $text_ops, rpz $rpz_ops"; not_ok "the text form replays the .rpz's ops"; fi

# A backend that cannot connect: the target is probed before prepare, so replay fails before any table and
# writes no JSON (no run to report, not a 0 MB/s one); bench keeps that target's run as failed without a
# result, its error the refusal, runs the other target, and compare counts it failed.
if "$reprise" replay --list-backends | grep -q '^  nfs '; then
	rm -f "$tmp/nc.json"
	check_fails "replay to an nfs:// server that is not there: exit 1" 1 \
		"$reprise" replay -q "$src/samples/smb2-small-files.rpz" --target nfs://127.0.0.1:1/x --json "$tmp/nc.json"
	if [ ! -e "$tmp/nc.json" ] && ! grep -q '^Throughput' "$tmp/out" && grep -q '^reprise replay: nfs://127.0.0.1:1/x: ' "$tmp/err"; then
		ok "said, no table, no JSON"; else not_ok "said, no table, no JSON"; fi
	fresh
	run "$reprise" bench -q "$src/samples/smb2-small-files.rpz" --target nfs://127.0.0.1:1/x --target "$tmp/t" \
		--runs 1 --json "$tmp/nc-bench.json"
	check_bench=$(python3 -c 'import json, sys
d = json.load(open(sys.argv[1]))
r = d["targets"][0]["runs"][0]
print(r["failed"], r["result"], "nfs://127.0.0.1:1/x: " in r["error"], d["targets"][1]["runs"][0]["failed"])' "$tmp/nc-bench.json" 2>&1)
	if [ "$check_bench" = "True None True False" ]; then ok "bench: that run failed, its error set, no result"; else
		echo "# $check_bench"; not_ok "bench: that run failed, its error set, no result"; fi
	run "$reprise" compare "$tmp/nc-bench.json"
	has "compare counts no run of it" out '^runs counted +0 \(\+1 failed\) +1$'
else
	for d in "replay to an nfs:// server that is not there" "said, no table, no JSON" "bench: that run failed" "compare counts no run"; do
		ok "$d # skip built without the nfs backend"; done
fi
echo "1..$n"
