#!/bin/bash
# The smb replay backend against a real smbd on 127.0.0.1 (TAP; tests/fixtures/smbd.sh): dbench's
# client.txt (a cut) with 2 clients over SMB3 (0 mismatches, the same tree on disk as posix
# makes), traces converted from SMB and NFS captures (no more mismatches than posix), hostile
# names, guest vs user, a symlink out of the share, the errors: a refused port, a wrong
# password, an unknown share, smbd killed mid-run (exit 1, no hang); and the closed loop: a
# replay's traffic captured live on lo has the op mix of the trace replayed (reprise stat --diff).
#   smb_server.sh REPRISE SOURCE_ROOT
set -u
reprise=$1
root=$2
fixtures=$root/tests/fixtures
pcaps=$root/tests/data/pcap
. "${0%/*}/../lib/tap.sh"
. "${0%/*}/../lib/ports.sh"
unset REPRISE_SMB_PASSWORD

command -v smbd >/dev/null || { echo "1..0 # SKIP smbd not installed (apt-get install samba)"; exit 0; }
"$reprise" replay --list-backends | grep -q '^  smb ' || { echo "1..0 # SKIP built without the smb backend"; exit 0; }

tmp=$(mktemp -d /tmp/reprise-smb.XXXXXX) || exit 1
chmod 755 "$tmp" # the guest account (nobody) reaches the share through it
bg= cap=
cleanup() {
	[ -n "$bg" ] && kill "$bg" 2>/dev/null && wait "$bg" 2>/dev/null
	[ -n "$cap" ] && kill -INT "$cap" 2>/dev/null && wait "$cap" 2>/dev/null
	"$fixtures/smbd.sh" stop "$tmp/srv" >/dev/null 2>&1
	pkill -CONT -f "$tmp/srv2/smb.conf" 2>/dev/null
	"$fixtures/smbd.sh" stop "$tmp/srv2" >/dev/null 2>&1
	rm -rf "$tmp"
}
trap cleanup EXIT INT TERM

# Nothing may hang: a command still running after 120 s fails (timeout exits 124).
run() { timeout 120 "$@" >"$tmp/out" 2>"$tmp/err"; }
check() { desc=$1; shift; if run "$@"; then ok "$desc"; else not_ok "$desc"; fi; }
check_fails() { desc=$1; want=$2; shift 2; run "$@"; rc=$?
	if [ "$rc" = "$want" ]; then ok "$desc"; else echo "# exit $rc, wanted $want"; not_ok "$desc"; fi; }
mismatches() { sed -n 's/^Failed .*mismatched \([0-9]*\).*/\1/p' "$tmp/$1"; }

# A port of our own, away from the usual ones, different per run; the next ones if taken.
for _ in 1 2 3 4 5; do
	port=$(free_ports $(($$ + RANDOM)) 1) || break
	"$fixtures/smbd.sh" start "$tmp/srv" "$port" >"$tmp/err" 2>&1 && break
done
(exec 3<>/dev/tcp/127.0.0.1/"$port") 2>/dev/null || { echo "1..0 # SKIP smbd did not start: $(head -c 300 "$tmp/err")"; exit 0; }
share=$tmp/srv/share
url=smb://127.0.0.1:$port/share
user=(--user 'root%pw')
clean_share() { rm -rf "${share:?}"/* "$share"/.[!.]* 2>/dev/null; }
# A listing of a tree: type, size and name of every entry (what prepare and the run made).
tree() { (cd "$1" && find . -mindepth 1 \( -type f -printf 'f %s %p\n' \) -o \( -type d -printf 'd - %p\n' \) | sort); }

echo "1..71"

# 1-5. client.txt's first 6000 lines, 2 clients over SMB3: as posix, failures as recorded, 0 mismatches,
# and the tree the run leaves in the share is the one the same run leaves in a directory.
client=/usr/share/dbench/client.txt
if [ -r "$client" ]; then
	head -n 6000 "$client" >"$tmp/client.txt"
	clean_share
	check "client.txt, 2 clients, over SMB3" "$reprise" replay "$tmp/client.txt" --target "$url" "${user[@]}" --clients 2 -q \
		-j "$tmp/c.json" -O password=pw
	has "client.txt over SMB: failures as recorded, 0 mismatched" out '^Failed [0-9]+ \(all as recorded\), mismatched 0'
	has "client.txt over SMB: flush and locks are counted unsupported" out '^Unsupported by the smb backend .*: [1-9]'
	mkdir "$tmp/posix"
	run "$reprise" replay "$tmp/client.txt" --target "$tmp/posix" --clients 2 -q
	tree "$tmp/posix" >"$tmp/tree.posix"
	tree "$share" >"$tmp/tree.smb"
	if [ -s "$tmp/tree.smb" ] && cmp -s "$tmp/tree.posix" "$tmp/tree.smb"; then ok "the share holds the tree posix makes ($(wc -l <"$tmp/tree.smb") entries)"
	else diff "$tmp/tree.posix" "$tmp/tree.smb" | head -20 | sed 's/^/# /'; not_ok "the share holds the tree posix makes"; fi
	# The JSON keeps the command line, with the passwords given in --user and -O starred out.
	if grep -q '"root%\*\*\*"' "$tmp/c.json" && grep -q '"password=\*\*\*"' "$tmp/c.json" && ! grep -q 'root%pw\|password=pw' "$tmp/c.json"; then
		ok "the JSON's command line has no password"
	else grep -o '"command_line":[^]]*' "$tmp/c.json" | sed 's/^/# /'; not_ok "the JSON's command line has no password"; fi
else
	for i in 1 2 3 4 5; do ok "client.txt # skip no $client (dbench package)"; done
fi

# 6-13. Traces converted from captures, SMB and NFS: no more mismatches on smb than on posix.
for p in reprise__smb3-smbclient.pcap nfstrace__eth-ipv4-tcp-smb2-putty.pcap zeek__smb_smb2readwrite.pcap \
	zeek__smb_smb2_100_small_files.pcap nfstrace__eth-ipv4-tcp-cifs2.pcap \
	nfstrace__eth-ipv6-tcp-nfsv3__pkts1-1500.pcap nfstrace__lo-ipv4-tcp-nfsv3-nfsacl.pcap \
	nfstrace__2sessions-tcp-wsize32k-tcp-wsize512k__pkts1-2400.pcap; do
	if [ ! -r "$pcaps/$p" ]; then ok "$p # skip not in tests/data/pcap"; continue; fi
	rm -rf "$tmp/p" && mkdir "$tmp/p"
	"$reprise" convert "$pcaps/$p" "$tmp/t.rpz" >/dev/null 2>&1
	run "$reprise" replay "$tmp/t.rpz" --target "$tmp/p" -q
	cp "$tmp/out" "$tmp/out.posix"
	clean_share
	run "$reprise" replay "$tmp/t.rpz" --target "$url" "${user[@]}" -q
	a=$(mismatches out.posix) b=$(mismatches out)
	if [ -n "$b" ] && [ "$b" -le "${a:-0}" ]; then ok "$p: $b mismatches on smb, $a on posix"
	else echo "# posix: ${a:-?}, smb: ${b:-?}"; not_ok "$p: no more mismatches on smb than on posix"; fi
done

# 14-17. Hostile names: '%', '#', spaces, '+', ';', '@' and non-ASCII bytes name themselves in the
# share (percent-encoded in the URLs), and so does an encoded target directory.
cat >"$tmp/h.ops" <<'EOF'
0.000000000 0.000001000 c1 mkdir path="/d%20#x" -> OK
0.000002000 0.000003000 c1 open path="/d%20#x/a b%c#d+e;f@g" fh=1 disp=create want=read,write -> OK
0.000004000 0.000005000 c1 write fh=1 off=0 len=200000 ret=200000 -> OK
0.000006000 0.000007000 c1 close fh=1 -> OK
0.000008000 0.000009000 c1 open path="/\xe2\x82\xac-euro" fh=2 disp=create want=read,write -> OK
0.000010000 0.000011000 c1 close fh=2 -> OK
0.000012000 0.000013000 c1 stat path="/d%20#x/a b%c#d+e;f@g" -> OK
0.000014000 0.000015000 c1 rename path="/\xe2\x82\xac-euro" path2="/d%20#x/100%" -> OK
0.000016000 0.000017000 c1 open path="/d%20#x/a b%c#d+e;f@g" fh=3 want=read -> OK
0.000018000 0.000019000 c1 read fh=3 off=0 len=300000 ret=200000 -> OK
0.000020000 0.000021000 c1 close fh=3 -> OK
EOF
"$reprise" convert "$tmp/h.ops" "$tmp/h.rpz" >/dev/null 2>&1
clean_share
mkdir -p "$share/t 100%#"
check "hostile names replay" "$reprise" replay "$tmp/h.rpz" --target "$url/t%20100%25%23" "${user[@]}" -q
has "hostile names: 0 mismatches" out '^Failed 0, mismatched 0'
if [ "$(stat -c %s "$share/t 100%#/d%20#x/a b%c#d+e;f@g" 2>/dev/null)" = 200000 ]; then ok "a b%c#d+e;f@g holds its 200000 bytes, in d%20#x, in 't 100%#'"
else ls -laR "$share" | sed 's/^/# /' | head -20; not_ok "a b%c#d+e;f@g holds its 200000 bytes"; fi
if [ -f "$share/t 100%#/d%20#x/100%" ] && [ ! -e "$share/t 100%#/€-euro" ]; then ok "€-euro was renamed to d%20#x/100%"
else not_ok "€-euro was renamed to d%20#x/100%"; fi

# 18-19. Prepare makes what the trace expects through the backend: a file the trace reads, with its size.
cat >"$tmp/p.ops" <<'EOF'
0.000000000 0.000001000 c1 open path="/pre/old.dat" fh=1 ret=1 want=read -> OK
0.000002000 0.000003000 c1 read fh=1 off=0 len=300000 ret=300000 -> OK
0.000004000 0.000005000 c1 close fh=1 -> OK
EOF
"$reprise" convert "$tmp/p.ops" "$tmp/p.rpz" >/dev/null 2>&1
clean_share
run "$reprise" replay "$tmp/p.rpz" --target "$url" "${user[@]}" -q
has "prepare over SMB: 1 directory, 1 file, 300 KB" out '^Prepare: 1 directory, 1 file, 300.0 KB written'
if [ "$(stat -c %s "$share/pre/old.dat" 2>/dev/null)" = 300000 ] && grep -q '^Failed 0, mismatched 0' "$tmp/out"; then
	ok "the prepared file is in the share with its size, and the trace's read of it matches"
else not_ok "the prepared file is in the share with its size"; fi

# 20-21. A symlink to outside planted in the share leads nowhere: the server follows none.
mkdir "$tmp/outside"
clean_share
ln -s "$tmp/outside" "$share/escape"
printf '0.000000000 0.000001000 c1 open path="/escape/planted" fh=1 disp=create want=read,write -> OK\n0.000002000 0.000003000 c1 close fh=1 -> OK\n' >"$tmp/e.ops"
"$reprise" convert "$tmp/e.ops" "$tmp/e.rpz" >/dev/null 2>&1
run "$reprise" replay "$tmp/e.rpz" --target "$url" "${user[@]}" -q --no-prepare
if [ -z "$(ls -A "$tmp/outside")" ]; then ok "nothing was made through a symlink out of the share"; else not_ok "nothing was made through a symlink out of the share"; fi
has "the open through it failed (ENOENT)" err 'mismatch: 1 x open, expected OK, got ENOENT'

# 22-24. Guest vs user: a guest's files are the guest account's, the user's are the user's; a password
# from the environment or an auth file works as --user's does.
printf '0.000000000 0.000001000 c1 open path="/who" fh=1 disp=create want=read,write -> OK\n0.000002000 0.000003000 c1 close fh=1 -> OK\n' >"$tmp/w.ops"
"$reprise" convert "$tmp/w.ops" "$tmp/w.rpz" >/dev/null 2>&1
clean_share
run "$reprise" replay "$tmp/w.rpz" --target "$url" -q
g=$(stat -c %U "$share/who" 2>/dev/null)
[ -n "$g" ] || sed 's/^/# guest: /' "$tmp/out" "$tmp/err"
clean_share
printf 'username = root\npassword = pw\n' >"$tmp/auth"
run "$reprise" replay "$tmp/w.rpz" --target "$url" --authfile "$tmp/auth" -q
u=$(stat -c %U "$share/who" 2>/dev/null)
if [ -n "$g" ] && [ "$g" != root ] && [ "$u" = root ]; then ok "guest's file is $g's, the auth file user's is root's"; else echo "# guest: '$g', user: '$u'"; not_ok "guest vs user"; fi
clean_share
REPRISE_SMB_PASSWORD=pw run "$reprise" replay "$tmp/w.rpz" --target "$url" --user root -q
if [ "$(stat -c %U "$share/who" 2>/dev/null)" = root ]; then ok "REPRISE_SMB_PASSWORD gives --user its password"; else not_ok "REPRISE_SMB_PASSWORD gives --user its password"; fi
printf 'username = root\npasswd = pw\n' >"$tmp/auth.bad"
check_fails "a bad auth file: exit 1, naming file and line" 1 "$reprise" replay "$tmp/w.rpz" --target "$url" --authfile "$tmp/auth.bad" -q
grep -q "auth.bad:2: unknown key 'passwd'" "$tmp/err" || echo "# error: $(cat "$tmp/err")"

# 25-30. Errors: clear, naming the URL, exit 1, no hang; a password never printed.
check_fails "wrong password: exit 1" 1 "$reprise" replay "$tmp/w.rpz" --target "$url" --user 'root%secretXYZ' -q -j "$tmp/bad.json"
has "wrong password: said, naming the URL" err "$url: Permission denied \(wrong user or password"
if ! grep -q secretXYZ "$tmp/err" "$tmp/out" && { [ ! -e "$tmp/bad.json" ] || ! grep -q secretXYZ "$tmp/bad.json"; }; then ok "the password is in no output"
else not_ok "the password is in no output"; fi
check_fails "unknown share: exit 1" 1 "$reprise" replay "$tmp/w.rpz" --target "smb://127.0.0.1:$port/nosuch" "${user[@]}" -q
has "unknown share: said" err "smb://127.0.0.1:$port/nosuch: No such file or directory"
check_fails "refused port: exit 1" 1 "$reprise" replay "$tmp/w.rpz" --target "smb://127.0.0.1:$((port + 1))/share" "${user[@]}" -q
grep -q "Connection refused" "$tmp/err" || echo "# error: $(cat "$tmp/err")"
# The same refusal with a trace prepare makes a file for: the target is probed before prepare, so the run
# fails before any table, and writes no JSON (there is no run to report).
printf 'NTCreateX "\\d\\f" 0x0 0x1 1 NT_STATUS_OK\nReadX 1 0 10 10 NT_STATUS_OK\nClose 1 NT_STATUS_OK\n' >"$tmp/prep1.txt"
check_fails "refused port before prepare: exit 1" 1 "$reprise" replay "$tmp/prep1.txt" --target "smb://127.0.0.1:$((port + 1))/share" \
	"${user[@]}" -q -j "$tmp/refused.json"
if grep -q "smb://127.0.0.1:$((port + 1))/share: Connection refused" "$tmp/err" && ! grep -q '^Throughput\|Operation' "$tmp/out" &&
	[ ! -e "$tmp/refused.json" ]; then ok "refused port before prepare: said, no table, no JSON"
else not_ok "refused port before prepare: said, no table, no JSON"; fi

# A target that is not empty: the warning posix gives, from a READDIR of the target's root before prepare;
# none for an empty one.
clean_share
mkdir -p "$share/full/there" "$share/empty"
echo x >"$share/full/f"
run "$reprise" replay "$tmp/prep1.txt" --target "$url/full" "${user[@]}" -q
has "a target with 2 entries: the warning says so" err "warning: $url/full is not empty \(2 entries before the run\)"
run "$reprise" replay "$tmp/prep1.txt" --target "$url/empty" "${user[@]}" -q
lacks "an empty target: no such warning" err "is not empty"
clean_share

# --cleanup through the backend: what the run made goes (files, directories), what was there stays (a file,
# a directory and its file, a file the run renamed into a directory it made, which stays for it).
printf '%s\n' '0.000000001 - c0 mkdir path="/newdir" -> OK' '0.000000002 - c0 open path="/newdir/f" fh=1 disp=create -> OK' \
	'0.000000003 - c0 write fh=1 off=0 len=10 ret=10 -> OK' '0.000000004 - c0 close fh=1 -> OK' \
	'0.000000005 - c0 rename path="/old2" path2="/newdir/moved" -> OK' '0.000000006 - c0 mkdir path="/gone" -> OK' \
	'0.000000007 - c0 open path="/gone/x" fh=2 disp=create -> OK' '0.000000008 - c0 close fh=2 -> OK' \
	'0.000000009 - c0 open path="/keep/new" fh=3 disp=create -> OK' '0.000000010 - c0 close fh=3 -> OK' >"$tmp/clean.ops"
"$reprise" convert "$tmp/clean.ops" "$tmp/clean.rpz" >/dev/null 2>&1
mkdir -p "$share/cl/keep"
echo x >"$share/cl/keep/old"
echo y >"$share/cl/old2"
run "$reprise" replay "$tmp/clean.rpz" --target "$url/cl" "${user[@]}" --cleanup -q
has "--cleanup: 4 made removed, 4 of before left" out '^Cleanup: 4 entries the run made removed, 4 of before left$'
if [ "$(cd "$share/cl" && find . -mindepth 1 | sort | tr '\n' ' ')" = "./keep ./keep/old ./newdir ./newdir/moved " ]; then
	ok "--cleanup: the tree of before, the renamed file in the directory made for it"
else (cd "$share/cl" && find . | sed 's/^/# /'); not_ok "--cleanup: the tree of before, the renamed file in the directory made for it"; fi
clean_share

# 31-32. smbd killed mid-run: the run stops with an error naming the target, reports what it did, exits 1.
port2=$((port + 1))
"$fixtures/smbd.sh" start "$tmp/srv2" "$port2" >/dev/null 2>&1
if [ -r "$client" ]; then
	timeout 120 "$reprise" replay "$client" --target "smb://127.0.0.1:$port2/share" "${user[@]}" --clients 2 -q >"$tmp/out" 2>"$tmp/err" &
	bg=$!
	# Killed once the run is under way (the share has the clients' files), or after 10 s.
	for _ in $(seq 1 100); do [ -d "$tmp/srv2/share/client2/clients" ] && break; sleep 0.1; done
	sleep 1
	"$fixtures/smbd.sh" stop "$tmp/srv2" >/dev/null 2>&1
	wait "$bg"
	rc=$?
	bg=
	if [ "$rc" = 1 ]; then ok "smbd killed mid-run: exit 1"; else echo "# exit $rc"; not_ok "smbd killed mid-run: exit 1"; fi
	if grep -q "smb://127.0.0.1:$port2/share: the smb backend cannot go on" "$tmp/err" && grep -q '^Throughput' "$tmp/out"; then
		ok "smbd killed mid-run: the error names the target, the table reports what ran"
	else not_ok "smbd killed mid-run: the error names the target, the table reports what ran"; fi
else
	ok "smbd killed mid-run # skip no $client"
	ok "smbd killed mid-run # skip no $client"
fi

# 33-35. The closed loop: capture on lo what a replay of client.txt (1000 lines, 2 clients) sends to
# smbd, and compare it with the loadfile: the mix of reads, writes, deletes, renames, mkdirs and
# rmdirs is the same (docs/network-fidelity.md, "SMB3", explains the rest of the comparison).
if [ "$(id -u)" -ne 0 ] || ! "$reprise" --version | grep -q 'libpcap=[0-9]'; then
	for d in capture "op mix" "said so"; do ok "closed loop: $d # skip needs root and libpcap"; done
elif [ ! -r "$client" ]; then
	for d in capture "op mix" "said so"; do ok "closed loop: $d # skip no $client"; done
else
	head -n 1000 "$client" >"$tmp/c2k.txt"
	clean_share
	"$reprise" capture --iface lo --filter "tcp port $port" -o "$tmp/cap.rpz" 2>"$tmp/cap.err" &
	cap=$!
	# Capturing once the summary line says so (the filter is set), or after 5 s.
	for _ in $(seq 1 50); do grep -q 'Ctrl-C stops' "$tmp/cap.err" && break; sleep 0.1; done
	run "$reprise" replay "$tmp/c2k.txt" --target "$url" "${user[@]}" --clients 2 -q
	sleep 0.5 # the last replies leave lo
	kill -INT "$cap"
	wait "$cap"
	crc=$?
	cap=
	if [ "$crc" = 0 ] && [ -s "$tmp/cap.rpz" ]; then ok "closed loop: the replay's traffic captured"
	else sed 's/^/# capture: /' "$tmp/cap.err"; not_ok "closed loop: the replay's traffic captured"; fi
	check "closed loop: stat --diff --check: the op mix of read, write, unlink, rename, mkdir, rmdir is the same" \
		"$reprise" stat --diff "$tmp/c2k.txt" "$tmp/cap.rpz" --ops read,write,unlink,rename,mkdir,rmdir --check
	has "closed loop: said so" out '^op mix: same'
fi

# 36-44. Prepare never rewrites what was there (issue 22): a trace that only reads /precious.txt leaves
# its bytes as they were, --prepare-fill sparse too; one too short is extended beyond its end only, with
# a warning; --prepare-overwrite rewrites it.  Self-contained: its own trace and files.
printf 'NTCreateX "\\precious.txt" 0x0 0x1 1 NT_STATUS_OK\nReadX 1 0 10 10 NT_STATUS_OK\nClose 1 NT_STATUS_OK\n' >"$tmp/keep.txt"
for fill in data zero sparse; do
	clean_share
	printf 'precious!\n' >"$share/precious.txt"
	run "$reprise" replay "$tmp/keep.txt" --target "$url" "${user[@]}" --prepare-fill $fill
	if [ "$(cat "$share/precious.txt")" = "precious!" ]; then ok "SMB ($fill): a file there before keeps its bytes"
	else od -c "$share/precious.txt" | head -2 | sed 's/^/# /'; not_ok "SMB ($fill): a file there before keeps its bytes"; fi
	has "SMB ($fill): the warning says it was kept" err 'warning: prepare found 1 file already there: 1 kept'
done
clean_share
printf 'abc' >"$share/precious.txt"
run "$reprise" replay "$tmp/keep.txt" --target "$url" "${user[@]}"
if [ "$(stat -c %s "$share/precious.txt"):$(head -c 4 "$share/precious.txt")" = "10:abcZ" ]; then ok "SMB: a file too short is extended after its own bytes"
else od -c "$share/precious.txt" | head -2 | sed 's/^/# /'; not_ok "SMB: a file too short is extended after its own bytes"; fi
has "SMB: the warning says it was extended" err 'warning: prepare found 1 file already there: 0 kept .*, 1 too short and extended'
clean_share
printf 'precious!\n' >"$share/precious.txt"
run "$reprise" replay "$tmp/keep.txt" --target "$url" "${user[@]}" --prepare-overwrite
if [ "$(cat "$share/precious.txt")" = ZZZZZZZZZZ ]; then ok "SMB --prepare-overwrite: rewritten with the pattern"
else not_ok "SMB --prepare-overwrite: rewritten with the pattern"; fi
clean_share

# 45-47. Names SMB treats as syntax or reserves (MS-FSCC 2.1.5.2: '\', ':' (streams), '*', '?', '"', '<',
# '>', '|', 0x01-0x1F) are legal POSIX and NFS names: refused (EXDEV, counted as escaping paths), so
# `..\secret\file` never reaches the share above smb://host/share/sub.  A plain name still works.
cat >"$tmp/bs.ops" <<'EOF'
0.000000000 0.000001000 c1 mkdir path="/..\\escaped-dir" -> OK
0.000002000 0.000003000 c1 open path="/..\\secret\\file" fh=1 disp=create want=read,write -> OK
0.000004000 0.000005000 c1 write fh=1 off=0 len=100 ret=100 -> OK
0.000006000 0.000007000 c1 close fh=1 -> OK
0.000008000 0.000009000 c1 open path="/a:stream" fh=2 disp=create want=read,write -> OK
0.000010000 0.000011000 c1 close fh=2 -> OK
0.000012000 0.000013000 c1 mkdir path="/ok" -> OK
0.000014000 0.000015000 c1 rename path="/ok" path2="/..\\renamed" -> OK
0.000016000 0.000017000 c1 stat path="/ok/x*y" -> ENOENT
0.000018000 0.000019000 c1 stat path="/ok/x?y" -> ENOENT
0.000020000 0.000021000 c1 stat path="/ok/x\"y" -> ENOENT
0.000022000 0.000023000 c1 stat path="/ok/x<y" -> ENOENT
0.000024000 0.000025000 c1 stat path="/ok/x>y" -> ENOENT
0.000026000 0.000027000 c1 stat path="/ok/x|y" -> ENOENT
0.000028000 0.000029000 c1 stat path="/ok/x\x01y" -> ENOENT
0.000030000 0.000031000 c1 stat path="/ok/x\x1fy" -> ENOENT
0.000032000 0.000033000 c1 open path="/plain" fh=3 disp=create want=read,write -> OK
0.000034000 0.000035000 c1 close fh=3 -> OK
EOF
"$reprise" convert "$tmp/bs.ops" "$tmp/bs.rpz" >/dev/null 2>&1
clean_share
mkdir -m 777 "$share/sub" "$share/secret"
run "$reprise" replay "$tmp/bs.rpz" --target "$url/sub" "${user[@]}" -q --no-prepare
if [ "$(ls -A "$share" | tr '\n' ' ')" = "secret sub " ] && [ -z "$(ls -A "$share/secret")" ]; then
	ok "a backslash name writes nothing outside the replay's directory"
else find "$share" | sed 's/^/# /'; not_ok "a backslash name writes nothing outside the replay's directory"; fi
# Refused: 2 mkdir/open of '..\', the stream open, the rename's target and the 8 stats.
has "the 12 reserved names are counted as escaping paths" out '^Failed .*, escaping paths 12$'
if [ -f "$share/sub/plain" ] && [ -d "$share/sub/ok" ]; then ok "a plain name beside them is made, and the refused rename left ok/ where it was"; else not_ok "a plain name beside them is made"; fi

# 48-49. IPC$ is the server's inter-process share, no disk: refused by name (it said "Connection refused").
check_fails "IPC\$: exit 1" 1 "$reprise" replay "$tmp/w.rpz" --target "smb://127.0.0.1:$port/IPC\$" "${user[@]}" -q
has "IPC\$: said it is no disk share" err 'IPC\$: IPC\$ is the server.s inter-process share, not a disk share'

# 50-52. A --user the server does not know, which the fixture's `map to guest = bad user` would log in
# as guest: exit 1, saying so, and nothing made in the share; the right user still logs in (test 1 on).
clean_share
check_fails "an unknown --user mapped to guest: exit 1" 1 "$reprise" replay "$tmp/w.rpz" --target "$url" --user 'nosuchuser%x' -q
has "an unknown --user mapped to guest: said" err "$url: .*guest session"
if [ ! -e "$share/who" ]; then ok "an unknown --user mapped to guest: nothing made"; else not_ok "an unknown --user mapped to guest: nothing made"; fi

# 53-54. A stopped smbd (SIGSTOP: the connections stay up, nothing answers), 8 clients, timeout=2s:
# the first request to time out marks the server gone and cuts every connection to it, so the other
# clients' requests and the teardown's closes, tree disconnects and logoffs fail at once instead of
# each waiting out the timeout in turn under libsmbclient's lock (before: ~3 timeouts per client,
# one client after another, 48 s here and minutes with more open files).  The bound is 30 s:
# 15 timeouts, far above the few the run needs, far below what one per request takes.
if [ -r "$client" ]; then
	"$fixtures/smbd.sh" start "$tmp/srv2" "$port2" >/dev/null 2>&1
	rm -rf "${tmp:?}/srv2/share/"*
	timeout -k 5 30 "$reprise" replay "$tmp/client.txt" --target "smb://127.0.0.1:$port2/share" "${user[@]}" \
		--clients 8 -O timeout=2s -q >"$tmp/out" 2>"$tmp/err" &
	bg=$!
	for _ in $(seq 1 200); do [ -d "$tmp/srv2/share/client7/clients" ] && break; sleep 0.1; done
	sleep 0.5
	pkill -STOP -f "$tmp/srv2/smb.conf"
	stopped=$(date +%s%N)
	wait "$bg"
	rc=$?
	took=$((($(date +%s%N) - stopped) / 1000000))
	bg=
	pkill -CONT -f "$tmp/srv2/smb.conf"
	# The stop comes within about one timeout (the watchdog cuts every connection once a request waited
	# it out): the bound, 4 timeouts, is far above the ~2.2 s it takes and far below a wait per request.
	if [ "$rc" = 1 ] && [ "$took" -lt 8000 ]; then ok "smbd stopped mid-run, 8 clients: exit 1 within 4 timeouts"
	else echo "# exit $rc (124: still running after 30 s), $took ms after the stop"; not_ok "smbd stopped mid-run, 8 clients: exit 1 within 4 timeouts"; fi
	has "smbd stopped mid-run: the error names the target and the time-out" err \
		"smb://127.0.0.1:$port2/share: the smb backend cannot go on \(.*timed out"
	# One wait, not three: an op after an idle gap longer than the timeout makes libsmbclient check the
	# server with an ECHO and, that unanswered, connect again, each waiting out the timeout (the op took
	# 6.0 s with timeout=2s).  The op that met the stopped server took one timeout: its latency, under two.
	printf '0.0 - c0 stat path="/a" -> ENOENT\n3.0 - c0 stat path="/b" -> ENOENT\n3.1 - c0 stat path="/c" -> ENOENT\n' >"$tmp/gap.ops"
	"$reprise" convert "$tmp/gap.ops" "$tmp/gap.rpz" >/dev/null 2>&1
	timeout -k 5 30 "$reprise" replay "$tmp/gap.rpz" --timing think --target "smb://127.0.0.1:$port2/share" "${user[@]}" \
		-O timeout=2s -q --no-prepare -j "$tmp/gap.json" >"$tmp/out" 2>"$tmp/err" &
	bg=$!
	sleep 1.5 # in the gap: the first stat done, the second 1.5 s away
	pkill -STOP -f "$tmp/srv2/smb.conf"
	wait "$bg"
	rc=$?
	bg=
	pkill -CONT -f "$tmp/srv2/smb.conf"
	lat=$(python3 -c 'import json, sys
d = json.load(open(sys.argv[1]))
print(int(d["ops"]["stat"]["latency_us"]["max"] / 1000))' "$tmp/gap.json" 2>&1)
	if [ "$rc" = 1 ] && [ -n "$lat" ] && [ "$lat" -ge 1900 ] 2>/dev/null && [ "$lat" -lt 4000 ]; then
		ok "smbd stopped in an idle gap: the op that met it waited one timeout, not three ($lat ms)"
	else echo "# exit $rc, latency $lat ms"; not_ok "smbd stopped in an idle gap: the op that met it waited one timeout, not three"; fi
	"$fixtures/smbd.sh" stop "$tmp/srv2" >/dev/null 2>&1
else
	ok "smbd stopped mid-run # skip no $client"
	ok "smbd stopped mid-run # skip no $client"
	ok "smbd stopped in an idle gap # skip no $client"
fi

# 55-58. Samba's default `follow symlinks = yes` (wide links = no): the server follows a symlink
# whose target stays in the share and refuses one that leaves it.  It reports a followed link as its
# target (no reparse-point attribute, the target's type and file id); what shows it is the ".." of
# a listing of the directory reached, the target's parent: the backend refuses such a walk (EXDEV,
# an escape).  A create and write through a link to a sibling directory: refused, nothing made.
"$fixtures/smbd.sh" stop "$tmp/srv2" >/dev/null 2>&1
SMBD_FOLLOW_SYMLINKS=yes "$fixtures/smbd.sh" start "$tmp/srv2" "$port2" >/dev/null 2>&1
s2=$tmp/srv2/share
rm -rf "${s2:?}/"* "$tmp/outside2"
mkdir -p "$s2/root" "$s2/other" "$tmp/outside2"
printf 'other\n' >"$s2/other/kept"
printf 'outside\n' >"$tmp/outside2/kept"
ln -s ../other "$s2/root/in"
ln -s "$tmp/outside2" "$s2/root/out"
printf '%s\n' \
	'0.000000000 0.000001000 c1 open path="/out/kept" fh=1 disp=open want=read,write -> OK' \
	'0.000002000 0.000003000 c1 write fh=1 off=0 len=5 ret=5 -> OK' \
	'0.000004000 0.000005000 c1 close fh=1 -> OK' \
	'0.000006000 0.000007000 c1 open path="/out/made" fh=2 disp=create want=read,write -> OK' \
	'0.000008000 0.000009000 c1 close fh=2 -> OK' \
	'0.000010000 0.000011000 c1 open path="/in/made" fh=3 disp=create want=read,write -> OK' \
	'0.000012000 0.000013000 c1 write fh=3 off=0 len=5 ret=5 -> OK' \
	'0.000014000 0.000015000 c1 close fh=3 -> OK' >"$tmp/f.ops"
"$reprise" convert "$tmp/f.ops" "$tmp/f.rpz" >/dev/null 2>&1
run "$reprise" replay "$tmp/f.rpz" --target "smb://127.0.0.1:$port2/share/root" "${user[@]}" -q --no-prepare
if grep -q "^Failed" "$tmp/out" && [ "$(cat "$tmp/outside2/kept")" = outside ] && [ ! -e "$tmp/outside2/made" ]; then
	ok "follow symlinks = yes: nothing outside the share is touched through a planted link"
else not_ok "follow symlinks = yes: nothing outside the share is touched through a planted link"; fi
has "follow symlinks = yes: the opens through the link out of the share fail (ENOENT)" err \
	'mismatch: 2 x open, expected OK, got ENOENT'
if [ ! -e "$s2/other/made" ] && [ "$(cat "$s2/other/kept")" = other ] && grep -q '^Failed .*, escaping paths 1$' "$tmp/out"; then
	ok "follow symlinks = yes: a link to elsewhere in the share is refused, counted as an escape"
else ls -la "$s2/other" | sed 's/^/# /'; tail -1 "$tmp/out" | sed 's/^/# /'
	not_ok "follow symlinks = yes: a link to elsewhere in the share is refused, counted as an escape"; fi
if [ -L "$s2/root/in" ] && [ -L "$s2/root/out" ]; then ok "follow symlinks = yes: the planted links are left as they were"
else not_ok "follow symlinks = yes: the planted links are left as they were"; fi
"$fixtures/smbd.sh" stop "$tmp/srv2" >/dev/null 2>&1

# 59-64. A ',' in a password and in an auth file's name: each reaches the backend as one option item,
# taken whole (no comma list between the CLI and the backend); the password is in no output.
printf 'p,w9\np,w9\n' | smbpasswd -c "$tmp/srv/smb.conf" -s root >/dev/null 2>&1
clean_share
run "$reprise" replay "$tmp/w.rpz" --target "$url" --user 'root%p,w9' -q -j "$tmp/comma.json"
if [ "$(stat -c %U "$share/who" 2>/dev/null)" = root ]; then ok "--user USER%PASS with a ',' in PASS logs in"
else sed 's/^/# /' "$tmp/err"; not_ok "--user USER%PASS with a ',' in PASS logs in"; fi
if ! grep -q 'p,w9' "$tmp/err" "$tmp/out" "$tmp/comma.json"; then ok "a password with a ',' is in no output"
else not_ok "a password with a ',' is in no output"; fi
clean_share
printf 'username = root\npassword = p,w9\n' >"$tmp/a,uth"
run "$reprise" replay "$tmp/w.rpz" --target "$url" --authfile "$tmp/a,uth" -q
if [ "$(stat -c %U "$share/who" 2>/dev/null)" = root ]; then ok "--authfile naming a file with a ',' logs in"
else sed 's/^/# /' "$tmp/err"; not_ok "--authfile naming a file with a ',' logs in"; fi
clean_share
run "$reprise" bench "$tmp/w.rpz" --target "$url" --user 'root%p,w9' --runs 1 -q -j "$tmp/bench.json"
if grep -q '"backend_opts": *"user=root%\*\*\*"' "$tmp/bench.json" && ! grep -q 'p,w9' "$tmp/bench.json" "$tmp/err" "$tmp/out"; then
	ok "bench's JSON has the backend's items, the password starred out"
else grep -o '"backend_opts":[^,]*,[^,]*' "$tmp/bench.json" | sed 's/^/# /'; not_ok "bench's JSON has the backend's items, the password starred out"; fi
printf 'pw\npw\n' | smbpasswd -c "$tmp/srv/smb.conf" -s root >/dev/null 2>&1
# The smb backend's user option takes --user's grammar through -O too; the JSON's command line stars it.
clean_share
run "$reprise" replay "$tmp/w.rpz" --target "$url" -O 'user=root%pw,timeout=20s' -q -j "$tmp/ouser.json"
if [ "$(stat -c %U "$share/who" 2>/dev/null)" = root ]; then ok "-O user=USER%PASS logs in"
else sed 's/^/# /' "$tmp/err"; not_ok "-O user=USER%PASS logs in"; fi
if grep -q '"user=root%\*\*\*,timeout=20s"' "$tmp/ouser.json" && ! grep -q 'root%pw' "$tmp/ouser.json"; then ok "the JSON's command line stars -O user's password"
else grep -o '"command_line":[^]]*' "$tmp/ouser.json" | sed 's/^/# /'; not_ok "the JSON's command line stars -O user's password"; fi
