#!/bin/bash
# ctest smpi_ti_agreement: wisp's SMPI time-independent exports replayed by SMPI (smpirun with our
# replay program, compiled by smpicc against Debian's SimGrid) end within 0.1 % of wisp's own
# model-only replay on the same platform: the generators (collectives on MPI_COMM_WORLD as SMPI's
# actions and as wisp's messages; mpmd's on sub-communicators as messages), the Score-P ping-pong
# and two real traces; and a scenario's `export:` (scenarios/wavefront-export.yaml) against the
# scenario runtime of `wisp run`.
# Usage: agreement_test.sh WISP TI_REPLAY WORKDIR SOURCE_DIR
set -euo pipefail
wisp=$1 replay=$(realpath "$2") work=$3 data=$4/tests/data scenarios=$4/scenarios
here=$(dirname "$0")
rm -rf "$work" && mkdir -p "$work"
"$wisp" -q generate halo --steps 20 -o "$work/halo"
"$wisp" -q generate wavefront --px 3 --py 2 --iterations 4 -o "$work/wavefront"
"$wisp" -q generate imbalance --ranks 8 --iterations 40 --mode dynamic -o "$work/imbalance"
"$wisp" -q generate mpmd --particle-ranks 3 --mesh-ranks 5 --steps 10 -o "$work/mpmd"
generated=(halo="$work/halo" wavefront="$work/wavefront" imbalance="$work/imbalance" mpmd="$work/mpmd")
bash "$here/smpi_agreement.sh" "$wisp" "$replay" "$work/actions" 0.1 "${generated[@]}" \
  pingpong="$data/scorep-ping-pong" sweep3d="$data/apps/sweep3d_50c_6r" tags="$data/other-writers/casita-10_scorep_mpi_tags"
bash "$here/smpi_agreement.sh" "$wisp" "$replay" "$work/messages" 0.1 --export-collectives messages "${generated[@]}"

"$wisp" -q run "$scenarios/wavefront-export.yaml" -o "$work/scenario" >/dev/null
wisp_s=$(awk '$1 == "runtime" { for (i = 1; i < NF; i++) if ($i == "scenario") print $(i + 1) }' "$work/scenario/report.txt")
sh "$work/scenario/ti/smpirun.sh" "$replay" >"$work/scenario/smpi.txt" 2>&1
smpi_s=$(awk '/wisp-ti-replay: rank/ { if ($NF > m) m = $NF } END { printf "%.9f", m }' "$work/scenario/smpi.txt")
echo "scenario wavefront-export: wisp run $wisp_s s, SMPI $smpi_s s"
awk -v a="$wisp_s" -v b="$smpi_s" 'BEGIN { d = 100 * (b - a) / a; exit !(d < 0.1 && d > -0.1) }'
