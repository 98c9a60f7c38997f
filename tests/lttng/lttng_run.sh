#!/bin/sh
# A real LTTng session records the reprise:* events of a run (TAP-like text; exit 0 passed, 1
# failed, 77 skipped when lttng-sessiond or the feature is missing): babeltrace2 lists them, converters/ctf.c reads them
# back in start order (ctf-dump), and `reprise convert DIR` makes the ops (docs/syscall-capture.md).
#   lttng_run.sh REPRISE EMIT_DIRECT CTF_DUMP EXPECTED [PRELOAD_LTTNG_SO CAPTURE_PROG]
# EMIT_DIRECT is the program whose events are recorded: until the interposer is in the tree, a
# program that fires the emitter's events itself (emit_direct.c); EXPECTED is ctf-dump's text for it.
set -u
if [ $# -lt 4 ]; then
	echo "1..0 # SKIP ${1:-the feature}: not built"
	exit 77
fi
reprise=$1 prog=$2 dump=$3 expected=$4 preload=
# meson passes build-relative paths; the runs below change directory
case $reprise in /*) ;; *) reprise="$(pwd -P)/$reprise" ;; esac
# LD_PRELOAD of a program started elsewhere needs the library's absolute path
[ -n "${5:-}" ] && preload="$(cd "$(dirname "$5")" && pwd -P)/$(basename "$5")"
cprog=
[ -n "${6:-}" ] && cprog="$(cd "$(dirname "$6")" && pwd -P)/$(basename "$6")"
for t in lttng lttng-sessiond babeltrace2; do
	if ! command -v $t >/dev/null 2>&1; then
		echo "1..0 # SKIP $t is not installed"
		exit 77
	fi
done
tmp=$(mktemp -d) || exit 1
export LTTNG_HOME="$tmp/home" LC_ALL=C TZ=UTC
mkdir "$LTTNG_HOME"
spid=
# The session daemon is ours: stopped by its pid however the test ends.
cleanup() {
	if [ -n "$spid" ]; then
		lttng destroy -a >/dev/null 2>&1
		kill "$spid" 2>/dev/null
		wait "$spid" 2>/dev/null
	fi
	rm -rf "$tmp"
}
trap cleanup EXIT
trap 'exit 1' INT TERM

# As root a session daemon serves the whole machine (its sockets are in /var/run/lttng, not
# under LTTNG_HOME): one that already runs is someone else's, and a second cannot start.
if [ "$(id -u)" = 0 ] && [ -f /var/run/lttng/lttng-sessiond.pid ] &&
	kill -0 "$(cat /var/run/lttng/lttng-sessiond.pid)" 2>/dev/null; then
	echo "1..0 # SKIP a root lttng-sessiond already runs (pid $(cat /var/run/lttng/lttng-sessiond.pid)); this test starts its own"
	exit 77
fi
lttng-sessiond --no-kernel >"$tmp/sessiond.log" 2>&1 &
spid=$!
# Up when the client reaches it; a daemon that exits (no shm, no permission) is a skip with its reason.
i=0
until lttng list >/dev/null 2>&1; do
	if ! kill -0 "$spid" 2>/dev/null; then
		echo "1..0 # SKIP lttng-sessiond could not run here: $(tail -1 "$tmp/sessiond.log")"
		spid=
		exit 77
	fi
	i=$((i + 1))
	if [ $i -gt 300 ]; then
		echo "1..0 # SKIP lttng-sessiond did not answer within 30 s"
		exit 77
	fi
	sleep 0.1
done

n=0 failed=0
ok() { n=$((n + 1)); echo "ok $n - $1"; }
not_ok() { n=$((n + 1)); failed=1; echo "not ok $n - $1"; for f in out err; do [ -f "$tmp/$f" ] && sed "s/^/# $f: /" "$tmp/$f" | head -30; done; }
run() { timeout 60 "$@" >"$tmp/out" 2>"$tmp/err"; }
check() { desc=$1; shift; if run "$@"; then ok "$desc"; else not_ok "$desc"; fi; }
has() { if grep -Eq -- "$3" "$tmp/$2"; then ok "$1"; else echo "# $2 lacks: $3"; not_ok "$1"; fi; }

trace="$tmp/trace"
check "create a session" lttng create reprise-test --output="$trace"
# Lossless: a blocking channel makes the traced program wait for room instead of dropping events.
check "a blocking channel" lttng enable-channel -u --blocking-timeout=inf chan
check "enable reprise:*" lttng enable-event -u -c chan 'reprise:*'
check "start" lttng start
# The environment `reprise capture --lttng` gives the program (capture/lttng/lttng.h).
check "run the program" env LTTNG_UST_ALLOW_BLOCKING=1 LTTNG_UST_REGISTER_TIMEOUT=-1 "$prog"
check "stop" lttng stop
check "destroy" lttng destroy reprise-test

check "babeltrace2 reads the trace" babeltrace2 "$trace"
cp "$tmp/out" "$tmp/bt"
nbt=$(grep -c ' reprise:' "$tmp/bt")
if [ "$nbt" -eq "$(grep -c ' pid=' "$expected")" ]; then ok "babeltrace2 lists every reprise event ($nbt)"; else not_ok "babeltrace2 lists $nbt reprise events"; fi
has "babeltrace2 shows the fields" bt 'reprise:rename: .*pid = [0-9]+, tid = [0-9]+, ret = 0, t_start = [0-9]+, t_end = [0-9]+, flags = 0, a0 = -100, a1 = -100.*p0 = "data.txt".*p1 = "moved.txt"'

check "ctf-dump reads the session's output directory" "$dump" "$trace"
if diff -u "$expected" "$tmp/out" >"$tmp/diff"; then ok "the events, in start order, are the run's"; else sed 's/^/# /' "$tmp/diff"; not_ok "the events, in start order, are the run's"; fi
has "nothing else, nothing late" err '^ctf: [0-9]+ events from 1 trace; other events 0, late 0$'
check "ctf-dump reads the directory that holds metadata" "$dump" "$(dirname "$(find "$trace" -name metadata | head -1)")"

# Lossless: 20000 events (about 2 MB) through 256 KiB of buffers all arrive when the channel
# blocks; through the smallest buffers (2 x 4 KiB) of a channel that discards, what LTTng dropped
# is counted.  (A blocking channel that small works too, but waits for the consumer at each
# sub-buffer: 49 s for these 20000 events, against 0.2 s with 4 x 64 KiB.)
flood() { # NAME SUBBUF-SIZE BLOCKING-OPTION
	lttng create "$1" --output="$tmp/$1" >/dev/null &&
		lttng enable-channel -u --subbuf-size=$2 --num-subbuf=$(($2 == 4096 ? 2 : 4)) $3 small >/dev/null &&
		lttng enable-event -u -c small 'reprise:*' >/dev/null && lttng start >/dev/null &&
		env LTTNG_UST_ALLOW_BLOCKING=1 LTTNG_UST_REGISTER_TIMEOUT=-1 "$prog" flood 20000 &&
		lttng stop >/dev/null && lttng destroy "$1" >/dev/null
}
if flood blocking 65536 --blocking-timeout=inf >"$tmp/out" 2>"$tmp/err"; then ok "a flood through a small blocking channel"; else not_ok "a flood through a small blocking channel"; fi
check "ctf-dump reads it" "$dump" "$tmp/blocking"
has "every event arrived" err '^ctf: 20002 events from 1 trace; other events 0, late 0$'
if flood discarding 4096 "" >"$tmp/out" 2>"$tmp/err"; then ok "a flood through a small channel that discards"; else not_ok "a flood through a small channel that discards"; fi
check "ctf-dump reads it" "$dump" "$tmp/discarding"
has "what LTTng dropped is counted" err '^ctf: [0-9]+ events from 1 trace; other events 0, late 0; discarded by LTTng [1-9][0-9]* events'

# The ops: once the syscall model is in the build (formats/sysmodel.c); until then the
# conversion says what the build lacks, which is checked instead.
if "$reprise" convert "$trace" "$tmp/t.rpz" >"$tmp/out" 2>"$tmp/err"; then
	ok "reprise convert DIR out.rpz"
	has "the conversion's summary" err '^ctf: [0-9]+ events from 1 trace -> [0-9]+ ops'
	check "cat the trace" "$reprise" cat "$tmp/t.rpz"
	cp "$tmp/out" "$tmp/cat"
	has "the open of data.txt" cat 'open path="/tmp/data.txt" fh=[0-9]+ .*want=(read|write|rw)'
	has "5 bytes written" cat 'write path="/tmp/data.txt" fh=[0-9]+ .*len=5 ret=5'
	has "3 bytes read at 0" cat 'read path="/tmp/data.txt" fh=[0-9]+ off=0 len=3 ret=3'
	has "the rename" cat 'rename path="/tmp/data.txt" path2="/tmp/moved.txt"'
	has "the close" cat 'close path="/tmp/moved.txt"|close path="/tmp/data.txt"'
	has "the child's stat" cat 'c[0-9]+ stat path="/tmp/moved.txt"'
elif grep -q 'built without the syscall model' "$tmp/err"; then
	ok "reprise convert says it was built without the syscall model # SKIP ops: formats/sysmodel.c is not in this tree"
else
	not_ok "reprise convert DIR out.rpz"
fi
# A real program under the LTTng preload library (once the interposer is in the build): a shell
# whose commands' file operations come out as ops, forks and execs included.
if [ -n "$preload" ]; then
	mkdir "$tmp/w"
	w=$(cd "$tmp/w" && pwd -P)
	check "a session for the preload library" lttng create reprise-preload --output="$tmp/preload"
	check "its blocking channel" lttng enable-channel -u --blocking-timeout=inf chan
	check "its events" lttng enable-event -u -c chan 'reprise:*'
	check "started" lttng start
	check "sh runs under the library" env -C "$w" LD_PRELOAD="$preload liblttng-ust-fork.so.1" REPRISE_PRELOAD="$preload" \
		LTTNG_UST_ALLOW_BLOCKING=1 LTTNG_UST_REGISTER_TIMEOUT=-1 \
		sh -c 'echo hello > f; cat f > g; mkdir d; mv g d/h; rm d/h; rmdir d; rm f'
	check "stopped" lttng stop
	check "destroyed" lttng destroy reprise-preload
	if "$reprise" convert "$tmp/preload" "$tmp/p.rpz" >"$tmp/out" 2>"$tmp/err"; then
		ok "convert the preload library's trace"
		has "no late or bad event" err '^ctf: [0-9]+ events from 1 trace -> [0-9]+ ops, [0-9]+ processes, [0-9]+ threads; other events 0, late 0'
		check "cat it" "$reprise" cat "$tmp/p.rpz"
		cp "$tmp/out" "$tmp/pcat"
		has "the redirection opens f to write" pcat "open path=\"$w/f\" fh=[0-9]+ want=write disp=trunc_if mode=0666"
		has "echo writes 6 bytes" pcat "write path=\"$w/f\" fh=[0-9]+ off=0 len=6 ret=6"
		has "cat reads f" pcat "(read path=\"$w/f\" fh=[0-9]+ off=0 len=[0-9]+ ret=6|copy path=\"$w/f\" path2=\"$w/g\" .*ret=6)"
		has "mkdir d" pcat "mkdir path=\"$w/d\" mode=0777"
		has "mv renames g to d/h" pcat "rename path=\"$w/g\" path2=\"$w/d/h\""
		has "rmdir d" pcat "rmdir path=\"$w/d\""
		has "the shell forks its commands" pcat "c1 fork ret=[2-9]"
		if grep -q 'lttng-ust\|/usr/lib/.*\.so' "$tmp/pcat"; then not_ok "nothing of lttng-ust's own threads"; else ok "nothing of lttng-ust's own threads"; fi
	else
		not_ok "convert the preload library's trace"
	fi
	# The same run through `reprise capture --lttng` and through the rings (`reprise capture`): the
	# converted CTF trace is the ring trace, op for op (times aside; handles renumbered in order of
	# appearance, as lttng-ust's own fds take numbers in the traced process too).
	script='echo hello > f; cat f > g; mkdir d; mv g d/h; ln -s h d/l; chmod 600 f; rm d/l d/h; rmdir d; rm f'
	check "a session for capture --lttng" lttng create reprise-cli --output="$tmp/cli"
	check "its blocking channel" lttng enable-channel -u --blocking-timeout=inf chan
	check "its events" lttng enable-event -u -c chan 'reprise:*'
	check "started" lttng start
	check "reprise capture --lttng runs the script" env -C "$w" "$reprise" capture --lttng -- sh -c "$script"
	check "stopped" lttng stop
	check "destroyed" lttng destroy reprise-cli
	check "convert it" "$reprise" convert -q "$tmp/cli" "$tmp/cli.rpz"
	check "the rings capture the same script" env -C "$w" "$reprise" capture -q -o "$tmp/ring.rpz" -- sh -c "$script"
	norm() {
		"$reprise" cat "$1" | grep -E "path=\"$w/| (fork|wait) " |
			awk '{ $1 = ""; $2 = ""; for (i = 3; i <= NF; i++) if ($i ~ /^fh2?=/) { split($i, kv, "=");
				if (!(kv[2] in h)) h[kv[2]] = ++nh; $i = kv[1] "=" h[kv[2]] } print }'
	}
	norm "$tmp/cli.rpz" >"$tmp/a.ops"
	norm "$tmp/ring.rpz" >"$tmp/b.ops"
	if [ -s "$tmp/a.ops" ] && cmp -s "$tmp/a.ops" "$tmp/b.ops"; then
		ok "the CTF trace equals the ring trace op for op ($(wc -l <"$tmp/a.ops") ops)"
	else
		diff "$tmp/a.ops" "$tmp/b.ops" | sed 's/^/# /' | head -20
		not_ok "the CTF trace equals the ring trace op for op"
	fi
fi
# A program that ends with a stdio buffer still pending (exit() flushes it after every destructor):
# both paths record the same writes, the pending line's included.
if [ -n "$preload" ] && [ -n "$cprog" ]; then
	mkdir "$tmp/xf" "$tmp/xr"
	check "a session for the exit flush" lttng create reprise-exitflush --output="$tmp/exitflush"
	check "its blocking channel" lttng enable-channel -u --blocking-timeout=inf chan
	check "its events" lttng enable-event -u -c chan 'reprise:*'
	check "started" lttng start
	check "reprise capture --lttng runs it" "$reprise" capture --lttng -- "$cprog" exitflush "$tmp/xf"
	check "stopped" lttng stop
	check "destroyed" lttng destroy reprise-exitflush
	check "convert it" "$reprise" convert -q "$tmp/exitflush" "$tmp/xf.rpz"
	check "the rings capture it too" "$reprise" capture -q -o "$tmp/xr.rpz" -- "$cprog" exitflush "$tmp/xr"
	"$reprise" cat "$tmp/xf.rpz" >"$tmp/xf.cat" 2>/dev/null
	"$reprise" cat "$tmp/xr.rpz" >"$tmp/xr.cat" 2>/dev/null
	wl=$(grep -Ec " write path=\"$tmp/xf/[wx]\.txt\"" "$tmp/xf.cat") wr=$(grep -Ec " write path=\"$tmp/xr/[wx]\.txt\"" "$tmp/xr.cat")
	if [ "$wl" = "$wr" ] && [ "$wr" -gt 0 ]; then ok "LTTng and the rings record as many writes ($wl)"; else not_ok "LTTng records $wl writes, the rings $wr"; fi
	if grep -q " write path=\"$tmp/xf/x\.txt\" .*len=16 ret=16" "$tmp/xf.cat"; then ok "LTTng records the line exit() flushes"; else not_ok "LTTng records the line exit() flushes"; fi
	if grep -q " write path=\"$tmp/xr/x\.txt\" .*len=16 ret=16" "$tmp/xr.cat"; then ok "... and so do the rings"; else not_ok "... and so do the rings"; fi
fi
echo "1..$n"
exit $failed
