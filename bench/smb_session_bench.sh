#!/bin/bash
# smbclient against its own session replayed (docs/BENCHMARKS.md, "SMB: smbclient's session replayed"):
# smbclient puts, gets, renames and deletes N small files in one session against a private smbd on
# 127.0.0.1 (tests/fixtures/smbd.sh), captured (reprise capture --iface lo: root); the capture is then
# replayed to the same smbd, as fast as possible, ROUNDS times, alternating with smbclient doing the same
# session again.  Prints each run's wall time (the whole program: connect, the session, exit), the trace
# ops per second of each, its CPU (user + sys) and smbd's (the master and its per-connection children),
# and the medians' ratios: wall time moves with the machine's other load, CPU much less.
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
# Ports as the tests pick them (tests/lib/ports.sh): free of every socket, below the ephemeral range.
. "$top/tests/lib/ports.sh"
port=$(free_ports $$ 1) || exit 1
"$top/tests/fixtures/smbd.sh" start "$tmp/smb" "$port" >"$tmp/smbd.out" 2>&1 || { cat "$tmp/smbd.out" >&2; exit 1; }
share=$tmp/smb/share
head -c "$size" /dev/urandom >"$tmp/a.bin"
session() { # session DIR: the smbclient commands, into DIR of the share
	local c="cd $1" i
	for i in $(seq 1 "$n"); do c="$c; put $tmp/a.bin f$i; get f$i $tmp/got; rename f$i g$i; del g$i"; done
	echo "$c"
}
now() { date +%s.%N; }
smbd_cpu() { # the CPU seconds of the smbd master and of its per-connection smbds, reaped and alive
	local t pid
	t=$(awk '{ print ($14 + $15 + $16 + $17) / 100 }' "/proc/$(cat "$tmp/smb/run/smbd.pid")/stat")
	for pid in $(pgrep -P "$(cat "$tmp/smb/run/smbd.pid")"); do
		t=$(awk -v t="$t" '{ print t + ($14 + $15) / 100 }' "/proc/$pid/stat" 2>/dev/null || echo "$t")
	done
	echo "$t"
}
# timed NAME CMD...: CMD's wall and CPU seconds and smbd's CPU over it, "wall cpu smbd_cpu"
timed() {
	local s0 s1 t0 t1
	s0=$(smbd_cpu)
	t0=$(now)
	/usr/bin/time -f '%U %S' -o "$tmp/time" "$@" >/dev/null 2>"$tmp/timed.err" || cat "$tmp/timed.err" >&2
	t1=$(now)
	s1=$(smbd_cpu)
	awk -v a="$t0" -v b="$t1" -v s0="$s0" -v s1="$s1" '{ printf "%.3f %.2f %.2f\n", b - a, $1 + $2, s1 - s0 }' "$tmp/time"
}
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
printf '%-22s %10s %10s %10s %10s\n' run wall_s ops/s cpu_s smbd_cpu_s
for r in $(seq "$rounds"); do
	mkdir -m 777 "$share/s$r"
	out=$(timed smbclient "//127.0.0.1/share" -p "$port" -U 'root%pw' -m SMB3 -c "$(session "s$r")")
	set -- $out
	printf '%-22s %10.3f %10.0f %10.2f %10.2f\n' "smbclient ($r)" "$1" "$(awk -v w="$1" -v o="$ops" 'BEGIN { print o / w }')" "$2" "$3"
	echo "smbclient $out" >>"$tmp/all"
	mkdir -m 777 "$share/r$r"
	"$reprise" replay "$tmp/sess.rpz" --target "smb://127.0.0.1:$port/share/r$r" --user root%pw --prepare-only >/dev/null 2>&1
	out=$(timed "$reprise" replay "$tmp/sess.rpz" --target "smb://127.0.0.1:$port/share/r$r" --user root%pw --no-prepare -q \
		--json "$tmp/r$r.json")
	set -- $out
	printf '%-22s %10.3f %10.0f %10.2f %10.2f\n' "reprise ($r)" "$1" "$(awk -v w="$1" -v o="$ops" 'BEGIN { print o / w }')" "$2" "$3"
	echo "reprise $out $(python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))["mismatches"])' "$tmp/r$r.json")" >>"$tmp/all"
done
python3 - "$tmp/all" <<'PY'
import statistics, sys
runs = {}; mism = 0
for line in open(sys.argv[1]):
    f = line.split()
    runs.setdefault(f[0], []).append([float(x) for x in f[1:4]])
    if f[0] == "reprise":
        mism += int(f[4])
med = {k: [statistics.median(r[i] for r in v) for i in range(3)] for k, v in runs.items()}
s, r = med["smbclient"], med["reprise"]
print(f"medians: smbclient {s[0]:.3f} s wall, {s[1]:.2f} s CPU, smbd {s[2]:.2f} s; "
      f"reprise {r[0]:.3f} s wall, {r[1]:.2f} s CPU, smbd {r[2]:.2f} s; mismatches {mism}")
print(f"reprise / smbclient speed (wall) {s[0] / r[0]:.2f}x; client CPU reprise / smbclient {r[1] / s[1]:.2f}x; "
      f"smbd CPU {r[2] / s[2]:.2f}x; client + smbd CPU {(r[1] + r[2]) / (s[1] + s[2]):.2f}x")
PY
