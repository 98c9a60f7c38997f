#!/bin/sh
# Timing honesty through the binary (TAP; docs/replay.md, "Timing honesty" and "Not representative"):
# a trace whose timing cannot be kept warns and fails under --strict-timing, one that is easy to keep
# does not, afap has no schedule, and a run with many mismatches says it is not representative and why.
# No wall-clock assertion beyond what holds on a loaded machine: the slow case is 20x behind, the easy
# one is judged with thresholds far from its figures.
#   timing_e2e.sh REPRISE DATA
set -u
reprise=$1
data=$2
tmp=$(mktemp -d "${TMPDIR:-/tmp}/reprise-timing-e2e-XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT INT TERM
. "${0%/*}/../lib/tap.sh"
# json DESCRIPTION FILE EXPR: a python expression over the JSON in $tmp/FILE as d.
json() { if python3 -c "import json,sys; d=json.load(open(sys.argv[1])); sys.exit(0 if ($3) else 1)" "$tmp/$2"; then ok "$1"; else not_ok "$1"; fi; }
status() { if [ "$2" -eq "$3" ]; then ok "$1"; else echo "# exit status $2, want $3"; not_ok "$1"; fi; }
echo "1..20"

# A timestamped loadfile of STEP-second gaps: N stats of one file.
timed() { awk -v n="$1" -v step="$2" 'BEGIN { for (i = 0; i < n; i++) printf "%.6f QUERY_PATH_INFORMATION \"\\f\" 1004 NT_STATUS_OK\n", i * step }' >"$tmp/$3"; }

# 1-6. 20 ops 1 ms apart (19 ms recorded) that take 20 ms each: some 20x behind, whatever the machine.
timed 20 0.001 slow.load
"$reprise" replay "$tmp/slow.load" --target unused --backend fault -O delay=20ms --timing trace -q \
	--json "$tmp/slow.json" >"$tmp/out" 2>"$tmp/err"
status "behind: exit 0 without --strict-timing" $? 0
has "a warning on stderr with the span and the lag" err '^reprise replay: warning: the replay fell behind the recorded timing: the ops took [0-9.]+ s for 0.019 s recorded \(x[0-9.]+, over x1.05: --behind-span\); issue lag p99 [0-9.]+ ms, over 10.000 ms \(--behind-lag\)'
has "the table's Span: line says BEHIND" out '^Span: the ops took [0-9.]+ s for 0.019 s recorded: x[0-9.]+; BEHIND the recorded timing \(span over x1.05, lag p99 .* over 10.0 ms\)'
json "the JSON: schedule.behind, the spans, the ratio and the thresholds" slow.json \
	'd["schedule"]["behind"] is True and d["schedule"]["span_ratio"] > 5 and abs(d["schedule"]["recorded_span_s"] - 0.019) < 1e-9 and d["schedule"]["span_s"] > 0.3 and d["schedule"]["behind_span"] == 1.05 and d["schedule"]["behind_lag_us"] == 10000 and d["lag_us"]["p99"] > 10000'
"$reprise" replay "$tmp/slow.load" --target unused --backend fault -O delay=20ms --timing trace -q --strict-timing \
	--json "$tmp/strict.json" >"$tmp/out" 2>"$tmp/err"
status "--strict-timing: exit 1" $? 1
has "... after the report, which says why" err '^reprise replay: behind the recorded timing \(--strict-timing\)$'
json "... and the JSON is written" strict.json 'd["schedule"]["behind"] is True'

# 8-9. think timing: the recorded gaps are kept, the ops take 20x their span: behind by the span, exit 1 strict.
"$reprise" replay "$tmp/slow.load" --target unused --backend fault -O delay=20ms --timing think -q --strict-timing \
	--behind-lag 1s --json "$tmp/think.json" >"$tmp/out" 2>"$tmp/err"
status "think timing behind by its span: exit 1 under --strict-timing" $? 1
json "... the span over x5, the lag under its threshold" think.json \
	'd["schedule"]["behind"] is True and d["schedule"]["span_ratio"] > 5 and d["schedule"]["behind_lag_us"] == 1e6'

# 10-13. 10 ops 100 ms apart on the null backend: kept (judged at x2 and 1 s, far from what a loaded machine does).
timed 10 0.1 easy.load
"$reprise" replay "$tmp/easy.load" --target unused --backend null --timing trace -q --strict-timing \
	--behind-span 2 --behind-lag 1s --json "$tmp/easy.json" >"$tmp/out" 2>"$tmp/err"
status "an easy trace: exit 0 under --strict-timing" $? 0
lacks "... no warning" err 'fell behind|behind the recorded'
has "... its Span: line, not behind" out '^Span: the ops took [0-9.]+ s for 0.900 s recorded: x[0-9.]+$'
json "... the JSON: not behind, a ratio near 1, the thresholds given" easy.json \
	'd["schedule"]["behind"] is False and 0.5 < d["schedule"]["span_ratio"] < 2 and d["schedule"]["behind_span"] == 2 and d["schedule"]["behind_lag_us"] == 1e6'

# 14-16. afap has no schedule: no warning, null figures, exit 0 whatever --strict-timing says.
"$reprise" replay "$tmp/slow.load" --target unused --backend fault -O delay=2ms -q --strict-timing \
	--json "$tmp/afap.json" >"$tmp/out" 2>"$tmp/err"
status "afap: exit 0 under --strict-timing" $? 0
json "afap: schedule figures null" afap.json \
	'all(d["schedule"][k] is None for k in ("span_s", "recorded_span_s", "span_ratio", "behind"))'
lacks "... no Span: line" out '^Span:'

# 17-18. Many mismatches: not representative, the likely cause from what the run knows.
mkdir "$tmp/t1"
"$reprise" replay "$data/small.load" --target "$tmp/t1" --no-prepare -q --json "$tmp/np.json" >"$tmp/out" 2>"$tmp/err"
has "--no-prepare: NOT REPRESENTATIVE after the table, prepare the cause" out \
	'^\*\*\* likely cause: .*ENOENT.*prepare did not run \(--no-prepare\)'
json "... representative false, likely_cause prepare" np.json \
	'd["representative"] is False and d["likely_cause"] == "prepare" and d["mismatch_share"] > 0.01 and "--no-prepare" in d["likely_cause_text"]'
# 19-20. A target that was not empty: an exclusive create finds the file that was there.
mkdir -p "$tmp/t2/w" && : >"$tmp/t2/w/a"
printf 'NTCreateX "\\w\\a" 0x40 0x2 1 NT_STATUS_OK\nClose 1 NT_STATUS_OK\nNTCreateX "\\w\\b" 0x40 0x2 2 NT_STATUS_OK\nClose 2 NT_STATUS_OK\n' >"$tmp/excl.load"
"$reprise" replay "$tmp/excl.load" --target "$tmp/t2" -q --json "$tmp/ne.json" >"$tmp/out" 2>"$tmp/err"
has "a non-empty target: replay into an empty directory" out '^\*\*\* likely cause: the target was not empty \(1 entry before the run\).*replay into an empty directory'
json "... representative false, likely_cause target" ne.json \
	'd["representative"] is False and d["likely_cause"] == "target"'
[ $fails -eq 0 ]
