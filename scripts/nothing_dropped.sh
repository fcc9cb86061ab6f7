#!/usr/bin/env bash
# Nothing dropped (issue 35's figure): for every OTF2 archive under TRACES_DIR (default ../shared/traces),
# the records per location and record name that otf2-print counts, and the attribute lists it prints
# (record kind, location and fields without time or ids | the attributes), must be equal in
#  - the written identity (`wisp simulate TRACE -o DIR`), and
#  - a scenario trace (`wisp run`: the computation of rank 0 at half speed; where a rank has no user
#    region to scale, a network twice as slow instead).
# Prints one line per archive; exits non-zero if any differs. Usage: scripts/nothing_dropped.sh [TRACES_DIR] [WISP]
set -uo pipefail
dir=${1:-../shared/traces}
wisp=$(realpath "${2:-build/wisp}")
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
counts() { otf2-print "$1" 2>/dev/null | awk '$2 ~ /^[0-9]+$/ && $3 ~ /^[0-9]+$/ {c[$1" "$2]++} END {for (k in c) print k, c[k]}' | sort; }
attributes() {
  otf2-print "$1" 2>/dev/null | awk '
    /ADDITIONAL ATTRIBUTES/ {sub(/^ +/, ""); print kind, loc, rest, "|", $0; next}
    {kind = $1; loc = $2; $1 = $2 = $3 = ""; rest = $0; gsub(/ <[0-9]+>/, "", rest)}' | sort | uniq -c
}
same() { diff <(counts "$1") <(counts "$2") >/dev/null && diff <(attributes "$1") <(attributes "$2") >/dev/null; }
status=0
while IFS= read -r anchor; do
  trace=$(dirname "$anchor")
  records=$(counts "$anchor" | awk '{n += $3} END {print n}')
  "$wisp" simulate "$trace" -o "$work/id" --force >"$work/id.log" 2>&1 || { echo "$trace: simulate failed"; status=1; continue; }
  identity=$(same "$anchor" "$work/id/traces.otf2" && echo equal || echo DIFFERENT)
  printf 'wisp: 1\nname: half-rank-0\ntrace: %s\ntransforms:\n  - scale: {ranks: "0", factor: 0.5}\n' "$(realpath "$trace")" >"$work/s.yaml"
  if ! "$wisp" run "$work/s.yaml" -o "$work/run" --force --no-interval >"$work/run.log" 2>&1; then
    printf 'wisp: 1\nname: slow-network\ntrace: %s\ntransforms:\n  - platform: {bandwidth_factor: 0.5, latency_factor: 2}\n' "$(realpath "$trace")" >"$work/s.yaml"
    "$wisp" run "$work/s.yaml" -o "$work/run" --force --no-interval >"$work/run.log" 2>&1 || { echo "$trace: run failed"; status=1; continue; }
  fi
  scenario=$(same "$anchor" "$work/run/scenario-trace/traces.otf2" && echo equal || echo DIFFERENT)
  warnings=$(cat "$work/id.log" "$work/run.log" | grep -c "lacks records")
  echo "$trace: $records records; identity $identity, scenario $scenario; $warnings 'lacks records' warnings"
  [[ $identity == equal && $scenario == equal ]] || status=1
done < <(find "$dir" -name '*.otf2' | sort)
exit $status
