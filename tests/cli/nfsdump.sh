#!/bin/sh
# nfsdump text input (docs/nfsdump.md): the shared sample's ops counted as awk counts its call lines, every call
# with a reply paired, a replay on posix without unknown handles; .txt.gz (several members, cut short, corrupt);
# hostile lines counted, never fatal.
#   nfsdump.sh REPRISE SOURCE_ROOT
set -u
reprise=$1 src=$2
sample=$src/tests/data/nfsdump/ellard-raw-data.txt
command -v gzip >/dev/null 2>&1 || { echo "1..0 # skip gzip is not installed"; exit 77; }
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT INT TERM
. "${0%/*}/../lib/tap.sh"
echo "1..22"

# Each canonical op of the sample's call lines, counted apart from reprise: NULL pings and SHORT PACKET calls
# (their arguments are lost) make no op; the procedure names are nfsdump's, per version.
awk_ops() {
	awk '$5 ~ /^C[23]$/ && $8 != "null" && !/SHORT PACKET/ {
		p = $8
		if (p == "getattr") o = "stat"; else if (p == "create") o = "open"; else if (p == "remove") o = "unlink";
		else if (p == "readdirp") o = "readdir"; else if (p == "commit") o = "flush";
		else if (p == "fsstat" || p == "fsinfo" || p == "pathconf" || p == "statfs") o = "statfs";
		else o = p
		n[o]++
	} END { for (o in n) print o, n[o] }' "$1" | sort
}
# The op table of `reprise stat` as "op count" lines.
stat_ops() { awk '/^op  *count  *share/ { on = 1; next } on && NF == 0 { exit } on { print $1, $2 }' "$1" | sort; }
# Calls (that make ops) whose reply is in the file, and those whose reply is not: by client, server and xid.
awk_pairs() {
	awk '$5 ~ /^R[23]$/ { r[$3 " " $2 " " $6] = 1 }
	     $5 ~ /^C[23]$/ && $8 != "null" && !/SHORT PACKET/ { c[$2 " " $3 " " $6] = 1 }
	     END { for (k in c) if (k in r) p++; else u++; printf "paired %d no_reply %d\n", p, u }' "$1"
}

# 1-4: the sample converts; stat's op counts are the call lines'; the calls with replies are paired, the others not.
if "$reprise" convert "$sample" "$tmp/s.rpz" >"$tmp/out" 2>"$tmp/err"; then ok "the sample converts"; else not_ok "the sample converts"; fi
has "convert says what it counted" err '^nfsdump: lines 176, calls 84, replies 92, '
"$reprise" stat "$tmp/s.rpz" >"$tmp/stat" 2>"$tmp/err"
awk_ops "$sample" >"$tmp/awk.ops"
stat_ops "$tmp/stat" >"$tmp/stat.ops"
same "stat's op counts are awk's count of the call lines" "$tmp/awk.ops" "$tmp/stat.ops"
awk_pairs "$sample" >"$tmp/pairs"
want_noreply=$(sed 's/.*no_reply //' "$tmp/pairs")
got_noreply=$(awk '$1 == "no" && $2 == "reply" { print $3 }' "$tmp/stat")
if [ "$want_noreply" = "$got_noreply" ] && [ "$(wc -l <"$tmp/awk.ops")" -gt 10 ]; then ok "every call with a reply is paired (no reply: $got_noreply)"
else echo "# awk: $(cat "$tmp/pairs"), stat's no reply: $got_noreply"; not_ok "every call with a reply is paired"; fi

# 5-7: the trace says where it came from; stat reads the text itself; cat of the .txt is cat of its .rpz.
has "the trace's source is nfsdump" stat '^source +nfsdump'
"$reprise" stat "$sample" >"$tmp/stat2" 2>"$tmp/err"
stat_ops "$tmp/stat2" >"$tmp/stat2.ops"
same "stat reads the .txt directly" "$tmp/stat.ops" "$tmp/stat2.ops"
"$reprise" cat "$tmp/s.rpz" >"$tmp/cat.rpz" 2>/dev/null
"$reprise" cat "$sample" >"$tmp/cat.txt" 2>/dev/null
same "cat of the .txt is cat of its conversion" "$tmp/cat.rpz" "$tmp/cat.txt"

# 8-10: replay on posix, prepare included: no unknown handle, every path beneath the target, no failed prepare.
mkdir "$tmp/t"
"$reprise" replay "$tmp/s.rpz" --target "$tmp/t" --json "$tmp/r.json" >"$tmp/out" 2>"$tmp/err"
has "the replay ran and wrote its JSON" r.json '"unknown_handles": 0'
lacks "no op met an unknown handle" r.json '"unknown_handles": [1-9]'
if [ -d "$tmp/t/.reprise/nfs/fsid-ffffffff8465bccf" ]; then
	ok "never-named handles live under .reprise/nfs/fsid-F/"; else not_ok "never-named handles live under .reprise/nfs/fsid-F/"; fi

# 11-12: replay reads the .txt too (converted first), and a stat'd file is prepared as long as its attributes say.
mkdir "$tmp/t2"
if "$reprise" replay "$sample" --target "$tmp/t2" >"$tmp/out" 2>"$tmp/err"; then ok "replay takes the .txt"; else not_ok "replay takes the .txt"; fi
size=$(find "$tmp/t2" -type f -size 468256c | wc -l)
if [ "$size" -ge 1 ]; then ok "a file getattr said was 0x72520 bytes is prepared that long"; else not_ok "a file getattr said was 0x72520 bytes is prepared that long"; fi

# 13-15: .txt.gz, sniffed by content (any name): the same ops; several members read in turn.
gzip -c "$sample" >"$tmp/s.gz"
"$reprise" cat "$tmp/s.gz" >"$tmp/cat.gz" 2>/dev/null
same "a gzip'd copy gives the same ops" "$tmp/cat.txt" "$tmp/cat.gz"
cat "$tmp/s.gz" "$tmp/s.gz" >"$tmp/two.txt.gz"
"$reprise" convert "$tmp/two.txt.gz" "$tmp/two.rpz" >"$tmp/out" 2>"$tmp/err"
has "two gzip members are read one after the other" err '^nfsdump: lines 352, '
gzip -c "$sample" | cat - /dev/null >"$tmp/pipe.gz"
if "$reprise" stat - <"$tmp/pipe.gz" >"$tmp/out" 2>"$tmp/err"; then ok "a gzip'd stream on stdin is read"; else not_ok "a gzip'd stream on stdin is read"; fi

# 16-18: a gzip stream cut short keeps what it held and says so; corrupt data is a clear error, never a crash.
# A bigger file (the sample 40 times) so that the cut falls after whole lines.
i=0; : >"$tmp/big.txt"; while [ $i -lt 40 ]; do cat "$sample" >>"$tmp/big.txt"; i=$((i + 1)); done
gzip -c "$tmp/big.txt" >"$tmp/big.gz"
head -c $(($(wc -c <"$tmp/big.gz") / 2)) "$tmp/big.gz" >"$tmp/cut.gz"
"$reprise" convert "$tmp/cut.gz" "$tmp/cut.rpz" >"$tmp/out" 2>"$tmp/err"
has "a cut gzip stream: a warning, what came before kept" err 'gzip stream ends inside a member'
"$reprise" stat "$tmp/cut.rpz" >"$tmp/out" 2>&1
has "the conversion is flagged truncated" out 'truncated|cut'
python3 -c "
import sys; b = bytearray(open(sys.argv[1], 'rb').read()); m = len(b) // 2
b[m:m + 64] = bytes(64); open(sys.argv[2], 'wb').write(b)" "$tmp/big.gz" "$tmp/bad.gz"
"$reprise" convert "$tmp/bad.gz" "$tmp/bad.rpz" >"$tmp/out" 2>"$tmp/err"; rc=$?
if [ $rc -lt 128 ] && grep -Eq 'gzip data corrupt|nfsdump: lines' "$tmp/err"; then ok "corrupt gzip data: a clear error or counted lines (status $rc)"
else not_ok "corrupt gzip data: a clear error or counted lines (status $rc)"; fi

# 19-22: hostile lines: cut, bad hex, absurd offsets and counts, NUL bytes, long lines: counted, the rest converted.
awk '{ print substr($0, 1, int(length($0) / 2)) }' "$sample" >"$tmp/h.txt"
sed 's/ fh \([0-9a-f]*\)/ fh zz\1q/' "$sample" >>"$tmp/h.txt"
cat >>"$tmp/h.txt" <<'EOF'
1006231599.000001 31.03f7 30.0801 T C3 aaaa0001 6 read fh cfbc65840a0000000c000000b6000500028000000c0000000200000001800000 off ffffffffffffffff count ffffffff con = XXX len = XXX
1006231599.000002 30.0801 31.03f7 T R3 aaaa0001 6 read OK ftype 1 size ffffffffffffffff count ffffffff eof 0 status=XXX pl = XXX con = XXX len = XXX
1006231599.000003 31.03f7 30.0801 T C3 aaaa0002 1 getattr fh cfbc65840a0000000c000000b6000500028000000c0000000200000001800000 con = XXX len = XXX
1006231599.000004 30.0801 31.03f7 T R3 aaaa0002 1 getattr OK ftype 1 size ffffffffffffffff fsid 1 status=XXX pl = XXX con = XXX len = XXX
1006231599.000005 31.03f7 30.0801 T C3 aaaa0003 1 getattr fh 0 con = XXX len = XXX
XX funny line
1006231599.000006 31.03f7 30.0801 T C9 aaaa0004 1 getattr fh 00 con = XXX len = XXX
EOF
printf '1006231599.000007 31.03f7 30.0801 T C3 aaaa0005 1 getattr fh 00\000\000\000 con = XXX len = XXX\n' >>"$tmp/h.txt"
head -c 100000 /dev/zero >>"$tmp/h.txt"; echo >>"$tmp/h.txt"
awk 'BEGIN { s = ""; for (i = 0; i < 70000; i++) s = s "a"; print "1006231599.000008 31.03f7 30.0801 T C3 1 1 getattr fh " s }' >>"$tmp/h.txt"
"$reprise" convert "$tmp/h.txt" "$tmp/h.rpz" >"$tmp/out" 2>"$tmp/err"; rc=$?
if [ $rc -eq 0 ]; then ok "hostile lines: converted"; else not_ok "hostile lines: converted (status $rc)"; fi
has "cut and broken lines counted as garbage" err 'garbage lines [1-9]'
has "bad hex and absurd values counted" err 'bad values [1-9].*absurd values [1-9]'
has "NUL bytes and long lines counted" err 'lines with NUL bytes [1-9].*long lines [1-9]'
exit 0
