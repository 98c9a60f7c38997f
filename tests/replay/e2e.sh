#!/bin/sh
# End-to-end replay through the reprise binary (TAP): loadfiles, clones, trace timing, confinement, client.txt.
set -u
reprise=$1
data=$2
tmp=$(mktemp -d "${TMPDIR:-/tmp}/reprise-e2e-XXXXXX")
trap 'rm -rf "$tmp"' EXIT
n=0
fails=0
ok() { n=$((n + 1)); echo "ok $n - $1"; }
notok() { n=$((n + 1)); fails=$((fails + 1)); echo "not ok $n - $1"; }
skip() { n=$((n + 1)); echo "ok $n # SKIP $1"; }
check() { if eval "$2"; then ok "$1"; else notok "$1"; fi; }
# json FILE EXPR: evaluate a python expression over the JSON as d.
json() { python3 -c "import json,sys; d=json.load(open(sys.argv[1])); sys.exit(0 if ($2) else 1)" "$1"; }
echo "1..28"

# 1. A small loadfile, three copies, one pass: every status as recorded, prepare makes \input\existing.dat.
mkdir "$tmp/t1"
"$reprise" replay "$data/small.load" --target "$tmp/t1" --clients 3 -q --json "$tmp/1.json" >"$tmp/1.out" 2>&1
check "small loadfile runs" "[ $? -eq 0 ]"
check "no mismatches, 3 clients" "json '$tmp/1.json' 'd[\"mismatches\"] == 0 and d[\"clients\"] == 3 and d[\"op_counts\"][\"read\"] == 6'"
check "clone directories and prepared input" \
	"[ -d '$tmp/t1/client1/work/d' ] && [ -d '$tmp/t1/client3/work/d' ] && [ \$(stat -c %s '$tmp/t1/client2/input/existing.dat') -eq 131072 ]"
check "json has the documented keys" "json '$tmp/1.json' 'all(k in d for k in (\"ops_per_sec\",\"mb_per_sec\",\"lag_us\",\"op_counts\",\"ops\",\"series\")) and set(d[\"ops\"][\"read\"]) >= {\"count\",\"avg_us\",\"p50_us\",\"p99_us\",\"p999_us\",\"max_us\",\"mismatches\"}'"

# 2. A timestamped loadfile (1 ms apart) in trace mode: lag recorded for every op, the run lasts the trace.
mkdir "$tmp/t2"
awk 'BEGIN { print "0.000 Mkdir \"\\\\d\" NT_STATUS_OK";
	for (i = 1; i <= 300; i++) printf "%.6f QUERY_PATH_INFORMATION \"\\\\d\" 1004 NT_STATUS_OK\n", i / 1000 }' >"$tmp/timed.load"
"$reprise" replay "$tmp/timed.load" --target "$tmp/t2" --timing trace -q --json "$tmp/2.json" >/dev/null 2>&1
check "trace timing runs" "[ $? -eq 0 ]"
check "lag for every op, 0.3 s elapsed" "json '$tmp/2.json' 'd[\"lag_us\"][\"count\"] == 301 and 0.29 < d[\"elapsed_s\"] < 0.6 and d[\"mismatches\"] == 0'"
"$reprise" replay "$tmp/timed.load" --target "$tmp/t2" --timing trace --speed 3 -q --json "$tmp/2b.json" >/dev/null 2>&1
check "--speed 3 runs three times faster" "json '$tmp/2b.json' '0.09 < d[\"elapsed_s\"] < 0.25'"

# 3. Confinement: '..' and a planted symlink to outside.
mkdir -p "$tmp/t3/target" "$tmp/t3/outside"
ln -s ../outside "$tmp/t3/target/link"
"$reprise" replay "$data/escape.load" --target "$tmp/t3/target" -q --json "$tmp/3.json" >/dev/null 2>&1
check "nothing created outside the target" \
	"[ -z \"\$(ls -A '$tmp/t3/outside')\" ] && [ ! -e '$tmp/t3/escaped.txt' ] && [ ! -e '$tmp/escaped.txt' ] && [ ! -e '$tmp/t3/escaped-dir' ]"
check "escapes counted" "json '$tmp/3.json' 'd[\"escapes\"] >= 2'"

# 4. Usage errors exit 2; a network target says why it cannot run.
"$reprise" replay "$data/small.load" >/dev/null 2>&1
check "missing --target is a usage error" "[ $? -eq 2 ]"
# (An option the nfs backend refuses before connecting, so a build with libnfs sends nothing.)
"$reprise" replay "$data/small.load" --target 'nfs://127.0.0.1/export?bogus=1' -q >"$tmp/4.out" 2>&1
if "$reprise" -V | grep -q 'libnfs=no'; then
	check "nfs:// target explains itself" "grep -q 'built without the nfs backend (it needs libnfs)' '$tmp/4.out'"
else
	check "nfs:// target explains itself" "grep -q \"unknown option 'bogus'\" '$tmp/4.out'"
fi
"$reprise" replay "$data/small.load" --target gopher://127.0.0.1/x -q >"$tmp/4b.out" 2>&1
check "an unknown scheme is an error naming the schemes this build knows" \
	"[ $? -eq 1 ] && grep -Eq \"unknown URL scheme 'gopher' \(this build knows file://, (nfs://, )?(smb://, )?a directory path\)\" '$tmp/4b.out'"
"$reprise" replay "$data/small.load" --target "file://$tmp/t1" -q --json "$tmp/4c.json" >/dev/null 2>&1
check "a file:// target picks posix" "json '$tmp/4c.json' 'd[\"backend\"] == \"posix\" and d[\"mismatches\"] == 0'"
check "the JSON counts unsupported ops (none for posix)" \
	"json '$tmp/4c.json' 'd[\"unsupported\"] == 0 and all(o[\"unsupported\"] == 0 for o in d[\"ops\"].values())'"
"$reprise" replay --list-backends >"$tmp/4d.out" 2>&1
check "--list-backends shows each option's type, default and bounds" \
	"grep -q 'delay=DURATION  *\\[duration, default 0, 0 to 3600s\\]' '$tmp/4d.out' && grep -q 'fail=OP.*\\[string, repeatable\\]' '$tmp/4d.out' && grep -q 'sync  *\\[flag\\]' '$tmp/4d.out' && grep -q 'targets: a directory path, file://' '$tmp/4d.out'"
"$reprise" replay --help >"$tmp/4e.out" 2>&1
check "replay --help has the same backend table" "grep -q 'delay=DURATION  *\\[duration, default 0, 0 to 3600s\\]' '$tmp/4e.out'"
"$reprise" replay "$data/small.load" --target "$tmp/t1" --backend fault --backend-opt delay=2h -q >"$tmp/4f.out" 2>&1
check "an option out of its range names it and the range" \
	"grep -q \"backend fault: option 'delay': 2h is out of range (0 to 3600s)\" '$tmp/4f.out'"
"$reprise" replay "$data/small.load" --target "$tmp/t1" --backend fault --backend-opt delay=3601s -q >"$tmp/4g.out" 2>&1
check "and one past the maximum" "grep -q \"option 'delay': 3601s is out of range (0 to 3600s)\" '$tmp/4g.out'"

# 5. dbench's client.txt for two seconds, two clients, if Debian's dbench is installed.
if [ -r /usr/share/dbench/client.txt ]; then
	mkdir "$tmp/t5"
	"$reprise" replay /usr/share/dbench/client.txt --target "$tmp/t5" --clients 2 -t 2 --warmup 0.5 -q \
		--json "$tmp/5.json" >/dev/null 2>&1
	check "client.txt: 2 s, no mismatches, looped by time" \
		"json '$tmp/5.json' 'd[\"mismatches\"] == 0 and d[\"stop\"] == \"time\" and d[\"total_ops\"] > 1000 and 1.99 < d[\"elapsed_s\"] < 2.01'"
else
	skip "no /usr/share/dbench/client.txt (apt-get install dbench)"
fi
# 6. The in-flight window: bounds, the JSON, and a loadfile (no recorded ends: nothing overlaps) stays one at a time.
check "inflight in the JSON: auto, bound 1 (the recorded depth), depth 1, a record per client" \
	"json '$tmp/1.json' 'd[\"inflight\"][\"max_inflight\"] == 1 and d[\"inflight\"][\"auto\"] and d[\"inflight\"][\"cap\"] == 64 and d[\"inflight\"][\"max\"] == 1 and len(d[\"inflight\"][\"clients\"]) == 3 and all(c[\"bound\"] == 1 for c in d[\"inflight\"][\"clients\"]) and d[\"inflight\"][\"recorded_max\"] == 1'"
"$reprise" replay "$data/small.load" --target "$tmp/t1" --max-inflight 0 -q >/dev/null 2>&1
rc0=$?
"$reprise" replay "$data/small.load" --target "$tmp/t1" --max-inflight 1025 -q >/dev/null 2>&1
check "--max-inflight 0 and 1025 are usage errors" "[ $rc0 -eq 2 ] && [ $? -eq 2 ]"
mkdir "$tmp/t6"
"$reprise" replay "$tmp/timed.load" --target "$tmp/t6" --timing trace --max-inflight 8 -q --json "$tmp/6.json" >/dev/null 2>&1
check "a timestamped loadfile with --max-inflight 8 runs one at a time" \
	"json '$tmp/6.json' 'd[\"inflight\"][\"max_inflight\"] == 8 and not d[\"inflight\"][\"auto\"] and d[\"inflight\"][\"cap\"] is None and d[\"inflight\"][\"max\"] == 1 and d[\"mismatches\"] == 0'"
"$reprise" replay "$data/small.load" --target "$tmp/t1" --max-inflight soon -q >"$tmp/6c.out" 2>&1
check "--max-inflight takes a number or auto" "[ $? -eq 2 ] && grep -q \"'soon' is not a whole number (decimal, or hex with 0x) or auto\" '$tmp/6c.out'"
"$reprise" replay "$data/small.load" --target "$tmp/t1" --backend fault --backend-opt delay=soon -q >"$tmp/6.out" 2>&1
check "fault delay= wants a duration" "grep -q \"option 'delay': 'soon' is not a duration\" '$tmp/6.out'"

# 7. --order: the default is auto, client for a loadfile's copies (nothing scanned); resource orders the copies' paths and says so.
check "the default order is auto: client for a loadfile's copies, no tables" \
	"json '$tmp/1.json' 'd[\"order\"] == \"client\" and d[\"order_auto\"] and \"one client\" in d[\"order_why\"] and not d[\"order_fallback\"] and d[\"order_resources\"] == 0 and d[\"order_waits\"] == 0'"
mkdir "$tmp/t7"
"$reprise" replay "$data/small.load" --target "$tmp/t7" --clients 3 --order resource --json "$tmp/7.json" >"$tmp/7.out" 2>&1
check "--order resource: as recorded, the tables and waits reported" \
	"json '$tmp/7.json' 'd[\"order\"] == \"resource\" and not d[\"order_auto\"] and d[\"order_why\"] is None and d[\"mismatches\"] == 0 and d[\"order_resources\"] > 0 and d[\"order_bytes\"] > 0 and len(d[\"client_results\"]) == 3 and all(\"order_wait_us\" in c for c in d[\"client_results\"])' && grep -q '^Order across clients (resource): ' '$tmp/7.out'"
"$reprise" replay "$data/small.load" --target "$tmp/t7" --order=path -q >"$tmp/7b.out" 2>&1
check "--order path is a usage error" "[ $? -eq 2 ] && grep -q 'order' '$tmp/7b.out'"
# --order auto on a trace whose fork ops contradict each other (a cycle): resource order cannot be kept,
# so it warns and replays in client order (exit 0), the JSON saying why.
printf '%s\n' '0.000100000 0.000100000 c1 fork ret=2 raw=posix -> OK' '0.000200000 0.000200000 c2 fork ret=1 raw=posix -> OK' \
	'0.000300000 0.000400000 c1 stat path="/f" raw=posix -> OK' >"$tmp/cycle.txt"
mkdir "$tmp/t7c"
"$reprise" replay "$tmp/cycle.txt" --target "$tmp/t7c" -q --json "$tmp/7c.json" >"$tmp/7c.out" 2>&1
check "--order auto: resource impossible, a warning and client order" \
	"[ $? -eq 0 ] && grep -q 'warning: --order auto: .*replaying in client order' '$tmp/7c.out' && json '$tmp/7c.json' 'd[\"order\"] == \"client\" and d[\"order_auto\"] and d[\"order_fallback\"] and \"cycle\" in d[\"order_why\"]'"

[ $fails -eq 0 ]
