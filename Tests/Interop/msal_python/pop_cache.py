"""MSAL for Python on a cache that holds proof-of-possession tokens swift-msal wrote.

    pop_cache.py CACHE_FILE OUT_FILE CLIENT_ID AUTHORITY SCOPE

Loads CACHE_FILE, asks acquire_token_silent for SCOPE (a bearer request: MSAL for Python asks for
nothing else without a broker) with the token endpoint disabled, writes the cache back to OUT_FILE
with serialize(), and prints one JSON object: the access token and token_type it answered with
(null when it answered nothing).
"""
import json
import sys

import msal

from fake_entra import FakeEntra


def main(cache_file, out_file, client_id, authority, scope):
    cache = msal.SerializableTokenCache()
    with open(cache_file, encoding="utf-8") as handle:
        cache.deserialize(handle.read())
    app = msal.PublicClientApplication(client_id, authority=authority, token_cache=cache, http_client=FakeEntra())
    accounts = app.get_accounts()
    result = app.acquire_token_silent([scope], account=accounts[0]) if accounts else None
    with open(out_file, "w", encoding="utf-8") as handle:
        handle.write(cache.serialize())
    print(json.dumps({
        "accounts": len(accounts),
        "access_token": (result or {}).get("access_token"),
        "token_type": (result or {}).get("token_type"),
    }))


if __name__ == "__main__":
    if len(sys.argv) != 6:
        print(__doc__, file=sys.stderr)
        sys.exit(2)
    main(*sys.argv[1:])
