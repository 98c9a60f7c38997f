#!/bin/sh
# The "pgbench-like mix": pgbench against a PostgreSQL 15 server of its own, captured with
# `reprise capture`.  The server's backends are forked processes doing 8 KiB page preads and
# pwrites on relation files, WAL writes and fsyncs; pgbench's own few file ops are in it too.
#   samples/recipes/pgbench.sh [OUT.rpz] [TRANSACTIONS per client]     (as root)
# Needs: postgresql-15 (Debian).  The server runs as the unprivileged user postgres in a temporary
# directory, on a Unix socket only (no TCP), and is stopped by its pid when the recipe ends,
# however it ends.  The capture runs as postgres too (its processes write their event rings into
# the capture's private spool directory, which only its own user may enter).
set -eu
top=$(cd "$(dirname "$0")/../.." && pwd)
reprise=${REPRISE:-$top/build/cli/reprise}
out=${1:-$top/samples/syscall/pgbench.rpz}
tx=${2:-1000}
bin=/usr/lib/postgresql/15/bin
user=postgres
[ -x "$bin/postgres" ] || { echo "pgbench.sh: PostgreSQL 15 is not installed (apt-get install postgresql-15)" >&2; exit 1; }
id "$user" >/dev/null 2>&1 || { echo "pgbench.sh: no user $user" >&2; exit 1; }
tmp=$(mktemp -d /tmp/reprise-pgbench.XXXXXX)
chmod 755 "$tmp"
chown "$user" "$tmp"
stop_server() {
	# postmaster.pid's first line is the server's pid: stop it by pid whatever state the run left
	if [ -f "$tmp/data/postmaster.pid" ]; then
		pid=$(head -n 1 "$tmp/data/postmaster.pid")
		kill -INT "$pid" 2>/dev/null || true
		i=0
		while kill -0 "$pid" 2>/dev/null && [ $i -lt 100 ]; do sleep 0.1; i=$((i + 1)); done
		kill -KILL "$pid" 2>/dev/null || true
	fi
	rm -rf "$tmp"
}
trap stop_server EXIT INT TERM
runuser -u "$user" -- "$bin/initdb" -D "$tmp/data" -A trust -U "$user" --no-sync >"$tmp/initdb.log" 2>&1 ||
	{ cat "$tmp/initdb.log" >&2; exit 1; }
# initialise the pgbench tables (scale 1: 100,000 accounts) untraced, then capture the server's
# whole life: start, the benchmark, a clean shutdown (its checkpoint is part of the workload).
pgopts="-k $tmp -c listen_addresses= -c fsync=on -c shared_buffers=16MB"
runuser -u "$user" -- "$bin/pg_ctl" -D "$tmp/data" -o "$pgopts" -w -l "$tmp/server.log" start >/dev/null
runuser -u "$user" -- "$bin/pgbench" -h "$tmp" -i -s 1 -q "$user" >"$tmp/init.log" 2>&1 ||
	{ cat "$tmp/init.log" >&2; exit 1; }
runuser -u "$user" -- "$bin/pg_ctl" -D "$tmp/data" -w -m fast stop >/dev/null
runuser -u "$user" -- "$reprise" capture --only "$tmp/data" -o "$tmp/pgbench.rpz" -- sh -c "
	'$bin/pg_ctl' -D '$tmp/data' -o '$pgopts' -w -l '$tmp/server.log' start >/dev/null &&
	'$bin/pgbench' -h '$tmp' -c 2 -t $tx -n '$user' > '$tmp/pgbench.out'; rc=\$?
	'$bin/pg_ctl' -D '$tmp/data' -w -m fast stop >/dev/null; exit \$rc"
sed -n 's/^\(tps\|number of transactions actually processed\|latency average\)/pgbench: &/p' "$tmp/pgbench.out"
mkdir -p "$(dirname "$out")"
cp "$tmp/pgbench.rpz" "$out"
echo "pgbench.sh: wrote $out"
