#!/usr/bin/env python3
"""Microsoft's broker client, driven for the broker tests (a test tool).

    python3 runtime_client.py STEP [--client-id ID] [--login-hint USER] [--authority URL]

MSAL for Python with `enable_broker_on_linux=True` (which loads pymsalruntime, Microsoft's
closed-source runtime) against whatever owns com.microsoft.identity.broker1 on the session bus.
MSAL for Python's own HTTP never leaves the process: an `http_client` answers discovery and
refuses token requests. Prints one JSON line per result.

STEP: `interactive` (acquire_token_interactive with a login hint), `lifecycle` (interactive, then
get_accounts, acquire_token_silent, remove_account, get_accounts), `pop` (pymsalruntime's
signin_silently with PoP parameters, directly: MSAL for Python 1.39 refuses PoP through the Linux
broker).

Needs: pymsalruntime 0.20.7 (Debian's libwebkit2gtk-4.1-0), msal 1.39.
"""

import json
import sys
import threading
import uuid

CLIENT_ID = "04b07795-8ddb-461a-bbee-02f9e1bf7b46"
AUTHORITY = "https://login.microsoftonline.com/organizations"


class _Response:
    def __init__(self, status, body):
        self.status_code, self.text, self.headers = status, body, {}

    def raise_for_status(self):
        if self.status_code >= 400:
            raise RuntimeError("HTTP %d" % self.status_code)


class OfflineHTTP:
    """Answers instance and tenant discovery; every other request is refused."""

    def get(self, url, **_):
        base = "https://login.microsoftonline.com/organizations"
        if "openid-configuration" in url:
            return _Response(200, json.dumps({
                "token_endpoint": base + "/oauth2/v2.0/token", "authorization_endpoint": base + "/oauth2/v2.0/authorize",
                "device_authorization_endpoint": base + "/oauth2/v2.0/devicecode", "jwks_uri": base + "/discovery/v2.0/keys",
                "issuer": "https://login.microsoftonline.com/{tenantid}/v2.0"}))
        if "discovery/instance" in url:
            return _Response(200, json.dumps({
                "tenant_discovery_endpoint": base + "/v2.0/.well-known/openid-configuration",
                "metadata": [{"preferred_network": "login.microsoftonline.com", "preferred_cache": "login.windows.net",
                              "aliases": ["login.microsoftonline.com", "login.windows.net"]}]}))
        return _Response(404, "{}")

    def post(self, url, **_):
        return _Response(400, json.dumps({"error": "invalid_request", "error_description": "offline: " + url}))

    def close(self):
        pass


def summary(result):
    if not result:
        return {"result": None}
    keep = ("token_source", "token_type", "error", "error_description", "scope", "access_token")
    out = {k: result.get(k) for k in keep if k in result}
    if "id_token_claims" in result:
        out["preferred_username"] = result["id_token_claims"].get("preferred_username")
    return out


def emit(step, value):
    print(json.dumps({"step": step, **value}), flush=True)


def main(argv):
    import argparse
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("step", nargs="?", default="interactive", choices=["interactive", "lifecycle", "pop"])
    parser.add_argument("--client-id", default=CLIENT_ID)
    parser.add_argument("--login-hint", default="adele@contoso.com")
    parser.add_argument("--authority", default=AUTHORITY)
    args = parser.parse_args(argv)
    step, client_id, authority = args.step, args.client_id, args.authority

    import msal
    app = msal.PublicClientApplication(client_id, authority=authority, enable_broker_on_linux=True, http_client=OfflineHTTP())
    if step in ("interactive", "lifecycle"):
        result = app.acquire_token_interactive(
            ["User.Read"], parent_window_handle=app.CONSOLE_WINDOW_HANDLE, login_hint=args.login_hint)
        emit("interactive", summary(result))
    if step == "lifecycle":
        accounts = app.get_accounts()
        emit("accounts", {"accounts": accounts})
        if accounts:
            emit("silent", summary(app.acquire_token_silent(["User.Read"], account=accounts[0])))
            app.remove_account(accounts[0])
            emit("removed", {"accounts": app.get_accounts()})
    if step == "pop":
        import pymsalruntime
        done, out = threading.Event(), {}

        def callback(result):
            error = result.get_error()
            if error:
                out.update(error_status=str(error.get_status()), error_context=error.get_context())
            else:
                out.update(authorization_header=result.get_authorization_header(), is_pop=bool(result.is_pop_authorization()))
            done.set()

        params = pymsalruntime.MSALRuntimeAuthParameters(client_id, authority)
        params.set_requested_scopes(["User.Read"])
        params.set_redirect_uri("https://login.microsoftonline.com/common/oauth2/nativeclient")
        params.set_pop_params("GET", "graph.microsoft.com", "/v1.0/me", "nonce-1")
        handle = pymsalruntime.signin_silently(params, str(uuid.uuid4()), callback)
        done.wait(30)
        del handle
        emit("pop", out)


if __name__ == "__main__":
    main(sys.argv[1:])
