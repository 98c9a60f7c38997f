#!/bin/sh
# Golden decode test: convert a capture to .rpz, print it with `reprise cat`, and
# compare with the expected dump (tcpdump's TESTLIST idea).
#   run.sh REPRISE GOLDEN_DIR DATA_DIR NAME INPUT EXPECTED [convert args...]
# With REPRISE_REGEN=1 it rewrites the expected file instead of comparing.
set -u
reprise=$1 golden=$2 data=$3 name=$4 input=$5 expected=$6
shift 6

tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT INT TERM
export LC_ALL=C TZ=UTC

"$reprise" convert "$@" "$data/$input" "$tmp/out.rpz" 2>"$tmp/summary"
status=$?
# A build without libpcap (-Dpcap=disabled) reads classic pcap files only: a capture that
# needs libpcap (pcapng, ...) is skipped there, never compared or regenerated.
if [ "$status" != 0 ] && grep -q 'built without libpcap' "$tmp/summary"; then
	echo "$name: skipped: $input needs libpcap, and this build has none"
	exit 77
fi
{
	if [ -f "$tmp/out.rpz" ] && [ -s "$tmp/out.rpz" ]; then
		"$reprise" cat --meta "$tmp/out.rpz" 2>&1 | grep -v '^# start '
	fi
	echo "# convert exit status $status"
	sed 's/^/# /' "$tmp/summary"
} >"$tmp/actual"

if [ "${REPRISE_REGEN:-0}" = 1 ]; then
	cp "$tmp/actual" "$golden/expected/$expected"
	echo "$name: regenerated $expected"
	exit 0
fi
if ! [ -f "$golden/expected/$expected" ]; then
	echo "$name: no expected file $expected (REPRISE_REGEN=1 creates it)"
	exit 1
fi
if diff -u "$golden/expected/$expected" "$tmp/actual" >"$tmp/diff"; then
	echo "$name: ok"
	exit 0
fi
echo "$name: FAILED: the decode differs from $expected:"
head -100 "$tmp/diff"
exit 1
