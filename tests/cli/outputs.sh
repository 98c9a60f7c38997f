#!/bin/sh
# Nothing lost, nothing escapes (issue 8): outputs renamed into place, the input never overwritten,
# write errors are errors, cut inputs are said, names are escaped, --json - is JSON alone.
#   outputs.sh REPRISE SOURCE_ROOT MK_HOSTILE_NAMES
set -u
reprise=$1 src=$2 mkhostile=$3
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT INT TERM
. "${0%/*}/../lib/tap.sh"

check() { desc=$1; shift; if "$@" >"$tmp/out" 2>"$tmp/err"; then ok "$desc"; else not_ok "$desc"; fi; }
check_fails() { desc=$1; want=$2; shift 2; "$@" >"$tmp/out" 2>"$tmp/err"; rc=$?
	if [ "$rc" = "$want" ]; then ok "$desc"; else echo "# exit $rc, wanted $want"; not_ok "$desc"; fi; }
err_has() { if grep -q -- "$2" "$tmp/err"; then ok "$1"; else echo "# stderr lacks: $2"; not_ok "$1"; fi; }
out_has() { if grep -q -- "$2" "$tmp/out"; then ok "$1"; else echo "# stdout lacks: $2"; not_ok "$1"; fi; }
same() { if cmp -s "$2" "$3"; then ok "$1"; else not_ok "$1"; fi; }
# No OUT.part-* file is left in the directory.
no_temp() { if ls "$tmp/d" | grep -q '\.part-'; then ls "$tmp/d" | sed 's/^/# left: /'; not_ok "$1"; else ok "$1"; fi; }

mkdir "$tmp/d" "$tmp/target"
d=$tmp/d
cat >"$d/a.txt" <<'LOAD'
NTCreateX "\clients\client1\a.txt" 0x0 0x2 100 NT_STATUS_OK
WriteX 100 0 4096 4096 NT_STATUS_OK
Close 100 NT_STATUS_OK
LOAD
cp "$d/a.txt" "$d/a.orig"

# 1. convert X X, through a symlink and a hard link, is refused; X is untouched
check_fails "convert X X is a usage error" 2 "$reprise" convert "$d/a.txt" "$d/a.txt"
err_has "and says the output is the input" "the output is the input"
same "X is untouched" "$d/a.txt" "$d/a.orig"
ln -s a.txt "$d/link.txt"
check_fails "convert X link-to-X is refused" 2 "$reprise" convert "$d/a.txt" "$d/link.txt"
ln "$d/a.txt" "$d/hard.txt"
check_fails "convert X hard-link-of-X is refused" 2 "$reprise" convert "$d/hard.txt" "$d/a.txt"
check_fails "convert X - >> X is refused" 2 sh -c '"$1" convert "$2" - >>"$2"' sh "$reprise" "$d/a.txt"
same "X is still untouched" "$d/a.txt" "$d/a.orig"
check_fails "replay --json onto its own trace is refused" 2 "$reprise" replay "$d/a.txt" --target "$tmp/target" -b null --json "$d/a.txt"
same "the trace is untouched" "$d/a.txt" "$d/a.orig"
no_temp "no temporary file is left"

# a failed convert leaves the existing output as it was and no temporary file
check "convert to .rpz" "$reprise" convert "$d/a.txt" "$d/a.rpz"
cp "$d/a.rpz" "$d/a.rpz.orig"
printf 'NTCreateX "\\x" 0x0 0x2 1 NT_STATUS_OK\nBogusCommand 1 2 3\n' >"$d/bad.txt"
check_fails "a failed convert exits 1" 1 "$reprise" convert "$d/bad.txt" "$d/a.rpz"
same "and leaves the existing output as it was" "$d/a.rpz" "$d/a.rpz.orig"
check_fails "a convert of a missing input exits 1" 1 "$reprise" convert "$d/missing.txt" "$d/new.rpz"
if [ -e "$d/new.rpz" ]; then not_ok "and creates no output"; else ok "and creates no output"; fi
no_temp "no temporary file is left after failures"
check_fails "a --strict failure exits 1" 1 "$reprise" convert --strict "$src/tests/data/pcap/nfstrace__eth-ipv4-tcp-smb2-putty.pcap" "$d/a.rpz"
same "and leaves the output as it was" "$d/a.rpz" "$d/a.rpz.orig"
no_temp "and no temporary file"

# the output gets the mode a new file gets under the umask; a symlinked output keeps its link
(umask 027 && "$reprise" convert "$d/a.txt" "$d/mode.rpz") 2>"$tmp/err"
if [ "$(stat -c %a "$d/mode.rpz")" = 640 ]; then ok "a new output's mode follows the umask (640 under 027)"; else
	echo "# mode $(stat -c %a "$d/mode.rpz")"; not_ok "a new output's mode follows the umask"; fi
ln -s a.rpz "$d/via.rpz"
check "convert through a symlinked output" "$reprise" convert "$src/samples/nfs3-write.txt" "$d/via.rpz"
if [ -L "$d/via.rpz" ] && cmp -s "$d/via.rpz" "$d/a.rpz" && ! cmp -s "$d/a.rpz" "$d/a.rpz.orig"; then
	ok "replaces the file it points to and keeps the link"; else not_ok "replaces the file it points to and keeps the link"; fi
check "convert to /dev/null writes in place" "$reprise" convert "$d/a.txt" --format rpz /dev/null
if [ -c /dev/null ]; then ok "/dev/null is still a device"; else not_ok "/dev/null is still a device"; fi
check_fails "an output in a missing directory exits 1" 1 "$reprise" convert "$d/a.txt" "$d/nodir/x.rpz"

# capture: a set-up failure (no such interface) leaves the existing output and no temporary file
cp "$d/a.rpz.orig" "$d/cap.rpz"
check_fails "capture on a missing interface exits 1" 1 "$reprise" capture --iface rp-no-such0 -d 1 -o "$d/cap.rpz"
same "and leaves the existing output as it was" "$d/cap.rpz" "$d/a.rpz.orig"
no_temp "and no temporary file"

# capture killed with -9 keeps its partial trace under the .part name and OUT as it was; a capture that
# ends normally renames it to OUT (root: capturing on lo; a filter nothing matches; a build with libpcap)
live=yes
if ! "$reprise" capture --iface lo -d 0.01 -q -o "$tmp/probe.rpz" 2>"$tmp/probe" && grep -q 'built without libpcap' "$tmp/probe"; then
	live=
fi
rm -f "$tmp/probe.rpz"
if [ "$(id -u)" -ne 0 ] || [ -z "$live" ]; then
	for t in "kill -9 leaves the partial trace" "and OUT as it was" "capture -d 1 ends normally" "and OUT is a finished trace" \
		"with its index" "and no temporary file"; do
		ok "$t # SKIP needs root and a build with libpcap"
	done
else
	"$reprise" capture --iface lo --filter 'udp port 9 and host 127.0.0.99' -q -o "$d/cap.rpz" 2>"$tmp/err" &
	pid=$!
	i=0
	while ! ls "$d" | grep -q '^cap\.rpz\.part-' && [ $i -lt 100 ]; do sleep 0.1; i=$((i + 1)); done
	kill -9 $pid
	wait $pid 2>/dev/null
	part=$(ls "$d" | grep '^cap\.rpz\.part-')
	if [ -n "$part" ]; then ok "kill -9 leaves the partial trace under the .part name"; else not_ok "kill -9 leaves the partial trace under the .part name"; fi
	same "and OUT as it was" "$d/cap.rpz" "$d/a.rpz.orig"
	rm -f "$d"/cap.rpz.part-*
	check "capture -d 1 ends normally" "$reprise" capture --iface lo --filter 'udp port 9 and host 127.0.0.99' -d 0.3 -q -o "$d/cap.rpz"
	check "and OUT is a finished trace" "$reprise" stat "$d/cap.rpz"
	if grep -q warning "$tmp/err"; then not_ok "with its index"; else ok "with its index"; fi
	no_temp "and no temporary file"
fi

# replay --json: checked before the run, written only on success
check_fails "replay --json into a missing directory fails before the run" 1 "$reprise" replay "$d/a.txt" --target "$tmp/target" -b null --json "$d/nodir/run.json"
err_has "naming the JSON path" "nodir/run.json"
if grep -q Throughput "$tmp/out"; then not_ok "and nothing ran"; else ok "and nothing ran"; fi
check "replay --json FILE" "$reprise" replay "$d/a.txt" --target "$tmp/target" -b null -q --json "$d/run.json"
if grep -q '"backend": "null"' "$d/run.json"; then ok "writes the JSON"; else not_ok "writes the JSON"; fi
no_temp "replay leaves no temporary file"

# 5. --json - is JSON alone on stdout; the table goes to stderr
check "replay --json -" "$reprise" replay "$d/a.txt" --target "$tmp/target" -b null -q --json -
if python3 -c 'import json,sys; json.load(open(sys.argv[1]))' "$tmp/out" 2>/dev/null; then
	ok "stdout is one JSON document"; else not_ok "stdout is one JSON document"; fi
err_has "the table is on stderr" "Throughput"

# 2. write errors are errors in every command
if [ -w /dev/full ]; then
	for c in "stat $d/a.rpz" "stat --json $d/a.rpz" "cat $d/a.rpz" "cat -m $d/a.rpz" "convert $d/a.rpz -" \
		"convert --format rpz $d/a.txt -" "convert --prepare $d/a.rpz -" "--help" "stat --help" "--man" \
		"replay $d/a.txt --target $tmp/target -b null -q" "replay $d/a.txt --target $tmp/target -b null -q --json -"; do
		# shellcheck disable=SC2086
		"$reprise" $c >/dev/full 2>"$tmp/err"
		rc=$?
		if [ $rc = 1 ] && grep -q "No space left on device" "$tmp/err"; then ok "reprise $c >/dev/full: exit 1, ENOSPC said"; else
			echo "# exit $rc"; not_ok "reprise $c >/dev/full: exit 1, ENOSPC said"; fi
	done
	check_fails "replay --json /dev/full exits 1" 1 "$reprise" replay "$d/a.txt" --target "$tmp/target" -b null -q --json /dev/full
	err_has "naming the JSON path" "/dev/full: write error"
	check_fails "convert to /dev/full exits 1" 1 "$reprise" convert "$d/a.txt" --format rpz /dev/full
fi

# 3. a cut .rpz replays with the reader's warning; a cut pcap says so and flags the trace
"$reprise" convert "$src/samples/smb2-small-files.txt" "$d/s.rpz" 2>/dev/null
size=$(stat -c %s "$d/s.rpz")
head -c $((size - 30)) "$d/s.rpz" >"$d/cut.rpz"
check "a cut .rpz replays" "$reprise" replay "$d/cut.rpz" --target "$tmp/target" -b null -q
err_has "with the warning cat and stat give" "warning: .*cut.rpz: .*\(cut at byte\|no index\)"
pcap=$src/tests/data/pcap/nfstrace__eth-ipv4-tcp-smb2-putty.pcap
psize=$(stat -c %s "$pcap")
head -c $((psize - 100)) "$pcap" >"$d/cut.pcap"
check "convert a cut pcap" "$reprise" convert "$d/cut.pcap" "$d/cutp.rpz"
err_has "the summary says truncated dump file" "^  truncated dump file"
err_has "and a warning says so" "warning: .*cut.pcap: truncated dump file"
check "cat -m the trace" "$reprise" cat -m "$d/cutp.rpz"
out_has "the header is flagged truncated" "^# source pcap-smb timed truncated"
check "stat --json the trace" "$reprise" stat --json "$d/cutp.rpz"
out_has "stat says truncated" '"truncated": true'
check "replay the flagged trace" "$reprise" replay "$d/cutp.rpz" --target "$tmp/target" -b null -q
err_has "with a warning" "warning: .*flagged truncated"
check "convert a whole pcap" "$reprise" convert "$pcap" "$d/whole.rpz"
check "cat -m it" "$reprise" cat -m "$d/whole.rpz"
if grep -q truncated "$tmp/out"; then not_ok "a whole capture is not flagged"; else ok "a whole capture is not flagged"; fi

# 4. escape sequences in names never reach the terminal: ESC [ 2 J and a newline in a trace's file
# name, its host and input name, and an op's path
esc=$(printf '\033')
no_esc() { if grep -q "$esc" "$tmp/out" "$tmp/err"; then not_ok "$1"; else ok "$1"; fi; }
evil="$d/x${esc}[2J
y"
check "make a trace with hostile names" "$mkhostile" "$evil.rpz"
"$reprise" stat "$evil.rpz" >"$tmp/out" 2>"$tmp/err"
no_esc "stat prints no ESC"
out_has "and shows the input name escaped" 'in\\x1b\[2J\\x0aput'
out_has "and the host" 'h\\x1b\[2J\\x0aost'
"$reprise" cat -m "$evil.rpz" >"$tmp/out" 2>"$tmp/err"
no_esc "cat -m prints no ESC"
out_has "cat shows the path as the text form does" 'path="/dir/\\x1b\[2J\\x0aevil\\x9b"'
"$reprise" replay "$evil.rpz" --target "$tmp/target" -b null -q >"$tmp/out" 2>"$tmp/err"
no_esc "replay's mismatch samples print no ESC"
err_has "and show the op's path escaped" 'mismatch: .*dir/\\x1b\[2J\\x0aevil'
"$reprise" replay "$evil.rpz" --target "$tmp/target" -b null -q --json - >"$tmp/out" 2>"$tmp/err"
no_esc "replay --json - prints no ESC"
if grep -q "$(printf '\233')" "$tmp/out" "$tmp/err"; then not_ok "nor a raw C1 CSI byte"; else ok "nor a raw C1 CSI byte"; fi
# Names are valid UTF-8 in the JSON: bytes that are not (controls, the stray \x9b) as the text form escapes them.
if python3 -c 'import json,sys; d=json.load(open(sys.argv[1], encoding="utf-8", errors="strict"))
sys.exit(0 if d["mismatch_samples"][0]["path"] == sys.argv[2] else 1)' "$tmp/out" 'dir/\x1b[2J\x0aevil\x9b'; then
	ok "the JSON escapes the path as the text form does"; else not_ok "the JSON escapes the path as the text form does"; fi
"$reprise" cat "$evil.missing" >"$tmp/out" 2>"$tmp/err"
no_esc "an error naming the path prints no ESC"
err_has "and names it escaped" 'x\\x1b\[2J\\x0ay.missing'
head -c 40 "$evil.rpz" >"$evil.cut.rpz"
"$reprise" convert "$evil.cut.rpz" "$d/o.txt" >"$tmp/out" 2>"$tmp/err"
no_esc "a convert error naming the path prints no ESC"
"$reprise" convert "$evil.rpz" "$evil.rpz" >"$tmp/out" 2>"$tmp/err"
no_esc "the same-file refusal prints no ESC"
"$reprise" "cat${esc}[2J" >"$tmp/out" 2>"$tmp/err"
no_esc "an unknown command prints no ESC"
"$reprise" cat "--x${esc}[2J" x >"$tmp/out" 2>"$tmp/err"
no_esc "an unknown option prints no ESC"
"$reprise" replay "$evil.rpz" --target "$tmp/target" -b null -q --json "$d/nodir${esc}[2J/r.json" >"$tmp/out" 2>"$tmp/err"
no_esc "a JSON path error prints no ESC"

# convert killed by SIGINT, SIGTERM or SIGHUP while it writes: it dies of that signal (exit 128+N)
# and leaves neither OUT.part-XXXXXX nor OUT.  The input is a FIFO held open, so convert is mid-run.
for spec in INT:2 TERM:15 HUP:1; do
	sig=${spec%:*} num=${spec#*:}
	rm -f "$d/in.fifo" "$d/sig.rpz"
	mkfifo "$d/in.fifo"
	{ cat "$d/a.txt"; sleep 5; } >"$d/in.fifo" &
	feeder=$!
	# Started with the signal at its default disposition, as from a terminal (a job of sh ignores INT).
	env --default-signal="$sig" "$reprise" convert -q "$d/in.fifo" "$d/sig.rpz" 2>"$tmp/err" &
	conv=$!
	i=0
	while ! ls "$d" | grep -q '^sig\.rpz\.part-' && [ $i -lt 100 ]; do sleep 0.05; i=$((i + 1)); done
	kill -"$sig" "$conv"
	wait "$conv"
	rc=$?
	kill "$feeder" 2>/dev/null
	wait "$feeder" 2>/dev/null
	rm -f "$d/in.fifo"
	want=$((128 + num))
	if [ "$rc" = "$want" ] && [ $i -lt 100 ] && ! [ -e "$d/sig.rpz" ]; then ok "SIG$sig: convert dies of it, no OUT"
	else echo "# exit $rc (wanted $want), waited $i"; not_ok "SIG$sig: convert dies of it, no OUT"; fi
	no_temp "SIG$sig: convert leaves no OUT.part-XXXXXX"
done

echo "1..$n"
[ "$fails" -eq 0 ]
