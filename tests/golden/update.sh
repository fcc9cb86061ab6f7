#!/usr/bin/env bash
# Regenerates the golden outputs: report.txt of every bundled scenario (scenarios/*.yaml) as
# `wisp run` writes it, with this checkout's path written as <source>. Run after a change of
# behaviour that is meant, then review the diff:
#   bash tests/golden/update.sh [build/wisp]
set -euo pipefail
cd "$(dirname "$0")/../.."
wisp="$(realpath "${1:-build/wisp}")"
work=$(mktemp -d); trap 'rm -rf "$work"' EXIT
for scenario in scenarios/*.yaml; do
  name=$(basename "$scenario" .yaml)
  "$wisp" -q run "$PWD/$scenario" -o "$work/$name" --jobs 2 > /dev/null
  sed "s#$PWD#<source>#g" "$work/$name/report.txt" > "tests/golden/$name.txt"
  echo "tests/golden/$name.txt"
done
