#!/bin/sh
# Real runs under strace (TAP; skipped without strace or ptrace) of a shell script that forks,
# dups and copies: `strace -f` and `strace -ff` (its per-pid files merged by convert), converted
# and replayed on a tmpfs directory (/dev/shm) with no mismatch, the copy's bytes in place.
#   strace_share_run.sh REPRISE
set -u
reprise=$1
if ! command -v strace >/dev/null 2>&1; then
	echo "1..0 # SKIP strace is not installed"
	exit 0
fi
tmp=$(mktemp -d) || exit 1
# tmpfs where there is one (the replay's target); else TMPDIR
. "${0%/*}/../lib/tap.sh"
shm=$(tap_tmpfs share) || exit 1
trap 'rm -rf "$tmp" "$shm"' EXIT INT TERM
run() { timeout 60 "$@" >"$tmp/out" 2>"$tmp/err"; }
check() { desc=$1; shift; if run "$@"; then ok "$desc"; else not_ok "$desc"; fi; }
fails() { desc=$1; want=$2; shift 2; if run "$@"; then not_ok "$desc (it succeeded)"; elif grep -q -- "$want" "$tmp/err"; then ok "$desc"; else echo "# stderr lacks: $want"; not_ok "$desc"; fi; }

mkdir "$tmp/w"
if ! (cd "$tmp/w" && strace -f -ttt -T -y -o "$tmp/probe" true) 2>/dev/null; then
	echo "1..0 # SKIP strace cannot trace here (no ptrace)"
	exit 0
fi
# dup: exec 3> and >&3; fork: the subshell writes on the fd it inherits, closes it, the shell writes on;
# copy: cp uses copy_file_range (coreutils 9); the shell waits for each command.
cat >"$tmp/s.sh" <<'SH'
head -c 3000 /dev/zero | tr '\0' a > src
exec 3> log
echo parent >&3
( echo child >&3; exec 3>&- )
echo again >&3
cp src dst
exec 3>&-
SH
w=$(cd "$tmp/w" && pwd -P)

# Each replay: trace timing slowed 20x, so the shell's sequential commands keep their order (docs/strace.md).
replay_check() { # NAME TRACE
	rm -rf "$shm/t" && mkdir "$shm/t"
	check "$1: replay on tmpfs" "$reprise" replay "$2" --target "$shm/t" -q --timing trace --speed 0.05 --json "$tmp/r.json"
	if python3 - "$tmp/r.json" >"$tmp/out" 2>&1 <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
ops = d["ops"]
print("mismatches", d["mismatches"], d["mismatch_samples"], "unknown", d["unknown_handles"],
      {k: ops[k]["count"] for k in ("dup", "copy", "fork") if k in ops})
sys.exit(0 if d["mismatches"] == 0 and all(ops.get(k, {}).get("count", 0) > 0 for k in ("dup", "copy", "fork")) else 1)
PY
	then ok "$1: no mismatch, dup, copy and fork replayed"; else not_ok "$1: no mismatch, dup, copy and fork replayed"; fi
	# log: as long as the trace's writes to it reach (the importer keeps a position per fd, so writes
	# through a dup or an inherited fd carry the offset that fd's own calls moved it to: docs/strace.md)
	want=$("$reprise" cat "$2" | awk -v p="path=\"$w/log\"" '$4 == "write" && index($0, p) {
		for (i = 5; i <= NF; i++) { if ($i ~ /^off=/) o = substr($i, 5); if ($i ~ /^ret=/) r = substr($i, 5) }
		if (o + r > m) m = o + r } END { print m + 0 }')
	if [ "$(wc -c <"$shm/t$w/dst")" = 3000 ] && [ "$(wc -c <"$shm/t$w/log")" = "$want" ] && [ "$want" -gt 0 ]; then
		ok "$1: the copy and the writes through shared fds landed"
	else
		not_ok "$1: the copy and the writes through shared fds landed"
	fi
}

(cd "$tmp/w" && strace -f -ttt -T -y -o "$tmp/log" sh "$tmp/s.sh") >/dev/null 2>&1
check "-f: convert" "$reprise" convert "$tmp/log" "$tmp/f.rpz"
check "-f: cat" "$reprise" cat "$tmp/f.rpz"
has "-f: the subshell is forked" out "c1 fork ret=[0-9]+"
has "-f: exec 3> dups" out "dup path=\"$w/log\""
has "-f: cp copies" out "copy path=\"$w/src\" path2=\"$w/dst\""
replay_check "-f" "$tmp/f.rpz"

rm -f "$tmp/w/src" "$tmp/w/dst" "$tmp/w/log"
(cd "$tmp/w" && strace -ff -ttt -T -y -o "$tmp/run" sh "$tmp/s.sh") >/dev/null 2>&1
set -- "$tmp"/run.*
check "-ff: convert PREFIX (its PREFIX.PID files)" "$reprise" convert "$tmp/run" "$tmp/ff.rpz"
has "-ff: the summary counts the files" err "-ff files merged"
check "-ff: convert the files named" "$reprise" convert "$@" "$tmp/ff2.rpz"
if cmp -s "$tmp/ff.rpz" "$tmp/ff2.rpz"; then ok "-ff: both give one trace"; else not_ok "-ff: both give one trace"; fi
check "-ff: cat" "$reprise" cat "$tmp/ff.rpz"
has "-ff: fork results link the files" out "c1 fork ret=[2-9]"
has "-ff: a child's ops are its own client" out "c[2-9] "
has "-ff: cp copies" out "copy path=\"$w/src\" path2=\"$w/dst\""
replay_check "-ff" "$tmp/ff.rpz"
fails "-ff: a missing file is named" "$tmp/run.999999" "$reprise" convert "$1" "$tmp/run.999999" "$tmp/x.rpz"
cp "$1" "$tmp/run.first"
fails "-ff: a name without a pid is refused" "must end in .PID" "$reprise" convert "$1" "$tmp/run.first" "$tmp/x.rpz"
fails "-ff: a prefix with no files is not found" "No such file" "$reprise" convert "$tmp/none" "$tmp/x.rpz"
echo "1..$n"
