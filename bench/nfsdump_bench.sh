#!/bin/bash
# nfsdump text import speed and memory: a generated trace of LINES lines (the shared sample repeated, its
# times made one steady clock and its xids shifted per copy so every copy pairs anew), gzip'd; then, pinned
# to CPU 0, `zcat | wc -l` of it (the floor: decompression alone), `reprise convert` of the .txt.gz and of
# the .txt (CPU time user + sys, wall, peak RSS, lines per CPU second), the same at LINES/10 (memory flat
# or not), and a replay of the converted trace, prepare included, on tmpfs.
# usage: bench/nfsdump_bench.sh [BUILD_DIR] [LINES]
#   BUILD_DIR  default build (its cli/reprise is timed)
#   LINES      default 10000000
# WORK (default a directory in /dev/shm, else TMPDIR) holds the files: LINES lines take ~36 bytes... ~340 bytes
# each as text (3.4 GB at 10 M) and ~11 % of that gzip'd.
set -euo pipefail
build=${1:-build}
lines=${2:-10000000}
reprise=$build/cli/reprise
src=$(cd "$(dirname "$0")/.." && pwd)
sample=$src/tests/data/nfsdump/ellard-raw-data.txt
[ -x "$reprise" ] || { echo "nfsdump_bench: $reprise not built (ninja -C $build)" >&2; exit 2; }
for t in taskset awk gzip zcat /usr/bin/time; do
	command -v $t >/dev/null || { echo "nfsdump_bench: $t missing" >&2; exit 2; }
done
work=${WORK:-$(mktemp -d /dev/shm/nfsdump-bench-XXXXXX 2>/dev/null || mktemp -d)}
trap 'rm -rf "$work"' EXIT

# The sample's lines, copy after copy: line i of copy k at 1006231501 s + (k*176 + i) * 500 us (2,000 lines a second, a busy hour of the EECS traces), each xid
# mapped to a dense index and written (index + 4096 k) in hex, so a copy's calls pair with its own replies.
gen() { # N OUT
	awk -v n="$1" '
	{ line[NR] = $0 }
	END {
		m = NR; nx = 0
		for (i = 1; i <= m; i++) { split(line[i], f, " "); if (!(f[6] in id)) id[f[6]] = nx++ }
		t = 0
		for (k = 0; t < n; k++)
			for (i = 1; i <= m && t < n; i++) {
				s = line[i]
				split(s, f, " ")
				us = t * 500
				# field 1 (time) and field 6 (xid) replaced; the rest kept as it is
				p = index(s, " "); rest = substr(s, p + 1)
				for (j = 2; j <= 5; j++) { p = index(rest, " "); rest = substr(rest, p + 1) }
				p = index(rest, " "); rest = substr(rest, p + 1)
				pre = f[2] " " f[3] " " f[4] " " f[5]
				printf "%d.%06d %s %x %s\n", 1006231501 + int(us / 1000000), us % 1000000, pre,
					id[f[6]] + 4096 * k, rest
				t++
			}
	}' "$sample" >"$2"
}

# one timed run: "cpu wall rss_kb"
timed() { # OUT_FILE CMD...
	local out=$1; shift
	/usr/bin/time -f '%U %S %e %M' -o "$work/t" taskset -c 0 "$@" >/dev/null 2>"$work/err"
	awk '{printf "%.2f %.2f %d\n", $1 + $2, $3, $4}' "$work/t" >"$out"
}
row() { # NAME FILE LINES
	read -r cpu wall rss <"$2"
	printf '%-34s CPU %7s s  wall %7s s  RSS %8s KB  %6.2f M lines/CPU s\n' "$1" "$cpu" "$wall" "$rss" \
		"$(awk -v l="$3" -v c="$cpu" 'BEGIN { print (c > 0 ? l / c / 1e6 : 0) }')"
}

small=$((lines / 10))
echo "generating $lines and $small lines in $work"
gen "$lines" "$work/big.txt"
gen "$small" "$work/small.txt"
gzip -1 -c "$work/big.txt" >"$work/big.txt.gz"
gzip -1 -c "$work/small.txt" >"$work/small.txt.gz"
echo "big: $(wc -l <"$work/big.txt") lines, $(stat -c %s "$work/big.txt") bytes text, $(stat -c %s "$work/big.txt.gz") gzip'd"

timed "$work/zcat" sh -c "zcat '$work/big.txt.gz' | wc -l"
row "zcat | wc -l (big)" "$work/zcat" "$lines"
timed "$work/conv_gz" "$reprise" convert -q "$work/big.txt.gz" "$work/big.rpz"
row "reprise convert .txt.gz (big)" "$work/conv_gz" "$lines"
timed "$work/conv_txt" "$reprise" convert -q "$work/big.txt" "$work/big2.rpz"
row "reprise convert .txt (big)" "$work/conv_txt" "$lines"
timed "$work/stat_gz" "$reprise" stat "$work/big.txt.gz"
row "reprise stat .txt.gz (big)" "$work/stat_gz" "$lines"
timed "$work/conv_small" "$reprise" convert -q "$work/small.txt.gz" "$work/small.rpz"
row "reprise convert .txt.gz (small)" "$work/conv_small" "$small"
"$reprise" convert "$work/big.txt.gz" "$work/big.rpz" 2>&1 >/dev/null | cut -c1-200
echo "rpz: $(stat -c %s "$work/big.rpz") bytes"
rm -f "$work/big.txt" "$work/big2.rpz"

mkdir "$work/target"
/usr/bin/time -f '%U %S %e %M' -o "$work/t" "$reprise" replay "$work/big.rpz" --target "$work/target" \
	>"$work/replay.out" 2>&1 || { tail -5 "$work/replay.out"; exit 1; }
grep -E '^Prepare|^Throughput|^Failed|unknown' "$work/replay.out" || true
awk '{printf "replay (prepare included, tmpfs): CPU %.2f s  wall %.2f s  RSS %d KB\n", $1 + $2, $3, $4}' "$work/t"
rm -rf "$work/target" "$work/big.rpz" "$work/big.txt.gz"

# Hostile: HANDLES distinct file handles (default 10^6), each a GETATTR call and its reply (2 lines each): the
# handle map stays at its bound (524,288, least recently used forgotten), the string table grows with the
# distinct paths (one synthetic name each); peak RSS against a tenth as many.
handles=${HANDLES:-1000000}
genh() { # N OUT
	awk -v n="$1" 'BEGIN {
		for (i = 0; i < n; i++) {
			t = i * 100
			printf "%d.%06d 31.03f7 30.0801 T C3 %x 1 getattr fh cfbc65840a0000000c000000%08x0f8300000c0000000200000001800000 con = XXX len = XXX\n", 1006231501 + int(t / 1000000), t % 1000000, i, i
			t += 50
			printf "%d.%06d 30.0801 31.03f7 T R3 %x 1 getattr OK ftype 1 mode 1a4 nlink 1 uid 0 gid 0 size %x used 0 rdev 0 rdev2 0 fsid 7 fileid %x atime 1006231501.000000 mtime 1006231501.000000 ctime 1006231501.000000 status=XXX pl = XXX con = XXX len = XXX\n", 1006231501 + int(t / 1000000), t % 1000000, i, i % 65536, i
		}
	}' >"$2"
}
genh "$handles" "$work/h.txt"
genh $((handles / 10)) "$work/h10.txt"
timed "$work/conv_h" "$reprise" convert -q "$work/h.txt" "$work/h.rpz"
row "convert, $handles distinct handles" "$work/conv_h" $((handles * 2))
timed "$work/conv_h10" "$reprise" convert -q "$work/h10.txt" "$work/h10.rpz"
row "convert, $((handles / 10)) distinct handles" "$work/conv_h10" $((handles / 5))
