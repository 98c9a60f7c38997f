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

live=yes
if ! "$reprise" capture --iface lo -d 0.01 -q -o "$tmp/p.rpz" 2>"$tmp/err" && grep -q 'built without libpcap' "$tmp/err"; then
	live=
fi
if [ "$(id -u)" -ne 0 ] || [ -z "$live" ]; then
	for t in "a start banner: interface, filter, buffer" "nothing matched the filter" "the summary" \
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
