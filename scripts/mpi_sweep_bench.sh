#!/usr/bin/env bash
# Benchmark of sweeps over MPI (not a test): a 16-point sweep (bandwidth x latency factors) of a
# 256-rank generated halo trace under `mpirun -n 1, 2, 4` (wall time, parallel efficiency against
# -n 1), and the scheduler's overhead per point on a sweep of trivial points (a 2-rank trace):
# the extra wall time per point of `mpirun -n 2` (1 worker) over `wisp run --resume` (the same
# part machinery without MPI), from the difference between a 64- and an 8-point sweep so that
# start-up costs cancel. Usage: scripts/mpi_sweep_bench.sh [BUILD_DIR] [STEPS]
set -euo pipefail
build=${1:-build}
steps=${2:-200}
wisp="$(cd "$build" && pwd)/wisp"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
mpi=(mpirun --oversubscribe --mca btl self,vader --mca btl_vader_single_copy_mechanism none)

# shellcheck source=bench_lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/bench_lib.sh"

"$wisp" -q generate halo --dims 16x16 --steps "$steps" --work 0.001 -o "$work/trace256"
cat > "$work/sweep16.yaml" <<YAML
wisp: 1
name: sweep16
trace: $work/trace256
platform: {latency: 1e-6, bandwidth: 1e10, overhead: 1e-6, contention: false}
transforms:
  - platform: {bandwidth_factor: 1, latency_factor: 1}
sweep:
  transforms[0].bandwidth_factor: [0.25, 0.5, 1, 2]
  transforms[0].latency_factor: [1, 2, 5, 10]
YAML
events=$("$wisp" info "$work/trace256" | grep -o "[0-9]* events" | head -1 || true)
echo "16-point sweep of a 256-rank halo trace (16x16, $steps steps, ${events:-? events})"
t1=$(wall "$wisp" -q run --jobs 1 --force -o "$work/j1" "$work/sweep16.yaml")
printf '  wisp run --jobs 1   %7.2f s\n' "$t1"
for n in 1 2 4; do
  t=$(wall "${mpi[@]}" -n "$n" "$wisp" -q run --force -o "$work/n$n" "$work/sweep16.yaml")
  workers=$(( n > 1 ? n - 1 : 1 ))
  cmp <(python3 -m json.tool "$work/j1/report.json") <(python3 -m json.tool "$work/n$n/report.json") >/dev/null \
    && same="same report.json" || same="report.json DIFFERS"
  printf '  mpirun -n %d         %7.2f s  speed-up %.2f  efficiency %3.0f %% of %d rank(s), %3.0f %% of %d worker(s)  (%s)\n' \
    "$n" "$t" "$(echo "$t1 / $t" | bc -l)" "$(echo "100 * $t1 / $t / $n" | bc -l)" "$n" \
    "$(echo "100 * $t1 / $t / $workers" | bc -l)" "$workers" "$same"
done

"$wisp" -q generate halo --dims 2x1 --steps 2 -o "$work/tiny"
trivial() {  # a sweep of $1 trivial points
  local values
  values=$(seq -s, 1 "$1")
  printf 'wisp: 1\nname: trivial%s\ntrace: %s\nplatform: {latency: 1e-6, bandwidth: 1e10}\ntransforms:\n  - platform: {speed_factor: 1}\nsweep:\n  transforms[0].speed_factor: [%s]\n' \
    "$1" "$work/tiny" "$values" > "$work/trivial$1.yaml"
}
trivial 8
trivial 64
l8=$(wall "$wisp" -q run --resume --force -o "$work/l8" "$work/trivial8.yaml")
l64=$(wall "$wisp" -q run --resume --force -o "$work/l64" "$work/trivial64.yaml")
m8=$(wall "${mpi[@]}" -n 2 "$wisp" -q run --force -o "$work/m8" "$work/trivial8.yaml")
m64=$(wall "${mpi[@]}" -n 2 "$wisp" -q run --force -o "$work/m64" "$work/trivial64.yaml")
local_point=$(echo "($l64 - $l8) / 56 * 1000" | bc -l)
mpi_point=$(echo "($m64 - $m8) / 56 * 1000" | bc -l)
printf 'trivial points (2-rank trace): %.1f ms per point locally, %.1f ms over MPI (1 worker): scheduler overhead %.1f ms per point\n' \
  "$local_point" "$mpi_point" "$(echo "$mpi_point - $local_point" | bc -l)"
printf '  (8 / 64 points: local %.2f / %.2f s, mpirun -n 2 %.2f / %.2f s)\n' "$l8" "$l64" "$m8" "$m64"
