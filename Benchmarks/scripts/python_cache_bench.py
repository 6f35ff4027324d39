#!/usr/bin/env python3
"""Time MSAL for Python on the cache documents of make_cache_documents.py.

Usage: python_cache_bench.py DOC_DIR [--budget SECONDS] [--accounts 1,100,10000]

Run it with the interpreter of the interop venv (``bash scripts/setup.sh`` installs the pinned
MSAL for Python there): ``.build/interop-venv/bin/python Benchmarks/scripts/python_cache_bench.py DIR``.

For every document listed in DOC_DIR/manifest.json (each in a fresh child process, so the memory
figures are the document's own), with ``msal.PublicClientApplication`` (client and authority from
the manifest) over a ``msal.SerializableTokenCache``:

    silent_hit   acquire_token_silent(["User.Read"], account): a cache hit whose cached target is
                 "User.Read email openid profile" (the scope-subset case). Cycles through the
                 manifest's probe accounts (spread over the document); each result is checked to be
                 the probe's access token from the cache, and the run fails if any request reached
                 the token endpoint (the fake http_client records them)
    get_accounts get_accounts()
    deserialize  deserialize(text) into a fresh SerializableTokenCache (made untimed; the text is
                 read once, untimed)
    serialize    serialize() of the loaded cache

Each is timed call by call with time.perf_counter_ns, for at least 5 calls and until the budget
(default 3 s per measurement) or 100,000 calls, with the cyclic garbage collector off during the
calls and run between them (as timeit does: its pauses over a 10,000-account cache would swamp the
medians); what a call returns is freed after its timing.
Then memory: peak RSS of the child (resource.getrusage ru_maxrss) before the document was read,
after loading and querying it, and after all timings, and a tracemalloc pass (after the timings, which it would distort) giving the
Python heap held by the loaded cache and the peak while loading and querying it.

Standard output (JSON; times in microseconds):

    {
      "msal_python_version": "1.39.0", "python": "3.11.7", "platform": "...",
      "budget_seconds": 3.0,
      "documents": [{
        "accounts": 10000, "file": "cache-10000.json", "bytes": 64400000,
        "silent_hit_us":   {"median": ..., "p10": ..., "p90": ..., "min": ..., "calls": ...},
        "get_accounts_us": {...}, "deserialize_us": {...}, "serialize_us": {...},
        "probes": 16, "token_endpoint_calls": 0,
        "rss_before_kib": ...,             # after importing msal, before reading the document
        "peak_rss_load_and_query_kib": ...,  # high-water mark after reading, deserializing,
                                           # get_accounts() and one silent hit per probe
        "peak_rss_kib": ...,               # high-water mark after all timings (serialize included)
        "cache_heap_bytes": ...,           # tracemalloc: held after deserialize
        "load_and_query_peak_heap_bytes": ...
      }]
    }
"""

import argparse
import gc
import json
import os
import platform
import resource
import statistics
import subprocess
import sys
import time
import tracemalloc
import warnings


class NoNetwork:
    """An http_client for MSAL for Python that answers the OpenID configuration and instance
    discovery of the public cloud and records (and fails) everything else."""

    def __init__(self):
        self.unexpected = []

    class Response:
        def __init__(self, status_code, body):
            self.status_code, self.text, self.headers = status_code, json.dumps(body), {}

        def raise_for_status(self):
            if self.status_code >= 400:
                raise RuntimeError("HTTP %d" % self.status_code)

    def get(self, url, params=None, headers=None, **kwargs):
        parts = url.split("/")
        if url.endswith("/common/discovery/instance"):
            return self.Response(200, {"tenant_discovery_endpoint": "", "api-version": "1.1", "metadata": [{
                "preferred_network": "login.microsoftonline.com", "preferred_cache": "login.windows.net",
                "aliases": ["login.microsoftonline.com", "login.windows.net", "login.microsoft.com",
                            "sts.windows.net"]}]})
        if url.endswith("/v2.0/.well-known/openid-configuration"):
            base = "/".join(parts[:4])
            return self.Response(200, {
                "authorization_endpoint": base + "/oauth2/v2.0/authorize",
                "token_endpoint": base + "/oauth2/v2.0/token",
                "device_authorization_endpoint": base + "/oauth2/v2.0/devicecode",
                "issuer": "https://login.microsoftonline.com/{tenantid}/v2.0",
            })
        self.unexpected.append(("GET", url))
        return self.Response(404, {"error": "not_found"})

    def post(self, url, params=None, data=None, headers=None, **kwargs):
        self.unexpected.append(("POST", url))
        return self.Response(400, {"error": "invalid_grant", "error_description": "benchmark: no network"})

    def close(self):
        pass


def summary(samples_ns):
    us = sorted(s / 1000.0 for s in samples_ns)
    deciles = statistics.quantiles(us, n=10) if len(us) >= 2 else [us[0]] * 9
    return {"median": round(statistics.median(us), 3), "p10": round(deciles[0], 3),
            "p90": round(deciles[-1], 3), "min": round(us[0], 3), "calls": len(us)}


def measure(operation, budget, prepare=None, min_calls=5, max_calls=100_000):
    """Times ``operation(prepare())`` call by call. As timeit does, the cyclic garbage collector is
    off during the calls; it runs between them, untimed, every 256 calls and after any call slower
    than 1 ms (MSAL for Python's caches hold reference cycles, so a fresh cache per call is garbage
    only the collector frees). What a call returns is freed outside the timing too."""
    samples = []
    clock = time.perf_counter_ns
    gc.collect()
    gc.disable()
    try:
        deadline = time.perf_counter() + budget
        while len(samples) < min_calls or (time.perf_counter() < deadline and len(samples) < max_calls):
            subject = prepare() if prepare else None
            start = clock()
            kept = operation(subject)
            elapsed = clock() - start
            samples.append(elapsed)
            kept = subject = None
            if elapsed > 1_000_000 or len(samples) % 256 == 0:
                gc.collect()
    finally:
        gc.enable()
    return summary(samples)


def rss_kib():
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss  # KiB on Linux


def bench_one(doc_dir, manifest, entry, budget):
    import msal  # imported here so that rss_before includes the library, not the document

    rss_before = rss_kib()
    with open(os.path.join(doc_dir, entry["file"]), "r", encoding="utf-8") as f:
        text = f.read()

    def load():
        cache = msal.SerializableTokenCache()
        cache.deserialize(text)
        return cache

    network = NoNetwork()
    cache = load()
    app = msal.PublicClientApplication(
        manifest["client_id"], authority=manifest["authority"], token_cache=cache, http_client=network)
    accounts = {a["home_account_id"]: a for a in app.get_accounts()}
    if len(accounts) != entry["accounts"]:
        raise SystemExit("%s: get_accounts() found %d accounts, expected %d"
                         % (entry["file"], len(accounts), entry["accounts"]))
    scopes = list(manifest["scopes"])
    probes = [(accounts[p["home_account_id"]], p["access_token"]) for p in entry["probes"]]
    for account, secret in probes:  # correctness first, outside the timings
        result = app.acquire_token_silent(scopes, account)
        if not result or result.get("token_source") != "cache" or result.get("access_token") != secret:
            raise SystemExit("%s: acquire_token_silent for %s was not the expected cache hit"
                             % (entry["file"], account["home_account_id"]))

    rss_after_load_and_query = rss_kib()
    cursor = [0]

    def silent(_):
        account, _ = probes[cursor[0] % len(probes)]
        cursor[0] += 1
        result = app.acquire_token_silent(scopes, account)
        if result is None:
            raise SystemExit("%s: a silent request missed the cache" % entry["file"])
        return result

    result = {
        "accounts": entry["accounts"], "file": entry["file"], "bytes": entry["bytes"],
        "silent_hit_us": measure(silent, budget),
        "get_accounts_us": measure(lambda _: app.get_accounts(), budget),
        # deserialize() into a fresh cache, as an app does at start-up
        "deserialize_us": measure(lambda fresh: fresh.deserialize(text) or fresh, budget,
                                  prepare=msal.SerializableTokenCache),
        "serialize_us": measure(lambda _: cache.serialize(), budget),
        "probes": len(probes),
        "token_endpoint_calls": sum(1 for method, _ in network.unexpected if method == "POST"),
        "rss_before_kib": rss_before,
        "peak_rss_load_and_query_kib": rss_after_load_and_query,
        "peak_rss_kib": rss_kib(),
    }
    if network.unexpected:
        raise SystemExit("%s: requests beyond discovery: %r" % (entry["file"], network.unexpected[:3]))

    del cache, app, accounts, probes
    tracemalloc.start()
    cache = load()
    result["cache_heap_bytes"] = tracemalloc.get_traced_memory()[0]
    app = msal.PublicClientApplication(
        manifest["client_id"], authority=manifest["authority"], token_cache=cache, http_client=network)
    accounts = app.get_accounts()
    app.acquire_token_silent(scopes, accounts[len(accounts) // 2])
    result["load_and_query_peak_heap_bytes"] = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    return result


def main(argv):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("doc_dir")
    parser.add_argument("--budget", type=float, default=3.0, help="seconds per measurement (default 3)")
    parser.add_argument("--accounts", default=None, help="only these account counts, comma-separated")
    parser.add_argument("--one", default=None, help=argparse.SUPPRESS)  # child mode: one document
    args = parser.parse_args(argv[1:])
    warnings.simplefilter("ignore")
    with open(os.path.join(args.doc_dir, "manifest.json"), "r", encoding="utf-8") as f:
        manifest = json.load(f)

    if args.one is not None:
        entry = next(d for d in manifest["documents"] if d["file"] == args.one)
        json.dump(bench_one(args.doc_dir, manifest, entry, args.budget), sys.stdout)
        return 0

    wanted = {int(c) for c in args.accounts.split(",")} if args.accounts else None
    import msal
    report = {
        "msal_python_version": msal.__version__, "python": platform.python_version(),
        "platform": platform.platform(), "budget_seconds": args.budget, "documents": [],
    }
    for entry in manifest["documents"]:
        if wanted is not None and entry["accounts"] not in wanted:
            continue
        sys.stderr.write("MSAL for Python on %s …\n" % entry["file"])
        child = subprocess.run(
            [sys.executable, os.path.abspath(__file__), args.doc_dir, "--budget", str(args.budget),
             "--one", entry["file"]],
            stdout=subprocess.PIPE, check=False)
        if child.returncode != 0:
            sys.stderr.write("python_cache_bench.py: %s failed (status %d)\n" % (entry["file"], child.returncode))
            return 1
        report["documents"].append(json.loads(child.stdout))
    json.dump(report, sys.stdout, indent=2)
    sys.stdout.write("\n")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
