#!/usr/bin/env python3
"""How much the landscapes of one space share their best configurations: for each landscape of
bench/autotune_landscapes.sh, the fixed set of m configurations chosen on the OTHER landscapes of
its space alone (greedily, each next the one within 3 % of the best on most of those not yet hit,
until all are hit), and whether that set holds one within 3 % of this landscape's best. m is 5, 10
and 15 % of the space; the last column, the most such a set needed. No search and no noise: what knowing the other sizes (not this one) gives a fixed guess.
  usage: bench/autotune_shared_optima.py   (from the repository root)"""
import collections
import csv
import math
import os
import subprocess

NOT_PARAMETERS = {"order", "phase", "cached", "failure", "value", "cv", "samples", "runs", "seconds", "build_seconds", "detail"}


def within_3_percent(table):
    values = {}
    with open(table) as f:
        for row in csv.DictReader(f):
            if row["failure"] == "none":
                values[tuple(v for k, v in row.items() if k not in NOT_PARAMETERS)] = float(row["value"])
    best = min(values.values())
    return {c for c, v in values.items() if v <= 1.03 * best}, len(values)


def main():
    # NAME=SPACE:TABLE, as the benchmark gives them to rpl-autotune-landscapes.
    listed = subprocess.run(["bash", "bench/autotune_landscapes.sh"], env={**os.environ, "LIST_LANDSCAPES": "1"},
                            capture_output=True, text=True, check=True).stdout.split()
    spaces = collections.defaultdict(list)
    for argument in listed:
        name, rest = argument.split("=", 1)
        space, table = rest.split(":", 1)
        spaces[space].append((name, *within_3_percent(table)))
    print("space                                          landscapes  budget     m  hit by the others' set  its size (most)")
    for space, landscapes in spaces.items():
        if len(landscapes) < 2:
            continue
        size = max(n for _, _, n in landscapes)
        for percent in (5, 10, 15):
            m = math.ceil(percent / 100 * size)
            hit, used = 0, 0
            for name, best, _ in landscapes:
                left = [b for other, b, _ in landscapes if other != name]
                chosen = set()
                while len(chosen) < m and left:
                    counts = collections.Counter(c for b in left for c in b)
                    pick = max(sorted(counts), key=lambda c: counts[c])
                    chosen.add(pick)
                    left = [b for b in left if pick not in b]
                hit += bool(best & chosen)
                used = max(used, len(chosen))
            print(f"{space:46s} {len(landscapes):10d}  {percent:4d} %  {m:4d}  {hit:6d} of {len(landscapes):<13d}  {used}")


if __name__ == "__main__":
    main()
