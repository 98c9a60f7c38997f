#!/bin/sh
# convert --prepare: the preamble is the replay prepare plan, and Debian's dbench 4.0 runs the result.
#   prepare.sh REPRISE SOURCE_ROOT
set -u
reprise=$1 src=$2
tmp=$(mktemp -d) || exit 1
# Debian's dbench 4.0 takes semget()'s id 0 for a failure and prints "failed to create barrier
# semaphore" (then runs normally): the first semaphore set of a fresh IPC namespace, as on a new CI
# machine, has id 0.  Hold a set of our own while dbench runs, so dbench never gets id 0.
sem=$(ipcmk -S 1 2>/dev/null | sed -n 's/^Semaphore id: //p')
trap 'rm -rf "$tmp"; [ -n "$sem" ] && ipcrm -s "$sem" 2>/dev/null' EXIT INT TERM
. "${0%/*}/../lib/tap.sh"

skip() { n=$((n + 1)); echo "ok $n - $1 # skip $2"; }
# A build without libpcap (-Dpcap=disabled) reads classic little-endian pcap only: true when FILE needs libpcap there.
needs_libpcap() { "$reprise" stat "$1" 2>&1 >/dev/null | grep -q 'built without libpcap'; }
check() { desc=$1; shift; if "$@" >"$tmp/out" 2>"$tmp/err"; then ok "$desc"; else not_ok "$desc"; fi; }
same() { if diff -u "$2" "$3" >"$tmp/err"; then ok "$1"; else not_ok "$1"; fi; }

# A tiny trace: in.bin is read to byte 100000, data/sub/x is queried and gone.txt
# unlinked (so all three existed before), data/new.txt and made/ are its own.
cat >"$tmp/tiny.txt" <<'LOAD'
NTCreateX "\data\in.bin" 0x0 0x1 1 NT_STATUS_OK
ReadX 1 0 65536 65536 NT_STATUS_OK
ReadX 1 65536 65536 34464 NT_STATUS_OK
Close 1 NT_STATUS_OK
NTCreateX "\data\new.txt" 0x0 0x2 2 NT_STATUS_OK
WriteX 2 0 10 10 NT_STATUS_OK
Close 2 NT_STATUS_OK
QUERY_PATH_INFORMATION "\data\sub\x" 1004 NT_STATUS_OK
Mkdir "\made" NT_STATUS_OK
NTCreateX "\made\f" 0x0 0x2 3 NT_STATUS_OK
Close 3 NT_STATUS_OK
Unlink "\gone.txt" 0x6 NT_STATUS_OK
LOAD
# The plan, in path order, as SMB lines: 64 KiB pieces, one fnum above every trace handle.
{
	cat <<'LOAD'
Mkdir "\data" NT_STATUS_OK
NTCreateX "\data\in.bin" 0x0 0x5 1073741824 NT_STATUS_OK
WriteX 1073741824 0 65536 65536 NT_STATUS_OK
WriteX 1073741824 65536 34464 34464 NT_STATUS_OK
Close 1073741824 NT_STATUS_OK
Mkdir "\data\sub" NT_STATUS_OK
NTCreateX "\data\sub\x" 0x0 0x5 1073741824 NT_STATUS_OK
Close 1073741824 NT_STATUS_OK
NTCreateX "\gone.txt" 0x0 0x5 1073741824 NT_STATUS_OK
Close 1073741824 NT_STATUS_OK
LOAD
	cat "$tmp/tiny.txt"
} >"$tmp/want.txt"
check "convert --prepare a tiny SMB loadfile" "$reprise" convert --prepare "$tmp/tiny.txt" "$tmp/got.txt"
if grep -qx 'prepare: 2 directories, 3 files, 100000 bytes (10 preamble ops before the trace.s 12)' "$tmp/err"
then ok "the summary counts the plan"; else not_ok "the summary counts the plan"; fi
same "the preamble is the plan, then the trace unchanged" "$tmp/want.txt" "$tmp/got.txt"

cat >"$tmp/want-nfs.txt" <<'LOAD'
MKDIR3 "/data" 0x00000000
CREATE3 "/data/in.bin" 0 0x00000000
WRITE3 "/data/in.bin" 0 65536 0 0x00000000
WRITE3 "/data/in.bin" 65536 34464 0 0x00000000
MKDIR3 "/data/sub" 0x00000000
CREATE3 "/data/sub/x" 0 0x00000000
CREATE3 "/gone.txt" 0 0x00000000
LOAD
check "convert --prepare --dialect nfs" "$reprise" convert -q --prepare --dialect nfs "$tmp/tiny.txt" "$tmp/got-nfs.txt"
head -7 "$tmp/got-nfs.txt" >"$tmp/head-nfs.txt"
same "the NFS preamble: MKDIR3, CREATE3, WRITE3" "$tmp/want-nfs.txt" "$tmp/head-nfs.txt"
if [ "$(sed -n 8p "$tmp/got-nfs.txt")" = 'LOOKUP3 "/data/in.bin" 0x00000000' ]; then
	ok "the trace follows the NFS preamble"; else not_ok "the trace follows the NFS preamble"; fi
check "the NFS result reads back" "$reprise" cat "$tmp/got-nfs.txt"

# A trace handle at the preamble's fnum moves the preamble above it.
sed 's/ 1 NT_STATUS_OK$/ 1073741824 NT_STATUS_OK/; s/^\(ReadX\|Close\) 1 /\1 1073741824 /' "$tmp/tiny.txt" >"$tmp/high.txt"
check "convert --prepare a trace with a high handle" "$reprise" convert -q --prepare "$tmp/high.txt" "$tmp/got-high.txt"
if grep -q '^Close 1073741825 NT_STATUS_OK$' "$tmp/got-high.txt" && [ "$(grep -c 1073741825 "$tmp/got-high.txt")" = 8 ]
then ok "the preamble fnum is above every trace handle"; else not_ok "the preamble fnum is above every trace handle"; fi

# Nothing to prepare: the output is the plain conversion.
printf 'Mkdir "\\m" NT_STATUS_OK\nRmdir "\\m" NT_STATUS_OK\n' >"$tmp/none.txt"
check "convert --prepare with an empty plan" "$reprise" convert -q --prepare "$tmp/none.txt" "$tmp/got-none.txt"
same "an empty plan adds nothing" "$tmp/none.txt" "$tmp/got-none.txt"

"$reprise" convert --prepare "$tmp/tiny.txt" "$tmp/x.rpz" >"$tmp/out" 2>"$tmp/err"
if [ $? = 2 ] && grep -q "loadfiles only" "$tmp/err"; then ok "--prepare to .rpz is a usage error"; else
	not_ok "--prepare to .rpz is a usage error"; fi

# Traces naming more than 1,024 paths that were there before (the string table's first index was
# 1,024 slots whatever the count, and convert looped forever on 1,100): each path is planned once,
# in bounded time, from a loadfile and from the same trace as .rpz.
for count in 1100 50000; do
	awk -v n="$count" 'BEGIN { for (i = 1; i <= n; i++) printf "QUERY_PATH_INFORMATION \"\\d\\f%d\" 1004 NT_STATUS_OK\n", i }' \
		>"$tmp/many.txt"
	"$reprise" convert -q "$tmp/many.txt" "$tmp/many.rpz" 2>"$tmp/err"
	for in in many.txt many.rpz; do
		check "convert --prepare $in with $count pre-existing paths ends" \
			timeout 60 "$reprise" convert -q --prepare "$tmp/$in" "$tmp/many-got.txt"
		planned=$(grep -c '^NTCreateX "\\d\\f[0-9]*" 0x0 0x5 ' "$tmp/many-got.txt")
		if [ "$planned" = "$count" ]; then ok "$in: the plan has each of the $count files once"; else
			echo "# planned $planned"; not_ok "$in: the plan has each of the $count files once"; fi
	done
done
rm -f "$tmp/many.txt" "$tmp/many.rpz" "$tmp/many-got.txt"

# Two captures whose clients read files that were on the server before: the
# preamble is what replay prepares, and dbench runs the loadfile cleanly.
for cap in suricata-verify__smb2-01__smb2-peter.pcap zeek__smb_smb2_100_small_files.pcap; do
	if needs_libpcap "$src/tests/data/pcap/$cap"; then
		skip "$cap: convert --prepare" "it needs libpcap, and this build has none"
		continue
	fi
	check "$cap: convert --prepare" "$reprise" convert --prepare "$src/tests/data/pcap/$cap" "$tmp/$cap.txt"
	plan=$(sed -n 's/^prepare: \([0-9]*\) directories, \([0-9]*\) files, \([0-9]*\) bytes.*/\1 \2 \3/p' "$tmp/err")
	"$reprise" convert -q "$src/tests/data/pcap/$cap" "$tmp/$cap.rpz" 2>"$tmp/err"
	rm -rf "$tmp/replay" && mkdir "$tmp/replay"
	"$reprise" replay -q --json "$tmp/$cap.json" -D "$tmp/replay" "$tmp/$cap.rpz" >"$tmp/out" 2>"$tmp/err"
	prep=$(python3 -c 'import json,sys; p=json.load(open(sys.argv[1]))["prepare"]
if p["ran"]: print(p["dirs"], p["files"], p["bytes"])' "$tmp/$cap.json")
	if [ -n "$plan" ] && [ "$plan" = "$prep" ]; then ok "$cap: the preamble creates what replay prepares ($plan)"
	else echo "# convert: '$plan', replay: '$prep'"; not_ok "$cap: the preamble creates what replay prepares"; fi
	if ! command -v dbench >/dev/null 2>&1; then
		skip "$cap: dbench runs the loadfile" "dbench is not installed"
		continue
	fi
	rm -rf "$tmp/db" && mkdir "$tmp/db"
	timeout 60 dbench -c "$tmp/$cap.txt" -D "$tmp/db" -t 2 1 >"$tmp/dbench.log" 2>&1
	rc=$?
	grep -iE 'error|failed' "$tmp/dbench.log" >"$tmp/err"
	if [ "$rc" = 0 ] && ! [ -s "$tmp/err" ]; then ok "$cap: dbench runs the loadfile with no error"; else
		echo "# dbench exit $rc"; not_ok "$cap: dbench runs the loadfile with no error"; fi
done

# NFS captures converted to the SMB dialect: ops on the root handle from MOUNT (which no op
# opened) go by path, the handles NFS never closes are closed at the end, and dbench runs them
# ("handle 1 was not found" before).
for cap in zeek__nfs_nfs_write.pcap nfstrace__eth-ipv6-tcp-nfsv3__pkts1-1500.pcap \
	nfstrace__2sessions-tcp-wsize32k-tcp-wsize512k__pkts1-2400.pcap; do
	if needs_libpcap "$src/tests/data/pcap/$cap"; then
		skip "$cap: convert --prepare --dialect smb" "it needs libpcap, and this build has none"
		continue
	fi
	check "$cap: convert --prepare --dialect smb" "$reprise" convert --prepare --dialect smb \
		"$src/tests/data/pcap/$cap" "$tmp/$cap.txt"
	if ! command -v dbench >/dev/null 2>&1; then
		skip "$cap: dbench runs the SMB loadfile" "dbench is not installed"
		continue
	fi
	rm -rf "$tmp/db" && mkdir "$tmp/db"
	timeout 60 dbench -c "$tmp/$cap.txt" -D "$tmp/db" -t 2 1 >"$tmp/dbench.log" 2>&1
	rc=$?
	grep -iE 'error|failed|not found|full' "$tmp/dbench.log" >"$tmp/err"
	if [ "$rc" = 0 ] && ! [ -s "$tmp/err" ]; then ok "$cap: dbench runs the SMB loadfile with no error"; else
		echo "# dbench exit $rc"; not_ok "$cap: dbench runs the SMB loadfile with no error"; fi
done

echo "1..$n"
