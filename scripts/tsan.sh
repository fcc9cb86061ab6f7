#!/usr/bin/env bash
# ThreadSanitizer over wisp's multi-threaded parts: builds build-tsan (gcc, -DWISP_SANITIZE_THREAD=ON)
# and runs the tests that exercise threads, then the CLI on a trace of over a million events.
#   bash scripts/tsan.sh            build, run the test subset and the CLI check
#   bash scripts/tsan.sh --no-build run them on the build-tsan already there
# What runs on threads: the OTF2 reader's ranks (src/io/parallel_ranks.cpp, libotf2 with its
# pthread locking callbacks), analyze_trace's steps side by side and the near-critical and MBM
# passes (src/analysis/), derive's halves on a trace of >= 1 M events (src/trace/derive.cpp), and
# in each replay child SimGrid's actors, on the engine's thread contexts in this build (WISP_SANITIZED;
# raw contexts are not TSan-clean). Concurrent replays and the sweep and suggest worker pools are
# forked processes (each child is checked by TSan too). Not run: the [mpi] tests: wisp forks its
# replay children after MPI_Init while Open MPI's own threads run, and TSan cannot follow a child
# that then starts threads (die_after_fork; with die_after_fork=0 its thread registry aborts).
# Any report (in the test process, a child or a wisp command the tests run) is written to
# build-tsan/tsan-logs/ and fails the run. Exit 0 when every test passed with no report.
set -euo pipefail
cd "$(dirname "$0")/.."

# Catch2 2 test spec (',' = or, juxtaposition = and); -# makes each file a tag [#file].
subset='[parallel],[trace_analysis],[pag],[otf2],[hybrid],[real],[suggest]~[mpi],[sweep]~[mpi],[#scenario_run_test],MBM with its passes on several threads*'

now() { date +%s; }
if [ "${1:-}" != "--no-build" ]; then
  mkdir -p build-tsan
  log=build-tsan/build.log
  start=$(now)
  CC=gcc CXX=g++ cmake -S . -B build-tsan -DCMAKE_BUILD_TYPE=RelWithDebInfo -DWISP_SANITIZE_THREAD=ON > "$log" 2>&1 ||
    { cat "$log"; exit 1; }
  cmake --build build-tsan -j "$(nproc)" --target wisp_tests wisp_cli >> "$log" 2>&1 || { tail -50 "$log"; exit 1; }
  echo "build: $(( $(now) - start )) s"
fi

reports=build-tsan/tsan-logs
rm -rf "$reports" build-tsan/tsan-cli
mkdir -p "$reports" build-tsan/tsan-cli
# tests/fuzz/tsan.supp: false reports of libraries built without TSan, each explained there.
export TSAN_OPTIONS="halt_on_error=1:second_deadlock_stack=1:suppressions=$PWD/tests/fuzz/tsan.supp:log_path=$PWD/$reports/tsan"
status=0

start=$(now)
log=build-tsan/tsan-tests.log
(cd build-tsan/tests && ./wisp_tests -# "$subset") > "$log" 2>&1 || status=1
grep -E "^(test cases|assertions|All tests passed)" "$log" | sed "s/^/  /" || true
echo "tests: $(( $(now) - start )) s"

# derive's side-by-side steps start only at 1 M events; the analysis's threads at scale.
start=$(now)
cli=build-tsan/tsan-cli
{ build-tsan/wisp -q generate halo --dims 8x8 --steps 1000 -o "$cli/halo" --force &&
  build-tsan/wisp -q info "$cli/halo" &&
  build-tsan/wisp -q analyze "$cli/halo" --top 2; } > "$cli/cli.log" 2>&1 || { tail -20 "$cli/cli.log"; status=1; }
echo "cli (2.7 M events: generate, info, analyze): $(( $(now) - start )) s"

if compgen -G "$reports/tsan.*" > /dev/null; then
  echo "ThreadSanitizer reports:"
  for f in "$reports"/tsan.*; do echo "== $f"; head -40 "$f"; done
  status=1
fi
if [ $status -ne 0 ]; then
  echo "FAILED: see $log, $cli/cli.log and $reports/"
else
  echo "no ThreadSanitizer report"
fi
exit $status
