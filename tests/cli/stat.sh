#!/bin/sh
# reprise stat and cat -c (TAP): provenance, decode-quality counters, clients with their op counts
# (ids as cat and replay show them), recorded latency per op type against tshark's -z smb2,srt, human units.
set -u
reprise=$1
src=$2
tmp=$(mktemp -d "${TMPDIR:-/tmp}/reprise-stat-XXXXXX")
trap 'rm -rf "$tmp"' EXIT INT TERM
. "${0%/*}/../lib/tap.sh"
has() { # description file fixed-string
	if grep -qF -- "$3" "$2"; then ok "$1"; else echo "# no '$3' in:"; sed 's/^/# /' "$2"; not_ok "$1"; fi
}
check() { if [ "$2" = "$3" ]; then ok "$1"; else echo "# got '$2', want '$3'"; not_ok "$1"; fi; }
echo "1..40"

cap=$src/tests/data/pcap/reprise__smb3-smbclient.pcap
locks=$src/tests/data/pcap/reprise__smb2-locks-smbtorture.pcap
"$reprise" stat "$cap" >"$tmp/st.txt" 2>/dev/null
has "the input" "$tmp/st.txt" "input       reprise__smb3-smbclient.pcap"
has "the start time (UTC)" "$tmp/st.txt" "start       2026-12-01 09:08:44.981110000 UTC"
has "the capture's decode counters" "$tmp/st.txt" \
	"decode      frames 137, messages 125, truncated 0, invalid 0, unsupported 1, unmatched 0, encrypted 0, gaps 0"
has "human units: bytes" "$tmp/st.txt" "written     68.4 KiB (70019 bytes)"
has "human units: duration" "$tmp/st.txt" "duration    92.396 ms"
# tshark 4.0 -z smb2,srt on this capture: Create 18 calls, min 0.000123, max 0.004237, avg 0.001010 s;
# Find 9, 0.000056, 0.001262, 0.000264 (the p99 of 18 or 9 replies is their maximum)
has "recorded latency of opens as tshark's SRT" "$tmp/st.txt" \
	"open                   18      0.123      1.010      4.237      4.237"
has "recorded latency of listings as tshark's SRT" "$tmp/st.txt" \
	"readdir                 9      0.056      0.264      1.262      1.262"
has "the client with its op count" "$tmp/st.txt" "c1                     54         19 B     68.4 KiB"

"$reprise" stat --json "$cap" >"$tmp/st.json" 2>/dev/null
check "JSON: provenance, decode, clients and latency" "$(python3 -c 'import json, sys
d = json.load(open(sys.argv[1]))
l = d["latency_ms"]["open"]
print(d["input"], d["start"], d["decode"]["frames"], d["decode"]["unsupported"], d["per_client"],
      l["count"], l["min"], l["max"], l["p99"])' "$tmp/st.json")" \
	"reprise__smb3-smbclient.pcap 2026-12-01T09:08:44.981110000Z 137 1 [{'client': 1, 'ops': 54, 'bytes_read': 19, 'bytes_written': 70019}] 18 0.123 4.237 4.237"

# The same ids in stat and cat, from the capture and from its .rpz (which has no decode counters)
"$reprise" convert -q "$locks" "$tmp/locks.rpz" 2>/dev/null
"$reprise" stat --json "$tmp/locks.rpz" >"$tmp/locks.json" 2>/dev/null
check "a trace's clients in stat" "$(python3 -c 'import json, sys
d = json.load(open(sys.argv[1]))
print(d["decode"], " ".join("c%d:%d" % (c["client"], c["ops"]) for c in d["per_client"]))' "$tmp/locks.json")" \
	"None c1:12 c2:20"
check "are cat's" "$("$reprise" cat "$tmp/locks.rpz" | awk '{ n[$3]++ } END { for (c in n) printf "%s:%d\n", c, n[c] }' | sort | tr '\n' ' ')" \
	"c1:12 c2:20 "

# cat -c filters a packet capture as it does a trace, and says when no op matched
"$reprise" cat -c 2 "$locks" >"$tmp/c2.txt" 2>"$tmp/err"
check "cat -c filters pcap input" "$(wc -l <"$tmp/c2.txt") $(awk '$3 != "c2"' "$tmp/c2.txt" | wc -l)" "20 0"
"$reprise" cat -c 2 "$tmp/locks.rpz" >"$tmp/c2r.txt" 2>/dev/null
check "as it filters the trace" "$(cmp -s "$tmp/c2.txt" "$tmp/c2r.txt" && echo same)" "same"
"$reprise" cat -c 9 "$locks" >"$tmp/c9.txt" 2>"$tmp/err"
rc=$?
check "no op of client 9: nothing printed, exit 0" "$(wc -l <"$tmp/c9.txt") $rc" "0 0"
has "and it says so" "$tmp/err" "no op of client 9"
"$reprise" cat -c 9 "$tmp/locks.rpz" >/dev/null 2>"$tmp/err"
has "also for a trace" "$tmp/err" "no op of client 9"

# A loadfile: its client, no decode counters, no latency (untimed)
"$reprise" stat "$src/tests/data/loadfile/smb_timed.load" >"$tmp/lf.txt" 2>/dev/null
check "a loadfile: client c1, no decode line, no latency table" \
	"$(grep -c '^c1 ' "$tmp/lf.txt") $(grep -c '^decode' "$tmp/lf.txt") $(grep -c 'recorded latency' "$tmp/lf.txt")" "1 0 0"

# replay names a mismatch's client as cat and stat do: the fault backend fails each client's first write
mkdir "$tmp/target"
"$reprise" replay -q -b fault -O fail=write@1 -D "$tmp/target" --json "$tmp/r.json" "$tmp/locks.rpz" >/dev/null 2>"$tmp/err"
# (samples are grouped by op, expected and actual: the write group holds both clients' writes, its first example c1's)
check "replay's mismatch samples carry the trace's client ids" "$(python3 -c 'import json, sys
d = json.load(open(sys.argv[1]))
print(["c%d x%d" % (s["trace_client"], s["count"]) for s in d["mismatch_samples"] if s["op"] == "write"])' "$tmp/r.json")" \
	"['c1 x2']"
has "and its messages name them so" "$tmp/err" "mismatch: 2 x write, expected OK, got EIO; first: client c1 op 2"

# stat says what replay's prepare makes: the same plan (formats/plan.h)
cap=$src/tests/data/pcap/zeek__smb_smb2_100_small_files.pcap
"$reprise" stat --json "$cap" >"$tmp/p.json" 2>/dev/null
mkdir "$tmp/ptarget"
"$reprise" convert -q "$cap" "$tmp/p.rpz" 2>/dev/null
"$reprise" replay -q -b null --target "$tmp/ptarget" --json "$tmp/pr.json" "$tmp/p.rpz" >/dev/null 2>&1
check "stat --json has the prepare plan replay runs" "$(python3 -c 'import json, sys
a = json.load(open(sys.argv[1]))["prepare"]; b = json.load(open(sys.argv[2]))["prepare"]
print(a == {"dirs": b["dirs"], "files": b["files"], "bytes": b["bytes"]}, a)' "$tmp/p.json" "$tmp/pr.json")" "True {'dirs': 1, 'files': 100, 'bytes': 292}"
"$reprise" stat "$cap" >"$tmp/p.txt" 2>/dev/null
check "and the text says it, sizes human-readable" "$(grep -c '^prepare  *1 directory, 100 files, 292 B:' "$tmp/p.txt")" "1"

# -o/--output: the output of every command, cat's and stat's too, renamed into place when complete
"$reprise" cat -o "$tmp/c.txt" "$tmp/p.rpz" 2>"$tmp/err"
check "cat -o writes the text form to the file" "$(grep -c ' -> ' "$tmp/c.txt")" "$("$reprise" cat "$tmp/p.rpz" | grep -c ' -> ')"
"$reprise" stat --json -o "$tmp/s.json" "$tmp/p.rpz" 2>"$tmp/err"
check "stat --json -o writes the JSON to the file" "$(python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))["ops"] > 0)' "$tmp/s.json")" "True"
cp "$tmp/p.rpz" "$tmp/same.rpz"
"$reprise" cat -o "$tmp/same.rpz" "$tmp/same.rpz" 2>"$tmp/err"
check "cat -o onto its own input is a usage error" "$?" "2"
check "and leaves the input as it was" "$(cmp -s "$tmp/p.rpz" "$tmp/same.rpz" && echo same)" "same"

# --timeline STEP (the phases) and --from/--until (a part), text and JSON, on a timed trace
"$reprise" stat --timeline 0.01 "$tmp/p.rpz" >"$tmp/tl.txt" 2>"$tmp/err"
has "stat --timeline prints its table" "$tmp/tl.txt" "timeline    0.01 s steps"
"$reprise" stat --json --timeline 0.01 "$tmp/p.rpz" >"$tmp/tl.json" 2>"$tmp/err"
check "its bins add up to the trace's ops" "$(python3 -c 'import json, sys
d = json.load(open(sys.argv[1])); print(sum(b["ops"] for b in d["timeline"]["bins"]) == d["ops"], d["timeline"]["step_s"])' "$tmp/tl.json")" "True 0.01"
half=$(python3 -c 'import json, sys; d = json.load(open(sys.argv[1])); print(d["duration_s"] / 2)' "$tmp/tl.json")
"$reprise" stat --json --until "$half" "$tmp/p.rpz" >"$tmp/a.json" 2>"$tmp/err"
"$reprise" stat --json --from "$half" "$tmp/p.rpz" >"$tmp/b.json" 2>"$tmp/err"
check "--until and --from split the ops between them" "$(python3 -c 'import json, sys
a, b, d = (json.load(open(f))["ops"] for f in sys.argv[1:]); print(a + b == d and a > 0 and b > 0)' "$tmp/a.json" "$tmp/b.json" "$tmp/tl.json")" "True"
"$reprise" stat --from 2 --until 1 "$tmp/p.rpz" >/dev/null 2>"$tmp/err"
check "--until before --from is a usage error" "$?" "2"
"$reprise" stat --timeline 0.000001 "$tmp/p.rpz" >/dev/null 2>"$tmp/err"
check "a step too short for the trace is an error, not a huge table" "$?" "1"
has "the library says what failed" "$tmp/err" "is past the last of its 100000 steps"
has "the command names the option to change" "$tmp/err" "reprise stat: --timeline 1e-06: use a longer step (a timeline holds 100000)"
# SMB makes a directory by a CREATE of one (FILE_DIRECTORY_FILE, FILE_CREATE): a mkdir in the op mix, as NFS's
# MKDIR; deletes done by a close share the mix with the records, so a row of them alone is not at 0.00 %.
smbc=$2/tests/data/pcap/reprise__smb3-smbclient.pcap
"$reprise" stat "$smbc" >"$tmp/smbc.txt" 2>/dev/null
check "SMB directory creates are mkdir" "$(grep -c '^mkdir  *2  *[0-9.]*%  *0   (all opens that create a directory: SMB)' "$tmp/smbc.txt")" "1"
check "delete-on-close unlinks have a share" "$(grep -c '^unlink  *2  *3\.45%  *0   (all done by a close: delete-on-close)' "$tmp/smbc.txt")" "1"
check "the shares add up to 100 %" "$(awk '/^op  +count +share/ { t = 1; next } t && /^$/ { t = 0 } t { sub("%", "", $3); s += $3 } END { printf "%.0f", s }' "$tmp/smbc.txt")" "100"
"$reprise" stat --json "$smbc" >"$tmp/smbc.json" 2>/dev/null
check "and in the JSON's op_counts" "$(python3 -c 'import json, sys; d = json.load(open(sys.argv[1])); print(d["op_counts"].get("mkdir"), d["op_counts"]["open"])' "$tmp/smbc.json")" "2 16"
"$reprise" stat --json --timeline 0.05 "$smbc" >"$tmp/smbtl.json" 2>/dev/null
check "the timeline counts them as mkdir too" "$(python3 -c 'import json, sys; d = json.load(open(sys.argv[1]))
bins = d["timeline"]["bins"]; print(sum(b["op_counts"].get("mkdir", 0) for b in bins), sum(b["op_counts"].get("open", 0) for b in bins))' "$tmp/smbtl.json")" "2 16"
check "and the deletes done by a close as unlink, as the summary does" "$(python3 -c 'import json, sys; d = json.load(open(sys.argv[1]))
bins = d["timeline"]["bins"]; print(sum(b["op_counts"].get("unlink", 0) for b in bins), d["op_counts"]["unlink"])' "$tmp/smbtl.json")" "2 2"
"$reprise" stat --timeline 0.002 "$smbc" >"$tmp/smbtl.txt" 2>/dev/null
check "and its text table" "$(grep -c '^ *0\.054 - *0\.056 *1 .* mkdir 1$' "$tmp/smbtl.txt")" "1"
"$reprise" stat --diff --json "$smbc" "$smbc" >"$tmp/smbd.json" 2>/dev/null
check "and stat --diff's op mix" "$(python3 -c 'import json, sys; d = json.load(open(sys.argv[1]))["diff"]["op_counts"]
print(d["mkdir"]["a"], d["open"]["b"])' "$tmp/smbd.json")" "2 16"
