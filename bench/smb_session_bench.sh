#!/bin/bash
# smbclient against its own session replayed (docs/BENCHMARKS.md, "SMB: smbclient's session replayed"):
# smbclient puts, gets, renames and deletes N small files in one session against a private smbd on
# 127.0.0.1 (tests/fixtures/smbd.sh), captured (reprise capture --iface lo: root); the capture is then
# replayed to the same smbd, as fast as possible, ROUNDS times, alternating with smbclient doing the same
# session again.  Prints each run's wall time (the whole program: connect, the session, exit), the trace
# ops per second of each, and the medians' ratio; then the replay's requests over the session's (stat --diff).
#   usage: bench/smb_session_bench.sh     REPRISE=build/cli/reprise N=500 ROUNDS=5 SIZE=3000
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
reprise=${REPRISE:-$top/build/cli/reprise}
n=${N:-500}
rounds=${ROUNDS:-5}
size=${SIZE:-3000}
[ -x "$reprise" ] || { echo "smb_session_bench: no $reprise (build first, or set REPRISE)" >&2; exit 1; }
[ "$(id -u)" -eq 0 ] || { echo "smb_session_bench: needs root (a capture on lo)" >&2; exit 1; }
command -v smbclient >/dev/null || { echo "smb_session_bench: no smbclient (apt-get install smbclient)" >&2; exit 1; }
tmp=$(mktemp -d /tmp/reprise-smbsess.XXXXXX) || exit 1
chmod 755 "$tmp"
cap=
trap '[ -n "$cap" ] && kill -INT "$cap" 2>/dev/null; "$top/tests/fixtures/smbd.sh" stop "$tmp/smb" >/dev/null 2>&1; rm -rf "$tmp"' EXIT INT TERM
listening() { (exec 3<>/dev/tcp/127.0.0.1/"$1") 2>/dev/null; }
port=44551
while listening "$port"; do port=$((port + 1)); done
"$top/tests/fixtures/smbd.sh" start "$tmp/smb" "$port" >"$tmp/smbd.out" 2>&1 || { cat "$tmp/smbd.out" >&2; exit 1; }
share=$tmp/smb/share
head -c "$size" /dev/urandom >"$tmp/a.bin"
session() { # session DIR: the smbclient commands, into DIR of the share
	local c="cd $1" i
	for i in $(seq 1 "$n"); do c="$c; put $tmp/a.bin f$i; get f$i $tmp/got; rename f$i g$i; del g$i"; done
	echo "$c"
}
now() { date +%s.%N; }
# The trace: the first session, captured.
mkdir -m 777 "$share/s0"
"$reprise" capture --iface lo --filter "tcp port $port" --client-key conn --buffer 256 --duration 600 -o "$tmp/sess.rpz" 2>"$tmp/cap.err" &
cap=$!
for _ in $(seq 1 100); do grep -q '^reprise capture: on ' "$tmp/cap.err" && break; sleep 0.1; done
sleep 0.5
smbclient "//127.0.0.1/share" -p "$port" -U 'root%pw' -m SMB3 -c "$(session s0)" >/dev/null 2>&1
sleep 0.5
kill -INT "$cap"; wait "$cap"; cap=
grep -o 'kernel drops [0-9]*' "$tmp/cap.err" >&2 2>/dev/null
ops=$("$reprise" cat "$tmp/sess.rpz" | wc -l)
echo "# $(date -u '+%Y-%m-%d %H:%M UTC'), load $(cut -d' ' -f1-3 /proc/loadavg), $n iterations of put/get/rename/del ($size B), $ops trace ops"
printf '%-22s %10s %10s\n' run wall_s ops/s
for r in $(seq "$rounds"); do
	rm -rf "${share:?}/s$r" "${share:?}/sess"
	mkdir -m 777 "$share/s$r"
	t0=$(now)
	smbclient "//127.0.0.1/share" -p "$port" -U 'root%pw' -m SMB3 -c "$(session "s$r")" >/dev/null 2>&1
	t1=$(now)
	w=$(awk -v a="$t0" -v b="$t1" 'BEGIN { print b - a }')
	printf '%-22s %10.3f %10.0f\n' "smbclient ($r)" "$w" "$(awk -v w="$w" -v o="$ops" 'BEGIN { print o / w }')"
	echo "smbclient $w" >>"$tmp/all"
	mkdir -m 777 "$share/r$r"
	"$reprise" replay "$tmp/sess.rpz" --target "smb://127.0.0.1:$port/share/r$r" --user root%pw --prepare-only >/dev/null 2>&1
	t0=$(now)
	"$reprise" replay "$tmp/sess.rpz" --target "smb://127.0.0.1:$port/share/r$r" --user root%pw --no-prepare -q \
		--json "$tmp/r$r.json" >/dev/null 2>"$tmp/r.err" || cat "$tmp/r.err" >&2
	t1=$(now)
	w=$(awk -v a="$t0" -v b="$t1" 'BEGIN { print b - a }')
	printf '%-22s %10.3f %10.0f\n' "reprise ($r)" "$w" "$(awk -v w="$w" -v o="$ops" 'BEGIN { print o / w }')"
	echo "reprise $w $(python3 -c 'import json, sys; d = json.load(open(sys.argv[1])); print(d["ops_per_sec"], d["mismatches"])' "$tmp/r$r.json")" >>"$tmp/all"
done
python3 - "$tmp/all" <<'PY'
import statistics, sys
w = {}; own = []; mism = 0
for line in open(sys.argv[1]):
    f = line.split()
    w.setdefault(f[0], []).append(float(f[1]))
    if f[0] == "reprise":
        own.append(float(f[2])); mism += int(f[3])
s, r = statistics.median(w["smbclient"]), statistics.median(w["reprise"])
print(f"medians: smbclient {s:.3f} s, reprise {r:.3f} s (its own measured ops/s {statistics.median(own):.0f}); "
      f"reprise / smbclient speed {s / r:.2f}x; mismatches {mism}")
PY
