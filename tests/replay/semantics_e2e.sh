#!/bin/sh
# One meaning per op, end to end (TAP): delete-on-close counted by stat and kept through an
# NFS-dialect loadfile; a capture replayed from .rpz and from its loadfile gives the same mismatches;
# a backslash separates SMB path components only.
set -u
reprise=$1
pcaps=$2
tmp=$(mktemp -d "${TMPDIR:-/tmp}/reprise-sem-e2e-XXXXXX")
trap 'rm -rf "$tmp"' EXIT
. "${0%/*}/../lib/tap.sh"
check() { if [ "$2" = "$3" ]; then ok "$1"; else echo "# got '$2', want '$3'"; not_ok "$1"; fi; }
echo "1..12"

# The mismatch groups (op, expected, actual) and the failure count of a replay, from its JSON.
groups() {
	python3 -c 'import json, sys
d = json.load(open(sys.argv[1]))
g = sorted("%s:%s:%s" % (s["op"], s["expected"], s["actual"]) for s in d.get("mismatch_samples", []))
print(d["mismatches"], d["failures"], ",".join(g))' "$1"
}
replay() { # trace json: on an empty target, prepared
	rm -rf "$tmp/target" && mkdir "$tmp/target"
	"$reprise" replay -q --json "$2" -D "$tmp/target" "$1" >/dev/null 2>"$tmp/err" || cat "$tmp/err" >&2
}

doc=zeek__smb_smb2.delete-on-close-perms-delete-existing.pcap
if ! "$reprise" convert -q "$pcaps/$doc" "$tmp/doc.rpz" 2>"$tmp/err" && grep -q 'built without libpcap' "$tmp/err"; then
	for i in 1 2 3 4 5 6 7 8 9 10 11 12; do echo "ok $i # SKIP needs libpcap"; done
	exit 0
fi
# 1-2: the session deletes test_create.dat twice and test_dir once, all by delete-on-close at open
"$reprise" stat --json "$pcaps/$doc" >"$tmp/stat.json" 2>/dev/null
check "stat counts the deletes done by a close" \
	"$(python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print(d["deleted_at_close"], d["op_counts"].get("unlink"), d["op_counts"].get("rmdir"))' "$tmp/stat.json")" \
	"{'unlink': 2, 'rmdir': 1} 2 1"
"$reprise" stat "$pcaps/$doc" >"$tmp/stat.txt" 2>/dev/null
check "the table says how" "$(grep -c 'by a close: delete-on-close' "$tmp/stat.txt")" "2"

# 3-5: an NFS-dialect loadfile keeps them (REMOVE3/RMDIR3 at the closes) and replays as the .rpz does
"$reprise" convert -q --dialect nfs "$tmp/doc.rpz" "$tmp/doc-nfs.txt" 2>/dev/null
check "the NFS loadfile removes the file twice" "$(grep -c '^REMOVE3 "/test_dir/test_create.dat"' "$tmp/doc-nfs.txt")" "2"
check "and the directory once" "$(grep -c '^RMDIR3 "/test_dir"' "$tmp/doc-nfs.txt")" "1"
replay "$tmp/doc.rpz" "$tmp/doc-rpz.json"
replay "$tmp/doc-nfs.txt" "$tmp/doc-nfs.json"
check "no mismatch from the .rpz nor the NFS loadfile" "$(groups "$tmp/doc-rpz.json" | cut -d' ' -f1) $(groups "$tmp/doc-nfs.json" | cut -d' ' -f1)" "0 0"

# 6-9: .rpz and SMB loadfile replays give the same mismatches (smb2-delete lost one to a rewritten FIND
# pattern; the delete-on-close session, whose loadfile records no create actions, needs prepare to see
# that an open-or-create of a directory with files in it found the directory there)
for cap in suricata-verify__smb2-delete__input.pcap "$doc"; do
	"$reprise" convert -q "$pcaps/$cap" "$tmp/c.rpz" 2>/dev/null
	"$reprise" convert -q --dialect smb "$tmp/c.rpz" "$tmp/c.txt" 2>/dev/null
	replay "$tmp/c.rpz" "$tmp/c-rpz.json"
	replay "$tmp/c.txt" "$tmp/c-txt.json"
	a=$(groups "$tmp/c-rpz.json")
	b=$(groups "$tmp/c-txt.json")
	check "$cap: the same mismatches from .rpz and loadfile" "$b" "$a"
	check "$cap: no mismatch" "$(echo "$a" | cut -d' ' -f1)" "0"
done

# 10-12: '\' separates SMB path components only: a producer writes SMB's '\' as '/', so in an NFS
# name it is a character like any other and the file "a\b" is replayed as one file of that name
printf '%s\n' '0.000000000 MKDIR3 "/d" 0x00000000' '0.001000000 CREATE3 "/d/a\b" 0 0x00000000' \
	'0.002000000 GETATTR3 "/d/a\b" 0x00000000' >"$tmp/bs-nfs.load"
replay "$tmp/bs-nfs.load" "$tmp/bs-nfs.json"
check "an NFS name with a backslash replays as one file" \
	"$(cd "$tmp/target" && find . -mindepth 1 | sort | tr '\n' ' ')$(groups "$tmp/bs-nfs.json")" './d ./d/a\b 0 0 '
"$reprise" cat "$tmp/bs-nfs.load" >"$tmp/bs-nfs.txt" 2>&1
check "cat shows the backslash as part of the name" "$(grep -c 'path="/d/a\\\\b"' "$tmp/bs-nfs.txt")" "2"
printf '%s\n' 'NTCreateX "\d" 0x1 0x2 1 NT_STATUS_OK' 'Close 1 NT_STATUS_OK' \
	'NTCreateX "\d\f" 0x40 0x2 2 NT_STATUS_OK' 'Close 2 NT_STATUS_OK' >"$tmp/bs-smb.load"
replay "$tmp/bs-smb.load" "$tmp/bs-smb.json"
check "an SMB loadfile path is still split at its backslashes" \
	"$(cd "$tmp/target" && find . -mindepth 1 | sort | tr '\n' ' ')$(groups "$tmp/bs-smb.json")" './d ./d/f 0 0 '
