"""MSAL for Python's acquire_token_by_refresh_token against swift-msal's local provider.

    migrate_refresh_token.py SPEC_JSON

SPEC_JSON (a file):

    {
      "emulator": "http://127.0.0.1:<port>",           # where MSALEmulator listens
      "advertised": "https://login.microsoftonline.com", # the origin it names itself by
      "authority": "https://login.microsoftonline.com/<tenant>",
      "client_id": "...",
      "secret": "...",                                 # optional: a ConfidentialClientApplication with
                                                       # this secret; absent: a PublicClientApplication
      "refresh_token_file": "...",                     # optional: a file holding the refresh token to
                                                       # migrate (surrounding white space ignored);
                                                       # absent: no migration (then_silent alone)
      "scopes": ["User.Read"],
      "cache_file": "...",                             # read first when it exists, written back (mode
                                                       # 0600) when changed
      "then_silent": false                             # true: get_accounts() and acquire_token_silent
                                                       # (scopes, the first account) afterwards
    }

The refresh token is read from a file, never taken as an argument (a process's arguments are
visible to every user of the machine), and never printed: the report is checked for it, and for
every refresh token the cache holds, before it is written.

Requests for the advertised origin go to the emulator (an http_client that rewrites the URL; the
bodies are passed as they are, since the emulator already names itself by the advertised origin).
Nothing is sent anywhere else.

Prints one JSON object:

    {
      "msal_python_version": "1.39.0",
      "result": {"token_source", "access_token", "error", "error_description",
                 "preferred_username"} | null,        # the migration's answer; null without one
      "accounts": ["adele@contoso.example"],           # get_accounts() usernames after the migration
      "silent": {"token_source", "access_token", "error", "error_description"} | null,
      "token_requests": 1,                             # POSTs to a token endpoint, all steps
      "silent_token_requests": 0,                      # of which during then_silent
      "requests": [[method, path], ...],
      "entries": {                                     # the cache as MSAL for Python serializes it
        "AccessToken": [{"key", "members", "values"}], # sorted by key; members: the sorted member
        "RefreshToken": [...],                         # names; values: the string members but
        "IdToken": [...],                              # "secret"
        "Account": [...],
        "AppMetadata": [...]
      }
    }

Exit status 0 when the steps ran (a refused migration included: its "error" is in "result"), 1
when MSAL for Python raised, 2 on usage errors.
"""

import json
import sys

import msal

from emulator_session import RewritingSession, entries_of, load_cache, print_report, save_cache


def token_report(result, with_claims):
    report = {
        "token_source": result.get("token_source"),
        "access_token": result.get("access_token"),
        "error": result.get("error"),
        "error_description": result.get("error_description"),
    }
    if with_claims:
        report["preferred_username"] = (result.get("id_token_claims") or {}).get("preferred_username")
    return report


def main(spec_path):
    with open(spec_path, encoding="utf-8") as handle:
        spec = json.load(handle)
    cache_file = spec["cache_file"]
    cache = load_cache(cache_file)
    refresh_token = None
    if spec.get("refresh_token_file"):
        with open(spec["refresh_token_file"], encoding="utf-8") as handle:
            refresh_token = handle.read().strip()
        if not refresh_token:
            print("the refresh token file is empty", file=sys.stderr)
            return 2
    http = RewritingSession(spec["advertised"], spec["emulator"])
    if spec.get("secret") is not None:
        app = msal.ConfidentialClientApplication(
            spec["client_id"], client_credential=spec["secret"], authority=spec["authority"],
            token_cache=cache, http_client=http)
    else:
        app = msal.PublicClientApplication(
            spec["client_id"], authority=spec["authority"], token_cache=cache, http_client=http)
    scopes = spec["scopes"]

    result = None
    if refresh_token is not None:
        result = token_report(app.acquire_token_by_refresh_token(refresh_token, scopes), with_claims=True)

    accounts = app.get_accounts()

    silent = None
    silent_token_requests = 0
    if spec.get("then_silent"):
        before = len(http.seen)
        if accounts:
            answer = app.acquire_token_silent(scopes, accounts[0])
            silent = token_report(answer, with_claims=False) if answer else {
                "token_source": None, "access_token": None, "error": "no_token",
                "error_description": "acquire_token_silent returned None"}
        else:
            silent = {"token_source": None, "access_token": None, "error": "no_account",
                      "error_description": "get_accounts() listed no account"}
        silent_token_requests = http.token_requests(since=before)

    save_cache(cache, cache_file)
    serialized = json.loads(cache.serialize())
    print_report({
        "msal_python_version": msal.__version__,
        "result": result,
        "accounts": [account.get("username") for account in accounts],
        "silent": silent,
        "token_requests": http.token_requests(),
        "silent_token_requests": silent_token_requests,
        "requests": http.seen,
        "entries": entries_of(serialized),
    }, serialized, [refresh_token])
    return 0


if __name__ == "__main__":
    if len(sys.argv) != 2:
        print(__doc__, file=sys.stderr)
        sys.exit(2)
    sys.exit(main(sys.argv[1]))
