#!/usr/bin/env python3
"""The PostgresCache benchmark's figures as ratios against its bare SELECT of one row.

    python3 scripts/postgres_ratios.py run1.txt [run2.txt ...]

Reads the p50 wall-clock time per operation of (a) the bare SELECT, (b) the silent hit through the
read-through copy, (c) the silent call that reads PostgreSQL and (d) the store's load alone, and
prints each of (b), (c), (d) as time relative to (a) (below 1: faster than the SELECT).
"""
import sys

from ratios import parse_table


def main(paths):
    for path in paths:
        results = parse_table(path, r"^PostgreSQL cache ")
        base = next((v for k, v in results.items() if " (a) " in k), None)
        print(f"== {path}")
        for name, ns in sorted(results.items()):
            relative = f"{ns / base:8.3f}x the SELECT" if base else ""
            print(f"  {name:<92} {ns / 1000:>9.1f} us/op  {relative}")


if __name__ == "__main__":
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    main(sys.argv[1:])
