#!/bin/bash
# Integration: live-capture a real server on lo with `reprise capture`, drive it with a real client,
# and check the trace has the ops the client did.  Usage: integration.sh smb|nfs3|nfs4
set -u
proto=${1:?smb, nfs3 or nfs4}
root=${REPRISE_SOURCE_ROOT:?}
reprise=${REPRISE_BUILD_ROOT:?}/cli/reprise
fixtures=$root/tests/fixtures
. "$root/tests/lib/ports.sh"

[ "$(id -u)" -eq 0 ] || { echo "1..0 # SKIP needs root to capture on lo"; exit 77; }
need() { command -v "$1" >/dev/null || { echo "1..0 # SKIP $1 not installed"; exit 77; }; }

tmp=$(mktemp -d /tmp/reprise-int.XXXXXX)
cap_pid=
cleanup() {
	[ -n "$cap_pid" ] && kill -TERM "$cap_pid" 2>/dev/null && wait "$cap_pid" 2>/dev/null
	case $proto in
	smb) "$fixtures/smbd.sh" stop "$tmp/srv" ;;
	*) "$fixtures/ganesha.sh" stop "$tmp/srv" ;;
	esac
	rm -rf "$tmp"
}
trap cleanup EXIT INT TERM

fail() { echo "FAIL: $*" >&2; echo "--- trace:" >&2; "$reprise" cat "$tmp/t.rpz" >&2 2>/dev/null; exit 1; }

# Free ports of our own (tests/lib/ports.sh), different per run.
base=$(free_ports $$) || exit 1
printf 'hello from reprise %s\n' "$proto" > "$tmp/alpha.txt"
# libnfs 4.0's nfs-cp fails writes of 32 KiB and up over NFSv4 against ganesha: keep v4's file small.
size=200000
[ "$proto" = nfs4 ] && size=3000
head -c "$size" /dev/urandom > "$tmp/big.bin"

case $proto in
smb)
	need smbd; need smbclient
	"$fixtures/smbd.sh" start "$tmp/srv" "$base" || fail "smbd did not start"
	filter="tcp port $base"
	;;
nfs3|nfs4)
	need ganesha.nfsd; need nfs-cp; need nfs-ls
	"$fixtures/ganesha.sh" start "$tmp/srv" "$base" "$((base + 1))" || fail "ganesha did not start"
	filter="tcp port $base or tcp port $((base + 1))"
	;;
*)
	echo "unknown protocol $proto" >&2
	exit 2
	;;
esac

"$reprise" capture --iface lo --filter "$filter" --duration 60 -o "$tmp/t.rpz" 2> "$tmp/capture.log" &
cap_pid=$!
sleep 1.5 # libpcap has no "ready" signal; activation takes well under this

case $proto in
smb)
	smbclient "//127.0.0.1/share" -p "$base" -U root%pw -m SMB3 -c "mkdir d1; put $tmp/alpha.txt d1\\alpha.txt; put $tmp/big.bin d1\\big.bin; get d1\\alpha.txt $tmp/back.txt; rm d1\\alpha.txt; rm d1\\big.bin; rmdir d1" \
		> "$tmp/client.log" 2>&1 || fail "smbclient: $(cat "$tmp/client.log")"
	;;
nfs3|nfs4)
	v=${proto#nfs}
	q="version=$v&nfsport=$base&mountport=$((base + 1))"
	[ "$v" = 4 ] && q="version=4&nfsport=$base"
	nfs-cp "$tmp/alpha.txt" "nfs://127.0.0.1/export/alpha.txt?$q" > "$tmp/client.log" 2>&1 || fail "nfs-cp put: $(cat "$tmp/client.log")"
	nfs-cp "$tmp/big.bin" "nfs://127.0.0.1/export/big.bin?$q" >> "$tmp/client.log" 2>&1 || fail "nfs-cp put big"
	nfs-ls "nfs://127.0.0.1/export?$q" >> "$tmp/client.log" 2>&1 || fail "nfs-ls"
	nfs-cp "nfs://127.0.0.1/export/alpha.txt?$q" "$tmp/back.txt" >> "$tmp/client.log" 2>&1 || fail "nfs-cp get"
	;;
esac
cmp -s "$tmp/alpha.txt" "$tmp/back.txt" || fail "the file did not come back intact"

sleep 0.5
kill -INT "$cap_pid"
wait "$cap_pid"
rc=$?
cap_pid=
[ "$rc" -eq 0 ] || fail "reprise capture exited $rc: $(cat "$tmp/capture.log")"
grep -q "^frames [1-9]" "$tmp/capture.log" || fail "no frames captured: $(cat "$tmp/capture.log")"

"$reprise" cat "$tmp/t.rpz" > "$tmp/ops.txt" || fail "reprise cat"
"$reprise" stat "$tmp/t.rpz" > "$tmp/stat.txt" || fail "reprise stat"
expect() { grep -Eq "$1" "$tmp/ops.txt" || fail "no op matching /$1/"; }
n=0
check() { n=$((n + 1)); expect "$1"; echo "ok $n - $2"; }
echo "# $(cat "$tmp/capture.log")"
case $proto in
smb)
	echo "1..7"
	check ' mkdir path="[^"]*d1"|open path="[^"]*d1" .*disp=(create|open_if) of=([a-z_]*,)*dir' "mkdir d1"
	check ' open path="[^"]*d1[/\\]alpha\.txt"' "open d1/alpha.txt"
	check ' write .*len(gth)?=' "write"
	check ' read .*len(gth)?=' "read"
	# smbclient deletes by opening with FILE_DELETE_ON_CLOSE or by set-info: delete-on-close, a
	# property of the handle (docs/op-model.md), done at its close.
	doc=' of=([a-z_]*,)*delete_on_close'
	check " unlink path=\"[^\"]*alpha\\.txt\"| open path=\"[^\"]*alpha\\.txt\".*$doc| setattr path=\"[^\"]*alpha\\.txt\".* set=delete" "unlink alpha.txt"
	check " unlink path=\"[^\"]*big\\.bin\"| open path=\"[^\"]*big\\.bin\".*$doc| setattr path=\"[^\"]*big\\.bin\".* set=delete" "unlink big.bin"
	check " rmdir path=\"[^\"]*d1\"| open path=\"[^\"]*d1\".*$doc| setattr path=\"[^\"]*d1\".* set=delete" "rmdir d1"
	# and stat counts them as the deletes they are
	grep -Eq '^(unlink|rmdir) .*done by a close: delete-on-close' "$tmp/stat.txt" || fail "stat counts no delete done by a close"
	;;
*)
	echo "1..4"
	check ' (open|lookup) path="[^"]*alpha\.txt"' "create/open alpha.txt"
	check ' write .*big\.bin|path="[^"]*big\.bin".* write | write ' "write"
	check ' read ' "read"
	check ' readdir ' "readdir"
	;;
esac
grep -Eq '^ops +[1-9]' "$tmp/stat.txt" || fail "reprise stat counts no ops"
exit 0
