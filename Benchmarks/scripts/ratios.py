#!/usr/bin/env python3
"""Summarize one or more text outputs of `swift package benchmark` for JOSEVerification.

    swift package --disable-sandbox benchmark --no-progress | tee run1.txt
    python3 scripts/ratios.py run1.txt [run2.txt ...]

For each run it reads the p50 wall-clock time per operation of every benchmark,
prints operations per second, and the ratios the performance targets are set on:
(a)/(b) per algorithm (MSALJOSE vs bare OpenSSL) and (a)/(c) (MSALJOSE vs jwt-kit),
and for the access token (f)/(b), (f)/(c), the public API's (f')/(b), (f')/(c), and
the public API with its validated-token cache (f")/(b), (f")/(c), and for the proofs of
possession bare OpenSSL signing over our proof (s)/(p), and for a DPoP-bound token's
validation ((b) a bearer validation of a token of the same size + (o) OpenSSL's bare
verification of the proof) over (v) the DPoP validation, "(b+o)/v",
as throughput ratios (higher is better for MSALJOSE). With several runs it also
prints the median of each figure across runs.

Exit status: 1 when a figure is below the target docs/performance.md states for it — in the one
run given, or as the median of several. With several runs, a figure whose median holds but which
is below its target in some run is printed as "BELOW TARGET IN k OF n RUNS" (exit status 0). The targets: (a)/(b) >= 0.90 for RS256 and ES256, RS256
(a)/(c) >= 1.25, every access-token figure >= 0.90 against OpenSSL and >= 1.25 against jwt-kit,
and issue 40's 1/1.2 for a proof's s/p (making it costs at most 1.2x OpenSSL's bare signature) and
the DPoP validation's (b+o)/v (at most 1.2x a bearer validation plus the bare verification).
ES256 (a)/(c) is printed without a target (no longer one since issue 20).
"""
import re
import statistics
import sys

TARGETS = {
    ("RS256", "a/b"): 0.90,
    ("ES256", "a/b"): 0.90,
    ("RS256", "a/c"): 1.25,
    ("Access token RS256", "f/b"): 0.90,
    ("Access token RS256", "f/c"): 1.25,
    ("Access token RS256", "f'/b"): 0.90,
    ("Access token RS256", "f'/c"): 1.25,
    ("Access token RS256", 'f"/b'): 0.90,
    ("Access token RS256", 'f"/c'): 1.25,
    # Proofs: bare OpenSSL signing time / proof time, so >= 1/1.2 means the proof costs at most 1.2x.
    ("Proof DPoP ES256", "s/p"): 1 / 1.2,
    ("Proof SHR RS256", "s/p"): 1 / 1.2,
    # DPoP-bound token: (bearer validation + bare proof verify) time / DPoP validation time, so
    # >= 1/1.2 means validating the DPoP token and its proof costs at most 1.2x (b + o).
    ("DPoP validation ES256", "(b+o)/v"): 1 / 1.2,
}
# Every target is checked: a figure below its target makes the script exit non-zero.
ENFORCED = set(TARGETS)


def parse_table(path, pattern):
    """Benchmark name (those matching the regular expression `pattern`) -> p50 wall-clock
    nanoseconds per operation, from a text output of `swift package benchmark`."""
    results, current = {}, None
    with open(path, encoding="utf-8") as handle:
        for line in handle:
            line = line.rstrip("\n")
            if re.match(pattern, line):
                current = line.strip()
            elif re.match(r"^[A-Za-z]", line):
                current = None  # another benchmark's table (or other text) follows
            elif current and line.startswith("│ Time (wall clock)"):
                cells = [c.strip() for c in line.strip("│").split("│")]
                unit = re.search(r"\((ns|μs|us|ms)\)", cells[0]).group(1)
                scale = {"ns": 1, "μs": 1e3, "us": 1e3, "ms": 1e6}[unit]
                results[current] = float(cells[3]) * scale  # columns: name, p0, p25, p50, ...
    return results


def parse(path):
    """JOSEVerification's benchmark name -> p50 wall-clock nanoseconds per operation."""
    return parse_table(path, r"^(RS256|ES256|Claims JSON|Access token RS256|Proof DPoP ES256|Proof SHR RS256|DPoP validation ES256) ")


def find(results, prefix, tag):
    for name, value in results.items():
        if name.startswith(prefix) and f" {tag} " in name:
            return value
    return None


def figures(results):
    out = {}
    for alg in ("RS256", "ES256"):
        a, b, c = (find(results, alg, t) for t in ("(a)", "(b)", "(c)"))
        if a and b:
            out[(alg, "a/b")] = b / a  # throughput ratio = inverse time ratio
        if a and c:
            out[(alg, "a/c")] = c / a
    prefix = "Access token RS256"
    b, c = find(results, prefix, "(b)"), find(results, prefix, "(c)")
    for tag in ("f", "f'", 'f"'):
        f = find(results, prefix, f"({tag})")
        if f and b:
            out[(prefix, f"{tag}/b")] = b / f
        if f and c:
            out[(prefix, f"{tag}/c")] = c / f
    for prefix in ("Proof DPoP ES256", "Proof SHR RS256"):
        p, s = find(results, prefix, "(p)"), find(results, prefix, "(s)")
        if p and s:
            out[(prefix, "s/p")] = s / p
    prefix = "DPoP validation ES256"
    v, b, o = (find(results, prefix, t) for t in ("(v)", "(b)", "(o)"))
    if v and b and o:
        out[(prefix, "(b+o)/v")] = (b + o) / v
    return out


def target_text(key):
    return f"(target >= {TARGETS[key]:.2f})" if key in TARGETS else "(no target)"


def main(paths):
    """Prints the figures; returns 1 when an ENFORCED figure is below its target."""
    runs = [parse(p) for p in paths]
    for path, results in zip(paths, runs):
        print(f"== {path}")
        for name, ns in sorted(results.items()):
            print(f"  {name:<66} {ns:>10.0f} ns/op {1e9 / ns:>12,.0f} op/s")
        for key, ratio in figures(results).items():
            print(f"  {key[0]} {key[1]} = {ratio:.3f}  {target_text(key)}")
    per_run = [figures(r) for r in runs]
    missed = []
    for key in ENFORCED:
        values = [f[key] for f in per_run if key in f]
        if values and statistics.median(values) < TARGETS[key]:
            missed.append(f"{key[0]} {key[1]} = {statistics.median(values):.3f} < {TARGETS[key]:.3f}")
    if len(runs) > 1:
        print("== median across runs")
        names = sorted(set().union(*runs))
        for name in names:
            values = [r[name] for r in runs if name in r]
            ns = statistics.median(values)
            print(f"  {name:<66} {ns:>10.0f} ns/op {1e9 / ns:>12,.0f} op/s  (runs: {', '.join(f'{v:.0f}' for v in values)})")
        for key in sorted(set().union(*per_run)):
            values = [f[key] for f in per_run if key in f]
            if values:
                print(f"  {key[0]} {key[1]} = {statistics.median(values):.3f} median, "
                      f"range {min(values):.3f}-{max(values):.3f}  {target_text(key)}")
    # "Met in three runs" is how an issue counts a target: a run below it is reported even when the
    # median holds (it does not change the exit status), with three decimals, as 0.899 prints 0.90.
    for key in sorted(TARGETS):
        values = [f[key] for f in per_run if key in f]
        below = [v for v in values if v < TARGETS[key]]
        median_missed = key in ENFORCED and statistics.median(values or [0]) < TARGETS[key]
        if len(values) > 1 and below and not median_missed:
            print(f"BELOW TARGET IN {len(below)} OF {len(values)} RUNS: {key[0]} {key[1]} = "
                  f"{', '.join(f'{v:.3f}' for v in values)} (target >= {TARGETS[key]:.3f})")
    for miss in missed:
        print(f"TARGET NOT MET: {miss}")
    return 1 if missed else 0


if __name__ == "__main__":
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    sys.exit(main(sys.argv[1:]))
