#!/usr/bin/env python3
"""Summarize one or more text outputs of the ProviderLoad benchmarks.

    swift package --disable-sandbox benchmark --no-progress --target ProviderLoad > load1.txt
    python3 scripts/load_ratios.py load1.txt [load2.txt ...]

For each run it prints, per benchmark, the p50 and p99 latency per call (ms) and the p50 token
requests per second, then the ratios at each concurrency N:

- SDK/raw: the SDK's forced refresh (memory cache) against the same refresh POSTed with a bare
  URLSession, in the same process against the same emulator — the SDK's overhead (latency: lower
  is better for the SDK; requests/s: higher is better);
- SDK/transport: the same against the SDK's default transport (MSALCurlTransport) alone;
- curl/URLSession transport: the default transport alone against MSALURLSessionTransport alone;
- file/memory: the SDK with the file cache against the SDK with the memory cache;
- single-flight: the latency of N callers sharing one refresh against one caller's refresh.

With several runs it also prints the median of each ratio and its range over the runs.
"""
import re
import statistics
import sys

NAME = re.compile(r"^(SDK |Baseline (raw|MSAL))")
SCALE = {"": 1, "K": 1e3, "M": 1e6, "G": 1e9}
TIME = {"ns": 1e-6, "μs": 1e-3, "us": 1e-3, "ms": 1, "s": 1e3}


def cells(line):
    return [c.strip() for c in line.strip().strip("│").split("│")]


def parse(path):
    """Benchmark name -> {"p50", "p99" (latency ms), "rps" (p50 requests/s), "wall" (p50 ms)}."""
    results, current = {}, None
    with open(path, encoding="utf-8") as handle:
        for raw in handle:
            line = raw.rstrip("\n")
            if NAME.match(line):
                current = line.strip()
                results[current] = {}
                continue
            if not current or not line.startswith("│"):
                continue
            row = cells(line)
            label = row[0]
            multiplier = re.search(r"\((K|M|G)\)", label)
            factor = SCALE[multiplier.group(1)] if multiplier else 1
            # columns: name, p0, p25, p50, p75, p90, p99, p100, samples
            if label.startswith("Latency per call (us)"):
                results[current]["p50"] = float(row[3]) * factor / 1e3
                results[current]["p99"] = float(row[6]) * factor / 1e3
            elif label.startswith("Token requests per second"):
                results[current]["rps"] = float(row[3]) * factor
            elif label.startswith("Time (wall clock)"):
                unit = re.search(r"\((ns|μs|us|ms|s)\)", label).group(1)
                results[current]["wall"] = float(row[3]) * factor * TIME[unit]
    return results


def find(results, prefix, n):
    for name, values in results.items():
        if name.startswith(prefix) and (f", {n} concurrent" in name):
            return values
    return None


def ratios(results):
    out = {}
    for n in (1, 8, 64):
        sdk = find(results, "SDK forced refresh, memory cache", n)
        file = find(results, "SDK forced refresh, file cache", n)
        raw = find(results, "Baseline raw URLSession", n)
        transport = find(results, "Baseline MSALCurlTransport", n)
        session_transport = find(results, "Baseline MSALURLSessionTransport", n)
        if sdk and raw:
            out[(n, "SDK/raw latency p50")] = sdk["p50"] / raw["p50"]
            out[(n, "SDK/raw latency p99")] = sdk["p99"] / raw["p99"]
            out[(n, "SDK/raw requests/s")] = sdk["rps"] / raw["rps"]
        if sdk and transport:
            out[(n, "SDK/transport latency p50")] = sdk["p50"] / transport["p50"]
            out[(n, "SDK/transport requests/s")] = sdk["rps"] / transport["rps"]
        if transport and session_transport:
            out[(n, "curl/URLSession transport latency p50")] = transport["p50"] / session_transport["p50"]
            out[(n, "curl/URLSession transport requests/s")] = transport["rps"] / session_transport["rps"]
        if sdk and file:
            out[(n, "file/memory latency p50")] = file["p50"] / sdk["p50"]
            out[(n, "file/memory requests/s")] = file["rps"] / sdk["rps"]
        one = find(results, "SDK forced refresh, memory cache", 1)
        flight = next((v for k, v in results.items() if k.startswith(f"SDK single-flight, {n} ")), None)
        if flight and one:
            out[(n, "single-flight/one caller latency p50")] = flight["p50"] / one["p50"]
    return out


def main(paths):
    runs = [parse(p) for p in paths]
    for path, results in zip(paths, runs):
        print(f"== {path}")
        for name, v in sorted(results.items()):
            rps = f"{v['rps']:>8,.0f} req/s" if "rps" in v else " " * 14
            print(f"  {name:<72} p50 {v.get('p50', 0):>8.2f} ms  p99 {v.get('p99', 0):>8.2f} ms  {rps}")
        for key, value in sorted(ratios(results).items()):
            print(f"  N={key[0]:<3} {key[1]:<40} {value:6.2f}")
    if len(runs) > 1:
        print("== median across runs")
        names = sorted(set().union(*runs))
        for name in names:
            values = [r[name] for r in runs if name in r]
            p50 = statistics.median(v.get("p50", 0) for v in values)
            p99 = statistics.median(v.get("p99", 0) for v in values)
            rps = [v["rps"] for v in values if "rps" in v]
            rps_text = f"{statistics.median(rps):>8,.0f} req/s" if rps else " " * 14
            print(f"  {name:<72} p50 {p50:>8.2f} ms  p99 {p99:>8.2f} ms  {rps_text}")
        per_run = [ratios(r) for r in runs]
        for key in sorted(set().union(*per_run)):
            values = [f[key] for f in per_run if key in f]
            print(f"  N={key[0]:<3} {key[1]:<40} {statistics.median(values):6.2f} median, range {min(values):.2f}-{max(values):.2f}")


if __name__ == "__main__":
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    main(sys.argv[1:])
