#!/bin/sh
# reprise bench (TAP): two targets with the null and posix backends, interleaved runs, --discard-first,
# the table and the JSON agreeing, the final sync counted and absent with --no-final-sync, a target
# that cannot be prepared reported while the other runs, bad option values refused.
#   bench.sh REPRISE SOURCE_ROOT
set -u
reprise=$1
src=$2
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT INT TERM
. "${0%/*}/../lib/tap.sh"

run() { timeout 120 "$@" >"$tmp/out" 2>"$tmp/err"; }
check() { desc=$1; shift; if run "$@"; then ok "$desc"; else echo "# exit $?"; not_ok "$desc"; fi; }
check_fails() { desc=$1; want=$2; shift 2; run "$@"; rc=$?
	if [ "$rc" = "$want" ]; then ok "$desc"; else echo "# exit $rc, wanted $want"; not_ok "$desc"; fi; }
# python3 CHECK.py-style assertions over the JSON (and the table in $tmp/out): exit 0 = ok
pycheck() { desc=$1; shift; if python3 - "$@" >"$tmp/py" 2>&1; then ok "$desc"; else sed 's/^/# /' "$tmp/py"; not_ok "$desc"; fi; }
empty_dir() { [ -d "$1" ] && [ -z "$(ls -A "$1")" ]; }

# A small workload that writes (so a sync has something to do) and fails one op as recorded.
cat >"$tmp/w.txt" <<'LOAD'
NTCreateX "\d\f1" 0x0 0x2 1 NT_STATUS_OK
WriteX 1 0 65536 65536 NT_STATUS_OK
WriteX 1 65536 65536 65536 NT_STATUS_OK
ReadX 1 0 4096 4096 NT_STATUS_OK
Close 1 NT_STATUS_OK
QUERY_PATH_INFORMATION "\d\nothere" 1004 NT_STATUS_OBJECT_NAME_NOT_FOUND
Unlink "\d\f1" 0x6 NT_STATUS_OK
LOAD
mkdir "$tmp/a" "$tmp/b"

# 1. posix on two directories: 3 runs each, interleaved, the first discarded.
check "bench posix A B --runs 3 --discard-first" "$reprise" bench "$tmp/w.txt" --target "$tmp/a" --target "$tmp/b" \
	--runs 3 --discard-first -q --json "$tmp/p.json"
if empty_dir "$tmp/a" && empty_dir "$tmp/b"; then ok "the targets are left empty (each run's directory removed)"; else ls -laR "$tmp/a" "$tmp/b" | sed 's/^/# /'; not_ok "the targets are left empty"; fi
has "the table has a column per target" out "^target +$tmp/a +$tmp/b"
has "the table says 2 of 3 runs counted" out '^runs counted +2 of 3( !)? +2 of 3'
has "--runs 3 --discard-first: the median of two is said to be the mean of two" err '^reprise bench: 2 counted runs: each median is the mean of the middle two'
has "the table's note says it too" out '^2 targets with an even number of counted runs: the median is the mean of the middle two'
has "a directory of a shared file system: syncfs times all of it, said before the runs" err "^reprise bench: $tmp/a is a directory of the file system mounted at .*: the flush at end is syncfs\(2\) of that whole file system"
has "and under the table" out "^$tmp/a: a directory of the file system mounted at .*syncfs of that whole file system"
has "load average and CPU steal rows" out '^load avg at start +[0-9]'
has "CPU steal row" out '^CPU steal \(%\) +[0-9]'
lacks "dirty data at end is never negative" out '^dirty at end \(MB\) .*-[0-9]'
pycheck "JSON: each run's load average and CPU steal, the target's shared mount" "$tmp/p.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
for t in d["targets"]:
    assert t["shared_mount"] and t["shared_mount"].startswith("/"), t["shared_mount"]
    for r in t["runs"]:
        assert isinstance(r["load_avg_start"], float) and r["load_avg_start"] >= 0, r["load_avg_start"]
        assert isinstance(r["cpu_steal_share"], float) and 0 <= r["cpu_steal_share"] <= 1, r["cpu_steal_share"]
PY
pycheck "JSON: schema, order A B A B A B, every run kept, the first marked discarded" "$tmp/p.json" "$tmp/a" "$tmp/b" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
a, b = sys.argv[2], sys.argv[3]
assert d["schema"] == "reprise-bench/1", d["schema"]
assert d["order"] == [a, b] * 3, d["order"]
for t in d["targets"]:
    runs = t["runs"]
    assert [r["run"] for r in runs] == [1, 2, 3]
    assert [r["discarded"] for r in runs] == [True, False, False]
    assert all(r["result"]["schema"] == "reprise-replay" for r in runs)
    assert t["summary"]["runs_counted"] == 2
    assert t["fs_type"] and t["mount_options"] is not None
assert d["trace"]["sha256"] and len(d["trace"]["sha256"]) == 64
assert d["options"]["runs"] == 3 and d["options"]["discard_first"] is True
PY
pycheck "JSON: each run's result is replay's object, its target the run's own directory beneath the target" "$tmp/p.json" <<'PY'
import json, sys, os
d = json.load(open(sys.argv[1]))
seen = set()
for t in d["targets"]:
    for r in t["runs"]:
        p = r["result"]["provenance"]["target"]["path"]
        assert os.path.dirname(p) == t["target"], (p, t["target"])
        assert os.path.basename(p).startswith("reprise-bench-"), p
        seen.add(p)
        res = r["result"]
        for k in ("mb_per_sec", "ops_per_sec", "latency_us", "ops", "final_sync", "prepare", "series"):
            assert k in res, k
assert len(seen) == 6, seen
PY
pycheck "the final sync ran in every posix run, counted in the measured time and reported apart" "$tmp/p.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
for t in d["targets"]:
    for r in t["runs"]:
        fs = r["result"]["final_sync"]
        assert fs["asked"] and fs["ran"] and fs["error"] is None, fs
        assert r["final_sync_ns"] == round(fs["seconds"] * 1e9), (r["final_sync_ns"], fs["seconds"])
        assert isinstance(r["dirty_bytes_at_end"], int)
        res = r["result"]
        # the measured time holds the sync: MB/s = bytes / elapsed, and elapsed >= the sync
        assert res["elapsed_s"] >= fs["seconds"]
        assert abs(res["mb_per_sec"] - res["bytes"] / 1e6 / res["elapsed_s"]) < 1e-6 * max(1, res["mb_per_sec"])
    s = t["summary"]["final_sync_ns"]
    assert s is not None and s["min"] <= s["median"] <= s["max"]
PY
pycheck "the table and the JSON agree: MB/s, ops/s, latency, errors and mismatches of the counted runs" "$tmp/p.json" "$tmp/out" <<'PY'
import json, sys, statistics
d = json.load(open(sys.argv[1]))
rows = {}
for line in open(sys.argv[2]):
    if len(line) > 22 and not line.startswith("(") and not line.startswith("-"):
        rows[line[:22].strip()] = [line[23 + 28 * i: 23 + 28 * i + 27].strip() for i in range(len(d["targets"]))]
def cell(vals, prec):
    lo, hi, med = min(vals), max(vals), statistics.median(vals)
    f = "%%.%df" % prec
    return f % med if f % lo == f % hi else "%s (%s..%s)" % (f % med, f % lo, f % hi)
for i, t in enumerate(d["targets"]):
    counted = [r["result"] for r in t["runs"] if not r["discarded"] and not r["failed"]]
    assert rows["MB/s"][i] == cell([r["mb_per_sec"] for r in counted], 2), (rows["MB/s"][i], [r["mb_per_sec"] for r in counted])
    assert rows["ops/s"][i] == cell([r["ops_per_sec"] for r in counted], 0), rows["ops/s"][i]
    assert rows["all p99 (ms)"][i] == cell([r["latency_us"]["p99"] / 1e3 for r in counted], 3), rows["all p99 (ms)"][i]
    assert rows["write max (ms)"][i] == cell([r["ops"]["write"]["latency_us"]["max"] / 1e3 for r in counted], 3)
    s = t["summary"]
    assert s["mb_s"]["median"] == statistics.median([r["mb_per_sec"] for r in counted])
    assert s["lat_ns"]["write"]["p50"]["max"] == max(r["ops"]["write"]["latency_us"]["p50"] * 1e3 for r in counted)
    errors = sum(r["failures"] - r["failures_expected"] for r in counted)
    mism = sum(r["mismatches"] for r in counted)
    assert (s["errors"], s["mismatches"]) == (errors, mism) == (0, 0)
    assert rows["errors, mismatches"][i] == "%d, %d" % (errors, mism)
PY

# 2. --no-final-sync: no sync, dbench's number; the dirty bytes are still reported.
check "bench --no-final-sync" "$reprise" bench "$tmp/w.txt" --target "$tmp/a" --runs 1 --no-final-sync -q --json "$tmp/n.json"
pycheck "--no-final-sync: no sync in the run, final_sync_ns null, dirty bytes still there" "$tmp/n.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
r = d["targets"][0]["runs"][0]
assert d["options"]["final_sync"] is False
assert r["final_sync_ns"] is None and r["result"]["final_sync"]["asked"] is False and not r["result"]["final_sync"]["ran"]
assert isinstance(r["dirty_bytes_at_end"], int)
assert d["targets"][0]["summary"]["final_sync_ns"] is None
PY
has "--no-final-sync: the table has no flush" out '^flush at end \(s\) +- *$'

# 3. The null backend: nothing to sync (said), targets not touched.
check "bench --backend null on two targets" "$reprise" bench "$tmp/w.txt" --backend null --target "$tmp/a" --target "$tmp/b" \
	--runs 2 -q --json "$tmp/z.json"
pycheck "null: the sync is not done, and the JSON says why" "$tmp/z.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
assert d["order"] == [d["targets"][0]["target"], d["targets"][1]["target"]] * 2
for t in d["targets"]:
    for r in t["runs"]:
        assert r["result"]["backend"] == "null"
        assert r["final_sync_ns"] is None and r["result"]["final_sync"]["error"], r["result"]["final_sync"]
PY
if empty_dir "$tmp/a" && empty_dir "$tmp/b"; then ok "null: the targets are untouched"; else not_ok "null: the targets are untouched"; fi

# 4. A target that cannot be prepared: reported, the other runs, exit 1.
check_fails "a missing target fails the command (exit 1)" 1 "$reprise" bench "$tmp/w.txt" --target "$tmp/missing" --target "$tmp/a" \
	--runs 2 -q --json "$tmp/f.json"
has "the missing target is reported" err "$tmp/missing: run 1: .*No such file or directory"
pycheck "the other target ran both runs; the missing one has one failed run, null result, and its error" "$tmp/f.json" "$tmp/missing" "$tmp/a" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
m, a = d["targets"]
assert m["target"] == sys.argv[2] and a["target"] == sys.argv[3]
assert len(m["runs"]) == 1 and m["runs"][0]["failed"] and m["runs"][0]["result"] is None and m["runs"][0]["error"]
assert m["summary"]["runs_counted"] == 0 and m["summary"]["mb_s"] is None
assert [r["failed"] for r in a["runs"]] == [False, False] and a["summary"]["runs_counted"] == 2
assert d["order"] == [sys.argv[2], sys.argv[3], sys.argv[3]], d["order"]
PY
has "the table marks it FAILED" out '^runs counted +0 of 1 \(FAILED\) +2 of 2'

# 5. A replay result is written by the same code: replay --final-sync.
check "replay --final-sync" "$reprise" replay "$tmp/w.txt" --target "$tmp/a" --final-sync --cleanup --json "$tmp/r.json"
has "replay --final-sync prints the flush" out '^Flush at end: [0-9.]+ s \(syncfs, in the measured time\); dirty at the end of the run: '
pycheck "replay's JSON has final_sync, ran" "$tmp/r.json" <<'PY'
import json, sys
fs = json.load(open(sys.argv[1]))["final_sync"]
assert fs["asked"] and fs["ran"] and fs["seconds"] >= 0 and isinstance(fs["dirty_bytes_at_end"], int), fs
PY

# 6. A target whose name holds an escape sequence: printed escaped, never raw.
esc=$(printf '\033')
mkdir "$tmp/e${esc}[2Jx"
check "bench on a target named with ESC [2J" "$reprise" bench "$tmp/w.txt" --target "$tmp/e${esc}[2Jx" --runs 1 -q
if grep -q "$esc" "$tmp/out" "$tmp/err"; then not_ok "no ESC byte on stdout or stderr"; else ok "no ESC byte on stdout or stderr"; fi
has "the name is shown escaped" err 'e\\x1b\[2Jx'
rmdir "$tmp/e${esc}[2Jx"

# 7. --json -: the JSON alone on standard output; a JSON that cannot be written is exit 1, before any run.
if timeout 120 "$reprise" bench "$tmp/w.txt" --backend null --target "$tmp/a" --runs 1 -q --json - >"$tmp/out" 2>"$tmp/err" \
	&& python3 -c 'import json, sys; assert json.load(open(sys.argv[1]))["schema"] == "reprise-bench/1"' "$tmp/out"; then
	ok "--json -: stdout is the JSON alone"
else
	not_ok "--json -: stdout is the JSON alone"
fi
has "--json -: the table goes to stderr" err '^MB/s '
check_fails "--json into a missing directory: exit 1" 1 "$reprise" bench "$tmp/w.txt" --target "$tmp/a" --runs 1 -q --json "$tmp/no/x.json"
if grep -q "run 1 of" "$tmp/err"; then not_ok "... and no run was made"; else ok "... and no run was made"; fi
check_fails "--json /dev/full: exit 1" 1 "$reprise" bench "$tmp/w.txt" --backend null --target "$tmp/a" --runs 1 -q --json /dev/full

# 8. Bad option values are usage errors (exit 2) that name the option.
for bad in "--runs 0" "--runs 101" "--runs x" "-t 0" "-t -1" "--clients 0" "--timing nope" "--mkfs ext4" \
	"--mkfs nofs --mkfs-dir $tmp" "--mkfs ext4,ext4 --mkfs-dir $tmp" "--mkfs ext4, --mkfs-dir $tmp" \
	"--mkfs tmpfs --mkfs-dir $tmp --mkfs-size 1k" "--mkfs tmpfs --mkfs-dir $tmp --mkfs-size 2T" \
	"--mkfs tmpfs --mkfs-dir $tmp --mkfs-size 10X" "--mkfs-size 1G" "--runs 1 --discard-first"; do
	# shellcheck disable=SC2086
	check_fails "bench $bad --target A: usage error" 2 "$reprise" bench "$tmp/w.txt" --target "$tmp/a" $bad
done
check_fails "bench without a target: usage error" 2 "$reprise" bench "$tmp/w.txt"
if empty_dir "$tmp/a"; then ok "refused runs made nothing"; else not_ok "refused runs made nothing"; fi

# 9. A traced program's fork and wait (samples/syscall/dbench.rpz): "all" is the file system's ops,
# not the parent's wait for its child; the wait keeps its own numbers.
mkdir "$tmp/pw"
check "bench a syscall trace with a fork and a wait" "$reprise" bench "$src/samples/syscall/dbench.rpz" --target "$tmp/pw" \
	--runs 1 -q --json "$tmp/pw.json"
pycheck "all's max is not the wait's (a process op), and it is each run's slowest file-system op" "$tmp/pw.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
t = d["targets"][0]
res = t["runs"][0]["result"]
wait = res["ops"]["wait"]["latency_us"]["max"] * 1e3
fs = max(v["latency_us"]["max"] for k, v in res["ops"].items() if k not in ("fork", "wait", "sleep") and v["count"])
allmax = t["summary"]["lat_ns"]["all"]["max"]["median"]
assert wait > fs, (wait, fs)
assert abs(allmax - fs * 1e3) <= 0.01 * fs * 1e3, (allmax, fs * 1e3, wait)
PY

# 10. --spread-limit: a limit nobody passes flags nothing; out of its range is a usage error.
check "bench --spread-limit 1000" "$reprise" bench "$tmp/w.txt" --backend null --target "$tmp/a" --runs 2 --spread-limit 1000 -q \
	--json "$tmp/sl.json"
lacks "no runs flagged under a limit of 1000" out '^! '
pycheck "the limit is in the JSON's options" "$tmp/sl.json" <<'PY'
import json, sys
assert json.load(open(sys.argv[1]))["options"]["spread_limit"] == 1000
PY
check_fails "--spread-limit 0.5: usage error" 2 "$reprise" bench "$tmp/w.txt" --backend null --target "$tmp/a" --spread-limit 0.5

echo "1..$n"
