#!/bin/bash
# LogGOPSim's runtime for wisp's GOAL exports, beside wisp's model-only replay (not run in CI:
# LogGOPSim is built locally, see src/replay/README.md#goal-schedules-for-loggopsim).
# Usage: scripts/goal_loggopsim.sh LOGGOPSIM_BUILD_DIR WORKDIR NAME=TRACE...
# LOGGOPSIM_BUILD_DIR holds txt2bin and LogGOPSim. Times are written in ps (G = 1/bandwidth is
# below 1 ns/byte on fast networks) and run with the LogGOP parameters of the GOAL header.
set -euo pipefail
sim=$1 work=$2
shift 2
wisp=${WISP:-$(dirname "$0")/../build/wisp}
mkdir -p "$work"
printf '%-20s %14s %14s %9s %10s %10s\n' trace wisp_model_s loggopsim_s diff_% operations wall_s
for item in "$@"; do
  name=${item%%=*} trace=${item#*=}
  out=$work/$name
  rm -rf "$out" && mkdir -p "$out"
  "$wisp" -q simulate "$trace" --costs model -o "$out/sim" --export goal "$out/s.goal" --export-time-unit ps \
    >"$out/wisp.txt" 2>"$out/wisp.err"
  wisp_s=$(awk '$1 == "total" { print $3 }' "$out/wisp.txt")
  args=$(sed -n 's|^// LogGOPSim takes integers: .*LogGOPSim -f FILE.bin ||p' "$out/s.goal")
  ops=$(grep -c '^l[0-9]*: ' "$out/s.goal" || true)
  "$sim/txt2bin" -i "$out/s.goal" -o "$out/s.bin" >/dev/null
  start=$(date +%s.%N)
  # shellcheck disable=SC2086
  "$sim/LogGOPSim" -f "$out/s.bin" $args >"$out/loggopsim.txt" 2>&1
  wall=$(awk -v s="$start" -v e="$(date +%s.%N)" 'BEGIN { printf "%.3f", e - s }')
  ps=$(awk '/^Host [0-9]+:/ { if ($3 > m) m = $3 } /Maximum finishing time/ { for (i = 1; i <= NF; i++) if ($i ~ /^[0-9]+$/ && $i + 0 > m) m = $i } END { print m }' "$out/loggopsim.txt")
  lg=$(awk -v p="$ps" 'BEGIN { printf "%.9f", p / 1e12 }')
  diff=$(awk -v a="$wisp_s" -v b="$lg" 'BEGIN { printf "%+.3f", 100 * (b - a) / a }')
  printf '%-20s %14s %14s %9s %10s %10s\n' "$name" "$wisp_s" "$lg" "$diff" "$ops" "$wall"
done
