#!/bin/sh
# reprise model and generate (docs/model.md): for each trace, the model's size against the .rpz's and
# the largest difference of one op's share between the trace and a trace generated from its model
# (stat --json of both, sleep aside), in percentage points.  Results: docs/BENCHMARKS.md.
#   bench/model_bench.sh [REPRISE] [TRACE...]   (default: client.txt and the samples)
set -eu
here=$(cd "${0%/*}/.." && pwd)
reprise=${1:-$here/build/cli/reprise}
[ $# -gt 0 ] && shift
tmp=$(mktemp -d "${TMPDIR:-/tmp}/reprise-model-bench-XXXXXX")
trap 'rm -rf "$tmp"' EXIT INT TERM
if [ $# -eq 0 ]; then
	set --
	if [ -f /usr/share/dbench/client.txt ]; then
		"$reprise" convert -q /usr/share/dbench/client.txt "$tmp/client.rpz"
		set -- "$tmp/client.rpz"
	fi
	for s in syscall/pgbench syscall/bonnie syscall/dbench syscall/build smb2-small-files nfs3-write nfs41-session; do
		set -- "$@" "$here/samples/$s.rpz"
	done
fi
printf '%-18s %9s %8s %9s %9s %9s  %s\n' trace ops rpz_B model_B ratio_% gen_ops "max op-share diff (points, op)"
for t in "$@"; do
	n=$(basename "$t" .rpz)
	"$reprise" model -q "$t" -o "$tmp/m.json"
	"$reprise" generate -q --seed 1 "$tmp/m.json" -o "$tmp/g.rpz"
	"$reprise" stat --json "$t" >"$tmp/a.json"
	"$reprise" stat --json "$tmp/g.rpz" >"$tmp/b.json"
	python3 - "$n" "$(wc -c <"$t")" "$(wc -c <"$tmp/m.json")" "$tmp/a.json" "$tmp/b.json" <<'PY'
import json, sys
name, rpz, model = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
def shares(p):
    c = {k: v for k, v in json.load(open(p))["op_counts"].items() if k != "sleep"}
    t = sum(c.values()) or 1
    return {k: 100.0 * v / t for k, v in c.items()}, sum(c.values())
a, na = shares(sys.argv[4]); b, nb = shares(sys.argv[5])
d, op = max((abs(a.get(k, 0) - b.get(k, 0)), k) for k in set(a) | set(b))
print("%-18s %9d %8d %9d %9.2f %9d  %.3f (%s)" % (name, na, rpz, model, 100.0 * model / rpz, nb, d, op))
PY
done
