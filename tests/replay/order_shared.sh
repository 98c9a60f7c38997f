#!/bin/sh
# --order=resource on a shared two-client trace (TAP): client 1 creates, writes and renames each
# file that client 2 then opens, reads and deletes, and client 1 finally finds gone.  Replayed
# as fast as possible, per-client order alone lets client 2 run ahead (its opens find nothing);
# with --order=resource every one of 20 runs (3 in the quick tier) gives the recorded result for
# every op, and the waits the ordering added are reported (here, on stderr of the test log, and in the JSON).
#   order_shared.sh REPRISE
set -u
reprise=$1
runs=20
# The quick tier (REPRISE_TEST_TIER=quick, meson's default test setup) samples 3 runs.
[ "${REPRISE_TEST_TIER:-full}" = quick ] && runs=3
tmp=$(mktemp -d "${TMPDIR:-/tmp}/reprise-order-XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT INT TERM
n=0
ok() { n=$((n + 1)); echo "ok $n - $1"; }
notok() { n=$((n + 1)); echo "not ok $n - $1"; }
check() { if eval "$2"; then ok "$1"; else notok "$1"; fi; }
json() { python3 -c "import json,sys; d=json.load(open(sys.argv[1])); sys.exit(0 if ($2) else 1)" "$1"; }
if ! command -v python3 >/dev/null; then
	echo "1..0 # skip no python3"
	exit 77
fi
echo "1..6"

# 40 rounds of: c1 open(create) write close rename; c2 open read close unlink; c1 stat -> ENOENT.
python3 - >"$tmp/shared.txt" <<'PY'
t, out = 0.001, ['0.000000000 0.000100000 c1 mkdir path="/d" -> OK']
def op(c, s):
    global t
    out.append('%.9f %.9f c%d %s' % (t, t + 0.0002, c, s))
    t += 0.0005
for i in range(1, 41):
    op(1, 'open path="/d/tmp%d" fh=%d want=write disp=create -> OK' % (i, i))
    op(1, 'write fh=%d off=0 len=4096 ret=4096 -> OK' % i)
    op(1, 'close fh=%d -> OK' % i)
    op(1, 'rename path="/d/tmp%d" path2="/d/file%d" -> OK' % (i, i))
    op(2, 'open path="/d/file%d" fh=%d want=read -> OK' % (i, 1000 + i))
    op(2, 'read fh=%d off=0 len=4096 ret=4096 -> OK' % (1000 + i))
    op(2, 'close fh=%d -> OK' % (1000 + i))
    op(2, 'unlink path="/d/file%d" -> OK' % i)
    op(1, 'stat path="/d/file%d" -> ENOENT' % i)
print('\n'.join(out))
PY
"$reprise" convert -q "$tmp/shared.txt" "$tmp/shared.rpz"
check "the shared trace converts: 361 ops, 2 clients" \
	"'$reprise' stat '$tmp/shared.rpz' | grep -Eq '^ops +361\$' && '$reprise' stat '$tmp/shared.rpz' | grep -Eq '^clients +2\$'"

# Per-client order only: not asserted (a run may happen to interleave as recorded), only shown.
mkdir "$tmp/c"
"$reprise" replay "$tmp/shared.rpz" --target "$tmp/c" --timing afap -q --json "$tmp/c.json" >/dev/null 2>&1
echo "# --order client: $(python3 -c "import json; d=json.load(open('$tmp/c.json')); print(d['mismatches'], 'mismatches')")"

# --order=resource, 20 runs on fresh directories: every op as recorded, every time.
bad=0 waits="" total=0
i=1
while [ $i -le $runs ]; do
	mkdir "$tmp/r$i"
	if ! "$reprise" replay "$tmp/shared.rpz" --target "$tmp/r$i" --timing afap --order resource -q \
		--json "$tmp/r$i.json" >"$tmp/r$i.out" 2>&1; then
		echo "# run $i failed:"; sed 's/^/#   /' "$tmp/r$i.out" | head -5; bad=$((bad + 1))
	elif ! json "$tmp/r$i.json" 'd["mismatches"] == 0 and d["order"] == "resource"'; then
		echo "# run $i: $(python3 -c "import json; d=json.load(open('$tmp/r$i.json')); print(d['mismatches'], 'mismatches')")"
		bad=$((bad + 1))
	fi
	w=$(python3 -c "import json; d=json.load(open('$tmp/r$i.json')); print('%d/%.1f' % (d['order_waits'], d['order_wait_us'] / 1e3))" 2>/dev/null || echo "?")
	waits="$waits $w"
	i=$((i + 1))
done
check "--order=resource: zero mismatches on every one of $runs runs" "[ $bad -eq 0 ]"
echo "# waits added per run (ops waited / ms):$waits"
check "every run replayed every op of the trace" \
	"for i in \$(seq 1 $runs); do json '$tmp/r'\$i'.json' 'sum(d[\"op_counts\"].values()) == 361' || exit 1; done"
check "every run ends with the same tree: /d empty" \
	"for i in \$(seq 1 $runs); do [ -d '$tmp/r'\$i/d ] && [ -z \"\$(ls -A '$tmp/r'\$i/d)\" ] || exit 1; done"
check "the waits are reported per client in the JSON" \
	"json '$tmp/r1.json' 'd[\"order_resources\"] > 0 and len(d[\"client_results\"]) == 2 and all(\"order_waits\" in c and \"order_wait_us\" in c for c in d[\"client_results\"]) and d[\"order_waits\"] == sum(c[\"order_waits\"] for c in d[\"client_results\"])'"
"$reprise" replay "$tmp/shared.rpz" --target "$tmp/r1" --timing afap --order resource >"$tmp/text.out" 2>&1
check "and in the text report" "grep -Eq '^Order across clients \\(resource\\): [0-9]+ paths, .* ops waited ' '$tmp/text.out'"
