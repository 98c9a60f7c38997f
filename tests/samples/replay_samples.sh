#!/bin/sh
# The recipes' traces in samples/syscall/ replay on an empty directory (TAP) with no mismatch but the
# documented ones (samples/README.md), all with the default --order auto and --max-inflight auto:
# dbench and the build at full speed (the build's waits order the compiler's outputs before ninja
# reads them), pgbench and bonnie++ at trace timing (their processes and threads also synchronise
# through a pid file they poll and semaphores, which no file trace shows: the recorded order of their
# ops on each file stands in for it, so a client that falls behind its schedule on a busy machine
# cannot reorder them).  auto picks that order itself: each trace's processes fork and wait for one
# another.  With --order client the pgbench and bonnie++ mismatches depend on how far a client falls
# behind (none on an idle machine, thousands on a busy one), so no case here shows them.
#   replay_samples.sh REPRISE SAMPLES_DIR
set -u
reprise=$1
dir=$2
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT INT TERM
. "${0%/*}/../lib/tap.sh"
# replay NAME TIMING ALLOWED: ALLOWED is a Python expression over each mismatch sample s that is
# true for the documented kinds (False: none allowed)
replay() {
	name=$1 timing=$2 allowed=$3
	rm -rf "$tmp/t"
	mkdir "$tmp/t"
	if ! timeout 300 "$reprise" replay "$dir/$name.rpz" --target "$tmp/t" --timing "$timing" -q \
		--json "$tmp/$name.json" >/dev/null 2>"$tmp/err"; then
		# a replay with mismatches exits 0 (they are reported); anything else is a failure
		not_ok "$name replays ($timing timing, the default order)"
		return
	fi
	ok "$name replays ($timing timing, the default order)"
	if python3 -c "import json, sys; d = json.load(open(sys.argv[1])); sys.exit(0 if d['order'] == 'resource' and d['order_auto'] and not d['order_fallback'] else 1)" \
		"$tmp/$name.json"; then
		ok "$name: --order auto chose resource"
	else
		not_ok "$name: --order auto chose resource"
	fi
	if python3 - "$tmp/$name.json" "$allowed" >"$tmp/err" 2>&1 <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
allowed = eval("lambda s: " + sys.argv[2])
bad = [s for s in d["mismatch_samples"] if not allowed(s)]
others = d.get("mismatch_other_kinds", 0)
print("ops", d["total_ops"], "mismatches", d["mismatches"], "unexpected", bad[:5])
sys.exit(1 if bad or others or d["total_ops"] == 0 else 0)
PY
	then ok "$name: no mismatch but the documented ones"; else not_ok "$name: no mismatch but the documented ones"; fi
}
replay dbench afap False
replay build afap False
# pg_ctl polls postmaster.pid until the server has written it (and after the stop until it is gone);
# bonnie++'s seek threads start on the main thread's semaphores and each unlinks the test file as it
# ends, microseconds apart.  With the recorded order kept on each path, each probe sees what it saw and
# the unlink that found the file finds it, however late a client runs: nothing is allowed.
replay pgbench trace False
replay bonnie trace False
echo "1..$n"
