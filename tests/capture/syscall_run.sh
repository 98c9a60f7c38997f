#!/bin/sh
# `reprise capture -- CMD` on real programs (TAP): tar extraction, cp -r, threads, fork and exec,
# stdio, errno, a program killed with -9, static and set-id programs, filters, exit statuses, and
# the same run under strace converted and compared.  Skipped in sanitizer builds (a sanitized
# interposer cannot be preloaded into uninstrumented programs).
#   syscall_run.sh REPRISE CAPTURE_PROG SANITIZE (meson's b_sanitize)
set -u
reprise=$1
prog=$2
if [ "${3:-none}" != none ]; then
	echo "1..0 # SKIP sanitizer build ($3): the interposer cannot be preloaded"
	exit 0
fi
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT INT TERM
. "${0%/*}/../lib/tap.sh"
run() { timeout 120 "$@" >"$tmp/out" 2>"$tmp/err"; }
check() { desc=$1; shift; if run "$@"; then ok "$desc"; else not_ok "$desc"; fi; }
count() { grep -Ec -- "$2" "$tmp/$1"; }
eq() { if [ "$2" = "$3" ]; then ok "$1"; else echo "# got '$2', want '$3'"; not_ok "$1"; fi; }
cat_trace() { "$reprise" cat "$1" >"$tmp/cat" 2>"$tmp/err"; }

w=$(cd "$tmp" && pwd -P)/w
mkdir "$w"

# --- tar extraction: 300 small files in 10 directories
mkdir "$tmp/src"
i=0
while [ $i -lt 300 ]; do
	d=$tmp/src/d$((i % 10))
	mkdir -p "$d"
	printf '%0*d' $((100 + i)) 0 >"$d/f$i"
	i=$((i + 1))
done
tar -C "$tmp/src" -cf "$tmp/a.tar" .
mkdir "$w/x"
check "capture tar -xf" "$reprise" capture -o "$tmp/tar.rpz" -- tar -C "$w/x" -xf "$tmp/a.tar"
has "the summary counts processes and ops" err "ops [0-9]+, processes 1"
has "the summary says when the trace was complete" err "the trace was complete [0-9.]+ ms after the command ended"
cat_trace "$tmp/tar.rpz"
eq "tar's 300 files are each opened to write" "$(count cat "open path=\"$w/x/\\./d[0-9]/f[0-9]+\" fh=[0-9]+ (ret=[0-9]+ )?want=write")" 300
bytes=$(grep -E "write path=\"$w/x/" "$tmp/cat" | sed -n 's/.* ret=\([0-9]*\).*/\1/p' | awk '{s+=$1} END {print s+0}')
eq "tar's writes add up to the files' bytes" "$bytes" $((300 * 100 + 299 * 300 / 2))
has "tar makes the directories" cat "mkdir path=\"$w/x/\\./d3\""
has "tar sets the times" cat "setattr path=\"$w/x/\\./d[0-9]/f[0-9]+\".*set=.*mtime"
has "tar reads the archive" cat "read path=\"$tmp/a.tar\" fh=[0-9]+ off=0 len=[0-9]+ ret=[0-9]+"
mkdir "$tmp/t1"
check "the tar trace replays on a tmpfs-like directory" "$reprise" replay "$tmp/tar.rpz" --target "$tmp/t1" -q
has "... with no mismatches" out "mismatched 0$"

# --- a user who may not raise a thread from SCHED_IDLE (RLIMIT_NICE 0, no CAP_SYS_NICE): the encoder
# thread then stays at the normal policy throughout (capture/preload/evq.c), and the trace is the same
nb=$tmp/nobody
if [ "$(id -u)" = 0 ] && command -v runuser >/dev/null && chmod 711 "$tmp" && mkdir "$nb" && cp "$tmp/a.tar" "$nb/" &&
	chown -R nobody "$nb" && runuser -u nobody -- test -x "$reprise" 2>/dev/null &&
	runuser -u nobody -- test -r "$nb/a.tar" 2>/dev/null; then
	if runuser -u nobody -- "$reprise" capture -q -o "$nb/tar.rpz" -- tar -C "$nb" -xf "$nb/a.tar" >"$tmp/out" 2>"$tmp/err"
	then ok "capture tar -xf as nobody"; else not_ok "capture tar -xf as nobody"; fi
	"$reprise" cat "$nb/tar.rpz" >"$tmp/nbcat" 2>"$tmp/err"
	eq "... its 300 files are each opened to write" "$(grep -Ec "open path=\"$nb/\\./d[0-9]/f[0-9]+\" fh=[0-9]+ (ret=[0-9]+ )?want=write" "$tmp/nbcat")" 300
else
	ok "# SKIP not root, or nobody cannot run reprise or read the test's files"
	ok "# SKIP as above"
fi

# --- cp -r: coreutils 9 copies with copy_file_range
check "capture cp -r" "$reprise" capture -o "$tmp/cp.rpz" -- cp -r "$tmp/src/d1" "$w/cpdst"
cat_trace "$tmp/cp.rpz"
c=$(count cat "(copy path=\"$tmp/src/d1/f[0-9]+\" path2=\"$w/cpdst/f[0-9]+\"|write path=\"$w/cpdst/f[0-9]+\")")
if [ "$c" -ge 30 ]; then ok "cp -r copies every file ($c copies or writes)"; else not_ok "cp -r copies every file ($c)"; fi
has "cp uses copy_file_range (a copy op)" cat "copy path=\"$tmp/src/d1/f[0-9]+\" path2=\"$w/cpdst/f[0-9]+\" fh=[0-9]+ .*fh2=[0-9]+"

# --- threads: 4 threads x 250 pwrites of 100 bytes, each thread a client
check "capture a multithreaded program" "$reprise" capture -o "$tmp/thr.rpz" -- "$prog" threads "$w"
cat_trace "$tmp/thr.rpz"
eq "every pwrite is recorded" "$(count cat "write path=\"$w/t[0-3]\" fh=[0-9]+ off=[0-9]+ len=100 ret=100")" 1000
eq "the last block of each thread" "$(count cat "write path=\"$w/t[0-3]\" fh=[0-9]+ off=24900 len=100")" 4
clients=$(grep -E "write path=\"$w/t[0-3]\"" "$tmp/cat" | awk '{print $3}' | sort -u | wc -l)
eq "each thread is its own client" "$clients" 4
eq "each thread fsyncs" "$(count cat "flush path=\"$w/t[0-3]\"")" 4
check "--process-clients makes one client of them" "$reprise" capture --process-clients -q -o "$tmp/thr1.rpz" -- "$prog" threads "$w"
cat_trace "$tmp/thr1.rpz"
clients=$(grep -E "write path=\"$w/t[0-3]\"" "$tmp/cat" | awk '{print $3}' | sort -u | wc -l)
eq "... one client" "$clients" 1

# --- fork and exec, with a redirection made by dup2 before exec
check "capture fork + exec" "$reprise" capture -o "$tmp/fe.rpz" -- "$prog" forkexec "$w"
cat_trace "$tmp/fe.rpz"
has "the fork is an op" cat "c1 fork ret=[2-9]"
has "the child writes c.txt" cat "write path=\"$w/c.txt\" fh=[0-9]+ off=0 len=6 ret=6"
has "the child dup2s d.txt onto stdout" cat "dup path=\"$w/d.txt\""
has "cat, exec'd, reads c.txt" cat "(read|copy) path=\"$w/c.txt\""
has "cat writes what it read to d.txt (its stdout)" cat "(write path=\"$w/d.txt\".* ret=6|copy path=\"$w/c.txt\" path2=\"$w/d.txt\".* ret=6)"

# --- stdio: fprintf and fgets are recorded, coalesced about as glibc's buffer flushes
check "capture stdio" "$reprise" capture -o "$tmp/st.rpz" -- "$prog" stdio "$w"
cat_trace "$tmp/st.rpz"
has "fopen is an open" cat "open path=\"$w/s.txt\" fh=[0-9]+ want=write disp=trunc_if"
wb=$(grep -E "write path=\"$w/s.txt\"" "$tmp/cat" | sed -n 's/.* ret=\([0-9]*\).*/\1/p' | awk '{s+=$1} END {print s+0}')
rb=$(grep -E "read path=\"$w/s.txt\"" "$tmp/cat" | sed -n 's/.* ret=\([0-9]*\).*/\1/p' | awk '{s+=$1} END {print s+0}')
eq "fprintf's bytes are written" "$wb" 20000
eq "fgets's bytes are read" "$rb" 20000
nw=$(count cat "write path=\"$w/s.txt\"")
if [ "$nw" -ge 2 ] && [ "$nw" -le 20 ]; then ok "1000 fprintfs are a few buffer-sized writes ($nw)"; else not_ok "1000 fprintfs coalesced ($nw writes)"; fi
check "--no-stdio leaves them out" "$reprise" capture --no-stdio -q -o "$tmp/st0.rpz" -- "$prog" stdio "$w"
cat_trace "$tmp/st0.rpz"
lacks "... no write on s.txt" cat "write path=\"$w/s.txt\""

# --- errno is preserved, failures are recorded with their errno
check "errno is what the program expects" "$reprise" capture -q -o "$tmp/er.rpz" -- "$prog" errno "$w"
cat_trace "$tmp/er.rpz"
has "the failed open" cat "open path=\"$w/missing/x\" .*-> ENOENT"
has "the failed unlink" cat "unlink path=\"$w/missing/x\" .*-> ENOENT"
has "the failed mkdir" cat "mkdir path=\"$w\" .*-> EEXIST"

# --- killed with -9 mid-run: everything before the kill is in the trace, which reads
rm -f "$w/ready"
"$reprise" capture -q -o "$tmp/k.rpz" -- "$prog" killme "$w" >/dev/null 2>"$tmp/kerr" &
cap=$!
i=0
while [ ! -e "$w/ready" ] && [ $i -lt 300 ]; do sleep 0.1; i=$((i + 1)); done
# the program is the capture's child: kill it, not the capture
pkill -9 -P $cap || true
wait $cap
eq "capture returns 128+9 for a program killed by SIGKILL" $? 137
cat_trace "$tmp/k.rpz"
eq "the 10 writes before the kill are all there" "$(count cat "write path=\"$w/k.txt\" fh=[0-9]+ off=[0-9]+ len=10 ret=10")" 10
has "and the fsync" cat "flush path=\"$w/k.txt\""

# --- exit statuses
"$reprise" capture -q -o "$tmp/e.rpz" -- sh -c 'exit 3' 2>/dev/null
eq "capture returns the command's exit status" $? 3
"$reprise" capture -q -o "$tmp/e2.rpz" -- /nonexistent/program 2>"$tmp/err"
eq "a command that does not exist: 127" $? 127
has "... with a clear message" err "nonexistent/program: No such file"
if [ -e "$tmp/e2.rpz" ]; then not_ok "... and no trace"; else ok "... and no trace"; fi

# --- `reprise capture` killed with -9 while its program forks on: the program makes no more rings in
# the spool nobody drains (the writer's flock on the control page is gone with it), and the next
# capture removes the orphaned spool and says so.  The orphan lives in a spool directory of its own
# (--spool-dir): a capture of another test running beside this one sweeps /dev/shm, not it.
ob=$w/orphan
mkdir -p "$ob/spools"
"$reprise" capture -q --spool-dir "$ob/spools" -o "$tmp/orphan.rpz" -- sh -c "echo \$\$ > $ob/pid; echo \"\$REPRISE_SPOOL\" > $ob/spool
	i=0; while [ \$i -lt 3000 ] && [ ! -e $ob/stop ]; do /bin/true; i=\$((i + 1)); done; : > $ob/done" >/dev/null 2>&1 &
cap=$!
k=0
while [ ! -s "$ob/spool" ] && [ $k -lt 100 ]; do sleep 0.05; k=$((k + 1)); done
sleep 0.2
kill -9 $cap
wait $cap 2>/dev/null
spool=$(cat "$ob/spool" 2>/dev/null)
case $spool in "$ob/spools/"*) ok "the spool is made under --spool-dir" ;; *) not_ok "the spool is made under --spool-dir ($spool)" ;; esac
sleep 0.2 # a ring being made at the kill is renamed in by now
before=$(ls "$spool" 2>/dev/null | wc -l)
sleep 1
after=$(ls "$spool" 2>/dev/null | wc -l)
if [ -n "$spool" ] && [ -d "$spool" ] && kill -0 "$(cat "$ob/pid")" 2>/dev/null; then
	ok "the program runs on after its capture is killed ($before files in the spool)"
else
	not_ok "the program runs on after its capture is killed (spool '$spool')"
fi
eq "... and adds no ring to the orphaned spool in a second of forking" "$after" "$before"
# the program goes on forking while the next capture sweeps: its threads' brief locks do not hide the orphan
check "the next capture runs" "$reprise" capture --spool-dir "$ob/spools" -o "$tmp/next.rpz" -- true
has "... and says it removed the orphaned spool" err "removed [0-9]+ orphaned spool director"
if [ -n "$spool" ] && [ ! -e "$spool" ] && [ ! -e "$spool.gone" ]; then ok "... which is gone"; else not_ok "... which is gone ($spool)"; fi
left=$(ls "$ob/spools" | wc -l)
eq "... and its own spool is gone too" "$left" 0
touch "$ob/stop"
k=0
while [ ! -e "$ob/done" ] && [ $k -lt 100 ]; do sleep 0.05; k=$((k + 1)); done # (a zombie answers kill -0)
"$reprise" capture --spool-dir "$ob/no-such" -o "$tmp/nodir.rpz" -- true >/dev/null 2>"$tmp/err"
eq "a --spool-dir that does not exist exits 1" "$?" 1
has "... naming it" err "spool-dir .*no-such: No such file"
[ ! -e "$tmp/nodir.rpz" ] && ok "... and writes no trace" || not_ok "... and writes no trace"

# --- filters: --only and the default /proc,/sys,/dev exclusion
mkdir -p "$w/o/in"
check "capture with --only" "$reprise" capture -q --only "$w/o/in" -o "$tmp/only.rpz" -- sh -c "echo a > $w/o/in/a; echo b > $w/o/b; cat /proc/self/status > /dev/null"
cat_trace "$tmp/only.rpz"
has "--only keeps what is under DIR" cat "write path=\"$w/o/in/a\""
lacks "... and drops the rest" cat "path=\"$w/o/b\""
check "capture without filters" "$reprise" capture -q -o "$tmp/all.rpz" -- sh -c "echo b > $w/o/b; cat /proc/self/status > /dev/null"
cat_trace "$tmp/all.rpz"
has "without --only other paths are kept" cat "write path=\"$w/o/b\""
lacks "/proc is excluded by default" cat "path=\"/proc/"

# --- programs the interposer cannot enter are reported, not silently missed
if file -L /sbin/ldconfig 2>/dev/null | grep -Eq 'statically linked|static-pie linked'; then
	check "a static program runs" "$reprise" capture -o "$tmp/static.rpz" -- sh -c '/sbin/ldconfig -p > /dev/null'
	has "... and is reported untraced" err "run without the interposer: 1"
	# a script whose interpreter is static: the exec's image check sees a script, the kernel runs a program
	# that never reports; the session sees an exec with no image after it
	printf '#!/sbin/ldconfig -p\n' >"$w/static-script" && chmod 755 "$w/static-script"
	check "an exec whose program never reports runs" "$reprise" capture -o "$tmp/unrep.rpz" -- sh -c "'$w/static-script' >/dev/null; true"
	has "... and the summary says so" err "programs exec'd that never reported: 1"
	has "... with a warning that the trace lacks its ops" err "warning: 1 program or thread ran untraced: the trace lacks their ops"
	"$reprise" stat "$tmp/unrep.rpz" >"$tmp/stat" 2>&1
	has "... which the trace's header keeps (reprise stat)" stat "incomplete: programs ran untraced"
	"$reprise" stat --json "$tmp/unrep.rpz" >"$tmp/stat" 2>&1
	has "... and stat --json" stat '"untraced": true'
	run "$reprise" capture --strict -q -o "$tmp/unrep2.rpz" -- sh -c "'$w/static-script' >/dev/null; true"
	eq "... and --strict fails (exit 1)" "$?" 1
	has "... saying why" err "--strict: programs ran untraced"
else
	for t in "a static program runs" "... and is reported untraced" "an exec whose program never reports runs" \
		"... and the summary says so" "... with a warning that the trace lacks its ops" \
		"... which the trace's header keeps (reprise stat)" "... and stat --json" "... and --strict fails (exit 1)" \
		"... saying why"; do
		ok "$t # SKIP no static program here (/sbin/ldconfig)"
	done
fi
# A user change inside the capture (runuser, as root): the child cannot reach the spool, private to root;
# the exec is said from the parent's side with the fix, and --strict fails.  A fork after setuid: its
# ring cannot be made, and the control page counts it.
if [ "$(id -u)" = 0 ] && command -v runuser >/dev/null && runuser -u nobody -- true 2>/dev/null; then
	run "$reprise" capture -o "$tmp/ru.rpz" -- runuser -u nobody -- cat /etc/hostname
	eq "runuser -u nobody inside the capture: the program's status" "$?" 0
	has "... the summary counts it out of the spool's reach" err "out of the spool's reach after a user change: 1"
	has "... and says the fix" err "change the user first and capture as that user, runuser -u nobody -- reprise capture"
	run "$reprise" capture --strict -q -o "$tmp/ru2.rpz" -- runuser -u nobody -- cat /etc/hostname
	eq "... --strict fails (exit 1)" "$?" 1
	has "... and -q still warns" err "warning: 1 program or thread ran untraced"
	run "$reprise" capture -o "$tmp/fk.rpz" -- python3 -c 'import os
os.setuid(65534)
pid = os.fork()
if pid == 0:
    open("/etc/hostname").read()
    os._exit(0)
os.waitpid(pid, 0)'
	has "a fork after setuid: its ring could not be made, and the summary says so" err \
		"threads that could not make their ring in the spool: 1"
else
	for t in "runuser -u nobody inside the capture: the program's status" \
		"... the summary counts it out of the spool's reach" "... and says the fix" "... --strict fails (exit 1)" \
		"... and -q still warns" "a fork after setuid: its ring could not be made, and the summary says so"; do
		ok "$t # SKIP needs root and runuser"
	done
fi
# A set-user-ID program runs untraced when it changes the user (the loader's secure mode): as root, one
# owned by nobody does; a set-user-ID root program run by root changes nothing and is traced.
suid=$w/suid-true
if cp /bin/true "$suid" && chown nobody "$suid" && chmod 4755 "$suid" && [ "$(id -u)" = 0 ] &&
	[ "$(stat -c %U "$suid")" = nobody ]; then
	"$reprise" capture -o "$tmp/suid.rpz" -- sh -c "$suid; true" >/dev/null 2>"$tmp/err"
	has "a set-user-ID program that changes the user is reported untraced" err "run without the interposer.*: 1"
else
	ok "# SKIP cannot make a set-user-ID program of another user here (not root?)"
fi

# The warning for the command itself follows the kernel's secure-execution rule (AT_SECURE: the new
# effective uid or gid is not the real one): root running a set-user-ID root program is warned of
# nothing and traced; a user who is not root (setpriv) is warned, and the program is not traced.
nbw=$(mktemp -d /tmp/rp-suid-XXXXXX) && chmod 755 "$nbw" && sr=$nbw/suid-touch && mkdir -m 777 "$nbw/w"
if [ "$(id -u)" = 0 ] && command -v setpriv >/dev/null && cp "$(command -v touch)" "$sr" && chmod 4755 "$sr"; then
	"$reprise" capture -o "$tmp/suidroot.rpz" -- "$sr" "$w/suidroot-made" >/dev/null 2>"$tmp/err"
	lacks "root running a set-user-ID root program is not warned" err "will run untraced"
	cat_trace "$tmp/suidroot.rpz"
	has "... and it is traced" cat "open path=\"$w/suidroot-made\""
	if setpriv --reuid=nobody --regid=nogroup --clear-groups -- test -x "$reprise" 2>/dev/null &&
		setpriv --reuid=nobody --regid=nogroup --clear-groups -- test -x "$sr" 2>/dev/null; then
		setpriv --reuid=nobody --regid=nogroup --clear-groups -- "$reprise" capture -o "$nbw/w/suid.rpz" -- \
			"$sr" "$nbw/w/suid-made" >/dev/null 2>"$tmp/err"
		has "a user who is not root running it is warned" err "suid-touch will run untraced: it runs in secure-execution mode"
		if [ -e "$nbw/w/suid-made" ]; then ok "... it ran"; else not_ok "... it ran"; fi
		if "$reprise" cat "$nbw/w/suid.rpz" >"$tmp/cat" 2>/dev/null && ! grep -q "suid-made" "$tmp/cat"; then
			ok "... untraced (its trace reads, without its file)"
		else
			not_ok "... untraced (its trace reads, without its file)"
		fi
	else
		for t in "a user who is not root running it is warned" "... it ran" "... untraced"; do
			ok "# SKIP $t: nobody cannot run reprise or the test's program here"
		done
	fi
else
	for t in "root running a set-user-ID root program is not warned" "... and it is traced" \
		"a user who is not root running it is warned" "... it ran" "... untraced"; do
		ok "# SKIP $t: not root, or no setpriv"
	done
fi
rm -rf "$nbw"

# --- the clocks: the TSC (where the kernel keeps time by it) and CLOCK_MONOTONIC give the same ops,
# times in ns inside the run's wall-clock span; a clock that is not one is refused
clock_ops() { "$reprise" cat "$1" 2>/dev/null | sed -E 's/^[^ ]+ [^ ]+ //; s/ (atime|mtime)=[0-9.]+//g' | grep -v '^#'; }
check "capture with --clock monotonic" "$reprise" capture -q --clock monotonic --only "$w" -o "$tmp/mono.rpz" -- \
	sh -c "cd $w && mkdir -p clk && echo a > clk/f && cat clk/f > clk/g && rm -r clk"
clock_ops "$tmp/mono.rpz" >"$tmp/mono.ops"
if [ "$(cat /sys/devices/system/clocksource/clocksource0/current_clocksource 2>/dev/null)" = tsc ] &&
	[ "$(uname -m)" = x86_64 ]; then
	t0=$(date +%s%N)
	check "capture with --clock tsc" "$reprise" capture -q --clock tsc --only "$w" -o "$tmp/tsc.rpz" -- \
		sh -c "cd $w && mkdir -p clk && echo a > clk/f && cat clk/f > clk/g && rm -r clk"
	t1=$(date +%s%N)
	clock_ops "$tmp/tsc.rpz" >"$tmp/tsc.ops"
	same "the same ops with either clock ($(wc -l <"$tmp/tsc.ops"))" "$tmp/mono.ops" "$tmp/tsc.ops"
	# the trace's start (wall clock) plus its duration lies inside the span the capture ran in
	"$reprise" stat --json "$tmp/tsc.rpz" >"$tmp/tsc.json" 2>/dev/null
	span=$(python3 -c 'import json,sys; j=json.load(open(sys.argv[1])); print(j["start_ns"], int(j["duration_s"] * 1e9))' \
		"$tmp/tsc.json" 2>/dev/null)
	if [ -n "$span" ] && echo "$span $t0 $t1" | awk '{exit !($1 >= $3 - 1e6 && $1 + $2 <= $4 + 1e6 && $2 > 0)}'; then
		ok "TSC times in ns of the run's span"
	else
		echo "# start, duration: '$span'; run: $t0..$t1"
		not_ok "TSC times in ns of the run's span"
	fi
else
	for t in "capture with --clock tsc" "the same ops with either clock" "TSC times in ns of the run's span"; do
		ok "# SKIP $t: the kernel does not keep time by the TSC here"
	done
fi
"$reprise" capture --clock sundial -o "$tmp/x.rpz" -- true 2>"$tmp/err"
eq "--clock sundial is refused (exit 2)" "$?" 2
has "it says which clocks there are" err "not one of auto, tsc, monotonic"

# --- what prepare makes of a directory the program only stat'ed: a directory, never a 0-byte file, when
# the stat said so (the result's S_IFDIR: flags=dir) or when a failed open names a path beneath it
mkdir -p "$w/pd/a" "$w/pd/k"
check "capture stats of directories and a failed open beneath one" "$reprise" capture -q --only "$w/pd" \
	-o "$tmp/pd.rpz" -- sh -c "stat '$w/pd/k' >/dev/null; python3 -c 'import os; os.stat(\"$w/pd/a\")'; cat '$w/pd/a/b' 2>/dev/null; true"
cat_trace "$tmp/pd.rpz"
has "the stat of a directory says so (flags=dir)" cat "stat path=\"$w/pd/k\" flags=dir"
has "... also through stat(2) (python's os.stat)" cat "stat path=\"$w/pd/a\" flags=dir"
mkdir "$tmp/pdt"
check "the trace replays with no mismatch" "$reprise" replay -q --fail-on-mismatch "$tmp/pd.rpz" --target "$tmp/pdt"
if [ -d "$tmp/pdt$w/pd/k" ] && [ -d "$tmp/pdt$w/pd/a" ]; then ok "prepare made both directories"; else
	find "$tmp/pdt" -printf '# %y %p\n'
	not_ok "prepare made both directories"
fi

# --- the same run under strace, converted: the same file operations
script="cd $w && mkdir -p cmp && echo hello > cmp/f && cat cmp/f > cmp/g && mv cmp/g cmp/h && ln -s h cmp/l && chmod 600 cmp/f && rm cmp/l cmp/h cmp/f && rmdir cmp"
if command -v strace >/dev/null 2>&1 && strace -f -o /dev/null true 2>/dev/null; then
	check "capture the script" "$reprise" capture -q --only "$w" -o "$tmp/cmp.rpz" -- sh -c "$script"
	strace -f -ttt -T -y -o "$tmp/cmp.strace" sh -c "$script" >/dev/null 2>&1
	check "convert the same run from strace" "$reprise" convert -q "$tmp/cmp.strace" "$tmp/cmps.rpz"
	"$reprise" cat "$tmp/cmp.rpz" >"$tmp/a.txt" 2>/dev/null
	"$reprise" cat "$tmp/cmps.rpz" >"$tmp/b.txt" 2>/dev/null
	# the ops that change the tree, on paths under $w, as (op, path, path2, status): the same multiset
	key() { grep -E " (mkdir|rmdir|unlink|rename|symlink|link|setattr|write) path=\"$w/" "$1" |
		sed -E 's/^[^ ]+ [^ ]+ c[0-9]+ //; s/ fh=[0-9]+//; s/ (off|len)=[0-9]+//g; s/ (atime|mtime)=[0-9.]+//g' | sort; }
	key "$tmp/a.txt" >"$tmp/ka"
	key "$tmp/b.txt" >"$tmp/kb"
	same "capture and strace agree on every op that changes the tree ($(wc -l <"$tmp/ka") ops)" "$tmp/ka" "$tmp/kb"
else
	ok "# SKIP strace cannot run here"
fi
echo "1..$n"
