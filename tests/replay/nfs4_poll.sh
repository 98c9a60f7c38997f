#!/bin/bash
# NFSv4.0 exact mode's blocking locks and lock-owner releases against a real nfs-ganesha on 127.0.0.1 (TAP;
# docs/replay.md, "Exact mode for NFSv4.0", locks).  Two clients of one text-form trace: c1 locks a range
# and unlocks it 0.75 s later; c2's blocking lock (WRITEW_LT) on that range, recorded granted, is sent
# while c1 holds it.  Replayed with --timing trace while tcpdump records lo: c2's LOCK is denied, polled
# (counted), granted after c1's LOCKU (the granted LOCK's call after the LOCKU's on the wire), 0 mismatched,
# its latency at least c1's hold; every lock-owner a LOCK named (each LOCK with new_lock_owner) is released
# once (RELEASE_LOCKOWNER on the wire, the count the JSON gives).  With -O lock-wait=1s and c1 holding for
# 5 s the wait runs out: ETIMEDOUT, said and counted; lock-wait=0 sends the lock once (denied, a mismatch).
# With the default order (resource) the lock goes after c1's unlock, as recorded, and is granted.  The same
# trace as NFSv4.1 (flag session) goes the semantic way: no lock and no RELEASE_LOCKOWNER sent.
#   nfs4_poll.sh REPRISE SOURCE_ROOT
set -u
reprise=$1
root=$2
fixtures=$root/tests/fixtures
. "${0%/*}/../lib/tap.sh"
. "${0%/*}/../lib/ports.sh"

[ "$(id -u)" -eq 0 ] || { echo "1..0 # SKIP ganesha's VFS export and capturing on lo need root"; exit 77; }
command -v ganesha.nfsd >/dev/null || { echo "1..0 # SKIP nfs-ganesha not installed"; exit 77; }
command -v tcpdump >/dev/null || { echo "1..0 # SKIP no tcpdump to capture lo"; exit 77; }
command -v tshark >/dev/null || { echo "1..0 # SKIP no tshark to read the capture"; exit 77; }
"$reprise" replay --list-backends 2>/dev/null | grep -q '^  nfs ' || { echo "1..0 # SKIP built without the nfs backend"; exit 77; }

tmp=$(mktemp -d /tmp/reprise-nfs4poll.XXXXXX) || exit 1
srv=$tmp/srv
bg=
cleanup() {
	[ -n "$bg" ] && kill "$bg" 2>/dev/null && wait "$bg" 2>/dev/null
	"$fixtures/ganesha.sh" stop "$srv"
	[ -n "${KEEP_TMP:-}" ] || rm -rf "$tmp"
}
trap cleanup EXIT INT TERM

base=$(free_ports $$) || exit 1
nport=$base mport=$((base + 1))
"$fixtures/ganesha.sh" start "$srv" "$nport" "$mport" >"$tmp/ganesha.out" 2>&1 || {
	echo "1..0 # SKIP ganesha did not start: $(tail -n 8 "$tmp/ganesha.out" 2>/dev/null | tr '\n' ' ')"
	exit 77
}
export_dir=$srv/export
fresh() { basename "$(mktemp -d "$export_dir/rXXXXXX")"; }
url() { echo "nfs://127.0.0.1/export/$1?version=4&nfsport=$nport&mountport=$mport"; }

# loop OUT TRACE [replay args]: replay TRACE into a fresh directory while tcpdump records lo into OUT.pcap;
# $tmp/out, $tmp/err are the replay's, $rc its exit; $dropped says what the kernel dropped (then the wire is
# not compared).
loop() {
	local out=$1 trace=$2
	shift 2
	rm -f "$tmp/tcpdump.err"
	nice -n -10 tcpdump -i lo -s 0 -B 131072 --immediate-mode -w "$out.pcap" "tcp port $nport" 2>"$tmp/tcpdump.err" &
	bg=$!
	for _ in $(seq 1 100); do grep -q 'listening on' "$tmp/tcpdump.err" && break; sleep 0.1; done
	sleep 0.5
	timeout -k 5 120 "$reprise" replay "$trace" --target "$(url "$(fresh)")" --timing trace --order client "$@" \
		>"$tmp/out" 2>"$tmp/err"
	rc=$?
	sleep 1
	kill -INT "$bg"
	wait "$bg"
	bg=
	dropped=$(grep -Eo '[1-9][0-9]* packets dropped by kernel' "$tmp/tcpdump.err")
}

# calls PCAP: "FRAME OPS" of each NFS call, OPS its operations by name (LOCK, LOCKU, RELEASE_LOCKOWNER, ...).
calls() {
	tshark -r "$1" -d "tcp.port==$nport,rpc" -Y 'rpc.msgtyp == 0 && nfs' -T fields -e frame.number -e nfs.opcode \
		2>/dev/null | awk '
	BEGIN { split("4 CLOSE 12 LOCK 13 LOCKT 14 LOCKU 18 OPEN 22 PUTFH 39 RELEASE_LOCKOWNER", a, " ");
		for (i = 1; i < length(a); i += 2) m[a[i]] = a[i + 1] }
	{ k = split($2, o, ","); s = ""; for (i = 1; i <= k; i++) s = s " " (o[i] in m ? m[o[i]] : "OP" o[i]); print $1 s }'
}
count() { grep -c " $2\( \|\$\)" "$tmp/$1" || true; }
# new_owners PCAP: LOCK calls that name a new lock-owner (open_to_lock_owner4).
new_owners() {
	tshark -r "$1" -d "tcp.port==$nport,rpc" -Y 'rpc.msgtyp == 0 && nfs.lock.locker.new_lock_owner == 1' 2>/dev/null | wc -l
}
jnum() { sed -n "s/.*\"$2\": \\([0-9][0-9]*\\).*/\\1/p" "$tmp/$1" | head -n 1; }

# The trace: c1 holds [0, 100) from 0.030 to 0.800 s; c2's blocking lock of it starts at 0.050 (recorded
# granted at 0.810, after c1's unlock, as a blocked F_SETLKW is).  HOLD_END moves c1's unlock.
trace() {
	local hold_end=$1 ok4='-> OK (NFS4_OK)'
	cat <<TRACE
0.010 0.011 c1 open path="/f" fh=1 want=read,write disp=create of=excl_verify raw=nfs4:access=0x3,disp=1,opts=0x2 $ok4
0.020 0.021 c1 write path="/f" fh=1 off=0 len=512 ret=512 raw=nfs4 $ok4
0.030 0.031 c1 lock path="/f" fh=1 off=0 len=100 flags=excl raw=nfs4 $ok4
0.040 0.041 c2 open path="/f" fh=2 want=read,write raw=nfs4:access=0x3 $ok4
0.050 $hold_end c2 lock path="/f" fh=2 off=0 len=100 flags=excl,wait raw=nfs4 $ok4
$hold_end $hold_end c1 unlock path="/f" fh=1 off=0 len=100 flags=excl raw=nfs4 $ok4
$hold_end $hold_end c1 close path="/f" fh=1 raw=nfs4 $ok4
$hold_end $hold_end c2 unlock path="/f" fh=2 off=0 len=100 flags=excl raw=nfs4 $ok4
$hold_end $hold_end c2 close path="/f" fh=2 raw=nfs4 $ok4
TRACE
}
trace 0.800 >"$tmp/wait.txt"
# The times of c1's unlock and close, and c2's unlock and close, apart: c2's come after its lock is granted.
sed -i -e '6s/^0.800 0.800/0.800 0.801/' -e '7s/^0.800 0.800/0.810 0.811/' \
	-e '8s/^0.800 0.800/0.900 0.901/' -e '9s/^0.800 0.800/0.910 0.911/' -e '5s/ 0.800 c2/ 0.802 c2/' "$tmp/wait.txt"

# 1. c2 waits for c1's unlock and is granted.
for try in 1 2 3; do
	loop "$tmp/wait" "$tmp/wait.txt" --json "$tmp/wait.json"
	[ "$rc" = 0 ] && [ -z "$dropped" ] && break
	echo "# capture $try: exit $rc ${dropped:+(tcpdump: $dropped)}, again"
done
if [ "$rc" = 0 ]; then ok "the blocking lock trace replayed (exit 0)"; else echo "# exit $rc"; not_ok "the blocking lock trace replayed (exit 0)"; fi
has "every op exact" out '^Backend mode: exact \(9 ops sent as the request they were recorded as\); [0-9]+ requests of its own \([0-9, a-z-]*blocking-lock polls?, [0-9]+ lock-owner releases\)'
has "0 failed, 0 mismatched: the blocking lock was granted" out '^Failed 0, mismatched 0$'
polls=$(jnum wait.json backend_lock_polls) rels=$(jnum wait.json backend_lockowner_releases)
if [ "${polls:-0}" -ge 1 ]; then ok "the denied blocking LOCK was sent again ($polls polls counted)"
else not_ok "the denied blocking LOCK was sent again (polls: ${polls:-none})"; fi
[ "$(jnum wait.json backend_lock_wait_expired)" = 0 ] && ok "no lock wait ran out" || not_ok "no lock wait ran out"
# c2's lock latency (the JSON's per-op max, ms) at least c1's hold: the LOCK went at 0.05 s, the LOCKU at 0.80 s.
lat=$(python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print(d["ops"]["lock"]["max_us"] / 1000)' "$tmp/wait.json" 2>/dev/null)
if awk -v l="${lat:-0}" 'BEGIN { exit !(l >= 700) }'; then ok "the blocking lock's latency covers the wait ($(printf %.0f "$lat") ms >= c1's 750 ms hold less 50)"
else echo "# lock latency: ${lat:-none} ms"; not_ok "the blocking lock's latency covers the wait"; fi
if [ -n "$dropped" ]; then
	ok "the wire # skip tcpdump lost packets ($dropped)"
else
	calls "$tmp/wait.pcap" >"$tmp/wait.calls"
	nl=$(count wait.calls LOCK) nu=$(count wait.calls LOCKU) nr=$(count wait.calls RELEASE_LOCKOWNER)
	no=$(new_owners "$tmp/wait.pcap")
	echo "# on the wire: LOCK $nl, LOCKU $nu, RELEASE_LOCKOWNER $nr, LOCKs naming a new lock-owner $no"
	[ "$nl" = $((2 + polls)) ] && ok "LOCKs on the wire: the trace's 2 and the $polls polls" ||
		not_ok "LOCKs on the wire: the trace's 2 and the $polls polls ($nl)"
	[ "$nu" = 2 ] && ok "LOCKUs on the wire: the trace's 2" || not_ok "LOCKUs on the wire: the trace's 2 ($nu)"
	# The granted LOCK (the last) was called after c1's LOCKU (the first), the denied ones before it.
	last_lock=$(awk '/ LOCK( |$)/ { f = $1 } END { print f }' "$tmp/wait.calls")
	first_locku=$(awk '/ LOCKU( |$)/ { print $1; exit }' "$tmp/wait.calls")
	if [ -n "$last_lock" ] && [ -n "$first_locku" ] && [ "$last_lock" -gt "$first_locku" ]; then
		ok "the granted LOCK went after c1's LOCKU (frames $first_locku, $last_lock)"
	else not_ok "the granted LOCK went after c1's LOCKU (frames ${first_locku:-none}, ${last_lock:-none})"; fi
	[ "$nr" = "$no" ] && [ "$nr" = "$rels" ] &&
		ok "RELEASE_LOCKOWNER once per lock-owner named ($nr; the JSON's $rels)" ||
		not_ok "RELEASE_LOCKOWNER once per lock-owner named ($nr for $no; the JSON's ${rels:-none})"
	# Each RELEASE_LOCKOWNER of a granted owner after its open's CLOSE: the last two calls are releases.
	tail -n 2 "$tmp/wait.calls" | grep -q ' RELEASE_LOCKOWNER$' && ok "the last calls are releases after the CLOSEs" ||
		not_ok "the last calls are releases after the CLOSEs"
fi

# 1b. The default order (auto: resource, the clients share /f) places the granted blocking lock at its
# recorded end, after c1's unlock: sent then and granted, never waiting for the unlock that waits for it.
timeout -k 5 60 "$reprise" replay "$tmp/wait.txt" --target "$(url "$(fresh)")" --timing trace -O lock-wait=5s \
	--json "$tmp/auto.json" >"$tmp/out" 2>"$tmp/err"
has "default order: resource, chosen by auto" out '^Order across clients \(resource, auto\)'
has "default order: 0 failed, 0 mismatched" out '^Failed 0, mismatched 0$'
[ "$(jnum auto.json backend_lock_wait_expired)" = 0 ] && ok "default order: no lock wait ran out" ||
	not_ok "default order: no lock wait ran out"

# 2. The wait runs out: c1 holds for 5 s, lock-wait is 1 s.
trace 5.000 >"$tmp/long.txt"
sed -i -e '5s/ 5.000 c2/ 5.001 c2/' -e '8s/^5.000 5.000/5.100 5.101/' -e '9s/^5.000 5.000/5.110 5.111/' "$tmp/long.txt"
timeout -k 5 120 "$reprise" replay "$tmp/long.txt" --target "$(url "$(fresh)")" --timing trace --order client \
	-O lock-wait=1s --json "$tmp/long.json" >"$tmp/out" 2>"$tmp/err"
rc=$?
[ "$rc" -le 1 ] && ok "a lock wait past its bound ends (exit $rc, no hang)" || not_ok "a lock wait past its bound ends (exit $rc)"
has "the ran-out wait is said" out '; 1 blocking lock still denied when its wait ran out \(ETIMEDOUT\)'
has "it fails ETIMEDOUT, a mismatch" out '^ lock +2 .* 1 +1$'
[ "$(jnum long.json backend_lock_wait_expired)" = 1 ] && ok "the JSON counts it" || not_ok "the JSON counts it"
p=$(jnum long.json backend_lock_polls)
# 10, 30, 70, 150, 310, 630 ms, then at the bound (1 s): 7 polls; on a loaded machine a reply may come late.
if [ "${p:-0}" -ge 3 ] && [ "${p:-0}" -le 7 ]; then ok "polled with back-off within the bound ($p polls)"
else not_ok "polled with back-off within the bound (${p:-none} polls)"; fi

# 3. lock-wait=0: sent once, as before (denied: a mismatch against the recorded grant).
timeout -k 5 60 "$reprise" replay "$tmp/long.txt" --target "$(url "$(fresh)")" --timing trace --order client \
	-O lock-wait=0 --json "$tmp/zero.json" >"$tmp/out" 2>"$tmp/err"
[ "$(jnum zero.json backend_lock_polls)" = 0 ] && ok "lock-wait=0: no poll" || not_ok "lock-wait=0: no poll"
has "lock-wait=0: denied once, a mismatch" out '^ lock +2 .* 1 +1$'

# 4. NFSv4.1 (sessions): semantic, its locks never sent, no RELEASE_LOCKOWNER (RFC 8881 s18.56: none in 4.1).
sed -e 's/flags=\([a-z,]*\)/flags=\1,session/' -e '/flags=/!s/ raw=nfs4/ flags=session raw=nfs4/' "$tmp/wait.txt" >"$tmp/v41.txt"
loop "$tmp/v41" "$tmp/v41.txt"
if [ -n "$dropped" ]; then
	ok "NFSv4.1: nothing of locks on the wire # skip tcpdump lost packets ($dropped)"
else
	calls "$tmp/v41.pcap" >"$tmp/v41.calls"
	[ "$(count v41.calls RELEASE_LOCKOWNER)" = 0 ] && [ "$(count v41.calls LOCK)" = 0 ] &&
		ok "NFSv4.1: no LOCK, no RELEASE_LOCKOWNER on the wire" ||
		not_ok "NFSv4.1: no LOCK, no RELEASE_LOCKOWNER on the wire"
fi
has "NFSv4.1: its 4 lock ops unsupported" out '^Unsupported by the nfs backend \(not sent to it; not failed, not mismatched\): 4$'
echo "1..$n"
