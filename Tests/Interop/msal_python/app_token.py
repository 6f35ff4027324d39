"""MSAL for Python's ConfidentialClientApplication against swift-msal's local provider.

    app_token.py SPEC_JSON

SPEC_JSON (a file):

    {
      "emulator": "http://127.0.0.1:<port>",           # where MSALEmulator listens
      "advertised": "https://login.microsoftonline.com", # the origin it names itself by
      "authority": "https://login.microsoftonline.com/<tenant>",
      "client_id": "...",
      "secret": "..."                                  # or
      "private_key_file": "...", "certificate_file": "...",
      "scopes": ["https://graph.microsoft.com/.default"],
      "cache_file": "...",                             # read first when it exists, written back when changed
      "calls": 2,                                      # acquire_token_for_client calls, one after the other
      "force_refresh_first": false,                    # the first call skips the cache (claims challenge)
      "fmi_path": "SomeFmiPath/FmiCredentialPath",     # optional: every call passes fmi_path=
      "extra_body": {"custom_param": "v1"}             # optional: every call passes data= (a fresh copy)
    }

fmi_path and extra_body are what MSAL for Python 1.39 sends in the token request's body beyond the
grant's own fields and hashes into the token's extended cache key (``ext_cache_key``, an ``atext``
entry key): a call with them finds only a token cached with the same values, a call without them
never finds such a token. Absent, the calls are plain ``acquire_token_for_client(scopes)`` calls.

Requests for the advertised origin go to the emulator (an http_client that rewrites the URL; the
bodies are passed as they are, since the emulator already names itself by the advertised origin).
Nothing is sent anywhere else.

Prints one JSON object: {"msal_python_version", "results": [{"access_token", "token_source",
"token_type", "expires_in"} or {"error", "error_description"}], "token_requests": n,
"requests": [[method, path], ...], "access_token_entries": [{"key", "ext_cache_key", "target",
"realm", "environment", "secret", "members"}, ...]}; access_token_entries are the "AccessToken"
section of the cache as MSAL for Python serializes it after the calls (what it wrote back, or would
have), sorted by key, each with its key in that document, its ext_cache_key (null when it has none)
and the sorted names of all its members. Exit status 0 when the calls ran, 1 when MSAL for Python
raised.
"""

import json
import sys

import msal

from emulator_session import RewritingSession, load_cache, save_cache


def main(spec_path):
    with open(spec_path, encoding="utf-8") as handle:
        spec = json.load(handle)
    cache_file = spec["cache_file"]
    cache = load_cache(cache_file)
    if "secret" in spec:
        credential = spec["secret"]
    else:
        with open(spec["private_key_file"], encoding="utf-8") as handle:
            key = handle.read()
        with open(spec["certificate_file"], encoding="utf-8") as handle:
            certificate = handle.read()
        credential = {"private_key": key, "public_certificate": certificate}
    http = RewritingSession(spec["advertised"], spec["emulator"])
    app = msal.ConfidentialClientApplication(
        spec["client_id"], client_credential=credential, authority=spec["authority"],
        token_cache=cache, http_client=http)
    results = []
    for index in range(int(spec.get("calls", 1))):
        options = {}
        if spec.get("fmi_path") is not None:
            options["fmi_path"] = spec["fmi_path"]
        if spec.get("extra_body") is not None:
            # A fresh dict each call: acquire_token_for_client adds fmi_path to the one it is given.
            options["data"] = dict(spec["extra_body"])
        if index == 0 and spec.get("force_refresh_first"):
            # acquire_token_for_client refuses force_refresh; a claims challenge skips the cache.
            options["claims_challenge"] = json.dumps({"access_token": {"nbf": {"essential": True, "value": "1"}}})
        result = app.acquire_token_for_client(spec["scopes"], **options)
        if "access_token" in result:
            results.append({
                "access_token": result["access_token"], "token_source": result.get("token_source"),
                "token_type": result.get("token_type"), "expires_in": result.get("expires_in"),
            })
        else:
            results.append({"error": result.get("error"), "error_description": result.get("error_description")})
    save_cache(cache, cache_file)
    token_requests = http.token_requests()
    # The serialized document, not cache.search(): search() without an ext_cache_key in its query
    # skips the entries that have one, which are the ones this report is for.
    serialized = json.loads(cache.serialize())
    access_token_entries = [
        {
            "key": key, "ext_cache_key": entry.get("ext_cache_key"), "target": entry.get("target"),
            "realm": entry.get("realm"), "environment": entry.get("environment"), "secret": entry.get("secret"),
            "members": sorted(entry),
        }
        for key, entry in sorted(serialized.get("AccessToken", {}).items())
    ]
    print(json.dumps({
        "msal_python_version": msal.__version__, "results": results, "token_requests": token_requests,
        "requests": http.seen, "access_token_entries": access_token_entries,
    }))
    return 0


if __name__ == "__main__":
    if len(sys.argv) != 2:
        print(__doc__, file=sys.stderr)
        sys.exit(2)
    sys.exit(main(sys.argv[1]))
