#!/bin/sh
# replay --processes N (TAP): copies run in forked processes, merged as --mpi merges ranks, the same ops as threads;
# usage errors; a process killed mid-run ends the run with an error naming it, a killed process 0 takes the others.
#   procs.sh REPRISE
set -u
reprise=$1
tmp=$(mktemp -d "${TMPDIR:-/tmp}/reprise-procs-XXXXXX")
bg=
trap '[ -n "$bg" ] && kill -9 $bg 2>/dev/null; rm -rf "$tmp"' EXIT INT TERM
. "${0%/*}/../lib/tap.sh"
check() { if [ "$2" = "$3" ]; then ok "$1"; else echo "# got '$2', want '$3'"; not_ok "$1"; fi; }
json() { python3 -c "import json, sys; d = json.load(open(sys.argv[1])); print($2)" "$1"; }

client=/usr/share/dbench/client.txt
if [ ! -r "$client" ]; then
	echo "1..0 # SKIP no $client (Debian package dbench)"
	exit 0
fi
head -n 20000 "$client" >"$tmp/sub.txt"

# 1. Three copies in three processes do what three threads do: the same ops, no mismatch, three ranks
mkdir "$tmp/th" "$tmp/pr"
"$reprise" replay "$tmp/sub.txt" --target "$tmp/th" --clients 3 -q --json "$tmp/th.json" >/dev/null 2>"$tmp/err"
check "three copies as threads: exit 0" "$?" "0"
"$reprise" replay "$tmp/sub.txt" --target "$tmp/pr" --clients 3 --processes 3 --json "$tmp/pr.json" >"$tmp/pr.out" 2>"$tmp/err"
check "three copies as processes: exit 0" "$?" "0"
check "the same ops, counts by kind, no mismatch" "$(json "$tmp/pr.json" 'd["total_ops"], d["op_counts"], d["mismatches"]')" \
	"$(json "$tmp/th.json" 'd["total_ops"], d["op_counts"], d["mismatches"]')"
check "three ranks of one client each" "$(json "$tmp/pr.json" 'd["ranks"], [r["clients"] for r in d["mpi"]["per_rank"]]')" \
	"3 [1, 1, 1]"
if grep -q '^Ranks: 3' "$tmp/pr.out"; then ok "the table says the ranks"; else not_ok "the table says the ranks"; fi
check "each copy in its own directory" "$(ls "$tmp/pr" | sort | tr '\n' ' ')" "client1 client2 client3 "
mkdir "$tmp/p1"
"$reprise" replay "$tmp/sub.txt" --target "$tmp/p1" --processes 1 >"$tmp/p1.out" 2>&1
if [ $? = 0 ] && ! grep -q '^Ranks:' "$tmp/p1.out"; then ok "--processes 1 is this process's threads"; else not_ok "--processes 1 is this process's threads"; fi

# 2. Usage errors exit 2 and say why
rcs=
for args in "--processes 0" "--processes 257" "--processes 3 --clients 2" "--processes 2 --cleanup" \
	"--processes 2 --clients-from $tmp/sub.txt $tmp/sub.txt"; do
	rm -rf "$tmp/u" && mkdir "$tmp/u"
	# shellcheck disable=SC2086 # the words are the arguments
	"$reprise" replay "$tmp/sub.txt" --target "$tmp/u" $args -q >/dev/null 2>"$tmp/err.u"
	rcs="$rcs$?"
done
check "usage errors exit 2: 0 or 257 processes, more processes than copies, --cleanup, --clients-from" "$rcs" "22222"
"$reprise" replay "$tmp/sub.txt" --target "$tmp/u" --processes 3 --clients 2 -q >/dev/null 2>"$tmp/err"
if grep -q -- '--clients 2 is fewer than the 3 ranks' "$tmp/err"; then ok "more processes than copies is named"; else
	sed 's/^/# /' "$tmp/err"; not_ok "more processes than copies is named"; fi

# 3. A process killed mid-run: the run ends with an error naming it, exit 1, no hang
mkdir "$tmp/k"
timeout 120 "$reprise" replay "$client" --target "$tmp/k" --clients 2 --processes 2 -t 3 -q >/dev/null 2>"$tmp/err.k" &
bg=$!
kid=
k=0
while [ -z "$kid" ] && [ $k -lt 200 ]; do # timeout's child is process 0; its child, process 1
	r0=$(pgrep -P "$bg" | head -n 1)
	[ -n "$r0" ] && kid=$(pgrep -P "$r0" | head -n 1)
	[ -n "$kid" ] || sleep 0.05
	k=$((k + 1))
done
sleep 1 # into the run (a kill before it ends the run the same way)
[ -n "$kid" ] && kill -9 "$kid"
wait $bg
rc=$?
bg=
check "a process killed mid-run: exit 1 (not a hang: 124)" "$rc" "1"
if grep -q 'process 1 ended' "$tmp/err.k"; then ok "and the error names it"; else sed 's/^/# /' "$tmp/err.k"; not_ok "and the error names it"; fi

# 4. Process 0 killed: the others are killed with it (no replay left running on its own)
mkdir "$tmp/z"
"$reprise" replay "$client" --target "$tmp/z" --clients 3 --processes 3 -t 60 -q >/dev/null 2>&1 &
bg=$!
k=0
while [ "$(pgrep -f -- "--target $tmp/z" | wc -l)" -lt 3 ] && [ $k -lt 100 ]; do sleep 0.05; k=$((k + 1)); done
kill -9 $bg
wait $bg 2>/dev/null
bg=
k=0
while [ "$(pgrep -f -- "--target $tmp/z" | wc -l)" -gt 0 ] && [ $k -lt 100 ]; do sleep 0.05; k=$((k + 1)); done
check "process 0 killed -9: no process of the job is left" "$(pgrep -f -- "--target $tmp/z" | wc -l)" "0"
echo "1..$n"
