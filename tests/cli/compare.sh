#!/bin/sh
# reprise compare (TAP): the table and --json from real `reprise replay --json` runs (posix and null
# backends on temporary directories), bench-format input with a discarded run, runs of one target
# pooled across files, bad inputs as clear `file: field:` errors and exit 1 (the loader's whole
# matrix of them is unit-tested in tests/results), hostile names escaped.
#   compare.sh REPRISE SOURCE_ROOT
set -u
reprise=$1
src=$2
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT INT TERM
. "${0%/*}/../lib/tap.sh"

run() { timeout 120 "$@" >"$tmp/out" 2>"$tmp/err"; }
check() { desc=$1; shift; if run "$@"; then ok "$desc"; else not_ok "$desc"; fi; }
check_fails() { desc=$1; want=$2; shift 2; run "$@"; rc=$?
	if [ "$rc" = "$want" ]; then ok "$desc"; else echo "# exit $rc, wanted $want"; not_ok "$desc"; fi; }
# py DESC SCRIPT ARGS...: a python check that exits 0 when it holds (its output is shown when not).
py() { desc=$1; shift; if python3 -c "$@" >"$tmp/pyout" 2>&1; then ok "$desc"; else sed 's/^/# /' "$tmp/pyout"; not_ok "$desc"; fi; }

if ! command -v python3 >/dev/null; then
	echo "1..0 # skip no python3"
	exit 77
fi

# Real results: the bundled SMB sample replayed on two directories, posix twice (two runs of one
# target, written to two files) and null once; -t 2 so each run has a per-second series.
trace=$src/samples/smb2-small-files.rpz
mkdir "$tmp/a" "$tmp/b"
check "replay posix run 1" "$reprise" replay "$trace" --target "$tmp/a" -t 2 -q --json "$tmp/a1.json"
check "replay posix run 2" "$reprise" replay "$trace" --target "$tmp/a" -t 2 -q --json "$tmp/a2.json"
check "replay null" "$reprise" replay "$trace" --backend null --target "$tmp/b" -t 2 -q --json "$tmp/b.json"
# The trace's own timing paces both posix runs, so their MB/s can agree to every printed digit;
# run 2 is given a throughput of its own so that pooling has a real min..max to show.
py "run 2 made faster than run 1" "
import json
a1, a2 = (json.load(open('$tmp/a%d.json' % i)) for i in (1, 2))
a2['mb_per_sec'] = a1['mb_per_sec'] * 1.5 + 0.25
json.dump(a2, open('$tmp/a2.json', 'w'))
"

# 1. The table from two replay files: one column per target, every measure, the best marked.
check "compare two replay files" "$reprise" compare "$tmp/a1.json" "$tmp/b.json"
has "a column per target" out "^target +$tmp/a +$tmp/b\$"
has "fs type and mount options rows" out '^file system +[^ ]+ +[^ ]+$'
has "a MB/s row with the best marked and a ratio" out '^MB/s +[0-9.]+ [0-9.e+-]+x +[0-9.]+ \*$'
has "an ops/s row" out '^ops/s '
has "issue lag rows" out '^issue lag p99 \(us\) '
has "errors and mismatches rows" out '^mismatches '
has "per-op latency rows" out '^read p99 \(ms\) '
has "the legend says what the cells are" out 'median \(min\.\.max\) over the counted runs'
has "an all-ops latency row" out '^all p99 \(ms\) '
check "--json" "$reprise" compare --json "$tmp/a1.json" "$tmp/b.json"
cp "$tmp/out" "$tmp/cmp.json"
py "the JSON's medians are the runs' numbers, the best and the ratio follow" "
import json, sys
c = json.load(open('$tmp/cmp.json')); a = json.load(open('$tmp/a1.json')); b = json.load(open('$tmp/b.json'))
assert c['schema'] == 'reprise-compare/1', c['schema']
ta, tb = c['targets']
assert ta['target'] == '$tmp/a' and tb['target'] == '$tmp/b', (ta['target'], tb['target'])
assert ta['fs_type'] == a['provenance']['target']['fs_type']
assert ta['mount_options'] == a['provenance']['target']['mount_options']
for k in ('mb_per_sec', 'ops_per_sec'):
    x, y = ta['metrics'][k], tb['metrics'][k]
    assert abs(x['median'] - a[k]) < 1e-6 * max(1, a[k]) and abs(y['median'] - b[k]) < 1e-6 * max(1, b[k]), (k, x, y)
    best = max(a[k], b[k])
    assert x['best'] == (a[k] == best) and y['best'] == (b[k] == best), (k, x, y)
    assert abs(x['ratio'] - a[k] / best) < 1e-9 and abs(y['ratio'] - b[k] / best) < 1e-9, (k, x, y)
assert ta['metrics']['errors']['median'] == a['failures'] - a['failures_expected']  # as bench counts errors
assert abs(ta['metrics']['all_p99_ms']['median'] - a['latency_us']['p99'] / 1e3) < 1e-9
assert tb['metrics']['mismatches']['median'] == b['mismatches']
for op, v in a['ops'].items():
    if v['count']:
        assert abs(ta['ops'][op]['p99_ms']['median'] - v['p99_us'] / 1e3) < 1e-9, op
        assert ta['ops'][op]['count'] == v['count'], op
assert ta['metrics']['flush_at_end_s'] is None  # not a bench run
"
check "the table again" "$reprise" compare "$tmp/a1.json" "$tmp/b.json"
py "the table's MB/s cells are the JSON's medians" "
import json, re
c = json.load(open('$tmp/cmp.json'))
row = [l for l in open('$tmp/out') if l.startswith('MB/s ')][0].split()
vals = [float(row[1]), float(row[3])]
for t, v in zip(c['targets'], vals):
    m = t['metrics']['mb_per_sec']['median']
    assert abs(v - m) <= 0.051 * max(1, m) or abs(v - m) < 0.6, (v, m)
"

# 2. Pooling: two files of the same target are one column of two runs; median, min and max.
check "two runs of one target and another" "$reprise" compare --json "$tmp/a1.json" "$tmp/a2.json" "$tmp/b.json"
cp "$tmp/out" "$tmp/pool.json"
py "the posix target has 2 runs, median the mean of the two, min and max theirs" "
import json
c = json.load(open('$tmp/pool.json')); r = [json.load(open('$tmp/a%d.json' % i))['mb_per_sec'] for i in (1, 2)]
assert len(c['targets']) == 2, len(c['targets'])
m = c['targets'][0]['metrics']['mb_per_sec']
assert c['targets'][0]['runs'] == 2 and m['runs'] == 2, m
assert abs(m['min'] - min(r)) < 1e-6 and abs(m['max'] - max(r)) < 1e-6 and abs(m['median'] - sum(r) / 2) < 1e-6, (m, r)
"
check "pooled table" "$reprise" compare "$tmp/a1.json" "$tmp/a2.json" "$tmp/b.json"
has "the pooled column shows min..max" out '^MB/s +[0-9.]+ \([0-9.]+\.\.[0-9.]+\)'
has "runs row: 2 and 1, the two runs flagged (MB/s 1.5x + 0.25 apart: above the 1.5x limit)" out '^runs counted +2 ! +1$'
has "the note says the runs disagree and how many runs a stable median needs" out "^! a: the runs disagree, spread [0-9.]+x .*use --runs [5-9] or more for a stable median"
has "the note says the median of two is the mean of two" out "^1 target with an even number of counted runs: its median is the mean of the middle two"
check "--spread-limit 1000: no flag" "$reprise" compare --spread-limit 1000 "$tmp/a1.json" "$tmp/a2.json" "$tmp/b.json"
has "runs row unflagged under a higher limit" out '^runs counted +2 +1$'

# 3. Bench format: a file as `reprise bench --json` writes it (schema reprise-bench/1), the first
# run of each target discarded; the discarded run is shown and left out of the numbers.
py "make a bench file" "
import json
a1, a2, b = (json.load(open('$tmp/%s.json' % n)) for n in ('a1', 'a2', 'b'))
slow = json.loads(json.dumps(b)); slow['mb_per_sec'] = 0.001; slow['ops_per_sec'] = 0.001
def run(i, res, disc, sync): return {'run': i, 'discarded': disc, 'failed': False, 'error': None, 'final_sync_ns': sync, 'dirty_bytes_at_end': 4096 * i - 12288, 'result': res}
bench = {'schema': 'reprise-bench/1', 'trace': {'path': 'x.rpz', 'sha256': None}, 'options': {'runs': 3, 'discard_first': True},
         'order': ['$tmp/a', '$tmp/b', '$tmp/a', '$tmp/b', '$tmp/a', '$tmp/b'],
         'targets': [{'target': '$tmp/a', 'fs_type': a1['provenance']['target']['fs_type'], 'mount_options': 'rw',
                      'runs': [run(1, slow, True, 5), run(2, a1, False, 1000000), run(3, a2, False, 3000000)], 'summary': {}},
                     {'target': '$tmp/b', 'fs_type': None, 'mount_options': None,
                      'runs': [run(1, slow, True, None), run(2, b, False, None), run(3, b, False, None),
                               {'run': 4, 'discarded': False, 'failed': True, 'error': 'prepare failed', 'final_sync_ns': None,
                                'dirty_bytes_at_end': None, 'result': None},
                               dict(run(5, slow, False, None), failed=True, error='stopped at a mismatch')], 'summary': {}}]}
json.dump(bench, open('$tmp/bench.json', 'w'))
"
check "compare a bench file" "$reprise" compare "$tmp/bench.json"
has "runs: 2 and the discarded one; the failed ones said" out '^runs counted +2 \(\+1 discarded\)( !)? +2 \(\+1 discarded, 2 failed\)$'
has "flush at end from the bench runs (1 and 3 ms: median 2 ms)" out '^flush at end \(s\) +0.002 \(0.001\.\.0.003\) +-$'
has "dirty data at end never negative: a decrease is 0 (runs 2 and 3: -4096 and 0 bytes)" out '^dirty at end \(MB\) +0 '
has "and the note says why" out '^dirty at end: 2 runs measured less dirty data at the end than at the start'
lacks "no negative dirty data" out '^dirty at end \(MB\) .*-[0-9]'
check "compare a bench file --json" "$reprise" compare --json "$tmp/bench.json"
cp "$tmp/out" "$tmp/bj.json"
py "the discarded run is left out of the medians" "
import json
c = json.load(open('$tmp/bj.json')); r = [json.load(open('$tmp/a%d.json' % i))['mb_per_sec'] for i in (1, 2)]
m = c['targets'][0]['metrics']['mb_per_sec']
assert m['runs'] == 2 and abs(m['min'] - min(r)) < 1e-6, m
assert c['targets'][0]['discarded'] == 1
assert c['targets'][1]['fs_type'] == '' and c['targets'][1]['metrics']['flush_at_end_s'] is None
assert c['targets'][1]['failed'] == 2 and c['targets'][1]['runs'] == 2
# the failed run with a result (its MB/s 0.001) is in no number
assert c['targets'][1]['metrics']['mb_per_sec']['min'] > 0.001
"
# A replay file of a bench target (same target and fs type) joins its runs.
check "bench and replay files merge" "$reprise" compare --json "$tmp/bench.json" "$tmp/a1.json"
cp "$tmp/out" "$tmp/bm.json"
py "the replay run is pooled with the bench target's" "
import json
c = json.load(open('$tmp/bm.json'))
assert len(c['targets']) == 2 and c['targets'][0]['runs'] == 3, [(t['target'], t['runs']) for t in c['targets']]
"

# 4. -o and --html write files; an output that is an input is refused.
check "-o FILE" "$reprise" compare -o "$tmp/table.txt" "$tmp/a1.json" "$tmp/b.json"
if [ -s "$tmp/table.txt" ] && [ ! -s "$tmp/out" ] && grep -q '^MB/s' "$tmp/table.txt"; then ok "-o: the table in FILE, nothing on stdout"; else not_ok "-o: the table in FILE"; fi
check "--html FILE" "$reprise" compare --html "$tmp/r.html" "$tmp/a1.json" "$tmp/b.json"
has "--html: the table still on stdout" out '^MB/s'
if head -c 16 "$tmp/r.html" | grep -q '^<!DOCTYPE html>'; then ok "--html: an HTML5 page"; else not_ok "--html: an HTML5 page"; fi
# the SVG namespace is a name, not a fetch: everything else that could load something is absent
sed 's/ xmlns="http:\/\/www.w3.org\/2000\/svg"//g' "$tmp/r.html" >"$tmp/r.stripped"
lacks "--html: nothing fetched from elsewhere" r.stripped '(src|href|srcset|action)=|https?:|@import|url\(|<script|<link|<img|<iframe'
check "--html -: the page on stdout" "$reprise" compare --html - "$tmp/a1.json" "$tmp/b.json"
if head -c 16 "$tmp/out" | grep -q '^<!DOCTYPE html>' && grep -q '^MB/s' "$tmp/err"; then ok "--html -: the page alone on stdout, the table on stderr"; else not_ok "--html -: the page alone on stdout"; fi
check_fails "--html - with -o -: usage error" 2 "$reprise" compare --html - -o - "$tmp/a1.json"
cp "$tmp/a1.json" "$tmp/keep.json"
check_fails "--html onto an input: usage error" 2 "$reprise" compare --html "$tmp/a1.json" "$tmp/a1.json"
if cmp -s "$tmp/a1.json" "$tmp/keep.json"; then ok "the input is untouched"; else not_ok "the input is untouched"; fi
check_fails "-o onto an input: usage error" 2 "$reprise" compare -o "$tmp/a1.json" "$tmp/a1.json"
for form in "" --json; do
	timeout 120 "$reprise" compare $form "$tmp/a1.json" "$tmp/b.json" >/dev/full 2>"$tmp/err"
	if [ $? = 1 ] && grep -q 'No space left on device' "$tmp/err"; then ok "a full stdout ${form:-(table)} is exit 1, said"; else not_ok "a full stdout ${form:-(table)}"; fi
done
check_fails "--html /dev/full: exit 1" 1 "$reprise" compare --html /dev/full "$tmp/a1.json"
has "--html /dev/full: ENOSPC said" err '/dev/full: No space left on device'
check_fails "no FILE: usage error" 2 "$reprise" compare
check "compare --help" "$reprise" compare --help
has "--help names --html" out '--html'

# 5. Bad inputs: exit 1, the file and the field named, no crash, no output file left.  The loader's
# malformed-input matrix (schemas, fields, ranges, histograms, series, limits) is unit-tested in
# tests/results/test_benchtab_load.c; here what only the command does: reading files, the exit status.
bad() { # desc file pattern
	rm -f "$tmp/o.txt"
	run "$reprise" compare -o "$tmp/o.txt" "$2"; rc=$?
	if [ "$rc" = 1 ] && grep -Eq -- "$3" "$tmp/err" && [ ! -e "$tmp/o.txt" ] && ! ls "$tmp"/o.txt.part-* >/dev/null 2>&1; then
		ok "$1"
	else
		echo "# exit $rc; wanted 1 and: $3"; not_ok "$1"
	fi
}
echo 'hello' >"$tmp/text.json"
bad "not JSON" "$tmp/text.json" "text.json: not JSON: line 1"
sed 's/"total_ops": [0-9]*/"total_ops": "12"/' "$tmp/a1.json" >"$tmp/type.json"
bad "a wrong-typed field" "$tmp/type.json" "type.json: total_ops: expected an integer, not a string"
run "$reprise" compare "$tmp/a1.json" "$tmp/text.json"
if [ $? = 1 ] && grep -q 'text.json: not JSON' "$tmp/err" && [ ! -s "$tmp/out" ]; then ok "a bad second file: exit 1, no table"; else not_ok "a bad second file"; fi
bad "a missing file" "$tmp/nothere.json" "nothere.json: No such file"
truncate -s 300M "$tmp/big.json" # sparse: no disk used
bad "a file past 256 MiB" "$tmp/big.json" "big.json: larger than 256 MiB, the limit of one input"
rm -f "$tmp/big.json"
bad "a directory" "$tmp" "Is a directory"

# 6. Hostile names: a target and an op named with <, &, quotes and an escape byte.
python3 -c "
import json
d = json.load(open('$tmp/b.json'))
d['provenance']['target']['path'] = '<script>alert(1)</script>&\"\\'\x1b[2J'
d['provenance']['target']['fs_type'] = '<b>fs</b>'
d['ops']['<i>op&\"'] = d['ops']['read']
json.dump(d, open('$tmp/hostile.json', 'w'))
"
check "hostile names: compare --html" "$reprise" compare --html "$tmp/h.html" "$tmp/hostile.json" "$tmp/a1.json"
if LC_ALL=C grep -q "$(printf '\033')" "$tmp/out" "$tmp/err" "$tmp/h.html"; then not_ok "no ESC byte in the table or the page"; else ok "no ESC byte in the table or the page"; fi
has "the table shows the escape as text" out '<script>alert\(1\)</script>&"'"'"'\\x1b\[2J'
lacks "the page has no script element" h.html '<script'
lacks "the page has no markup from the names" h.html '<b>fs|<i>op'
has "the names are entity-escaped" h.html '&lt;script&gt;alert\(1\)&lt;/script&gt;&amp;&quot;&#39;'
py "every data-target and data-op decodes back to the name" "
from html.parser import HTMLParser
names, ops = set(), set()
class P(HTMLParser):
    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if 'data-target' in a: names.add(a['data-target'])
        if 'data-op' in a: ops.add(a['data-op'])
P().feed(open('$tmp/h.html').read())
want = '<script>alert(1)</script>&\"\\'\\\\x1b[2J'
assert want in names, names
assert '<i>op&\"' in ops, ops
"

# 7. Real `reprise bench --json` output (when this build has bench): compare's numbers are bench's summary.
lacks "dirty data is not ranked" out '^dirty at end \(MB\) .*\*'
if "$reprise" bench --help >/dev/null 2>&1; then
	mkdir -p "$tmp/bx" "$tmp/by"
	check "reprise bench on two directories" "$reprise" bench "$trace" --target "$tmp/bx" --target "$tmp/by" --runs 3 \
		--discard-first -t 1 -q --json "$tmp/realbench.json"
	check "compare reads it" "$reprise" compare --json "$tmp/realbench.json"
	cp "$tmp/out" "$tmp/rb.json"
	py "compare's medians and min..max are bench's summary" "
import json
b = json.load(open('$tmp/realbench.json')); c = json.load(open('$tmp/rb.json'))
assert [t['target'] for t in c['targets']] == [t['target'] for t in b['targets']]
for bt, ct in zip(b['targets'], c['targets']):
    assert ct['runs'] == bt['summary']['runs_counted'], (ct['runs'], bt['summary'])
    assert ct['fs_type'] == (bt['fs_type'] or '') and ct['mount_options'] == (bt['mount_options'] or '')
    for bk, ck in (('mb_s', 'mb_per_sec'), ('ops_s', 'ops_per_sec')):
        for q in ('min', 'median', 'max'):
            x, y = bt['summary'][bk][q], ct['metrics'][ck][q]
            assert abs(x - y) <= 1e-6 * max(1, abs(x)), (bk, q, x, y)
    assert ct['metrics']['errors']['median'] * ct['runs'] <= bt['summary']['errors'] + 1e-9
"
else
	for d in "reprise bench on two directories" "compare reads it" "compare's medians and min..max are bench's summary"; do
		ok "$d # skip this build has no reprise bench"
	done
fi

# 8. The verdict rules (docs/compare.md, "Who wins").  Made from the real results: a workload with a
# wait (process op) far slower than any file-system op, a trace-timed pair, and the same trace's
# hash changed (another workload).
py "make the verdict inputs" "
import json, copy
a, b = (json.load(open('$tmp/%s.json' % n)) for n in ('a1', 'b'))
def with_wait(r, us):
    r = copy.deepcopy(r)
    h = {'count': 200, 'min_ns': int(us * 1000), 'max_ns': int(us * 1000), 'buckets': []}
    lo = int(us * 1000); e = lo.bit_length() - 1; lo = lo >> (e - 7) << (e - 7)
    h['buckets'] = [[lo, 200]]
    r['ops']['wait'] = {'count': 200, 'bytes': 0, 'failures': 0, 'mismatches': 0, 'avg_us': us, 'p50_us': us,
                        'p99_us': us, 'max_us': us, 'histogram': h}
    r['latency_us']['max'] = us
    return r
# The open p50s pinned: a measured posix open can itself be under the 1 µs resolution, and the
# rows below are about a best of about 0 against a value above it.
def with_open_p50(r, us):
    r['ops']['open']['p50_us'] = us
    return r
json.dump(with_open_p50(with_wait(a, 47.7e6), 25.0), open('$tmp/wa.json', 'w'))
json.dump(with_open_p50(with_wait(b, 1e6), 0.02), open('$tmp/wb.json', 'w'))
for n, r in (('ta', a), ('tb', b)):
    r = copy.deepcopy(r); r['timing'] = 'trace'; json.dump(r, open('$tmp/%s.json' % n, 'w'))
o = copy.deepcopy(b); o['provenance']['trace']['sha256'] = 'ab' * 32; o['provenance']['trace']['path'] = 'other.rpz'
json.dump(o, open('$tmp/other.json', 'w'))
"
check_fails "inputs of two traces: refused, exit 2" 2 "$reprise" compare "$tmp/a1.json" "$tmp/other.json"
has "the refusal names both traces and both files" err "a1.json replayed .*smb2-small-files.rpz \(sha256 [0-9a-f]{12}\.\.\.\), .*other.json replayed other.rpz \(sha256 abababababab"
check_fails "--html of two traces: refused too, nothing written" 2 "$reprise" compare --html "$tmp/mixed.html" "$tmp/a1.json" "$tmp/other.json"
if [ -e "$tmp/mixed.html" ]; then not_ok "no page for mixed traces"; else ok "no page for mixed traces"; fi
check "process ops: compare" "$reprise" compare "$tmp/wa.json" "$tmp/wb.json"
has "process ops in a section of their own" out '^process ops \(not in all\):'
has "the wait's rows under it" out '^wait max \(ms\) +47700'
lacks "all max is not the wait's 47.7 s" out '^all max \(ms\) +47700'
lacks "a row equal for every target has no star (errors, issue lag under afap)" out '^(errors|issue lag p50 \(us\)) .*\*'
lacks "no ratio against a best of about 0 (the null backend's 2e-05 ms)" out '^open p50 \(ms\) .*[0-9]x'
has "a difference instead" out '^open p50 \(ms\) +[0-9.]+ \+[0-9.]'
check "--timing trace runs: compare" "$reprise" compare "$tmp/ta.json" "$tmp/tb.json"
lacks "under trace timing MB/s and ops/s are not ranked" out '^(MB/s|ops/s) .*\*'
has "the rows say they are left unranked" out '^MB/s ~ '
has "latency still ranked" out '^all p99 \(ms\) .*\*'
check "--json of the process-op pair" "$reprise" compare --json "$tmp/wa.json" "$tmp/wb.json"
cp "$tmp/out" "$tmp/w.json"
py "the JSON says why a row has no best, the difference when the best is about 0" "
import json
c = json.load(open('$tmp/w.json'))
e = [t['metrics']['errors'] for t in c['targets']]
assert all(not x['best'] and x['unranked'] == 'equal for every target' for x in e), e
o = [t['ops']['open']['p50_ms'] for t in c['targets']]
assert all(x['ratio'] is None for x in o) and any(x['difference'] for x in o), o
assert all(t['metrics']['all_max_ms']['median'] < 1000 for t in c['targets']), [t['metrics']['all_max_ms'] for t in c['targets']]
assert [t['label'] for t in c['targets']] == ['a', 'b'], [t['label'] for t in c['targets']]
"

echo "1..$n"
