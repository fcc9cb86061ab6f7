#!/bin/bash
# Rounds of analyze_read_bench on a shared machine (src/analysis/README.md "Reading in
# parallel"): each round starts once the machine has been idle (>= 90 %) for 3 s, then runs this
# build's bench (--before: the other build's wisp) and the other build's bench (its read_otf2),
# one round each, on the same archive. Ratios are per round; take their medians from the log.
#
#   tests/perf/read_rounds.sh BUILD BEFORE_BUILD STEPS ROUNDS LOG [DIR]
set -u
build=$1 before=$2 steps=$3 rounds=$4 log=$5 dir=${6:-${TMPDIR:-/tmp}/wisp-read-rounds}

idle_percent() {  # idle share of the CPUs over 3 s, from /proc/stat
  read -r _ u n s i w x y z _ < /proc/stat; local t1=$((u+n+s+i+w+x+y+z)) i1=$((i+w))
  sleep 3
  read -r _ u n s i w x y z _ < /proc/stat; echo $((100 * (i + w - i1) / (u+n+s+i+w+x+y+z - t1)))
}
wait_idle() { for _ in $(seq 1 200); do local p; p=$(idle_percent); [ "$p" -ge 90 ] && break; sleep 7; done; }

for k in $(seq 1 "$rounds"); do
  wait_idle; echo "=== after, round $k, $(date +%T)" >> "$log"
  "$build/tests/analyze_read_bench" --before "$before/wisp" --steps "$steps" --repeat 1 --dir "$dir" --keep >> "$log" 2>&1
  wait_idle; echo "=== before, round $k, $(date +%T)" >> "$log"
  "$before/tests/analyze_read_bench" --steps "$steps" --repeat 1 --dir "$dir" --keep >> "$log" 2>&1
done
