#!/usr/bin/env python3
"""Add accounts to a cache file through msal-extensions, as Azure CLI and Azure Identity share one.

Usage: extensions_add.py CACHE_FILE COUNT TAG

COUNT times, ``msal_extensions.PersistedTokenCache(FilePersistence(CACHE_FILE)).add(event)`` for a
new account ``TAG-i`` (client ``stress-client``, tenant ``tenant``, environment
``login.windows.net``: the accounts swift-msal's ``MSALStressWorker cache-save`` writes). Each
``add`` is one msal-extensions read-modify-write under its lock (``CACHE_FILE.lockfile``); an
update another writer loses shows as a missing account in the final file.

Standard output: one JSON line ``{"added": COUNT, "lock_implementation": "...", "errors": [...],
"lock_warnings": [...]}`` (msal-extensions' warnings, such as giving up on its lock file after 5 s).
Exit status 0 when every add succeeded, 1 otherwise, 2 on usage errors.
"""

import base64
import json
import logging
import sys

import msal_extensions


def b64(value):
    return base64.urlsafe_b64encode(json.dumps(value, separators=(",", ":")).encode()).rstrip(b"=").decode()


def event(uid):
    """The token event of account ``uid`` that ``MSALStressWorker cache-save`` also writes."""
    return {
        "client_id": "stress-client",
        "scope": ["User.Read"],
        "token_endpoint": "https://login.windows.net/tenant/oauth2/v2.0/token",
        "environment": "login.windows.net",
        "response": {
            "access_token": "at-" + uid, "refresh_token": "rt-" + uid, "expires_in": 3600, "token_type": "Bearer",
            "client_info": b64({"uid": uid, "utid": "tenant"}),
            "id_token": "e30." + b64({"oid": uid, "tid": "tenant", "sub": uid, "preferred_username": uid + "@example.com"}) + ".c2ln",
        },
    }


def main(argv):
    if len(argv) != 4:
        print(__doc__, file=sys.stderr)
        return 2
    path, count, tag = argv[1], int(argv[2]), argv[3]
    # msal-extensions only logs it when it waited 5 s for its lock file and went on regardless.
    warnings = []

    class Collect(logging.Handler):
        def emit(self, record):
            warnings.append(record.getMessage())

    logging.getLogger("msal_extensions").addHandler(Collect(level=logging.WARNING))
    cache = msal_extensions.PersistedTokenCache(msal_extensions.FilePersistence(path))
    errors = []
    for index in range(count):
        uid = "%s-%d" % (tag, index)
        try:
            cache.add(event(uid))
        except Exception as error:  # a lock timeout, for instance: reported, the run goes on
            errors.append("%s: %s" % (type(error).__name__, error))
    lock = getattr(msal_extensions.token_cache, "CrossPlatLock", None)
    print(json.dumps({"added": count - len(errors), "lock_implementation": getattr(lock, "__module__", "?"), "errors": errors,
                      "lock_warnings": warnings}))
    return 0 if not errors else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv))
