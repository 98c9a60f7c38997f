#!/bin/bash
# The in-flight window at realistic round trips (docs/BENCHMARKS.md, "Through the delay proxy"):
# a trace of one client, BURSTS bursts of 16 reads of 4 KiB recorded in flight together
# (bench/inflight_trace.c; recorded max 16, mean 8.48), replayed as fast as possible to nfs-ganesha
# over NFSv3 and NFSv4 directly (loopback) and through tests/fixtures/rp-delay-proxy at each DELAYS
# delay, with --max-inflight 1 and auto (the default: the recorded depth, 16), ROUNDS rounds. Per run: reprise's ops/s,
# the depth the proxy saw on the wire (max, time-weighted mean on the NFS connection, mean at each
# request) and its latency p50 at the server side, next to the depth replay reports of itself: its
# window's, and at the target (inflight.target: max, mean at each request, time-weighted while busy).
# First (part relay) the relay's own throughput: MIB MiB one way through --delay 0 and each DELAYS
# delay (--protocol raw, and rpc for the parser's cost), against loopback with no proxy.
#   usage: bench/proxy_bench.sh [BUILD_DIR]   DELAYS="0 0.2ms 1ms" ROUNDS=3 BURSTS=50 MIB=1024 PARTS="relay nfs"
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$top/build}
reprise=$build/cli/reprise
proxy=$build/tests/fixtures/rp-delay-proxy
gen=$build/tests/fixtures/inflight-trace
delays=${DELAYS:-0 0.2ms 1ms}
rounds=${ROUNDS:-3}
bursts=${BURSTS:-50}
mib=${MIB:-1024}
parts=${PARTS:-relay nfs}
fixtures=$top/tests/fixtures
for x in "$reprise" "$proxy" "$gen"; do [ -x "$x" ] || { echo "proxy_bench: no $x (build first)" >&2; exit 1; }; done
[ "$(id -u)" -eq 0 ] || { echo "proxy_bench: ganesha's VFS export needs root" >&2; exit 1; }
tmp=$(mktemp -d /tmp/reprise-proxybench.XXXXXX) || exit 1
ppid=
cleanup() {
	[ -n "$ppid" ] && kill "$ppid" 2>/dev/null
	"$fixtures/ganesha.sh" stop "$tmp/nfs" >/dev/null 2>&1
	rm -rf "$tmp"
}
trap cleanup EXIT INT TERM
echo "delay proxy bench, $(date -u '+%Y-%m-%d %H:%M UTC'), $(nproc) CPUs, load average $(cut -d' ' -f1-3 /proc/loadavg), $(git -C "$top" rev-parse --short HEAD 2>/dev/null)"
case " $parts " in *" relay "*)
	echo "relay throughput: $mib MiB one way, 64 KiB sends (each an RPC record of an NFSv3 WRITE call), a reader that discards"
	printf '%-8s %-6s %9s %9s %12s\n' delay proto elapsed_s MB/s proxy_cpu_s
	python3 - "$proxy" "$mib" 0 $delays <<'PY'
import os, socket, subprocess, sys, threading, time
proxy, mib, delays = sys.argv[1], int(sys.argv[2]), sys.argv[3:]
srv = socket.socket()
srv.bind(("127.0.0.1", 0))
srv.listen(8)
def sink():
    while True:
        c, _ = srv.accept()
        def drain(c=c):
            while c.recv(1 << 20):
                pass
            c.close()
        threading.Thread(target=drain, daemon=True).start()
threading.Thread(target=sink, daemon=True).start()
import struct
# 64 KiB sends, each one RPC record (an NFSv3 WRITE call's header, then zeros): what rpc parses.
call = struct.pack(">IIIIIIIIII", 0, 0, 2, 100003, 3, 7, 0, 0, 0, 0)
def record(xid):
    body = struct.pack(">I", xid) + call[4:]
    return struct.pack(">I", 0x80000000 | 65532) + body + b"\0" * (65532 - len(body))
buf = bytearray(record(0))
def run(port):
    s = socket.create_connection(("127.0.0.1", port))
    t = time.monotonic()
    for i in range(mib * 16):
        struct.pack_into(">I", buf, 4, i)  # a new xid per call: none a retransmission
        s.sendall(buf)
    s.shutdown(socket.SHUT_WR)
    s.recv(1)  # the end, once the proxy passed it on and the sink closed
    s.close()
    return time.monotonic() - t
dt = run(srv.getsockname()[1])
print("%-8s %-6s %9.3f %9.0f %12s" % ("none", "-", dt, mib * 1.048576 / dt, "-"))
for d in delays:
    for proto in ("raw", "rpc"):
        p = subprocess.Popen([proxy, "--listen", "127.0.0.1:0", "--connect", "127.0.0.1:%d" % srv.getsockname()[1],
                              "--delay", d, "--protocol", proto], stdout=subprocess.PIPE)
        port = int(p.stdout.readline())
        dt = run(port)
        with open("/proc/%d/stat" % p.pid) as f:
            cpu = sum(int(x) for x in f.read().rsplit(")", 1)[1].split()[11:13]) / os.sysconf("SC_CLK_TCK")
        p.terminate()
        p.wait()
        print("%-8s %-6s %9.3f %9.0f %12.2f" % (d, proto, dt, mib * 1.048576 / dt, cpu))
PY
	;;
esac
case " $parts " in *" nfs "*) ;; *) exit 0 ;; esac
# Ports as the tests pick them (tests/lib/ports.sh): free of every socket, below the ephemeral range.
. "$top/tests/lib/ports.sh"
nport=$(free_ports $$ 2) || exit 1
mport=$((nport + 1))
"$fixtures/ganesha.sh" start "$tmp/nfs" "$nport" "$mport" >"$tmp/ganesha.out" 2>&1 || { cat "$tmp/ganesha.out" >&2; exit 1; }
"$gen" "$tmp/t.rpz" 1 "$bursts" 16 >/dev/null || exit 1

echo "trace: 1 client, $((bursts * 16 + 2)) ops, $bursts bursts of 16 reads recorded in flight; nfs-ganesha 127.0.0.1, afap"
printf '%-6s %-6s %-2s %-4s %9s %8s | %8s %9s %9s %8s %6s %9s | %7s %8s | %7s %8s %8s %9s | %8s\n' round delay v win \
	elapsed_s ops/s wire_max wire_mean span_mean at_req reqs lat_p50us rep_max rep_mean tgt_max tgt_mean tgt_busy \
	tgt_p50us rec_mean
for round in $(seq "$rounds"); do
	for delay in direct $delays; do
		for v in 3 4; do
			for w in 1 auto; do
				find "$tmp/nfs/export" -mindepth 1 -delete
				port=$nport
				rm -f "$tmp/wire.json"
				if [ "$delay" != direct ]; then
					rm -f "$tmp/port" # before the start: a stale port read before the new one is written
					"$proxy" --listen 127.0.0.1:0 --connect 127.0.0.1:"$nport" --delay "$delay" --protocol rpc \
						--stats "$tmp/wire.json" >"$tmp/port" 2>"$tmp/proxy.err" &
					ppid=$!
					for _ in $(seq 1 50); do [ -s "$tmp/port" ] && break; sleep 0.1; done
					port=$(head -1 "$tmp/port")
				fi
				if [ "$v" = 3 ]; then url="nfs://127.0.0.1/export?version=3&nfsport=$port&mountport=$mport"
				else url="nfs://127.0.0.1/export?version=4&nfsport=$port"; fi
				timeout -k 5 300 "$reprise" replay "$tmp/t.rpz" --target "$url" --max-inflight "$w" -q \
					--json "$tmp/r.json" >/dev/null 2>"$tmp/replay.err" || { cat "$tmp/replay.err" >&2; exit 1; }
				if [ -n "$ppid" ]; then kill -TERM "$ppid"; wait "$ppid"; ppid=; fi
				python3 - "$tmp/r.json" "$tmp/wire.json" "$round" "$delay" "$v" "$w" <<'PY'
import json, os, sys
r = json.load(open(sys.argv[1]))
f = r["inflight"]
wire = "%8s %9s %9s %8s %6s %9s" % ("-", "-", "-", "-", "-", "-")
if os.path.exists(sys.argv[2]):
    d = json.load(open(sys.argv[2]))
    m = max(d["conns"], key=lambda c: c["requests"])
    o = m["outstanding"]
    wire = "%8d %9.2f %9.2f %8.2f %6d %9.0f" % (o["max"], o["mean"], o["mean_span"], o["mean_at_request"], d["requests"],
                                              d["latency_us"]["p50"])
t = f.get("target") or {}
tgt = "%7s %8s %8s %9s" % ("-", "-", "-", "-")
if t.get("measured"):
    tgt = "%7d %8.2f %8.2f %9.0f" % (t["max"], t["mean"], t["busy_mean"], t["latency_us"]["p50"])
print("%-6s %-6s %-2s %-4s %9.3f %8.0f | %s | %7d %8.2f | %s | %8.2f" % (sys.argv[3], sys.argv[4], sys.argv[5], sys.argv[6],
      r["elapsed_s"], r["ops_per_sec"], wire, f["max"], f["mean"], tgt, f["recorded_mean"]))
PY
			done
		done
	done
done
echo "(wire: what rp-delay-proxy saw on the NFS connection, outstanding between its hand-over to the server and the reply;"
echo " wire_mean time-weighted while >= 1 outstanding, span_mean over first request to last reply, at_req at each"
echo " request, itself included; lat_p50us request to reply at the server side of the delay; rep_*: replay's window;"
echo " tgt_*: replay's inflight.target, the backend's send to its answer: max, mean at each send, time-weighted while busy, p50)"
