#!/usr/bin/env bash
# Whole-program fuzzing of `wisp run` (read + replay + analyses + report writing) on mutated OTF2
# archives. Each of N executions copies the archive, mutates one of its OTF2 files (*.otf2, *.def,
# *.evt) chosen at random — 1 to 8 of: bit flips, bytes set to 0/0xff/0x7f/0x80, chunk duplication
# or deletion, truncation; deterministic from SEED and the execution's index — writes a scenario
# next to it (`scale` rank 0's computation by 0.5, which runs on any unmutated archive) and runs
#   timeout -s KILL 20 WISP -q run scenario.yaml -o OUT --force
# Classification: exit 0 = accepted (report.json, report.txt and report.html must be written, else
# "other"); exit 1/2 whose stderr is one `wisp: error:` line (besides `[wisp] warning:` log lines,
# which -q keeps) = clean error; killed or over 10 s = hang; another signal = crash; anything else
# = other (the first 200 characters of its stderr without the warnings are printed). Prints the
# counts and the slowest run with its input.
# Crashing, hanging and "other" inputs are kept in FINDINGS/<archive>-s<SEED>-<i>-<kind>/ (the
# mutated archive `a/`, scenario.yaml, stderr, the mutations), ready for `wisp run scenario.yaml`.
#   bash tests/fuzz/mutate_run.sh ARCHIVE_DIR N SEED [WISP] [FINDINGS]
#   e.g. bash tests/fuzz/mutate_run.sh tests/data/scorep-ping-pong 1000 1 build/wisp
# FINDINGS defaults to $WISP_FUZZ_FINDINGS, else build/fuzz-findings. MUTATE_ONLY=i runs only
# execution i of that SEED (to reproduce one input, e.g. the slowest).
set -uo pipefail
archive="$1"; count="$2"; seed="$3"; wisp="$(realpath "${4:-build/wisp}")"
findings="${5:-${WISP_FUZZ_FINDINGS:-build/fuzz-findings}}"
work=$(mktemp -d); trap 'rm -rf "$work"' EXIT
export TMPDIR="$work"
name=$(basename "$(realpath "$archive")")

# mutate.py ARCHIVE RUN_DIR KEY: copies ARCHIVE to RUN_DIR/a, mutates one file, writes
# RUN_DIR/scenario.yaml, prints "file: mutations".
cat > "$work/mutate.py" << 'EOF'
import os, random, shutil, sys
src, run, key = sys.argv[1], sys.argv[2], sys.argv[3]
rng = random.Random(key)
shutil.rmtree(run, ignore_errors=True)
shutil.copytree(src, os.path.join(run, "a"))
files = sorted(os.path.relpath(os.path.join(d, f), src) for d, _, fs in os.walk(src)
               for f in fs if f.endswith((".otf2", ".def", ".evt")))
name = rng.choice(files)
path = os.path.join(run, "a", name)
os.chmod(path, 0o644)
b = bytearray(open(path, "rb").read())
ops = []
for _ in range(rng.choice([1, 1, 1, 2, 2, 3, 4, 8])):
    kind = rng.choices(["flip", "set", "dup", "del", "trunc"], [40, 35, 10, 10, 5])[0]
    n = len(b)
    if n == 0:
        break
    p = rng.randrange(n)
    if kind == "flip":
        bit = rng.randrange(8); b[p] ^= 1 << bit; ops.append(f"flip {p}.{bit}")
    elif kind == "set":
        v = rng.choice([0, 0xff, 0x7f, 0x80]); b[p] = v; ops.append(f"set {p}={v:#x}")
    elif kind == "dup":
        k = rng.randint(1, min(64, n - p)); b[p:p] = b[p:p + k]; ops.append(f"dup {p}+{k}")
    elif kind == "del":
        k = rng.randint(1, min(64, n - p)); del b[p:p + k]; ops.append(f"del {p}+{k}")
    else:
        del b[p:]; ops.append(f"truncate {p}")
open(path, "wb").write(b)
with open(os.path.join(run, "scenario.yaml"), "w") as f:
    f.write('wisp: 1\ntrace: a\ntransforms:\n  - scale: {ranks: "0", factor: 0.5}\n')
print(f"{name}: {', '.join(ops)}")
EOF

keep() {  # keep KIND I: the input of execution I in the findings
  local dir="$findings/$name-s$seed-$1-$2"
  mkdir -p "$findings"; rm -rf "$dir"; cp -r "$work/run" "$dir"
  cp "$work/err" "$dir/stderr"; echo "$what" > "$dir/mutations"
}

ok=0; clean=0; crash=0; hang=0; other=0; slowest=0; slowest_input=""
first=0; last=$((count - 1))
[ -n "${MUTATE_ONLY:-}" ] && first=$MUTATE_ONLY && last=$MUTATE_ONLY
for ((i = first; i <= last; ++i)); do
  what=$(python3 "$work/mutate.py" "$archive" "$work/run" "$seed-$i")
  rm -rf "$work/out"
  start=$(date +%s%N)
  timeout -s KILL 20 "$wisp" -q run "$work/run/scenario.yaml" -o "$work/out" --force > /dev/null 2> "$work/err"; rc=$?
  ms=$(( ($(date +%s%N) - start) / 1000000 ))
  (( ms > slowest )) && slowest=$ms && slowest_input="#$i $what (exit $rc)"
  message=$(grep -v '^\[wisp\] warning: ' "$work/err")
  if (( rc == 137 || ms > 10000 )); then hang=$((hang + 1)); echo "hang ($ms ms, exit $rc): #$i $what"; keep hang "$i"
  elif (( rc == 0 )); then
    if [ -s "$work/out/report.json" ] && [ -s "$work/out/report.txt" ] && [ -s "$work/out/report.html" ]; then ok=$((ok + 1))
    else other=$((other + 1)); echo "exit 0 without a full report: #$i $what"; keep other "$i"; fi
  elif (( rc == 1 || rc == 2 )) && [ "$(printf '%s\n' "$message" | wc -l)" -eq 1 ] && [[ "$message" == "wisp: error: "* ]]; then
    clean=$((clean + 1))
  elif (( rc > 128 )); then crash=$((crash + 1)); echo "crash (exit $rc): #$i $what"; keep crash "$i"
  else other=$((other + 1)); echo "exit $rc: #$i $what: ${message:0:200}"; keep other "$i"
  fi
done
echo "$name seed $seed: $((last - first + 1)) runs: $ok accepted, $clean clean errors, $crash crashes, $hang hangs, $other other; slowest ${slowest} ms: $slowest_input"
