#!/usr/bin/env bash
# Benchmark of `wisp suggest` (not a test): on a ~1 M-event generated halo trace, the wall time of
# `wisp suggest --jobs 1` and `--jobs 2` as a multiple of one `wisp run` of one scenario on the same
# trace (median of REPS runs each). Usage: scripts/suggest_bench.sh [BUILD_DIR] [REPS]
set -euo pipefail
build=${1:-build}
reps=${2:-3}
wisp="$build/wisp"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

"$wisp" -q generate halo --dims 4x4 --steps 1500 --overload-ranks 0-3 --overload 0.5 -o "$work/trace"
cat > "$work/one.yaml" <<YAML
wisp: 1
name: one
trace: $work/trace
transforms:
  - rebalance: {region: compute}
YAML

# shellcheck source=bench_lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/bench_lib.sh"
median() { sort -g | awk '{v[NR] = $1} END {print v[int((NR + 1) / 2)]}'; }

run=(); s1=(); s2=()
for i in $(seq "$reps"); do
  run+=("$(wall "$wisp" -q run --force -o "$work/run" "$work/one.yaml")")
  s1+=("$(wall "$wisp" -q suggest --force --jobs 1 -o "$work/s1" "$work/trace")")
  s2+=("$(wall "$wisp" -q suggest --force --jobs 2 -o "$work/s2" "$work/trace")")
done
events=$("$wisp" info --json "$work/trace" | grep -o '"events": *[0-9]*' | head -1 | grep -o '[0-9]*$' || true)
candidates=$(grep -c '"rank"' <(python3 -m json.tool "$work/s1/suggest.json") || true)
r=$(printf '%s\n' "${run[@]}" | median)
a=$(printf '%s\n' "${s1[@]}" | median)
b=$(printf '%s\n' "${s2[@]}" | median)
echo "trace: halo 4x4, 1500 steps, ${events:-?} events; ${candidates} hypotheses simulated"
printf 'wisp run (one scenario)  median %.2f s   runs: %s\n' "$r" "${run[*]}"
printf 'wisp suggest --jobs 1    median %.2f s = %.1f x wisp run   runs: %s\n' "$a" "$(echo "$a / $r" | bc -l)" "${s1[*]}"
printf 'wisp suggest --jobs 2    median %.2f s = %.1f x wisp run   runs: %s\n' "$b" "$(echo "$b / $r" | bc -l)" "${s2[*]}"
