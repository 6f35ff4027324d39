"""MSAL for Python's user federated identity credential grant (user_fic) against swift-msal's local provider.

    user_fic.py SPEC_JSON

SPEC_JSON (a file):

    {
      "emulator": "http://127.0.0.1:<port>",           # where MSALEmulator listens
      "advertised": "https://login.microsoftonline.com", # the origin it names itself by
      "authority": "https://login.microsoftonline.com/<tenant>",  # tenant-specific: user_fic needs one
      "client_id": "...",                              # the agent identity (a confidential client)
      "secret": "...",                                 # its client secret
      "scopes": ["User.Read"],
      "cache_file": "...",                             # read first when it exists, written back (mode
                                                       # 0600) when changed
      "credential_file": "...",                        # mode "user_fic": a file holding the federated
                                                       # identity credential (surrounding white space
                                                       # ignored); not read in mode "silent"
      "username": "adele@contoso.example",             # the user: exactly one of username and
      "user_object_id": "...",                         # user_object_id
      "mode": "user_fic"                               # or "silent"
    }

mode "user_fic": ``acquire_token_by_user_federated_identity_credential(scopes, assertion,
username=… | user_object_id=…)``, which always sends the grant (MSAL for Python 1.39 does not look in
the cache first) and caches the answer under the user's account.

mode "silent": ``get_accounts()``, the account whose ``username`` is the spec's username
(case-insensitive) or whose ``local_account_id`` is its user_object_id, then
``acquire_token_silent(scopes, account)``; the result's error is "no_account" when there is no
such account. get_accounts() is not called when the cache holds no Account entry (there is nothing
to list, and MSAL for Python would look under the host's aliases, asking instance discovery).

The credential is read from a file, never taken as an argument (a process's arguments are visible
to every user of the machine), and never printed; neither is any refresh token: the report is
checked for them before it is printed.

Requests for the advertised origin go to the emulator (an http_client that rewrites the URL; the
bodies are passed as they are, since the emulator already names itself by the advertised origin).
Nothing is sent anywhere else.

Prints one JSON object:

    {
      "msal_python_version": "1.39.0",
      "result": {"token_source", "access_token", "error", "error_description",
                 "username"},                          # username: the answer's id_token_claims'
                                                       # preferred_username (null for a cache hit:
                                                       # MSAL for Python 1.39 returns no claims then)
      "token_requests": 1,                             # POSTs to a token endpoint
      "requests": [[method, path], ...],
      "accounts": ["adele@contoso.example"],           # get_accounts() usernames after the call
      "entries": {                                     # the cache as MSAL for Python serializes it
        "AccessToken": [{"key", "members", "values"}], # after the call, sorted by key; members: the
        "RefreshToken": [...],                         # sorted member names; values: the string
        "IdToken": [...],                              # members but "secret"
        "Account": [...],
        "AppMetadata": [...]
      }
    }

Exit status 0 when the call ran (a refused grant included: its "error" is in "result"), 1 when
MSAL for Python raised, 2 on usage errors.
"""

import json
import sys

import msal

from emulator_session import RewritingSession, entries_of, load_cache, print_report, report, save_cache, usage


def main(spec_path):
    with open(spec_path, encoding="utf-8") as handle:
        spec = json.load(handle)
    mode = spec.get("mode")
    if mode not in ("user_fic", "silent"):
        return usage('mode must be "user_fic" or "silent"')
    username = spec.get("username")
    user_object_id = spec.get("user_object_id")
    if bool(username) == bool(user_object_id):
        return usage("name the user with exactly one of username and user_object_id")

    credential = None
    if mode == "user_fic":
        if not spec.get("credential_file"):
            return usage('mode "user_fic" needs credential_file')
        with open(spec["credential_file"], encoding="utf-8") as handle:
            credential = handle.read().strip()
        if not credential:
            return usage("the credential file is empty")

    cache_file = spec["cache_file"]
    cache = load_cache(cache_file)
    http = RewritingSession(spec["advertised"], spec["emulator"])
    app = msal.ConfidentialClientApplication(
        spec["client_id"], client_credential=spec["secret"], authority=spec["authority"],
        token_cache=cache, http_client=http)
    scopes = spec["scopes"]

    def listed_accounts():
        # search(), not serialize(): serialize() clears has_state_changed, which decides the write below.
        if not any(True for _ in cache.search(msal.TokenCache.CredentialType.ACCOUNT)):
            return []
        return app.get_accounts()

    if mode == "user_fic":
        if username:
            answer = app.acquire_token_by_user_federated_identity_credential(scopes, credential, username=username)
        else:
            answer = app.acquire_token_by_user_federated_identity_credential(
                scopes, credential, user_object_id=user_object_id)
        result = report(answer)
        accounts = listed_accounts()
    else:
        accounts = listed_accounts()
        if username:
            chosen = [a for a in accounts if (a.get("username") or "").lower() == username.lower()]
        else:
            chosen = [a for a in accounts if (a.get("local_account_id") or "").lower() == user_object_id.lower()]
        if chosen:
            result = report(app.acquire_token_silent(scopes, chosen[0]))
        else:
            result = {"token_source": None, "access_token": None, "error": "no_account",
                      "error_description": "get_accounts() listed no account of that user", "username": None}

    save_cache(cache, cache_file)
    serialized = json.loads(cache.serialize())
    print_report({
        "msal_python_version": msal.__version__,
        "result": result,
        "token_requests": http.token_requests(),
        "requests": http.seen,
        "accounts": [account.get("username") for account in accounts],
        "entries": entries_of(serialized),
    }, serialized, [credential])
    return 0


if __name__ == "__main__":
    if len(sys.argv) != 2:
        print(__doc__, file=sys.stderr)
        sys.exit(2)
    sys.exit(main(sys.argv[1]))
