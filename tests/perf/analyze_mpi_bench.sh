#!/bin/bash
# wisp analyze spread over MPI processes against one process (tests/perf/README.md "Analyses over
# MPI processes"): per round, alternating in order, the plain `wisp analyze` of the analyses that
# are spread (the anchor) and `mpirun -n P wisp analyze` for each P; wall time, the peak RSS of
# every process (GNU time around each) and whether the JSON without timings equals the anchor's.
# Prints one line per run and, at the end, the medians of each run's ratios to its round's anchor.
#
#   tests/perf/analyze_mpi_bench.sh WISP TRACE ROUNDS "1 2 4"
set -u
wisp=$1 trace=$2 rounds=$3 counts=$4
analyses=pag,wait_estimate,pop  # every analysis (the wait-path analysis always runs)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
mpi="mpirun --oversubscribe --bind-to none --mca btl self,vader --mca btl_vader_single_copy_mechanism none"
ratios="$(dirname "$0")/mpi_bench_ratios.py"

run() {  # run NAME COMMAND...: wall [s], peak RSS of the largest and of all processes [MB], same JSON
  local name=$1; shift
  rm -f "$tmp"/rss.*
  local t0; t0=$(date +%s.%N)
  "$@" > "$tmp/$name.json" 2> "$tmp/err" || { echo "$name failed: $(tail -2 "$tmp/err")"; exit 1; }
  local wall; wall=$(echo "$(date +%s.%N) - $t0" | bc)
  local max=0 sum=0
  for f in "$tmp"/rss.*; do local kb; kb=$(tail -1 "$f"); sum=$((sum + kb)); [ "$kb" -gt "$max" ] && max=$kb; done
  python3 "$ratios" strip "$tmp/$name.json" > "$tmp/$name.stripped"
  local same=same; cmp -s "$tmp/$name.stripped" "$tmp/anchor.stripped" 2>/dev/null || same=DIFFERENT
  [ "$name" = anchor ] && same=-
  echo "$name wall $wall s, largest process $((max / 1024)) MB, all processes $((sum / 1024)) MB, json $same"
}
timed() { /usr/bin/time -f "%M" -o "$tmp/rss.$$.$RANDOM.$(date +%N)" "$@"; }
export -f timed 2>/dev/null
for k in $(seq 1 "$rounds"); do
  echo "=== round $k $(date +%T)"
  run anchor /usr/bin/time -f "%M" -o "$tmp/rss.0" "$wisp" -q analyze "$trace" --json --analyses $analyses
  for n in $counts; do
    run "n$n" $mpi -n "$n" bash -c 'exec /usr/bin/time -f "%M" -o "'"$tmp"'/rss.$OMPI_COMM_WORLD_RANK" "$0" "$@"' \
      "$wisp" -q analyze "$trace" --json
  done
done | tee "$tmp/log"
echo "=== medians of the ratios to the anchor of the same round (wall, largest process)"
python3 "$ratios" medians "$tmp/log"
