#!/bin/bash
# The first hour of a dbench user (issue 25): dbench's habits, "did you mean", what is missing said, a
# dbench-style start and end line, warnings for options that do nothing, targets that cannot be reached
# failing before any table (a closed port on 127.0.0.1, a real smbd and ganesha from tests/fixtures/),
# bench --mkfs as non-root.
#   firsthour.sh REPRISE SOURCE_ROOT
set -u
reprise=$1 src=$2
fixtures=$src/tests/fixtures
tmp=$(mktemp -d) || exit 1
cleanup() {
	"$fixtures/smbd.sh" stop "$tmp/smb" >/dev/null 2>&1
	"$fixtures/ganesha.sh" stop "$tmp/nfs" >/dev/null 2>&1
	rm -rf "$tmp"
}
trap cleanup EXIT INT TERM
. "${0%/*}/../lib/tap.sh"
. "${0%/*}/../lib/ports.sh"

# Nothing may hang: a command still running after 120 s fails (timeout exits 124).
run() { timeout -k 5 120 "$@" >"$tmp/out" 2>"$tmp/err"; }
status() { desc=$1 want=$2; shift 2; run "$@"; rc=$?
	if [ "$rc" = "$want" ]; then ok "$desc"; else echo "# exit $rc, wanted $want"; not_ok "$desc"; fi; }
# no_table DESCRIPTION: nothing of a results table on stdout or stderr
no_table() { if grep -q 'Operation  \|^Throughput\|^target  ' "$tmp/out" "$tmp/err"; then not_ok "$1"; else ok "$1"; fi; }

head -n 300 /usr/share/dbench/client.txt >"$tmp/c.txt" 2>/dev/null ||
	printf 'NTCreateX "\\a" 0x0 0x2 1 NT_STATUS_OK\nWriteX 1 0 4096 4096 NT_STATUS_OK\nClose 1 NT_STATUS_OK\n' >"$tmp/c.txt"
mkdir "$tmp/t"

# dbench's habits
status "dbench -c LOADFILE N: a usage error" 2 "$reprise" replay -c "$tmp/c.txt" -t 5 4
has "that says the loadfile is positional and the count is --clients" err \
	"the loadfile is the positional argument.*'reprise replay .*c\.txt --clients 4 --target DIR'"
status "bench too" 2 "$reprise" bench -c "$tmp/c.txt" 4
has "bench says it too" err "-c is --clients"
status "dbench's positional count: a usage error" 2 "$reprise" replay "$tmp/c.txt" -t 5 4 --target "$tmp/t"
has "that says it is --clients" err "'4' after the trace: dbench's client count is --clients 4 here"
status "--timing fast: a usage error" 2 "$reprise" replay "$tmp/c.txt" --target "$tmp/t" --timing fast
has "listing the choices" err "'fast' is not one of afap, trace, think"
status "--traget: a usage error" 2 "$reprise" replay "$tmp/c.txt" --traget "$tmp/t"
has "did you mean --target" err "unknown option '--traget'; did you mean '--target'\?"
status "replya: a usage error" 2 "$reprise" replya
has "did you mean replay" err "unknown command 'replya'; did you mean 'replay'\?"
status "--frobnicate: no suggestion" 2 "$reprise" replay --frobnicate
lacks "none made up" err "did you mean"
status "replay without --target: a usage error" 2 "$reprise" replay "$tmp/c.txt"
has "that says --target is missing" err "no --target given: where to replay"
status "replay without a trace: a usage error" 2 "$reprise" replay --target "$tmp/t"
has "that says the trace is missing" err "no TRACE or LOADFILE given"
status "--timing trace of an untimed loadfile: a usage error (2)" 2 "$reprise" replay "$tmp/c.txt" --target "$tmp/t" --timing trace
has "saying what to use" err "no timestamps: use --timing=afap"
status "bench --timing trace of an untimed loadfile: a usage error (2)" 2 "$reprise" bench "$tmp/c.txt" --target "$tmp/t" --timing trace -q
no_table "and no table"

# The man page: rendered on a terminal (man -l -), the roff itself to a pipe; the README true to the build
"$reprise" --man >"$tmp/out" 2>"$tmp/err"
has "--man to a pipe: the roff source" out '^\.TH REPRISE 1'
if command -v script >/dev/null && command -v man >/dev/null; then
	MANPAGER=cat PAGER=cat timeout 60 script -qec "$reprise --man" /dev/null >"$tmp/out" 2>"$tmp/err" </dev/null
	if grep -q 'REPRISE(1)' "$tmp/out" && ! grep -q '^\.TH\|^\.SH' "$tmp/out"; then ok "--man on a terminal: rendered by man"
	else not_ok "--man on a terminal: rendered by man"; fi
else
	ok "--man on a terminal # skip no script(1) or man(1)"
fi
if "$reprise" -V | grep -q 'mpi=[0-9]' && grep -q 'Not built yet: multi-host replay' "$src/README.md"; then
	not_ok "README: multi-host replay is built (replay --mpi)"
else ok "README: multi-host replay is built (replay --mpi)"; fi

# scripts/demo on a fresh machine: progress from its first line (setup's steps, then ninja's), with stand-ins for
# dpkg-query, meson and ninja on PATH so nothing is installed or built
mkdir -p "$tmp/stub"
printf '#!/bin/sh\necho "install ok installed"\n' >"$tmp/stub/dpkg-query"
printf '#!/bin/sh\necho "The Meson build system (stand-in)"; mkdir -p "$2" && : >"$2/build.ninja"\n' >"$tmp/stub/meson"
printf '#!/bin/sh\necho "[1/2] Compiling (stand-in)"; echo "[2/2] Linking (stand-in)"\n' >"$tmp/stub/ninja"
chmod +x "$tmp/stub/"*
PATH=$tmp/stub:$PATH REPRISE_BUILD=$tmp/fresh REPRISE_DEMO_DIR=$tmp/demo timeout 60 sh "$src/scripts/demo" >"$tmp/out" 2>"$tmp/err" </dev/null
sed -n '/./p' "$tmp/out" | head -n 7 >"$tmp/first"
has "demo: its first line says it sets up" first '^== setup: '
has "then the packages checked" first '^setup: checking the [0-9]+ Debian packages'
has "then configuring" first '^setup: configuring the build in .*/fresh'
has "then building, with ninja's progress" first '^setup: building with ninja'
has "ninja's [n/N] lines shown" first '^\[1/2\] Compiling'

# A run as dbench shows one: a start line, progress without an afap lag, no '0 clients' line, '1 client'
rm -rf "$tmp/t" && mkdir "$tmp/t"
status "a 2 s run of one client" 0 "$reprise" replay "$tmp/c.txt" --target "$tmp/t" -t 2 --warmup 0
has "a dbench-style start line" err "^Running for 2\.0 s with load '.*c\.txt' and warm-up 0\.0 s: 1 client started \(afap timing"
has "progress lines" err "^ +1 client +[0-9.]+ MB/s"
lacks "no afap lag" err "lag max"
lacks "no '0 clients' line" err "^ +0 client"
lacks "no '1 clients'" err "1 clients"
has "the final line: 1 client, max_latency= as dbench's" out "^Throughput [0-9.]+ MB/sec .* 1 client .* max_latency=[0-9.]+ ms$"
rm -rf "$tmp/t" && mkdir "$tmp/t"
run "$reprise" replay "$tmp/c.txt" --target "$tmp/t" -q
lacks "-q: no start line" err "^Running"

# The silent steps before the run said on a terminal (one line overwritten in place), never in a pipe
rm -rf "$tmp/t" && mkdir "$tmp/t"
run "$reprise" replay "$tmp/c.txt" --target "$tmp/t"
lacks "in a pipe: no step line" err "scanning the trace|reading the trace"
if command -v script >/dev/null; then
	rm -rf "$tmp/t" && mkdir "$tmp/t"
	timeout 60 script -qec "$reprise replay $tmp/c.txt --target $tmp/t" /dev/null >"$tmp/out" 2>"$tmp/err" </dev/null
	has "on a terminal: reading, scanning, prepare said" out "reading the trace\.\.\..*scanning the trace: .*prepare: "
	if grep -q "$(printf '\r\033\[K')Running one pass" "$tmp/out"; then ok "and the line cleared before the run's own output"
	else not_ok "and the line cleared before the run's own output"; fi
else
	for d in 1 2; do ok "steps on a terminal # skip no script(1)"; done
fi

# Options that do nothing are warned about
rm -rf "$tmp/t" && mkdir "$tmp/t"
run "$reprise" replay "$tmp/c.txt" --target "$tmp/t" -q --speed 2 --warmup 1 --clone-offset 1 --no-prepare --prepare-fill zero --strict-timing
has "--speed under afap" err "warning: --speed does nothing under afap"
has "--warmup without -t" err "warning: --warmup does nothing without -t"
has "--clone-offset without --clients" err "warning: --clone-offset does nothing without --clients"
has "--prepare-fill with --no-prepare" err "warning: --prepare-fill does nothing with --no-prepare"
has "--strict-timing under afap" err "warning: --strict-timing does nothing under afap"
rm -rf "$tmp/t" && mkdir "$tmp/t"
run "$reprise" replay "$tmp/c.txt" --target "$tmp/t" -q --timing think --speed 1000 -t 1 --warmup 0 --clients 2 --clone-offset 0.01
lacks "options that do something: no warning" err "does nothing"

# capture -- CMD: the packet capture's options are named, not ignored (as --iface names the CMD: ones)
for opt in "--filter port 1" "--buffer 8" "--max-flows 10" "--duration 5" "--client-key conn"; do
	# shellcheck disable=SC2086
	status "capture $opt -- true: a usage error" 2 "$reprise" capture -o "$tmp/x.rpz" $opt -- true
	has "naming ${opt%% *}" err "${opt%% *} is for a packet capture \(--iface\)"
done

# Targets that cannot be reached fail before any table, as a missing directory does
listening() { (exec 3<>/dev/tcp/127.0.0.1/"$1") 2>/dev/null; }
closed=$(free_ports $$ 1) || exit 1
status "a missing directory: exit 1" 1 "$reprise" replay "$tmp/c.txt" --target "$tmp/nosuch"
no_table "a missing directory: no table"
if "$reprise" replay --list-backends | grep -q '^  smb '; then
	status "smb:// on a closed port: exit 1" 1 "$reprise" replay "$tmp/c.txt" --target "smb://127.0.0.1:$closed/share" -j "$tmp/r.json"
	has "the refusal said" err "Connection refused"
	no_table "smb:// on a closed port: no table"
	if [ ! -e "$tmp/r.json" ]; then ok "and no JSON"; else not_ok "and no JSON"; fi
	status "bench on a closed port: exit 1" 1 "$reprise" bench "$tmp/c.txt" --target "smb://127.0.0.1:$closed/share" -q
	no_table "bench on a closed port: no table"
else
	for d in 1 2 3 4 5 6; do ok "smb:// closed port # skip built without the smb backend"; done
fi
if "$reprise" replay --list-backends | grep -q '^  nfs '; then
	status "nfs:// on a closed port: exit 1" 1 "$reprise" replay "$tmp/c.txt" \
		--target "nfs://127.0.0.1/export?version=3&nfsport=$closed&mountport=$closed"
	no_table "nfs:// on a closed port: no table"
	# Without nfsport= and mountport=, the portmapper (none on 111, or none that knows this export)
	status "nfs:// without ports, an export nobody has: exit 1" 1 "$reprise" replay "$tmp/c.txt" \
		--target "nfs://127.0.0.1/reprise-no-such-export-$$?version=3"
	no_table "nfs:// through the portmapper: no table"
else
	for d in 1 2 3 4; do ok "nfs:// closed port # skip built without the nfs backend"; done
fi

# A real smbd: a wrong password, a share subdirectory that is not there (the full tier: the quick one starts no server)
full=; [ "${REPRISE_TEST_TIER:-full}" = full ] && full=1
port=$closed
if [ -n "$full" ] && "$reprise" replay --list-backends | grep -q '^  smb ' && "$fixtures/smbd.sh" start "$tmp/smb" "$port" >"$tmp/smbd.out" 2>&1 &&
	listening "$port"; then
	url=smb://127.0.0.1:$port/share
	status "smbd, a wrong password: exit 1" 1 "$reprise" replay "$tmp/c.txt" --target "$url" --user 'root%wrong'
	has "said" err "Permission denied"
	no_table "a wrong password: no table"
	status "smbd, a subdirectory that is not there: exit 1" 1 "$reprise" replay "$tmp/c.txt" --target "$url/no/such" --user 'root%pw'
	no_table "a missing subdirectory: no table"
	mkdir "$tmp/smb/share/here"
	status "smbd, one that is: the run goes" 0 "$reprise" replay "$tmp/c.txt" --target "$url/here" --user 'root%pw' -q
	has "with its table" out "^Throughput"
	"$fixtures/smbd.sh" stop "$tmp/smb" >/dev/null 2>&1
else
	for d in 1 2 3 4 5 6 7; do ok "smbd # skip quick tier, no smb backend, or smbd did not start"; done
fi

# A real ganesha: an export subdirectory that is not there
nport=$(free_ports $((closed + 7))) || exit 1
mport=$((nport + 1))
if [ -n "$full" ] && "$reprise" replay --list-backends | grep -q '^  nfs ' && [ "$(id -u)" = 0 ] &&
	"$fixtures/ganesha.sh" start "$tmp/nfs" "$nport" "$mport" >"$tmp/ganesha.out" 2>&1; then
	u() { echo "nfs://127.0.0.1/export$1?version=3&nfsport=$nport&mountport=$mport"; }
	status "ganesha, a subdirectory that is not there: exit 1" 1 "$reprise" replay "$tmp/c.txt" --target "$(u /no/such)"
	no_table "ganesha, a missing subdirectory: no table"
	status "ganesha, the export: the run goes" 0 "$reprise" replay "$tmp/c.txt" --target "$(u '')" -q
	has "with its table" out "^Throughput"
	"$fixtures/ganesha.sh" stop "$tmp/nfs" >/dev/null 2>&1
else
	for d in 1 2 3 4; do ok "ganesha # skip quick tier, no nfs backend, not root, or ganesha did not start"; done
fi

# bench --mkfs as non-root: fails before the table, and claims no removal of what it never made
if [ "$(id -u)" = 0 ] && command -v setpriv >/dev/null; then
	chmod 755 "$tmp" && chmod 644 "$tmp/c.txt"
	status "bench --mkfs as non-root: exit 1" 1 setpriv --reuid=65534 --regid=65534 --clear-groups \
		"$reprise" bench "$tmp/c.txt" --mkfs ext4 --mkfs-dir "$tmp/m" -q
	has "saying it needs root" err "needs root"
	no_table "no table"
	lacks "no claim of removing file systems" err "are removed"
else
	for d in 1 2 3 4; do ok "bench --mkfs non-root # skip not root or no setpriv"; done
fi

echo "1..$n"
