#!/usr/bin/env python3
"""Where a replay spends its time, by groups of symbols (tests/perf/README.md, "Where a model-only
replay spends its time"): reads `perf report` of a `perf record` of `wisp simulate`, keeps the
process with the most SimGrid samples (the simulation's child) and sums its samples by group.

    perf record -F 1999 -o perf.data build/wisp -v simulate TRACE --platform free.xml --costs model -o OUT
    tests/perf/perf_groups.py perf.data
"""
import re
import subprocess
import sys
from collections import defaultdict

# (group, predicate on (dso, symbol)), first match wins; the order of the README's table.
GROUPS = [
    ("SimGrid activities (comms, sleeps), their reference counts",
     lambda d, s: "simgrid" in d and re.search(r"activity::|s4u::Comm|s4u::Activity|intrusive_ptr|Mailbox", s)),
    ("SimGrid resource models, actions, action heaps",
     lambda d, s: "simgrid" in d and re.search(r"resource::|Action|NetworkCm02|Cpu|heap|Model::", s)),
    ("SimGrid max-min solver (`lmm::`)", lambda d, s: "simgrid" in d and "lmm::" in s),
    ("SimGrid engine loop (`EngineImpl`)", lambda d, s: "simgrid" in d and "EngineImpl" in s),
    ("SimGrid context switches and scheduling",
     lambda d, s: "simgrid" in d and re.search(r"context|Context|swapcontext|yield|schedule", s)),
    ("SimGrid simcalls", lambda d, s: "simgrid" in d and re.search(r"[Ss]imcall", s)),
    ("SimGrid, the rest", lambda d, s: "simgrid" in d),
    ("wisp's allocation cache", lambda d, s: "wisp" in d and re.search(r"cached_|allocation_cache|operator new|operator delete", s)),
    ("wisp's replay (actors, bookkeeping, the answer)", lambda d, s: "wisp" in d),
    ("libc, libstdc++, ld.so, kernel", lambda d, s: True),
]


def report(data, pid=None):
    cmd = ["perf", "report", "-i", data, "--no-children", "-g", "none", "--stdio", "-F", "overhead,pid,dso,sym"]
    if pid:
        cmd += ["--pid", pid]
    out = subprocess.run(cmd, capture_output=True, text=True, check=True).stdout
    rows = []
    for line in out.splitlines():
        m = re.match(r"\s*([\d.]+)%\s+(\d+):\S+\s+(\S+)\s+\[.\]\s+(.*)", line) or \
            re.match(r"\s*([\d.]+)%\s+(\d+):\S+\s+(\S+)\s+\[k\]\s+(.*)", line)
        if m:
            rows.append((float(m.group(1)), m.group(2), m.group(3), m.group(4).strip()))
    return rows


def main():
    rows = report(sys.argv[1])
    simgrid = defaultdict(float)
    for share, pid, dso, _ in rows:
        if "simgrid" in dso:
            simgrid[pid] += share
    child = max(simgrid, key=simgrid.get)
    mine = [r for r in rows if r[1] == child]
    total = sum(r[0] for r in mine)
    sums = defaultdict(float)
    for share, _, dso, sym in mine:
        for name, match in GROUPS:
            if match(dso, sym):
                sums[name] += share
                break
    print(f"process {child}: {total:.1f} % of all samples")
    for name, _ in GROUPS:
        print(f"| {name} | {100 * sums[name] / total:.1f} % |")
    sg = sum(v for k, v in sums.items() if k.startswith("SimGrid"))
    print(f"| **SimGrid in all** | **{100 * sg / total:.1f} %** |")


if __name__ == "__main__":
    main()
