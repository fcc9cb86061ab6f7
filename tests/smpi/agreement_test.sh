#!/bin/bash
# ctest smpi_ti_agreement: wisp's SMPI time-independent exports replayed by SMPI (smpirun with our
# replay program, compiled by smpicc against Debian's SimGrid) end within 0.1 % of wisp's own
# model-only replay on the same platform: the generators (collectives on MPI_COMM_WORLD as SMPI's
# actions and as wisp's messages; mpmd's on sub-communicators as messages), the Score-P ping-pong
# and two real traces.
# Usage: agreement_test.sh WISP TI_REPLAY WORKDIR DATA_DIR
set -euo pipefail
wisp=$1 replay=$2 work=$3 data=$4
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
