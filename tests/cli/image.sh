#!/bin/sh
# replay --image (TAP): an Impressions image on tmpfs beside a trace's own files, the replay's
# results unchanged (0 mismatches, the same failures as without it), the summary's counts and bytes
# those of the tree, no holes (st_blocks), the same tree for a seed and another for another seed,
# a name the trace uses avoided (whatever its case), --prepare-only, a model's file set, bench, and
# hostile models (a billion files, a petabyte) refused before anything is written.
#   image.sh REPRISE SRCDIR
set -u
reprise=$1
src=$2
tmp=$(mktemp -d "${TMPDIR:-/tmp}/reprise-image-XXXXXX") || exit 1
. "${0%/*}/../lib/tap.sh"
run=$(tap_tmpfs image) || exit 1
trap 'rm -rf "$tmp" "$run"' EXIT INT TERM
check() { if "$@" >"$tmp/out" 2>"$tmp/err"; then ok "$*"; else not_ok "$*"; fi; }
# tree DIR: every entry beneath DIR, relative, with its type and size, sorted
tree() { (cd "$1" && find . -printf '%y %s %p\n' | grep -v '^d' | sort; cd "$1" && find . -type d | sort); }
# json FILE EXPR: a Python expression over the JSON j
json() { python3 -c "import json,sys; j=json.load(open(sys.argv[1])); print($2)" "$1"; }
echo "1..29"

trace=$src/samples/smb2-small-files.rpz

# 1. without and with an image: the same results
mkdir "$run/a" "$run/b"
check "$reprise" replay -q --json "$tmp/a.json" "$trace" --target "$run/a"
check "$reprise" replay -q --json "$tmp/b.json" "$trace" --target "$run/b" --image impressions --image-scale 0.02 --seed 5
has "the Image line" out '^Image: [0-9]+ directories, 400 files, .* beneath rp-image/ \(impressions, scale 0.02, seed 5\)'
fa=$(json "$tmp/a.json" 'j["failures"]') fb=$(json "$tmp/b.json" 'j["failures"]')
mb=$(json "$tmp/b.json" 'j["mismatches"]')
echo "# failures without $fa, with $fb; mismatches with $mb"
if [ "$fa" = "$fb" ] && [ "$mb" = 0 ]; then ok "0 mismatches and no new failure with the image"; else not_ok "results changed"; fi

# 2. the summary is the tree's: files, directories, bytes; every byte allocated
files=$(find "$run/b/rp-image" -type f | wc -l) dirs=$(find "$run/b/rp-image" -type d | wc -l)
bytes=$(find "$run/b/rp-image" -type f -printf '%s\n' | awk '{s += $1} END {print s + 0}')
want=$(json "$tmp/b.json" '"%d %d %d" % (j["prepare"]["image"]["files"], j["prepare"]["image"]["dirs"], j["prepare"]["image"]["bytes"])')
echo "# tree: $files files, $dirs directories, $bytes bytes; JSON: $want"
if [ "$files $dirs $bytes" = "$want" ] && [ "$files" = 400 ]; then ok "the JSON counts the tree"; else not_ok "counts differ"; fi
holes=$(find "$run/b/rp-image" -type f -printf '%s %b\n' | awk '$2 * 512 < $1 {n++} END {print n + 0}')
if [ "$holes" = 0 ]; then ok "no file of the image has a hole (st_blocks covers its size)"; else echo "# $holes with holes"; not_ok "holes"; fi
lacks "nothing of the image's beneath the trace's own directory" out 'rp-image.*100-small-files'
if [ -z "$(cd "$run/b" && ls | grep -v -e '^rp-image$' -e '^100-small-files$')" ]; then ok "only the trace's directory and rp-image at the root"; else not_ok "other entries at the root"; fi
depth=$(find "$run/b/rp-image" -type f | awk -F/ '{print NF}' | sort -n | uniq -c | wc -l)
echo "# files at $depth different depths"
if [ "$depth" -ge 4 ]; then ok "files spread over several depths"; else not_ok "a flat image"; fi

# 3. the same seed makes the same tree, another seed another
mkdir "$run/c" "$run/d"
check "$reprise" replay -q "$trace" --target "$run/c" --image impressions --image-scale 0.02 --seed 5
check "$reprise" replay -q "$trace" --target "$run/d" --image impressions --image-scale 0.02 --seed 6
tree "$run/b/rp-image" >"$tmp/tb"
tree "$run/c/rp-image" >"$tmp/tc"
tree "$run/d/rp-image" >"$tmp/td"
same "the same seed: the same names, types and sizes" "$tmp/tb" "$tmp/tc"
if cmp -s "$tmp/tb" "$tmp/td"; then not_ok "another seed made the same tree"; else ok "another seed: another tree"; fi
f=$(cd "$run/b/rp-image" && find . -type f | head -1)
if cmp -s "$run/b/rp-image/$f" "$run/c/rp-image/$f"; then ok "the same bytes in a file of each"; else not_ok "bytes differ"; fi

# 4. a target that holds rp-image already (the earlier run's): the next name, the old one untouched
before=$(tree "$run/b/rp-image" | md5sum)
check "$reprise" replay -q "$trace" --target "$run/b" --image impressions --image-scale 0.01
has "an existing rp-image: rp-image-2" out 'beneath rp-image-2/'
if [ "$(tree "$run/b/rp-image" | md5sum)" = "$before" ]; then ok "the earlier image left as it was"; else not_ok "rp-image changed"; fi

# 5. a trace whose paths begin with rp-image and RP-Image-2: the image takes rp-image-3
printf '%s\n' 'NTCreateX "\rp-image\a.txt" 0x0 0x2 1 NT_STATUS_OK' 'WriteX 1 0 100 100 NT_STATUS_OK' \
	'Close 1 NT_STATUS_OK' 'NTCreateX "\RP-Image-2\b.txt" 0x0 0x2 2 NT_STATUS_OK' 'Close 2 NT_STATUS_OK' >"$tmp/names.txt"
mkdir "$run/e"
check "$reprise" replay --json "$tmp/e.json" "$tmp/names.txt" --target "$run/e" --image impressions --image-scale 0.005
has "the trace's names avoided: rp-image-3" out 'beneath rp-image-3/'
has "and its own ops unchanged" out 'mismatched 0'

# 6. --prepare-only makes the image and says so; a model's file set makes one like it
mkdir "$run/f" "$run/g"
check "$reprise" replay --prepare-only "$trace" --target "$run/f" --image impressions --image-scale 0.005
has "--prepare-only: the Image line" out '^Image: .* 100 files'
"$reprise" model -q "$trace" -o "$tmp/m.json"
check "$reprise" replay -q "$trace" --target "$run/g" --image "$tmp/m.json" --image-scale 2
has "a model's file set: twice its 105 files" out '^Image: .* 210 files'

# 7. bench prepares an image in each run's directory
mkdir "$run/h"
check "$reprise" bench -q --runs 1 "$trace" --target "$run/h" --image impressions --image-scale 0.005 --json "$tmp/h.json"

# 8. hostile models: refused, clearly, before anything is written
python3 - "$tmp/m.json" "$tmp" <<'PY'
import json, sys
m = json.load(open(sys.argv[1]))
m["files"]["files"] = 1 << 40
json.dump(m, open(sys.argv[2] + "/billion.json", "w"))
m = json.load(open(sys.argv[1]))
m["files"]["size"] = [0] * 51 + [1000]
json.dump(m, open(sys.argv[2] + "/peta.json", "w"))
PY
mkdir "$run/x"
"$reprise" replay -q "$trace" --target "$run/x" --image "$tmp/billion.json" >"$tmp/out" 2>"$tmp/err"
rc=$?
if [ "$rc" = 2 ] && grep -q -- 'files.files: not an integer in' "$tmp/err" && [ -z "$(ls "$run/x")" ]; then ok "2^40 files: refused by the model reader, nothing written"; else echo "# exit $rc"; not_ok "2^40 files"; fi
"$reprise" replay -q "$trace" --target "$run/x" --image "$tmp/m.json" --image-scale 20 --image-max-files 1000 >"$tmp/out" 2>"$tmp/err"
rc=$?
if [ "$rc" != 0 ] && grep -q -- '--image-max-files' "$tmp/err" && [ -z "$(ls "$run/x")" ]; then ok "over --image-max-files: refused, nothing written"; else echo "# exit $rc"; not_ok "over --image-max-files"; fi
"$reprise" replay -q "$trace" --target "$run/x" --image "$tmp/peta.json" --image-max-file-size 1125899906842624 >"$tmp/out" 2>"$tmp/err"
rc=$?
if [ "$rc" != 0 ] && grep -q -- '--image-max-bytes' "$tmp/err" && [ -z "$(ls "$run/x")" ]; then ok "a petabyte: refused, nothing written"; else echo "# exit $rc"; not_ok "a petabyte"; fi
printf '{"not":"a model"}' >"$tmp/bad.json"
"$reprise" replay -q "$trace" --target "$run/x" --image "$tmp/bad.json" >"$tmp/out" 2>"$tmp/err"
rc=$?
if [ "$rc" = 2 ] && grep -q -- "--image $tmp/bad.json: " "$tmp/err"; then ok "not a model: a usage error naming the file"; else echo "# exit $rc"; not_ok "not a model"; fi
exit 0
