#!/bin/sh
# replay --mpi under mpirun on this host (TAP): merged counts are the sum of the ranks', 4 copies over
# 2 ranks count what 4 copies in one process do, a failing rank is named, a killed rank ends the job
# with an error (bounded by timeout), options --mpi refuses, and the job listens on loopback only.
#   mpi.sh REPRISE yes|no (whether this build has MPI)
set -u
# mpirun's PMIx opens listeners on every address whatever it is told: as root with unshare and ip,
# the whole test runs in a network namespace of its own whose only interface is lo, so nothing
# beyond loopback can reach them (REPRISE_MPI_NETNS=0 keeps the host's namespace).
if [ "${REPRISE_MPI_NETNS:-1}" = 1 ] && [ "${REPRISE_IN_NETNS:-}" != 1 ] && command -v unshare >/dev/null 2>&1 &&
	command -v ip >/dev/null 2>&1 && unshare -n true 2>/dev/null; then
	REPRISE_IN_NETNS=1 exec unshare -n sh -c 'ip link set lo up && exec sh "$0" "$@"' "$0" "$@"
fi
reprise=$1
built=$2
tmp=$(mktemp -d) || exit 1
pid=
trap '[ -n "$pid" ] && kill "$pid" 2>/dev/null; rm -rf "$tmp"' EXIT INT TERM
. "${0%/*}/../lib/tap.sh"


if [ "$built" != yes ]; then
	# A build without MPI says so and exits 2.
	timeout 60 "$reprise" replay /dev/null --target "$tmp" --mpi --clients 2 >"$tmp/out" 2>"$tmp/err"
	rc=$?
	if [ $rc = 2 ] && grep -q 'built without MPI' "$tmp/err"; then ok "--mpi without MPI: exit 2, says so"; else not_ok "--mpi without MPI (exit $rc)"; fi
	echo "1..$n"
	exit 0
fi
command -v mpirun >/dev/null 2>&1 || { echo "1..0 # SKIP mpirun is not installed (openmpi-bin)"; exit 77; }
command -v python3 >/dev/null 2>&1 || { echo "1..0 # SKIP python3 is needed to read the JSON"; exit 77; }

# Loopback only: the shared-memory and self transports between ranks, and the runtime's own TCP on lo.
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export OMPI_MCA_btl=self,vader OMPI_MCA_oob_tcp_if_include=lo OMPI_MCA_btl_tcp_if_include=lo
export OMPI_MCA_rmaps_base_oversubscribe=1 OMPI_MCA_hwloc_base_binding_policy=none
# One core per two engineers here: ranks must not spin on a core they share.
export OMPI_MCA_mpi_yield_when_idle=1
# The sanitizer build: Open MPI's own allocations that it never frees are not reprise's leaks.
# Its components stay loaded and stacks are unwound in full (it has no frame pointers), so the
# suppressions can name its libraries.
export OMPI_MCA_mca_base_component_disable_dlclose=1 PMIX_MCA_mca_base_component_disable_dlclose=1
export LSAN_OPTIONS="${LSAN_OPTIONS:+$LSAN_OPTIONS:}fast_unwind_on_malloc=0:suppressions=$(cd "$(dirname "$0")" && pwd)/lsan-openmpi.supp"
mpi() { np=$1; shift; timeout 120 mpirun -np "$np" "$@" >"$tmp/out" 2>"$tmp/err"; }

load=$REPRISE_SOURCE_ROOT/tests/data/replay/small.load
[ -r "$load" ] || load=$(dirname "$0")/../data/replay/small.load

# A JSON check in Python: prints nothing and exits 0 when it holds.
pycheck() { python3 -c "$1" "$@" >"$tmp/py" 2>&1; }

# 1. -np 2 and -np 4: the merged counts are the sum of the ranks', per op and in all.
for np in 2 4; do
	clients=$((np * 2))
	mpi "$np" "$reprise" replay "$load" --target /unused -b null --clients "$clients" --mpi -q --json "$tmp/np$np.json"
	rc=$?
	if [ $rc = 0 ]; then ok "-np $np: exit 0"; else echo "# exit $rc"; not_ok "-np $np: exit 0"; fi
	if pycheck '
import json, sys
d = json.load(open(sys.argv[2])); np = int(sys.argv[3]); clients = int(sys.argv[4])
assert d["ranks"] == np and d["mpi"]["ranks"] == np, d["ranks"]
assert d["clients"] == clients and len(d["client_results"]) == clients
ranks = d["mpi"]["per_rank"]
assert [r["rank"] for r in ranks] == list(range(np))
assert sum(r["clients"] for r in ranks) == clients
assert sum(r["ops"] for r in ranks) == d["total_ops"] > 0, (d["total_ops"], [r["ops"] for r in ranks])
ops = {}
for r in ranks:
    for k, v in r["op"].items():
        ops[k] = ops.get(k, 0) + v
assert ops == d["op_counts"], (ops, d["op_counts"])
assert all(r["result_bytes"] > 0 for r in ranks)
assert sum(r["result_bytes"] for r in ranks) == d["mpi"]["gather_bytes"]
' "$tmp/np$np.json" "$np" "$clients"; then ok "-np $np: merged counts are the sum of the ranks'"; else cat "$tmp/py" | sed 's/^/# /'; not_ok "-np $np: merged counts are the sum of the ranks'"; fi
done
has "-np 4: the table lists the ranks and their clock offsets" out '^Ranks: 4; clocks against rank 0'

# 2. 4 copies over 2 ranks count what 4 copies in one process do (null, and posix on a tmpfs).
shm=/dev/shm
[ -d "$shm" ] && [ -w "$shm" ] || shm=$tmp
t1=$(mktemp -d "$shm/reprise-mpi-XXXXXX") && t2=$(mktemp -d "$shm/reprise-mpi-XXXXXX") || exit 1
trap '[ -n "$pid" ] && kill "$pid" 2>/dev/null; rm -rf "$tmp" "$t1" "$t2"' EXIT INT TERM
timeout 120 "$reprise" replay "$load" --target /unused -b null --clients 4 -q --json "$tmp/one.json" >/dev/null 2>&1
mpi 2 "$reprise" replay "$load" --target /unused -b null --clients 4 --mpi -q --json "$tmp/two.json"
same_ops() { pycheck '
import json, sys
a = json.load(open(sys.argv[2])); b = json.load(open(sys.argv[3]))
assert a["op_counts"] == b["op_counts"], (a["op_counts"], b["op_counts"])
assert a["total_ops"] == b["total_ops"] and a["clients"] == b["clients"] == 4
assert a["failures"] == b["failures"] and a["mismatches"] == b["mismatches"]
assert [c["dir"] for c in a["client_results"]] == [c["dir"] for c in b["client_results"]]
' "$1" "$2"; }
if same_ops "$tmp/one.json" "$tmp/two.json"; then ok "null: 4 clients over 2 ranks = 4 clients in one process"; else sed 's/^/# /' "$tmp/py"; not_ok "null: 4 clients over 2 ranks = 4 clients in one process"; fi
timeout 120 "$reprise" replay "$load" --target "$t1" --clients 4 -q --json "$tmp/pone.json" >/dev/null 2>&1
mpi 2 "$reprise" replay "$load" --target "$t2" --clients 4 --mpi -q --json "$tmp/ptwo.json"
if same_ops "$tmp/pone.json" "$tmp/ptwo.json"; then ok "posix on tmpfs: 4 clients over 2 ranks = 4 clients in one process"; else sed 's/^/# /' "$tmp/py"; not_ok "posix on tmpfs: 4 clients over 2 ranks = 4 clients in one process"; fi
if [ -d "$t2/client1" ] && [ -d "$t2/client4" ] && [ ! -e "$t2/client5" ]; then ok "each rank made its own copies' directories"; else ls "$t2" | sed 's/^/# /'; not_ok "each rank made its own copies' directories"; fi

# 2b. A trace's own clients dealt across ranks (c1 and c3 of an NFSv4.1 session) count what one process does.
trace=$REPRISE_SOURCE_ROOT/tests/data/rpz/v1.0-nfs41-session.rpz
timeout 120 "$reprise" replay "$trace" --target /unused -b null -q --json "$tmp/tone.json" >/dev/null 2>&1
mpi 2 "$reprise" replay "$trace" --target /unused -b null --mpi -q --json "$tmp/ttwo.json"
same_trace() { pycheck '
import json, sys
a = json.load(open(sys.argv[2])); b = json.load(open(sys.argv[3]))
assert a["op_counts"] == b["op_counts"] and a["total_ops"] == b["total_ops"] > 0, (a["op_counts"], b["op_counts"])
assert a["failures"] == b["failures"] and a["mismatches"] == b["mismatches"], (a["mismatches"], b["mismatches"])
assert sorted(c["trace_client"] for c in a["client_results"]) == sorted(c["trace_client"] for c in b["client_results"])
assert [r["clients"] for r in b["mpi"]["per_rank"]] == [1, 1]
assert a["prepare"]["files"] == b["prepare"]["files"] and a["prepare"]["dirs"] == b["prepare"]["dirs"]
' "$1" "$2"; }
if same_trace "$tmp/tone.json" "$tmp/ttwo.json"; then ok "null: a trace's 2 clients over 2 ranks = one process"; else sed 's/^/# /' "$tmp/py"; not_ok "null: a trace's 2 clients over 2 ranks = one process"; fi
rm -rf "$t1"/* "$t2"/*
timeout 120 "$reprise" replay "$trace" --target "$t1" -q --json "$tmp/tpone.json" >/dev/null 2>&1
mpi 2 "$reprise" replay "$trace" --target "$t2" --mpi -q --json "$tmp/tptwo.json"
if same_trace "$tmp/tpone.json" "$tmp/tptwo.json"; then ok "posix, one shared target prepared once: the same counts and mismatches as one process"; else sed 's/^/# /' "$tmp/py"; not_ok "posix, one shared target prepared once"; fi
mpi 3 "$reprise" replay "$trace" --target /unused -b null --mpi -q
rc=$?
if [ $rc = 2 ] && grep -q 'rank 0 .*2 clients for 3 shares' "$tmp/err" && grep -q 'and 2 more ranks the same' "$tmp/err"; then ok "fewer trace clients than ranks: exit 2, said once"; else not_ok "fewer trace clients than ranks (exit $rc)"; fi

# 3. A rank that cannot use its target (rank 1's copy 2 is a file there) is named; the job ends with 1.
rm -rf "$t2"/*
: >"$t2/client2"
mpi 2 "$reprise" replay "$load" --target "$t2" --clients 2 --mpi -q
rc=$?
if [ $rc != 0 ] && [ $rc != 124 ]; then ok "a failing rank: an error exit ($rc), no hang"; else not_ok "a failing rank: an error exit (got $rc)"; fi
has "a failing rank is named" err 'setup: rank 1 \(.*\): .*client2'

# 4. A rank killed mid-run: mpirun ends the job with an error, not a hang (timeout bounds it).
rm -rf "$t2"/*
timeout 120 mpirun -np 2 "$reprise" replay "$load" --target "$t2" --clients 2 --mpi -q -t 60 >"$tmp/out" 2>"$tmp/err" &
pid=$!
ranks=
for _ in $(seq 300); do
	# the run has started once both ranks prepared their copies' directories
	if [ -d "$t2/client1" ] && [ -d "$t2/client2" ]; then
		mpirun_pid=$(pgrep -P "$pid" -x mpirun)
		ranks=$(pgrep -P "${mpirun_pid:-0}" -x reprise | tr '\n' ' ')
		[ "$(echo $ranks | wc -w)" = 2 ] && break
	fi
	sleep 0.1
done
# What the job listens on (docs/mpi.md): the ranks on nothing but loopback; mpirun's runtime (OOB) on
# 127.0.0.1; Debian's PMIx 4.2 in mpirun also opens its tool listeners on every address (noted).
ss -ltnpH 2>/dev/null | grep -E "pid=($(echo $ranks | tr ' ' '|')0)," >"$tmp/listen" || true
ss -ltnpH 2>/dev/null | grep -E "pid=${mpirun_pid:-0}," >"$tmp/listen_mpirun" || true
if [ -n "$ranks" ]; then
	kill -9 $(echo $ranks | cut -d' ' -f2)
	wait "$pid"
	rc=$?
	pid=
	if [ $rc != 0 ] && [ $rc != 124 ]; then ok "a killed rank: the job ends with an error ($rc), not a hang"; else not_ok "a killed rank: exit $rc"; fi
	has "a killed rank: mpirun says which" err 'rank 1|signal 9|Killed'
else
	not_ok "a killed rank: the ranks never started"
	not_ok "a killed rank: mpirun says which"
fi
if ! command -v ss >/dev/null 2>&1; then
	ok "the ranks listen on loopback only # skip no ss (iproute2)"
	ok "mpirun's runtime listens on 127.0.0.1 # skip no ss (iproute2)"
elif ! grep -Evq '127\.0\.0\.1:|\[::1\]:' "$tmp/listen"; then ok "the ranks listen on loopback only ($(wc -l <"$tmp/listen") sockets)"; else sed 's/^/# /' "$tmp/listen"; not_ok "the ranks listen on loopback only"; fi
if ! command -v ss >/dev/null 2>&1; then :
elif grep -q '127\.0\.0\.1:' "$tmp/listen_mpirun"; then ok "mpirun's runtime listens on 127.0.0.1"; else sed 's/^/# /' "$tmp/listen_mpirun"; not_ok "mpirun's runtime listens on 127.0.0.1"; fi
grep -Ev '127\.0\.0\.1:' "$tmp/listen_mpirun" | sed "s/^/# note: mpirun also listens$([ "${REPRISE_IN_NETNS:-}" = 1 ] && echo ' (in this test'"'"'s own network namespace: lo only)'): /"

# 5. What --mpi refuses, on every rank alike (exit 2, rank 0 says why).
mpi 2 "$reprise" replay "$load" --target /unused -b null --mpi -q
rc=$?
if [ $rc = 2 ] && grep -q '1 client for 2 shares' "$tmp/err"; then ok "one client without --clients over 2 ranks: exit 2"; else not_ok "one client without --clients over 2 ranks (exit $rc)"; fi
mpi 4 "$reprise" replay "$load" --target /unused -b null --clients 3 --mpi -q
rc=$?
if [ $rc = 2 ] && grep -q 'fewer than the 4 ranks' "$tmp/err"; then ok "fewer copies than ranks: exit 2"; else not_ok "fewer copies than ranks (exit $rc)"; fi
mpi 2 "$reprise" replay "$load" --target /unused -b null --clients 2 --order=resource --mpi -q
rc=$?
if [ $rc = 2 ] && grep -q 'order=resource does not hold across ranks' "$tmp/err"; then ok "--order=resource: exit 2"; else not_ok "--order=resource (exit $rc)"; fi
# Ranks started with other arguments (MPMD) are named.
timeout 120 mpirun -np 1 "$reprise" replay "$load" --target /unused -b null --clients 2 --mpi -q : \
	-np 1 "$reprise" replay "$load" --target /unused -b null --clients 2 --mpi -q -t 1 >"$tmp/out" 2>"$tmp/err"
rc=$?
if [ $rc = 2 ] && grep -q 'rank 1 .*started with other arguments' "$tmp/err"; then ok "ranks with other arguments: exit 2, named"; else not_ok "ranks with other arguments (exit $rc)"; fi

echo "1..$n"
