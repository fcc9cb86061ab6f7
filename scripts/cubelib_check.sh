#!/usr/bin/env bash
# Opens every cube wisp writes with CubeLib's own tools, checks that CubeLib's `cube_diff
# scenario.cubex identity.cubex` equals wisp's difference.cubex, and compares the cube of every
# trace with a Scalasca dump in tests/data with it (scripts/cube_vs_scalasca.py). Not in CI: CubeLib is no Debian
# package (build it from Score-P 8.4's vendor/cubelib outside the project: src/report/README.md).
#   bash scripts/cubelib_check.sh CUBELIB_BIN_DIR [build/wisp]
set -euo pipefail
cd "$(dirname "$0")/.."
bin="$(realpath "$1")"
wisp="$(realpath "${2:-build/wisp}")"
work=$(mktemp -d); trap 'rm -rf "$work"' EXIT
cubes=()
for trace in tests/data/apps/*/traces.otf2; do
  name=$(basename "$(dirname "$trace")")
  "$wisp" -q analyze "$trace" -o "$work/analyze-$name" > /dev/null 2>&1
  cubes+=("$work/analyze-$name/analysis.cubex")
done
runs=()
for scenario in scenarios/*.yaml; do
  name=$(basename "$scenario" .yaml)
  "$wisp" -q run "$scenario" -o "$work/run-$name" --jobs 2 > /dev/null 2>&1
  [ -f "$work/run-$name/difference.cubex" ] || continue
  runs+=("$work/run-$name")
  cubes+=("$work/run-$name/identity.cubex" "$work/run-$name/scenario.cubex" "$work/run-$name/difference.cubex")
done
opened=0
for cube in "${cubes[@]}"; do
  if "$bin/cube_info" "$cube" > /dev/null 2>&1 && "$bin/cube_dump" -m all "$cube" > /dev/null 2>&1; then
    opened=$((opened + 1))
  else
    echo "cubelib_check: CubeLib cannot read ${cube#"$work"/}" >&2
  fi
done
echo "cube_info and cube_dump -m all read $opened of ${#cubes[@]} cubes"
deviating=0
for dump in $(find tests/data -name scalasca.tsv.gz | sort); do
  dir=$(dirname "$dump")
  out="$work/scalasca-${dir//\//-}"
  "$wisp" -q analyze "$dir/traces.otf2" -o "$out" > /dev/null 2>&1
  echo "${dir#tests/data/} against Scalasca's cube:"
  python3 scripts/cube_vs_scalasca.py "$bin" "$out/analysis.cubex" "$dump" | sed 's/^/  /' || deviating=$((deviating + 1))
done
failed=0
for run in "${runs[@]}"; do
  "$bin/cube_diff" "$run/scenario.cubex" "$run/identity.cubex" -o "$run/cube_diff.cubex" > /dev/null 2>&1
  "$bin/cube_dump" -m all -s csv2 "$run/cube_diff.cubex" > "$run/a.csv" 2> /dev/null
  "$bin/cube_dump" -m all -s csv2 "$run/difference.cubex" > "$run/b.csv" 2> /dev/null
  # cube_dump prints 6 significant digits: equal prints are equal values at that precision.
  python3 - "$run/a.csv" "$run/b.csv" "$(basename "$run")" << 'PY' || failed=$((failed + 1))
import csv, sys
a, b = (list(csv.reader(open(p))) for p in sys.argv[1:3])
if a[0] != b[0] or len(a) != len(b):
    sys.exit(f"{sys.argv[3]}: cube_diff and difference.cubex differ in metrics or entries")
worst, entries = 0.0, 0
for ra, rb in zip(a[1:], b[1:]):
    for x, y in zip(ra, rb):
        x, y = float(x), float(y)
        entries += 1
        worst = max(worst, abs(x - y) / max(abs(x), abs(y), 1e-300))
print(f"{sys.argv[3]}: cube_diff = difference.cubex on {entries} entries, largest relative difference {worst:.2g}")
sys.exit(1 if worst > 1e-5 else 0)
PY
done
echo "traces whose cube deviates from Scalasca's somewhere: $deviating (the limits: src/analysis/README.md)"
[ "$opened" -eq "${#cubes[@]}" ] && [ "$failed" -eq 0 ]
