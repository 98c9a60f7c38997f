#!/bin/sh
# convert --format fio / fio-job (docs/fio.md): fio 3.33 replays the iolog and issues exactly its reads,
# writes (and their bytes) and syncs, which are the trace's and the summary's; bad inputs.
#   fio.sh REPRISE SOURCE_ROOT
set -u
reprise=$1 src=$2
command -v fio >/dev/null 2>&1 || { echo "1..0 # skip fio is not installed"; exit 77; }
command -v python3 >/dev/null 2>&1 || { echo "1..0 # skip python3 is not installed"; exit 77; }
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT INT TERM
. "${0%/*}/../lib/tap.sh"

check() { desc=$1; shift; if "$@" >"$tmp/out" 2>"$tmp/err"; then ok "$desc"; else not_ok "$desc"; fi; }

# The I/O lines of an iolog, by action: "reads N BYTES writes N BYTES syncs N datasyncs N trims N".
iolog_counts() {
	awk 'NR > 1 { n[$3]++; b[$3] += $5 }
	     END { printf "reads %d %d writes %d %d syncs %d datasyncs %d trims %d\n",
	           n["read"], b["read"], n["write"], b["write"], n["sync"], n["datasync"], n["trim"] }' "$1"
}
# The same numbers from convert's summary line ("fio: R reads (B bytes), W writes (B bytes), S syncs, D datasyncs, T trims").
summary_counts() {
	sed -n 's/^fio: \([0-9]*\) reads (\([0-9]*\) bytes), \([0-9]*\) writes (\([0-9]*\) bytes), \([0-9]*\) syncs, \([0-9]*\) datasyncs, \([0-9]*\) trims.*/reads \1 \2 writes \3 \4 syncs \5 datasyncs \6 trims \7/p' "$1"
}
# What fio's replay job issued, from its JSON (text before the JSON is fio's own messages):
# "reads N BYTES writes N BYTES syncs N error E".  fio's JSON counts fsyncs only, not fdatasyncs.
fio_counts() {
	python3 - "$1" <<'PY'
import json, sys
t = open(sys.argv[1]).read()
j = [x for x in json.loads(t[t.index('{'):])['jobs'] if x['jobname'] == 'replay'][0]
print('reads %d %d writes %d %d syncs %d error %d' % (j['read']['total_ios'], j['read']['io_bytes'],
      j['write']['total_ios'], j['write']['io_bytes'], j['sync']['total_ios'], j['error']))
PY
}
# Run fio on JOB in a fresh directory DIR: exit status 0 and no error in its JSON.
run_fio() {
	rm -rf "$2" && mkdir "$2" && (cd "$2" && fio --output-format=json "$1") >"$3" 2>"$tmp/err"
}

# 1-6: a handmade trace: two clients, a file with a space in its name that the trace reads but never
# writes (fio needs it laid out), fsync and fdatasync, metadata ops, a handle never closed.
cat >"$tmp/h.ops" <<'EOF'
0.000000000 0.000001000 c1 open path="/d/a.db" fh=1 want=read,write disp=open_if -> OK
0.001000000 0.001001000 c1 write fh=1 off=0 len=8192 ret=8192 -> OK
0.002000000 0.002001000 c1 read fh=1 off=0 len=4096 ret=4096 -> OK
0.003000000 0.003001000 c1 flush fh=1 -> OK
0.004000000 0.004001000 c1 flush fh=1 flags=datasync -> OK
0.005000000 0.005001000 c2 open path="/d/old data.bin" fh=1 want=read disp=open -> OK
0.006000000 0.006001000 c2 read fh=1 off=65536 len=65536 ret=65536 -> OK
0.007000000 0.007001000 c2 stat path="/d/a.db" -> OK
0.008000000 0.008001000 c1 close fh=1 -> OK
0.009000000 0.009001000 c1 rename path="/d/a.db" path2="/d/b.db" -> OK
0.010000000 0.010001000 c2 read fh=1 off=0 len=100 ret=100 -> OK
EOF
"$reprise" convert -q "$tmp/h.ops" "$tmp/h.rpz" 2>"$tmp/err" || not_ok "the handmade trace converts"
cat >"$tmp/h.want" <<'EOF'
fio version 3 iolog
0 d/a.db add
0 d/a.db open
0 d/a.db write 0 8192
1000 d/a.db read 0 4096
2000 d/a.db sync 0 0
3000 d/a.db datasync 0 0
5000 d/old_data.bin~1 add
5000 d/old_data.bin~1 open
5000 d/old_data.bin~1 read 65536 65536
7000 d/a.db close
9000 d/old_data.bin~1 read 0 100
9000 d/old_data.bin~1 close
EOF
if "$reprise" convert "$tmp/h.rpz" "$tmp/h.iolog" 2>"$tmp/h.sum" && diff -u "$tmp/h.want" "$tmp/h.iolog" >"$tmp/err"; then
	ok "handmade trace: the iolog, line by line (µs from the first I/O, the name with a space mapped)"
else
	not_ok "handmade trace: the iolog, line by line (µs from the first I/O, the name with a space mapped)"
fi
cp "$tmp/h.sum" "$tmp/err"
if grep -q '^fio: left out, 2 ops fio cannot express: stat 1, rename 1$' "$tmp/h.sum" &&
	grep -q "the 2 clients' ops interleaved in time order in one job" "$tmp/h.sum" &&
	grep -q '1 name with bytes fio cannot take mapped to safe ones' "$tmp/h.sum" &&
	grep -q '^fio: 1 file still open at the end' "$tmp/h.sum" &&
	[ "$(summary_counts "$tmp/h.sum")" = "reads 3 69732 writes 1 8192 syncs 1 datasyncs 1 trims 0" ]; then
	ok "handmade trace: the summary says what was written, left out, mapped and closed at the end"
else
	not_ok "handmade trace: the summary says what was written, left out, mapped and closed at the end"
fi
check "handmade trace: the job file converts (by its .fio suffix)" "$reprise" convert -q "$tmp/h.rpz" "$tmp/h.fio"
# no path of the machine that wrote it: the iolog by its name, or in --iolog-dir as given
if grep -q "^read_iolog=h.iolog\$" "$tmp/h.fio" && ! grep -q "$tmp" "$tmp/h.fio" &&
	"$reprise" convert -q --iolog-dir "$tmp" "$tmp/h.rpz" "$tmp/h.fio" &&
	grep -q "^read_iolog=$tmp/h.iolog\$" "$tmp/h.fio" && grep -q '^filename=d/old_data.bin~1$' "$tmp/h.fio" &&
	grep -q '^filesize=131072$' "$tmp/h.fio"; then
	ok "handmade trace: the job file names its iolog without the writer's path, lays out the read-only file to what its reads need and replays the iolog"
else
	cp "$tmp/h.fio" "$tmp/err"
	not_ok "handmade trace: the job file names its iolog without the writer's path, lays out the read-only file to what its reads need and replays the iolog"
fi
if run_fio "$tmp/h.fio" "$tmp/hd" "$tmp/h.json" && got=$(fio_counts "$tmp/h.json") &&
	[ "$got" = "reads 3 69732 writes 1 8192 syncs 1 error 0" ]; then
	ok "handmade trace: fio issues the iolog's 3 reads (69732 bytes), 1 write (8192 bytes) and 1 fsync"
else
	echo "fio: ${got:-}" >>"$tmp/err"
	not_ok "handmade trace: fio issues the iolog's 3 reads (69732 bytes), 1 write (8192 bytes) and 1 fsync"
fi
# the trace's own counts: every read and write succeeded, so all are in the iolog
st=$("$reprise" stat --json "$tmp/h.rpz" | python3 -c 'import json,sys; j=json.load(sys.stdin); c=j["op_counts"]
print("reads %d %d writes %d %d" % (c.get("read", 0), j["bytes_read"], c.get("write", 0), j["bytes_written"]))')
if [ "$st" = "$(iolog_counts "$tmp/h.iolog" | cut -d' ' -f1-6)" ]; then
	ok "handmade trace: the iolog's reads and writes are the trace's (reprise stat)"
else
	echo "stat: $st; iolog: $(iolog_counts "$tmp/h.iolog")" >"$tmp/err"
	not_ok "handmade trace: the iolog's reads and writes are the trace's (reprise stat)"
fi

# 7-9: a bundled SMB2 capture's trace: the iolog, the summary, fio and the trace agree.
smb=$src/samples/smb2-small-files.rpz
"$reprise" convert --format fio "$smb" "$tmp/s.log" 2>"$tmp/s.sum"
"$reprise" convert --format fio-job -q "$smb" "$tmp/s.job"
sed -i "s|^read_iolog=.*|read_iolog=$tmp/s.log|" "$tmp/s.job"
want=$(iolog_counts "$tmp/s.log")
if [ "$want" = "$(summary_counts "$tmp/s.sum")" ] && [ "$want" = "reads 100 292 writes 0 0 syncs 0 datasyncs 0 trims 0" ]; then
	ok "smb2 sample: the summary counts the iolog's 100 reads of 292 bytes (--format fio, any suffix)"
else
	echo "iolog: $want" >"$tmp/err"
	cat "$tmp/s.sum" >>"$tmp/err"
	not_ok "smb2 sample: the summary counts the iolog's 100 reads of 292 bytes (--format fio, any suffix)"
fi
st=$("$reprise" stat --json "$smb" | python3 -c 'import json,sys; j=json.load(sys.stdin); print(j["op_counts"].get("read", 0), j["bytes_read"])')
if [ "$st" = "100 292" ]; then ok "smb2 sample: they are the trace's reads"; else echo "stat: $st" >"$tmp/err"; not_ok "smb2 sample: they are the trace's reads"; fi
if run_fio "$tmp/s.job" "$tmp/sd" "$tmp/s.json" && got=$(fio_counts "$tmp/s.json") &&
	[ "$got" = "reads 100 292 writes 0 0 syncs 0 error 0" ]; then
	ok "smb2 sample: fio issues the 100 reads, 292 bytes"
else
	echo "fio: ${got:-}" >>"$tmp/err"
	not_ok "smb2 sample: fio issues the 100 reads, 292 bytes"
fi

# 10: a bundled syscall trace (16 PostgreSQL processes): the iolog's reads and writes are the trace's that
# moved bytes, from reprise cat (fio's run of it, 29 layout jobs and 2396 fdatasyncs, is docs/fio.md's).
pg=$src/samples/syscall/pgbench.rpz
"$reprise" convert "$pg" "$tmp/pg.iolog" 2>"$tmp/pg.sum"
want=$("$reprise" cat "$pg" | awk '($4 == "read" || $4 == "write") && / -> OK/ {
	for (i = 5; i <= NF; i++) if ($i ~ /^ret=/) { sub("ret=", "", $i); n[$4]++; b[$4] += $i } }
	END { printf "reads %d %d writes %d %d\n", n["read"], b["read"], n["write"], b["write"] }')
got=$(iolog_counts "$tmp/pg.iolog" | cut -d' ' -f1-6)
if [ "$want" = "$got" ] && [ "$(summary_counts "$tmp/pg.sum" | cut -d' ' -f1-6)" = "$got" ] &&
	grep -q "the 16 clients' ops interleaved" "$tmp/pg.sum"; then
	ok "pgbench sample: the iolog's and the summary's reads and writes are the trace's that moved bytes ($got)"
else
	echo "trace: $want; iolog: $got" >"$tmp/err"
	cat "$tmp/pg.sum" >>"$tmp/err"
	not_ok "pgbench sample: the iolog's and the summary's reads and writes are the trace's that moved bytes"
fi
if "$reprise" convert -q --level 3 "$tmp/h.rpz" "$tmp/l.iolog" 2>"$tmp/err" && grep -q 'warning: --level applies to .rpz output only' "$tmp/err"; then
	ok "--level with an iolog output: a warning"
else
	not_ok "--level with an iolog output: a warning"
fi

# 12-13: bad inputs: I/O on a handle no open named, a huge offset, a failed write, a path out of the
# tree are counted, not written; a name that is a file and a directory is an error, no output left.
cat >"$tmp/bad.ops" <<'EOF'
0.000000000 0.000001000 c1 read fh=42 off=0 len=10 ret=10 -> OK
0.001000000 0.001001000 c1 open path="/f" fh=1 -> OK
0.002000000 0.002001000 c1 write fh=1 off=9223372036854775807 len=4096 ret=4096 -> OK
0.003000000 0.003001000 c1 write fh=1 off=0 len=10 -> ENOSPC
0.004000000 0.004001000 c1 write fh=1 off=0 len=10 ret=10 -> OK
0.005000000 0.005001000 c1 read path="/../../etc/passwd" fh=0 off=0 len=10 -> OK
EOF
if "$reprise" convert "$tmp/bad.ops" "$tmp/bad.iolog" 2>"$tmp/err" && [ "$(wc -l <"$tmp/bad.iolog")" -eq 5 ] &&
	grep -q 'not written, 4 I/O ops: failed in the trace 1, on a handle no open named 1, path out of the tree 1, ending beyond 16 TiB 1' "$tmp/err"; then
	ok "bad inputs: unknown handle, huge offset, failed write, path out of the tree counted, the good write kept"
else
	not_ok "bad inputs: unknown handle, huge offset, failed write, path out of the tree counted, the good write kept"
fi
cat >"$tmp/tree.ops" <<'EOF'
0.000000000 0.000001000 c1 open path="/a" fh=1 -> OK
0.001000000 0.001001000 c1 write fh=1 off=0 len=10 ret=10 -> OK
0.002000000 0.002001000 c1 unlink path="/a" -> OK
0.003000000 0.003001000 c1 open path="/a/b" fh=2 -> OK
0.004000000 0.004001000 c1 write fh=2 off=0 len=10 ret=10 -> OK
EOF
if "$reprise" convert "$tmp/tree.ops" "$tmp/tree.iolog" 2>"$tmp/err"; then
	not_ok "a name that is a file and a directory: exit 1, said, no output"
elif grep -q 'a is both a file and the directory of a/b' "$tmp/err" && [ ! -e "$tmp/tree.iolog" ] &&
	! ls "$tmp"/tree.iolog.part-* >/dev/null 2>&1; then
	ok "a name that is a file and a directory: exit 1, said, no output"
else
	not_ok "a name that is a file and a directory: exit 1, said, no output"
fi

mkdir "$tmp/sp ace"
if "$reprise" convert -q --iolog-dir "$tmp/sp ace" "$tmp/h.rpz" "$tmp/sp ace/j.fio" 2>"$tmp/err"; then
	not_ok "a job file whose iolog path a job file cannot hold: exit 1, said, no output"
elif grep -q 'has a byte a fio job file cannot hold' "$tmp/err" && [ -z "$(ls "$tmp/sp ace")" ]; then
	ok "a job file whose iolog path a job file cannot hold: exit 1, said, no output"
else
	not_ok "a job file whose iolog path a job file cannot hold: exit 1, said, no output"
fi

echo "1..$n"
