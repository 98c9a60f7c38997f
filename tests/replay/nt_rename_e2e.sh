#!/bin/sh
# The NT layer's delete-on-close follows a rename (TAP; replay/ntsem.c, issue 22): a handle keeps its
# object whatever its name, so a delete at its last close removes what it has open, under its new name,
# never what took its old name since, nor what a rename put over a name it had.
#   nt_rename_e2e.sh REPRISE
set -u
reprise=$1
tmp=$(mktemp -d "${TMPDIR:-/tmp}/reprise-nt-rename-XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT INT TERM
. "${0%/*}/../lib/tap.sh"
# replay NAME: the text trace $tmp/NAME.ops replayed into an empty $tmp/t; the listing (file:size, dir/) in $tmp/NAME.ls.
replay() {
	rm -rf "$tmp/t" && mkdir "$tmp/t"
	"$reprise" convert "$tmp/$1.ops" "$tmp/$1.rpz" >/dev/null 2>"$tmp/err" &&
		"$reprise" replay "$tmp/$1.rpz" --target "$tmp/t" -q >"$tmp/out" 2>>"$tmp/err"
	(cd "$tmp/t" && find . -mindepth 1 \( -type d -printf '%P/\n' \) -o -printf '%P:%s\n' | sort | tr '\n' ' ') >"$tmp/$1.ls"
}
is() { if [ "$(cat "$tmp/$2.ls")" = "$3" ]; then ok "$1"; else echo "# left: '$(cat "$tmp/$2.ls")', want '$3'"; not_ok "$1"; fi; }

# 1-2. Open a with delete-on-close, rename it by handle to b, create a new a and write 5 bytes, close
# both: b (the object the handle had) goes, the new a stays.
cat >"$tmp/byhandle.ops" <<'OPS'
0.000000000 0.000001000 c1 open path="/a" fh=1 ret=2 want=read,write,delete disp=create mode=0644 of=nt,delete_on_close -> OK
0.000002000 0.000003000 c1 rename path="/a" path2="/b" fh=1 -> OK
0.000004000 0.000005000 c1 open path="/a" fh=2 ret=2 want=read,write disp=create mode=0644 of=nt -> OK
0.000006000 0.000007000 c1 write fh=2 off=0 len=5 ret=5 -> OK
0.000008000 0.000009000 c1 close fh=2 -> OK
0.000010000 0.000011000 c1 close fh=1 -> OK
OPS
replay byhandle
is "renamed by handle: the delete at close takes b, the new a stays" byhandle "a:5 "
has "renamed by handle: 0 failures, 0 mismatches" out '^Failed 0, mismatched 0'

# 3. The same rename by path (another op, no handle), the new a opened before the close of the old.
cat >"$tmp/bypath.ops" <<'OPS'
0.000000000 0.000001000 c1 open path="/a" fh=1 ret=2 want=read,write,delete disp=create mode=0644 of=nt,delete_on_close -> OK
0.000002000 0.000003000 c1 rename path="/a" path2="/b" -> OK
0.000004000 0.000005000 c1 open path="/a" fh=2 ret=2 want=read,write disp=create mode=0644 of=nt -> OK
0.000006000 0.000007000 c1 write fh=2 off=0 len=5 ret=5 -> OK
0.000008000 0.000009000 c1 close fh=1 -> OK
0.000010000 0.000011000 c1 close fh=2 -> OK
OPS
replay bypath
is "renamed by path: the delete at close takes b, the new a stays" bypath "a:5 "

# 4. A rename over the name of a delete-on-close handle's object: that object left the namespace, and
# its close deletes nothing (the file the rename put there stays).
cat >"$tmp/over.ops" <<'OPS'
0.000000000 0.000001000 c1 open path="/x" fh=1 ret=2 want=read,write,delete disp=create mode=0644 of=nt,delete_on_close -> OK
0.000002000 0.000003000 c1 open path="/y" fh=2 ret=2 want=read,write disp=create mode=0644 of=nt -> OK
0.000004000 0.000005000 c1 write fh=2 off=0 len=3 ret=3 -> OK
0.000006000 0.000007000 c1 close fh=2 -> OK
0.000008000 0.000009000 c1 rename path="/y" path2="/x" -> OK
0.000010000 0.000011000 c1 close fh=1 -> OK
OPS
replay over
is "a rename over an open delete-on-close object: the file put there stays" over "x:3 "

# 5. A handle beneath a renamed directory follows it: d/a opened delete-on-close, d renamed to e, a
# new d/a made: the close deletes e/a, the new d/a stays.
cat >"$tmp/dir.ops" <<'OPS'
0.000000000 0.000001000 c1 mkdir path="/d" mode=0755 -> OK
0.000002000 0.000003000 c1 open path="/d/a" fh=1 ret=2 want=read,write,delete disp=create mode=0644 of=nt,delete_on_close -> OK
0.000004000 0.000005000 c1 rename path="/d" path2="/e" -> OK
0.000006000 0.000007000 c1 mkdir path="/d" mode=0755 -> OK
0.000008000 0.000009000 c1 open path="/d/a" fh=2 ret=2 want=read,write disp=create mode=0644 of=nt -> OK
0.000010000 0.000011000 c1 write fh=2 off=0 len=5 ret=5 -> OK
0.000012000 0.000013000 c1 close fh=2 -> OK
0.000014000 0.000015000 c1 close fh=1 -> OK
OPS
replay dir
is "beneath a renamed directory: the close deletes e/a, the new d/a stays" dir "d/ d/a:5 e/ "

echo "1..$n"
[ "$fails" = 0 ]
