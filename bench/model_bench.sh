#!/bin/sh
# reprise model and generate (docs/model.md): for each trace, the model's size against the .rpz's and
# the largest difference of one op's share between the trace and a trace generated from its model
# (stat --json of both, sleep aside), in percentage points.  Results: docs/BENCHMARKS.md.
#   bench/model_bench.sh [REPRISE] [TRACE...]   (default: client.txt and the samples)
# With MODEL_CHECK=1 (issue 27 point 5): `reprise model --check --runs RUNS` of each trace on tmpfs
# (/dev/shm) and on ext4 (a loop-mounted image made here and removed; needs root): op mix, ops/s and
# p99 ratios generated / trace (medians of the runs, alternating, with min-max), inter-arrival and
# file-size KS.  RUNS defaults to 5; FS=tmpfs or FS=ext4 runs only one.
#   MODEL_CHECK=1 [RUNS=5] [FS=tmpfs|ext4] bench/model_bench.sh [REPRISE] [TRACE...]
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
	list="syscall/pgbench syscall/bonnie syscall/dbench syscall/build smb2-small-files nfs3-write nfs41-session"
	# the check replays at the recorded times: nfs41-session's 422 s are left out of it (pass it to include it)
	[ "${MODEL_CHECK:-0}" = 1 ] && list="syscall/pgbench syscall/bonnie smb2-small-files nfs3-write"
	for s in $list; do
		set -- "$@" "$here/samples/$s.rpz"
	done
fi
if [ "${MODEL_CHECK:-0}" = 1 ]; then
	runs=${RUNS:-5}
	fss=${FS:-tmpfs ext4}
	img="" mnt="" shm=""
	cleanup() {
		[ -n "$mnt" ] && umount "$mnt" 2>/dev/null
		[ -n "$shm" ] && rm -rf "$shm"
		rm -rf "$tmp"
	}
	trap cleanup EXIT INT TERM
	printf '%-18s %-5s %7s %7s  %-26s %-26s %7s %7s\n' trace fs model_% mix_pt "ops/s ratio med [min-max]" \
		"p99 ratio med [min-max]" gap_KS size_KS
	for fs in $fss; do
		case $fs in
		tmpfs) shm=/dev/shm/reprise-model-bench-$$ && mkdir "$shm" && dir=$shm ;;
		ext4)
			img=$tmp/ext4.img mnt=$tmp/mnt
			truncate -s 2G "$img" && mkfs.ext4 -q -F "$img" && mkdir "$mnt" && mount -o loop "$img" "$mnt"
			dir=$mnt ;;
		*) echo "FS: tmpfs or ext4" >&2 && exit 2 ;;
		esac
		for t in "$@"; do
			n=$(basename "$t" .rpz)
			"$reprise" model -q --check --runs "$runs" --json --target "$dir" "$t" >"$tmp/c.json"
			python3 - "$n" "$fs" "$tmp/c.json" <<'PY'
import json, sys
j = json.load(open(sys.argv[3]))
m = j["replay"]["measures"]
def r(k):
    q = m[k]["ratio"]
    return "%.3f [%.3f-%.3f]" % (q["median"], q["min"], q["max"])
print("%-18s %-5s %7.2f %7.3f  %-26s %-26s %7.4f %7.4f" % (sys.argv[1], sys.argv[2], j["sizes"]["model_pct"],
      j["op_mix"]["max_diff_points"], r("ops_per_sec"), r("p99_us"), j["interarrival_ks"]["statistic"],
      j["file_size_ks"]["statistic"]))
PY
		done
		if [ "$fs" = tmpfs ]; then
			rmdir "$shm" && shm=""
		else
			umount "$mnt" && mnt="" && rm -f "$img"
		fi
	done
	exit 0
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
