#!/bin/sh
# reprise capture as a user sees it (TAP): a start banner, a status line on a tty, "nothing matched",
# no summary when it could not start, and why a capture without privilege failed.
set -u
reprise=$1
tmp=$(mktemp -d "${TMPDIR:-/tmp}/reprise-capture-XXXXXX")
chmod 755 "$tmp"
trap 'rm -rf "$tmp"' EXIT
. "${0%/*}/../lib/tap.sh"
skip() { n=$((n + 1)); echo "ok $n - $1 # SKIP $2"; }
has() { if grep -q -- "$2" "$tmp/err"; then ok "$1"; else not_ok "$1"; fi; }
lacks() { if grep -q -- "$2" "$tmp/err"; then not_ok "$1"; else ok "$1"; fi; }
quiet_filter='udp port 9 and host 127.0.0.99'

# 1-3: a set-up failure is an error, with no summary of a capture that never ran
"$reprise" capture --iface rp-no-such0 -d 0.2 -o "$tmp/a.rpz" 2>"$tmp/err"
if [ $? = 1 ]; then ok "no such interface: exit 1"; else not_ok "no such interface: exit 1"; fi
has "it says why" "rp-no-such0"
lacks "and prints no summary" "^frames "

# a command's options given to a packet capture are a usage error naming the option, before anything runs
"$reprise" capture --iface lo --only /tmp -d 0.2 -o "$tmp/o.rpz" 2>"$tmp/err"
if [ $? = 2 ]; then ok "--only with --iface: exit 2"; else not_ok "--only with --iface: exit 2"; fi
has "it names the option" "--only is for a command's syscalls"
"$reprise" capture --iface lo --spool-dir /tmp -d 0.2 -o "$tmp/o.rpz" 2>"$tmp/err"
if [ $? = 2 ]; then ok "--spool-dir with --iface: exit 2"; else not_ok "--spool-dir with --iface: exit 2"; fi
if [ ! -e "$tmp/o.rpz" ]; then ok "... and writes nothing"; else not_ok "... and writes nothing"; fi

# a capture of other traffic (HTTP on lo, and an ARP frame) has no NFS or SMB message: said, with the kinds and
# their frames, and --strict fails; a pcap written here (Ethernet, IPv4, TCP), so no root is needed
python3 - "$tmp/http.pcap" <<'PY'
import struct, sys
def eth(payload, et=0x0800): return b'\0' * 12 + struct.pack('>H', et) + payload
def ip(l4):
    h = struct.pack('>BBHHHBBH4s4s', 0x45, 0, 20 + len(l4), 1, 0x4000, 64, 6, 0, bytes([127, 0, 0, 1]), bytes([127, 0, 0, 1]))
    s = sum(struct.unpack('>10H', h)); s = (s & 0xffff) + (s >> 16); s = (s & 0xffff) + (s >> 16)
    return h[:10] + struct.pack('>H', ~s & 0xffff) + h[12:] + l4
def tcp(sp, dp, seq, ack, flags, data=b''):
    return struct.pack('>HHIIBBHHH', sp, dp, seq, ack, 0x50, flags, 65535, 0, 0) + data
req = b'GET / HTTP/1.0\r\n\r\n'
resp = b'HTTP/1.0 200 OK\r\nContent-Length: 5\r\n\r\nhello'
fr = [ip(tcp(40000, 8000, 100, 0, 0x02)), ip(tcp(8000, 40000, 500, 101, 0x12)), ip(tcp(40000, 8000, 101, 501, 0x10)),
      ip(tcp(40000, 8000, 101, 501, 0x18, req)), ip(tcp(8000, 40000, 501, 101 + len(req), 0x18, resp)),
      ip(tcp(8000, 40000, 501 + len(resp), 101 + len(req), 0x11)), ip(tcp(40000, 8000, 101 + len(req), 502 + len(resp), 0x11))]
fr = [eth(f) for f in fr] + [eth(b'\0\x01\x08\x00\x06\x04\0\x01' + b'\0' * 20, 0x0806)]
out = struct.pack('<IHHiIII', 0xa1b2c3d4, 2, 4, 0, 0, 65535, 1)
for i, f in enumerate(fr):
    out += struct.pack('<IIII', 1700000000, i * 1000, len(f), len(f)) + f
open(sys.argv[1], 'wb').write(out)
PY
"$reprise" convert "$tmp/http.pcap" "$tmp/http.rpz" 2>"$tmp/err"
if [ $? = 0 ]; then ok "a pcap of HTTP only: convert exits 0"; else not_ok "a pcap of HTTP only: convert exits 0"; fi
has "... and says there was no NFS or SMB message, naming what there was" \
	"no NFS or SMB message in 8 frames (2 other protocols: TCP port 8000 7 frames, not IP 1 frame): wrong port?"
"$reprise" convert --strict "$tmp/http.pcap" "$tmp/http2.rpz" 2>"$tmp/err"
if [ $? = 1 ]; then ok "... convert --strict fails"; else not_ok "... convert --strict fails"; fi
has "... saying why" "--strict: no NFS or SMB message in 8 frames"

live=yes
if ! "$reprise" capture --iface lo -d 0.01 -q -o "$tmp/p.rpz" 2>"$tmp/err" && grep -q 'built without libpcap' "$tmp/err"; then
	live=
fi
if [ "$(id -u)" -ne 0 ] || [ -z "$live" ]; then
	for t in "a start banner: interface, filter, buffer" "nothing matched the filter" "the summary" \
		"... which says the kernel dropped none" \
		"a status line on a tty" "without privilege: exit 1" "it names the capabilities it needs"; do
		skip "$t" "needs root and a build with libpcap"
	done
	echo "1..$n"
	exit 0
fi

# 4-6: on lo with a filter nothing matches
"$reprise" capture --iface lo --filter "$quiet_filter" -d 0.3 -o "$tmp/b.rpz" 2>"$tmp/err"
has "a start banner: interface, filter, buffer" "on lo, filter '$quiet_filter', buffer 64 MiB"
has "nothing matched the filter" "nothing matched the filter '$quiet_filter' on lo"
has "the summary" "^frames 0, ops 0"
has "... which says the kernel dropped none" "kernel drops 0"

# 7: on a terminal, a status line once a second
if command -v script >/dev/null 2>&1; then
	script -qec "'$reprise' capture --iface lo --filter '$quiet_filter' -d 1.6 -o '$tmp/d.rpz'" /dev/null >"$tmp/err" 2>&1
	has "a status line on a tty" "frames 0  ops 0"
else
	skip "a status line on a tty" "no script(1)"
fi

# 8-9: without CAP_NET_RAW
if command -v setpriv >/dev/null 2>&1 && setpriv --reuid=65534 --regid=65534 --clear-groups "$reprise" --help >/dev/null 2>&1; then
	mkdir "$tmp/nobody" && chmod 777 "$tmp/nobody"
	setpriv --reuid=65534 --regid=65534 --clear-groups "$reprise" capture --iface lo -d 0.2 -o "$tmp/nobody/c.rpz" 2>"$tmp/err"
	if [ $? = 1 ]; then ok "without privilege: exit 1"; else not_ok "without privilege: exit 1"; fi
	has "it names the capabilities it needs" "CAP_NET_RAW"
else
	skip "without privilege: exit 1" "no setpriv, or user nobody cannot run the built binary"
	skip "it names the capabilities it needs" "no setpriv, or user nobody cannot run the built binary"
fi
echo "1..$n"
