#!/bin/sh
# A hostile target through the reprise binary (TAP): symlinks planted where a real capture's paths go, a FIFO, a full disk.
set -u
reprise=$1
pcaps=$2
tmp=$(mktemp -d "${TMPDIR:-/tmp}/reprise-hostile-XXXXXX")
full="$tmp/full"
cleanup() {
	if [ -d "$full" ] && mountpoint -q "$full" 2>/dev/null; then
		umount "$full"
	fi
	rm -rf "$tmp"
}
trap cleanup EXIT
trap 'exit 1' INT TERM
n=0
ok() { n=$((n + 1)); echo "ok $n - $1"; }
notok() { n=$((n + 1)); echo "not ok $n - $1"; }
skip() { n=$((n + 1)); echo "ok $n # SKIP $1"; }
check() { if eval "$2"; then ok "$1"; else notok "$1"; fi; }
json() { python3 -c "import json,sys; d=json.load(open(sys.argv[1])); sys.exit(0 if ($2) else 1)" "$1"; }
# Everything about the outside tree that a replay could change.
snapshot() { (cd "$1" && find . -printf '%p %y %m %U:%G %n %s %T@ %C@\n' | sort && find . -type f -exec cat {} +); }
# A regression would hang (a FIFO) rather than fail: every replay runs under this guard (-k: a client stuck
# in open(2) never sees the SIGTERM that asks it to stop).
guard=60
echo "1..8"

# 1-2. The NFSv4.1 sample capture sets the mode of .../epm-nfs/VERSION (SETATTR mode=0644):
# planted as a symlink to a 0600 file outside, and larry7 as a relative symlink to a directory outside.
mkdir -p "$tmp/t1/target/home/nst/nfs-share/epm-nfs" "$tmp/t1/outside/dir"
echo secret >"$tmp/t1/outside/victim"
chmod 600 "$tmp/t1/outside/victim"
echo inner >"$tmp/t1/outside/dir/inner"
ln -s "$tmp/t1/outside/victim" "$tmp/t1/target/home/nst/nfs-share/epm-nfs/VERSION"
ln -s ../../../../outside/dir "$tmp/t1/target/home/nst/nfs-share/larry7"
before=$(snapshot "$tmp/t1/outside")
if "$reprise" convert -q "$pcaps/nfstrace__eth-ipv4-tcp-nfsv41.pcap" "$tmp/t1/t.rpz" 2>"$tmp/t1/err"; then
	timeout -k 5 $guard "$reprise" replay "$tmp/t1/t.rpz" --target "$tmp/t1/target" -q --json "$tmp/t1/r.json" >/dev/null 2>&1
	rc=$?
	check "nfsv41 capture replays over planted symlinks (exit $rc)" "[ $rc -eq 0 ] || [ $rc -eq 1 ]"
	check "nothing outside the target changed (mode 600 kept)" \
		"[ \"\$before\" = \"\$(snapshot '$tmp/t1/outside')\" ] && [ \$(stat -c %a '$tmp/t1/outside/victim') = 600 ]"
else
	notok "convert nfstrace__eth-ipv4-tcp-nfsv41.pcap"
	sed 's/^/# /' "$tmp/t1/err"
	notok "nothing outside the target changed"
fi

# 3-4. A FIFO planted where the same capture opens VERSION write-only (that open blocks until a reader comes).
mkdir -p "$tmp/t3/home/nst/nfs-share/epm-nfs"
mkfifo "$tmp/t3/home/nst/nfs-share/epm-nfs/VERSION"
timeout -k 5 $guard "$reprise" replay "$tmp/t1/t.rpz" --target "$tmp/t3" -q --json "$tmp/3.json" >/dev/null 2>&1
rc=$?
check "a FIFO planted in the capture's path does not block replay (exit $rc)" "[ $rc -eq 0 ] || [ $rc -eq 1 ]"
check "its opens are refused and counted" \
	"json '$tmp/3.json' 'd[\"special_files\"] >= 1 and d[\"ops\"][\"open\"][\"special_files\"] >= 1'"

# 5. A loadfile's opens of a planted FIFO (read-write, which would not block): refused, counted, in the summary.
mkdir "$tmp/t5"
mkfifo "$tmp/t5/ff"
cat >"$tmp/t5.load" <<'EOF'
NTCreateX "\ff" 0x0 0x1 1 NT_STATUS_OK
ReadX 1 0 100 100 NT_STATUS_OK
Close 1 NT_STATUS_OK
NTCreateX "\ff" 0x0 0x3 2 NT_STATUS_OK
WriteX 2 0 100 100 NT_STATUS_OK
Close 2 NT_STATUS_OK
EOF
timeout -k 5 $guard "$reprise" replay "$tmp/t5.load" --target "$tmp/t5" --json "$tmp/5.json" >"$tmp/5.out" 2>&1
check "refused opens counted (JSON special_files, ENXIO, summary line)" \
	"[ -p '$tmp/t5/ff' ] && json '$tmp/5.json' 'd[\"special_files\"] == 2 and d[\"errors\"].get(\"ENXIO\") == 2' && grep -q 'Special files refused.*: 2' '$tmp/5.out'"

# 6-8. A full disk: a 1 MiB tmpfs (root only), a 2 MiB write fails ENOSPC instead of counting as done.
if [ "$(id -u)" -ne 0 ]; then
	skip "full disk: needs root to mount a tmpfs"
	skip "full disk: ENOSPC"
	skip "full disk: unmounted"
else
	mkdir "$full"
	if ! mount -t tmpfs -o size=1m,nr_inodes=64 reprise-hostile "$full" 2>"$tmp/mount.err"; then
		skip "full disk: cannot mount a tmpfs ($(cat "$tmp/mount.err"))"
		skip "full disk: ENOSPC"
		skip "full disk: unmounted"
	else
		cat >"$tmp/t6.load" <<'EOF'
NTCreateX "\big" 0x0 0x5 1 NT_STATUS_OK
WriteX 1 0 2097152 2097152 NT_STATUS_OK
Close 1 NT_STATUS_OK
EOF
		timeout -k 5 $guard "$reprise" replay "$tmp/t6.load" --target "$full" -q --json "$tmp/6.json" >/dev/null 2>&1
		rc=$?
		check "replay on a full disk runs (exit $rc)" "[ $rc -eq 0 ] || [ $rc -eq 1 ]"
		check "the cut write fails with ENOSPC" \
			"json '$tmp/6.json' 'd[\"ops\"][\"write\"][\"failures\"] == 1 and d[\"errors\"].get(\"ENOSPC\") == 1 and d[\"bytes\"] == 0'"
		umount "$full"
		check "full disk: unmounted" "! mountpoint -q '$full'"
	fi
fi
