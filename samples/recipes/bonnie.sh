#!/bin/sh
# bonnie++'s phases, captured: per-char and block output, rewrite, per-char and block input,
# random seeks, then sequential and random create/stat/delete of small files.
# `reprise stat --timeline 1s` shows the phases one after the other; `--from`/`--until` cut one out.
#   samples/recipes/bonnie.sh [OUT.rpz] [SIZE_MIB] [CHAR_MIB]     (as root; needs bonnie++)
set -eu
top=$(cd "$(dirname "$0")/../.." && pwd)
reprise=${REPRISE:-$top/build/cli/reprise}
out=${1:-$top/samples/syscall/bonnie.rpz}
size=${2:-32}
charsize=${3:-1}
command -v bonnie++ >/dev/null 2>&1 || { echo "bonnie.sh: bonnie++ is not installed (apt-get install bonnie++)" >&2; exit 1; }
tmp=$(mktemp -d /tmp/reprise-bonnie.XXXXXX)
trap 'rm -rf "$tmp"' EXIT INT TERM
mkdir "$tmp/d"
# -s SIZE with -r SIZE/2: bonnie++ insists the file be twice the RAM it is told of;
# -fCHAR_MIB (no space: an optional argument): the per-char tests on that many MiB (bonnie++ defaults to 20: 3 million one-byte calls);
# -n 1:4096:1024:4: 1024 files of 1-4 KiB in 4 directories; -u root: run as root (the recipe's user)
"$reprise" capture --only "$tmp/d" -o "$tmp/bonnie.rpz" -- \
	bonnie++ -d "$tmp/d" -s "$size" -r $((size / 2)) -n 1:4096:1024:4 -f"$charsize" -u root -q >"$tmp/bonnie.csv"
echo "bonnie.sh: bonnie++ said (CSV): $(tail -n 1 "$tmp/bonnie.csv")"
mkdir -p "$(dirname "$out")"
cp "$tmp/bonnie.rpz" "$out"
echo "bonnie.sh: wrote $out; see its phases with: reprise stat --timeline 0.5s $out"
