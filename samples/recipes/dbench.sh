#!/bin/sh
# dbench running its client.txt on a local directory, captured: what dbench's fileio backend makes
# of each loadfile command, as syscalls (docs/dbench-mapping.md compares the two op mixes).
#   samples/recipes/dbench.sh [OUT.rpz] [SECONDS]     (needs dbench)
set -eu
top=$(cd "$(dirname "$0")/../.." && pwd)
reprise=${REPRISE:-$top/build/cli/reprise}
out=${1:-$top/samples/syscall/dbench.rpz}
secs=${2:-3}
loadfile=/usr/share/dbench/client.txt
[ -f "$loadfile" ] || { echo "dbench.sh: $loadfile missing (apt-get install dbench)" >&2; exit 1; }
tmp=$(mktemp -d /tmp/reprise-dbench.XXXXXX)
trap 'rm -rf "$tmp"' EXIT INT TERM
mkdir "$tmp/d"
# one client for a fixed time (dbench 4.0 has no --warmup option); dbench forks its client from a parent that only waits
"$reprise" capture --only "$tmp/d" -o "$tmp/dbench.rpz" -- \
	dbench -c "$loadfile" -D "$tmp/d" -t "$secs" 1 >"$tmp/dbench.out"
grep -E "^Throughput" "$tmp/dbench.out" | sed 's/^/dbench.sh: dbench: /' || true
mkdir -p "$(dirname "$out")"
cp "$tmp/dbench.rpz" "$out"
echo "dbench.sh: wrote $out"
