#!/bin/sh
# reprise stat --diff A B (TAP): a trace against itself and against the loadfile it came from, two different
# captures (rows marked, the op-mix verdict, --diff-threshold's edge), a loadfile against a pcap, --ops and
# --check exit statuses, cut and corrupt inputs, usage errors, -o replaced only when complete, --json.
set -u
reprise=$1
src=$2
tmp=$(mktemp -d "${TMPDIR:-/tmp}/reprise-stat-diff-XXXXXX")
trap 'rm -rf "$tmp"' EXIT INT TERM
. "${0%/*}/../lib/tap.sh"
skip() { n=$((n + 1)); echo "ok $n - $1 # SKIP $2"; }
has() { # description file fixed-string
	if grep -qF -- "$3" "$2"; then ok "$1"; else echo "# no '$3' in:"; sed 's/^/# /' "$2"; not_ok "$1"; fi
}
check() { if [ "$2" = "$3" ]; then ok "$1"; else echo "# got '$2', want '$3'"; not_ok "$1"; fi; }
marked() { grep -c '^\*' "$1"; } # rows marked as differing
echo "1..43"

smb3=$src/tests/data/pcap/reprise__smb3-smbclient.pcap
locks=$src/tests/data/pcap/reprise__smb2-locks-smbtorture.pcap
zeek=$src/tests/data/pcap/zeek__smb_smb2_100_small_files.pcap
"$reprise" convert -q "$smb3" "$tmp/smb3.rpz" 2>/dev/null

# 1. A trace against itself: nothing marked, the same mix, --check passes
"$reprise" stat --diff --check "$tmp/smb3.rpz" "$tmp/smb3.rpz" >"$tmp/self.txt" 2>"$tmp/err"
check "a trace against itself: exit 0 with --check" "$?" "0"
check "and no row marked" "$(marked "$tmp/self.txt")" "0"
has "the verdict is the same mix" "$tmp/self.txt" "op mix: same (no share differs by more than 1.00 points; every op kind but sleep compared)"
has "the totals side by side, with B-A and %" "$tmp/self.txt" "  ops                            54                 54                0      0.00%"
has "the inter-arrival of the whole trace" "$tmp/self.txt" \
	"  all                0.385     0.385    13.789    13.789    13.789    13.789     1.742     1.742"

# 2. client.txt against the trace converted from it (dbench's loadfile, when installed)
client=/usr/share/dbench/client.txt
if [ -r "$client" ]; then
	"$reprise" convert -q "$client" "$tmp/client.rpz" 2>/dev/null
	"$reprise" stat --diff --check "$client" "$tmp/client.rpz" >"$tmp/client.txt" 2>"$tmp/err"
	check "client.txt against its trace: exit 0 with --check" "$?" "0"
	check "nothing differs" "$(marked "$tmp/client.txt")" "0"
	has "its op mix is listed with shares" "$tmp/client.txt" \
		"  read               124199       124199            0      0.00%   27.10%   27.10%    +0.00"
else
	for t in "client.txt against its trace" "nothing differs" "its op mix is listed with shares"; do skip "$t" "no $client"; done
fi

# 3. Two different captures: rows marked, the verdict names the kinds, exact numbers
"$reprise" stat --diff "$smb3" "$locks" >"$tmp/two.txt" 2>"$tmp/err"
check "two different captures: exit 0 without --check" "$?" "0"
has "ops differ, marked, with B-A and %" "$tmp/two.txt" "* ops                            54                 32              -22    -40.74%"
has "the clients differ" "$tmp/two.txt" "* clients                         1                  2               +1   +100.00%"
has "an op row with shares and points" "$tmp/two.txt" \
	"* close                  18            6          -12    -66.67%   31.03%   17.65%   -13.39"
has "a kind only B has" "$tmp/two.txt" "* lock                    0            4           +4          -    0.00%   11.76%   +11.76"
has "a share within the threshold is not marked" "$tmp/two.txt" \
	"  unlink                  2            1           -1    -50.00%    3.45%    2.94%    -0.51"
has "failures side by side" "$tmp/two.txt" "* write                           0                  2               +2          -"
has "recorded latency side by side (tshark's SRT for A's opens)" "$tmp/two.txt" \
	"* open                  18        10     1.010     0.441     4.237     1.223     4.237     1.223"
has "clients paired in id order, one B has alone" "$tmp/two.txt" "* -|c2                   -     0.270         -     1.156"
has "write sizes as rows" "$tmp/two.txt" "* 64 KiB                          1                  0               -1   -100.00%"
has "the verdict names what differs" "$tmp/two.txt" "op mix: differs by more than 1.00 points in open (+1.83) close (-13.39)"
"$reprise" stat --diff --check "$smb3" "$locks" >/dev/null 2>&1
check "--check: exit 1 when the mix differs" "$?" "1"
"$reprise" stat --diff --check --diff-threshold 13.38 "$smb3" "$locks" >"$tmp/t.txt" 2>&1
check "--diff-threshold just under the largest difference: still differs, in close alone" \
	"$? $(grep '^op mix:' "$tmp/t.txt")" \
	"1 op mix: differs by more than 13.38 points in close (-13.39) (every op kind but sleep compared)"
"$reprise" stat --diff --check --diff-threshold 13.4 "$smb3" "$locks" >/dev/null 2>&1
check "and just over it: the same" "$?" "0"

# 4. --ops restricts the comparison: the same pair, compared on the kinds both have in like shares
"$reprise" stat --diff --check --ops unlink,rmdir "$smb3" "$locks" >"$tmp/ops.txt" 2>&1
check "--ops unlink,rmdir: the same (50% each side), exit 0" "$? $(grep '^op mix:' "$tmp/ops.txt")" \
	"0 op mix: same (no share differs by more than 1.00 points; ops compared: unlink,rmdir)"
check "only the listed kinds have rows" "$(grep -cE '^[ *] (open|close|lock) ' "$tmp/ops.txt")" "0"
"$reprise" stat --diff --check --ops read,write,unlink,rename,mkdir,rmdir "$smb3" "$locks" >/dev/null 2>&1
check "--ops read,write,...: differs, exit 1" "$?" "1"

# 5. A loadfile against a packet capture: the same workload (samples/ holds the loadfile made from it)
"$reprise" stat --diff --check "$src/samples/smb2-small-files.txt" "$zeek" >"$tmp/lp.txt" 2>/dev/null
check "a loadfile against its capture: the same op mix" "$? $(grep '^op mix:' "$tmp/lp.txt" | cut -c1-12)" "0 op mix: same"
has "the loadfile is untimed, the capture timed: marked" "$tmp/lp.txt" "* duration (s)              untimed             12.494"

# 6. Cut and corrupt second inputs, and usage errors
size=$(stat -c %s "$tmp/smb3.rpz")
head -c $((size / 2)) "$tmp/smb3.rpz" >"$tmp/cut.rpz"
"$reprise" stat --diff "$tmp/smb3.rpz" "$tmp/cut.rpz" >"$tmp/out" 2>"$tmp/err"
check "a cut second input: exit 1, nothing on stdout" "$? $(wc -c <"$tmp/out")" "1 0"
has "and it says which and why" "$tmp/err" "cut.rpz: the input was cut"
python3 -c 'import sys
d = bytearray(open(sys.argv[1], "rb").read())
for i in range(200, len(d) - 200, 97):
    d[i] ^= 0x55
open(sys.argv[2], "wb").write(d)' "$tmp/smb3.rpz" "$tmp/bad.rpz"
"$reprise" stat --diff "$tmp/smb3.rpz" "$tmp/bad.rpz" >"$tmp/out" 2>"$tmp/err"
check "a corrupt second input: exit 1, nothing on stdout, the error named" \
	"$? $(wc -c <"$tmp/out") $(grep -c 'bad.rpz: .*checksum' "$tmp/err")" "1 0 1"
rcs=""
for args in "--check $tmp/smb3.rpz" "--check-core $tmp/smb3.rpz" "--ops read $tmp/smb3.rpz" "--diff $tmp/smb3.rpz" "--diff --ops read,nope $tmp/smb3.rpz $tmp/smb3.rpz" \
	"--diff --timeline 1 $tmp/smb3.rpz $tmp/smb3.rpz" "--diff - -" "--diff --diff-threshold 101 $tmp/smb3.rpz $tmp/smb3.rpz"; do
	# shellcheck disable=SC2086 # the words are the arguments
	"$reprise" stat $args </dev/null >/dev/null 2>&1
	rcs="$rcs$?"
done
check "usage errors exit 2: --check, --check-core or --ops alone, one input, a bad op name, --timeline, - twice, a bad threshold" "$rcs" "22222222"

# 7. -o: written when complete (also when --check fails), left as it was when the run fails
echo old >"$tmp/keep.txt"
"$reprise" stat --diff -o "$tmp/keep.txt" "$tmp/smb3.rpz" "$tmp/cut.rpz" 2>/dev/null
check "-o with a failing input: exit 1, the old file kept, no temporary left" \
	"$? $(cat "$tmp/keep.txt") $(find "$tmp" -name 'keep.txt.part-*' | wc -l)" "1 old 0"
"$reprise" stat --diff --check -o "$tmp/keep.txt" "$smb3" "$locks" 2>/dev/null
check "-o with --check's mix differing: exit 1 and the report written whole" \
	"$? $(tail -n 2 "$tmp/keep.txt" | head -n 1 | cut -c1-15) $(tail -n 1 "$tmp/keep.txt" | cut -c1-16)" \
	"1 op mix: differs core ops: differ"

# 8. --json: both summaries and the diff, the verdict as --check sees it
"$reprise" stat --diff --json --ops unlink,rmdir,lock "$smb3" "$locks" >"$tmp/d.json" 2>"$tmp/err"
check "--json: a and b are stat --json of each, diff the differences" "$(python3 -c 'import json, sys
d = json.load(open(sys.argv[1])); x = d["diff"]
print(d["schema"], d["schema_version"], d["a"]["ops"], d["b"]["ops"], x["ops_compared"], x["mix_same"], x["mix_differs"],
      x["totals"]["ops"]["delta"], round(x["totals"]["ops"]["pct"], 4), round(x["op_counts"]["lock"]["share_b"], 4),
      sorted(x["op_counts"]))' "$tmp/d.json")" \
	"reprise-stat-diff 1 54 32 ['unlink', 'rmdir', 'lock'] False ['unlink', 'rmdir', 'lock'] -22 -40.7407 66.6667 ['lock', 'rmdir', 'unlink']"
"$reprise" stat --json "$smb3" >"$tmp/s.json" 2>/dev/null
check "a is what stat --json prints of A" "$(python3 -c 'import json, sys
a = json.load(open(sys.argv[1]))["a"]; s = json.load(open(sys.argv[2])); print(a == s)' "$tmp/d.json" "$tmp/s.json")" "True"

# 9. The inter-arrival gaps against cat's start times (an independent computation): mean and max exact
#    to the printed ns, p50 within the histogram's 1/16
"$reprise" cat "$smb3" 2>/dev/null >"$tmp/smb3.cat"
check "stat --json's inter-arrival is what cat's start times give" "$(python3 -c 'import json, sys
t = [float(l.split()[0]) for l in open(sys.argv[1]) if l.strip()]
g = sorted(max(0.0, b - a) * 1e3 for a, b in zip(t, t[1:]))
p50 = g[(len(g) + 1) // 2 - 1]
a = json.load(open(sys.argv[2]))["inter_arrival_ms"]["all"]
print(a["count"] == len(g), abs(a["mean"] - sum(g) / len(g)) < 1e-6, abs(a["max"] - g[-1]) < 1e-6,
      abs(a["p50"] - p50) <= p50 / 16)' "$tmp/smb3.cat" "$tmp/s.json")" "True True True True"

# 10. The closed loop: an SMB capture replayed on posix and traced (strace) is another protocol's words
#     for the same work: the op mix differs, the core ops and each file's order of them do not
"$reprise" stat --diff --check-core "$smb3" "$locks" >"$tmp/cl.txt" 2>"$tmp/err"
check "two different captures: --check-core exits 1" "$?" "1"
has "and the core verdict names what differs" "$tmp/cl.txt" "core ops: differ by more than 1.00% in"
if command -v strace >/dev/null 2>&1 && strace -o /dev/null true 2>/dev/null; then
	mkdir "$tmp/lt"
	strace -f -ttt -T -y -o "$tmp/loop.strace" "$reprise" replay "$tmp/smb3.rpz" --target "$tmp/lt" -q >/dev/null 2>&1
	"$reprise" convert -q --path-prefix "$tmp/lt" "$tmp/loop.strace" "$tmp/loop.rpz" 2>"$tmp/err"
	"$reprise" stat --diff --check-core "$tmp/smb3.rpz" "$tmp/loop.rpz" >"$tmp/loop.txt" 2>"$tmp/err"
	check "the SMB capture against its posix replay's strace: --check-core exits 0" "$?" "0"
	has "the core ops are the same" "$tmp/loop.txt" "core ops: same (each within 1.00% of A's; each file's in the same order in 100.00% of 5 files)"
	has "while the op mix differs" "$tmp/loop.txt" "op mix: differs"
	has "the replay's target is stripped to align the paths" "$tmp/loop.txt" "stripping 0 leading components from A, $(echo "$tmp/lt" | tr -s / '\n' | grep -c .) from B"
	"$reprise" stat --diff --json "$tmp/smb3.rpz" "$tmp/loop.rpz" >"$tmp/loop.json" 2>"$tmp/err"
	check "--json: the closed loop's verdict and counts" "$(python3 -c 'import json, sys
c = json.load(open(sys.argv[1]))["diff"]["closed_loop"]
print(c["core_same"], c["core_differs"], c["files"]["same_order"], c["core"]["deletes"]["a"], c["core"]["deletes"]["b"],
      c["core"]["bytes_written"]["ratio"])' "$tmp/loop.json")" "True [] 5 4 4 1.0"
else
	for t in "the posix replay's strace: --check-core exits 0" "the core ops are the same" "while the op mix differs" \
		"the target is stripped" "--json: the closed loop"; do skip "$t" "no working strace here"; done
fi
