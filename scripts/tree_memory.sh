#!/bin/bash
# tree_memory.sh CMD...: runs CMD and reports its wall time and peak memory counted two ways:
#   tree PSS — the largest sum, over CMD and all its descendants (e.g. wisp's replay children), of
#              their proportional set sizes (shared copy-on-write pages counted once): the memory
#              the whole run needs at once;
#   max RSS  — the largest resident set of any one process (what /usr/bin/time reports).
# Sampled every 0.1 s (/proc/PID/smaps_rollup), so a peak shorter than that can be missed.
# The result goes to stderr as one line: "wall S s tree-pss KB max-rss KB".
set -u
"$@" &
root=$!
start=$(date +%s.%N)
peak_pss=0
peak_rss=0
descendants() {
  local p=$1 c
  echo "$p"
  for c in $(cat /proc/"$p"/task/*/children 2>/dev/null); do descendants "$c"; done
}
while kill -0 "$root" 2>/dev/null; do
  pss=0
  for p in $(descendants "$root"); do
    read -r v r < <(awk '/^Pss:/ {p=$2} /^Rss:/ {r=$2} END {print p+0, r+0}' /proc/"$p"/smaps_rollup 2>/dev/null)
    pss=$((pss + ${v:-0}))
    ((${r:-0} > peak_rss)) && peak_rss=${r:-0}
  done
  ((pss > peak_pss)) && peak_pss=$pss
  sleep 0.1
done
wait "$root"
rc=$?
printf 'wall %.1f s tree-pss %d KB max-rss %d KB\n' "$(echo "$(date +%s.%N) - $start" | bc)" "$peak_pss" "$peak_rss" >&2
exit $rc
