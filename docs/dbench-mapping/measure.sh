#!/bin/sh
# How dbench 4.0's fileio backend turns each loadfile command into syscalls, measured under strace
# (docs/dbench-mapping.md). Prints markdown tables on stdout.
#   measure.sh [-r REPRISE] [-t SECS] [LOADFILE...]   one table per tiny loadfile (default: all
#                                                     *.txt beside this script)
#   measure.sh [-r REPRISE] [-t SECS] -f [-l LOG] [LOADFILE]
#       the op mix of one loop of a big loadfile (default /usr/share/dbench/client.txt) beside the
#       client process's ops during its first loop; -l LOG reads a log strace already wrote of
#       `dbench -c LOADFILE -D DIR 1` (one loop of client.txt takes about 120 s under strace here)
#
# How a command is found in the trace: before every loadfile line (comments too) dbench's client
# process checks its parent with kill(PPID, 0), so the child's syscalls between two such kills
# are one line's. Line i of loop j is segment (j-1)*N+i (N lines in the file). The first loop
# (a fresh directory) and the last (cut by the time limit, then dbench's cleanup) are left out;
# each line's syscall sequence is the one most loops show, with how many loops showed it.
# The reprise op of each syscall comes from `reprise cat` of the same log, joined by start time
# (reprise's t_start is the -ttt time minus the log's first).
set -eu
here=$(cd "$(dirname "$0")" && pwd)
reprise=${REPRISE:-reprise}
secs=1
full=0
given=
while getopts r:t:fl: opt; do
	case $opt in
	r) reprise=$OPTARG ;;
	t) secs=$OPTARG ;;
	f) full=1 ;;
	l) given=$OPTARG ;;
	*) echo "usage: $0 [-r REPRISE] [-t SECS] [-f] [LOADFILE...]" >&2; exit 2 ;;
	esac
done
shift $((OPTIND - 1))
for p in dbench strace "$reprise"; do
	command -v "$p" >/dev/null 2>&1 || { echo "$0: $p not found" >&2; exit 2; }
done
tmp=$(mktemp -d) && tmp=$(cd "$tmp" && pwd -P); [ -z "${KEEP:-}" ] || echo "keeping $tmp" >&2
trap '[ -n "${KEEP:-}" ] || rm -rf "$tmp"' EXIT INT TERM
export LC_ALL=C TZ=UTC

# trace LOADFILE: runs dbench on it under strace into $tmp/log, its ops into $tmp/cat
trace() {
	rm -rf "$tmp/d" && mkdir "$tmp/d"
	if [ -n "$given" ]; then
		cp "$given" "$tmp/log" && : >"$tmp/dbench.out" && "$reprise" cat "$tmp/log" >"$tmp/cat"
		return
	fi
	timeout $((secs * 20 + 60)) strace -f -ttt -T -y -o "$tmp/log" \
		dbench -c "$1" -D "$tmp/d" -t "$secs" 1 >"$tmp/dbench.out" 2>&1 ||
		{ echo "$0: dbench on $1 failed:" >&2; tail -5 "$tmp/dbench.out" >&2; exit 1; }
	"$reprise" cat "$tmp/log" >"$tmp/cat"
}

# segments LOADFILE: one line per syscall of the client process: "SEG<TAB>RELTIME<TAB>SIGNATURE",
# SEG the kill segment, RELTIME as reprise cat prints t_start; loadfile reads are "(loadfile)".
segments() {
	# the child is the pid that calls kill(PPID, 0)
	child=$(awk '$3 ~ /^kill\(/ && $4 == "0)" { print $1; exit }' "$tmp/log")
	awk -v lf="$1" -v child="$child" -v top="$tmp/d" '
	function rel(ts,   s, u) { s = ts; sub(/\..*/, "", s); u = ts; sub(/.*\./, "", u)
		while (length(u) < 6) u = u "0"
		u = u + 0 - u0; s = s - s0; if (u < 0) { u += 1000000; s-- }
		return sprintf("%d.%06d000", s, u) }
	# paths beneath the -D directory as D/..., the client directory (D/clients/client0) as C
	function short(p) { if (index(p, top) == 1) p = "D" substr(p, length(top) + 1); sub(/^D\/clients\/client0/, "C", p); return p }
	function quoted(s) { if (match(s, /"[^"]*"/)) return short(substr(s, RSTART + 1, RLENGTH - 2)); return "" }
	function fdpath(s) { if (match(s, /^[0-9]+<[^>]*>/)) { s = substr(s, RSTART, RLENGTH); sub(/^[0-9]+</, "", s); sub(/>$/, "", s); return short(s) } return "" }
	function sig(name, args, res,   f, t, a) {
		if (name == "openat") { split(args, a, /, /); n = split(a[3], b, /\|/); f = ""
			# O_CLOEXEC, O_NONBLOCK, O_LARGEFILE say nothing about the file
			for (k = 1; k <= n; k++) if (b[k] !~ /^O_(CLOEXEC|NONBLOCK|LARGEFILE)$/) f = f (f == "" ? "" : "|") b[k]
			t = "openat(" quoted(args) ", " f ")" }
		else if (name == "newfstatat") t = (args ~ /AT_EMPTY_PATH/) ? "fstat(" fdpath(args) ")" : "stat(" quoted(args) ")"
		else if (name == "pread64" || name == "pwrite64") { n = split(args, a, /, /); t = name "(" fdpath(args) ", " a[n - 1] " @" a[n] ")" }
		else if (name == "fcntl") { f = args; sub(/^[0-9]+<[^>]*>, /, "", f); gsub(/l_[a-z]+=|[{}]/, "", f); t = "fcntl(" fdpath(args) ", " f ")" }
		else if (name == "ftruncate" || name == "fallocate") { f = args; sub(/^[0-9]+<[^>]*>, /, "", f); t = name "(" fdpath(args) ", " f ")" }
		else if (name == "rename") { n = split(args, a, /", "/); f = a[1]; sub(/^"/, "", f); g = a[2]; sub(/"$/, "", g)
			t = "rename(" short(f) ", " short(g) ")" }
		else if (name == "getdents64") t = "getdents64(" fdpath(args) ")" (res ~ /^0 / ? " (end)" : "")
		else if (args ~ /^(AT_FDCWD[^,]*, )?"/) t = name "(" quoted(args) ")"
		else if (fdpath(args) != "") t = name "(" fdpath(args) ")"
		else t = name
		if (match(res, /^-1 E[A-Z]+/)) t = t " -> " substr(res, 4, RLENGTH - 3)
		return t }
	NR == 1 { s0 = $2; sub(/\..*/, "", s0); u0 = $2; sub(/.*\./, "", u0); while (length(u0) < 6) u0 = u0 "0"; u0 += 0 }
	$1 != child { next }
	/ <unfinished \.\.\.>$/ { l = $0; sub(/ <unfinished \.\.\.>$/, "", l); pend = l; next }
	$3 == "<..." { if (pend == "") next; l = $0; sub(/^.* resumed>/, "", l); $0 = pend l; pend = "" }
	$3 ~ /^(---|\+\+\+)/ { next }
	{
		ts = $2; call = $0; sub(/^[0-9]+ +[0-9.]+ /, "", call)   # strace pads the pid column
		name = call; sub(/\(.*/, "", name)
		if (name == "kill" && call ~ /^kill\([0-9]+, 0\)/) { seg++; next }
		# the arguments and the result: "name(ARGS) = RES <T>"
		args = call; sub(/^[a-z0-9_]+\(/, "", args); res = args
		sub(/\) += .*$/, "", args); sub(/^.*\) += /, "", res)
		if (index(args, lf ">") || (name == "lseek" && index(args, lf))) { print seg "\t" rel(ts) "\t(loadfile)"; next }
		print seg "\t" rel(ts) "\t" sig(name, args, res)
	}' "$tmp/log"
}

# ops: "RELTIME<TAB>OP" for the client process's ops in reprise cat (the client with most ops);
# values that change from call to call (times, offsets, sizes, handles) are left out of OP
ops() {
	awk '{ n[$3]++ } END { for (c in n) if (n[c] > best) { best = n[c]; bc = c } print bc }' "$tmp/cat" >"$tmp/client"
	awk -v c="$(cat "$tmp/client")" '$3 == c {
		o = $4; st = $0; sub(/^.* -> /, "", st); sub(/ .*/, "", st)
		for (i = 5; i <= NF && $i != "->"; i++)
			if ($i !~ /^(path|path2|fh|ret|raw|off|len|mode|atime|mtime)=/) { f = $i; sub(/of=dir,cloexec/, "of=dir", f); if (f != "of=cloexec") o = o " " f }
		if (st != "OK") o = o " -> " st
		print $1 "\t" o }' "$tmp/cat"
}

# table LOADFILE: the command -> syscalls -> ops table of one tiny loadfile
# canon FILE: FILE's path with its symlinks resolved, as strace -y names the fd dbench reads it by
canon() { echo "$(cd "$(dirname "$1")" && pwd -P)/$(basename "$1")"; }

table() {
	lf=$(canon "$1")
	n=$(wc -l <"$lf")
	trace "$lf"
	segments "$lf" >"$tmp/seg"
	ops >"$tmp/ops"
	# join each syscall to its op by start time, then group by segment
	awk -F '\t' -v n="$n" -v lfn="$lf" -v name="$(basename "$lf")" '
	FNR == NR { op[$1] = $2; next }
	{ s = $1 + 0; if (s > last) last = s
	  if ($3 == "(loadfile)") { loadfile[s]++; next }
	  o = ($2 in op) ? op[$2] : "-"
	  item = "`" $3 "` → " o
	  gsub(/\|/, "\\|", item)   # a | in a markdown table cell ends the cell
	  if (cnt[s]++) seq[s] = seq[s] "<br>" item; else seq[s] = item }
	END {
		loops = int((last - 1) / n)   # segments 1..last-1 are complete; the last is cut or cleanup
		if (loops < 3) { print lfn ": only " loops " complete loops; run longer (-t)" > "/dev/stderr"; exit 1 }
		while ((getline l < lfn) > 0) text[++k] = l
		printf "### %s\n\n%d complete loops, loops 2-%d counted\n\n", name, loops, loops
		print "| # | loadfile line | syscalls of one command → reprise op | loops |"
		print "|---|---|---|---|"
		for (i = 1; i <= n; i++) {
			delete tally; best = ""; bn = 0
			for (j = 2; j <= loops; j++) { s = (j - 1) * n + i; v = (s in seq) ? seq[s] : "(none)"; tally[v]++ }
			for (v in tally) if (tally[v] > bn) { bn = tally[v]; best = v }
			line = text[i]; gsub(/\|/, "\\|", line); gsub(/\\/, "\\\\", line)
			printf "| %d | `%s` | %s | %d/%d |\n", i, text[i], best, bn, loops - 1
		}
		lf_reads = 0; for (s in loadfile) lf_reads += loadfile[s]
		printf "\nloadfile reads and seeks (dbench reading %s again each loop): %.2f per loop\n\n", name, lf_reads / loops
	}' "$tmp/ops" "$tmp/seg"
}

# mix LOADFILE: per-op counts of one loop of LOADFILE as reprise stat reads it, beside the client
# process's ops in the trace during that loop (segments 1..N: the first loop; the loadfile's first
# line is at segment 1) and the whole trace's syscall summary
mix() {
	lf=$(canon "$1")
	n=$(wc -l <"$lf")
	trace "$lf"
	segments "$lf" >"$tmp/seg"
	ops >"$tmp/ops"
	last=$(tail -n 1 "$tmp/seg" | cut -f 1)
	if [ "$last" -le "$n" ]; then
		echo "$0: the run did not finish one loop of $lf ($last of $n lines); run longer (-t)" >&2
		exit 1
	fi
	"$reprise" stat "$lf" >"$tmp/stat.lf"
	"$reprise" stat "$tmp/log" >"$tmp/stat.log" 2>"$tmp/stat.err"
	echo "one loop of $lf ($n lines) vs the client process's ops in its first loop"
	echo
	echo "| op | $(basename "$lf") | trace, loop 1 | ratio |"
	echo "|---|---:|---:|---:|"
	awk -F '\t' -v n="$n" '
	FILENAME ~ /stat.lf$/ { if ($0 ~ /^op +count/) { on = 1; next } if (on && NF == 0) on = 0
		if (on) { split($0, f, / +/); lfc[f[1]] = f[2]; names[f[1]] = 1 } next }
	FILENAME ~ /seg$/ { if ($1 >= 1 && $1 <= n) inloop[$2] = ($3 == "(loadfile)") ? 2 : 1; next }
	{ if ($1 in inloop) { split($2, w, / /); o = (inloop[$1] == 2) ? w[1] " (of the loadfile itself)" : w[1]; tr[o]++; names[o] = 1 } }
	END { for (o in names) printf "| %s | %d | %d | %s |\n", o, lfc[o], tr[o], lfc[o] ? sprintf("%.2f", tr[o] / lfc[o]) : "-" }
	' FS=' ' "$tmp/stat.lf" FS='\t' "$tmp/seg" "$tmp/ops" | sort
	echo
	echo "the trace's ops in that loop by the command whose line made them (failed ops with their errno)"
	echo
	echo "| command | lines | ops they became |"
	echo "|---|---:|---|"
	awk -F '\t' -v n="$n" '
	FILENAME == ARGV[1] { cmd[NR] = $0; sub(/[ \t].*/, "", cmd[NR]); lines[cmd[NR]]++; next }
	FILENAME == ARGV[2] { if ($1 >= 1 && $1 <= n) seg[$2] = ($3 == "(loadfile)") ? "(reading the loadfile)" : cmd[$1]; next }
	($1 in seg) { o = $2; st = ""; if (o ~ / -> /) { st = o; sub(/.* -> /, " -> ", st) } sub(/ .*/, "", o)
		k = seg[$1] SUBSEP o st; if (!(k in c)) order[seg[$1]] = order[seg[$1]] (order[seg[$1]] == "" ? "" : SUBSEP) o st; c[k]++ }
	END { for (m in order) { t = ""; k = split(order[m], a, SUBSEP)
			for (i = 1; i <= k; i++) t = t (i > 1 ? ", " : "") a[i] " " c[m SUBSEP a[i]]
			printf "| %s | %d | %s |\n", m, lines[m], t } }
	' "$lf" "$tmp/seg" "$tmp/ops" | sort
	echo
	echo "whole trace (both processes, all loops): reprise stat"
	echo
	sed -n '/^ops /p;/^clients /p;/^duration /p' "$tmp/stat.log" | sed 's/^/    /'
	sed 's/^/    /' "$tmp/stat.err"
	if [ -z "$given" ]; then
		echo
		echo "dbench's own report:"
		echo
		sed -n '/Operation/,$p' "$tmp/dbench.out" | sed 's/^/    /'
	fi
}

if [ "$full" = 1 ]; then
	mix "${1:-/usr/share/dbench/client.txt}"
	exit 0
fi
[ $# -gt 0 ] || set -- "$here"/*.txt
echo "dbench $(dbench --help 2>&1 | sed -n 's/^dbench version \([^ ]*\).*/\1/p' | head -n 1), strace $(strace -V | sed -n '1s/.*version //p'), measured $(date -u +%Y-%m-%d) on $(uname -r)"
echo
for lf in "$@"; do
	table "$lf"
done
