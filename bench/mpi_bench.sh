#!/bin/sh
# replay --mpi on one host: ops/s of mpirun -np 1 against -np 2 with the same clients in all, with the
# null backend (the cost of MPI and of a second process) and posix on a tmpfs, runs alternating;
# plus the packed results' size per client, the merge time, and reprise's start time (docs/BENCHMARKS.md).
#   bench/mpi_bench.sh BUILD [ROUNDS] [SECONDS] [CLIENTS]
set -eu
build=$1
rounds=${2:-3}
secs=${3:-3}
clients=${4:-4}
reprise=$build/cli/reprise
top=$(cd "$(dirname "$0")/.." && pwd)
load=$top/tests/data/replay/small.load
command -v mpirun >/dev/null || { echo "mpirun is not installed (openmpi-bin)"; exit 1; }
tmp=$(mktemp -d)
shm=$(mktemp -d /dev/shm/reprise-mpi-bench-XXXXXX)
trap 'rm -rf "$tmp" "$shm"' EXIT INT TERM
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_btl=self,vader OMPI_MCA_oob_tcp_if_include=lo
export OMPI_MCA_rmaps_base_oversubscribe=1 OMPI_MCA_hwloc_base_binding_policy=none OMPI_MCA_mpi_yield_when_idle=1
export REPRISE_MODULE_DIR=$build/replay

# ops/s of one run: np backend
one() {
	rm -rf "${shm:?}"/*
	if [ "$2" = null ]; then tgt="--target /unused -b null"; else tgt="--target $shm"; fi
	# shellcheck disable=SC2086
	mpirun -np "$1" "$reprise" replay "$load" $tgt --clients "$clients" -t "$secs" --warmup 1 --mpi -q \
		--json "$tmp/r.json" >/dev/null 2>&1
	python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print("%.0f %d %d %.6f" % (d["ops_per_sec"],
d["mpi"]["gather_bytes"], d["clients"], d["mpi"]["merge_seconds"]))' "$tmp/r.json"
}

echo "replay --mpi, $clients clients in all, -t $secs (warm-up 1 s), $rounds rounds alternating, $(nproc) CPUs"
for backend in null posix; do
	s1="" s2=""
	for r in $(seq "$rounds"); do
		a=$(one 1 "$backend"); b=$(one 2 "$backend")
		s1="$s1 ${a%% *}"; s2="$s2 ${b%% *}"
		echo "  $backend round $r: -np 1 ${a%% *} ops/s, -np 2 ${b%% *} ops/s (packed results ${b#* }: bytes, clients, merge s)"
	done
	python3 -c '
import statistics, sys
a = [float(x) for x in sys.argv[2].split()]; b = [float(x) for x in sys.argv[3].split()]
print("%s: median -np 1 %.0f ops/s, -np 2 %.0f ops/s, ratio np2/np1 %.3f (per round: %s)" % (sys.argv[1],
    statistics.median(a), statistics.median(b), statistics.median(b) / statistics.median(a),
    " ".join("%.3f" % (y / x) for x, y in zip(a, b))))' "$backend" "$s1" "$s2"
done

# Packed results per client: one rank, many copies, one pass (the size grows with clients, not with ops).
for c in 1 64 512; do
	mpirun -np 1 "$reprise" replay "$load" --target /unused -b null --clients "$c" --mpi -q --json "$tmp/s.json" >/dev/null 2>&1
	python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); b=d["mpi"]["gather_bytes"]; print("packed results, %d clients: %d bytes (%.0f per client), merge %.6f s" % (d["clients"], b, b / d["clients"], d["mpi"]["merge_seconds"]))' "$tmp/s.json"
done

# Start time of reprise itself (libmpi is in the module, loaded only with --mpi).
t0=$(date +%s%N)
for _ in $(seq 200); do "$reprise" --version >/dev/null; done
t1=$(date +%s%N)
echo "reprise --version: $(( (t1 - t0) / 200000 )) us per start (200 starts)"
