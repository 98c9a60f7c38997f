#!/bin/bash
# SMB clients in processes against threads (docs/BENCHMARKS.md, "SMB clients in processes"): client.txt's
# first LINES lines, as fast as possible, to a private smbd on 127.0.0.1 (tests/fixtures/smbd.sh):
#   1 client; N copies as threads of one process (--processes 1: libsmbclient's lock serialises them);
#   N copies in N processes (the default for smb:// with --clients N).
# ROUNDS rounds, the three runs alternated in each; prints ops/s per run and the ratios of the medians,
# with the CPU reprise (user+sys, children included) and smbd used.
#   usage: bench/smb_procs_bench.sh     REPRISE=build/cli/reprise LINES=20000 CLIENTS=4 ROUNDS=3
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
reprise=${REPRISE:-$top/build/cli/reprise}
lines=${LINES:-20000}
clients=${CLIENTS:-4}
rounds=${ROUNDS:-3}
client=/usr/share/dbench/client.txt
[ -x "$reprise" ] || { echo "smb_procs_bench: no $reprise (build first, or set REPRISE)" >&2; exit 1; }
[ -r "$client" ] || { echo "smb_procs_bench: no $client (apt-get install dbench)" >&2; exit 1; }
tmp=$(mktemp -d /tmp/reprise-smbprocs.XXXXXX) || exit 1
trap '"$top/tests/fixtures/smbd.sh" stop "$tmp/smb" >/dev/null 2>&1; rm -rf "$tmp"' EXIT INT TERM
# Ports as the tests pick them (tests/lib/ports.sh): free of every socket, below the ephemeral range.
. "$top/tests/lib/ports.sh"
port=$(free_ports $$ 1) || exit 1
"$top/tests/fixtures/smbd.sh" start "$tmp/smb" "$port" >"$tmp/smbd.out" 2>&1 || { cat "$tmp/smbd.out" >&2; exit 1; }
head -n "$lines" "$client" >"$tmp/w.txt"
smbd_cpu() { # the CPU seconds of the smbd master and the per-connection smbds it has reaped (and those alive)
	local t pid
	t=$(awk '{ print ($14 + $15 + $16 + $17) / 100 }' "/proc/$(cat "$tmp/smb/run/smbd.pid")/stat")
	for pid in $(pgrep -P "$(cat "$tmp/smb/run/smbd.pid")"); do
		t=$(awk -v t="$t" '{ print t + ($14 + $15) / 100 }' "/proc/$pid/stat" 2>/dev/null || echo "$t")
	done
	echo "$t"
}
# run NAME ARGS...: one replay into a fresh directory of the share; "ops/s cpu_s smbd_cpu_s"
run() {
	local name=$1
	shift
	rm -rf "$tmp/smb/share/$name"
	mkdir -m 777 "$tmp/smb/share/$name"
	local s0 c0 me=$BASHPID
	s0=$(smbd_cpu)
	c0=$(awk '{ print ($16 + $17) / 100 }' /proc/$me/stat) # this subshell's reaped children: the replay
	"$reprise" replay "$tmp/w.txt" --target "smb://127.0.0.1:$port/share/$name" --user root%pw -q \
		--json "$tmp/$name.json" "$@" >/dev/null 2>"$tmp/$name.err" || { cat "$tmp/$name.err" >&2; echo "0 0 0"; return; }
	local c1 s1
	c1=$(awk '{ print ($16 + $17) / 100 }' /proc/$me/stat)
	s1=$(smbd_cpu)
	python3 -c 'import json, sys; d = json.load(open(sys.argv[1]))
print("%.0f %.2f %.2f %d" % (d["ops_per_sec"], float(sys.argv[2]), float(sys.argv[3]), d["mismatches"]))' \
		"$tmp/$name.json" "$(awk -v a="$c0" -v b="$c1" 'BEGIN { print b - a }')" \
		"$(awk -v a="$s0" -v b="$s1" 'BEGIN { print b - a }')"
}
echo "# $(date -u '+%Y-%m-%d %H:%M UTC'), load $(cut -d' ' -f1-3 /proc/loadavg), $lines lines of client.txt, $clients copies"
printf '%-24s %10s %10s %10s %10s\n' run ops/s cpu_s smbd_cpu_s mismatches
for r in $(seq "$rounds"); do
	for kind in one threads procs; do
		case $kind in
		one) out=$(run "one$r") ;;
		threads) out=$(run "thr$r" --clients "$clients" --processes 1) ;;
		procs) out=$(run "prc$r" --clients "$clients") ;;
		esac
		printf '%-24s %10s %10s %10s %10s\n' "$kind (round $r)" $out
		echo "$kind $out" >>"$tmp/all"
	done
done
python3 - "$tmp/all" "$clients" <<'PY'
import statistics, sys
runs = {}
for line in open(sys.argv[1]):
    k, ops, *_ = line.split()
    runs.setdefault(k, []).append(float(ops))
m = {k: statistics.median(v) for k, v in runs.items()}
n = sys.argv[2]
print(f"medians: 1 client {m['one']:.0f}, {n} threads {m['threads']:.0f}, {n} processes {m['procs']:.0f} ops/s")
print(f"{n} processes / 1 client: {m['procs'] / m['one']:.2f}x; {n} threads / 1 client: {m['threads'] / m['one']:.2f}x; "
      f"processes / threads: {m['procs'] / m['threads']:.2f}x")
PY
