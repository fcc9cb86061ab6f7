#!/usr/bin/env bash
# Every single-bit flip of one file of an OTF2 archive, each read by `wisp info` (the adversarial
# check): counts of clean errors (exit 1), accepted inputs (exit 0), crashes (signal)
# and hangs (over 20 s), and the slowest run.
#   bash tests/fuzz/bitflip.sh ARCHIVE_DIR FILE [WISP]    e.g. tests/data/scorep-ping-pong traces.otf2
set -uo pipefail
archive="$1"; file="$2"; wisp="${3:-build/wisp}"
work=$(mktemp -d); trap 'rm -rf "$work"' EXIT
cp -r "$archive" "$work/a"
target="$work/a/$file"; original="$work/original"; cp "$target" "$original"
size=$(stat -c %s "$original")
ok=0; clean=0; crash=0; hang=0; other=0; slowest=0
for ((byte = 0; byte < size; ++byte)); do
  for bit in 0 1 2 3 4 5 6 7; do
    python3 -c "import sys; b=bytearray(open(sys.argv[1],'rb').read()); b[$byte]^=1<<$bit; open(sys.argv[2],'wb').write(b)" "$original" "$target"
    start=$(date +%s%N)
    timeout -s KILL 20 "$wisp" info "$work/a" > /dev/null 2> "$work/err"; rc=$?
    ms=$(( ($(date +%s%N) - start) / 1000000 )); (( ms > slowest )) && slowest=$ms
    if (( rc == 0 )); then ok=$((ok + 1))
    elif (( rc == 1 || rc == 2 )) && [ "$(wc -l < "$work/err")" -le 1 ]; then clean=$((clean + 1))
    elif (( rc == 137 )); then hang=$((hang + 1)); echo "hang: byte $byte bit $bit"
    elif (( rc > 128 )); then crash=$((crash + 1)); echo "crash: byte $byte bit $bit (exit $rc)"
    else other=$((other + 1)); echo "exit $rc: byte $byte bit $bit: $(head -c 200 "$work/err")"
    fi
  done
done
cp "$original" "$target"
echo "$file: $((size * 8)) flips: $clean clean errors, $ok accepted, $crash crashes, $hang hangs, $other other; slowest ${slowest} ms"
