#!/usr/bin/env bash
# wisp set-up on Debian 12: installs the missing packages, builds, then runs either the main
# job on an embedded default (`demo`) or every test (`test`). Safe to run again.
set -euo pipefail
cd "$(dirname "$0")/.."

PACKAGES=(cmake g++ make pkg-config
          libsimgrid-dev libopen-trace-format2-dev otf2-tools
          libyaml-cpp-dev libpugixml-dev libspdlog-dev libfmt-dev catch2 libcli11-dev nlohmann-json3-dev
          libjs-d3   # d3, inlined into report.html at build time
          libopenmpi-dev openmpi-bin)  # mpirun wisp run SWEEP.yaml (optional: the build works without)
# The tests also fuzz the input readers (libFuzzer: clang and its runtime), check the formatting
# (clang-format) and open report.html
# in a headless browser (chromium; python3 drives it).
TEST_PACKAGES=(clang libclang-rt-14-dev clang-format chromium python3)

install_missing() {
  local missing=()
  for p in "${PACKAGES[@]}" "$@"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
  done
  [ ${#missing[@]} -eq 0 ] && return 0
  echo "setup: installing ${missing[*]}"
  local sudo=""
  if [ "$(id -u)" -ne 0 ]; then
    command -v sudo >/dev/null || { echo "setup: run as root (or install sudo) to install: ${missing[*]}" >&2; exit 1; }
    sudo="sudo"
  fi
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}"
}

# The demo builds the wisp executable only; the tests build every target (tests, benchmarks,
# examples) with warnings as errors.
build() {
  cmake -S . -B build -DCMAKE_BUILD_TYPE=Release "${@:2}"
  cmake --build build -j "$(nproc)" ${1:+--target "$1"}
}

case "${1:-}" in
  demo)
    install_missing
    build wisp_cli
    ./build/wisp run scenarios/halo-rebalance.yaml -o "${WISP_DEMO_DIR:-build/demo}" --force
    ;;
  test)
    install_missing "${TEST_PACKAGES[@]}"
    build "" -DWISP_WERROR=ON
    ctest --test-dir build --output-on-failure -j "$(nproc)"
    bash scripts/fuzz.sh smoke "${WISP_FUZZ_SECONDS:-20}"
    ;;
  *)
    echo "usage: bash scripts/setup.sh demo|test" >&2
    exit 2
    ;;
esac
