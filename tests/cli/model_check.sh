#!/bin/sh
# reprise model --check (TAP): client.txt's first 5000 lines and the pgbench sample checked end to
# end on a temporary target (the JSON report's fields all there; client.txt's op mix within 1
# percentage point per op: counts, not times; the generated trace replayed with 0 mismatches; the target left as it was), the table,
# and the usage errors.  No timed bound: the replays' figures are reported, not asserted.
#   model_check.sh REPRISE SRCDIR
set -u
reprise=$1
src=$2
tmp=$(mktemp -d "${TMPDIR:-/tmp}/reprise-model-check-XXXXXX") || exit 1
. "${0%/*}/../lib/tap.sh"
run=$(tap_tmpfs model-check) || exit 1
trap 'rm -rf "$tmp" "$run"' EXIT INT TERM
# fields DESCRIPTION JSON MAXPOINTS: every field of the report there; the op mix within MAXPOINTS (empty: not checked)
fields() {
	if python3 - "$2" "$3" >"$tmp/out" 2>&1 <<'PY'
import json, sys
j = json.load(open(sys.argv[1]))
assert j["format"] == "reprise-model-check"
for k in ("trace", "generated"):
    assert j["ops"][k] > 0, k
assert 0 < j["sizes"]["model_bytes"] and 0 < j["sizes"]["trace_bytes"] and j["sizes"]["model_pct"] > 0
mix = j["op_mix"]
assert mix["max_diff_op"] in mix["ops"]
for name, o in mix["ops"].items():
    for f in ("trace", "generated", "trace_pct", "generated_pct", "diff_points"):
        assert f in o, (name, f)
    assert abs(o["generated_pct"] - o["trace_pct"] - o["diff_points"]) < 1e-6
assert abs(max(abs(o["diff_points"]) for o in mix["ops"].values()) - mix["max_diff_points"]) < 1e-6
r = j["replay"]
assert r["runs"] == 2 and r["timing"] in ("trace", "afap")
for m in ("ops_per_sec", "mb_per_sec", "p50_us", "p99_us"):
    for side in ("trace", "generated", "ratio"):
        s = r["measures"][m][side]
        assert s["min"] <= s["median"] <= s["max"], (m, side)
    assert r["measures"][m]["trace"]["median"] > 0 or m == "mb_per_sec", m
assert r["measures"]["mismatches"]["generated"] == 0, r["measures"]["mismatches"]
for k in ("interarrival_ks", "file_size_ks"):
    assert 0 <= j[k]["statistic"] <= 1, k
assert j["interarrival_ks"]["trace_gaps"] > 0 and j["interarrival_ks"]["generated_gaps"] > 0
print("op mix: largest difference %.3f points (%s); ops/s ratio %.3f, p99 ratio %.3f, inter-arrival KS %.4f, file-size KS %.4f" % (
    mix["max_diff_points"], mix["max_diff_op"], r["measures"]["ops_per_sec"]["ratio"]["median"],
    r["measures"]["p99_us"]["ratio"]["median"], j["interarrival_ks"]["statistic"], j["file_size_ks"]["statistic"]))
if sys.argv[2]:
    assert mix["max_diff_points"] <= float(sys.argv[2]), mix["max_diff_points"]
PY
	then sed 's/^/# /' "$tmp/out"; ok "$1"; else cat "$tmp/out" | sed 's/^/# /'; not_ok "$1"; fi
}
# empty DESCRIPTION DIR: DIR holds nothing
empty() { if [ -z "$(ls -A "$2")" ]; then ok "$1"; else ls -A "$2" | sed 's/^/# left: /'; not_ok "$1"; fi; }
usage() {
	d=$1 msg=$2
	shift 2
	"$@" >/dev/null 2>"$tmp/err"
	rc=$?
	if [ "$rc" = 2 ] && grep -qF -- "$msg" "$tmp/err"; then ok "$d"; else echo "# exit $rc, want 2 and '$msg'"; not_ok "$d"; fi
}
echo "1..10"

# 1-3. client.txt's first 5000 lines (untimed: as fast as possible), on a target of ours
client=/usr/share/dbench/client.txt
if [ -f "$client" ]; then
	head -n 5000 "$client" >"$tmp/part.txt"
	mkdir "$run/t"
	if "$reprise" model --check --runs 2 --json --target "$run/t" "$tmp/part.txt" >"$tmp/c.json" 2>"$tmp/err"; then
		ok "client.txt's first 5000 lines: model --check --json runs"
	else
		not_ok "client.txt's first 5000 lines: model --check --json runs"
	fi
	fields "client.txt: every field of the report; the op mix within 1 point per op" "$tmp/c.json" 1.0
	empty "client.txt: the target is left as it was" "$run/t"
else
	for d in "model --check runs" "the report's fields" "the target left as it was"; do echo "ok $((n += 1)) - # SKIP $d: no $client"; done
fi

# 4-6. the pgbench sample (timed: at the recorded times), on the default temporary directory ($TMPDIR,
# one of this test's own, so another run's reprise-check-* directories cannot be counted), which goes
pg=$src/samples/syscall/pgbench.rpz
mkdir "$tmp/td"
if TMPDIR=$tmp/td "$reprise" model -q --check --runs 2 --json "$pg" >"$tmp/p.json" 2>"$tmp/err"; then ok "pgbench: model --check --json runs"; else not_ok "pgbench: model --check --json runs"; fi
fields "pgbench: every field of the report (trace timing)" "$tmp/p.json" ""
if [ -z "$(ls -A "$tmp/td")" ]; then ok "pgbench: the temporary directory is removed"; else ls -A "$tmp/td" | sed 's/^/# /'; not_ok "pgbench: the temporary directory is removed"; fi

# 7. the table
"$reprise" model -q --check --runs 1 "$pg" >"$tmp/out" 2>"$tmp/err"
has "pgbench: the table names every measure" out '^inter-arrival KS: [0-9.]+ .*file|^file-size KS: [0-9.]+'
# 8-10. usage
usage "--check with -o is a usage error" "leave out -o" "$reprise" model --check -o "$tmp/m.json" "$pg"
usage "--runs without --check is a usage error" "go with --check" "$reprise" model --runs 2 -o "$tmp/m.json" "$pg"
usage "--target that is no directory is a usage error" "not a directory" "$reprise" model --check --target "$tmp/nothere" "$pg"
exit $((fails > 0))
