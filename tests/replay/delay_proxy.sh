#!/bin/bash
# Replay through the delay proxy (tests/fixtures/rp-delay-proxy) at --delay 1ms to a real nfs-ganesha
# (NFSv3 and v4) and smbd, judged by what the proxy saw on the wire (TAP; docs/TESTING.md, "The delay proxy").
# A trace of one client with 16 reads recorded in flight per burst (bench/inflight_trace.c): with
# --max-inflight 1 the wire never holds more than one request; with 16 its mean depth is well above 1
# (> 2: a structural check, not a timing one); every request answered, none lost by the framing, and
# the proxy's request count is what tshark decodes from a capture of the proxy's upstream side.
# SMB (client.txt's first 2000 lines, or a sample; and a capture 60 deep with window 64): libsmbclient
# sends one request at a time, so depth 1 on the wire whatever replay reports of itself.
#   delay_proxy.sh REPRISE SOURCE_ROOT RP_DELAY_PROXY INFLIGHT_TRACE
set -u
reprise=$1
root=$2
proxy=$3
gen=$4
fixtures=$root/tests/fixtures
. "${0%/*}/../lib/tap.sh"
. "${0%/*}/../lib/ports.sh"

[ "$(id -u)" -eq 0 ] || { echo "1..0 # SKIP ganesha's VFS export and tcpdump need root"; exit 77; }
command -v ganesha.nfsd >/dev/null || { echo "1..0 # SKIP nfs-ganesha not installed"; exit 77; }
"$reprise" replay --list-backends 2>/dev/null | grep -q '^  nfs ' || { echo "1..0 # SKIP built without the nfs backend"; exit 77; }

tmp=$(mktemp -d /tmp/reprise-proxy.XXXXXX) || exit 1
ppid= tpid=
cleanup() {
	[ -n "$ppid" ] && kill "$ppid" 2>/dev/null
	[ -n "$tpid" ] && kill "$tpid" 2>/dev/null
	"$fixtures/ganesha.sh" stop "$tmp/nfs" >/dev/null 2>&1
	"$fixtures/smbd.sh" stop "$tmp/smb" >/dev/null 2>&1
	rm -rf "$tmp"
}
trap cleanup EXIT INT TERM

run() { timeout -k 5 120 "$@" >"$tmp/out" 2>"$tmp/err"; }
check() { desc=$1; shift; if run "$@"; then ok "$desc"; else echo "# exit $?"; not_ok "$desc"; fi; }
# jq-less JSON: pyj FILE EXPR (d is the proxy's JSON, m its connection with the most requests, r the replay's).
pyj() {
	python3 - "$1" "$2" "${3:-}" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
m = max(d["conns"], key=lambda c: c["requests"]) if d.get("conns") else {}
r = json.load(open(sys.argv[3])) if sys.argv[3] else {}
print(eval(sys.argv[2]))
PY
}
truth() { desc=$1; shift; val=$(pyj "$@" 2>&1); if [ "$val" = True ]; then ok "$desc"; else echo "# $val"; not_ok "$desc"; fi; }

listening() { (exec 3<>/dev/tcp/127.0.0.1/"$1") 2>/dev/null; }

# proxy_start NAME PROTOCOL UPSTREAM_PORT: the proxy on a free port ($pport), its stats in $tmp/NAME.json.
proxy_start() {
	rm -f "$tmp/port"
	"$proxy" --listen 127.0.0.1:0 --connect 127.0.0.1:"$3" --delay 1ms --protocol "$2" --stats "$tmp/$1.json" \
		>"$tmp/port" 2>"$tmp/proxy.err" &
	ppid=$!
	for _ in $(seq 1 50); do [ -s "$tmp/port" ] && break; sleep 0.1; done
	pport=$(head -1 "$tmp/port")
}
proxy_stop() { kill -TERM "$ppid"; wait "$ppid"; prc=$?; ppid=; }
# capture_start PORT FILE / capture_stop: tcpdump on lo of the proxy's upstream side (DESIGN §8's options).
capture_start() {
	tcpfile=$2
	tcpdump -i lo -s 0 -B 65536 --immediate-mode -U -w "$2" "tcp port $1" 2>"$tmp/tcpdump.err" &
	tpid=$!
	for _ in $(seq 1 50); do grep -q listening "$tmp/tcpdump.err" && break; sleep 0.1; done
}
# tcpdump writes each packet as it reads it (-U): stopped once its file has not grown for three looks 0.3 s
# apart (at most 15 s), so a tcpdump that a busy machine left behind has written the run's last packets.
capture_stop() {
	last=-1 same=0
	for _ in $(seq 1 50); do
		size=$(stat -c %s "$tcpfile" 2>/dev/null || echo 0)
		if [ "$size" = "$last" ]; then same=$((same + 1)); else same=0; fi
		[ $same -ge 3 ] && break
		last=$size
		sleep 0.3
	done
	kill -INT "$tpid"; wait "$tpid"; tpid=
}
lost_frames() { ! grep -q '^0 packets dropped by kernel' "$tmp/tcpdump.err"; }

"$gen" "$tmp/t.rpz" 1 40 16 >/dev/null || { echo "1..0 # SKIP cannot write the trace"; exit 1; }

# ---- NFS ----
nport=$(free_ports $$) || exit 1
mport=$((nport + 1))
if "$fixtures/ganesha.sh" start "$tmp/nfs" "$nport" "$mport" >"$tmp/ganesha.out" 2>&1; then
	export_dir=$tmp/nfs/export
	for v in 3 4; do
		for w in 1 16; do
			find "$export_dir" -mindepth 1 -delete
			proxy_start "nfs$v-$w" rpc "$nport"
			[ "$w" = 16 ] && command -v tshark >/dev/null && capture_start "$nport" "$tmp/nfs$v.pcap"
			if [ "$v" = 3 ]; then url="nfs://127.0.0.1/export?version=3&nfsport=$pport&mountport=$mport"
			else url="nfs://127.0.0.1/export?version=4&nfsport=$pport"; fi
			check "NFSv$v through the proxy at 1 ms, --max-inflight $w" "$reprise" replay "$tmp/t.rpz" --target "$url" \
				--max-inflight "$w" --json "$tmp/r$v-$w.json"
			has "NFSv$v --max-inflight $w: 0 mismatched" out 'mismatched 0'
			[ -n "$tpid" ] && capture_stop
			proxy_stop
			j=$tmp/nfs$v-$w.json
			ok_exit=$([ "$prc" = 0 ] && echo True || echo "exit $prc")
			truth "NFSv$v -$w: the proxy ended on SIGTERM with exit 0 and its stats ($ok_exit)" "$j" "'$ok_exit' == 'True'"
			truth "NFSv$v -$w: every request answered, the framing never lost" "$j" \
				'd["requests"] == d["replies"] > 0 and d["unanswered"] == d["unmatched_replies"] == d["parse_errors"] == d["untracked"] == 0'
			truth "NFSv$v -$w: at least one READ on the wire per recorded read (640)" "$j" \
				'sum(n for k, n in d["procedures"].items() if k.endswith(" READ")) >= 640'
			echo "# NFSv$v window $w: wire $(pyj "$j" '"max %d, time-weighted mean %.2f (at each request %.2f), latency p50 %.0f us p99 %.0f us" % (m["outstanding"]["max"], m["outstanding"]["mean"], m["outstanding"]["mean_at_request"], d["latency_us"]["p50"], d["latency_us"]["p99"])'); replay reports $(pyj "$j" '"max %d, mean %.2f (recorded %.2f), %.0f ops/s" % (r["inflight"]["max"], r["inflight"]["mean"], r["inflight"]["recorded_mean"], r["ops_per_sec"])' "$tmp/r$v-$w.json")"
			if [ "$w" = 1 ]; then
				truth "NFSv$v -1: never more than one request outstanding on the wire" "$j" 'd["outstanding"]["max"] == 1'
			else
				truth "NFSv$v -16: the wire's mean depth is well above 1 (> 2)" "$j" 'm["outstanding"]["mean"] > 2'
				truth "NFSv$v -16: and never above the window (16)" "$j" 'd["outstanding"]["max"] <= 16'
			fi
		done
		# The proxy's count against tshark's decode of the same requests (the proxy's upstream side).
		if ! command -v tshark >/dev/null; then
			ok "NFSv$v: the proxy's request count is tshark's # skip no tshark"
		elif lost_frames; then
			ok "NFSv$v: the proxy's request count is tshark's # skip the capture lost frames"
		else
			calls=$(tshark -r "$tmp/nfs$v.pcap" -d "tcp.port==$nport,rpc" -Y "tcp.dstport==$nport" -T fields -e rpc.msgtyp 2>/dev/null |
				tr ',' '\n' | grep -c '^0$')
			truth "NFSv$v -16: the proxy counts the $calls calls tshark decodes" "$tmp/nfs$v-16.json" "d['requests'] == $calls"
		fi
	done
	# Per procedure on NFSv3, where a call's procedure is the whole story.
	if command -v tshark >/dev/null && ! lost_frames; then
		tshark -r "$tmp/nfs3.pcap" -d "tcp.port==$nport,rpc" -Y "tcp.dstport==$nport" -T fields -e rpc.procedure 2>/dev/null |
			tr ',' '\n' | grep . | sort | uniq -c | awk '{print $2, $1}' >"$tmp/tshark.procs"
		pyj "$tmp/nfs3-16.json" '"\n".join("%d %d" % (["NULL","GETATTR","SETATTR","LOOKUP","ACCESS","READLINK","READ","WRITE","CREATE","MKDIR","SYMLINK","MKNOD","REMOVE","RMDIR","RENAME","LINK","READDIR","READDIRPLUS","FSSTAT","FSINFO","PATHCONF","COMMIT"].index(k.split()[1]), n) for k, n in sorted(d["procedures"].items()))' |
			sort >"$tmp/proxy.procs"
		sort "$tmp/tshark.procs" -o "$tmp/tshark.procs"
		same "NFSv3 -16: the proxy's count per procedure is tshark's" "$tmp/proxy.procs" "$tmp/tshark.procs"
	else
		ok "NFSv3 -16: the proxy's count per procedure is tshark's # skip no tshark or lost frames"
	fi
	"$fixtures/ganesha.sh" stop "$tmp/nfs"
else
	echo "# ganesha did not start: $(tail -n 8 "$tmp/ganesha.out" | tr '\n' ' ')"
	for d in $(seq 1 29); do ok "NFS through the proxy # skip ganesha did not start"; done
fi

# ---- SMB ----
client=/usr/share/dbench/client.txt
if [ -r "$client" ]; then head -n 2000 "$client" >"$tmp/smb.txt"; smbtrace=$tmp/smb.txt
else smbtrace=$root/samples/smb2-small-files.rpz; fi
sport=$(free_ports $((nport + 2))) || exit 1
if "$reprise" replay --list-backends 2>/dev/null | grep -q '^  smb ' && "$fixtures/smbd.sh" start "$tmp/smb" "$sport" >"$tmp/smbd.out" 2>&1; then
	proxy_start smb smb "$sport"
	command -v tshark >/dev/null && capture_start "$sport" "$tmp/smb.pcap"
	check "SMB through the proxy at 1 ms, --max-inflight 16" "$reprise" replay "$smbtrace" --target "smb://127.0.0.1:$pport/share" \
		--user 'root%pw' --max-inflight 16 --json "$tmp/rsmb.json"
	has "SMB: 0 mismatched" out 'mismatched 0'
	[ -n "$tpid" ] && capture_stop
	proxy_stop
	j=$tmp/smb.json
	echo "# SMB window 16: wire $(pyj "$j" '"max %d, mean %.2f, %d requests, latency p50 %.0f us" % (d["outstanding"]["max"], d["outstanding"]["mean"], d["requests"], d["latency_us"]["p50"])'); replay reports $(pyj "$j" '"max %d, mean %.2f, %.0f ops/s" % (r["inflight"]["max"], r["inflight"]["mean"], r["ops_per_sec"])' "$tmp/rsmb.json")"
	truth "SMB: every request answered (interim responses apart), the framing never lost" "$j" \
		'd["requests"] - d["no_reply"] - d["untracked"] == d["replies"] > 0 and d["unanswered"] == d["parse_errors"] == 0'
	truth "SMB: one request outstanding at a time (libsmbclient)" "$j" 'd["outstanding"]["max"] == 1'
	truth "SMB: CREATEs on the wire" "$j" 'd["procedures"].get("SMB2 CREATE", 0) > 0'
	if ! command -v tshark >/dev/null; then
		ok "SMB: the proxy's request count is tshark's # skip no tshark"
	elif lost_frames; then
		ok "SMB: the proxy's request count is tshark's # skip the capture lost frames"
	else
		cmds=$(tshark -r "$tmp/smb.pcap" -d "tcp.port==$sport,nbss" -Y "tcp.dstport==$sport" -T fields -e smb2.cmd 2>/dev/null |
			tr ',' '\n' | grep -c .)
		truth "SMB: the proxy's SMB2 requests are tshark's $cmds" "$j" \
			"d['requests'] - sum(n for k, n in d['procedures'].items() if not k.startswith('SMB2 ')) == $cmds"
	fi
	# A capture whose client had 60 requests in flight (suricata-verify's smb-length-5770), window 64:
	# replay may report a depth above 1 of itself; the wire still has one request at a time.
	cap=$root/tests/data/pcap/suricata-verify__smb-length-5770__input.pcap
	if "$reprise" convert "$cap" "$tmp/deep.rpz" >/dev/null 2>&1; then
		proxy_start smbdeep smb "$sport"
		run "$reprise" replay "$tmp/deep.rpz" --target "smb://127.0.0.1:$pport/share" --user 'root%pw' --max-inflight 64 \
			--json "$tmp/rdeep.json"
		proxy_stop
		j=$tmp/smbdeep.json
		echo "# SMB capture 60 deep, window 64: wire $(pyj "$j" '"max %d, mean %.2f, %d requests" % (d["outstanding"]["max"], d["outstanding"]["mean"], d["requests"])'); replay reports $(pyj "$j" '"max %d, mean %.2f (recorded max %d, mean %.2f)" % (r["inflight"]["max"], r["inflight"]["mean"], r["inflight"]["recorded_max"], r["inflight"]["recorded_mean"])' "$tmp/rdeep.json")"
		truth "SMB capture 60 deep, window 64: every request answered, one at a time on the wire" "$j" \
			'd["requests"] - d["no_reply"] - d["untracked"] == d["replies"] > 0 and d["unanswered"] == d["parse_errors"] == 0 and d["outstanding"]["max"] == 1'
	else
		ok "SMB capture 60 deep: one at a time on the wire # skip cannot convert $cap"
	fi
	"$fixtures/smbd.sh" stop "$tmp/smb"
else
	echo "# no smb backend or smbd did not start: $(tail -3 "$tmp/smbd.out" 2>/dev/null | tr '\n' ' ')"
	for d in $(seq 1 7); do ok "SMB through the proxy # skip no smbd"; done
fi
echo "1..$n"
[ "$fails" = 0 ]
