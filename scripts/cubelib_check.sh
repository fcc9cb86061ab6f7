#!/usr/bin/env bash
# Opens every cube wisp writes with CubeLib's own tools (analyses, the bundled scenarios' runs and
# sweeps, and runs under mpirun), checks that CubeLib's `cube_diff scenario.cubex identity.cubex`
# equals wisp's difference.cubex within 1e-12 relative and that the cubes written under mpirun equal
# the one-process ones (CubeLib's library at full precision: scripts/cube_values.cpp), and compares
# the cube of every trace with a Scalasca dump in tests/data with it (scripts/cube_vs_scalasca.py).
# Not in CI: CubeLib is no Debian package (build it from Score-P 8.4's vendor/cubelib outside the
# project: src/report/README.md).
#   bash scripts/cubelib_check.sh CUBELIB_BIN_DIR [build/wisp]
set -euo pipefail
cd "$(dirname "$0")/.."
bin="$(realpath "$1")"
wisp="$(realpath "${2:-build/wisp}")"
work=$(mktemp -d); trap 'rm -rf "$work"' EXIT
# CubeLib's library, at full precision (cube_dump prints 6 digits).
g++ -std=c++17 -O1 $("$bin/cubelib-config" --cflags) scripts/cube_values.cpp -o "$work/cube_values" \
  $("$bin/cubelib-config" --ldflags) $("$bin/cubelib-config" --libs)
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
mpi() { mpirun --oversubscribe -n "$@"; }
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
# check LABEL A.cubex B.cubex LIMIT: CubeLib opens A, and A's values equal B's within LIMIT.
check() {
  local out
  if out=$("$bin/cube_info" "$2" > /dev/null 2>&1 && "$work/cube_values" "$2" "$3" "$4" 2>&1); then
    echo "$1: $out"
  else
    echo "$1: differs or unreadable: $out"
    failed=$((failed + 1))
  fi
}
for run in "${runs[@]}"; do
  "$bin/cube_diff" "$run/scenario.cubex" "$run/identity.cubex" -o "$run/cube_diff.cubex" > /dev/null 2>&1
  check "$(basename "$run"): cube_diff = difference.cubex" "$run/cube_diff.cubex" "$run/difference.cubex" 1e-12
done
# Under mpirun: the same cubes as one process writes.
mpi 3 "$wisp" -q analyze tests/data/apps/cloverleaf_bm_short_4r/traces.otf2 -o "$work/mpi-analyze" > /dev/null 2>&1
check "mpirun -n 3 wisp analyze cloverleaf_bm_short_4r" "$work/mpi-analyze/analysis.cubex" \
  "$work/analyze-cloverleaf_bm_short_4r/analysis.cubex" 0
for name in halo-zero-compute halo-bandwidth-sweep; do
  mpi 3 "$wisp" -q run "scenarios/$name.yaml" -o "$work/mpi-run-$name" > /dev/null 2>&1
  for cube in identity scenario difference; do
    check "mpirun -n 3 wisp run $name, $cube.cubex" "$work/mpi-run-$name/$cube.cubex" "$work/run-$name/$cube.cubex" 0
  done
done
echo "traces whose cube deviates from Scalasca's somewhere: $deviating (the limits: src/analysis/README.md)"
[ "$opened" -eq "${#cubes[@]}" ] && [ "$failed" -eq 0 ]
