#!/bin/bash
# The closed loop (docs/network-fidelity.md): each trace replayed to each network backend on loopback, the
# replay's own traffic captured (reprise capture --iface lo) and compared with the trace (stat --diff's
# closed loop): the backend's mode, requests sent per recorded one, the core ops and each file's order of them, the mean in
# flight recorded and on the wire, the span ratio, the inter-arrival KS distance.  Prepare runs first,
# outside the capture (replay --prepare-only, then --no-prepare).  Prints a markdown table.
#   usage: bench/closed_loop.sh     REPRISE=build/cli/reprise LINES=4000 BACKENDS="nfs3 nfs4 smb3" TRACES="client.txt ..."
# Root (the VFS export, capturing on lo).  Servers: tests/fixtures/ganesha.sh and smbd.sh, stopped at the end.
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
reprise=${REPRISE:-$top/build/cli/reprise}
lines=${LINES:-4000}
backends=${BACKENDS:-nfs3 nfs4 smb3}
fixtures=$top/tests/fixtures
data=$top/tests/data/pcap
[ -x "$reprise" ] || { echo "closed_loop: no $reprise (build first, or set REPRISE)" >&2; exit 1; }
[ "$(id -u)" -eq 0 ] || { echo "closed_loop: needs root (ganesha's VFS export, a capture on lo)" >&2; exit 1; }
tmp=$(mktemp -d /tmp/reprise-loop.XXXXXX) || exit 1
capture_pid=
cleanup() {
	[ -n "$capture_pid" ] && kill -9 "$capture_pid" 2>/dev/null
	"$fixtures/ganesha.sh" stop "$tmp/nfs" >/dev/null 2>&1
	"$fixtures/smbd.sh" stop "$tmp/smb" >/dev/null 2>&1
	rm -rf "$tmp"
}
[ -n "${KEEP:-}" ] && cleanup() { [ -n "$capture_pid" ] && kill -9 "$capture_pid" 2>/dev/null; "$fixtures/ganesha.sh" stop "$tmp/nfs" >/dev/null 2>&1; "$fixtures/smbd.sh" stop "$tmp/smb" >/dev/null 2>&1; echo "kept $tmp" >&2; }
trap cleanup EXIT INT TERM
# Ports as the tests pick them (tests/lib/ports.sh): free of every socket, below the ephemeral range.
. "$top/tests/lib/ports.sh"
base=$(free_ports $$ 3) || exit 1
nport=$base mport=$((base + 1)) sport=$((base + 2))
"$fixtures/ganesha.sh" start "$tmp/nfs" "$nport" "$mport" >"$tmp/ganesha.out" 2>&1 || { cat "$tmp/ganesha.out" >&2; exit 1; }
"$fixtures/smbd.sh" start "$tmp/smb" "$sport" >"$tmp/smbd.out" 2>&1 || { cat "$tmp/smbd.out" >&2; exit 1; }
export REPRISE_SMB_PASSWORD=pw
url() { # url BACKEND DIR
	case $1 in
	nfs3) echo "nfs://127.0.0.1/export/$2?version=3&nfsport=$nport&mountport=$mport" ;;
	nfs4) echo "nfs://127.0.0.1/export/$2?version=4&nfsport=$nport" ;;
	smb3) echo "smb://127.0.0.1:$sport/share/$2" ;;
	esac
}
root_of() { case $1 in nfs*) echo "$tmp/nfs/export" ;; smb3) echo "$tmp/smb/share" ;; esac; }
port_of() { case $1 in nfs*) echo "$nport" ;; smb3) echo "$sport" ;; esac; }
user_of() { case $1 in smb3) echo "--user root" ;; esac; }

# The traces: bundled captures of other clients, and client.txt's first LINES lines.
declare -A traces=(
	[nfs3-zeek]=$data/zeek__nfs_nfs_base.pcap
	[nfs3-suricata]=$data/suricata-verify__nfs3-01__input.pcap
	[nfs3-2sessions]=$data/nfstrace__2sessions-tcp-wsize32k-tcp-wsize512k__pkts1-2400.pcap
	[nfs41-linux]=$data/nfstrace__eth-ipv4-tcp-nfsv41.pcap
	[nfs40-774]=$data/nfstrace__nfsv3-4-41-cifs1-2__nfsv40-port774-head.pcap
	[nfs40-locks]=$data/reprise__nfs4-locks.pcap
	[smb3-smbclient]=$data/reprise__smb3-smbclient.pcap
	[smb2-peter]=$data/suricata-verify__smb2-01__smb2-peter.pcap
)
order=${TRACES:-client.txt nfs3-zeek nfs3-suricata nfs3-2sessions nfs41-linux nfs40-774 nfs40-locks smb3-smbclient smb2-peter}
head -n "$lines" /usr/share/dbench/client.txt >"$tmp/client.txt"
"$reprise" convert -q "$tmp/client.txt" "$tmp/client.txt.rpz"
for name in "${!traces[@]}"; do
	"$reprise" convert -q "${traces[$name]}" "$tmp/$name.rpz" 2>/dev/null || echo "closed_loop: $name does not convert" >&2
done

echo "# $(date -u '+%Y-%m-%d %H:%M UTC'), load $(cut -d' ' -f1-3 /proc/loadavg), $("$reprise" -V | head -n 1)"
echo
echo "| trace | backend | mode | ops | requests B/A | core ops | files in order | in flight A / B | span B/A | KS | mismatches |"
echo "|---|---|---|---|---|---|---|---|---|---|---|"
n=0
for name in $order; do
	rpz=$tmp/$name.rpz
	[ "$name" = client.txt ] && rpz=$tmp/client.txt.rpz
	[ -s "$rpz" ] || continue
	for b in $backends; do
		n=$((n + 1))
		dir=run$n
		mkdir -m 777 "$(root_of "$b")/$dir"
		target=$(url "$b" "$dir")
		# shellcheck disable=SC2046 # --user root is two words
		if ! "$reprise" replay "$rpz" --target "$target" $(user_of "$b") --prepare-only >"$tmp/prep.out" 2>&1; then
			echo "| $name | $b | | prepare failed: $(tail -n 1 "$tmp/prep.out") |||||||"
			continue
		fi
		"$reprise" capture --iface lo --filter "tcp port $(port_of "$b")" -o "$tmp/cap$n.rpz" >/dev/null 2>"$tmp/cap.err" &
		capture_pid=$!
		k=0
		while ! grep -q '^reprise capture: on lo' "$tmp/cap.err" && [ $k -lt 100 ]; do sleep 0.05; k=$((k + 1)); done
		sleep 0.5 # the banner comes with the loop's first turn, a little before the first packet is taken
		# shellcheck disable=SC2046
		"$reprise" replay "$rpz" --target "$target" $(user_of "$b") --no-prepare -q --json "$tmp/run$n.json" \
			>/dev/null 2>"$tmp/run.err"
		sleep 0.3 # the last replies reach the capture
		kill -INT "$capture_pid"
		wait "$capture_pid" 2>/dev/null
		capture_pid=
		if ! "$reprise" stat --diff --json "$rpz" "$tmp/cap$n.rpz" >"$tmp/diff$n.json" 2>"$tmp/diff.err"; then
			echo "| $name | $b | | no capture to compare: $(tail -n 1 "$tmp/diff.err") |||||||"
			continue
		fi
		python3 - "$name" "$b" "$tmp/diff$n.json" "$tmp/run$n.json" <<'PY'
import json, sys
name, b, diff, run = sys.argv[1:5]
d = json.load(open(diff))
c = d["diff"]["closed_loop"]
try:
    r = json.load(open(run))
    mism = r.get("mismatches", "?")
    mode = r.get("backend_mode") or "-"
except (OSError, ValueError):
    mism, mode = "run failed", "?"
f = c["files"]
differ = ", ".join(c["core_differs"]) or "same"
order = "%d/%d" % (f["same_order"], f["a"] + f["b"] - f["both"]) if f else "-"
ratio = lambda v: "-" if v is None else "%.2f" % v
fl = c["in_flight_mean"]
print("| %s | %s | %s | %d | %s | %s | %s | %.2f / %.2f | %s | %.3f | %s |" % (
    name, b, mode, d["a"]["ops"], ratio(c["request_ratio"]["all"]), differ, order, fl["a"], fl["b"],
    ratio(c["span_ratio"]), c["interarrival_ks"], mism))
PY
	done
done
