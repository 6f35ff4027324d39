#!/usr/bin/env python3
"""Ask the real MSAL for Python what it finds in a token cache file, with the network disabled.

Usage: read_cache.py CACHE_FILE QUERIES_JSON

CACHE_FILE is a unified-schema cache document (any writer). It is loaded with
``msal.SerializableTokenCache().deserialize(...)`` and is never written back.

QUERIES_JSON (a file; extra members are ignored, so write_cache.py's OUT_EXPECTED works as it is):

    {
      "client_id": "<default client id>",
      "authority": "https://login.microsoftonline.com/<tenant>",   # default authority
      "queries": [{
          "id": "<any label>",
          "home_account_id": "<uid>.<utid>",
          "scopes": ["User.Read"],
          "client_id": "...",          # optional, default above
          "authority": "https://...",  # optional, default above; its host and tenant pick
                                       # the environment and realm MSAL for Python looks up
          "force_refresh": false       # optional; true = a refresh probe (see below)
      }]
    }

Standard output (JSON):

    {
      "msal_python_version": "1.39.0",
      "accounts": [...],               # get_accounts() of the default client + authority, as MSAL
                                       # for Python returns them (home_account_id, environment,
                                       # username, account_source, authority_type,
                                       # local_account_id, realm), sorted by home_account_id
      "results": [{
          "id": "...",
          "account_found": true,        # get_accounts() of that client + authority lists it
          "access_token": "<secret>" | null,   # acquire_token_silent(...)["access_token"]
          "token_source": "cache" | "identity_provider" | null,
          "error": null | "<error>",    # refresh probes only
          "refresh_token": "<secret>" | null,  # the RT MSAL for Python's cache search matches for
                                       # this account and client (its own client id first, then
                                       # the client's family from AppMetadata), on the authority's
                                       # host and its aliases
          "refresh_token_family_id": "1" | null,
          "token_endpoint_calls": 0,     # token requests this query made
          "refresh_tokens_sent": []      # refresh_token values those requests carried
      }],
      "token_endpoint_calls": 0,       # all token requests made by plain silent queries; must be 0
                                       # when every answer came from the cache
      "refresh_probe_calls": 0,        # token requests made by force_refresh queries
      "other_calls": [],               # requests that were neither discovery nor token requests
      "cache_state_changed": false     # did MSAL for Python modify the cache while reading
    }

The fake http_client (fake_entra.FakeEntra without a token handler) answers instance discovery and
OpenID configuration only; every token request is recorded and fails with HTTP 400 invalid_grant,
so a query that is not a pure cache hit shows up as access_token null with a non-zero
token_endpoint_calls. A refresh probe (force_refresh: true) asks MSAL for Python to skip the
access-token cache: the refresh token it sends is what ``refresh_tokens_sent`` shows.

Exit status: 0 when the queries ran (whatever they found), 2 on usage errors, 1 when MSAL for
Python raised.
"""

import json
import os
import sys
import warnings

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))  # fake_entra.py, also under python -P

import msal  # noqa: E402
from msal import TokenCache  # noqa: E402

from fake_entra import FakeEntra, PUBLIC_CLOUD_ALIASES  # noqa: E402


def environments_of(authority):
    host = authority.split("/")[2].lower()
    if host in PUBLIC_CLOUD_ALIASES:
        return [host] + [a for a in PUBLIC_CLOUD_ALIASES if a != host]
    return [host]


def newest(entries):
    """MSAL for Python tries matching RTs newest first (by last_modification_time)."""
    ordered = sorted(entries, key=lambda e: int(e.get("last_modification_time", "0")), reverse=True)
    return ordered[0] if ordered else None


def find_refresh_token(cache, home_account_id, client_id, authority):
    """The RT MSAL for Python's own silent flow would look for: this client's, else its family's."""
    for environment in environments_of(authority):
        base = {"home_account_id": home_account_id, "environment": environment}
        own = newest(cache.search(TokenCache.CredentialType.REFRESH_TOKEN, query=dict(base, client_id=client_id)))
        if own:
            return own
        metadata = list(cache.search(TokenCache.CredentialType.APP_METADATA,
                                     query={"environment": environment, "client_id": client_id}))
        family_id = metadata[0].get("family_id") if metadata else None
        if family_id:
            family = newest(cache.search(TokenCache.CredentialType.REFRESH_TOKEN,
                                         query=dict(base, family_id=family_id)))
            if family:
                return family
    return None


def run(cache_text, spec):
    cache = msal.SerializableTokenCache()
    cache.deserialize(cache_text)
    http = FakeEntra()  # no token handler: the token endpoint always fails
    apps = {}

    def app(client_id, authority):
        if (client_id, authority) not in apps:
            apps[(client_id, authority)] = msal.PublicClientApplication(
                client_id, authority=authority, token_cache=cache, http_client=http)
        return apps[(client_id, authority)]

    default_client, default_authority = spec["client_id"], spec["authority"]
    accounts = sorted(app(default_client, default_authority).get_accounts(),
                      key=lambda a: a.get("home_account_id") or "")
    results = []
    silent_calls = probe_calls = 0
    for query in spec.get("queries", []):
        client_id = query.get("client_id", default_client)
        authority = query.get("authority", default_authority)
        force_refresh = bool(query.get("force_refresh", False))
        application = app(client_id, authority)
        before = len(http.token_calls)
        account = next((a for a in application.get_accounts()
                        if a.get("home_account_id") == query["home_account_id"]), None)
        result, error = None, None
        if account is not None:
            if force_refresh:
                result = application.acquire_token_silent_with_error(
                    list(query["scopes"]), account, force_refresh=True)
                if result and "error" in result:
                    error, result = result["error"], None
            else:
                result = application.acquire_token_silent(list(query["scopes"]), account)
        calls = http.token_calls[before:]
        if force_refresh:
            probe_calls += len(calls)
        else:
            silent_calls += len(calls)
        rt = find_refresh_token(cache, query["home_account_id"], client_id, authority)
        results.append({
            "id": query.get("id"),
            "account_found": account is not None,
            "access_token": (result or {}).get("access_token"),
            "token_source": (result or {}).get("token_source"),
            "error": error,
            "refresh_token": rt["secret"] if rt else None,
            "refresh_token_family_id": rt.get("family_id") if rt else None,
            "token_endpoint_calls": len(calls),
            "refresh_tokens_sent": [c["form"].get("refresh_token") for c in calls if "refresh_token" in c["form"]],
        })
    return {
        "msal_python_version": msal.__version__,
        "accounts": accounts,
        "results": results,
        "token_endpoint_calls": silent_calls,
        "refresh_probe_calls": probe_calls,
        "other_calls": http.other_calls,
        "cache_state_changed": bool(cache.has_state_changed),
    }


def main(argv):
    if len(argv) != 3:
        sys.stderr.write("usage: read_cache.py CACHE_FILE QUERIES_JSON\n")
        return 2
    with open(argv[1], "r", encoding="utf-8") as f:
        cache_text = f.read()
    with open(argv[2], "r", encoding="utf-8") as f:
        spec = json.load(f)
    if not isinstance(spec, dict) or "client_id" not in spec or "authority" not in spec:
        sys.stderr.write("read_cache.py: QUERIES_JSON needs \"client_id\" and \"authority\"\n")
        return 2
    warnings.simplefilter("ignore")  # MSAL's advice warnings would only clutter stderr
    json.dump(run(cache_text, spec), sys.stdout, indent=2)
    sys.stdout.write("\n")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
