"""MSAL for Python as a web app running its own sign-in redirect, against swift-msal's local provider.

    web_app.py SPEC_JSON

SPEC_JSON (a file):

    {
      "emulator": "http://127.0.0.1:<port>",           # where MSALEmulator listens
      "advertised": "https://login.microsoftonline.com", # the origin it names itself by
      "authority": "https://login.microsoftonline.com/<tenant>",
      "client_id": "...",                              # a confidential client (the web app)
      "secret": "...",                                 # its client secret
      "scopes": ["User.Read"],
      "cache_file": "...",                             # read first when it exists, written back (mode
                                                       # 0600) when changed
      "exclude_scopes": ["offline_access"],            # optional: the application's exclude_scopes
      "mode": "url",                                   # "url", "redeem" or "silent"

      # mode "url" (each optional but redirect_uri):
      "redirect_uri": "https://app.contoso.example/callback",
      "state": "...", "nonce": "...", "login_hint": "...", "domain_hint": "...", "prompt": "select_account",
      "code_challenge": "<43 base64url characters>",   # the S256 challenge, passed as the keyword
      "code_challenge_method": "S256",                 # arguments code_challenge and
                                                       # code_challenge_method (see below)

      # mode "redeem":
      "redirect_uri": "https://app.contoso.example/callback",
      "nonce": "...",                                  # optional: the nonce the ID token must carry
      "code_file": "...",                              # a file holding the authorization code
      "code_verifier_file": "...",                     # optional: a file holding the PKCE verifier

      # mode "silent":
      "username": "adele@contoso.example"
    }

mode "url": ``get_authorization_request_url(scopes, login_hint=…, state=…, redirect_uri=…,
prompt=…, nonce=…, domain_hint=…, code_challenge=…, code_challenge_method=…)``, the values the
spec gives (absent ones not passed). MSAL for Python 1.39's get_authorization_request_url has no
PKCE parameter: it takes ``**kwargs`` but reads only ``authority`` from them and drops the rest, so
the challenge does not reach the URL. The script passes it anyway, the only way the method's
signature offers, and prints the URL exactly as MSAL for Python built it ("url_kwargs" names the
keyword arguments it passed beyond the named parameters); a web app that wants PKCE with it has to
add ``code_challenge`` and ``code_challenge_method`` to the URL itself.

mode "redeem": ``acquire_token_by_authorization_code(code, scopes, redirect_uri=…, nonce=…,
data={"code_verifier": verifier})``: the verifier goes in ``data``, the extra body fields the
method accepts, as MSAL for Python's own ``acquire_token_by_auth_code_flow`` passes it
(``data=dict(..., code_verifier=…)``); without code_verifier_file no verifier is sent. MSAL for
Python checks the ID token's ``nonce`` against the given one (a ValueError, exit status 1, when
they differ) and caches the answer as a sign-in.

mode "silent": ``get_accounts()``, the account whose ``username`` is the spec's username
(case-insensitive), then ``acquire_token_silent(scopes, account)``; the result's error is
"no_account" when there is no such account. get_accounts() is not called when the cache holds no
Account entry (MSAL for Python would look under the host's aliases, asking instance discovery).

The code and the verifier are read from files, never taken as arguments (a process's arguments are
visible to every user of the machine), and never printed; neither is the client secret or any
refresh token: the report is checked for them before it is printed.

Requests for the advertised origin go to the emulator (an http_client that rewrites the URL; the
bodies are passed as they are, since the emulator already names itself by the advertised origin).
Nothing is sent anywhere else; the authorization URL is printed, not visited.

Prints one JSON object:

    {
      "msal_python_version": "1.39.0",
      "url": "https://login.microsoftonline.com/<tenant>/oauth2/v2.0/authorize?…" | null,  # mode url
      "url_kwargs": ["code_challenge", "code_challenge_method"],  # mode url: the keyword arguments
                                                       # passed beyond the named parameters
      "result": {"token_source", "access_token", "error", "error_description",
                 "username"} | null,                   # modes redeem and silent; username: the
                                                       # answer's id_token_claims' preferred_username
                                                       # (null for a cache hit: MSAL for Python 1.39
                                                       # returns no claims then)
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

Exit status 0 when the call ran (a refused code included: its "error" is in "result"), 1 when
MSAL for Python raised, 2 on usage errors.
"""

import json
import sys

import msal

from emulator_session import RewritingSession, entries_of, load_cache, print_report, report, save_cache, usage

MODES = ("url", "redeem", "silent")
# get_authorization_request_url's named parameters the spec may give, besides scopes.
URL_PARAMETERS = ("login_hint", "state", "redirect_uri", "prompt", "nonce", "domain_hint")
# What the script passes as keyword arguments beyond them: the PKCE challenge.
URL_KWARGS = ("code_challenge", "code_challenge_method")


def read_secret(path, what):
    """The contents of the file at `path`, surrounding white space ignored; None when it is empty."""
    with open(path, encoding="utf-8") as handle:
        value = handle.read().strip()
    if not value:
        print("the %s file is empty" % what, file=sys.stderr)
        return None
    return value


def main(spec_path):
    with open(spec_path, encoding="utf-8") as handle:
        spec = json.load(handle)
    mode = spec.get("mode")
    if mode not in MODES:
        return usage('mode must be one of "url", "redeem" and "silent"')
    if mode in ("url", "redeem") and not spec.get("redirect_uri"):
        return usage('mode "%s" needs redirect_uri' % mode)
    if mode == "silent" and not spec.get("username"):
        return usage('mode "silent" needs username')
    exclude_scopes = spec.get("exclude_scopes")
    if exclude_scopes is not None and not isinstance(exclude_scopes, list):
        return usage("exclude_scopes must be a list")

    code = verifier = None
    if mode == "redeem":
        if not spec.get("code_file"):
            return usage('mode "redeem" needs code_file')
        code = read_secret(spec["code_file"], "code")
        if code is None:
            return 2
        if spec.get("code_verifier_file"):
            verifier = read_secret(spec["code_verifier_file"], "code verifier")
            if verifier is None:
                return 2

    cache_file = spec["cache_file"]
    cache = load_cache(cache_file)
    http = RewritingSession(spec["advertised"], spec["emulator"])
    app = msal.ConfidentialClientApplication(
        spec["client_id"], client_credential=spec["secret"], authority=spec["authority"],
        token_cache=cache, http_client=http, exclude_scopes=exclude_scopes)
    scopes = spec["scopes"]

    def listed_accounts():
        # search(), not serialize(): serialize() clears has_state_changed, which decides the write below.
        if not any(True for _ in cache.search(msal.TokenCache.CredentialType.ACCOUNT)):
            return []
        return app.get_accounts()

    url = None
    url_kwargs = []
    result = None
    if mode == "url":
        named = {name: spec[name] for name in URL_PARAMETERS if spec.get(name) is not None}
        extra = {name: spec[name] for name in URL_KWARGS if spec.get(name) is not None}
        url_kwargs = sorted(extra)
        url = app.get_authorization_request_url(scopes, **named, **extra)
        accounts = listed_accounts()
    elif mode == "redeem":
        kwargs = {"data": {"code_verifier": verifier}} if verifier is not None else {}
        answer = app.acquire_token_by_authorization_code(
            code, scopes, redirect_uri=spec["redirect_uri"], nonce=spec.get("nonce"), **kwargs)
        result = report(answer)
        accounts = listed_accounts()
    else:
        accounts = listed_accounts()
        username = spec["username"].lower()
        chosen = [a for a in accounts if (a.get("username") or "").lower() == username]
        if chosen:
            result = report(app.acquire_token_silent(scopes, chosen[0]))
        else:
            result = {"token_source": None, "access_token": None, "error": "no_account",
                      "error_description": "get_accounts() listed no account of that user", "username": None}

    save_cache(cache, cache_file)
    serialized = json.loads(cache.serialize())
    print_report({
        "msal_python_version": msal.__version__,
        "url": url,
        "url_kwargs": url_kwargs,
        "result": result,
        "token_requests": http.token_requests(),
        "requests": http.seen,
        "accounts": [account.get("username") for account in accounts],
        "entries": entries_of(serialized),
    }, serialized, [code, verifier, spec["secret"]])
    return 0


if __name__ == "__main__":
    if len(sys.argv) != 2:
        print(__doc__, file=sys.stderr)
        sys.exit(2)
    sys.exit(main(sys.argv[1]))
