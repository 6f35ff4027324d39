#!/usr/bin/env python3
"""App-token cache hits: the documents both libraries are timed on, and MSAL for Python's timing.

    .build/interop-venv/bin/python Benchmarks/scripts/app_token_bench.py make DIR
    .build/interop-venv/bin/python Benchmarks/scripts/app_token_bench.py time DIR [--budget SECONDS] > python.json

make: for 1 and 1,000 tenants, MSAL for Python's own ConfidentialClientApplication gets one app
token per tenant for https://graph.microsoft.com/.default from a fake token endpoint
(Tests/Interop/msal_python/fake_entra.py; nothing leaves the process) and its SerializableTokenCache
is written to DIR/app-tokens-<N>.json, with DIR/app-manifest.json naming the client id, the scope,
and 16 probe tenants spread over each document. The Swift benchmark (Benchmarks/AppTokenAcquisition)
reads the same files.

time: for each document, one ConfidentialClientApplication per probe tenant (made untimed, with the
fake http_client answering discovery and failing any token request) and acquire_token_for_client
called cycling through them, call by call with time.perf_counter_ns, for at least 5 calls and until
the budget (default 3 s) or 100,000 calls, garbage collector off during the calls; every result
must be the probe's token from the cache and no token request may be sent. Prints JSON (times in
microseconds): {"msal_python_version", "documents": [{"tenants", "app_token_hit_us": {"median",
"p10", "p90", "min", "calls"}, "token_endpoint_calls"}]}.
"""

import gc
import json
import os
import statistics
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "Tests", "Interop", "msal_python"))

import msal  # noqa: E402

from fake_entra import FakeEntra  # noqa: E402

CLIENT_ID = "6b0a8d4c-2e1f-4a3b-9c5d-7e8f9a0b1c2d"
SECRET = "benchmark-secret"
SCOPE = "https://graph.microsoft.com/.default"
SIZES = (1, 1000)


def tenant(index):
    return "%08x-0000-4000-8000-%012x" % (0x7E0000 + index, index)


def authority(tenant_id):
    return "https://login.microsoftonline.com/" + tenant_id


def make(folder):
    os.makedirs(folder, exist_ok=True)
    manifest = {"client_id": CLIENT_ID, "scope": SCOPE, "documents": []}
    for size in SIZES:
        cache = msal.SerializableTokenCache()

        def issue(host, tenant_id, form):
            assert form.get("grant_type") == "client_credentials", form
            return 200, {"token_type": "Bearer", "expires_in": 10 * 365 * 86400, "ext_expires_in": 10 * 365 * 86400,
                         "access_token": "app-token-" + tenant_id}

        http = FakeEntra(token_handler=issue)
        for index in range(size):
            app = msal.ConfidentialClientApplication(
                CLIENT_ID, client_credential=SECRET, authority=authority(tenant(index)), token_cache=cache, http_client=http)
            result = app.acquire_token_for_client([SCOPE])
            assert "access_token" in result, result
        name = "app-tokens-%d.json" % size
        with open(os.path.join(folder, name), "w", encoding="utf-8") as handle:
            handle.write(cache.serialize())
        probes = sorted({tenant(i * size // 16) for i in range(16)}) if size > 1 else [tenant(0)]
        manifest["documents"].append({"tenants": size, "file": name, "probes": probes})
    with open(os.path.join(folder, "app-manifest.json"), "w", encoding="utf-8") as handle:
        json.dump(manifest, handle, indent=1)


def time_document(folder, document, budget):
    cache = msal.SerializableTokenCache()
    with open(os.path.join(folder, document["file"]), encoding="utf-8") as handle:
        cache.deserialize(handle.read())
    http = FakeEntra()  # discovery answered; any token request fails
    apps = [(probe, msal.ConfidentialClientApplication(
        CLIENT_ID, client_credential=SECRET, authority=authority(probe), token_cache=cache, http_client=http))
        for probe in document["probes"]]
    for probe, app in apps:  # untimed: the first call of each app, and the check
        result = app.acquire_token_for_client([SCOPE])
        assert result.get("access_token") == "app-token-" + probe and result.get("token_source") == "cache", result
    samples = []
    deadline = time.perf_counter() + budget
    index = 0
    gc.disable()
    try:
        while len(samples) < 5 or (time.perf_counter() < deadline and len(samples) < 100_000):
            probe, app = apps[index]
            start = time.perf_counter_ns()
            result = app.acquire_token_for_client([SCOPE])
            samples.append((time.perf_counter_ns() - start) / 1000)
            if result.get("token_source") != "cache":
                raise SystemExit("not a cache hit: %r" % result)
            index = (index + 1) % len(apps)
            if len(samples) % 1000 == 0:
                gc.collect()
    finally:
        gc.enable()
    samples.sort()
    return {
        "tenants": document["tenants"],
        "app_token_hit_us": {
            "median": statistics.median(samples), "p10": samples[len(samples) // 10], "p90": samples[len(samples) * 9 // 10],
            "min": samples[0], "calls": len(samples),
        },
        "token_endpoint_calls": len(http.token_calls),
    }


def main(argv):
    if len(argv) < 3 or argv[1] not in ("make", "time"):
        sys.exit(__doc__)
    folder = argv[2]
    if argv[1] == "make":
        make(folder)
        return
    budget = float(argv[argv.index("--budget") + 1]) if "--budget" in argv else 3.0
    with open(os.path.join(folder, "app-manifest.json"), encoding="utf-8") as handle:
        manifest = json.load(handle)
    documents = [time_document(folder, document, budget) for document in manifest["documents"]]
    if any(document["token_endpoint_calls"] for document in documents):
        sys.exit("a cache hit sent a token request")
    print(json.dumps({"msal_python_version": msal.__version__, "documents": documents}, indent=1))


if __name__ == "__main__":
    main(sys.argv)
