#!/bin/sh
# reprise merge and replay --clients-from (TAP): every input's ops in time order, each input's clients
# after the previous ones' (the summary prints the mapping), --align start|wallclock, inputs of any
# form, the output atomic; replay --clients-from runs the traces side by side on tmpfs with the sum
# of their op counts and no mismatch.
#   merge.sh REPRISE SRCDIR
set -u
reprise=$1
src=$2
tmp=$(mktemp -d "${TMPDIR:-/tmp}/reprise-merge-XXXXXX") || exit 1
. "${0%/*}/../lib/tap.sh"
run=$(tap_tmpfs merge) || exit 1
trap 'rm -rf "$tmp" "$run"' EXIT INT TERM
check() { if [ "$2" = "$3" ]; then ok "$1"; else echo "# got '$2', want '$3'"; not_ok "$1"; fi; }
has() { if grep -qF -- "$3" "$2"; then ok "$1"; else echo "# no '$3' in:"; sed 's/^/# /' "$2" | head -10; not_ok "$1"; fi; }
echo "1..25"

smb=$src/samples/smb2-small-files.rpz
nfs=$src/samples/nfs3-write.rpz
lf=$src/samples/smb2-small-files.txt
ops() { "$reprise" cat "$1" | wc -l; }

"$reprise" merge "$smb" "$nfs" "$lf" -o "$tmp/m.rpz" 2>"$tmp/sum"
check "every input's ops are in the merge" "$(ops "$tmp/m.rpz")" "$(($(ops "$smb") + $(ops "$nfs") + $(ops "$lf")))"
has "the summary maps input 1's clients" "$tmp/sum" "input 1 $smb: 429 ops, clients 0-1 -> 0-1"
has "input 2's follow them, its handles past input 1's" "$tmp/sum" "input 2 $nfs: 43 ops, clients 0-2 -> 2-4, handles + 132"
has "and input 3's (a loadfile) theirs" "$tmp/sum" "input 3 $lf: 429 ops, clients 0-1 -> 5-6, handles + 134"
clients() { "$reprise" stat "$1" | awk '$1 == "clients" { print $2 }'; }
check "the clients stay distinct" "$(clients "$tmp/m.rpz")" "$(($(clients "$smb") + $(clients "$nfs") + $(clients "$lf")))"
"$reprise" merge "$smb" "$nfs" -o "$tmp/m2.rpz" 2>/dev/null
check "the ops are in time order" "$("$reprise" cat "$tmp/m2.rpz" | awk '{ if ($1 < last) bad++; last = $1 } END { print bad + 0 }')" "0"
"$reprise" stat "$tmp/m2.rpz" >"$tmp/st"
has "an SMB and an NFS capture merged: packets of several protocols, not 'unknown'" "$tmp/st" "source      pcap"
has "... and the input line names the sources" "$tmp/st" "input       merge of 2 traces: pcap-smb, pcap-nfs"
"$reprise" stat "$tmp/m.rpz" >"$tmp/st"
has "captures and a loadfile merged: mixed, each source named" "$tmp/st" \
	"source      mixed"
has "... and named" "$tmp/st" "merge of 3 traces: loadfile-smb, pcap-smb, pcap-nfs"
check "each input keeps its own order" \
	"$("$reprise" cat "$tmp/m2.rpz" | awk '$3 == "c1"' | cut -d' ' -f4- | cmp -s - "$("$reprise" cat "$smb" | cut -d' ' -f4- >"$tmp/o1"; echo "$tmp/o1")" && echo same)" "same"

# --align wallclock: by each header's capture start (the NFS capture is years after the SMB one)
"$reprise" merge --align wallclock "$smb" "$nfs" -o "$tmp/w.rpz" 2>"$tmp/sum"
has "wallclock: the later input starts later" "$tmp/sum" "input 2 $nfs: 43 ops, clients 0-2 -> 2-4, handles + 132, starts at"
check "the merged trace starts at the earlier capture" \
	"$("$reprise" stat "$tmp/w.rpz" | awk '$1 == "start" { print $2 }')" "$("$reprise" stat "$smb" | awk '$1 == "start" { print $2 }')"
rm -f "$tmp/bad.rpz"
"$reprise" merge --align wallclock "$smb" "$lf" -o "$tmp/bad.rpz" 2>"$tmp/err"
check "wallclock with an input of unknown start: exit 1, naming it, nothing written" \
	"$? $(grep -c "input 2: its capture start is unknown" "$tmp/err") $([ -e "$tmp/bad.rpz" ] && echo written)" "1 1 "
"$reprise" merge "$smb" "$tmp/m.rpz" -o "$tmp/m.rpz" 2>"$tmp/err"
check "OUT naming an input is refused" "$?" "2"
"$reprise" merge --align sideways "$smb" -o "$tmp/bad.rpz" 2>"$tmp/err"
check "a bad --align exits 2" "$? $(grep -c "align must be start or wallclock" "$tmp/err")" "2 1"
"$reprise" merge "$smb" "$nfs" 2>"$tmp/err"
check "no -o exits 2" "$?" "2"
"$reprise" merge "$smb" "$tmp/missing.rpz" -o "$tmp/bad.rpz" 2>"$tmp/err"
check "a missing input: exit 1, nothing written" "$? $([ -e "$tmp/bad.rpz" ] && echo written)" "1 "

# replay --clients-from: the traces side by side, as separate clients
total() { # trace... -> total_ops of a replay on an empty tmpfs directory, with its mismatches and unknown handles
	rm -rf "$run/t"
	mkdir "$run/t"
	"$reprise" replay -q "$@" --target "$run/t" --json "$tmp/r.json" >/dev/null 2>"$tmp/err" &&
		python3 -c 'import json, sys
d = json.load(open(sys.argv[1]))
print(d["total_ops"], d["mismatches"], d["unknown_handles"])' "$tmp/r.json"
}
a=$(total "$smb" | cut -d' ' -f1)
b=$(total "$nfs" | cut -d' ' -f1)
check "replay --clients-from: the op counts add up, no mismatch, no unknown handle" \
	"$(total --clients-from "$smb" "$nfs")" "$((a + b)) 0 0"
check "and its clients are both traces'" "$(python3 -c 'import json, sys
print(json.load(open(sys.argv[1]))["clients"])' "$tmp/r.json")" \
	"$(($(total "$smb" >/dev/null; python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))["clients"])' "$tmp/r.json") + $(total "$nfs" >/dev/null; python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))["clients"])' "$tmp/r.json")))"
# reprise bench takes it too (the replay options are shared)
rm -rf "$run/b"
mkdir "$run/b"
if "$reprise" bench -q --clients-from "$smb" "$nfs" --target "$run/b" --runs 1 --json "$tmp/b.json" >/dev/null 2>"$tmp/err"; then
	check "bench --clients-from: the op counts add up" "$(python3 -c 'import json, sys
r = json.load(open(sys.argv[1]))["targets"][0]["runs"][0]["result"]
print(r["total_ops"], r["mismatches"])' "$tmp/b.json")" "$((a + b)) 0"
else
	not_ok "bench --clients-from: the op counts add up"
fi
"$reprise" replay --mpi --clients-from "$smb" "$nfs" --target "$run/t" >/dev/null 2>"$tmp/err"
check "replay --clients-from with --mpi is refused (exit 2)" "$? $(grep -c "does not go with --mpi" "$tmp/err")" "2 1"

# Many inputs: up to 4,096 (RP_OPTS_MAX_POS; 256 before, when 257 said only "too many arguments"),
# each input's one client kept apart; one more is refused with the limit named.
printf 'QUERY_PATH_INFORMATION "\\a" 1004 NT_STATUS_OK\n' >"$tmp/one.txt"
"$reprise" convert -q "$tmp/one.txt" "$tmp/one.rpz"
mkdir "$tmp/many"
i=1
while [ $i -le 300 ]; do ln "$tmp/one.rpz" "$tmp/many/$i.rpz"; i=$((i + 1)); done
"$reprise" merge -q -o "$tmp/m300.rpz" "$tmp"/many/*.rpz 2>"$tmp/err"
check "merge of 300 inputs: 300 ops, 300 clients" \
	"$? $("$reprise" stat "$tmp/m300.rpz" 2>/dev/null | awk '$1 == "ops" || $1 == "clients" { printf "%s ", $2 }')" "0 300 300 "
rm -rf "$run/many" && mkdir "$run/many"
"$reprise" replay -q -b null --target "$run/many" --json "$tmp/r300.json" --clients-from "$tmp"/many/*.rpz >/dev/null 2>"$tmp/err"
check "replay --clients-from 300 traces: 300 ops" "$? $(python3 -c 'import json, sys
print(json.load(open(sys.argv[1]))["total_ops"])' "$tmp/r300.json" 2>&1)" "0 300"
args=$(i=0; while [ $i -le 4096 ]; do printf '%s ' "$tmp/one.rpz"; i=$((i + 1)); done)
# shellcheck disable=SC2086 # one word per input
"$reprise" merge -q -o "$tmp/m4097.rpz" $args 2>"$tmp/err"
check "merge of 4,097 inputs: usage error naming the limit, no OUT" \
	"$? $(grep -c 'at most 4096' "$tmp/err") $(test -e "$tmp/m4097.rpz" && echo out)" "2 1 "
