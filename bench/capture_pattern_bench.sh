#!/bin/bash
# Capture cost of the .rpz pattern layer (issue 28): CPU seconds (user + sys of every process) of a
# syscall capture (`reprise capture -- sh` writing N small files: open/write/close) and of a
# packet capture read from a file (`reprise convert` of a pcap, 20 times a round), with the pattern
# layer (default), with a 2^10-slot match table (--pattern-table 10) and with --no-patterns, the
# three run alternately ROUNDS times; sums and ratios to --no-patterns.
# usage: bench/capture_pattern_bench.sh [BUILD_DIR] [PCAP]   (N=3000 files, ROUNDS=5)
set -euo pipefail
build=${1:-rel}
pcap=${2:-tests/data/pcap/suricata-verify__smb-length-5770__input.pcap}
R=$(realpath "$build/cli/reprise")
n=${N:-3000}
rounds=${ROUNDS:-5}
[ -x "$R" ] || { echo "capture_pattern_bench: $R not built" >&2; exit 2; }
[ -r "$pcap" ] || { echo "capture_pattern_bench: $pcap not readable" >&2; exit 2; }
# the files on tmpfs (/dev/shm, kept in the trace by --exclude /proc,/sys): a disk-backed /tmp adds its
# write-back to every run, 1.2-1.3x noise between modes
tmp=$(mktemp -d /dev/shm/reprise-cpb-XXXXXX 2>/dev/null || mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$tmp/t"
cpu() { { TIMEFORMAT='%U %S'; time "$@" >/dev/null 2>&1; } 2>&1 | awk '{print $1 + $2}'; }
sys_run() { "$R" capture --exclude /proc,/sys "$@" -o "$tmp/s.rpz" -- sh -c "cd $tmp/t && i=0 && while [ \$i -lt $n ]; do echo x > f\$i; i=\$((i+1)); done"; }
pcap_run() { for _ in $(seq 20); do "$R" convert -q "$@" "$pcap" "$tmp/p.rpz"; done; }
declare -A tot
modes=(default table10 plain)
args() { case $1 in default) ;; table10) echo --pattern-table 10 ;; plain) echo --no-patterns ;; esac; }
for _ in $(seq "$rounds"); do
	for m in "${modes[@]}"; do
		# shellcheck disable=SC2046
		tot[sys_$m]=$(awk -v a="${tot[sys_$m]:-0}" -v b="$(cpu sys_run $(args "$m"))" 'BEGIN {print a + b}')
		# shellcheck disable=SC2046
		tot[pcap_$m]=$(awk -v a="${tot[pcap_$m]:-0}" -v b="$(cpu pcap_run $(args "$m"))" 'BEGIN {print a + b}')
	done
done
sys_ops=$("$R" cat "$tmp/s.rpz" | wc -l)
pcap_ops=$("$R" cat "$tmp/p.rpz" | wc -l)
for k in sys pcap; do
	[ $k = sys ] && what="syscall capture ($sys_ops ops a run)" || what="pcap convert ($pcap_ops ops a run, 20 runs a round)"
	echo "$what, $rounds rounds, CPU s: patterns ${tot[${k}_default]}, --pattern-table 10 ${tot[${k}_table10]}," \
		"--no-patterns ${tot[${k}_plain]}; ratios to --no-patterns" \
		"$(awk -v a="${tot[${k}_default]}" -v b="${tot[${k}_table10]}" -v c="${tot[${k}_plain]}" 'BEGIN {printf "%.3f / %.3f", a / c, b / c}')"
done
