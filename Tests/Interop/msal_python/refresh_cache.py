#!/usr/bin/env python3
"""Let the real MSAL for Python refresh one account's token in a cache file, and write it back.

Usage: refresh_cache.py CACHE_FILE SPEC_JSON

SPEC_JSON (a file):

    {
      "client_id": "<client id>",
      "authority": "https://login.microsoftonline.com/<tenant>",
      "home_account_id": "<uid>.<utid>",
      "scopes": ["User.Read"],
      "access_token": "<the access token the fake token endpoint issues>",
      "refresh_token": "<the refresh token it issues>"
    }

The cache is loaded with ``msal.SerializableTokenCache().deserialize(...)``; the app
(``msal.PublicClientApplication`` with a ``fake_entra.FakeEntra`` http_client) calls
``acquire_token_silent(scopes, account, force_refresh=True)``: MSAL for Python picks the refresh
token it finds first and redeems it. The fake token endpoint accepts any refresh token, records
it, and answers as Entra does (``client_info`` for the account, the granted ``scope``, a ten-year
lifetime; no ID token, which a refresh answer may leave out). The cache is then written back with
``serialize()`` when MSAL for Python changed it.

Standard output (JSON):

    {
      "msal_python_version": "1.39.0",
      "account_found": true,
      "access_token": "<what acquire_token_silent returned>" | null,
      "error": null | "<error>",
      "refresh_tokens_sent": ["<every refresh_token the token endpoint received>"],
      "cache_written": true
    }

Exit status 0 when the refresh ran (whatever it returned), 2 on usage errors, 1 when MSAL for
Python raised (traceback on standard error).
"""

import json
import sys

import msal

from fake_entra import FakeEntra, client_info

TEN_YEARS = 10 * 365 * 24 * 3600
OIDC_SCOPES = {"openid", "profile", "offline_access"}


def main(argv):
    if len(argv) != 3:
        print(__doc__, file=sys.stderr)
        return 2
    cache_path, spec_path = argv[1], argv[2]
    with open(spec_path, encoding="utf-8") as f:
        spec = json.load(f)
    uid, utid = spec["home_account_id"].split(".", 1)

    sent = []

    def token_endpoint(host, tenant_segment, form):
        if form.get("grant_type") != "refresh_token":
            return 400, {"error": "unsupported_grant_type"}
        sent.append(form.get("refresh_token"))
        resource = [s for s in form.get("scope", "").split() if s not in OIDC_SCOPES]
        return 200, {
            "token_type": "Bearer",
            "scope": " ".join(["openid", "profile"] + resource + ["email"]),
            "expires_in": TEN_YEARS,
            "ext_expires_in": TEN_YEARS,
            "access_token": spec["access_token"],
            "refresh_token": spec["refresh_token"],
            "client_info": client_info(uid, utid),
        }

    cache = msal.SerializableTokenCache()
    with open(cache_path, encoding="utf-8") as f:
        cache.deserialize(f.read())
    app = msal.PublicClientApplication(
        spec["client_id"], authority=spec["authority"], token_cache=cache,
        http_client=FakeEntra(token_handler=token_endpoint))
    account = next((a for a in app.get_accounts() if a["home_account_id"] == spec["home_account_id"]), None)
    result = None
    if account is not None:
        result = app.acquire_token_silent_with_error(spec["scopes"], account, force_refresh=True)
    written = cache.has_state_changed
    if written:
        with open(cache_path, "w", encoding="utf-8") as f:
            f.write(cache.serialize())
    print(json.dumps({
        "msal_python_version": msal.__version__,
        "account_found": account is not None,
        "access_token": (result or {}).get("access_token"),
        "error": (result or {}).get("error") if result and "access_token" not in result else None,
        "refresh_tokens_sent": sent,
        "cache_written": written,
    }))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
