#!/bin/sh
# reprise anonymize (TAP): on the samples, captures, a loadfile, an strace log and hostile names, no original
# name is left in the output's bytes, its decompressed frames or its strings; the structure, the op fields and
# the replay's op counts and mismatches stay; keys (same, other, bad), --keep-ext, --map, --new-key, outputs.
#   anonymize.sh REPRISE SOURCE_ROOT
set -u
reprise=$1
src=$2
here=$(dirname "$0")
check_py="$here/anonymize_check.py"
tmp=$(mktemp -d "${TMPDIR:-/tmp}/reprise-anon-XXXXXX")
# replays on tmpfs when there is one (/dev/shm), so the two runs see the same kind of file system
. "${0%/*}/../lib/tap.sh"
shm=$(tap_tmpfs anon) || exit 1
trap 'rm -rf "$tmp" "$shm"' EXIT INT TERM
check() { if [ "$2" = "$3" ]; then ok "$1"; else echo "# got '$2', want '$3'"; not_ok "$1"; fi; }
has() { # description file fixed-string
	if grep -qF -- "$3" "$2"; then ok "$1"; else echo "# no '$3' in:"; sed 's/^/# /' "$2"; not_ok "$1"; fi
}
py() { # description args...: the checker prints what is wrong
	d=$1
	shift
	if python3 "$check_py" "$@" >"$tmp/py.out" 2>&1; then ok "$d"; else sed 's/^/# /' "$tmp/py.out" | head -20; not_ok "$d"; fi
	grep '^# ' "$tmp/py.out" | head -2
}
command -v zstd >/dev/null || { echo "1..0 # SKIP zstd(1) is not installed"; exit 0; }
echo "1..88"

printf 'reprise-anonymize-test-key-0001' >"$tmp/k1"
printf 'reprise-anonymize-test-key-0002' >"$tmp/k2"
chmod 600 "$tmp/k1" "$tmp/k2"

# name IN: anonymized to .rpz, then no leak (searching also the input's host and input name) and the same structure
data=$src/tests/data
for spec in "nfs3 $src/samples/nfs3-write.rpz" "nfs41 $src/samples/nfs41-session.rpz" \
	"smb2 $src/samples/smb2-small-files.rpz" "pgbench $src/samples/syscall/pgbench.rpz" \
	"smb3pcap $data/pcap/reprise__smb3-smbclient.pcap" "nfs41pcap $data/pcap/nfstrace__eth-ipv4-tcp-nfsv41.pcap" \
	"peter $data/pcap/suricata-verify__smb2-01__smb2-peter.pcap" \
	"loadfile $data/loadfile/smb_timed.load" "strace $data/strace/tar-cp.strace"; do
	name=${spec%% *}
	in=${spec#* }
	"$reprise" cat --meta "$in" >"$tmp/$name.orig" 2>/dev/null
	host=$(sed -n 's/^# host //p' "$tmp/$name.orig")
	input=$(sed -n 's/^# input //p' "$tmp/$name.orig")
	"$reprise" anonymize -q --key "$tmp/k1" "$in" "$tmp/$name.rpz" 2>"$tmp/err"
	check "$name: anonymized" "$? $(cat "$tmp/err")" "0 "
	"$reprise" cat --meta "$tmp/$name.rpz" >"$tmp/$name.anon" 2>/dev/null
	py "$name: no original name in the file, its frames or its strings" leaks "$tmp/$name.orig" "$tmp/$name.rpz" \
		${host:+"$host"} ${input:+"$input"} "$(basename "$in")"
	py "$name: the same ops, separators, . and .., names mapped one to one" structure "$tmp/$name.orig" "$tmp/$name.anon"
done
# the trace that had a host, an input name and a start: all gone, the flag set
grep '^#' "$tmp/smb3pcap.orig" | sed 's/^/# before: /'
check "header: no host, no input, start 0, anonymized" \
	"$(grep -c '^# host\|^# input' "$tmp/smb3pcap.anon") $(sed -n 's/^# source .*\(anonymized\).*/\1/p' "$tmp/smb3pcap.anon")" \
	"0 anonymized"
check "header: capture time relative" "$(grep -c '^# start' "$tmp/smb3pcap.anon")" "0"

# a loadfile as output: no leak either, and it converts back to the same structure
"$reprise" anonymize -q --key "$tmp/k1" "$src/samples/smb2-small-files.rpz" "$tmp/smb2.txt" 2>"$tmp/err"
check "loadfile output" "$? $(cat "$tmp/err")" "0 "
py "loadfile output: no original name" leaks "$tmp/smb2.orig" "$tmp/smb2.txt"

# the same key twice: the same bytes; another key: other names, same structure
"$reprise" anonymize -q --key "$tmp/k1" "$src/samples/smb2-small-files.rpz" "$tmp/again.rpz"
check "same key, same output" "$(cmp -s "$tmp/smb2.rpz" "$tmp/again.rpz" && echo same)" "same"
"$reprise" anonymize -q --key "$tmp/k2" "$src/samples/smb2-small-files.rpz" "$tmp/other.rpz"
"$reprise" cat "$tmp/other.rpz" >"$tmp/other.anon"
check "another key, other names" "$(python3 -c '
import re, sys
def names(f):
    return set(re.findall(r"[a-z2-7]{12}", open(f).read()))
a, b = names(sys.argv[1]), names(sys.argv[2])
print(len(a) > 10, len(a) == len(b), len(a & b))' "$tmp/smb2.anon" "$tmp/other.anon")" "True True 0"
py "another key: the same structure" structure "$tmp/smb2.orig" "$tmp/other.anon"
# one key across traces: a name two traces share gets one pseudonym (the NFSv3 sample's and a loadfile of it)
"$reprise" anonymize -q --key "$tmp/k1" "$src/samples/nfs3-write.txt" "$tmp/nfs3txt.rpz"
check "one key, two traces, the same names" "$("$reprise" cat "$tmp/nfs3txt.rpz" | grep -o 'path="[^"]*"' | sort -u | md5sum)" \
	"$("$reprise" cat "$tmp/nfs3.rpz" | grep -o 'path="[^"]*"' | sort -u | md5sum)"

# replay both on tmpfs (--order resource: the multi-process traces then give one outcome on every run):
# the same op counts, failures and mismatches
"$reprise" convert -q "$data/strace/tar-cp.strace" "$tmp/strace-in.rpz"
"$reprise" convert -q "$data/pcap/nfstrace__eth-ipv4-tcp-nfsv41.pcap" "$tmp/nfs41pcap-in.rpz"
"$reprise" convert -q "$data/pcap/suricata-verify__smb2-01__smb2-peter.pcap" "$tmp/peter-in.rpz"
# (peter: a Windows client's SMB2 session that replays with 17 mismatches on posix, the same both ways)
for spec in "smb2 $src/samples/smb2-small-files.rpz" "nfs41pcap $tmp/nfs41pcap-in.rpz" "peter $tmp/peter-in.rpz" \
	"pgbench $src/samples/syscall/pgbench.rpz" "strace $tmp/strace-in.rpz"; do
	t=${spec%% *}
	in=${spec#* }
	mkdir "$shm/$t-a" "$shm/$t-b"
	"$reprise" replay -q --order resource -D "$shm/$t-a" --json "$tmp/$t-a.json" "$in" >/dev/null 2>&1
	ra=$?
	"$reprise" replay -q --order resource -D "$shm/$t-b" --json "$tmp/$t-b.json" "$tmp/$t.rpz" >/dev/null 2>&1
	rb=$?
	check "$t: replays of the original and the anonymized trace: the same op counts, failures, mismatches" \
		"$rb $(python3 -c '
import json, sys
def k(f):
    d = json.load(open(f))
    return (d["op_counts"], d["failures"], d["failures_expected"], d["mismatches"], d["escapes"],
            {o: (v["count"], v["failures"], v["mismatches"]) for o, v in d["ops"].items()})
a, b = k(sys.argv[1]), k(sys.argv[2])
print("same" if a == b else "%r != %r" % (a, b), "ops=%d" % sum(a[0].values()), "mismatches=%d" % a[3])' "$tmp/$t-a.json" "$tmp/$t-b.json")" \
		"$ra same $(python3 -c 'import json,sys; d = json.load(open(sys.argv[1])); print("ops=%d mismatches=%d" % (sum(d["op_counts"].values()), d["mismatches"]))' "$tmp/$t-a.json")"
	echo "# $t: $(python3 -c 'import json,sys; d = json.load(open(sys.argv[1])); print("%d ops, %d failures, %d mismatches" % (sum(d["op_counts"].values()), d["failures"], d["mismatches"]))' "$tmp/$t-b.json")"
done

# --keep-ext: the extensions stay, the names do not (the build sample: a C project's .c, .h and .o files)
"$reprise" cat "$src/samples/syscall/build.rpz" | grep -o 'path="[^"]*"' >"$tmp/build.orig"
"$reprise" anonymize -q --keep-ext --key "$tmp/k1" "$src/samples/syscall/build.rpz" "$tmp/ext.rpz"
"$reprise" anonymize -q --key "$tmp/k1" "$src/samples/syscall/build.rpz" "$tmp/build.rpz"
"$reprise" cat "$tmp/ext.rpz" | grep -o 'path="[^"]*"' >"$tmp/ext.anon"
"$reprise" cat "$tmp/build.rpz" | grep -o 'path="[^"]*"' >"$tmp/build.anon"
c=$(grep -c '\.c"' "$tmp/build.orig")
check "--keep-ext: as many paths end in .c ($c), none without it" \
	"$(grep -c '[a-z2-7]\{12\}\.c"' "$tmp/ext.anon") $(grep -c '\.c"' "$tmp/build.anon")" "$c 0"
check "--keep-ext: and the names are those without it" \
	"$(sed 's/\.[A-Za-z0-9]\{1,5\}\([/"]\)/\1/g' "$tmp/ext.anon" | md5sum)" "$(md5sum <"$tmp/build.anon")"
"$reprise" anonymize -q --keep-ext --key "$tmp/k1" "$src/samples/smb2-small-files.rpz" "$tmp/ext2.rpz"
"$reprise" cat "$tmp/ext2.rpz" >"$tmp/ext2.anon"
py "--keep-ext: the same structure" structure "$tmp/smb2.orig" "$tmp/ext2.anon"
check "--keep-ext: 1.txt is a pseudonym.txt" "$(grep -c 'path="/[a-z2-7]\{12\}/[a-z2-7]\{12\}\.txt"' "$tmp/ext2.anon")" \
	"$(grep -c 'path="/100-small-files/[0-9]*\.txt"' "$tmp/smb2.orig")"

# --map: TSV of what was mapped, for the key's owner; the trace itself holds none of it
"$reprise" anonymize -q --key "$tmp/k1" --map "$tmp/map.tsv" "$src/samples/smb2-small-files.rpz" "$tmp/m.rpz"
check "--map: the same trace as without it" "$(cmp -s "$tmp/m.rpz" "$tmp/smb2.rpz" && echo same)" "same"
# The map undoes the anonymisation: 0600 like the key, whatever the umask, also over an existing 0600 map.
(umask 022 && "$reprise" anonymize -q --key "$tmp/k1" --map "$tmp/map-new.tsv" "$src/samples/smb2-small-files.rpz" "$tmp/m2.rpz")
check "--map: a new map is mode 600 under umask 022" "$? $(stat -c %a "$tmp/map-new.tsv")" "0 600"
chmod 600 "$tmp/map.tsv"
(umask 022 && "$reprise" anonymize -q --key "$tmp/k1" --map "$tmp/map.tsv" "$src/samples/smb2-small-files.rpz" "$tmp/m2.rpz")
check "--map over an existing 0600 map: still 600" "$? $(stat -c %a "$tmp/map.tsv")" "0 600"
check "--map: a header, then kind, original, pseudonym" \
	"$(head -1 "$tmp/map.tsv" | cut -c1-26) $(awk -F'\t' 'NR > 1 && (NF != 3 || $1 != "name" || $3 !~ /^[a-z2-7]+$/ || length($3) != 12)' "$tmp/map.tsv" | wc -l)" \
	"# reprise anonymize map: k 0"
check "--map: every name of the trace, each pseudonym as the trace has it" "$(python3 -c '
import re, sys
m = {l.split("\t")[1]: l.split("\t")[2].strip() for l in open(sys.argv[1]) if not l.startswith("#")}
orig = open(sys.argv[2]).read()
anon = open(sys.argv[3]).read()
pairs = list(zip(re.findall(r"path=\"([^\"]*)\"", orig), re.findall(r"path=\"([^\"]*)\"", anon)))
bad = [(o, a) for o, a in pairs if "/".join(m.get(c, c) for c in o.split("/")) != a]
print(len(pairs) > 0, len(bad))' "$tmp/map.tsv" "$tmp/smb2.orig" "$tmp/smb2.anon")" "True 0"

# a trace with owners: uids and gids mapped (0 kept), listed in the map
cat >"$tmp/ids.ops" <<'EOF'
0.000000000 0.000001000 c1 open path="home/alice/notes.txt" fh=1 want=read,write disp=open_if -> OK
0.000002000 0.000003000 c1 setattr fh=1 set=uid,gid uid=1000 gid=1000 -> OK
0.000004000 0.000005000 c1 setattr fh=1 set=uid,gid uid=0 gid=0 -> OK
0.000006000 0.000007000 c1 close fh=1 -> OK
EOF
"$reprise" anonymize -q --key "$tmp/k1" --map "$tmp/ids.tsv" "$tmp/ids.ops" "$tmp/ids.rpz"
"$reprise" cat "$tmp/ids.rpz" >"$tmp/ids.anon"
check "uid and gid mapped, root kept" "$(grep -c 'uid=1000\|gid=1000' "$tmp/ids.anon") $(grep -c 'uid=0 gid=0' "$tmp/ids.anon") $(grep -Ec 'uid=[0-9]{6,} gid=[0-9]{6,}' "$tmp/ids.anon")" "0 0 1"
check "and in the map" "$(grep -c '^uid	1000	[0-9]*$' "$tmp/ids.tsv") $(grep -c '^gid	1000	[0-9]*$' "$tmp/ids.tsv")" "1 1"
# (setattr with uid=0 prints no uid field: zero fields are left out; the op is there)
check "the root setattr is there" "$(grep -c ' setattr fh=1 set=uid,gid -> OK' "$tmp/ids.anon")" "1"

# hostile names: every byte value, a 4000-byte component, . and .., a//b, \ separators, a lone ".", "..."
python3 - "$tmp/hostile.ops" <<'EOF'
import sys
allb = ''.join('\\x%02x' % b for b in range(256) if b not in (0x2f, 0x5c))
long = 'L' * 4000
lines = [
    'mkdir path="a//b"', 'mkdir path="%s"' % allb, 'mkdir path="./../x\\\\y\\\\..\\\\zed"',
    'mkdir path="%s"' % long, 'rename path="a//b" path2="a/%s"' % long, 'mkdir path="..."',
    'symlink path="lnk" path2="/etc/passwd"', 'mkdir path="caf\\xc3\\xa9/\\x00nul/\\x1b[2J"',
]
with open(sys.argv[1], 'w') as f:
    for i, l in enumerate(lines):
        f.write('0.%09d 0.%09d c1 %s -> OK\n' % (i * 10, i * 10 + 5, l))
EOF
"$reprise" cat --meta "$tmp/hostile.ops" >"$tmp/hostile.orig" 2>"$tmp/err"
check "hostile: the text form reads" "$? $(wc -l <"$tmp/hostile.orig" | tr -d ' ')" "0 9"
"$reprise" anonymize -q --key "$tmp/k1" "$tmp/hostile.ops" "$tmp/hostile.rpz" 2>"$tmp/err"
check "hostile: anonymized" "$? $(cat "$tmp/err")" "0 "
"$reprise" cat "$tmp/hostile.rpz" >"$tmp/hostile.anon"
py "hostile: no original name left" leaks "$tmp/hostile.orig" "$tmp/hostile.rpz" passwd etc
py "hostile: structure kept (a//b, ., .., \\)" structure "$tmp/hostile.orig" "$tmp/hostile.anon"
check "hostile: only the safe alphabet, separators and dots in the names" \
	"$(grep -o 'path2\?="[^"]*"' "$tmp/hostile.anon" | sed 's/^path2\?="//; s/"$//' | tr -d 'a-z2-7./\\' | tr -d '\n' | wc -c)" "0"
# a name that grows past 64 KiB once mapped: an error naming it, no output
python3 -c "import sys; open(sys.argv[1], 'w').write('0.000000000 0.000000001 c1 mkdir path=\"' + 'x/' * 30000 + '\" -> OK\n')" "$tmp/grow.ops"
"$reprise" anonymize -q --key "$tmp/k1" "$tmp/grow.ops" "$tmp/grow.rpz" 2>"$tmp/err"
check "a name too long once mapped: exit 1, no output" "$? $(test -e "$tmp/grow.rpz" && echo out) $(ls "$tmp" | grep -c part)" "1  0"
has "and the error says why" "$tmp/err" "longer than 65536 bytes once mapped"

# keys: missing, short, too long, a directory, readable by others, none given, both given
in=$src/samples/nfs3-write.rpz
"$reprise" anonymize --key "$tmp/nokey" "$in" "$tmp/x.rpz" 2>"$tmp/err"
check "missing key: exit 1, no output" "$? $(test -e "$tmp/x.rpz" && echo out)" "1 "
has "and named" "$tmp/err" "key $tmp/nokey: No such file or directory"
printf 'short' >"$tmp/short"
"$reprise" anonymize --key "$tmp/short" "$in" "$tmp/x.rpz" 2>"$tmp/err"
check "short key: exit 1" "$? $(test -e "$tmp/x.rpz" && echo out)" "1 "
has "and why" "$tmp/err" "5 bytes; a key is 16 to 4096 bytes"
head -c 5000 /dev/zero >"$tmp/long"
"$reprise" anonymize --key "$tmp/long" "$in" "$tmp/x.rpz" 2>"$tmp/err"
check "a 5000-byte key: exit 1" "$?" "1"
has "and why" "$tmp/err" "4097 or more bytes"
"$reprise" anonymize --key "$tmp" "$in" "$tmp/x.rpz" 2>"$tmp/err"
check "a directory as key: exit 1" "$?" "1"
has "and why" "$tmp/err" "not a regular file"
if [ "$(id -u)" != 0 ]; then
	cp "$tmp/k1" "$tmp/unreadable" && chmod 000 "$tmp/unreadable"
	"$reprise" anonymize --key "$tmp/unreadable" "$in" "$tmp/x.rpz" 2>"$tmp/err"
	check "an unreadable key: exit 1" "$?" "1"
	has "and why" "$tmp/err" "Permission denied"
else
	# root reads every file: a key it cannot read is one that is no file (a dangling symlink)
	ln -s "$tmp/gone" "$tmp/unreadable"
	"$reprise" anonymize --key "$tmp/unreadable" "$in" "$tmp/x.rpz" 2>"$tmp/err"
	check "an unreadable key (dangling link, as root): exit 1" "$?" "1"
	has "and why" "$tmp/err" "No such file or directory"
fi
cp "$tmp/k1" "$tmp/shared" && chmod 644 "$tmp/shared"
"$reprise" anonymize -q --key "$tmp/shared" "$in" "$tmp/x.rpz" 2>"$tmp/err"
check "a key others can read: works" "$?" "0"
has "with a warning" "$tmp/err" "can be read by others (chmod 600 it)"
check "and gives what the same bytes give" "$(cmp -s "$tmp/x.rpz" "$tmp/nfs3.rpz" && echo same)" "same"
rm -f "$tmp/x.rpz"
"$reprise" anonymize "$in" "$tmp/x.rpz" 2>"$tmp/err"
check "no key: usage error" "$? $(test -e "$tmp/x.rpz" && echo out)" "2 "
"$reprise" anonymize --key "$tmp/k1" --new-key "$tmp/k3" "$in" "$tmp/x.rpz" 2>"$tmp/err"
check "--key and --new-key: usage error" "$?" "2"

# --new-key: 32 bytes, mode 600, used; an existing file is never replaced
"$reprise" anonymize -q --new-key "$tmp/k3" "$in" "$tmp/n.rpz" 2>"$tmp/err"
check "--new-key: made and used" "$? $(stat -c '%s %a' "$tmp/k3")" "0 32 600"
"$reprise" anonymize -q --key "$tmp/k3" "$in" "$tmp/n2.rpz"
check "the new key gives the same trace again" "$(cmp -s "$tmp/n.rpz" "$tmp/n2.rpz" && echo same)" "same"
cp "$tmp/k1" "$tmp/k1.before"
"$reprise" anonymize -q --new-key "$tmp/k1" "$in" "$tmp/n3.rpz" 2>"$tmp/err"
check "--new-key over an existing file: exit 1, the file kept, no output" \
	"$? $(cmp -s "$tmp/k1" "$tmp/k1.before" && echo kept) $(test -e "$tmp/n3.rpz" && echo out)" "1 kept "
has "and why" "$tmp/err" "never replaces a key"

# outputs: IN is never replaced, nor the key; the map is not the trace
cp "$in" "$tmp/in.rpz"
"$reprise" anonymize --key "$tmp/k1" "$tmp/in.rpz" "$tmp/in.rpz" 2>"$tmp/err"
check "OUT = IN: usage error, IN unchanged" "$? $(cmp -s "$in" "$tmp/in.rpz" && echo kept)" "2 kept"
"$reprise" anonymize --key "$tmp/k1" "$in" "$tmp/k1" 2>"$tmp/err"
check "OUT = the key: usage error, the key unchanged" "$? $(cmp -s "$tmp/k1" "$tmp/k1.before" && echo kept)" "2 kept"
"$reprise" anonymize --key "$tmp/k1" --map "$tmp/same.rpz" "$in" "$tmp/same.rpz" 2>"$tmp/err"
check "--map = OUT: usage error" "$? $(test -e "$tmp/same.rpz" && echo out)" "2 "
# a failed run (an input that is no trace) leaves neither OUT nor the map, nor a temporary file
echo "not a trace" >"$tmp/junk"
"$reprise" anonymize --key "$tmp/k1" --map "$tmp/jm.tsv" "$tmp/junk" "$tmp/j.rpz" 2>"$tmp/err"
check "bad input: exit 1, no OUT, no map, no .part" \
	"$? $(test -e "$tmp/j.rpz" && echo out) $(test -e "$tmp/jm.tsv" && echo map) $(ls "$tmp" | grep -c part)" "1   0"
# write errors are errors; standard output works
"$reprise" anonymize -q --key "$tmp/k1" --format rpz "$in" /dev/full 2>"$tmp/err"
check "OUT /dev/full: exit 1, ENOSPC said" "$? $(grep -c 'No space left' "$tmp/err")" "1 1"
"$reprise" anonymize -q --key "$tmp/k1" --map /dev/full "$in" "$tmp/full.rpz" 2>"$tmp/err"
check "--map /dev/full: exit 1, no OUT" "$? $(test -e "$tmp/full.rpz" && echo out)" "1 "
check "OUT - : the same trace on standard output" \
	"$("$reprise" anonymize -q --key "$tmp/k1" --format rpz "$in" - | cmp -s - "$tmp/nfs3.rpz" && echo same)" "same"
# the summary
"$reprise" anonymize --key "$tmp/k1" "$src/samples/smb2-small-files.rpz" "$tmp/s.rpz" 2>"$tmp/err"
has "the summary says what was mapped" "$tmp/err" "name components"
has "and what was removed" "$tmp/err" "capture start, host and input name removed"
"$reprise" anonymize --help >"$tmp/help"
has "--help lists --keep-ext" "$tmp/help" "--keep-ext"
