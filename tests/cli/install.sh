#!/bin/sh
# meson install into a DESTDIR: the binary, the man page and the bash completion, and each works.
#   install.sh MESON BUILD_ROOT
set -u
meson=$1 build=$2
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT INT TERM
. "${0%/*}/../lib/tap.sh"

if DESTDIR=$tmp/dest "$meson" install -C "$build" --no-rebuild --quiet >"$tmp/out" 2>"$tmp/err"; then
	ok "meson install into a DESTDIR"; else not_ok "meson install into a DESTDIR"; fi
bin=$(find "$tmp/dest" -path '*/bin/reprise' -type f | head -1)
man=$(find "$tmp/dest" -path '*/man1/reprise.1' -type f | head -1)
comp=$(find "$tmp/dest" -path '*/bash-completion/completions/reprise' -type f | head -1)
if [ -n "$bin" ] && "$bin" -V >"$tmp/out" 2>"$tmp/err" && grep -q '^reprise ' "$tmp/out"; then
	ok "installs the binary, which runs"; else not_ok "installs the binary, which runs"; fi
if [ -n "$man" ] && grep -q '^\.SH EXIT STATUS' "$man" && grep -q '^\.SH EXAMPLES' "$man"; then
	ok "installs the man page"; else not_ok "installs the man page"; fi
if [ -n "$comp" ] && bash -c '. "$1" && COMP_WORDS=(reprise st) COMP_CWORD=1 && _reprise && [ "${COMPREPLY[*]}" = stat ]' sh "$comp" 2>"$tmp/err"; then
	ok "installs a working bash completion"; else not_ok "installs a working bash completion"; fi
echo "1..$n"
[ "$fails" -eq 0 ]
