#!/bin/bash
# convert --scale-space 8 at seeds 0..9 (issue 27 point 3; docs/BENCHMARKS.md, "every seed"): for each
# input, the copies' correlation (convert's summary: mean, worst pair, pairs, redraws) and an afap
# replay of the 8 copies against 8 times the unscaled replay's failures and mismatches (0 new errors).
#   bench/scale_corr_bench.sh REPRISE SRCDIR [SEEDS]
# Replays go to a tmpfs directory; with SERVERS=1 the SMB capture also to a private smbd and the NFS
# capture to a private nfs-ganesha (tests/fixtures, 127.0.0.1, free ports; root), both stopped by pid.
# client.txt (/usr/share/dbench/client.txt, its first 4,000 lines, --scale-spread 2) is untimed: its
# correlation is not measured (its offsets are sleeps), its errors are.
# Prints one row a trace and seed: TRACE SEED MEAN WORST PAIRS SHORT REDRAWS FAIL MIS BASE_FAIL BASE_MIS TARGET.
set -u
reprise=${1:?usage: scale_corr_bench.sh REPRISE SRCDIR [SEEDS]}
src=${2:?source dir}
seeds=${3:-0 1 2 3 4 5 6 7 8 9}
tmp=$(mktemp -d "${TMPDIR:-/tmp}/reprise-scb-XXXXXX") || exit 1
run=$(mktemp -d /dev/shm/reprise-scb-XXXXXX 2>/dev/null || mktemp -d "${TMPDIR:-/tmp}/reprise-scbrun-XXXXXX") || exit 1
fixtures="$src/tests/fixtures"
smb_url= nfs_url=
cleanup() {
	[ -n "$smb_url" ] && "$fixtures/smbd.sh" stop "$tmp/smb" >/dev/null 2>&1
	[ -n "$nfs_url" ] && "$fixtures/ganesha.sh" stop "$tmp/nfs" >/dev/null 2>&1
	rm -rf "$tmp" "$run"
}
trap cleanup EXIT INT TERM

# Ports as the tests pick them (tests/lib/ports.sh): free of every socket, below the ephemeral range.
. "$(dirname "$0")/../tests/lib/ports.sh"

# counts JSON: "failures mismatches" of a replay's --json
counts() { python3 -c 'import json, sys; d = json.load(open(sys.argv[1])); print(d["failures"], d["mismatches"])' "$1"; }

# replay_on TARGET_KIND TRACE NAME: "failures mismatches" of an afap replay into a new empty directory
replay_on() {
	kind=$1 trace=$2 name=$3
	case $kind in
	tmpfs)
		rm -rf "$run/t"
		mkdir "$run/t"
		"$reprise" replay -q "$trace" --target "$run/t" --json "$tmp/r.json" >/dev/null 2>&1 ;;
	smbd)
		mkdir -p "$tmp/smb/share/$name"
		"$reprise" replay -q "$trace" --target "$smb_url/$name" --user 'root%pw' --json "$tmp/r.json" >/dev/null 2>&1 ;;
	ganesha)
		mkdir -p "$tmp/nfs/export/$name"
		"$reprise" replay -q "$trace" --target "${nfs_url/\/export/\/export\/$name}" --json "$tmp/r.json" >/dev/null 2>&1 ;;
	esac || { echo "replay-failed -"; return; }
	counts "$tmp/r.json"
}

corr_of() {
	sed -n 's/^scale: correlation of the copies.* mean \(-*[0-9.]*\), worst pair \(-*[0-9.]*\), over \([0-9]*\) pairs (\([0-9]*\) sharing.*, \([0-9]*\) redraws$/\1 \2 \3 \4 \5/p' "$1"
}

# row TRACE_NAME TRACE TARGET_KIND [CONVERT_ARGS...]
rows() {
	name=$1 in=$2 kind=$3
	shift 3
	base=$(replay_on "$kind" "$in" "${name}-base")
	for seed in $seeds; do
		"$reprise" convert "$in" --scale-space 8 --seed "$seed" "$@" "$tmp/s.rpz" 2>"$tmp/s.err" || { echo "$name $seed convert-failed"; continue; }
		c=$(corr_of "$tmp/s.err")
		big=$(replay_on "$kind" "$tmp/s.rpz" "${name}-$seed")
		echo "$name $seed ${c:-- - - - -} $big $base $kind"
	done
}

"$reprise" convert -q "$src/samples/syscall/bonnie.rpz" --ops open,close,stat,unlink,mkdir,rmdir,readdir,flush,fork,wait "$tmp/bonnie.rpz"
"$reprise" convert -q "$src/tests/data/pcap/suricata-verify__smb2-01__smb2-peter.pcap" "$tmp/smb.rpz"
"$reprise" convert -q "$src/tests/data/pcap/nfstrace__eth-ipv4-tcp-nfsv41.pcap" "$tmp/nfs.rpz"
rows pgbench "$src/samples/syscall/pgbench.rpz" tmpfs
rows bonnie "$tmp/bonnie.rpz" tmpfs
rows smb "$tmp/smb.rpz" tmpfs
rows nfs "$tmp/nfs.rpz" tmpfs
if [ -r /usr/share/dbench/client.txt ]; then
	head -n 4000 /usr/share/dbench/client.txt >"$tmp/client.txt"
	rows client.txt "$tmp/client.txt" tmpfs --scale-spread 2
fi
if [ "${SERVERS:-0}" = 1 ]; then
	port=$(free_ports $$ 1) || exit 1
	if "$fixtures/smbd.sh" start "$tmp/smb" "$port" >"$tmp/smbd.out" 2>&1; then
		smb_url=smb://127.0.0.1:$port/share
		rows smb "$tmp/smb.rpz" smbd
	else
		echo "# smbd did not start: $(tail -1 "$tmp/smbd.out")"
	fi
	port=$(free_ports $(($$ + 1)) 2) || exit 1
	if "$fixtures/ganesha.sh" start "$tmp/nfs" "$port" "$((port + 1))" >"$tmp/ganesha.out" 2>&1; then
		nfs_url="nfs://127.0.0.1/export?version=4&nfsport=$port"
		rows nfs "$tmp/nfs.rpz" ganesha
	else
		echo "# ganesha did not start: $(tail -1 "$tmp/ganesha.out")"
	fi
fi
