#!/bin/bash
# What users feel of the replay's speed, two builds alternating (tests/perf/README.md "What users
# feel"): the wall time of `wisp suggest --jobs 2` on every shared application trace and of a
# 12-point platform sweep on NPB LU (`wisp run --jobs 2`: latency x 1/4 ... 8, bandwidth x 1 or
# 1/4, trace-anchored with the gain interval), each build in turn, median of ROUNDS.
#
#   tests/perf/replay_users_bench.sh WISP_BEFORE WISP_AFTER [ROUNDS] [TRACES_DIR]
set -euo pipefail
before=$(realpath "$1") after=$(realpath "$2") rounds=${3:-3}
here=$(cd "$(dirname "$0")/../.." && pwd)
dir=$(realpath "${4:-$here/../shared/traces/apps}")
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# shellcheck source=../../scripts/bench_lib.sh
source "$here/scripts/bench_lib.sh"
cat > "$work/lu-sweep.yaml" <<EOF
wisp: 1
name: lu-platform-sweep
trace: $here/tests/data/apps/npb_lu_W_4r/traces.otf2
transforms:
  - platform: {latency_factor: 1, bandwidth_factor: 1}
sweep:
  transforms[0].latency_factor: [0.25, 0.5, 1, 2, 4, 8]
  transforms[0].bandwidth_factor: [1, 0.25]
EOF
jobs=()
for trace in $(find "$dir" -name traces.otf2 | sort); do jobs+=("suggest $trace"); done
jobs+=("sweep $work/lu-sweep.yaml")
run() {  # run WISP KIND INPUT
  if [ "$2" = suggest ]; then
    wall "$1" -q suggest --force --jobs 2 -o "$work/out" "$3" 2> /dev/null
  else
    wall "$1" -q run --force --jobs 2 -o "$work/out" "$3" 2> /dev/null
  fi
}
printf '| what | before | after | after / before |\n| --- | ---: | ---: | ---: |\n'
for job in "${jobs[@]}"; do
  read -r kind input <<< "$job"
  b=() a=()
  for _ in $(seq "$rounds"); do
    b+=("$(run "$before" "$kind" "$input")")
    a+=("$(run "$after" "$kind" "$input")")
  done
  name=$([ "$kind" = suggest ] && echo "suggest $(basename "$(dirname "$input")")" || echo "12-point platform sweep, NPB LU")
  python3 - "$name" "${b[*]}" "${a[*]}" <<'EOF'
import statistics, sys
b = [float(x) for x in sys.argv[2].split()]
a = [float(x) for x in sys.argv[3].split()]
ratio = statistics.median(y / x for x, y in zip(b, a))
print(f"| {sys.argv[1]} | {statistics.median(b):.2f} s | {statistics.median(a):.2f} s | {ratio:.2f}x |")
EOF
done
