#!/bin/bash
# Syscall capture overhead: the same workloads untraced, under `reprise capture`, under
# `reprise capture --lttng` (an LTTng session recording them), and under `strace -f -o FILE`, in one run.
#
#   (a) tar: extracting a tarball of 3,000 small files (1-4 KiB, 30 directories) onto tmpfs;
#       wall time per extraction (the median of ROUNDS rounds, each round alternating the modes);
#       for `reprise capture` also "capture-run", the wall time less what its encoder did after the
#       program ended (it says so on stderr): the program's own time, as the lttng mode's leaves
#       out the session's stop.
#   (b) dbench: client.txt, 1 client, for SECS seconds on tmpfs; dbench's own throughput (MB/s),
#       where more is better: the overhead is untraced / traced.
# Both pinned to one CPU (taskset -c 0: the traced program and reprise's writer compete for it) and
# unpinned (the writer drains on the other core), alternating.  The machine may be shared: figures
# are ratios of runs made side by side, and each round runs every mode once in a rotating order.
# Reports: the time ratios, events per run and the per-event cost in ns ((traced - untraced) / events),
# and the trace's size per op.
#   usage: bench/syscall_bench.sh        REPRISE=path ROUNDS=5 SECS=5 FILES=3000 CAPTURE_ARGS="--ring-kb 256"
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
reprise=${REPRISE:-$top/build/cli/reprise}
rounds=${ROUNDS:-5}
secs=${SECS:-5}
files=${FILES:-3000}
capture_args=${CAPTURE_ARGS:-} # more options for `reprise capture` (word-split), e.g. --ring-kb 256
[ -x "$reprise" ] || { echo "syscall_bench: no $reprise (build first, or set REPRISE)" >&2; exit 1; }
for t in tar dbench strace taskset; do command -v $t >/dev/null || { echo "syscall_bench: $t not installed" >&2; exit 1; }; done
have_lttng=0
if command -v lttng >/dev/null && command -v lttng-sessiond >/dev/null &&
	"$reprise" --version 2>/dev/null | grep -q 'lttng=[0-9]'; then
	have_lttng=1
fi

# A tmpfs of its own (root), not /dev/shm: capture's default --exclude drops /dev's paths.
work=$(mktemp -d /tmp/reprise-sysbench.XXXXXX)
mounted=0
if mount -t tmpfs -o size=4g tmpfs "$work" 2>/dev/null; then mounted=1; else echo "syscall_bench: not tmpfs (mount failed): $work" >&2; fi
sessiond_pid=
cleanup() {
	if [ -n "$sessiond_pid" ]; then
		kill "$sessiond_pid" 2>/dev/null || true
		wait "$sessiond_pid" 2>/dev/null || true
	fi
	[ $mounted = 1 ] && umount "$work"
	rm -rf "$work"
}
trap cleanup EXIT INT TERM

# the tarball: FILES files of 1-4 KiB in 30 directories
mkdir "$work/src"
for i in $(seq 0 $((files - 1))); do
	d=$work/src/d$((i % 30))
	[ -d "$d" ] || mkdir "$d"
	head -c $((1024 + (i * 37) % 3072)) /dev/zero >"$d/f$i"
done
tar -C "$work/src" -cf "$work/a.tar" .
rm -rf "$work/src"

if [ $have_lttng = 1 ]; then
	export LTTNG_HOME=$work/lttng-home
	mkdir -p "$LTTNG_HOME"
	lttng-sessiond --no-kernel >"$work/sessiond.log" 2>&1 &
	sessiond_pid=$!
	for _ in $(seq 50); do lttng list >/dev/null 2>&1 && break; sleep 0.1; done
fi
lttng_start() {
	lttng create rpbench --output="$work/ctf" >/dev/null
	lttng enable-channel -u --blocking-timeout=inf --subbuf-size=4M chan >/dev/null
	lttng enable-event -u -c chan 'reprise:*' >/dev/null
	lttng start >/dev/null
}
lttng_stop() {
	lttng stop >/dev/null
	lttng destroy >/dev/null
	du -sb "$work/ctf" | cut -f1 >"$work/ctf.bytes"
	rm -rf "$work/ctf"
}

now() { date +%s.%N; }
# run MODE PIN CMD...: the command's wall time on stdout; its trace's ops and bytes in $work/last.*
run() {
	local mode=$1 pin=$2
	shift 2
	local pre=()
	[ "$pin" = pinned ] && pre=(taskset -c 0)
	local t0 t1
	rm -f "$work/t.rpz" "$work/s.log"
	case $mode in
	untraced) t0=$(now); "${pre[@]}" "$@"; t1=$(now) ;;
	capture)
		t0=$(now); "${pre[@]}" "$reprise" capture $capture_args -o "$work/t.rpz" -- "$@" 2>"$work/cap.err"; t1=$(now)
		# the encoder may finish after the program: how long after, for the program's own time
		sed -n 's/^the trace was complete \([0-9.]*\) ms after the command ended.*/\1/p' "$work/cap.err" >"$work/after" ;;
	lttng) lttng_start; t0=$(now); "${pre[@]}" "$reprise" capture --lttng -- "$@"; t1=$(now); lttng_stop ;;
	strace) t0=$(now); "${pre[@]}" strace -f -o "$work/s.log" "$@"; t1=$(now) ;;
	esac
	echo "$t0 $t1" | awk '{printf "%.6f\n", $2 - $1}'
}

modes="untraced capture strace"
[ $have_lttng = 1 ] && modes="untraced capture lttng strace"
# capture-run: the capture's wall time less the time its encoder went on after the program ended
# (what the program itself took, as the lttng mode's time leaves out the session's stop)
tar_modes=$(echo "$modes" | sed 's/capture/capture capture-run/')
median() { sort -g | awk '{a[NR]=$1} END {if (NR % 2) print a[(NR+1)/2]; else print (a[NR/2] + a[NR/2+1]) / 2}'; }

# tar_once MODE PIN: "MODE seconds" lines; capture also gives "capture-run": until the program ended
tar_once() {
	rm -rf "$work/x"; mkdir "$work/x"
	local t
	t=$(run "$1" "$2" tar -C "$work/x" -xf "$work/a.tar")
	echo "$1 $t"
	[ "$1" = capture ] && awk -v t="$t" -v a="$(cat "$work/after")" 'BEGIN {printf "capture-run %.6f\n", t - a / 1000}'
	return 0
}
dbench_once() {
	rm -rf "$work/db"; mkdir "$work/db"
	local out
	out=$(run "$1" "$2" dbench -c /usr/share/dbench/client.txt -D "$work/db" -t "$secs" 1 2>&1 >"$work/db.out")
	sed -n 's/^Throughput \([0-9.]*\) MB\/sec.*/\1/p' "$work/db.out"
}

echo "syscall_bench: $(date -u '+%F %T UTC'), $(nproc) CPUs, load $(cut -d' ' -f1-3 /proc/loadavg), rounds $rounds"
[ -n "$capture_args" ] && echo "reprise capture $capture_args"
echo "tar: $files files, $(du -h "$work/a.tar" | cut -f1)B tarball; dbench: client.txt, 1 client, ${secs}s"
for pin in unpinned pinned; do
	: >"$work/tar.$pin"
	: >"$work/db.$pin"
	for r in $(seq 1 "$rounds"); do
		# rotate the order each round so no mode always runs first (cache, frequency)
		set -- $modes
		for _ in $(seq 1 $(((r - 1) % $#))); do set -- "${@:2}" "$1"; done
		for m in "$@"; do
			tar_once "$m" "$pin" >>"$work/tar.$pin"
			if [ "$m" = capture ]; then
				"$reprise" stat --json "$work/t.rpz" 2>/dev/null | sed -n 's/^  "ops": \([0-9]*\),/\1/p' >"$work/tar.ops"
				stat -c %s "$work/t.rpz" >"$work/tar.bytes"
			fi
			echo "$m $(dbench_once "$m" "$pin")" >>"$work/db.$pin"
			if [ "$m" = capture ]; then
				"$reprise" stat --json "$work/t.rpz" 2>/dev/null | sed -n 's/^  "ops": \([0-9]*\),/\1/p' >"$work/db.ops"
				stat -c %s "$work/t.rpz" >"$work/db.bytes"
			fi
		done
	done
	echo
	echo "== $pin"
	base=$(awk '$1 == "untraced" {print $2}' "$work/tar.$pin" | median)
	ops=$(cat "$work/tar.ops")
	printf '%-12s %12s %8s %14s\n' "tar" "median s" "ratio" "ns per op"
	for m in $tar_modes; do
		t=$(awk -v m=$m '$1 == m {print $2}' "$work/tar.$pin" | median)
		awk -v m=$m -v t="$t" -v b="$base" -v n="$ops" 'BEGIN {printf "%-12s %12.4f %8.3f %14s\n", m, t, t / b,
			(m == "untraced" ? "" : sprintf("%.0f", (t - b) * 1e9 / n))}'
	done
	echo "tar trace: $ops ops, $(cat "$work/tar.bytes") bytes, $(awk -v b="$(cat "$work/tar.bytes")" -v n="$ops" 'BEGIN {printf "%.2f", b / n}') bytes/op"
	base=$(awk '$1 == "untraced" {print $2}' "$work/db.$pin" | median)
	printf '%-10s %12s %8s\n' "dbench" "MB/s" "slowdown"
	for m in $modes; do
		t=$(awk -v m=$m '$1 == m {print $2}' "$work/db.$pin" | median)
		awk -v m=$m -v t="$t" -v b="$base" 'BEGIN {printf "%-10s %12.2f %8.3f\n", m, t, b / t}'
	done
	echo "dbench trace: $(cat "$work/db.ops") ops, $(cat "$work/db.bytes") bytes, $(awk -v b="$(cat "$work/db.bytes")" -v n="$(cat "$work/db.ops")" 'BEGIN {printf "%.2f", b / n}') bytes/op"
done
