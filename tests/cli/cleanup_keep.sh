#!/bin/sh
# --cleanup removes only what the run made (replay/cleanup.c, issue 22), also where the snapshot
# taken before the run could not see: a directory of before it could not list (mode 0, as a user),
# which the trace chmods so it can be listed afterwards; a file of before deeper than the snapshot's
# depth limit (128 levels), which the trace moves up.  Entries the snapshot did not cover are judged
# by their birth time (statx STATX_BTIME) against the run's start; without one (ramfs) they are left
# and counted unsure, while a snapshot that saw everything still removes what the run made.
#   cleanup_keep.sh REPRISE SOURCE_ROOT
set -u
reprise=$1
tmp=$(mktemp -d) || exit 1
ram=
trap '[ -n "$ram" ] && umount "$ram"; chmod -R u+rwx "$tmp" 2>/dev/null; rm -rf "$tmp"' EXIT INT TERM
. "${0%/*}/../lib/tap.sh"
chmod 755 "$tmp" # the unprivileged user below reaches its target through it
check() { desc=$1; shift; if "$@" >"$tmp/out" 2>"$tmp/err"; then ok "$desc"; else not_ok "$desc"; fi; }
skip() { n=$((n + 1)); echo "ok $n - $1 # skip $2"; }
# The birth time this file system gives (statx): without it the rules below leave more (tested by unit).
btime=$(touch "$tmp/b" && stat -c %W "$tmp/b"); rm -f "$tmp/b"

# 1-4. As a user (nobody): locked/ is there with a file in it, mode 0, so the snapshot cannot list
# it; the trace chmods it 0755 and creates new.txt.  The cleanup removes new.txt, not locked/secret.txt.
cat >"$tmp/chmod.ops" <<'OPS'
0.000000000 0.000001000 c1 setattr path="/locked" set=mode mode=0755 flags=dir -> OK
0.000002000 0.000003000 c1 open path="/new.txt" fh=1 ret=2 want=write disp=create mode=0644 -> OK
0.000004000 0.000005000 c1 write fh=1 off=0 len=5 ret=5 -> OK
0.000006000 0.000007000 c1 close fh=1 -> OK
OPS
"$reprise" convert "$tmp/chmod.ops" "$tmp/chmod.rpz" >/dev/null 2>&1
as_user() { setpriv --reuid=65534 --regid=65534 --clear-groups -- "$@"; }
if [ "$(id -u)" != 0 ] || ! command -v setpriv >/dev/null; then
	for d in run "secret kept" "new removed" "summary"; do skip "as a user: $d" "needs root to switch to nobody (setpriv)"; done
elif [ "$btime" = 0 ] || [ "$btime" = - ]; then
	for d in run "secret kept" "new removed" "summary"; do skip "as a user: $d" "this file system gives no birth time"; done
else
	mkdir "$tmp/u" && chown 65534:65534 "$tmp/u"
	as_user sh -c 'mkdir "$1/locked" && echo secret >"$1/locked/secret.txt" && chmod 0 "$1/locked"' sh "$tmp/u"
	check "as a user: a trace that chmods an unlistable directory of before, with --cleanup" \
		as_user "$reprise" replay "$tmp/chmod.rpz" --target "$tmp/u" -q --cleanup
	if [ "$(cat "$tmp/u/locked/secret.txt" 2>/dev/null)" = secret ]; then ok "as a user: the file in the directory of before is kept"
	else ls -laR "$tmp/u" | sed 's/^/# /'; not_ok "as a user: the file in the directory of before is kept"; fi
	if [ ! -e "$tmp/u/new.txt" ]; then ok "as a user: what the run made is removed"; else not_ok "as a user: what the run made is removed"; fi
	has "as a user: the summary counts it left" out '^Cleanup: 1 entry the run made removed, 2 of before left'
fi

# 5-8. As root: a file of before 130 directories deep (beyond the snapshot's 128 levels); the trace
# renames it to the top.  It is kept there; what the run made goes.
deep=$(i=0; while [ $i -lt 130 ]; do printf '/d'; i=$((i + 1)); done)
{
	printf '0.000000000 0.000001000 c1 rename path="%s/deep.txt" path2="/up.txt" -> OK\n' "$deep"
	printf '0.000002000 0.000003000 c1 mkdir path="/made" mode=0755 -> OK\n'
} >"$tmp/deep.ops"
"$reprise" convert "$tmp/deep.ops" "$tmp/deep.rpz" >/dev/null 2>&1
if [ "$btime" = 0 ] || [ "$btime" = - ]; then
	for d in run "kept" "made removed" "summary"; do skip "deep: $d" "this file system gives no birth time"; done
else
	mkdir -p "$tmp/r$deep" && echo deep >"$tmp/r$deep/deep.txt"
	check "a trace that moves a file of before up from 130 levels down, with --cleanup" \
		"$reprise" replay "$tmp/deep.rpz" --target "$tmp/r" -q --cleanup
	if [ "$(cat "$tmp/r/up.txt" 2>/dev/null)" = deep ]; then ok "deep: the file of before is kept under its new name"
	else not_ok "deep: the file of before is kept under its new name"; fi
	if [ ! -e "$tmp/r/made" ]; then ok "deep: what the run made is removed"; else not_ok "deep: what the run made is removed"; fi
	has "deep: the summary" out '^Cleanup: 1 entry the run made removed, [0-9]+ of before left'
fi

# 9-14. A file system with no birth time (ramfs, mounted here as root): the same deep move leaves
# what the snapshot could not judge, counted unsure; a target the snapshot saw whole is cleaned as ever.
mkdir "$tmp/ram"
if [ "$(id -u)" != 0 ] || ! mount -t ramfs reprise-test "$tmp/ram" 2>/dev/null; then
	for d in "deep run" "deep kept" "unsure counted" "whole run" "whole removed" "whole kept"; do
		skip "no birth time: $d" "needs root to mount a ramfs"; done
else
	ram=$tmp/ram
	mkdir -p "$ram/r$deep" && echo deep >"$ram/r$deep/deep.txt"
	check "no birth time: the deep move, with --cleanup" "$reprise" replay "$tmp/deep.rpz" --target "$ram/r" -q --cleanup
	if [ "$(cat "$ram/r/up.txt" 2>/dev/null)" = deep ]; then ok "no birth time: the file of before is kept"
	else not_ok "no birth time: the file of before is kept"; fi
	has "no birth time: what cannot be judged is left and counted unsure" out \
		'^Cleanup: 0 entries the run made removed, [0-9]+ of before left, 2 left unsure '
	mkdir "$ram/w" && echo keep >"$ram/w/pre.txt"
	printf '0.000000000 0.000001000 c1 mkdir path="/made" mode=0755 -> OK\n' >"$tmp/mk.ops"
	"$reprise" convert "$tmp/mk.ops" "$tmp/mk.rpz" >/dev/null 2>&1
	check "no birth time, a snapshot that saw everything: --cleanup" "$reprise" replay "$tmp/mk.rpz" --target "$ram/w" -q --cleanup
	if [ ! -e "$ram/w/made" ]; then ok "no birth time, seen whole: what the run made is removed"
	else not_ok "no birth time, seen whole: what the run made is removed"; fi
	if [ "$(cat "$ram/w/pre.txt")" = keep ]; then ok "no birth time, seen whole: the file of before is kept"
	else not_ok "no birth time, seen whole: the file of before is kept"; fi
fi

echo "1..$n"
[ "$fails" = 0 ]
