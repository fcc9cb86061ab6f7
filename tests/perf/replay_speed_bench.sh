#!/bin/bash
# wisp's replay against LogGOPSim and SMPI (tests/perf/README.md "Against LogGOPSim"): per round,
# alternating, wisp's model-only replay of each trace on a contention-free crossbar (the "replayed
# ... in X s of simulation" line of `wisp -v simulate --costs model`: FATPIPE links, 0.5 us,
# 12.5 GB/s, 1024 hosts) and LogGOPSim's run of wisp's GOAL export of the same trace (the same
# schedule, no contention; its own wall time). Prints each run, then per trace the medians and the
# median of the per-round ratios; then, unless SMPI=0, replay_bench's wisp-against-SMPI table at
# 16, 256 and 1024 ranks. LogGOPSim is built outside the project (src/replay/README.md, "GOAL
# schedules for LogGOPSim").
#
#   tests/perf/replay_speed_bench.sh BUILD_DIR LOGGOPSIM_BUILD_DIR [ROUNDS] [NAME=TRACE ...]
# Without traces: NPB LU (tests/data/apps/npb_lu_W_4r) and `wisp generate halo --dims 16x16
# --steps 400` (256 ranks, 4.3 M events).
set -euo pipefail
build=$(realpath "$1") sim=$(realpath "$2") rounds=${3:-3}
shift $(($# < 3 ? $# : 3))
here=$(cd "$(dirname "$0")/../.." && pwd)
wisp=${WISP:-$build/wisp}  # WISP=...: another build's binary (before/after)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# The contention-free crossbar: explicit FATPIPE links (SimGrid 3.32's <cluster> makes its private
# links SHARED whatever its sharing_policy says; platforms/README.md).
{
  echo "<?xml version='1.0'?>"
  echo '<!DOCTYPE platform SYSTEM "https://simgrid.org/simgrid.dtd">'
  echo '<platform version="4.1"><zone id="wisp" routing="Cluster">'
  echo '<prop id="wisp:eager-threshold" value="65536"/><prop id="wisp:overhead" value="1e-6"/>'
  for h in $(seq 0 1023); do
    echo "<host id=\"node-$h\" speed=\"1Gf\"/><link id=\"node-$h-link\" bandwidth=\"12.5GBps\" latency=\"0.5us\"" \
      "sharing_policy=\"FATPIPE\"/><host_link id=\"node-$h\" up=\"node-$h-link\" down=\"node-$h-link\"/>"
  done
  echo '</zone></platform>'
} > "$work/free.xml"
traces=("$@")
if [ ${#traces[@]} -eq 0 ]; then
  "$wisp" -q generate halo --dims 16x16 --steps 400 -o "$work/halo256" > /dev/null
  traces=("npb_lu=$here/tests/data/apps/npb_lu_W_4r/traces.otf2" "halo_256=$work/halo256/traces.otf2")
fi
for item in "${traces[@]}"; do  # the GOAL exports, once
  name=${item%%=*} trace=${item#*=}
  mkdir -p "$work/$name"
  "$wisp" -q simulate "$trace" --costs model -o "$work/$name/sim" --export goal "$work/$name/s.goal" \
    --export-time-unit ps > /dev/null
  "$sim/txt2bin" -i "$work/$name/s.goal" -o "$work/$name/s.bin" > /dev/null
  sed -n 's|^// LogGOPSim takes integers: .*LogGOPSim -f FILE.bin ||p' "$work/$name/s.goal" > "$work/$name/args"
done
for k in $(seq 1 "$rounds"); do
  for item in "${traces[@]}"; do
    name=${item%%=*} trace=${item#*=}
    w=$("$wisp" -v simulate "$trace" --platform "$work/free.xml" --costs model -o "$work/out" 2>&1 |
      sed -n 's/.*replayed .* in \([0-9.]*\) s of simulation.*/\1/p')
    rm -rf "$work/out"
    t0=$(date +%s.%N)
    # shellcheck disable=SC2046
    "$sim/LogGOPSim" -f "$work/$name/s.bin" $(cat "$work/$name/args") > /dev/null
    l=$(echo "$(date +%s.%N) - $t0" | bc -l)
    echo "round $k $name wisp $w s loggopsim $l s" | tee -a "$work/log"
  done
done
echo "=== medians of $rounds rounds (wisp's simulation, LogGOPSim's run, the per-round ratio)"
python3 - "$work/log" <<'EOF'
import statistics, sys
runs = {}
for line in open(sys.argv[1]):
    p = line.split()
    runs.setdefault(p[2], []).append((float(p[4]), float(p[7])))
for name, r in runs.items():
    w = statistics.median(x for x, _ in r)
    l = statistics.median(y for _, y in r)
    ratio = statistics.median(x / y for x, y in r)
    print(f"{name:12} wisp {w:.3f} s  LogGOPSim {l:.3f} s  ratio {ratio:.2f}x "
          f"(rounds {', '.join(f'{x / y:.2f}' for x, y in r)})")
EOF
if [ "${SMPI:-1}" != 0 ]; then
  echo "=== wisp against SMPI's trace replay (replay_bench)"
  "$build/tests/replay_bench" --ranks 16,256,1024 --operations 1000000 --repeat "$rounds"
fi
