#!/bin/bash
# The nfs backend against a real nfs-ganesha on 127.0.0.1 (TAP; docs/replay.md, "NFS backend"):
# dbench's client.txt (a cut) with 2 clients over NFSv3 and NFSv4, its statuses and the tree it
# leaves on the server against the same replay on posix; traces converted from sample captures
# with the mismatches posix gives them; the in-flight window; prepare, every fill, what was there kept; a hostile trace and target (symlinks
# out of the client's directory, made by the trace and planted) that must change nothing outside;
# errors: a refused port, an unknown export, a bad URL, ganesha stopped or killed mid-run (exit 1, no hang);
# the closed loop: the replay's traffic captured on lo has client.txt's op mix (reprise stat --diff --check).
#   nfs_server.sh REPRISE SOURCE_ROOT
set -u
reprise=$1
root=$2
fixtures=$root/tests/fixtures
pcaps=$root/tests/data/pcap
. "${0%/*}/../lib/tap.sh"
. "${0%/*}/../lib/ports.sh"

[ "$(id -u)" -eq 0 ] || { echo "1..0 # SKIP ganesha's VFS export needs root"; exit 77; }
command -v ganesha.nfsd >/dev/null || { echo "1..0 # SKIP nfs-ganesha not installed"; exit 77; }
"$reprise" replay --list-backends 2>/dev/null | grep -q '^  nfs ' || { echo "1..0 # SKIP built without the nfs backend"; exit 77; }

tmp=$(mktemp -d /tmp/reprise-nfs.XXXXXX) || exit 1
srv=$tmp/srv
bg=
cleanup() {
	[ -n "$bg" ] && kill "$bg" 2>/dev/null
	[ -f "$srv/ganesha.pid" ] && kill -CONT "$(cat "$srv/ganesha.pid")" 2>/dev/null # stopped by test 6
	"$fixtures/ganesha.sh" stop "$srv"
	rm -rf "$tmp"
}
trap cleanup EXIT INT TERM

# A command that never ends fails here (timeout exits 124) instead of stalling the suite.
run() { timeout -k 5 120 "$@" >"$tmp/out" 2>"$tmp/err"; }
check() { desc=$1; shift; if run "$@"; then ok "$desc"; else echo "# exit $?"; not_ok "$desc"; fi; }
same() { if [ "$2" = "$3" ]; then ok "$1"; else echo "# '$2' != '$3'"; not_ok "$1"; fi; }

listening() { (exec 3<>/dev/tcp/127.0.0.1/"$1") 2>/dev/null; }
# Ports of our own, free ones, different per run (ganesha's NFS and MOUNT ports can move; rpcbind's cannot).
base=$(free_ports $$) || exit 1
nport=$base mport=$((base + 1))
"$fixtures/ganesha.sh" start "$srv" "$nport" "$mport" >"$tmp/ganesha.out" 2>&1 || {
	echo "1..0 # SKIP ganesha did not start: $(tail -n 8 "$tmp/ganesha.out" 2>/dev/null | tr '\n' ' ')"
	exit 77
}
export_dir=$srv/export
url() { # url VERSION [DIR]
	if [ "$1" = 3 ]; then echo "nfs://127.0.0.1/export${2:+/$2}?version=3&nfsport=$nport&mountport=$mport"
	else echo "nfs://127.0.0.1/export${2:+/$2}?version=4&nfsport=$nport"; fi
}
empty_export() { find "$export_dir" -mindepth 1 -delete; }
tree() { (cd "$1" && find . -mindepth 1 -printf '%y %s %p\n' | sort); }
count() { sed -n "s/^Failed .*mismatched \([0-9]*\).*/\1/p" "$tmp/out"; }

# 1. client.txt's first 6000 lines, 2 clients: its failures as recorded, 0 mismatches, and the
# same tree on the server as posix leaves in a directory.
client=/usr/share/dbench/client.txt
if [ -r "$client" ]; then
	head -n 6000 "$client" >"$tmp/client.txt"
	mkdir "$tmp/posix"
	run "$reprise" replay "$tmp/client.txt" --target "$tmp/posix" --clients 2 -q
	tree "$tmp/posix" >"$tmp/posix.tree"
	for v in 3 4; do
		empty_export
		check "client.txt, 2 clients over NFSv$v" "$reprise" replay "$tmp/client.txt" --target "$(url $v)" --clients 2 -q
		has "NFSv$v: its failures are all as recorded, 0 mismatched" out '^Failed [1-9][0-9]* \(all as recorded\), mismatched 0$'
		has "NFSv$v: the locks are counted unsupported, not failed" out '^Unsupported by the nfs backend .*: [1-9]'
		tree "$export_dir" >"$tmp/nfs.tree"
		if [ -s "$tmp/posix.tree" ] && cmp -s "$tmp/posix.tree" "$tmp/nfs.tree"; then
			ok "NFSv$v: the tree on the server is the one posix leaves ($(wc -l <"$tmp/nfs.tree") entries)"
		else
			diff "$tmp/posix.tree" "$tmp/nfs.tree" | head -10 | sed 's/^/# /'
			not_ok "NFSv$v: the tree on the server is the one posix leaves"
		fi
		empty_export
		check "client.txt over NFSv$v with --max-inflight 8" "$reprise" replay "$tmp/client.txt" --target "$(url $v)" --clients 2 -q --max-inflight 8
		has "NFSv$v --max-inflight 8: 0 mismatched" out '^Failed [1-9][0-9]* \(all as recorded\), mismatched 0$'
	done
else
	for v in 3 4; do for d in "client.txt over NFSv$v" "as recorded" "unsupported" "tree" "max-inflight" "max-inflight 0 mismatched"; do
		ok "$d # skip no $client (dbench package)"
	done; done
fi

# 2. Traces converted from sample captures (NFSv3, NFSv4.1, SMB3, SMB2): as many mismatches as on posix.
for p in suricata-verify__nfs3-01__input nfstrace__eth-ipv4-tcp-nfsv41 nfstrace__eth-ipv6-tcp-nfsv3__pkts1-1500 \
	reprise__smb3-smbclient suricata-verify__smb2-01__smb2-peter; do
	"$reprise" convert "$pcaps/$p.pcap" "$tmp/$p.rpz" >/dev/null 2>&1 || { for v in 3 4; do ok "$p NFSv$v # skip cannot convert"; done; continue; }
	rm -rf "$tmp/px" && mkdir "$tmp/px"
	run "$reprise" replay "$tmp/$p.rpz" --target "$tmp/px"
	want=$(count)
	for v in 3 4; do
		empty_export
		# The default window (the nfsv3 pkts1-1500 capture recorded 7 in flight: its writes by path,
		# each opening the file for itself, share one NFSv4 open).
		run "$reprise" replay "$tmp/$p.rpz" --target "$(url $v)"
		same "$p over NFSv$v: $want mismatches, as on posix" "$(count)" "$want"
	done
done

# 2a. NFSv4 opens in flight together (issue 24): reads and writes by path (handles the trace never
# opened: each op opens the file for itself) overlapping on two files, 8 deep, with the default
# options.  libnfs 4.0 sends each OPEN with the open-owner's seqid as of the replies it has had, so
# two in flight carry one seqid (NFS4ERR_BAD_SEQID, then every OPEN after it) and a second OPEN of
# an open file leaves the first's stateid old (ERANGE, every op, before): the backend sends one
# OPEN or CLOSE at a time and shares one open per file among the ops on it.
awk 'BEGIN { t = 0.001
	for (i = 0; i < 48; i++) {
		f = i % 2 ? "/b" : "/a"; op = int(i / 2) % 3 == 2 ? "read" : "write"
		printf "%.9f %.9f c1 %s path=\"%s\" fh=%d off=%d len=8192 ret=8192 -> OK\n", t, t + 0.004, op, f, i % 2 + 1, int(i / 2) * 8192
		t += 0.0005 } }' >"$tmp/overlap.txt"
for v in 3 4; do
	empty_export
	check "overlapping I/O by path on two files over NFSv$v, default options" \
		"$reprise" replay "$tmp/overlap.txt" --target "$(url $v)"
	has "NFSv$v: several of them in flight at once" out '^In flight per client .*: max [2-9]'
	has "NFSv$v: 0 mismatched" out '^Failed 0, mismatched 0$'
done

# 2a'. An open that does not say what it wants, of a file the caller may only read (0444, root's, opened
# as uid 1000): read-write is refused (EACCES), read-only is tried once; over NFSv4 that OPEN was sent
# read-write again, without end (a run that never stopped).
mkdir "$export_dir/ro" && chmod 777 "$export_dir/ro" && echo hello >"$export_dir/ro/f" && chmod 444 "$export_dir/ro/f"
printf '%s\n' '0.001 0.002 c1 open path="/f" fh=1 disp=open -> OK' '0.003 0.004 c1 read fh=1 off=0 len=6 ret=6 -> OK' \
	'0.005 0.006 c1 close fh=1 -> OK' >"$tmp/ro.txt"
for v in 3 4; do
	check "an open of a read-only file as another user over NFSv$v: read-only after EACCES, once" \
		"$reprise" replay "$tmp/ro.txt" --target "$(url $v ro)&uid=1000&gid=1000" --no-prepare
	has "NFSv$v: the read-only file read, 0 mismatched" out '^Failed 0, mismatched 0$'
done

# 2b. An NFSv4 capture of libnfs clients that mounted /export (PUTROOTFH, LOOKUP export, GETFH): its paths
# are relative to that mount, so its file is made in the target itself, not in TARGET/export (one deeper).
if "$reprise" convert "$pcaps/reprise__nfs4-locks.pcap" "$tmp/locks.rpz" >/dev/null 2>&1; then
	for v in 3 4; do
		mkdir "$export_dir/depth$v"
		run "$reprise" replay "$tmp/locks.rpz" --target "$(url $v depth$v)" -q
		same "NFSv4 capture over NFSv$v: its file in the target, not one directory deeper" \
			"$(cd "$export_dir/depth$v" && find . -mindepth 1 | sort | tr '\n' ' ')" "./locks.dat "
	done
else
	for v in 3 4; do ok "NFSv4 capture over NFSv$v # skip cannot convert"; done
fi

# 3. The in-flight window on a capture whose client overlapped its calls (8 deep): kept, and correct.
p=nfstrace__eth-ipv4-tcp-nfsv41
for v in 3 4; do
	empty_export
	check "$p over NFSv$v with --max-inflight 16" "$reprise" replay "$tmp/$p.rpz" --target "$(url $v)" --max-inflight 16
	has "NFSv$v: several of its RPCs were in flight at once" out '^In flight per client \(max 16\): max [2-9]'
	has "NFSv$v --max-inflight 16: 0 mismatched" out 'mismatched 0'
done

# 4. Prepare through the backend: the files a loadfile reads (one 4 MB in, one in a directory it stats)
# and the directories, as posix makes them, each --prepare-fill: data is the pattern, sparse has holes.
cat >"$tmp/prep.txt" <<'LOAD'
NTCreateX "\data\in.bin" 0x0 0x1 1 NT_STATUS_OK
ReadX 1 0 65536 65536 NT_STATUS_OK
ReadX 1 4000000 65536 65536 NT_STATUS_OK
Close 1 NT_STATUS_OK
QUERY_PATH_INFORMATION "\data\sub\x" 1004 NT_STATUS_OK
Mkdir "\made" NT_STATUS_OK
NTCreateX "\made\f" 0x0 0x2 3 NT_STATUS_OK
WriteX 3 0 10 10 NT_STATUS_OK
Close 3 NT_STATUS_OK
LOAD
rm -rf "$tmp/px" && mkdir "$tmp/px"
run "$reprise" replay "$tmp/prep.txt" --target "$tmp/px" --clients 2
want_prep=$(sed -n 's/^Prepare: \([^(]*\) written.*/\1/p' "$tmp/out")
tree "$tmp/px" >"$tmp/prep.tree"
for v in 3 4; do
	for fill in data zero sparse; do
		empty_export
		run "$reprise" replay "$tmp/prep.txt" --target "$(url $v)" --clients 2 --prepare-fill $fill
		has "prepare over NFSv$v ($fill): $want_prep, no mismatch" out "^Prepare: ${want_prep}.*\\($fill\\)|^Prepare: ${want_prep% 8.1 MB} 8.1 MB in size, sparse"
		tree "$export_dir" >"$tmp/nfs.tree"
		if cmp -s "$tmp/prep.tree" "$tmp/nfs.tree" && grep -q 'mismatched 0' "$tmp/out"; then ok "prepare over NFSv$v ($fill): the tree posix makes"
		else diff "$tmp/prep.tree" "$tmp/nfs.tree" | head -5 | sed 's/^/# /'; not_ok "prepare over NFSv$v ($fill): the tree posix makes"; fi
		f=$export_dir/client1/data/in.bin
		case $fill in
		data) same "NFSv$v: prepared data is the pattern" "$(head -c 4 "$f")" "ZZZZ" ;;
		zero) same "NFSv$v: prepared zeros" "$(head -c 4 "$f" | od -An -tx1 | tr -d ' ')" "00000000" ;;
		sparse) blocks=$(stat -c %b "$f"); same "NFSv$v: a sparse file has holes ($blocks blocks)" "$((blocks * 512 < 1000000))" 1 ;;
		esac
	done
done

# 4b. Prepare never rewrites what was there (issue 22): a trace that only reads /precious.txt leaves its
# bytes as they were, --prepare-fill sparse too; one too short is extended beyond its end only, with a
# warning; --prepare-overwrite rewrites it.  Self-contained: its own trace and files, each case in a
# directory of its own (a file replaced behind ganesha's back under a name it has seen is not the file
# ganesha serves: its caches keep the old one).
printf 'NTCreateX "\\precious.txt" 0x0 0x1 1 NT_STATUS_OK\nReadX 1 0 10 10 NT_STATUS_OK\nClose 1 NT_STATUS_OK\n' >"$tmp/keep.txt"
keep() { # keep VERSION CASE CONTENT [OPTION...]: a fresh directory holding precious.txt, and the replay into it
	kv=$1 kd=keep-$1-$2 kf=$export_dir/keep-$1-$2/precious.txt
	mkdir "$export_dir/$kd" && printf '%s' "$3" >"$kf"
	shift 3
	run "$reprise" replay "$tmp/keep.txt" --target "$(url "$kv" "$kd")" "$@"
}
for v in 3 4; do
	for fill in data sparse; do
		keep $v $fill 'precious!!' --prepare-fill $fill
		same "NFSv$v ($fill): a file there before keeps its bytes" "$(cat "$kf")" "precious!!"
		has "NFSv$v ($fill): the warning says it was kept" err 'warning: prepare found 1 file already there: 1 kept'
	done
	keep $v short abc
	same "NFSv$v: a file too short is extended after its own bytes" "$(stat -c %s "$kf"):$(head -c 4 "$kf")" "10:abcZ"
	has "NFSv$v: the warning says it was extended" err 'warning: prepare found 1 file already there: 0 kept .*, 1 too short and extended'
	keep $v overwrite 'precious!!' --prepare-overwrite
	same "NFSv$v --prepare-overwrite: rewritten with the pattern" "$(cat "$kf")" "ZZZZZZZZZZ"
done
empty_export

# 4c. A target that is not empty: the warning posix gives, from a READDIR of the target's root before prepare;
# none for an empty one.  Fresh directories (ganesha caches what it has listed before).
for v in 3 4; do
	mkdir -p "$export_dir/full$v/there" "$export_dir/empty$v"
	echo x >"$export_dir/full$v/f"
	run "$reprise" replay "$tmp/keep.txt" --target "$(url $v full$v)" -q
	has "NFSv$v: a target with 2 entries: the warning says so" err "warning: nfs://127\.0\.0\.1/export/full$v\?.* is not empty \(2 entries before the run\)"
	run "$reprise" replay "$tmp/keep.txt" --target "$(url $v empty$v)" -q
	lacks "NFSv$v: an empty target: no such warning" err "is not empty"
done
empty_export

# 4d. --cleanup through the backend: what the run made goes (files, directories, a symlink), what was there
# stays: a file, a directory and its file, a symlink out of the export (not followed: what it names is
# untouched), a file the run renamed into a directory it made (which stays for it).  Fresh directories.
cat >"$tmp/clean.ops" <<'OPS'
0.000000001 - c0 mkdir path="/newdir" -> OK
0.000000002 - c0 open path="/newdir/f" fh=1 disp=create -> OK
0.000000003 - c0 write fh=1 off=0 len=10 ret=10 -> OK
0.000000004 - c0 close fh=1 -> OK
0.000000005 - c0 rename path="/old2" path2="/newdir/moved" -> OK
0.000000006 - c0 mkdir path="/gone" -> OK
0.000000007 - c0 open path="/gone/x" fh=2 disp=create -> OK
0.000000008 - c0 close fh=2 -> OK
0.000000009 - c0 symlink path="/lnk" path2="keep" -> OK
0.000000010 - c0 open path="/keep/new" fh=3 disp=create -> OK
0.000000011 - c0 close fh=3 -> OK
OPS
"$reprise" convert "$tmp/clean.ops" "$tmp/clean.rpz" >/dev/null 2>&1
mkdir -p "$tmp/outside3/sub"
echo keep >"$tmp/outside3/sub/precious"
for v in 3 4; do
	d=$export_dir/clean$v
	mkdir -p "$d/keep"
	echo x >"$d/keep/old"
	echo y >"$d/old2"
	ln -s "$tmp/outside3" "$d/out"
	run "$reprise" replay "$tmp/clean.rpz" --target "$(url $v clean$v)" --cleanup -q
	has "NFSv$v --cleanup: 5 made removed, 5 of before left" out '^Cleanup: 5 entries the run made removed, 5 of before left$'
	same "NFSv$v --cleanup: the tree of before, the renamed file in the directory made for it" \
		"$(cd "$d" && find . -mindepth 1 | sort | tr '\n' ' ')" "./keep ./keep/old ./newdir ./newdir/moved ./out "
	same "NFSv$v --cleanup: the symlink out was not followed" "$(cd "$tmp/outside3" && find . | sort | tr '\n' ' ')" ". ./sub ./sub/precious "
done
empty_export

# 5. Hostile: the trace makes symlinks out of its directory ("../../..", "/", "..": the engine refuses
# those) and works through them; planted ones lead out of the client's directory (".." to the export,
# "../../..", "/") and out of the export (absolute and relative), and the trace opens, writes, truncates,
# chmods, renames, links, mkdirs, unlinks and deltrees through them.  libnfs resolves symlinks itself
# and the client's directory is its mount root: nothing outside it may change, not the export's own
# files, not the directory outside the export.
mkdir -p "$tmp/outside/sub"
echo keep >"$tmp/outside/precious"
cat >"$tmp/hostile.ops" <<'OPS'
0.000000000 - c0 symlink path="/esc" path2="../../.." -> OK
0.000000001 - c0 symlink path="/abs" path2="/" -> OK
0.000000002 - c0 symlink path="/par" path2=".." -> OK
0.000000003 - c0 open path="/esc/ESC_open" fh=1 disp=open_if -> OK
0.000000004 - c0 write fh=1 off=0 len=10 ret=10 -> OK
0.000000005 - c0 close fh=1 -> OK
0.000000006 - c0 open path="/abs/ESC_abs" fh=2 disp=create -> OK
0.000000007 - c0 close fh=2 -> OK
0.000000008 - c0 mkdir path="/esc/ESC_dir" -> OK
0.000000009 - c0 mkdir path="/par/ESC_pardir" -> OK
0.000000010 - c0 unlink path="/par/secret" -> OK
0.000000011 - c0 write path="/par/secret" off=0 len=5 ret=5 -> OK
0.000000012 - c0 setattr path="/par/secret" set=mode,size len=0 mode=0777 -> OK
0.000000013 - c0 rename path="/par/secret" path2="/stolen" -> OK
0.000000014 - c0 link path="/par/secret" path2="/hardlink" -> OK
0.000000015 - c0 unlink path="/out/precious" -> OK
0.000000016 - c0 open path="/out/precious" fh=3 disp=trunc -> OK
0.000000017 - c0 close fh=3 -> OK
0.000000018 - c0 setattr path="/out/precious" set=mode mode=0777 -> OK
0.000000019 - c0 mkdir path="/rel/ESC_reldir" -> OK
0.000000020 - c0 open path="/rel/precious" fh=4 disp=trunc_if -> OK
0.000000021 - c0 write fh=4 off=0 len=3 ret=3 -> OK
0.000000022 - c0 close fh=4 -> OK
0.000000023 - c0 rmdir path="/out/sub" -> OK
0.000000024 - c0 deltree path="/par" -> OK
0.000000025 - c0 readdir path="/esc" -> OK
0.000000026 - c0 setattr path="/esc" set=mode mode=0700 -> OK
0.000000027 - c0 setattr path="/out" set=mode mode=0700 -> OK
0.000000028 - c0 unlink path="/pp/secret" -> OK
0.000000029 - c0 write path="/pp/secret" off=0 len=5 ret=5 -> OK
0.000000030 - c0 setattr path="/pp/secret" set=mode,size,mtime_now len=0 mode=0777 -> OK
0.000000031 - c0 open path="/pp/secret" fh=5 disp=trunc -> OK
0.000000032 - c0 write fh=5 off=0 len=3 ret=3 -> OK
0.000000033 - c0 close fh=5 -> OK
0.000000034 - c0 rename path="/pp/secret" path2="/stolen" -> OK
0.000000035 - c0 link path="/pp/secret" path2="/hardlink" -> OK
0.000000036 - c0 mkdir path="/pp/ESC_pp" -> OK
0.000000037 - c0 symlink path="/pp/ESC_link" path2="x" -> OK
0.000000038 - c0 deltree path="/pp/client1" -> OK
0.000000039 - c0 open path="/up/ESC_up" fh=6 disp=open_if -> OK
0.000000040 - c0 close fh=6 -> OK
0.000000041 - c0 unlink path="/absl/secret" -> OK
OPS
"$reprise" convert "$tmp/hostile.ops" "$tmp/hostile.rpz" >/dev/null 2>&1
snap() { # what must not change: outside the export, and the export beside the client's directory
	(cd "$tmp/outside" && find . -printf '%y %m %s %p\n' | sort && cat precious)
	(cd "$export_dir" && find . -path ./client1 -prune -o -printf '%y %m %s %p\n' | sort && cat secret)
}
for v in 3 4; do
	for prep in --no-prepare ""; do
		empty_export
		echo secret >"$export_dir/secret"
		mkdir "$export_dir/client1"
		ln -s "$tmp/outside" "$export_dir/client1/out"
		ln -s ../../../outside "$export_dir/client1/rel"
		ln -s .. "$export_dir/client1/pp"         # the export: outside the client's directory
		ln -s ../../.. "$export_dir/client1/up"
		ln -s / "$export_dir/client1/absl"
		snap >"$tmp/before"
		run "$reprise" replay "$tmp/hostile.rpz" --target "$(url $v)" --clients 1 $prep
		rc=$?
		snap >"$tmp/after"
		what="hostile symlinks over NFSv$v${prep:+ ($prep)}"
		if [ "$rc" -le 1 ] && cmp -s "$tmp/before" "$tmp/after"; then
			ok "$what: nothing outside the client's directory changed"
		else
			echo "# exit $rc"; diff "$tmp/before" "$tmp/after" | head -10 | sed 's/^/# /'
			not_ok "$what: nothing outside the client's directory changed"
		fi
		stray=$(find "$tmp" -name 'ESC_*' -not -path "$export_dir/client1/*" | head -3)
		same "$what: no file the trace made is outside its directory" "$stray" ""
	done
done

# 5b. Planted symlinks as the last component and in the middle of a path, in fresh directories (ganesha
# has seen none of their names): relative ones climbing out of the export, absolute ones outside it,
# a directory link in the middle.  ganesha's CREATE UNCHECKED follows a link it is given the name of,
# and libnfs's NFSv4 resolution of a link reads past a READLINK text that ends the reply (a multiple of
# 4 bytes: r10, r11 here; AddressSanitizer), so the backend checks each component's type first (NFSv3
# LOOKUP, NFSv4 lstat): a link in the middle is EXDEV, one at the end ELOOP (EEXIST for an exclusive
# create); ops on the link itself still work.  The files outside keep their contents, size, mode and times.
links_trace() { # the ops through link L1..L11 (each its own target), then on the links k1..k4 themselves
	i=0
	for l in "$@"; do
		cat <<OPS
open path="/${l}1" fh=1 disp=open_if -> OK
write fh=1 off=0 len=10 ret=10 -> OK
close fh=1 -> OK
open path="/${l}2" fh=2 disp=trunc -> OK
close fh=2 -> OK
open path="/${l}3" fh=3 disp=trunc_if -> OK
write fh=3 off=0 len=4 ret=4 -> OK
close fh=3 -> OK
setattr path="/${l}4" set=mode mode=0777 -> OK
setattr path="/${l}5" set=size len=0 -> OK
write path="/${l}6" off=0 len=5 ret=5 -> OK
open path="/${l}7" fh=4 disp=open -> OK
write fh=4 off=0 len=10 ret=10 -> OK
close fh=4 -> OK
open path="/${l}8" fh=5 disp=supersede -> OK
close fh=5 -> OK
mknod path="/${l}9" mode=0100644 -> OK
open path="/${l}10" fh=6 disp=create -> OK
close fh=6 -> OK
setattr path="/${l}11" set=mtime_now,mode mode=0600 -> OK
OPS
	done
	cat <<'OPS'
readlink path="/k1" -> OK
stat path="/k2" -> OK
rename path="/k3" path2="/k3moved" -> OK
unlink path="/k4" -> OK
OPS
}
links_trace r a rd/f ad/f | awk '{ printf "0.%09d - c0 %s\n", NR, $0 }' >"$tmp/links.ops"
"$reprise" convert "$tmp/links.ops" "$tmp/links.rpz" >/dev/null 2>&1
outside2=$tmp/outside2
for v in 3 4; do
	fresh=fresh$v
	cl=$export_dir/$fresh/client1
	rm -rf "$outside2"
	mkdir -p "$outside2/d" "$cl"
	for i in $(seq 1 11); do
		for f in "$outside2/r$i" "$outside2/a$i" "$outside2/d/f$i"; do printf 'precious %s\n' "$i" >"$f"; chmod 0644 "$f"; done
		ln -s "../../../../outside2/r$i" "$cl/r$i" # relative, climbing out of the export
		ln -s "$outside2/a$i" "$cl/a$i"             # absolute, outside the export
	done
	ln -s ../../../../outside2/d "$cl/rd" # a directory, in the middle of the path
	ln -s "$outside2/d" "$cl/ad"
	for k in 1 2 3 4; do ln -s "$outside2/r$k" "$cl/k$k"; done
	touch -d '2001-01-01 00:00:00' "$outside2"/* "$outside2"/d/*
	snap2() { (cd "$outside2" && find . -printf '%y %m %s %T@ %p\n' | sort && find . -type f | sort | xargs cat); }
	snap2 >"$tmp/before2"
	run "$reprise" replay "$tmp/links.rpz" --target "$(url $v $fresh)" --clients 1 --no-prepare -o "$tmp/links.json"
	rc=$?
	snap2 >"$tmp/after2"
	if [ "$rc" -le 1 ] && cmp -s "$tmp/before2" "$tmp/after2"; then
		ok "planted last-component and mid-path links over NFSv$v: the files outside are untouched"
	else
		echo "# exit $rc"; diff "$tmp/before2" "$tmp/after2" | head -10 | sed 's/^/# /'
		not_ok "planted last-component and mid-path links over NFSv$v: the files outside are untouched"
	fi
	# The ops on the links themselves still work: the rename moved the link, the unlink removed it.
	if [ -L "$cl/k3moved" ] && [ ! -e "$cl/k3" ] && [ ! -L "$cl/k3" ] && [ ! -L "$cl/k4" ] && [ -L "$cl/k1" ]; then
		ok "NFSv$v: rename and unlink act on a planted link itself"
	else
		ls -l "$cl" | grep ' k' | sed 's/^/# /'
		not_ok "NFSv$v: rename and unlink act on a planted link itself"
	fi
	# readlink alone (nothing resolves the link): libnfs's NFSv4 text has no NUL after it, and a strlen of
	# it read past the reply (AddressSanitizer, in the sanitizer build, for a text that ends the reply: a
	# multiple of 4 bytes, no XDR padding); the length is the link's size now.  24 bytes:
	ln -s ../../../../outside2/r10 "$cl/rl"
	printf '0.000000001 - c0 readlink path="/rl" -> OK\n0.000000002 - c0 readlink path="/rl" -> OK\n' >"$tmp/rl.ops"
	"$reprise" convert "$tmp/rl.ops" "$tmp/rl.rpz" >/dev/null 2>&1
	check "NFSv$v: readlink of a planted link, exit 0" "$reprise" replay "$tmp/rl.rpz" --target "$(url $v $fresh)" --clients 1 --no-prepare
	has "NFSv$v: readlink of a planted link, no failure" out '^Failed 0, mismatched 0'
	# What each op through a link must get, counted from the trace (NFSv3 and NFSv4 alike): at the end of
	# the path ELOOP, EEXIST for an exclusive create (mknod, disp=create); in the middle EXDEV.  readlink
	# and stat of a link succeed.
	at_end='path="/[ra][0-9]+"'
	want_excl=$(grep -Ec "$at_end.*(disp=create|mode=0100644)|mknod $at_end" "$tmp/links.ops")
	want_loop=$(($(grep -Ec "$at_end" "$tmp/links.ops") - want_excl))
	want_xdev=$(grep -Ec 'path="/(rd|ad)/' "$tmp/links.ops")
	errs=$(tr -d ' \n' <"$tmp/links.json" | grep -o '"errors":{[^}]*}')
	has_err() { case $errs in *"\"$1\":$2"[,}]*) ok "NFSv$v: $3 ($2 $1)" ;; *) echo "# $errs"; not_ok "NFSv$v: $3 ($2 $1)" ;; esac; }
	has_err ELOOP "$want_loop" "a symlink as the last component of an op acting through it is ELOOP"
	has_err EEXIST "$want_excl" "an exclusive create or mknod on a symlink is EEXIST"
	has_err EXDEV "$want_xdev" "a symlink in the middle of a path is EXDEV"
	# Each of those refusals is the backend's own (rp_breq.escape): counted as an escape, as the engine's are.
	escapes=$(tr -d ' \n' <"$tmp/links.json" | grep -o '"escapes":[0-9]*' | sed 's/.*://' | sort -n | tail -1)
	same "NFSv$v: every mid-path symlink refusal is counted an escape" "$escapes" "$want_xdev"
	linkops=$(tr -d ' \n' <"$tmp/links.json" | grep -Eo '"(readlink|stat|rename|unlink)":\{"count":[0-9]+,"bytes":[0-9]+,[^}]*"failures":[0-9]+' |
		sed -E 's/^"([a-z]+)".*"count":([0-9]+).*"failures":([0-9]+)$/\1 \2 \3/' | sort | tr '\n' ' ')
	same "NFSv$v: readlink, stat, rename and unlink of a planted link succeed (op count failures)" "$linkops" \
		"readlink 1 0 rename 1 0 stat 1 0 unlink 1 0 "
done

# 6. Errors: clear, exit 1, at once.
check_err() { # desc pattern command...
	desc=$1 pat=$2; shift 2
	run "$@"; rc=$?
	if [ "$rc" = 1 ] && grep -Eq -- "$pat" "$tmp/err"; then ok "$desc"; else echo "# exit $rc"; not_ok "$desc"; fi
}
free=$((nport + 2)); while listening "$free"; do free=$((free + 1)); done
printf 'Mkdir "\\d" NT_STATUS_OK\n' >"$tmp/one.txt"
check_err "a refused port: exit 1, the URL and the mount named" "nfs://127\.0\.0\.1/export\?version=3&nfsport=$free.*: mount 127\.0\.0\.1:/export failed" \
	"$reprise" replay "$tmp/one.txt" --target "nfs://127.0.0.1/export?version=3&nfsport=$free&mountport=$free" -q
# The refusal with a trace prepare makes a file for: the target is probed before prepare, so the run fails
# before any table and writes no JSON (there is no run to report).
printf 'NTCreateX "\\d\\f" 0x0 0x1 1 NT_STATUS_OK\nReadX 1 0 10 10 NT_STATUS_OK\nClose 1 NT_STATUS_OK\n' >"$tmp/prep1.txt"
for v in 3 4; do
	u="nfs://127.0.0.1/export?version=$v&nfsport=$free&mountport=$free"
	check_err "NFSv$v: a refused port before prepare: exit 1, said" "^reprise replay: nfs://127\.0\.0\.1/export" \
		"$reprise" replay "$tmp/prep1.txt" --target "$u" -j "$tmp/refused.json"
	if ! grep -q '^Throughput\|Operation' "$tmp/out" && [ ! -e "$tmp/refused.json" ]; then
		ok "NFSv$v: a refused port before prepare: no table, no JSON"
	else not_ok "NFSv$v: a refused port before prepare: no table, no JSON"; fi
done
# Each failure in the user's terms, which port refused and what to give, never libnfs's "nfs_service failed".
check_err "a refused MOUNT port: said which, and that it is the URL's mountport=" \
	"mount 127\.0\.0\.1:/export failed: nothing listens at 127\.0\.0\.1:$free: no MOUNT service on that port \(the URL's mountport=\)$" \
	"$reprise" replay "$tmp/one.txt" --target "nfs://127.0.0.1/export?version=3&nfsport=$nport&mountport=$free" -q
check_err "NFSv3: a refused NFS port: said which, and that it is the URL's nfsport=" \
	"mount 127\.0\.0\.1:/export failed: nothing listens at 127\.0\.0\.1:$free: no NFS server on that port \(the URL's nfsport=\)$" \
	"$reprise" replay "$tmp/one.txt" --target "nfs://127.0.0.1/export?version=3&nfsport=$free&mountport=$mport" -q
check_err "NFSv4: a refused NFS port: said which" \
	"mount 127\.0\.0\.1:/export failed: nothing listens at 127\.0\.0\.1:$free: no NFS server on that port" \
	"$reprise" replay "$tmp/one.txt" --target "nfs://127.0.0.1/export?version=4&nfsport=$free" -q
lacks "no error is libnfs's \"nfs_service failed\"" err 'nfs_service failed'
# No portmapper: a network namespace of its own, where nothing listens on 111 (the host's rpcbind is outside it).
if unshare -n true 2>/dev/null; then
	check_err "no portmapper: say so, and give nfsport= and mountport= or start rpcbind" \
		"mount 127\.0\.0\.1:/export failed: no portmapper at 127\.0\.0\.1:111: give nfsport= and mountport= in the URL, or start rpcbind$" \
		unshare -n sh -c 'ip link set lo up 2>/dev/null; exec "$@"' sh "$reprise" replay "$tmp/one.txt" --target "nfs://127.0.0.1/export?version=3" -q
else
	ok "no portmapper # skip cannot make a network namespace (unshare -n)"
fi
check_err "an unknown export over NFSv3: exit 1, named (ganesha answers MNT3ERR_ACCES)" \
	"mount 127\.0\.0\.1:/nope failed: 127\.0\.0\.1 refused to mount /nope \(MNT3ERR_ACCES\): no such export, or it is not exported to this client" \
	"$reprise" replay "$tmp/one.txt" --target "nfs://127.0.0.1/nope?version=3&nfsport=$nport&mountport=$mport" -q
check_err "an unknown export over NFSv4: exit 1, named" \
	"mount 127\.0\.0\.1:/nope failed: 127\.0\.0\.1 has no /nope in its NFSv4 pseudo file system \(NFS4ERR_NOENT\)" \
	"$reprise" replay "$tmp/one.txt" --target "nfs://127.0.0.1/nope?version=4&nfsport=$nport" -q
check_err "version=2 is refused" "libnfs speaks NFS version 3 or 4" \
	"$reprise" replay "$tmp/one.txt" --target "nfs://127.0.0.1/export?version=2" -q
check_err "an unknown URL option is refused" "unknown option 'vers'" \
	"$reprise" replay "$tmp/one.txt" --target "nfs://127.0.0.1/export?vers=3" -q

# 7. The closed loop (docs/network-fidelity.md, "NFSv3 and NFSv4"): the traffic a replay of client.txt (a
# cut) sends to ganesha, captured live on lo, has the op mix of the loadfile in the ops that matter.
# NFSv4's writes go in libnfs 4.0's 3 KiB pieces, so there the writes are compared by bytes, not count.
if [ -r "$client" ] && "$reprise" stat --help 2>&1 | grep -q -- '--diff'; then
	for v in 3 4; do
		empty_export
		"$reprise" capture --iface lo --filter "tcp port $nport or tcp port $mport" --duration 300 -o "$tmp/cap$v.rpz" \
			2>"$tmp/cap.err" &
		bg=$!
		sleep 1.5 # libpcap has no "ready" signal; activation takes well under this
		run "$reprise" replay "$tmp/client.txt" --target "$(url $v)" -q
		sleep 0.5
		kill -INT "$bg"
		wait "$bg"
		crc=$?
		bg=
		same "NFSv$v: capture on lo while replaying (exit 0)" "$crc" 0
		ops=read,write,unlink,rename,mkdir,rmdir
		[ "$v" = 4 ] && ops=read,unlink,rename,mkdir,rmdir
		# Frames the kernel dropped (a loaded machine) are ops the capture lacks: then counts cannot be equal.
		if grep -Eq 'kernel drops [1-9]' "$tmp/cap.err"; then
			for d in "op mix" "bytes read" "bytes written"; do
				ok "NFSv$v closed loop: $d # skip the capture lost frames: $(grep -Eo 'kernel drops [0-9]+' "$tmp/cap.err")"
			done
			continue
		fi
		run "$reprise" stat --diff "$tmp/client.txt" "$tmp/cap$v.rpz" --ops "$ops" --check
		rc=$?
		if [ "$rc" = 0 ] && grep -q '^op mix: same' "$tmp/out"; then ok "NFSv$v: the captured op mix of $ops is client.txt's"
		else grep -E '^(\*|op mix)' "$tmp/out" | head -12 | sed 's/^/# /'; not_ok "NFSv$v: the captured op mix of $ops is client.txt's"; fi
		has "NFSv$v: the bytes read on the wire are the loadfile's" out '^  bytes read +([0-9]+) +\1 +0 '
		has "NFSv$v: the bytes written on the wire are the loadfile's" out '^  bytes written +([0-9]+) +\1 +0 '
	done
else
	for v in 3 4; do for d in "capture" "op mix" "bytes read" "bytes written"; do ok "NFSv$v closed loop: $d # skip no client.txt or no stat --diff"; done; done
fi

# 8. A server that hangs (SIGSTOP) mid-run: an RPC unanswered for the backend's timeout ends the run, exit 1.
if [ -r "$client" ]; then
	empty_export
	gpid=$(cat "$srv/ganesha.pid")
	timeout -k 5 60 "$reprise" replay "$tmp/client.txt" --target "$(url 3)" --clients 2 -t 30 -O timeout=1s >"$tmp/out" 2>"$tmp/err" &
	bg=$!
	for _ in $(seq 1 100); do [ -d "$export_dir/client2/clients" ] && break; sleep 0.1; done
	sleep 0.5
	kill -STOP "$gpid"
	wait "$bg"
	rc=$?
	bg=
	kill -CONT "$gpid"
	same "ganesha stopped mid-run: exit 1 (not a hang: timeout exits 124)" "$rc" 1
	has "the error says no reply came within the timeout" err "nfs://127\.0\.0\.1/export\?version=3.*: no reply to an RPC within 1000 ms"
else
	for d in "stopped mid-run" "no reply"; do ok "$d # skip no $client"; done
fi

# 9. ganesha killed mid-run: the run stops with what it completed, exit 1, no hang.
if [ -r "$client" ]; then
	empty_export
	timeout -k 5 60 "$reprise" replay "$tmp/client.txt" --target "$(url 3)" --clients 2 -t 30 >"$tmp/out" 2>"$tmp/err" &
	bg=$!
	for _ in $(seq 1 100); do [ -d "$export_dir/client2/clients" ] && break; sleep 0.1; done
	sleep 1
	"$fixtures/ganesha.sh" stop "$srv"
	wait "$bg"
	rc=$?
	bg=
	same "ganesha killed mid-run: exit 1 (not a hang: timeout exits 124)" "$rc" 1
	has "the error names the URL and the lost connection" err "nfs://127\.0\.0\.1/export\?version=3.*: the server (closed the connection|connection failed)"
	has "the results of what it completed are still printed" out '^Throughput .*stopped: error'
else
	for d in "killed mid-run" "names the URL" "results"; do ok "$d # skip no $client"; done
fi
echo "1..$n"
