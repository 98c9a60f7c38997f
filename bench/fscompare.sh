#!/bin/bash
# The seeds' file-system comparison in one sitting (docs/COMPARE.md): dbench's client.txt, CLIENTS
# clients, SECS seconds, RUNS runs each (the first discarded), on tmpfs and loop-mounted ext2, ext3,
# ext4, xfs and btrfs images: `reprise bench` with the final sync (durable results), `reprise bench
# --no-final-sync` (dbench's number), and Debian's dbench itself, each tool's runs interleaved over
# the file systems.  Writes DIR/sync.json, DIR/nosync.json, DIR/dbench.tsv and, with reprise compare,
# DIR/report.html; prints the three tables.  Images and mounts are removed at the end, even on ^C.
#   usage: bench/fscompare.sh DIR     REPRISE=build/cli/reprise SECS=20 RUNS=4 CLIENTS=2 SIZE=2G FS="..."
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
reprise=${REPRISE:-$top/build/cli/reprise}
dir=${1:?usage: fscompare.sh DIR}
secs=${SECS:-20} runs=${RUNS:-4} clients=${CLIENTS:-2} size=${SIZE:-2G}
fslist=${FS:-tmpfs ext2 ext3 ext4 xfs btrfs}
loadfile=/usr/share/dbench/client.txt
[ "$(id -u)" -eq 0 ] || { echo "fscompare: loop mounts need root" >&2; exit 1; }
[ -x "$reprise" ] || { echo "fscompare: no $reprise (set REPRISE)" >&2; exit 1; }
command -v dbench >/dev/null || { echo "fscompare: dbench not installed" >&2; exit 1; }
mkdir -p "$dir"
mounted=() loops=()
cleanup() {
	for m in "${mounted[@]}"; do umount "$m" 2>/dev/null || umount -l "$m"; done
	for l in "${loops[@]}"; do losetup -d "$l" 2>/dev/null; done
	rm -f "$dir"/*.img
	rmdir "$dir"/mnt-* 2>/dev/null
}
trap cleanup EXIT
trap 'exit 130' INT TERM
targets=()
for fs in $fslist; do
	m=$dir/mnt-$fs
	mkdir -p "$m"
	if [ "$fs" = tmpfs ]; then
		mount -t tmpfs -o size="$size" tmpfs "$m" || { echo "fscompare: tmpfs: mount failed" >&2; continue; }
	else
		if ! grep -qw "$fs" /proc/filesystems && ! modprobe "$fs" 2>/dev/null; then
			[ "$fs" = ext2 ] || [ "$fs" = ext3 ] || { echo "fscompare: $fs: not in this kernel, skipped" >&2; continue; }
		fi
		command -v "mkfs.$fs" >/dev/null || { echo "fscompare: $fs: no mkfs.$fs, skipped" >&2; continue; }
		truncate -s "$size" "$dir/$fs.img"
		case $fs in ext*) opt=-qF ;; xfs) opt=-qf ;; btrfs) opt=-qf ;; *) opt= ;; esac
		"mkfs.$fs" $opt "$dir/$fs.img" >/dev/null 2>&1 || { echo "fscompare: mkfs.$fs failed, skipped" >&2; continue; }
		l=$(losetup -f --show --direct-io=on "$dir/$fs.img") || continue
		loops+=("$l")
		mount "$l" "$m" || { echo "fscompare: $fs: mount failed, skipped" >&2; continue; }
	fi
	mounted+=("$m")
	targets+=(--target "$m")
done
echo "# fscompare $(date -u '+%Y-%m-%d %H:%M UTC'), load $(cut -d' ' -f1-3 /proc/loadavg); client.txt, $clients clients, ${secs}s, $runs runs (first discarded)"
"$reprise" bench "$loadfile" "${targets[@]}" --clients "$clients" -t "$secs" --runs "$runs" --discard-first \
	--json "$dir/sync.json" -q
"$reprise" bench "$loadfile" "${targets[@]}" --clients "$clients" -t "$secs" --runs "$runs" --discard-first \
	--no-final-sync --json "$dir/nosync.json" -q
# dbench 4.0: its warm-up is -t/5, fixed; the "Throughput" line is its result.
: >"$dir/dbench.tsv"
for r in $(seq "$runs"); do
	for m in "${mounted[@]}"; do
		rm -rf "$m/clients"
		tp=$(dbench -c "$loadfile" -D "$m" -t "$secs" "$clients" 2>/dev/null | sed -n 's/^Throughput \([0-9.]*\) MB\/sec.*/\1/p')
		printf '%s\t%s\t%s\n' "$r" "${m##*/mnt-}" "${tp:-failed}" >>"$dir/dbench.tsv"
		rm -rf "$m/clients"
	done
done
echo "# dbench (MB/s, runs 2..$runs: median min max)"
awk -F'\t' '$1 > 1 { v[$2] = v[$2] " " $3 } END { for (fs in v) print fs v[fs] }' "$dir/dbench.tsv" |
	while read -r fs vals; do
		printf '%-6s %s\n' "$fs" "$(echo "$vals" | tr ' ' '\n' | sort -n | awk '{a[NR]=$1} END{printf "%s %s %s", a[int((NR+1)/2)], a[1], a[NR]}')"
	done
"$reprise" compare "$dir/sync.json" --html "$dir/report-sync.html" >"$dir/sync.txt" 2>&1 && cat "$dir/sync.txt"
"$reprise" compare "$dir/nosync.json" --html "$dir/report-nosync.html" >"$dir/nosync.txt" 2>&1 && cat "$dir/nosync.txt"
