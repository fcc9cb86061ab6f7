#!/usr/bin/env bash
# Build time of `bash scripts/setup.sh demo` (the wisp executable only) against a full build of
# every target at REV, alternating, after `rm -rf build` each time (packages present):
#   bash scripts/build_time_bench.sh REV [ROUNDS]
# Prints one line per build and the ratio of the medians. Uses git worktrees in a temporary
# directory (removed at the end); needs both cores to itself.
set -euo pipefail
cd "$(dirname "$0")/.."
rev="${1:?usage: build_time_bench.sh REV [ROUNDS]}"
rounds="${2:-3}"
tmp=$(mktemp -d)
trap 'git worktree remove --force "$tmp/full" 2>/dev/null; git worktree remove --force "$tmp/demo" 2>/dev/null; rm -rf "$tmp"' EXIT
git worktree add -q "$tmp/full" "$rev"
git worktree add -q "$tmp/demo" HEAD

build() {  # DIR [TARGET]: seconds of configure + build
  local start end
  start=$(date +%s.%N)
  (cd "$1" && rm -rf build && cmake -S . -B build -DCMAKE_BUILD_TYPE=Release >/dev/null &&
    cmake --build build -j "$(nproc)" ${2:+--target "$2"} >/dev/null)
  end=$(date +%s.%N)
  echo "$end - $start" | bc
}

full=() demo=()
for round in $(seq "$rounds"); do
  full+=("$(build "$tmp/full")")
  demo+=("$(build "$tmp/demo" wisp_cli)")
  echo "round $round: every target at $rev ${full[-1]} s, demo (wisp_cli) at HEAD ${demo[-1]} s"
done
median() { printf '%s\n' "$@" | sort -n | awk '{v[NR] = $1} END {print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2}'; }
m_full=$(median "${full[@]}") m_demo=$(median "${demo[@]}")
echo "median: every target $m_full s, demo $m_demo s, ratio $(echo "scale=3; $m_demo / $m_full" | bc)"
