#!/bin/bash
# Blocking locks in NFSv4.0 exact mode against a loopback nfs-ganesha (docs/BENCHMARKS.md, "Blocking
# locks and lock-owner releases"): a two-client text-form trace where c1 holds a range HOLD seconds and
# c2's blocking lock (WRITEW_LT, recorded granted when c1 let go) waits for it.  For each hold, ROUNDS
# replays with --timing trace and --order client (c2's LOCK sent while c1 holds: the backend polls) and
# with the default order (auto: resource, the lock sent after c1's unlock): c2's lock latency, its ratio
# to the hold, the polls and RELEASE_LOCKOWNERs the replay counted; medians.  Beside them the schedule a
# Linux client's F_SETLKW follows (fs/nfs/nfs4proc.c: the first re-send after 1 s, doubling to 30 s):
# the latency it would see for the same hold, computed, as no kernel NFS client runs here.
# Server: tests/fixtures/ganesha.sh, stopped at the end.
#   usage: bench/nfs4_poll_bench.sh     REPRISE=build/cli/reprise HOLDS="0.2 0.75 2 5" ROUNDS=3
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
reprise=${REPRISE:-$top/build/cli/reprise}
holds=${HOLDS:-0.2 0.75 2 5}
rounds=${ROUNDS:-3}
fixtures=$top/tests/fixtures
[ -x "$reprise" ] || { echo "nfs4_poll_bench: no $reprise (build first, or set REPRISE)" >&2; exit 1; }
[ "$(id -u)" -eq 0 ] || { echo "nfs4_poll_bench: ganesha's VFS export needs root" >&2; exit 1; }
tmp=$(mktemp -d /tmp/reprise-nfs4pollbench.XXXXXX) || exit 1
cleanup() {
	"$fixtures/ganesha.sh" stop "$tmp/nfs" >/dev/null 2>&1
	rm -rf "$tmp"
}
trap cleanup EXIT INT TERM
. "$top/tests/lib/ports.sh"
base=$(free_ports $$) || exit 1
"$fixtures/ganesha.sh" start "$tmp/nfs" "$base" $((base + 1)) >"$tmp/ganesha.out" 2>&1 ||
	{ echo "nfs4_poll_bench: ganesha did not start" >&2; cat "$tmp/ganesha.out" >&2; exit 1; }
url() { echo "nfs://127.0.0.1/export/$1?version=4&nfsport=$base&mountport=$((base + 1))"; }

# trace HOLD: c1 locks at 0.03 s and unlocks at 0.05 + HOLD; c2's blocking lock from 0.05 s, granted then.
trace() {
	awk -v h="$1" 'BEGIN {
		ok = "-> OK (NFS4_OK)"; u = 0.05 + h
		printf "0.010 0.011 c1 open path=\"/f\" fh=1 want=read,write disp=create of=excl_verify raw=nfs4:access=0x3,disp=1,opts=0x2 %s\n", ok
		printf "0.030 0.031 c1 lock path=\"/f\" fh=1 off=0 len=100 flags=excl raw=nfs4 %s\n", ok
		printf "0.040 0.041 c2 open path=\"/f\" fh=2 want=read,write raw=nfs4:access=0x3 %s\n", ok
		printf "0.050 %.3f c2 lock path=\"/f\" fh=2 off=0 len=100 flags=excl,wait raw=nfs4 %s\n", u + 0.002, ok
		printf "%.3f %.3f c1 unlock path=\"/f\" fh=1 off=0 len=100 flags=excl raw=nfs4 %s\n", u, u + 0.001, ok
		printf "%.3f %.3f c1 close path=\"/f\" fh=1 raw=nfs4 %s\n", u + 0.01, u + 0.011, ok
		printf "%.3f %.3f c2 unlock path=\"/f\" fh=2 off=0 len=100 flags=excl raw=nfs4 %s\n", u + 0.1, u + 0.101, ok
		printf "%.3f %.3f c2 close path=\"/f\" fh=2 raw=nfs4 %s\n", u + 0.11, u + 0.111, ok }'
}
jnum() { sed -n "s/.*\"$2\": \\([0-9][0-9.]*\\).*/\\1/p" "$1" | head -n 1; }
lock_ms() { python3 -c 'import json,sys; print("%.1f" % (json.load(open(sys.argv[1]))["ops"]["lock"]["max_us"] / 1000))' "$1"; }
median() { sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }
# The Linux client: re-sends after 1 s, 2 s, 4 s ... (capped at 30 s) from the first denial.
linux_ms() { awk -v h="$1" 'BEGIN { t = 0; w = 1; while (t < h) { t += w; w = (w * 2 > 30) ? 30 : w * 2 } printf "%.0f", t * 1000 }'; }

echo "hold (s) | order | c2 lock latency (ms, median) | latency / hold | polls | RELEASE_LOCKOWNER | mismatched | Linux client's schedule (ms)"
for h in $holds; do
	trace "$h" >"$tmp/t.txt"
	for order in client auto; do
		: >"$tmp/lat" && : >"$tmp/polls" && : >"$tmp/rels" && : >"$tmp/mis"
		for r in $(seq 1 "$rounds"); do
			d=$(basename "$(mktemp -d "$tmp/nfs/export/rXXXXXX")")
			nice "$reprise" replay "$tmp/t.txt" --target "$(url "$d")" --timing trace --order "$order" \
				--json "$tmp/r.json" >"$tmp/out" 2>&1
			lock_ms "$tmp/r.json" >>"$tmp/lat"
			jnum "$tmp/r.json" backend_lock_polls >>"$tmp/polls"
			jnum "$tmp/r.json" backend_lockowner_releases >>"$tmp/rels"
			sed -n 's/^Failed .*, mismatched \([0-9]*\)$/\1/p' "$tmp/out" >>"$tmp/mis"
		done
		lat=$(median <"$tmp/lat")
		printf '%s | %s | %s | %.2f | %s | %s | %s | %s\n' "$h" "$order" "$lat" "$(awk -v l="$lat" -v h="$h" 'BEGIN { print l / 1000 / h }')" \
			"$(median <"$tmp/polls")" "$(median <"$tmp/rels")" "$(median <"$tmp/mis")" "$(linux_ms "$h")"
	done
done
