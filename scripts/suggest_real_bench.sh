#!/usr/bin/env bash
# Benchmark of `wisp suggest` on real traces (not a test): for every traces.otf2 under DIR, the wall
# time of `wisp suggest --jobs 2` as a multiple of one `wisp run` of its top row (the first ranked
# row, else the first row), both with the gain interval, alternating, median of REPS each.
# Usage: scripts/suggest_real_bench.sh [BUILD_DIR] [TRACES_DIR] [REPS]
set -euo pipefail
build=$(realpath "${1:-build}")
dir=${2:-../shared/traces}
reps=${3:-3}
wisp="$build/wisp"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# shellcheck source=bench_lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/bench_lib.sh"
median() { sort -g | awk '{v[NR] = $1} END {print v[int((NR + 1) / 2)]}'; }

printf '| trace | rows | top row | its gain | suggest | run | ratio |\n| --- | ---: | --- | ---: | ---: | ---: | ---: |\n'
find "$dir" -name traces.otf2 | sort | while read -r trace; do
  name=$(dirname "${trace#"$dir"/}")
  s=(); r=()
  for _ in $(seq "$reps"); do
    s+=("$(wall "$wisp" -q suggest --force --jobs 2 -o "$work/s" "$trace" 2>/dev/null)")
    top=$(python3 -c "
import json, sys
rows = json.load(open('$work/s/suggest.json'))['hypotheses']
ranked = [h for h in rows if h['role'] != 'bound' and h.get('measurable')]
print((ranked or rows)[0]['file'] if rows else '')")
    [ -n "$top" ] || continue 2
    r+=("$(wall "$wisp" -q run --force -o "$work/r" "$work/s/$top" 2>/dev/null)")
  done
  a=$(printf '%s\n' "${s[@]}" | median)
  b=$(printf '%s\n' "${r[@]}" | median)
  python3 - "$name" "$work/s/suggest.json" "$a" "$b" <<'PY'
import json, sys
name, path, a, b = sys.argv[1], sys.argv[2], float(sys.argv[3]), float(sys.argv[4])
rows = json.load(open(path))['hypotheses']
ranked = [h for h in rows if h['role'] != 'bound' and h.get('measurable')]
top = (ranked or rows)[0]
label = top['title'] if ranked else top['title'] + ' (no ranked row: the first)'
print(f"| {name} | {len(rows)} | {label} | {top['gain_percent']:.2f} % | {a:.2f} s | {b:.2f} s | {a / b:.2f}x |")
PY
done
