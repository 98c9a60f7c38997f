#!/bin/bash
# replay --prepare-only --image: the time to build an Impressions image of N files against what a user would
# otherwise run to make the same tree: a shell loop (mkdir, then head -c SIZE of a data file per file) and cp -r of
# the finished tree.  Every command makes the same entries with the same sizes in a fresh directory on tmpfs and
# removes it after (the same in each).  farm-bench, A and B alternating, medians (docs/BENCHMARKS.md).
# usage: bench/image_bench.sh [BUILD_DIR] [SCALE]   (default: build, 0.05: 1000 files in 200 directories)
set -euo pipefail
build=${1:-build}
scale=${2:-0.05}
reprise=$(realpath "$build/cli/reprise")
[ -x "$reprise" ] || { echo "image_bench: $reprise not built" >&2; exit 2; }
base=$(mktemp -d /dev/shm/reprise-imagebench-XXXXXX 2>/dev/null || mktemp -d)
trap 'rm -rf "$base"' EXIT
# a trace of one op, so prepare's own part is nothing: the time is the image's
printf '%s\n' 'NTCreateX "\x" 0x0 0x2 1 NT_STATUS_OK' 'Close 1 NT_STATUS_OK' >"$base/one.txt"
opts="--image impressions --image-scale $scale --image-max-file-size 16M --seed 1"
mkdir "$base/ref"
"$reprise" replay --prepare-only "$base/one.txt" --target "$base/ref" $opts | sed 's/^/# /'
# the tree as a script's input: directories (parents first), then "size path" per file
(cd "$base/ref" && find rp-image -type d | awk -F/ '{ print NF, $0 }' | sort -n | cut -d' ' -f2-) >"$base/dirs"
(cd "$base/ref" && find rp-image -type f -printf '%s %p\n') >"$base/files"
head -c 16777216 /dev/urandom >"$base/data"
echo "# $(wc -l <"$base/files") files, $(wc -l <"$base/dirs") directories, $(awk '{ s += $1 } END { print s }' "$base/files") bytes"
cat >"$base/loop.sh" <<'SH'
set -e
d=$(mktemp -d -p "$1")
cd "$d"
while read -r p; do mkdir "$p"; done <"$1/dirs"
while read -r s p; do head -c "$s" "$1/data" >"$p"; done <"$1/files"
cd /
rm -rf "$d"
SH
cat >"$base/img.sh" <<SH
set -e
d=\$(mktemp -d -p "$base")
"$reprise" replay -q --prepare-only "$base/one.txt" --target "\$d" $opts >/dev/null
rm -rf "\$d"
SH
cat >"$base/cp.sh" <<SH
set -e
d=\$(mktemp -d -p "$base")
cp -r "$base/ref/rp-image" "\$d/"
rm -rf "\$d"
SH
echo "## reprise --image vs a shell loop (mkdir; head -c per file)"
farm-bench -n 5 --timeout 600 --vs "sh $base/loop.sh $base" -- sh "$base/img.sh"
echo "## reprise --image vs cp -r of the finished tree"
farm-bench -n 5 --timeout 600 --vs "sh $base/cp.sh" -- sh "$base/img.sh"
