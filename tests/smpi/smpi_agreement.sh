#!/bin/bash
# Replays wisp's SMPI time-independent export of each trace with smpirun and our replay program,
# and compares SMPI's end time with wisp's model-only replay on the same platform.
# Usage: smpi_agreement.sh WISP TI_REPLAY WORKDIR LIMIT_PERCENT [--export-collectives M] NAME=TRACE...
# Prints one row per trace; exits 1 if a difference exceeds LIMIT_PERCENT.
set -euo pipefail
wisp=$1 replay=$(realpath "$2") work=$3 limit=$4
shift 4
extra=()
if [ "${1:-}" = "--export-collectives" ]; then extra=(--export-collectives "$2"); shift 2; fi
mkdir -p "$work"
status=0
printf '%-22s %16s %16s %10s\n' trace wisp_model_s smpi_s diff_%
for item in "$@"; do
  name=${item%%=*} trace=${item#*=}
  out=$work/$name
  rm -rf "$out" && mkdir -p "$out"
  "$wisp" -q simulate "$trace" --costs model -o "$out/sim" --export smpi-ti "$out/ti" "${extra[@]}" >"$out/wisp.txt"
  wisp_s=$(awk '$1 == "total" { print $3 }' "$out/wisp.txt")
  sh "$out/ti/smpirun.sh" "$replay" >"$out/smpi.txt" 2>&1 || { echo "$name: smpirun failed:"; tail -5 "$out/smpi.txt"; exit 1; }
  smpi_s=$(awk '/wisp-ti-replay: rank/ { if ($NF > m) m = $NF } END { printf "%.9f", m }' "$out/smpi.txt")
  diff=$(awk -v a="$wisp_s" -v b="$smpi_s" 'BEGIN { printf "%+.4f", 100 * (b - a) / a }')
  printf '%-22s %16s %16s %10s\n' "$name" "$wisp_s" "$smpi_s" "$diff"
  if awk -v d="$diff" -v l="$limit" 'BEGIN { exit !(d > l || -d > l) }'; then status=1; fi
done
exit $status
