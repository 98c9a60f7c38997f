#!/bin/bash
# SMB3 decryption benchmark: reprise vs tshark on the same encrypted capture, and each against the
# same workload captured unencrypted (what decryption costs them).
#
# Makes three captures on lo (root): smbclient putting, getting and deleting many small files and
# one large one against a private smbd (tests/fixtures/smbd.sh) with encryption required, SMB 3.1.1
# AES-128-GCM and AES-128-CCM, and the same commands unencrypted; the keys are the ones smbclient
# prints with 'debug encryption = yes' (tests/smb/smbclient-keys.awk).  Then decodes each, in one run,
# the decoders interleaved round by round:
#   reprise convert --smb-keys K F out.rpz         (all four keys)
#   reprise convert --smb-key SID:KEY F ...         (the session key alone: derived, preauth hash)
#   tshark -r F -d tcp.port==PORT,nbss -o uat:smb2_seskey_list:SID,KEY,S2C,C2S -T fields -e smb2.cmd
#                                                   (tshark needs all four keys)
# and prints CPU time per decode (perf stat task-clock, the median over ROUNDS of each round's mean)
# and the ratios.  usage: bench/smb3_bench.sh   REPRISE=... FILES=1500 BIG_MB=16 RUNS=5 ROUNDS=3
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
reprise=${REPRISE:-$top/build/cli/reprise}
files=${FILES:-1500}
big_mb=${BIG_MB:-16}
runs=${RUNS:-5}
rounds=${ROUNDS:-3}
# Ports as the tests pick them (tests/lib/ports.sh): free of every socket, below the ephemeral range.
. "$top/tests/lib/ports.sh"
port=${SMB3_BENCH_PORT:-$(free_ports $$ 1)} || exit 1
[ -x "$reprise" ] || { echo "smb3_bench: no $reprise (build first, or set REPRISE)" >&2; exit 1; }
for t in tshark tcpdump perf smbclient smbd; do
	command -v $t >/dev/null || { echo "smb3_bench: $t not installed" >&2; exit 1; }
done

work=$(mktemp -d /tmp/reprise-smb3bench.XXXXXX)
tp=
cleanup() {
	[ -n "$tp" ] && kill "$tp" 2>/dev/null && wait "$tp" 2>/dev/null
	"$top/tests/fixtures/smbd.sh" stop "$work/srv" 2>/dev/null || true
	rm -rf "$work"
}
trap cleanup EXIT INT TERM
. "$top/tests/fixtures/smb3_session.sh"

mkdir "$work/files"
for i in $(seq 1 "$files"); do printf 'file %d of the reprise SMB3 benchmark\n' "$i" >"$work/files/f$i.txt"; done
head -c $((big_mb << 20)) /dev/urandom >"$work/files/big.bin"
{
	echo "lcd $work/files"
	echo "mkdir bench"
	echo "cd bench"
	echo "put big.bin"
	echo "get big.bin big.back"
	for i in $(seq 1 "$files"); do echo "put f$i.txt"; done
	for i in $(seq 1 "$files"); do echo "get f$i.txt g$i.txt"; done
	for i in $(seq 1 "$files"); do echo "del f$i.txt"; done
	echo "del big.bin"
	echo "cd .."
	echo "rmdir bench"
} >"$work/cmds"

# capture NAME ENCRYPT CIPHER: the commands above, recorded by tcpdump; keys beside as NAME.keys
capture() {
	local name=$1 enc=$2 cipher=$3
	smb3_session "$work/$name.pcap" "$work/$name.log" "$work/srv" "$port" "$enc" SMB3_11 "$cipher" "$work" <"$work/cmds"
	if [ "$enc" = required ]; then
		awk -f "$top/tests/smb/smbclient-keys.awk" "$work/$name.log" >"$work/$name.keys"
		[ -s "$work/$name.keys" ] || { echo "smb3_bench: smbclient printed no keys for $name" >&2; exit 1; }
	fi
}
capture gcm required aes-128-gcm
capture ccm required aes-128-ccm
capture clear off aes-128-gcm

# cpu_ms CMD...: the mean CPU ms over $runs runs (output discarded), by perf stat.
cpu_ms() {
	perf stat -x, -o "$work/perf.csv" -r "$runs" -e task-clock -- "$@" >/dev/null 2>&1 || true
	local cpu
	cpu=$(awk -F, '$3 == "task-clock" { print $1 }' "$work/perf.csv")
	[ -n "$cpu" ] || { echo "smb3_bench: perf stat failed for: $*" >&2; exit 1; }
	echo "$cpu"
}
median() { tr ' ' '\n' | grep . | sort -g | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }

declare -A res
names=()
add() { names+=("$1"); res[$1]=""; }
for c in gcm ccm; do
	IFS=: read -r sid key s2c c2s <"$work/$c.keys"
	add "reprise-$c-4keys"
	add "reprise-$c-sesskey"
	add "tshark-$c-4keys"
done
add reprise-clear
add tshark-clear
for r in $(seq 1 "$rounds"); do
	for c in gcm ccm; do
		IFS=: read -r sid key s2c c2s <"$work/$c.keys"
		res[reprise-$c-4keys]+=" $(cpu_ms "$reprise" convert -q --smb-keys "$work/$c.keys" "$work/$c.pcap" "$work/out.rpz")"
		res[tshark-$c-4keys]+=" $(cpu_ms tshark -r "$work/$c.pcap" -d "tcp.port==$port,nbss" -o "uat:smb2_seskey_list:$sid,$key,$s2c,$c2s" -T fields -e smb2.cmd)"
		res[reprise-$c-sesskey]+=" $(cpu_ms "$reprise" convert -q --smb-key "$sid:$key" "$work/$c.pcap" "$work/out.rpz")"
	done
	res[reprise-clear]+=" $(cpu_ms "$reprise" convert -q "$work/clear.pcap" "$work/out.rpz")"
	res[tshark-clear]+=" $(cpu_ms tshark -r "$work/clear.pcap" -d "tcp.port==$port,nbss" -T fields -e smb2.cmd)"
done

# What each decode saw: reprise's summary and tshark's count of SMB2 messages.
"$reprise" convert --smb-keys "$work/gcm.keys" "$work/gcm.pcap" "$work/out.rpz" 2>"$work/sum" || true
pk() { tshark -r "$work/$1.pcap" -q -z io,stat,0 2>/dev/null | awk '/<>/ { print $6; exit }'; }
echo "captures: $files small files put/got/deleted and one $big_mb MiB file put and got, SMB 3.1.1"
for c in gcm ccm clear; do printf '  %-5s %9d bytes, %s frames\n' "$c" "$(stat -c %s "$work/$c.pcap")" "$(pk $c)"; done
echo "  reprise on gcm: $(head -n 1 "$work/sum")"
IFS=: read -r sid key s2c c2s <"$work/gcm.keys"
echo "  tshark on gcm: $(tshark -r "$work/gcm.pcap" -d "tcp.port==$port,nbss" -o "uat:smb2_seskey_list:$sid,$key,$s2c,$c2s" 2>/dev/null | grep -c 'Decrypted SMB3') frames with decrypted SMB3"
echo
echo "CPU ms per decode (median over $rounds rounds of $runs runs each; min..max of the rounds)"
for k in "${names[@]}"; do
	m=$(echo "${res[$k]}" | median)
	lo=$(echo "${res[$k]}" | tr ' ' '\n' | grep . | sort -g | head -n 1)
	hi=$(echo "${res[$k]}" | tr ' ' '\n' | grep . | sort -g | tail -n 1)
	printf '  %-22s %10.1f  (%s..%s)\n' "$k" "$m" "$lo" "$hi"
	res[m-$k]=$m
done
echo
echo "ratios (tshark / reprise: how many times faster reprise is)"
for c in gcm ccm; do
	awk -v t="${res[m-tshark-$c-4keys]}" -v r="${res[m-reprise-$c-4keys]}" -v s="${res[m-reprise-$c-sesskey]}" -v c=$c \
		'BEGIN { printf "  %s, all four keys: %.1fx;  reprise with the session key alone vs tshark with four: %.1fx\n", c, t / r, t / s }'
done
awk -v t="${res[m-tshark-clear]}" -v r="${res[m-reprise-clear]}" 'BEGIN { printf "  clear capture: %.1fx\n", t / r }'
echo "decryption's cost (encrypted / clear CPU)"
for c in gcm ccm; do
	awk -v e="${res[m-reprise-$c-4keys]}" -v r="${res[m-reprise-clear]}" -v te="${res[m-tshark-$c-4keys]}" -v tr="${res[m-tshark-clear]}" -v c=$c \
		'BEGIN { printf "  %s: reprise %.2fx, tshark %.2fx\n", c, e / r, te / tr }'
done
