# The TAP helpers the shell tests share, sourced (not run) by each test once it knows its $tmp:
#   . "${0%/*}/../lib/tap.sh"
# meson runs a test by its path in the source tree, so the test's own directory finds this file
# from any build directory or clone.  A test prints its own plan, and defines after this line the
# helpers it has of its own (a `has` of another shape replaces the one here).
export LC_ALL=C TZ=UTC
n=0 fails=0
ok() { n=$((n + 1)); echo "ok $n - $1"; }
# A failure is counted (a test may exit on $fails) and shows what the last command left in $tmp/out and $tmp/err.
not_ok() { n=$((n + 1)); fails=$((fails + 1)); echo "not ok $n - $1"; for f in out err; do [ -f "$tmp/$f" ] && sed "s/^/# $f: /" "$tmp/$f" | head -20; done; }
# has|lacks DESCRIPTION FILE ERE: whether $tmp/FILE has a line matching ERE.
has() { if grep -Eq -- "$3" "$tmp/$2"; then ok "$1"; else echo "# $2 lacks: $3"; not_ok "$1"; fi; }
lacks() { if grep -Eq -- "$3" "$tmp/$2"; then echo "# $2 has: $3"; not_ok "$1"; else ok "$1"; fi; }
# same DESCRIPTION A B: files A and B are equal and A is not empty (the head of their diff when not).
same() { if [ -s "$2" ] && cmp -s "$2" "$3"; then ok "$1"; else diff "$2" "$3" | sed 's/^/# /' | head -20; not_ok "$1"; fi; }
# tap_tmpfs NAME: a new directory on tmpfs (/dev/shm) where there is one, else in $TMPDIR; its path on stdout.
tap_tmpfs() { mktemp -d "/dev/shm/reprise-$1-XXXXXX" 2>/dev/null || mktemp -d "${TMPDIR:-/tmp}/reprise-$1-XXXXXX"; }
