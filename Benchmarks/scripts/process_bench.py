#!/usr/bin/env python3
"""Time a whole `msal token` process against an MSAL for Python script doing the same job.

Usage: process_bench.py DOC_DIR --msal PATH [--python PATH] [--calls N] [--accounts 1,10000]
                        [--json OUT] [--no-check]

A command-line credential helper (git, kubectl, a shell script) starts once per command: reading
the cache, finding the account and answering from the cache is its whole cost. For every document
of make_cache_documents.py named by --accounts (default 1 and 10,000) and every probe account of
the manifest, in turn:

    swift   `msal token --client-id C --authority A --cache DOC --account HOME_ID --scopes User.Read`
            (a release build of this repository's CLI; a copy of the document, so nothing the
            process might write changes the input)
    python  this file's `--python-child` mode in the interpreter given by --python (the interop
            venv's): import msal, read the document into a SerializableTokenCache, a
            PublicClientApplication over it with an http_client that answers only discovery, the
            account by home account id from get_accounts(), acquire_token_silent, print the token

Both must print the probe's access token (checked); the Python side fails if a token request was
sent. Runs alternate (swift, python, swift, ...) so the machine's noise hits both alike. Per
process: wall time (fork to exit, measured here), user and system CPU time and peak resident set
(os.wait4's rusage). Printed: per document the medians, the range of the per-pair ratios, and the
targets of issue 43, which the run checks (exit status 1 when a median misses one, unless
--no-check):

    10,000 accounts: swift wall time <= 0.35 x python's
    1 account:       swift wall time <= 0.20 x python's; swift peak RSS <= python's

--calls N (default 10) processes per side and document.
"""

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
TARGETS = {10000: {"wall": 0.35}, 1: {"wall": 0.20, "rss": 1.0}}


def child(doc, client_id, authority, home_account_id, scope):
    """The MSAL for Python side: one credential-helper call, in this process."""
    sys.path.insert(0, HERE)
    from python_cache_bench import NoNetwork  # discovery only; records anything else
    import msal

    cache = msal.SerializableTokenCache()
    with open(doc, "r", encoding="utf-8") as f:
        cache.deserialize(f.read())
    network = NoNetwork()
    app = msal.PublicClientApplication(client_id, authority=authority, token_cache=cache, http_client=network)
    account = next((a for a in app.get_accounts() if a["home_account_id"] == home_account_id), None)
    if account is None:
        raise SystemExit("no account %s" % home_account_id)
    result = app.acquire_token_silent([scope], account)
    if not result or "access_token" not in result or network.unexpected:
        raise SystemExit("not a cache hit: %r" % (network.unexpected[:2],))
    sys.stdout.write(result["access_token"] + "\n")


def measure(argv):
    """Runs argv to completion with its output in OUTPUT; returns the output and the figures."""
    start = time.perf_counter()
    pid = os.posix_spawnp(argv[0], argv, os.environ,
                          file_actions=[(os.POSIX_SPAWN_OPEN, 1, OUTPUT, os.O_WRONLY | os.O_TRUNC | os.O_CREAT, 0o600),
                                        (os.POSIX_SPAWN_OPEN, 2, ERRORS, os.O_WRONLY | os.O_TRUNC | os.O_CREAT, 0o600)])
    _, status, usage = os.wait4(pid, 0)
    wall = time.perf_counter() - start
    with open(OUTPUT) as f:
        out = f.read()
    if os.waitstatus_to_exitcode(status) != 0:
        with open(ERRORS) as f:
            raise SystemExit("%s failed (%d): %s" % (argv[0], os.waitstatus_to_exitcode(status), f.read()[-2000:]))
    return out, {"wall_ms": wall * 1000, "cpu_ms": (usage.ru_utime + usage.ru_stime) * 1000,
                 "sys_ms": usage.ru_stime * 1000, "peak_kib": usage.ru_maxrss, "minor_faults": usage.ru_minflt}


def median_of(samples, field):
    return statistics.median(s[field] for s in samples)


def main(argv):
    global OUTPUT, ERRORS
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("doc_dir")
    parser.add_argument("--msal", required=True, help="the msal executable (a release build)")
    parser.add_argument("--python", default=sys.executable, help="the interpreter with msal installed")
    parser.add_argument("--calls", type=int, default=10)
    parser.add_argument("--accounts", default="1,10000")
    parser.add_argument("--json", help="also write the figures here")
    parser.add_argument("--no-check", action="store_true")
    args = parser.parse_args(argv)

    with open(os.path.join(args.doc_dir, "manifest.json")) as f:
        manifest = json.load(f)
    wanted = {int(n) for n in args.accounts.split(",")}
    scratch = tempfile.mkdtemp(prefix="process-bench-")
    OUTPUT, ERRORS = os.path.join(scratch, "out"), os.path.join(scratch, "err")
    report, missed = {"documents": []}, []
    try:
        for entry in manifest["documents"]:
            if entry["accounts"] not in wanted:
                continue
            doc = os.path.join(scratch, entry["file"])
            shutil.copyfile(os.path.join(args.doc_dir, entry["file"]), doc)
            os.chmod(doc, 0o600)  # the file store refuses a cache others can read
            sides = {"swift": [], "python": []}
            for call in range(args.calls):
                probe = entry["probes"][call % len(entry["probes"])]
                commands = {
                    "swift": [os.path.abspath(args.msal), "token", "--client-id", manifest["client_id"],
                              "--authority", manifest["authority"], "--cache", doc,
                              "--account", probe["home_account_id"], "--scopes", manifest["scopes"][0]],
                    "python": [args.python, os.path.abspath(__file__), "--python-child", doc, manifest["client_id"],
                               manifest["authority"], probe["home_account_id"], manifest["scopes"][0]],
                }
                for side in ("swift", "python"):
                    out, figures = measure(commands[side])
                    if probe["access_token"] not in out:
                        raise SystemExit("%s did not print the probe's access token: %r" % (side, out[:200]))
                    sides[side].append(figures)
            pairs = list(zip(sides["swift"], sides["python"]))
            ratios = sorted(s["wall_ms"] / p["wall_ms"] for s, p in pairs)
            row = {
                "accounts": entry["accounts"], "calls": args.calls,
                "swift": {k: round(median_of(sides["swift"], k), 2) for k in sides["swift"][0]},
                "python": {k: round(median_of(sides["python"], k), 2) for k in sides["python"][0]},
                "wall_ratio_median": round(statistics.median(ratios), 3),
                "wall_ratio_range": [round(ratios[0], 3), round(ratios[-1], 3)],
            }
            row["rss_ratio_median"] = round(row["swift"]["peak_kib"] / row["python"]["peak_kib"], 3)
            report["documents"].append(row)
            targets = TARGETS.get(entry["accounts"], {})
            for key, label in (("wall", "wall_ratio_median"), ("rss", "rss_ratio_median")):
                if key in targets and row[label] > targets[key]:
                    missed.append("%d accounts: %s %.3f > target %.2f" % (entry["accounts"], label, row[label], targets[key]))
            print("%6d accounts: swift %.1f ms (cpu %.1f, sys %.1f, %d KiB, %d faults)  python %.1f ms (%d KiB)  "
                  "wall ratio %.3f (%.3f-%.3f)  rss ratio %.3f" % (
                      entry["accounts"], row["swift"]["wall_ms"], row["swift"]["cpu_ms"], row["swift"]["sys_ms"],
                      row["swift"]["peak_kib"], row["swift"]["minor_faults"], row["python"]["wall_ms"],
                      row["python"]["peak_kib"], row["wall_ratio_median"], ratios[0], ratios[-1],
                      row["rss_ratio_median"]))
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    if args.json:
        with open(args.json, "w") as f:
            json.dump(report, f, indent=2)
    for line in missed:
        print("target missed: " + line)
    return 1 if missed and not args.no_check else 0


if __name__ == "__main__":
    if len(sys.argv) > 1 and sys.argv[1] == "--python-child":
        child(*sys.argv[2:7])
    else:
        sys.exit(main(sys.argv[1:]))
