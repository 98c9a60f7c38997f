#!/bin/sh
# Inputs and conventions (issue 8): - and pipes as input everywhere, cat's text form as an input,
# error messages naming file and line, options (exit status, --version, prefixes, bundling, no-op warnings).
#   conventions.sh REPRISE SOURCE_ROOT
set -u
reprise=$1 src=$2
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT INT TERM
export LC_ALL=C TZ=UTC TMPDIR="$tmp/spool"
mkdir "$tmp/spool" "$tmp/target"
. "${0%/*}/../lib/tap.sh"

check() { desc=$1; shift; if "$@" >"$tmp/out" 2>"$tmp/err"; then ok "$desc"; else not_ok "$desc"; fi; }
check_fails() { desc=$1; want=$2; shift 2; "$@" >"$tmp/out" 2>"$tmp/err"; rc=$?
	if [ "$rc" = "$want" ]; then ok "$desc"; else echo "# exit $rc, wanted $want"; not_ok "$desc"; fi; }
err_has() { if grep -q -- "$2" "$tmp/err"; then ok "$1"; else echo "# stderr lacks: $2"; not_ok "$1"; fi; }
err_lacks() { if grep -q -- "$2" "$tmp/err"; then echo "# stderr has: $2"; not_ok "$1"; else ok "$1"; fi; }
out_has() { if grep -q -- "$2" "$tmp/out"; then ok "$1"; else echo "# stdout lacks: $2"; not_ok "$1"; fi; }
same() { if cmp -s "$2" "$3"; then ok "$1"; else diff "$2" "$3" | head -5 | sed 's/^/# /'; not_ok "$1"; fi; }
skip() { n=$((n + 1)); echo "ok $n - $1 # SKIP $2"; }
# A build without libpcap (-Dpcap=disabled) reads classic little-endian pcap only: true when FILE needs libpcap there.
needs_libpcap() { "$reprise" stat "$1" 2>&1 >/dev/null | grep -q 'built without libpcap'; }
spool_empty() { if [ -z "$(ls -A "$tmp/spool")" ]; then ok "$1"; else ls "$tmp/spool" | sed 's/^/# left: /'; not_ok "$1"; fi; }

pcap=$src/tests/data/pcap/nfstrace__eth-ipv4-tcp-cifs2.pcap
rpz=$src/samples/smb2-small-files.rpz
client=$src/samples/smb2-small-files.txt

# 1. - and pipes as input, in every command
check "a pcap on a pipe converts (tcpdump -w - | reprise convert - out.rpz)" sh -c 'cat "$1" | "$2" convert -q - "$3"' sh "$pcap" "$reprise" "$tmp/pipe.rpz"
"$reprise" convert -q "$pcap" "$tmp/file.rpz" 2>"$tmp/err"
"$reprise" cat "$tmp/pipe.rpz" >"$tmp/a" 2>"$tmp/err"; "$reprise" cat "$tmp/file.rpz" >"$tmp/b" 2>>"$tmp/err"
same "to the same ops as from the file" "$tmp/a" "$tmp/b"
check "cat x.rpz | reprise stat -" sh -c 'cat "$1" | "$2" stat -' sh "$rpz" "$reprise"
out_has "a trace keeps the input it recorded" "input *zeek__smb_smb2_100_small_files.pcap"
check "cat loadfile | reprise stat -" sh -c 'cat "$1" | "$2" stat -' sh "$client" "$reprise"
out_has "and the input is named <stdin>" "input *<stdin>"
check "a loadfile on stdin" sh -c '"$2" cat - <"$1"' sh "$client" "$reprise"
"$reprise" cat "$client" >"$tmp/b" 2>"$tmp/err"
same "gives the ops of the file" "$tmp/out" "$tmp/b"
check "a FIFO as input" sh -c 'mkfifo "$3/fifo" && { cat "$1" >"$3/fifo" & "$2" stat "$3/fifo"; }' sh "$rpz" "$reprise" "$tmp"
check "replay of a pipe (read twice: the plan and the clients)" sh -c 'cat "$1" | "$2" replay - --target "$3" --clients 2 -b null' sh "$rpz" "$reprise" "$tmp/target"
out_has "runs both clients" "2 clients"
check_fails "a bad loadfile on stdin exits 1" 1 sh -c 'printf "NTCreateX x\n" | "$1" cat -' sh "$reprise"
err_has "naming <stdin> and the line" "<stdin>:1:"
err_lacks "never the spool's /dev/fd path" "/dev/fd/"
check_fails "replay names <stdin> too" 1 sh -c 'printf "Bogus 1\n" | "$1" replay - --target "$2" -b null' sh "$reprise" "$tmp/target"
err_has "with its line" "<stdin>:1:"
check_fails "a spool that cannot be made is exit 1" 1 sh -c 'printf "x" | TMPDIR=/nonexistent "$1" cat -' sh "$reprise"
err_has "naming TMPDIR" "/nonexistent"
spool_empty "no spool file is left behind"

# 2. cat's text form is an input: cat -> convert round-trips exactly
"$reprise" convert -q "$client" "$tmp/c.rpz" 2>"$tmp/err"
"$reprise" cat -m "$tmp/c.rpz" >"$tmp/c.cat" 2>>"$tmp/err"
[ -f /usr/share/dbench/client.txt ] && client=/usr/share/dbench/client.txt # dbench's own when installed
check "client loadfile -> rpz -> cat -> convert -> rpz" "$reprise" convert "$tmp/c.cat" "$tmp/c2.rpz"
"$reprise" cat -m "$tmp/c2.rpz" >"$tmp/c2.cat" 2>"$tmp/err"
same "gives identical ops (and metadata)" "$tmp/c.cat" "$tmp/c2.cat"
for g in reprise__smb2-locks-smbtorture.pcap nfstrace__eth-ipv4-tcp-nfsv41.pcap suricata-verify__nfs3-01__input.pcap; do
	if needs_libpcap "$src/tests/data/pcap/$g"; then
		skip "the golden capture $g's cat output round-trips" "it needs libpcap, and this build has none"
		continue
	fi
	"$reprise" cat -m "$src/tests/data/pcap/$g" >"$tmp/g.cat" 2>"$tmp/err"
	"$reprise" convert -q "$tmp/g.cat" "$tmp/g.rpz" 2>>"$tmp/err" && "$reprise" cat -m "$tmp/g.rpz" >"$tmp/g2.cat" 2>>"$tmp/err"
	same "the golden capture $g's cat output round-trips" "$tmp/g.cat" "$tmp/g2.cat"
done
sed 's/ c1 read / c1 write /' "$tmp/g.cat" >"$tmp/edited.cat"
check "an edited text converts" "$reprise" convert -q "$tmp/edited.cat" "$tmp/e.rpz"
printf '0.000000001 - c1 read fh=1 off=0 len=0 -> OK\n0.000000002 - c1 reed fh=1 -> OK\n' >"$tmp/bad.cat"
check_fails "a malformed text line is exit 1" 1 "$reprise" convert "$tmp/bad.cat" "$tmp/bad.rpz"
err_has "naming file, line and what" "bad.cat:2: unknown op 'reed'"
python3 -c 'print("0.000000001 - c1 read path=\"" + "a" * 600000 + "\" -> OK")' >"$tmp/long.cat"
check_fails "a text line longer than the limit is exit 1" 1 "$reprise" convert "$tmp/long.cat" "$tmp/long.rpz"
err_has "naming the line and the limit" "long.cat:1: line longer than 528384 bytes"
check "--lenient skips it" "$reprise" stat --lenient "$tmp/bad.cat"
err_has "and counts it" "skipped 1 bad line"

# 3. converting to a loadfile says what it merged or wrote as comments, and which dbench runs it
nfs41=$src/samples/nfs41-session.rpz
check "convert an NFSv4.1 trace to a loadfile" "$reprise" convert "$nfs41" "$tmp/n.txt"
comments=$(grep -c '^# reprise: ' "$tmp/n.txt")
err_has "says how many ops became comments, by reason" "written as comments (NFS has no close: $comments)"
err_has "that the clients were merged" "the 2 clients' ops merged into one script"
err_has "and that the NFS dialect needs dbench's libnfs backend" "dbench -B nfs"
check "convert --dialect smb" "$reprise" convert --dialect smb "$nfs41" "$tmp/s.txt"
err_has "names Debian's dbench for the SMB dialect" "Debian's dbench 4.0 runs it"
check "convert -q to a loadfile" "$reprise" convert -q "$nfs41" "$tmp/q.txt"
if [ -s "$tmp/err" ]; then not_ok "prints no summary"; else ok "prints no summary"; fi
check "convert to an .rpz" "$reprise" convert "$client" "$tmp/r.rpz"
err_lacks "prints no loadfile summary" "^loadfile:"

# 4. errors name the file; a BOM starts a loadfile; a directory is no input
printf '\357\273\277NTCreateX "\\a" 0x0 0x2 1 NT_STATUS_OK\nClose 1 NT_STATUS_OK\n' >"$tmp/bom.txt"
check "a loadfile starting with a UTF-8 byte-order mark is read" "$reprise" cat "$tmp/bom.txt"
out_has "from its first line" 'open path="/a"'
for c in cat stat; do
	check_fails "$c of a directory is exit 1" 1 "$reprise" $c "$tmp"
	err_has "and names it" "$tmp: Is a directory"
done

# 5. options: exit 2 for usage errors in every command, getopt_long's conventions, --version, warnings
for c in convert cat stat capture replay; do
	check_fails "$c: an unknown option exits 2" 2 "$reprise" $c --no-such-option x y
	check_fails "$c: an ambiguous or unknown short option exits 2" 2 "$reprise" $c -Z x y
done
check_fails "convert --format with a bad value exits 2" 2 "$reprise" convert --format tar "$client" "$tmp/x.out"
err_has "and says what it takes" "--format must be rpz, loadfile, fio or fio-job"
check_fails "convert --to with neither a time nor a format exits 2" 2 "$reprise" convert --to tar "$client" "$tmp/x.out"
err_has "and says what it takes" "--to takes a time of the trace"
check_fails "convert --dialect with a bad value exits 2" 2 "$reprise" convert --dialect cifs "$client" "$tmp/x.txt"
check_fails "replay --timing with a bad value exits 2" 2 "$reprise" replay "$rpz" --target "$tmp/target" --timing soon
check_fails "convert --level 0 exits 2" 2 "$reprise" convert --level 0 "$client" "$tmp/x.rpz"
check_fails "an ambiguous prefix exits 2" 2 "$reprise" convert --le "$client" "$tmp/x.rpz"
err_has "naming the candidates" "ambiguous: --level, --lenient"
check "a unique prefix is the option (--qui is --quiet, --lev=3 is --level 3)" "$reprise" convert --qui --lev=3 "$client" "$tmp/p.rpz"
if [ -s "$tmp/err" ]; then not_ok "and --quiet is obeyed"; else ok "and --quiet is obeyed"; fi
check "bundled short flags: cat -mc0" "$reprise" cat -mc0 "$rpz"
out_has "-m took effect" "^# source"
"$reprise" cat --meta --client 0 "$rpz" >"$tmp/b" 2>"$tmp/err"
same "and -c took the value 0" "$tmp/out" "$tmp/b"
check "a help prefix is --help" "$reprise" stat --he
out_has "and prints the help" "usage: reprise stat"
check "reprise -V" "$reprise" -V
out_has "gives the version and git describe" "^reprise [0-9][^ ]* (git [^)]*)"
out_has "and the built features" "^features: .*backends="
check "convert -v says how the input is read" sh -c 'cat "$1" | "$2" convert -v - "$3"' sh "$pcap" "$reprise" "$tmp/v.rpz"
err_has "(a capture, spooled)" "<stdin>: read as pcap .*spooled first"
check "convert --level with a loadfile output" "$reprise" convert -q --level 5 "$rpz" "$tmp/w.txt"
err_has "warns that it does nothing" "warning: --level applies to .rpz output only"
check "convert --timestamps with an .rpz output" "$reprise" convert -q --timestamps "$client" "$tmp/w.rpz"
err_has "warns that it does nothing" "warning: --timestamps applies to loadfile output only"
check "convert --strict with a loadfile input" "$reprise" convert -q --strict "$client" "$tmp/w2.rpz"
err_has "warns that it does nothing" "warning: --strict applies to packet captures only"

# 6. the bash completion comes from the option tables
check "reprise --completion bash" "$reprise" --completion bash
if command -v bash >/dev/null && bash -c '. "$1" && COMP_WORDS=(reprise convert --pre) COMP_CWORD=2 && _reprise && [ "${COMPREPLY[*]}" = --prepare ]' sh "$tmp/out"; then
	ok "and completes convert --pre to --prepare"; else not_ok "and completes convert --pre to --prepare"; fi
if command -v bash >/dev/null && bash -c '. "$1" && COMP_WORDS=(reprise replay t.rpz --timing t) COMP_CWORD=4 && _reprise && [ "${COMPREPLY[*]}" = "trace think" ]' sh "$tmp/out"; then
	ok "and completes an enum option's choices (replay --timing t: trace think)"; else not_ok "and completes an enum option's choices (replay --timing t: trace think)"; fi
check_fails "--completion for another shell is a usage error" 2 "$reprise" --completion tcsh
# 7. an enum option's error lists its choices (the table's inline choices), exit 2
check_fails "replay --on-mismatch with a bad value exits 2" 2 "$reprise" replay "$rpz" --target "$tmp/target" --on-mismatch never
err_has "and lists the choices" "--on-mismatch: 'never' is not one of warn, skip, abort"

echo "1..$n"
[ "$fails" -eq 0 ]
