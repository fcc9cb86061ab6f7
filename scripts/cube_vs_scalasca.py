#!/usr/bin/env python3
"""wisp's cube as CubeLib shows it against Scalasca's result for the same trace, entry by entry.

    python3 scripts/cube_vs_scalasca.py CUBELIB_BIN_DIR analysis.cubex scalasca.tsv.gz

Reads the cube through CubeLib's own cube_dump (call tree from `-w calltree`, values from `-m all -x incl
-z excl`: metric-inclusive, call-path exclusive, the view of the tests/data dumps) and compares every
metric both hold, per call path and rank (master threads), within 0.1 % or 1 ns. cube_dump prints 6
significant digits, so a difference below 1e-5 relative is not one. Exit 1 if any entry differs.
"""
import csv
import gzip
import re
import subprocess
import sys


def cube_dump(bin_dir, *args):
    return subprocess.run([bin_dir + "/cube_dump", *args], capture_output=True, text=True, check=True).stdout


def call_paths(bin_dir, cube):
    """cnode id -> call path ("root/child/..."), from the indented tree of cube_dump -w calltree."""
    paths, stack, in_tree = {}, [], False
    for line in cube_dump(bin_dir, "-w", "calltree", cube).splitlines():
        in_tree |= "CALL TREE" in line
        if not in_tree or "  [ ( id=" not in line:
            continue
        head = line[: line.index("  [ ( id=")]
        column, name = (head.index("|-"), head[head.index("|-") + 2 :]) if "|-" in head else (-1, head.strip())
        while stack and stack[-1][0] >= column:
            stack.pop()
        stack.append((column, name))
        paths[int(re.search(r"\( id=(\d+),", line).group(1))] = "/".join(n for _, n in stack)
    return paths


def cube_values(bin_dir, cube):
    paths = call_paths(bin_dir, cube)
    rows = list(csv.reader(cube_dump(bin_dir, "-m", "all", "-x", "incl", "-z", "excl", "-s", "csv2", cube).splitlines()))
    values = {}
    for row in rows[1:]:
        for name, value in zip(rows[0][2:], row[2:]):
            values[(name, paths[int(row[0])], int(row[1]))] = float(value)
    return values


def scalasca_values(tsv):
    values = {}
    with gzip.open(tsv, "rt") as f:
        for line in f:
            metric, _, path, rank, thread, value = line.rstrip("\n").split("\t")
            if metric != "metric" and thread == "0":
                values[(metric, path, int(rank))] = float(value)
    return values


def differs(a, b):
    return abs(a - b) > max(1e-3 * abs(b), 1e-9) and abs(a - b) > 1e-5 * max(abs(a), abs(b))


def main():
    bin_dir, cube, tsv = sys.argv[1:4]
    wisp, scalasca = cube_values(bin_dir, cube), scalasca_values(tsv)
    common = sorted({k[0] for k in wisp} & {k[0] for k in scalasca})
    entries, different = 0, {}
    for metric in common:
        for key in {k for k in wisp if k[0] == metric} | {k for k in scalasca if k[0] == metric}:
            entries += 1
            if differs(wisp.get(key, 0.0), scalasca.get(key, 0.0)):
                different.setdefault(metric, []).append(key)
    print(f"{len(common)} metrics both hold, {entries} entries: {len(common) - len(different)} metrics equal everywhere")
    for metric, keys in sorted(different.items()):
        print(f"  {metric}: {len(keys)} entries differ")
    sys.exit(1 if different else 0)


if __name__ == "__main__":
    main()
