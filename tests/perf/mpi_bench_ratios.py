"""The MPI benches' helpers (analyze_mpi_bench.sh, run_mpi_bench.sh).

  mpi_bench_ratios.py strip FILE.json   the JSON without "timings", sorted (what is compared)
  mpi_bench_ratios.py medians LOG       per run, the medians of its ratios to its round's anchor
"""
import json
import re
import statistics
import sys


def strip(x):
    if isinstance(x, dict):
        return {k: strip(v) for k, v in x.items() if k != "timings"}
    if isinstance(x, list):
        return [strip(v) for v in x]
    return x


def medians(log):
    rounds, cur = [], None
    for line in open(log):
        if line.startswith("==="):
            cur = {}
            rounds.append(cur)
            continue
        m = re.match(r"(\S+) wall ([\d.]+) s, largest process (\d+) MB, all processes (\d+) MB", line)
        if m:
            cur[m[1]] = (float(m[2]), int(m[3]), int(m[4]))
    for n in [n for n in rounds[0] if n != "anchor"]:
        w = statistics.median(r[n][0] / r["anchor"][0] for r in rounds)
        p = statistics.median(r[n][1] / r["anchor"][1] for r in rounds)
        a = statistics.median(r[n][2] / r["anchor"][1] for r in rounds)
        print(f"{n}: wall {w:.2f}x, largest process {p:.2f}x, all processes {a:.2f}x the one process")


if __name__ == "__main__":
    if sys.argv[1] == "strip":
        print(json.dumps(strip(json.load(open(sys.argv[2]))), sort_keys=True))
    else:
        medians(sys.argv[2])
