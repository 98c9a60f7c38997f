#!/bin/bash
# replay --image against real servers on 127.0.0.1 (TAP; tests/fixtures/smbd.sh, ganesha.sh): the
# same Impressions image through the smb backend (SMB3), nfs v3 and nfs v4 as through posix — the
# same names, types and sizes on the server's disk, every file without holes, beneath the share or
# export only — and the trace's own ops with 0 mismatches.
#   image_server.sh REPRISE SOURCE_ROOT
set -u
reprise=$1
root=$2
fixtures=$root/tests/fixtures
trace=$root/samples/smb2-small-files.rpz
. "${0%/*}/../lib/tap.sh"
. "${0%/*}/../lib/ports.sh"
unset REPRISE_SMB_PASSWORD
tmp=$(mktemp -d /tmp/reprise-imgsrv.XXXXXX) || exit 1
chmod 755 "$tmp" # the guest account (nobody) reaches the share through it
cleanup() {
	"$fixtures/smbd.sh" stop "$tmp/smb" >/dev/null 2>&1
	"$fixtures/ganesha.sh" stop "$tmp/nfs" >/dev/null 2>&1
	rm -rf "$tmp"
}
trap cleanup EXIT INT TERM
run() { timeout -k 5 200 "$@" >"$tmp/out" 2>"$tmp/err"; }
listening() { (exec 3<>/dev/tcp/127.0.0.1/"$1") 2>/dev/null; }
tree() { (cd "$1" && find . -mindepth 1 \( -type f -printf 'f %s %p\n' \) -o \( -type d -printf 'd - %p\n' \) | sort); }
holes() { find "$1" -type f -printf '%s %b\n' | awk '$2 * 512 < $1 { n++ } END { print n + 0 }'; }
opts=(--image impressions --image-scale 0.005 --image-max-file-size 1M --seed 3)
# same_image DESC DIR: DIR/rp-image is the posix one, without holes, and the run had 0 mismatches
same_image() {
	if ! grep -q 'mismatched 0' "$tmp/out"; then tail -3 "$tmp/out" | sed 's/^/# /'; not_ok "$1: 0 mismatches"; else ok "$1: 0 mismatches"; fi
	tree "$2/rp-image" >"$tmp/t"
	if [ -s "$tmp/t" ] && cmp -s "$tmp/ref" "$tmp/t"; then ok "$1: the posix image's names, types and sizes"; else
		diff "$tmp/ref" "$tmp/t" | head -5 | sed 's/^/# /'; not_ok "$1: the posix image's names, types and sizes"; fi
	h=$(holes "$2/rp-image")
	if [ "$h" = 0 ]; then ok "$1: no holes"; else echo "# $h files with holes"; not_ok "$1: no holes"; fi
}
echo "1..12"

# 1-3. posix: the reference
mkdir "$tmp/posix"
run "$reprise" replay "$trace" --target "$tmp/posix" "${opts[@]}"
tree "$tmp/posix/rp-image" >"$tmp/ref"
echo "# posix: $(grep '^Image:' "$tmp/out")"
if grep -q 'mismatched 0' "$tmp/out" && [ "$(grep -c '^f ' "$tmp/ref")" = 100 ]; then ok "posix: 100 files, 0 mismatches"; else not_ok "posix"; fi
h=$(holes "$tmp/posix/rp-image")
if [ "$h" = 0 ]; then ok "posix: no holes"; else not_ok "posix: no holes"; fi
if [ "$(ls "$tmp/posix" | tr '\n' ' ')" = "100-small-files rp-image " ]; then ok "posix: the image beside the trace's directory"; else not_ok "posix: root entries"; fi

# 4-6. smb://
smb_skip() { for _ in 1 2 3; do ok "# SKIP $1"; done; }
if ! command -v smbd >/dev/null || ! "$reprise" replay --list-backends | grep -q '^  smb '; then smb_skip "no smbd or smb backend"; else
	for _ in 1 2 3 4 5; do
		port=$(free_ports $(($$ + RANDOM)) 1) || break
		"$fixtures/smbd.sh" start "$tmp/smb" "$port" >"$tmp/err" 2>&1 && break
	done
	if ! listening "$port"; then smb_skip "smbd did not start"; else
		run "$reprise" replay "$trace" --target "smb://127.0.0.1:$port/share" --user 'root%pw' "${opts[@]}"
		same_image "smb" "$tmp/smb/share"
	fi
	"$fixtures/smbd.sh" stop "$tmp/smb" >/dev/null 2>&1
fi

# 7-12. nfs:// v3 and v4
nfs_skip() { for _ in 1 2 3 4 5 6; do ok "# SKIP $1"; done; }
if [ "$(id -u)" -ne 0 ] || ! command -v ganesha.nfsd >/dev/null || ! "$reprise" replay --list-backends | grep -q '^  nfs '; then
	nfs_skip "no root, ganesha or nfs backend"
else
	base=$(free_ports $(($$ + 1))) || exit 1
	if ! "$fixtures/ganesha.sh" start "$tmp/nfs" "$base" $((base + 1)) >"$tmp/err" 2>&1; then nfs_skip "ganesha did not start"; else
		export_dir=$tmp/nfs/export
		run "$reprise" replay "$trace" --target "nfs://127.0.0.1/export?version=3&nfsport=$base&mountport=$((base + 1))" "${opts[@]}"
		same_image "nfs v3" "$export_dir"
		rm -rf "${export_dir:?}"/*
		run "$reprise" replay "$trace" --target "nfs://127.0.0.1/export?version=4&nfsport=$base" "${opts[@]}"
		same_image "nfs v4" "$export_dir"
	fi
fi
exit 0
