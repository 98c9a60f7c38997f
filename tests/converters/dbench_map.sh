#!/bin/sh
# dbench's command -> syscall mapping as docs/dbench-mapping.md states it (TAP; skipped without
# dbench or strace, or where ptrace is not allowed): runs docs/dbench-mapping/measure.sh on two of
# its tiny loadfiles (dbench ~1 s under strace each) and checks that every loop maps each line the
# way the document's table says, so the document cannot go stale unnoticed.
#   dbench_map.sh REPRISE SRCDIR
set -u
reprise=$1
src=$2
for p in dbench strace; do
	if ! command -v "$p" >/dev/null 2>&1; then
		echo "1..0 # SKIP $p is not installed"
		exit 0
	fi
done
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT INT TERM
. "${0%/*}/../lib/tap.sh"
if ! strace -f -o /dev/null true 2>/dev/null; then
	echo "1..0 # SKIP strace cannot trace here (no ptrace)"
	exit 0
fi
doc=$src/docs/dbench-mapping.md

for lf in readwrite lock; do
	if ! sh "$src/docs/dbench-mapping/measure.sh" -r "$reprise" -t 1 "$src/docs/dbench-mapping/$lf.txt" \
		>"$tmp/$lf.md" 2>"$tmp/err"; then
		not_ok "measure.sh runs dbench on $lf.txt"
		sed 's/^/# /' "$tmp/err" | head -20
		continue
	fi
	ok "measure.sh runs dbench on $lf.txt"
	# the rows: | # | line | syscalls -> ops | agreeing/loops |
	grep '^| [0-9]' "$tmp/$lf.md" >"$tmp/rows"
	lines=$(wc -l <"$src/docs/dbench-mapping/$lf.txt")
	if [ "$(wc -l <"$tmp/rows")" -eq "$lines" ]; then ok "$lf.txt: a row per loadfile line"; else not_ok "$lf.txt: a row per loadfile line"; fi
	# every loop the same: the segmentation by kill(ppid, 0) holds and the mapping is steady
	if awk -F ' \\| ' '{ split($4, a, /[\/ ]/); if (a[1] != a[2]) { print "# " $0; bad = 1 } } END { exit bad }' "$tmp/rows"; then
		ok "$lf.txt: every counted loop maps every line alike"
	else
		not_ok "$lf.txt: every counted loop maps every line alike"
	fi
	# the same rows (without the loop counts, which vary) stand in the document
	sed 's/ | [0-9]*\/[0-9]* |$//' "$tmp/rows" >"$tmp/want"
	missing=0
	while IFS= read -r row; do
		if ! grep -qF -- "$row" "$doc"; then echo "# not in docs/dbench-mapping.md: $row"; missing=1; fi
	done <"$tmp/want"
	if [ $missing = 0 ]; then ok "$lf.txt: docs/dbench-mapping.md has this table"; else not_ok "$lf.txt: docs/dbench-mapping.md has this table"; fi
done

# the mapping itself, spelled out for the commands the issue names
row() { grep -F -- "| \`$1\` |" "$tmp/readwrite.md" "$tmp/lock.md" 2>/dev/null | head -n 1 | cut -d'|' -f4; }
has() {
	got=$(row "$1")
	if [ "$got" = " $2 " ]; then ok "$1 -> $2"; else echo "# got:$got"; not_ok "$1 -> $2"; fi
}
has 'Flush 1 NT_STATUS_OK' '`fsync(C/f)` → flush'
has 'ReadX 1 0 4096 4096 NT_STATUS_OK' '`pread64(C/f, 4096 @0)` → read'
has 'ReadX 1 61440 65536 4096 NT_STATUS_OK' '`pread64(C/f, 65536 @61440)` → read'
has 'WriteX 1 65534 1 1 NT_STATUS_OK' '`pwrite64(C/f, 1 @65534)` → write'
has 'Close 1 NT_STATUS_OK' '`close(C/f)` → close'
has 'LockX 1 2147483538 1 NT_STATUS_OK' '`fcntl(C/f, F_SETLKW, F_WRLCK, SEEK_SET, 2147483538, 1)` → lock flags=excl,wait'
has 'UnlockX 1 2147483538 1 NT_STATUS_OK' '`fcntl(C/f, F_SETLKW, F_UNLCK, SEEK_SET, 2147483538, 1)` → unlock flags=wait'
echo "1..$n"
