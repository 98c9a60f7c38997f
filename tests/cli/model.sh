#!/bin/sh
# reprise model and generate (TAP): client.txt and the pgbench sample modelled (the model's size
# against the .rpz's), generated twice with a seed (byte-identical), the op mix of each generated
# trace within 1 percentage point per op of the original's (stat --json of both), generated traces
# replayed on a temporary directory with 0 mismatches, corrupt and absurd models refused clearly.
#   model.sh REPRISE SRCDIR
set -u
reprise=$1
src=$2
tmp=$(mktemp -d "${TMPDIR:-/tmp}/reprise-model-XXXXXX") || exit 1
. "${0%/*}/../lib/tap.sh"
run=$(tap_tmpfs model) || exit 1
trap 'rm -rf "$tmp" "$run"' EXIT INT TERM
check() { if "$@" >"$tmp/out" 2>"$tmp/err"; then ok "$*"; else not_ok "$*"; fi; }
# mix DESCRIPTION A B: every op's share of A and B (stat --json, sleep aside) within 1 point
mix() {
	"$reprise" stat --json "$2" >"$tmp/a.json" && "$reprise" stat --json "$3" >"$tmp/b.json" &&
	if python3 - "$tmp/a.json" "$tmp/b.json" >"$tmp/out" <<'PY'
import json, sys
def shares(p):
    c = {k: v for k, v in json.load(open(p))["op_counts"].items() if k != "sleep"}
    t = sum(c.values()) or 1
    return {k: 100.0 * v / t for k, v in c.items()}
a, b = shares(sys.argv[1]), shares(sys.argv[2])
worst = max((abs(a.get(k, 0) - b.get(k, 0)), k) for k in set(a) | set(b))
print("largest difference %.3f points (%s)" % worst)
sys.exit(0 if worst[0] <= 1.0 else 1)
PY
	then sed 's/^/# /' "$tmp/out"; ok "$1"; else cat "$tmp/out"; not_ok "$1"; fi
}
# ratio DESCRIPTION MODEL TRACE PCT: the model is at most PCT % of the trace
ratio() {
	m=$(wc -c <"$2") t=$(wc -c <"$3")
	echo "# model $m bytes, trace $t bytes"
	if [ $((m * 100)) -le $((t * $4)) ]; then ok "$1"; else not_ok "$1"; fi
}
# replays DESCRIPTION TRACE: replay on a fresh directory with no mismatch and no error
replays() {
	rm -rf "$run/t" && mkdir "$run/t" &&
	"$reprise" replay --json "$tmp/r.json" "$2" --target "$run/t" >"$tmp/out" 2>"$tmp/err"
	rc=$?
	if [ "$rc" = 0 ] && grep -q 'mismatched 0' "$tmp/out"; then ok "$1"; else echo "# exit $rc"; tail -5 "$tmp/out" | sed 's/^/# /'; not_ok "$1"; fi
}
fails() {
	d=$1 msg=$2
	shift 2
	"$@" >/dev/null 2>"$tmp/err"
	rc=$?
	if [ "$rc" = 1 ] && grep -qF -- "$msg" "$tmp/err" && [ ! -e "$tmp/bad.rpz" ]; then ok "$d"; else
		echo "# exit $rc, want 1 and '$msg'"; sed 's/^/# /' "$tmp/err"
		not_ok "$d"
	fi
}
echo "1..31"

# 1. dbench's client.txt (458,344 ops): a model of at most 5 % of its .rpz, the same trace for a seed
client=/usr/share/dbench/client.txt
if [ -f "$client" ]; then
	"$reprise" convert -q "$client" "$tmp/client.rpz"
	check "$reprise" model -q "$tmp/client.rpz" -o "$tmp/client.json"
	ratio "client.txt: the model is at most 5 % of the .rpz" "$tmp/client.json" "$tmp/client.rpz" 5
	check "$reprise" generate -q --seed 7 "$tmp/client.json" -o "$tmp/g1.rpz"
	check "$reprise" generate -q --seed 7 "$tmp/client.json" -o "$tmp/g2.rpz"
	same "client.txt: the same seed gives the same bytes" "$tmp/g1.rpz" "$tmp/g2.rpz"
	mix "client.txt: the generated op mix within 1 point per op" "$tmp/client.rpz" "$tmp/g1.rpz"
	# the tree: listings of as many directories as the trace's (11; 14 parents in the model), not one per file,
	# and renames among a few names (the trace: 35 paths; before names they unlinked were reused: 4,277)
	"$reprise" cat "$tmp/g1.rpz" >"$tmp/g1.txt"
	nd=$(grep ' readdir ' "$tmp/g1.txt" | grep -- '-> OK' | grep -o 'path="[^"]*"' | sort -u | wc -l)
	nr=$(grep ' rename ' "$tmp/g1.txt" | grep -oE 'path2?="[^"]*"' | sort -u | wc -l)
	echo "# client.txt generated: $nd directories listed, $nr paths renamed"
	if [ "$nd" -ge 5 ] && [ "$nd" -le 30 ]; then ok "client.txt: successful listings of 5-30 directories ($nd)"; else not_ok "client.txt: listings of $nd directories"; fi
	if [ "$nr" -le 1000 ]; then ok "client.txt: renames name at most 1,000 paths ($nr)"; else not_ok "client.txt: renames name $nr paths"; fi
	# every unlock the trace has (258; 27 when a close of a locked handle took its lock along)
	"$reprise" cat "$tmp/client.rpz" >"$tmp/c.txt"
	lk=$(grep -c ' lock ' "$tmp/c.txt") ul=$(grep -c ' unlock ' "$tmp/c.txt")
	glk=$(grep -c ' lock ' "$tmp/g1.txt") gul=$(grep -c ' unlock ' "$tmp/g1.txt")
	echo "# client.txt: $lk locks, $ul unlocks; generated $glk, $gul"
	if [ "$glk" = "$lk" ] && [ "$gul" = "$ul" ]; then ok "client.txt: the trace's locks and unlocks, each"; else not_ok "client.txt: $glk locks, $gul unlocks generated"; fi
	# the replay of a part (its first 20000 lines): all of it is two minutes of a loaded machine
	head -n 20000 "$client" >"$tmp/part.txt"
	"$reprise" convert -q "$tmp/part.txt" "$tmp/part.rpz"
	"$reprise" model -q "$tmp/part.rpz" -o "$tmp/part.json"
	"$reprise" generate -q --seed 3 "$tmp/part.json" -o "$tmp/part-g.rpz"
	mix "client.txt's first 20000 lines: the op mix within 1 point" "$tmp/part.rpz" "$tmp/part-g.rpz"
	replays "client.txt's first 20000 lines: the generated trace replays with 0 mismatches" "$tmp/part-g.rpz"
else
	for i in 1 2 3 4 5 6 7 8 9 10 11 12; do ok "# SKIP no /usr/share/dbench/client.txt"; done
fi

# 2. the pgbench sample (timed, 13 processes): generated, replayed (prepare included) with no mismatch
pg=$src/samples/syscall/pgbench.rpz
check "$reprise" model -q "$pg" -o "$tmp/pg.json"
check "$reprise" generate -q --seed 11 "$tmp/pg.json" -o "$tmp/pg1.rpz"
"$reprise" generate -q --seed 11 "$tmp/pg.json" -o "$tmp/pg2.rpz"
same "pgbench: the same seed gives the same bytes" "$tmp/pg1.rpz" "$tmp/pg2.rpz"
"$reprise" generate -q --seed 12 "$tmp/pg.json" -o "$tmp/pg3.rpz"
if cmp -s "$tmp/pg1.rpz" "$tmp/pg3.rpz"; then not_ok "pgbench: another seed, another trace"; else ok "pgbench: another seed, another trace"; fi
mix "pgbench: the generated op mix within 1 point per op" "$pg" "$tmp/pg1.rpz"
replays "pgbench: the generated trace replays with 0 mismatches" "$tmp/pg1.rpz"
"$reprise" generate -q --seed 5 --clients 4 --duration 5s "$tmp/pg.json" -o "$tmp/pg4.rpz"
"$reprise" stat --json "$tmp/pg4.rpz" >"$tmp/out"
if python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); sys.exit(0 if d["clients"] <= 4 and 4 < d["duration_s"] <= 5.5 else 1)' "$tmp/out"; then
	ok "--clients 4 --duration 5s: at most 4 clients over about 5 s"; else not_ok "--clients 4 --duration 5s"; fi
replays "--clients 4 --duration 5s: replays with 0 mismatches" "$tmp/pg4.rpz"

# nfs3-write (43 ops, no close): its unlink takes the file still open, its open, write and unlink on one client
nfs=$src/samples/nfs3-write.rpz
"$reprise" model -q "$nfs" -o "$tmp/nfs.json" && "$reprise" generate -q "$tmp/nfs.json" -o "$tmp/nfs-g.rpz"
mix "nfs3-write: the generated op mix within 1 point per op" "$nfs" "$tmp/nfs-g.rpz"
nu=$("$reprise" cat "$tmp/nfs-g.rpz" | grep -c ' unlink ')
if [ "$nu" = 1 ]; then ok "nfs3-write: the one unlink is generated"; else not_ok "nfs3-write: $nu unlinks generated, not 1"; fi
replays "nfs3-write: the generated trace replays with 0 mismatches" "$tmp/nfs-g.rpz"

# smb2-small-files (one client, a 12.4 s idle gap across 12 chunks): the gaps of the last chunk laid out as
# drawn, not pressed against its end (ops at the same start as the client's previous op: the trace 32; 270 when
# the gap across the chunks' edge was cut like any other), and the last op at the span's end
smb=$src/samples/smb2-small-files.rpz
"$reprise" model -q "$smb" -o "$tmp/smb.json" && "$reprise" generate -q "$tmp/smb.json" -o "$tmp/smb-g.rpz"
same_start() { "$reprise" cat "$1" | awk '{c=$3; if ((c in p) && $1==p[c]) n++; p[c]=$1} END {print n+0}'; }
zt=$(same_start "$smb") zg=$(same_start "$tmp/smb-g.rpz")
echo "# smb2-small-files: $zt ops at their previous op's start, generated $zg"
if [ "$zg" -le $((zt * 2)) ]; then ok "smb2-small-files: at most twice the trace's ops at their previous start"; else not_ok "smb2-small-files: $zg ops at their previous start"; fi
lt=$("$reprise" cat "$smb" | tail -n 1 | cut -d' ' -f1) lg=$("$reprise" cat "$tmp/smb-g.rpz" | tail -n 1 | cut -d' ' -f1)
if [ "$lt" = "$lg" ]; then ok "smb2-small-files: the last op at the span's end ($lg s)"; else not_ok "smb2-small-files: last op at $lg s, the trace's $lt"; fi

# the dbench sample (syscalls, 24 fcntl locks and their unlocks over 2 chunks): every unlock generated
db=$src/samples/syscall/dbench.rpz
"$reprise" model -q "$db" -o "$tmp/db.json" && "$reprise" generate -q "$tmp/db.json" -o "$tmp/db-g.rpz"
"$reprise" cat "$tmp/db-g.rpz" >"$tmp/db-g.txt"
glk=$(grep -c ' lock ' "$tmp/db-g.txt") gul=$(grep -c ' unlock ' "$tmp/db-g.txt")
if [ "$glk" = 24 ] && [ "$gul" = 24 ]; then ok "dbench sample: 24 locks, 24 unlocks generated"; else not_ok "dbench sample: $glk locks, $gul unlocks generated"; fi

# 3. bad models: a clear error, no output
printf '{"format":"reprise-model"' >"$tmp/cut.json"
fails "a cut model" "cut.json: " "$reprise" generate "$tmp/cut.json" -o "$tmp/bad.rpz"
sed 's/"chunk_ns":[0-9]*/"chunk_ns":-5/' "$tmp/pg.json" >"$tmp/neg.json"
fails "a negative chunk" "chunk_ns: not an integer" "$reprise" generate "$tmp/neg.json" -o "$tmp/bad.rpz"
sed 's/"span_ns":[0-9]*/"span_ns":99999999999999999/' "$tmp/pg.json" >"$tmp/span.json"
fails "an absurd span" "span_ns: not an integer" "$reprise" generate "$tmp/span.json" -o "$tmp/bad.rpz"
sed 's/"rsize":\[/"rsize":[99,1,/' "$tmp/pg.json" >"$tmp/bucket.json"
fails "a bucket past 64" "rsize: first bucket" "$reprise" generate "$tmp/bucket.json" -o "$tmp/bad.rpz"
sed 's/"open":/"nosuchop":/' "$tmp/pg.json" >"$tmp/op.json"
fails "an unknown op" "unknown op \"nosuchop\"" "$reprise" generate "$tmp/op.json" -o "$tmp/bad.rpz"
rm -f "$tmp/s.json"
"$reprise" model - -o "$tmp/s.json" <"$pg" 2>"$tmp/err"
rc=$?
if [ "$rc" = 2 ] && grep -qF "reads its input twice" "$tmp/err" && [ ! -e "$tmp/s.json" ]; then ok "model -: a usage error (it reads TRACE twice)"; else not_ok "model -: a usage error"; fi
