# Shell helpers of the benchmark scripts (sourced, not run).

# Wall seconds of one command (its standard output discarded).
wall() {
  local t0 t1
  t0=$(date +%s.%N)
  "$@" > /dev/null
  t1=$(date +%s.%N)
  echo "$t1 - $t0" | bc -l
}
