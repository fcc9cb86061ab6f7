#!/usr/bin/env bash
# Fuzzing wisp's input readers with libFuzzer (tests/fuzz): builds build-fuzz (clang, AddressSanitizer
# + UndefinedBehaviorSanitizer), makes the seed corpora, and runs every target.
#   bash scripts/fuzz.sh smoke [SECONDS]   each target SECONDS (default 20): the CI's bounded run
#   bash scripts/fuzz.sh long  [SECONDS]   each target SECONDS (default 3600), corpora kept in build-fuzz
# A target that crashes, leaks, hangs (> 10 s on one input) or throws anything but wisp::Error
# fails the run; the input is left in build-fuzz/findings/. Exit 0 when every target ran clean.
set -euo pipefail
cd "$(dirname "$0")/.."
mode="${1:-smoke}"
seconds="${2:-$([ "$mode" = long ] && echo 3600 || echo 20)}"

mkdir -p build-fuzz
log=build-fuzz/build.log
# File by file (no unity batches): every source also compiles on its own, with clang.
CC=clang CXX=clang++ cmake -S . -B build-fuzz -DCMAKE_BUILD_TYPE=RelWithDebInfo -DWISP_FUZZ=ON -DWISP_UNITY_BUILD=OFF \
  -DWISP_BUILD_TESTS=OFF > "$log" 2>&1 || { cat "$log"; exit 1; }
cmake --build build-fuzz -j "$(nproc)" --target fuzz_scenario fuzz_platform fuzz_otf2 >> "$log" 2>&1 ||
  { tail -50 "$log"; exit 1; }

corpus=build-fuzz/corpus
findings=build-fuzz/findings
mkdir -p "$corpus/scenario" "$corpus/platform" "$corpus/otf2" "$findings"
cp scenarios/*.yaml tests/regression/*.yaml "$corpus/scenario/"
cp platforms/*.xml tests/regression/*.xml "$corpus/platform/"
# OTF2 seeds: each file of a generated archive, and of the shared real traces when present, behind
# the selector byte the target reads (0 anchor, 1 global definitions, 2-3 local definitions, 4-5 events).
seed_archive() {
  local dir="$1" name="$2" i=0
  for f in traces.otf2 traces.def traces/0.def traces/1.def traces/0.evt traces/1.evt; do
    [ -f "$dir/$f" ] && { printf "\\x$(printf %02x $i)" | cat - "$dir/$f" > "$corpus/otf2/$name-$i"; }
    i=$((i + 1))
  done
}
if [ -x build/wisp ]; then
  build/wisp -q generate imbalance --ranks 2 --iterations 3 -o build-fuzz/seed-trace --force
  seed_archive build-fuzz/seed-trace generated
fi
for t in tests/data/scorep-ping-pong tests/data/other-writers/casita-10_scorep_mpi_tags; do
  [ -d "$t" ] && seed_archive "$t" "$(basename "$t")"
done

# allocator_may_return_null: a size no allocator can give (libotf2 reading a corrupt size field asks
# malloc for 2^64 bytes) returns NULL as glibc's malloc does, instead of aborting under ASan, so
# that the reader's handling of it is what gets tested. max_allocation_size_mb: one allocation
# above 2 GiB returns NULL too (a corrupt array count makes libotf2 ask for up to 16 GiB it never
# touches; glibc gives such pages lazily, but ASan would touch an eighth of it as shadow and
# libFuzzer's malloc limit would call it out of memory): what malloc does under an address-space
# limit, which the reader handles (tests/unit/hardening_test.cpp). Memory really used still meets
# -rss_limit_mb.
status=0
for target in scenario platform otf2; do
  log="$findings/$target.log"
  echo "fuzz_$target: ${seconds} s"
  dict=()  # structure-aware mutations: a dictionary of the format's tokens where there is one
  [ -f "tests/fuzz/$target.dict" ] && dict=("-dict=tests/fuzz/$target.dict")
  if ASAN_OPTIONS=detect_leaks=1:allocator_may_return_null=1:max_allocation_size_mb=2048 LSAN_OPTIONS=suppressions=tests/fuzz/lsan.supp build-fuzz/tests/fuzz/fuzz_$target "$corpus/$target" -max_total_time="$seconds" \
       "${dict[@]}" -timeout=10 -rss_limit_mb=4096 -artifact_prefix="$findings/$target-" -print_final_stats=1 > "$log" 2>&1; then
    grep -E "stat::number_of_executed_units|stat::peak_rss_mb" "$log" | sed "s/^/  /"
  else
    echo "  FAILED: see $log and $findings/$target-*"; tail -30 "$log"; status=1
  fi
done
exit $status
