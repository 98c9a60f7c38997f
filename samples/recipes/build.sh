#!/bin/sh
# The seeds' "kernel compile": building a real C project (reprise itself, from this tree's git
# HEAD) with ninja -j2, captured: many short processes (the compiler driver, cc1, as, ld) reading
# sources and headers, writing objects, archives and the binary.
#   samples/recipes/build.sh [OUT.rpz]     (needs meson, ninja, gcc and reprise's build dependencies)
set -eu
top=$(cd "$(dirname "$0")/../.." && pwd)
reprise=${REPRISE:-$top/build/cli/reprise}
out=${1:-$top/samples/syscall/build.rpz}
tmp=$(mktemp -d /tmp/reprise-build.XXXXXX)
trap 'rm -rf "$tmp"' EXIT INT TERM
git -C "$top" archive --format=tar HEAD | tar -C "$tmp" -xf - --one-top-level=src
# configure untraced (meson's own checks are not the build), then capture only the compile;
# paths under the temporary tree, where the build reads and writes (system headers are read
# too: --only keeps the trace to the project's files and the outputs)
meson setup "$tmp/build" "$tmp/src" --buildtype=debugoptimized -Dfuzzing=false >/dev/null
"$reprise" capture --only "$tmp" -o "$tmp/build.rpz" -- ninja -C "$tmp/build" -j2 >"$tmp/ninja.log"
tail -n 1 "$tmp/ninja.log" | sed 's/^/build.sh: ninja: /'
mkdir -p "$(dirname "$out")"
cp "$tmp/build.rpz" "$out"
echo "build.sh: wrote $out"
