#!/bin/bash
# In flight at the target (docs/replay.md, "At the target"), checked against the wire: a trace of one client
# with bursts of 16 reads recorded in flight together (bench/inflight_trace.c, recorded mean 8.48) replayed
# with the default window (auto: its recorded depth) to a real nfs-ganesha over NFSv3 and v4, through the
# delay proxy (tests/fixtures/rp-delay-proxy) at --delay 0 and 1ms. The depth replay reports at the target
# (its mean at each request's send) agrees within 15 % with the recorded mean and with the proxy's mean at
# each request on the NFS connection, and the wire's with the recorded; with --max-inflight 1 both say 1.
# Depths are counts, not times: a loaded machine changes how fast, not how many are out at once (the
# backend sends what the client issued back to back as one segment: nfs.c, flush).
#   target_depth.sh REPRISE SOURCE_ROOT RP_DELAY_PROXY INFLIGHT_TRACE
set -u
reprise=$1
root=$2
proxy=$3
gen=$4
fixtures=$root/tests/fixtures
. "${0%/*}/../lib/tap.sh"
. "${0%/*}/../lib/ports.sh"

[ "$(id -u)" -eq 0 ] || { echo "1..0 # SKIP ganesha's VFS export needs root"; exit 77; }
command -v ganesha.nfsd >/dev/null || { echo "1..0 # SKIP nfs-ganesha not installed"; exit 77; }
"$reprise" replay --list-backends 2>/dev/null | grep -q '^  nfs ' || { echo "1..0 # SKIP built without the nfs backend"; exit 77; }

tmp=$(mktemp -d /tmp/reprise-tdepth.XXXXXX) || exit 1
ppid=
cleanup() {
	[ -n "$ppid" ] && kill "$ppid" 2>/dev/null
	"$fixtures/ganesha.sh" stop "$tmp/nfs" >/dev/null 2>&1
	rm -rf "$tmp"
}
trap cleanup EXIT INT TERM

run() { timeout -k 5 120 "$@" >"$tmp/out" 2>"$tmp/err"; }
check() { desc=$1; shift; if run "$@"; then ok "$desc"; else echo "# exit $?"; not_ok "$desc"; fi; }
# pyj WIRE REPLAY EXPR: w is the proxy's NFS connection (the one with the most requests), t the replay's
# inflight.target, f its inflight.
pyj() {
	python3 - "$1" "$2" "$3" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
w = max(d["conns"], key=lambda c: c["requests"])["outstanding"]
f = json.load(open(sys.argv[2]))["inflight"]
t = f["target"]
print(eval(sys.argv[3]))
PY
}
truth() { desc=$1; shift; val=$(pyj "$@" 2>&1); if [ "$val" = True ]; then ok "$desc"; else echo "# $val"; not_ok "$desc"; fi; }

listening() { (exec 3<>/dev/tcp/127.0.0.1/"$1") 2>/dev/null; }
nport=$(free_ports $$) || exit 1
mport=$((nport + 1))

proxy_start() { # proxy_start DELAY STATS: the proxy in front of ganesha's NFS port, on $pport
	rm -f "$tmp/port"
	"$proxy" --listen 127.0.0.1:0 --connect 127.0.0.1:"$nport" --delay "$1" --protocol rpc --stats "$2" \
		>"$tmp/port" 2>"$tmp/proxy.err" &
	ppid=$!
	for _ in $(seq 1 100); do [ -s "$tmp/port" ] && break; sleep 0.1; done
	pport=$(head -1 "$tmp/port")
}
proxy_stop() { kill -TERM "$ppid"; wait "$ppid"; ppid=; }

"$gen" "$tmp/t.rpz" 1 50 16 >/dev/null || { echo "1..0 # SKIP cannot write the trace"; exit 1; }
"$fixtures/ganesha.sh" start "$tmp/nfs" "$nport" "$mport" >"$tmp/ganesha.out" 2>&1 ||
	{ echo "1..0 # SKIP ganesha did not start: $(tail -n 8 "$tmp/ganesha.out" | tr '\n' ' ')"; exit 77; }

near='abs(%s / %s - 1) <= 0.15'
for delay in 0 1ms; do
	for v in 3 4; do
		find "$tmp/nfs/export" -mindepth 1 -delete
		wire=$tmp/w$v-$delay.json rep=$tmp/r$v-$delay.json
		proxy_start "$delay" "$wire"
		if [ "$v" = 3 ]; then url="nfs://127.0.0.1/export?version=3&nfsport=$pport&mountport=$mport"
		else url="nfs://127.0.0.1/export?version=4&nfsport=$pport"; fi
		check "NFSv$v through the proxy at delay $delay, window auto" "$reprise" replay "$tmp/t.rpz" --target "$url" \
			--json "$rep"
		has "NFSv$v $delay: 0 mismatched" out 'mismatched 0'
		has "NFSv$v $delay: the table says what was in flight at the target" out \
			'^In flight at the target: mean [0-9.]+, max [0-9]+ \(at each request; [0-9.]+ while busy\); recorded mean 8\.48; latency p50 '
		proxy_stop
		echo "# NFSv$v $delay: $(pyj "$wire" "$rep" '"target mean %.2f max %d busy %.2f; wire at each request %.2f max %d busy %.2f; recorded %.2f" % (t["mean"], t["max"], t["busy_mean"], w["mean_at_request"], w["max"], w["mean"], f["recorded_mean"])')"
		truth "NFSv$v $delay: measured at the target, never above the window" "$wire" "$rep" \
			't["measured"] and t["requests"] >= 800 and 1 <= t["max"] <= 16 and t["latency_us"]["count"] >= 800'
		truth "NFSv$v $delay: the target's mean depth within 15 % of the recorded" "$wire" "$rep" \
			"$(printf "$near" 't["mean"]' 'f["recorded_mean"]')"
		truth "NFSv$v $delay: the wire's mean depth within 15 % of the recorded" "$wire" "$rep" \
			"$(printf "$near" 'w["mean_at_request"]' 'f["recorded_mean"]')"
		truth "NFSv$v $delay: the target's mean depth within 15 % of the wire's" "$wire" "$rep" \
			"$(printf "$near" 't["mean"]' 'w["mean_at_request"]')"
	done
done

# One at a time: one request at the target and on the wire, whatever the trace recorded.
find "$tmp/nfs/export" -mindepth 1 -delete
proxy_start 1ms "$tmp/w1.json"
check "NFSv3 through the proxy at 1 ms, --max-inflight 1" "$reprise" replay "$tmp/t.rpz" --max-inflight 1 --json "$tmp/r1.json" \
	--target "nfs://127.0.0.1/export?version=3&nfsport=$pport&mountport=$mport"
proxy_stop
truth "--max-inflight 1: one request at a time at the target and on the wire" "$tmp/w1.json" "$tmp/r1.json" \
	't["max"] == 1 and t["mean"] == 1 and w["max"] == 1'
echo "1..$n"
[ "$fails" = 0 ]
