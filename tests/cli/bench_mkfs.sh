#!/bin/sh
# reprise bench --mkfs (TAP; suite slow, root with loop devices, else skipped): tmpfs and ext4 images made,
# used as targets and all removed after; also after SIGTERM mid-run; a file system the kernel lacks is
# skipped; a stale mount of an earlier run is reported and left alone; without root, a clear error.
#   bench_mkfs.sh REPRISE SOURCE_ROOT
set -u
reprise=$1
if [ "$(id -u)" != 0 ] || [ ! -e /dev/loop-control ] || ! command -v mkfs.ext4 >/dev/null 2>&1 \
	|| ! grep -qw ext4 /proc/filesystems; then
	echo "1..0 # skip needs root, /dev/loop-control, mkfs.ext4 and ext4 in the kernel"
	exit 0
fi
tmp=$(mktemp -d) || exit 1
chmod 755 "$tmp" # the unprivileged check below reads the workload
pid=
# Whatever a failing check left: the bench process, mounts and loop devices under $tmp, by name.
cleanup() {
	[ -n "$pid" ] && kill -KILL "$pid" 2>/dev/null && wait "$pid" 2>/dev/null
	for m in $(awk -v d="$tmp/" 'index($5, d) == 1 { print $5 }' /proc/self/mountinfo); do umount -l "$m"; done
	for f in /sys/block/loop*/loop/backing_file; do
		[ -r "$f" ] || continue
		case $(cat "$f") in "$tmp"/*) d=${f#/sys/block/}; losetup -d "/dev/${d%%/*}" ;; esac
	done
	rm -rf "$tmp"
}
trap cleanup EXIT
trap 'exit 1' INT TERM
. "${0%/*}/../lib/tap.sh"

run() { timeout 300 "$@" >"$tmp/out" 2>"$tmp/err"; }
check_exit() { desc=$1; want=$2; shift 2; run "$@"; rc=$?
	if [ "$rc" = "$want" ]; then ok "$desc"; else echo "# exit $rc, wanted $want"; not_ok "$desc"; fi; }
# Nothing of ours left: no mount beneath the directory, no loop device on an image in it, nothing in it.
nothing_left() {
	left=$(awk -v d="$1/" 'index($5, d) == 1' /proc/self/mountinfo)
	for f in /sys/block/loop*/loop/backing_file; do
		[ -r "$f" ] && case $(cat "$f") in "$1"/*) left="$left loop:$f" ;; esac
	done
	[ -n "$(ls -A "$1")" ] && left="$left files: $(ls -A "$1")"
	if [ -z "$left" ]; then ok "$2"; else echo "# left: $left"; not_ok "$2"; fi
}

cat >"$tmp/w.txt" <<'LOAD'
NTCreateX "\d\f1" 0x0 0x2 1 NT_STATUS_OK
WriteX 1 0 65536 65536 NT_STATUS_OK
ReadX 1 0 4096 4096 NT_STATUS_OK
Close 1 NT_STATUS_OK
Unlink "\d\f1" 0x6 NT_STATUS_OK
LOAD
mkdir "$tmp/m"

# 1. tmpfs and ext4, small: made, run, removed.
check_exit "bench --mkfs tmpfs,ext4" 0 "$reprise" bench "$tmp/w.txt" --mkfs tmpfs,ext4 --mkfs-dir "$tmp/m" \
	--mkfs-size 64M --runs 2 -q --json "$tmp/m.json"
has "tmpfs and ext4 are the table's columns" out '^target +tmpfs +ext4 *$'
has "with their file-system types" out '^file system +tmpfs +ext4 *$'
has "ext4 was mounted from a loop device" err "--mkfs ext4: $tmp/m/reprise-mkfs-ext4 mounted from /dev/loop[0-9]+"
nothing_left "$tmp/m" "after the run: no mount, no loop device, no image, no mount point"
if python3 - "$tmp/m.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
t = {x["mkfs"]: x for x in d["targets"]}
assert t["tmpfs"]["fs_type"] == "tmpfs" and t["ext4"]["fs_type"] == "ext4", t
assert all(r["result"]["final_sync"]["ran"] for x in d["targets"] for r in x["runs"])
assert d["options"]["mkfs"] == "tmpfs,ext4" and d["options"]["mkfs_size"] == 64 << 20
assert [x.rsplit("-", 1)[1] for x in d["order"]] == ["tmpfs", "ext4"] * 2, d["order"]
PY
then ok "the JSON names the file systems, the sync ran on both"; else not_ok "the JSON names the file systems"; fi

# 2. A file system the kernel lacks is said and skipped; the others run.
check_exit "bench --mkfs tmpfs,jfs" 0 "$reprise" bench "$tmp/w.txt" --mkfs tmpfs,jfs --mkfs-dir "$tmp/m" --mkfs-size 64M --runs 1 -q
if grep -qw jfs /proc/filesystems; then
	ok "jfs is in this kernel # skip the absent-kernel case"
else
	has "jfs: skipped, said why" err '--mkfs jfs: skipped: this kernel has no jfs \(not in /proc/filesystems\)'
fi
nothing_left "$tmp/m" "after the skip: nothing left"

# 3. SIGTERM in the middle of a long run: the run stops, everything is removed, exit 130.
"$reprise" bench "$tmp/w.txt" --mkfs ext4,tmpfs --mkfs-dir "$tmp/m" --mkfs-size 64M --runs 2 -t 60 -q \
	>"$tmp/out" 2>"$tmp/err" &
pid=$!
i=0
while [ $i -lt 600 ] && ! grep -q "run 1 of 2 on $tmp/m/reprise-mkfs-ext4" "$tmp/err"; do sleep 0.1; i=$((i + 1)); done
sleep 0.5
if grep -q "reprise-mkfs-ext4" /proc/self/mountinfo; then ok "mid-run: ext4 is mounted"; else not_ok "mid-run: ext4 is mounted"; fi
kill -TERM "$pid"
wait "$pid"
rc=$?
pid=
if [ "$rc" = 130 ]; then ok "SIGTERM: exit 130"; else echo "# exit $rc"; not_ok "SIGTERM: exit 130"; fi
nothing_left "$tmp/m" "after SIGTERM: no mount, no loop device, no image, no mount point"

# 4. A stale mount (an earlier run killed with SIGKILL): reported, left alone; the others go on.
mkdir "$tmp/m/reprise-mkfs-tmpfs"
mount -t tmpfs -o size=1m stale "$tmp/m/reprise-mkfs-tmpfs"
check_exit "a stale mount: exit 1" 1 "$reprise" bench "$tmp/w.txt" --mkfs tmpfs,ext4 --mkfs-dir "$tmp/m" --mkfs-size 64M --runs 1 -q
has "the stale mount is reported" err "--mkfs tmpfs: $tmp/m/reprise-mkfs-tmpfs is still mounted, left by an earlier run"
has "ext4 ran anyway" out '^target +ext4 *$'
if grep -q " $tmp/m/reprise-mkfs-tmpfs " /proc/self/mountinfo; then ok "the stale mount is not touched"; else not_ok "the stale mount is not touched"; fi
umount "$tmp/m/reprise-mkfs-tmpfs" && rmdir "$tmp/m/reprise-mkfs-tmpfs"
nothing_left "$tmp/m" "after the stale case: nothing of the run left"

# 5. Without root: a clear error, nothing made.
if command -v setpriv >/dev/null 2>&1; then
	check_exit "not root: exit 1" 1 setpriv --reuid=65534 --regid=65534 --clear-groups "$reprise" bench "$tmp/w.txt" \
		--mkfs tmpfs --mkfs-dir "$tmp/m" --runs 1 -q
	has "not root: said" err '--mkfs needs root'
	nothing_left "$tmp/m" "not root: nothing made"
fi
echo "1..$n"
