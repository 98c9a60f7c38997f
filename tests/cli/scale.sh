#!/bin/sh
# convert --scale-space N (TAP, issue 27 point 3): 8 copies of client.txt (its head), the pgbench and
# bonnie++ samples (bonnie's metadata ops) and an SMB and an NFS capture, each replayed on tmpfs
# with no more failures and mismatches than 8 times the unscaled trace's (0 new errors) and no
# unknown handle or escape; every copy's paths under its own /client<k>, the shared files shared
# within a copy only; the copies de-synchronised (the mean correlation of their per-100 ms op
# counts, tests/cli/scale_corr.py, and every pair at most 0.1, at seeds 0 to 9, and convert's
# summary saying the same), --lockstep in step (about 1); the same seed the
# same bytes, another seed other offsets; an untimed loadfile's copies begin with a sleep; bad counts.
#   scale.sh REPRISE SRCDIR
set -u
reprise=$1
src=$2
tmp=$(mktemp -d "${TMPDIR:-/tmp}/reprise-scale-XXXXXX") || exit 1
. "${0%/*}/../lib/tap.sh"
run=$(tap_tmpfs scale) || exit 1
trap 'rm -rf "$tmp" "$run"' EXIT INT TERM
check() { if [ "$2" = "$3" ]; then ok "$1"; else echo "# got '$2', want '$3'"; not_ok "$1"; fi; }
corr="$src/tests/cli/scale_corr.py"
echo "1..46"

# replayed TRACE: "ops failures mismatches unknown_handles escapes" of an afap replay into an empty tmpfs directory
replayed() {
	rm -rf "$run/t"
	mkdir "$run/t"
	"$reprise" replay -q "$1" --target "$run/t" --json "$tmp/r.json" >/dev/null 2>"$tmp/replay.err" || { echo "replay failed"; return; }
	python3 -c 'import json, sys
d = json.load(open(sys.argv[1]))
print(d["total_ops"], d["failures"], d["mismatches"], d["unknown_handles"], d["escapes"])' "$tmp/r.json"
}
# ids_per_copy STDERR: the client ids a copy takes, from the summary line
ids_per_copy() { sed -n 's/^scale: [0-9]* copies, client ids + \([0-9]*\) a copy.*/\1/p' "$1"; }
# summary_corr STDERR: "WORST MEAN PAIRS" from convert's correlation line (scale_corr.py's order)
summary_corr() {
	sed -n 's/^scale: correlation of the copies.* mean \(-*[0-9.]*\), worst pair \(-*[0-9.]*\), over \([0-9]*\) pairs.*/\2 \1 \3/p' "$1"
}

# scaled NAME TRACE: --scale-space 8 of TRACE, replayed and compared with TRACE's replay (4 tests),
# then its copies' correlation (convert's and scale_corr.py's) and --lockstep's (3 tests)
scaled() {
	name=$1 in=$2
	"$reprise" convert "$in" --scale-space 8 "$tmp/$name.8.rpz" 2>"$tmp/$name.err" || not_ok "$name: convert"
	base=$(replayed "$in") big=$(replayed "$tmp/$name.8.rpz")
	echo "# $name: unscaled $base; 8 copies $big"
	set -- $base
	b_ops=$1 b_fail=$2 b_mis=$3
	set -- $big
	check "$name: 8 copies replay 8 times the ops" "$1" "$((8 * b_ops))"
	check "$name: no new failure (at most 8 x $b_fail)" "$([ "$2" -le $((8 * b_fail)) ] && echo yes || echo "$2")" yes
	check "$name: no new mismatch (at most 8 x $b_mis)" "$([ "$3" -le $((8 * b_mis)) ] && echo yes || echo "$3")" yes
	check "$name: no unknown handle, no escape" "$4 $5" "0 0"
	per=$(ids_per_copy "$tmp/$name.err")
	"$reprise" cat "$tmp/$name.8.rpz" >"$tmp/$name.8.txt"
	r=$(python3 "$corr" "$tmp/$name.8.txt" "$per" 8)
	echo "# $name: de-synchronised: $r"
	check "$name: the copies' mean and worst-pair correlation are at most 0.1" \
		"$(echo "$r" | awk '{ print ($2 <= 0.1 && $4 <= 0.1 && $6 > 0) ? "yes" : $0 }')" yes
	check "$name: convert's summary gives the same correlation" "$(summary_corr "$tmp/$name.err")" \
		"$(echo "$r" | awk '{ print $2, $4, $6 }')"
	"$reprise" convert -q "$in" --scale-space 8 --lockstep "$tmp/$name.l.rpz"
	"$reprise" cat "$tmp/$name.l.rpz" >"$tmp/$name.l.txt"
	r=$(python3 "$corr" "$tmp/$name.l.txt" "$per" 8)
	echo "# $name: --lockstep: $r"
	check "$name: --lockstep keeps them in step (correlation over 0.99)" \
		"$(echo "$r" | awk '{ print ($4 > 0.99) ? "yes" : $0 }')" yes
}

# the samples: pgbench (8172 ops, 13 processes) and bonnie++'s metadata ops (its 2.1 million
# reads and writes, a byte at a time, are left out to keep the replay short)
scaled pgbench "$src/samples/syscall/pgbench.rpz"
"$reprise" convert -q "$src/samples/syscall/bonnie.rpz" --ops open,close,stat,unlink,mkdir,rmdir,readdir,flush,fork,wait \
	"$tmp/bonnie.rpz"
scaled bonnie "$tmp/bonnie.rpz"
# captures: SMB2 (228 ops over 20 s) and NFSv4.1 (518 ops, two clients)
"$reprise" convert -q "$src/tests/data/pcap/suricata-verify__smb2-01__smb2-peter.pcap" "$tmp/smb.rpz"
scaled smb "$tmp/smb.rpz"
"$reprise" convert -q "$src/tests/data/pcap/nfstrace__eth-ipv4-tcp-nfsv41.pcap" "$tmp/nfs.rpz"
scaled nfs "$tmp/nfs.rpz"

# every seed 0..9, every trace: the mean and every pair at most 0.1, by convert's measure and by
# scale_corr.py's reading of the output (the copies' op counts per bin: counts, not timings)
for name in pgbench bonnie smb nfs; do
	bad="" in="$tmp/$name.rpz"
	[ $name = pgbench ] && in="$src/samples/syscall/pgbench.rpz"
	for seed in 0 1 2 3 4 5 6 7 8 9; do
		"$reprise" convert "$in" --scale-space 8 --seed $seed "$tmp/s.rpz" 2>"$tmp/s.err" || bad="$bad $seed:convert"
		"$reprise" cat "$tmp/s.rpz" >"$tmp/s.txt"
		r=$(python3 "$corr" "$tmp/s.txt" "$(ids_per_copy "$tmp/s.err")" 8 | awk '{ print $2, $4, $6 }')
		echo "# $name seed $seed: worst mean pairs $r (convert: $(summary_corr "$tmp/s.err"))"
		[ "$r" = "$(summary_corr "$tmp/s.err")" ] || bad="$bad $seed:differ"
		set -- $r
		awk -v w="$1" -v m="$2" -v p="$3" 'BEGIN { exit !(w <= 0.1 && m <= 0.1 && p > 0) }' || bad="$bad $seed:$1/$2"
	done
	check "$name: seeds 0-9 each keep every pair of copies at most 0.1" "${bad:-none}" none
done

"$reprise" cat "$src/samples/syscall/pgbench.rpz" >"$tmp/pg.txt"
# namespaces: copy k's paths under /client<k> (its clients' by client id); as many distinct paths as 8 originals
check "pgbench: every path of copy k is under /client<k>" "$(python3 -c 'import re, sys
bad = 0
per = int(sys.argv[2])
for line in open(sys.argv[1]):
    f = line.split(" ", 4)
    k = int(f[2][1:]) // per + 1
    for p in re.findall(r"\bpath2?=\"([^\"]*)\"", line):
        bad += not (p == "/client%d" % k or p.startswith("/client%d/" % k))
print(bad)' "$tmp/pgbench.8.txt" "$(ids_per_copy "$tmp/pgbench.err")")" 0
# dependencies: within each copy every start and end keeps its place among the others (offset and
# jittered clock both keep order), so what ended before an op began in the original still does
check "pgbench: in every copy, what ended before an op began still does" "$(python3 -c 'import sys
def times(f, per=None):
    out = {}
    for line in open(f):
        a = line.split(" ", 3)
        if a[2] == "-" or line.split(" ", 4)[3] == "sleep":
            continue
        s = float(a[0]); e = float(a[1]) if a[1] != "-" else s
        k = int(a[2][1:]) // per if per else 0
        out.setdefault(k, []).append((s, e))
    return out
orig = times(sys.argv[1])[0]
per = int(sys.argv[3])
bad = 0
for k, ops in times(sys.argv[2], per).items():
    assert len(ops) == len(orig)
    prev = -1.0
    for t, w, i in sorted((t, w, i) for i, (s, e) in enumerate(orig) for w, t in ((0, s), (1, e))):
        v = ops[i][w]
        bad += v < prev - 1e-9
        prev = max(prev, v)
print(bad)' "$tmp/pg.txt" "$tmp/pgbench.8.txt" "$(ids_per_copy "$tmp/pgbench.err")")" 0
paths() { grep -o 'path="[^"]*"' "$1" | sort -u | wc -l; }
check "pgbench: 8 times the distinct paths (shared within a copy, never across)" "$(paths "$tmp/pgbench.8.txt")" \
	"$((8 * $(paths "$tmp/pg.txt")))"

# deterministic: the same seed, the same bytes; another seed, other offsets
"$reprise" convert -q "$src/samples/syscall/pgbench.rpz" --scale-space 8 "$tmp/again.rpz"
check "the same seed gives the same output" "$(cmp -s "$tmp/again.rpz" "$tmp/pgbench.8.rpz" && echo same)" same
"$reprise" convert "$src/samples/syscall/pgbench.rpz" --scale-space 8 --seed 7 "$tmp/seed7.rpz" 2>"$tmp/seed7.err"
check "another seed, other offsets" "$(cmp -s "$tmp/seed7.rpz" "$tmp/pgbench.8.rpz" || echo other)" other
check "the summary says the seed" "$(grep -c 'drawn from seed 7 within' "$tmp/seed7.err")" 1

# an untimed loadfile: the copies' offsets become a sleep first in each client
client_txt=/usr/share/dbench/client.txt
if [ -r "$client_txt" ]; then
	head -n 4000 "$client_txt" >"$tmp/client.txt"
	"$reprise" convert "$tmp/client.txt" --scale-space 8 "$tmp/c0.rpz" 2>"$tmp/c0.err"
	check "client.txt without --scale-spread: a warning that its copies start together" \
		"$(grep -c 'warning: the trace is untimed: its copies start together' "$tmp/c0.err")" 1
	"$reprise" convert "$tmp/client.txt" --scale-space 8 --scale-spread 2 "$tmp/c8.rpz" 2>"$tmp/c8.err"
	"$reprise" cat "$tmp/c8.rpz" >"$tmp/c8.txt"
	check "client.txt: each copy's client begins with a sleep, 7 of them apart within 2 s" "$(awk '
		!seen[$3]++ { if ($4 == "sleep") { n++; len[$0] } }
		END { print n }' "$tmp/c8.txt") $(awk '$4 == "sleep" { v = $5; sub("len=", "", v); v += 0; if (v > 0 && v < 2e9) n++ } END { print n }' "$tmp/c8.txt")" \
		"7 7"
	base=$(replayed "$tmp/client.txt") big=$(replayed "$tmp/c8.rpz")
	echo "# client.txt (4000 lines): unscaled $base; 8 copies $big"
	set -- $base
	b_ops=$1 b_fail=$2 b_mis=$3
	set -- $big
	check "client.txt: 8 copies replay 8 times the ops (the sleeps are not counted)" "$1" "$((8 * b_ops))"
	check "client.txt: no new failure, no new mismatch" "$2 $3" "$((8 * b_fail)) $((8 * b_mis))"
	check "client.txt: no unknown handle, no escape" "$4 $5" "0 0"
else
	for i in 1 2 3 4 5; do skip "no $client_txt (Debian's dbench)"; done
fi

# bad counts and combinations: exit 2, no output
fails() {
	d=$1 msg=$2
	shift 2
	"$@" >/dev/null 2>"$tmp/err"
	rc=$?
	if [ $rc -eq 2 ] && grep -qF -- "$msg" "$tmp/err" && [ ! -e "$tmp/bad.rpz" ]; then ok "$d"; else echo "# exit $rc:"; sed 's/^/# /' "$tmp/err"; not_ok "$d"; fi
}
fails "--scale-space 0" "--scale-space: 0 is out of range" "$reprise" convert "$tmp/smb.rpz" --scale-space 0 "$tmp/bad.rpz"
fails "--scale-space 1025" "--scale-space: 1025 is out of range" "$reprise" convert "$tmp/smb.rpz" --scale-space 1025 "$tmp/bad.rpz"
fails "--scale-space with --prepare" "--prepare and --scale-space" "$reprise" convert "$tmp/smb.rpz" --scale-space 2 --prepare "$tmp/bad.txt"
