#!/usr/bin/env python3
"""The AppTokenAcquisition benchmark's hits as multiples of the call floor measured in the same run.

    (cd Benchmarks && swift package --disable-sandbox benchmark --no-progress --target AppTokenAcquisition) > app-1.txt
    python3 Benchmarks/scripts/app_token_ratios.py app-1.txt [app-2.txt ...]

For each run: the p50 per call of every `acquireTokenForClient cache hit (...)` benchmark and of
`Call floor (...)` (an async method of the same shape that looks nothing up: docs/performance.md),
and each hit's time over the floor's. With several runs, the median and range of each ratio.

Exit status: 1 when the file cache's hit costs more than 5x the call floor (issue 43), at 1 and at
1,000 tenants — in the one run given, or as the median of several.
"""
import re
import statistics
import sys

UNIT = {"ns": 1e-3, "μs": 1.0, "us": 1.0, "ms": 1e3, "s": 1e6}
# Most times the floor a hit may cost, by cache kind.
TARGETS = {"file cache": 5.0}


def parse(path):
    """Benchmark name -> p50 wall clock per call in µs."""
    results, current = {}, None
    with open(path, encoding="utf-8") as handle:
        for line in handle:
            line = line.rstrip("\n")
            if line.startswith("acquireTokenForClient ") or line.startswith("Call floor"):
                current = line.strip()
            elif re.match(r"^[A-Za-z]", line):
                current = None
            elif current and line.startswith("│ Time (wall clock)"):
                cells = [c.strip() for c in line.strip("│").split("│")]
                unit = re.search(r"\((ns|μs|us|ms|s)\)", cells[0]).group(1)
                results[current] = float(cells[3]) * UNIT[unit]
    return results


def ratios(results):
    """(kind, tenants) -> hit p50 / floor p50."""
    floor = next((us for name, us in results.items() if name.startswith("Call floor")), None)
    out = {}
    if not floor:
        return out
    for name, us in results.items():
        match = re.match(r"acquireTokenForClient cache hit \((.+)\), (\d+) tenants", name)
        if match:
            out[(match.group(1), int(match.group(2)))] = us / floor
    return out


def main(paths):
    if not paths:
        sys.exit(__doc__)
    per_run = []
    for path in paths:
        results = parse(path)
        per_run.append(ratios(results))
        print(f"== {path}")
        for name, us in sorted(results.items()):
            print(f"  {name:<62} {us * 1000:>9.0f} ns")
        for (kind, tenants), ratio in sorted(per_run[-1].items()):
            target = f"(target <= {TARGETS[kind]:.1f}x)" if kind in TARGETS else ""
            print(f"  {kind}, {tenants} tenants: {ratio:.2f}x the call floor {target}")
    missed = []
    keys = sorted(set().union(*per_run))
    if len(per_run) > 1:
        print("== median across runs")
    for key in keys:
        values = [run[key] for run in per_run if key in run]
        median = statistics.median(values)
        if len(per_run) > 1:
            print(f"  {key[0]}, {key[1]} tenants: {median:.2f}x the call floor, range {min(values):.2f}-{max(values):.2f}")
        if key[0] in TARGETS and median > TARGETS[key[0]]:
            missed.append(f"{key[0]}, {key[1]} tenants: {median:.2f}x the call floor > {TARGETS[key[0]]:.1f}x")
    if not keys:
        missed.append("no hit and call floor figures found")
    for miss in missed:
        print(f"TARGET NOT MET: {miss}")
    return 1 if missed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
