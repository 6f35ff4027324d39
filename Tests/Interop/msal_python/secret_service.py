#!/usr/bin/env python3
"""MSAL for Python with msal-extensions' libsecret persistence, on the Secret Service item swift-msal uses.

Run with the interpreter of .build/keyring-venv (scripts/setup.sh), inside the test's private
D-Bus session (DBUS_SESSION_BUS_ADDRESS set), so ``LibsecretPersistence`` reaches that session's
gnome-keyring-daemon. Every persistence is built with msal-extensions' defaults: only the signal
file's path is given, so the schema name is the SHA-256 of that path and there are no attributes.

Usage:
  secret_service.py add SIGNAL COUNT TAG
      COUNT times, ``PersistedTokenCache(LibsecretPersistence(SIGNAL)).add(event)`` for a new
      account ``TAG-i`` (the accounts ``MSALStressWorker cache-save`` writes: client
      ``stress-client``, tenant ``tenant``, environment ``login.windows.net``, access token
      ``at-TAG-i``). Each add is one read-modify-write under msal-extensions' lock
      (``SIGNAL.lockfile``). Prints ``{"added": N, "errors": [...]}``.
  secret_service.py read SIGNAL QUERIES_JSON
      Loads the item with ``LibsecretPersistence(SIGNAL).load()`` and answers QUERIES_JSON exactly as
      read_cache.py does for a file (silent calls with the network faked and counted).
  secret_service.py dump SIGNAL
      Prints the item's text as it is.

Exit status 0 on success, 1 on a failure, 2 on usage errors.
"""

import json
import os
import sys
import warnings

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import msal_extensions  # noqa: E402

import extensions_add  # noqa: E402
import read_cache  # noqa: E402


def add(signal, count, tag):
    cache = msal_extensions.PersistedTokenCache(msal_extensions.LibsecretPersistence(signal))
    errors = []
    for index in range(count):
        uid = "%s-%d" % (tag, index)
        try:
            cache.add(extensions_add.event(uid))
        except Exception as error:  # reported, the run goes on
            errors.append("%s: %s" % (type(error).__name__, error))
    print(json.dumps({"added": count - len(errors), "errors": errors}))
    return 0 if not errors else 1


def main(argv):
    if len(argv) == 5 and argv[1] == "add":
        return add(argv[2], int(argv[3]), argv[4])
    if len(argv) == 4 and argv[1] == "read":
        text = msal_extensions.LibsecretPersistence(argv[2]).load()
        with open(argv[3], "r", encoding="utf-8") as f:
            spec = json.load(f)
        warnings.simplefilter("ignore")  # MSAL's advice warnings would only clutter stderr
        json.dump(read_cache.run(text, spec), sys.stdout, indent=2)
        sys.stdout.write("\n")
        return 0
    if len(argv) == 3 and argv[1] == "dump":
        sys.stdout.write(msal_extensions.LibsecretPersistence(argv[2]).load())
        return 0
    sys.stderr.write(__doc__)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv))
