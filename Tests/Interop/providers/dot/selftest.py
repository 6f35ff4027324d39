#!/usr/bin/env python3
"""End-to-end self-test of the DOT test provider and its two user agents.

    .build/oidc-venv/bin/python Tests/Interop/providers/dot/selftest.py [--no-browser] [--report FILE]

Starts server.py on a free port, signs in with login_agent.py (run by the system python3, to
prove it needs only the standard library) against a throwaway loopback listener, redeems the
code with PKCE, verifies the ID token against the JWKS, refreshes (rotation), shows that a wider
scope and a reused refresh token are refused (and that reuse revokes the whole family), checks
the loopback-port handling, the redirect-URI admin endpoint, the request counters, the device
flow and RP-initiated logout, the client-credentials grant of the confidential client, the run-time test controls (/test/settings: access/ID-token
lifetimes, refresh responses without id_token, injected token-endpoint failures) and the request
details in /test/stats (parameter and header names of token and end-session requests), and
finally signs in again with real headless Chromium
(browser_login.py). Prints one line per check and "N passed, 0 failed" at the end; exit 0
when all pass. --report writes every observed HTTP response (tokens shortened) as JSON.
"""

import argparse
import base64
import hashlib
import http.cookiejar
import http.server
import json
import os
import secrets
import shutil
import subprocess
import sys
import tempfile
import threading
import time
import urllib.error
import urllib.parse
import urllib.request

from jwcrypto import jwk, jwt

HERE = os.path.dirname(os.path.abspath(__file__))
SYSTEM_PYTHON = shutil.which("python3") or sys.executable
SCOPE_NARROW = "openid profile offline_access"
SCOPE_FULL = "openid profile email offline_access"


# ---------------------------------------------------------------------------------------------
# helpers

class Check:
    def __init__(self):
        self.passed = 0
        self.failed = 0
        self.report = {}

    def ok(self, condition, label, detail=""):
        if condition:
            self.passed += 1
            print(f"PASS {label}", flush=True)
        else:
            self.failed += 1
            print(f"FAIL {label} {detail}", flush=True)
        return condition

    def record(self, key, value):
        self.report[key] = value


def shorten(value):
    """Tokens are replaced by a short marker in the report."""
    if isinstance(value, dict):
        return {k: shorten_field(k, v) for k, v in value.items()}
    return value


def shorten_field(key, value):
    if key in ("access_token", "refresh_token", "id_token", "device_code") and isinstance(value, str):
        return f"<{key}: {len(value)} chars>"
    return value


def http_request(url, form=None, headers=None, method=None, opener=None):
    """(status, headers, parsed-JSON-or-text) without following redirects."""

    class NoRedirect(urllib.request.HTTPRedirectHandler):
        def redirect_request(self, *args, **kwargs):
            return None

    data = urllib.parse.urlencode(form).encode() if form is not None else None
    req = urllib.request.Request(url, data=data, method=method or ("POST" if data is not None else "GET"))
    for name, value in (headers or {}).items():
        req.add_header(name, value)
    if data is not None:
        req.add_header("Content-Type", "application/x-www-form-urlencoded")
    opener = opener or urllib.request.build_opener(urllib.request.ProxyHandler({}), NoRedirect())
    try:
        with opener.open(req, timeout=30) as resp:
            status, hdrs, raw = resp.status, resp.headers, resp.read()
    except urllib.error.HTTPError as error:
        status, hdrs, raw = error.code, error.headers, error.read()
    text = raw.decode("utf-8", "replace")
    try:
        body = json.loads(text)
    except ValueError:
        body = text
    return status, hdrs, body


def post_json(url, payload):
    req = urllib.request.Request(url, data=json.dumps(payload).encode(), method="POST")
    req.add_header("Content-Type", "application/json")
    opener = urllib.request.build_opener(urllib.request.ProxyHandler({}))
    try:
        with opener.open(req, timeout=30) as resp:
            return resp.status, json.loads(resp.read())
    except urllib.error.HTTPError as error:
        return error.code, json.loads(error.read())


def b64url(data):
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def decode_segment(segment):
    return json.loads(base64.urlsafe_b64decode(segment + "=" * (-len(segment) % 4)))


class Listener:
    """A throwaway loopback redirect listener: records every request, answers 200."""

    def __init__(self, host="127.0.0.1"):
        received = self.received = []

        class Handler(http.server.BaseHTTPRequestHandler):
            def do_GET(self):
                received.append(self.path)
                body = b"<!DOCTYPE html><title>Signed in</title><p id=done>You can close this window.</p>"
                self.send_response(200)
                self.send_header("Content-Type", "text/html")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, *args):
                pass

        self.server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.port = self.server.server_address[1]
        self.host = host
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()

    def uri(self, path="/"):
        return f"http://{self.host}:{self.port}{path}"

    def close(self):
        self.server.shutdown()
        self.server.server_close()


class Provider:
    def __init__(self, state_dir, *extra):
        self.started = time.monotonic()
        self.proc = subprocess.Popen(
            [sys.executable, os.path.join(HERE, "server.py"), "--state-dir", state_dir, *extra],
            stdout=subprocess.PIPE,
            stderr=open(os.path.join(state_dir + ".stderr"), "w"),
            text=True,
        )
        line_box = []
        reader = threading.Thread(target=lambda: line_box.append(self.proc.stdout.readline()), daemon=True)
        reader.start()
        reader.join(60)
        if not line_box or not line_box[0]:
            self.stop()
            raise SystemExit(f"server.py printed no JSON line; see {state_dir}.stderr")
        self.info = json.loads(line_box[0])
        self.ready_after = time.monotonic() - self.started
        self.issuer = self.info["issuer"]
        self.origin = self.info["origin"]

    def stats(self):
        return http_request(self.origin + "/test/stats")[2]

    def reset_stats(self):
        return http_request(self.origin + "/test/stats/reset", form={})[2]

    def stop(self):
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        return self.proc.returncode


def pkce_pair():
    verifier = b64url(secrets.token_bytes(32))
    return verifier, b64url(hashlib.sha256(verifier.encode()).digest())


def authorize_url(discovery, client_id, redirect_uri, scope, state, nonce, challenge):
    query = urllib.parse.urlencode(
        {
            "response_type": "code",
            "client_id": client_id,
            "redirect_uri": redirect_uri,
            "scope": scope,
            "state": state,
            "nonce": nonce,
            "code_challenge": challenge,
            "code_challenge_method": "S256",
        }
    )
    return discovery["authorization_endpoint"] + "?" + query


def run_agent(url, username, password, *extra, timeout=60):
    started = time.monotonic()
    result = subprocess.run(
        [SYSTEM_PYTHON, os.path.join(HERE, "login_agent.py"), url, "--username", username, "--password", password,
         *extra],
        capture_output=True, text=True, timeout=timeout,
    )
    return result, time.monotonic() - started


def run_browser(url, username, password, *extra):
    started = time.monotonic()
    result = subprocess.run(
        [sys.executable, os.path.join(HERE, "browser_login.py"), url, "--username", username, "--password",
         password, *extra],
        capture_output=True, text=True, timeout=90,
    )
    return result, time.monotonic() - started


# ---------------------------------------------------------------------------------------------
# the test

def sign_in_with(check, provider, discovery, agent, label, scope=SCOPE_FULL, user="alice", host="127.0.0.1",
                 path="/"):
    """A full interactive sign-in; returns (token response, verifier-less details) or None."""
    listener = Listener(host)
    try:
        verifier, challenge = pkce_pair()
        state, nonce = secrets.token_urlsafe(16), secrets.token_urlsafe(16)
        redirect_uri = listener.uri(path)
        url = authorize_url(discovery, provider.info["client_id"], redirect_uri, scope, state, nonce, challenge)
        runner = run_agent if agent == "agent" else run_browser
        result, seconds = runner(url, user, provider.info["users"][user])
        final = result.stdout.strip()
        if not check.ok(result.returncode == 0, f"{label}: sign-in via {agent} ({seconds:.1f} s)",
                        f"rc={result.returncode} stderr={result.stderr.strip()}"):
            return None
        params = urllib.parse.parse_qs(urllib.parse.urlsplit(final).query)
        delivered = urllib.parse.urlsplit(final).path + "?" + urllib.parse.urlsplit(final).query
        check.ok(delivered in listener.received, f"{label}: the listener received the redirect",
                 f"received={listener.received}")
        check.ok(params.get("state") == [state], f"{label}: state round-trips")
        code = params["code"][0]
        status, _, token = http_request(
            discovery["token_endpoint"],
            form={"grant_type": "authorization_code", "code": code, "redirect_uri": redirect_uri,
                  "client_id": provider.info["client_id"], "code_verifier": verifier},
        )
        check.ok(status == 200 and "access_token" in token, f"{label}: code redeemed with PKCE",
                 f"{status} {token}")
        return {"token": token, "status": status, "nonce": nonce, "code": code, "redirect_uri": redirect_uri,
                "verifier": verifier}
    finally:
        listener.close()


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--no-browser", action="store_true")
    parser.add_argument("--report", help="write the observed responses here (JSON)")
    parser.add_argument("--keep", action="store_true", help="keep the state directory")
    args = parser.parse_args()

    check = Check()
    workdir = tempfile.mkdtemp(prefix="dotp-selftest-")
    state_dir = os.path.join(workdir, "state")
    provider = Provider(state_dir, "--access-token-seconds", "120")
    print(f"server.py ready after {provider.ready_after:.2f} s "
          f"(self-reported {provider.info['startup_seconds']} s); issuer {provider.issuer}", flush=True)
    check.record("startup_seconds", round(provider.ready_after, 2))
    check.record("ready_line", {k: v for k, v in provider.info.items() if k != "users"})
    try:
        exercise(check, provider, args)
    finally:
        rc = provider.stop()
        check.ok(rc == 0, "server.py exits 0 on SIGTERM", f"rc={rc}")
    try:
        short_lived(check, os.path.join(workdir, "short"))
    finally:
        if args.report:
            with open(args.report, "w") as handle:
                json.dump(check.report, handle, indent=2)
        if not args.keep:
            shutil.rmtree(workdir, ignore_errors=True)
        else:
            print(f"state kept in {workdir}")
    print(f"{check.passed} passed, {check.failed} failed")
    return 0 if check.failed == 0 else 1


def exercise(check, provider, args):
    info = provider.info
    client_id = info["client_id"]

    # --- discovery + JWKS ------------------------------------------------------------------
    status, _, discovery = http_request(provider.issuer + "/.well-known/openid-configuration")
    check.ok(status == 200 and discovery["issuer"] == provider.issuer, "discovery issuer == ready-line issuer")
    check.ok("end_session_endpoint" in discovery, "discovery advertises end_session_endpoint")
    check.record("discovery", discovery)
    status, _, jwks = http_request(discovery["jwks_uri"])
    check.ok(status == 200 and len(jwks["keys"]) == 1, "JWKS has one key")
    keyset = jwk.JWKSet.from_json(json.dumps(jwks))
    check.record("jwks_key_fields", sorted(jwks["keys"][0]))

    # --- counters ----------------------------------------------------------------------------
    provider.reset_stats()
    stats = provider.stats()
    check.ok(stats["total"] == 0 and stats["endpoints"]["token"] == 0, "stats reset to zero")

    # --- sign-in 1: narrow scope (no email), login_agent -------------------------------------
    first = sign_in_with(check, provider, discovery, "agent", "agent sign-in", scope=SCOPE_NARROW)
    if first is None:
        return
    token = first["token"]
    check.record("token_response_authorization_code", shorten(token))
    stats = provider.stats()
    check.record("stats_after_one_sign_in", stats)
    check.ok(stats["endpoints"]["token"] == 1 and stats["endpoints"]["authorize"] == 2
             and stats["endpoints"]["authorize_consent"] == 1 and stats["endpoints"]["login_post"] == 1,
             "stats count the sign-in (2 authorize GETs, 1 login POST, 1 consent POST, 1 token POST)",
             json.dumps(stats["endpoints"]))
    check.ok(token.get("expires_in") == 120, "expires_in follows --access-token-seconds", token.get("expires_in"))

    # --- ID token ------------------------------------------------------------------------------
    id_token = token["id_token"]
    header = decode_segment(id_token.split(".")[0])
    verified = jwt.JWT(jwt=id_token, key=keyset, algs=["RS256"],
                       check_claims={"iss": provider.issuer, "aud": client_id, "exp": None})
    claims = json.loads(verified.claims)
    check.ok(True, "ID token signature verifies with the JWKS (RS256)")
    check.ok(header.get("kid") == jwks["keys"][0]["kid"], "ID token header kid == JWKS kid", header)
    check.ok(claims["nonce"] == first["nonce"], "ID token nonce round-trips")
    check.ok(isinstance(claims["aud"], str), "ID token aud is a string", claims["aud"])
    check.ok("email" not in claims and claims.get("preferred_username") == "alice",
             "narrow-scope ID token: preferred_username, no email", sorted(claims))
    check.record("id_token_header", header)
    check.record("id_token_claims_scope_" + SCOPE_NARROW.replace(" ", "_"), claims)

    status, _, userinfo = http_request(discovery["userinfo_endpoint"],
                                       headers={"Authorization": "Bearer " + token["access_token"]})
    check.ok(status == 200 and userinfo.get("sub") == claims["sub"], "userinfo answers for the access token")
    check.record("userinfo_scope_" + SCOPE_NARROW.replace(" ", "_"), userinfo)

    second = sign_in_with(check, provider, discovery, "agent", "localhost host, another port", host="localhost")

    # --- refresh (rotation) ----------------------------------------------------------------------
    rt1 = token["refresh_token"]
    status, _, refreshed = http_request(discovery["token_endpoint"], form={
        "grant_type": "refresh_token", "refresh_token": rt1, "client_id": client_id})
    check.ok(status == 200 and refreshed.get("refresh_token") not in (None, rt1), "refresh rotates the refresh token",
             f"{status} {shorten(refreshed)}")
    check.record("token_response_refresh", shorten(refreshed))
    if "id_token" in refreshed:
        refreshed_claims = json.loads(jwt.JWT(jwt=refreshed["id_token"], key=keyset, algs=["RS256"]).claims)
        check.record("id_token_claims_after_refresh", refreshed_claims)
        check.ok(refreshed_claims["sub"] == claims["sub"], "refreshed ID token has the same sub")
        check.ok("nonce" not in refreshed_claims, "refreshed ID token has no nonce", sorted(refreshed_claims))
    rt2 = refreshed["refresh_token"]

    # --- refresh asking for a wider scope ------------------------------------------------------
    status, headers, wider = http_request(discovery["token_endpoint"], form={
        "grant_type": "refresh_token", "refresh_token": rt2, "client_id": client_id,
        "scope": "openid profile email offline_access"})
    check.ok(status == 400 and isinstance(wider, dict) and wider.get("error") == "invalid_scope",
             "refresh with a wider scope -> 400 invalid_scope", f"{status} {wider}")
    check.record("refresh_wider_scope", {"status": status, "headers": dict(headers), "body": wider})

    # --- refresh asking for a narrower scope (allowed) -------------------------------------------
    status, _, narrower = http_request(discovery["token_endpoint"], form={
        "grant_type": "refresh_token", "refresh_token": rt2, "client_id": client_id, "scope": "openid"})
    check.ok(status == 200, "refresh with a narrower scope (openid) succeeds; the wider attempt did not burn rt2",
             f"{status} {narrower}")
    check.record("refresh_narrower_scope", {"status": status, "body": shorten(narrower)})
    rt3 = narrower.get("refresh_token")
    at3 = narrower.get("access_token")

    # --- reuse of a rotated refresh token ----------------------------------------------------------
    status, headers, reuse = http_request(discovery["token_endpoint"], form={
        "grant_type": "refresh_token", "refresh_token": rt1, "client_id": client_id})
    check.ok(status == 400 and isinstance(reuse, dict) and reuse.get("error") == "invalid_grant",
             "reusing a rotated refresh token -> 400 invalid_grant", f"{status} {reuse}")
    check.record("refresh_reuse", {"status": status, "headers": dict(headers), "body": reuse})
    status, _, after = http_request(discovery["token_endpoint"], form={
        "grant_type": "refresh_token", "refresh_token": rt3, "client_id": client_id})
    check.ok(status == 400 and after.get("error") == "invalid_grant",
             "after the reuse, the newest refresh token of the family is revoked too", f"{status} {after}")
    check.record("refresh_latest_after_reuse", {"status": status, "body": after})
    status, _, body = http_request(discovery["userinfo_endpoint"], headers={"Authorization": "Bearer " + at3})
    check.ok(status == 401, "after the reuse, the family's access token is revoked too (userinfo 401)",
             f"{status} {body}")
    check.record("userinfo_after_reuse", {"status": status, "body": body})
    if second:
        status, _, other = http_request(discovery["token_endpoint"], form={
            "grant_type": "refresh_token", "refresh_token": second["token"]["refresh_token"], "client_id": client_id})
        check.ok(status == 200, "a different sign-in's refresh token (another family) still works", f"{status} {other}")
        second["latest_refresh_token"] = other.get("refresh_token")

    # --- sign-in 2 (another grant): full scope, another ephemeral port, localhost host -------------
    if second:
        claims2 = json.loads(jwt.JWT(jwt=second["token"]["id_token"], key=keyset, algs=["RS256"]).claims)
        check.ok(claims2.get("email") == "alice@example.test", "full-scope ID token carries email", sorted(claims2))
        check.record("id_token_claims_scope_" + SCOPE_FULL.replace(" ", "_"), claims2)
        check.record("token_response_full_scope", shorten(second["token"]))
        status, _, userinfo = http_request(discovery["userinfo_endpoint"],
                                           headers={"Authorization": "Bearer " + second["token"]["access_token"]})
        check.record("userinfo_scope_" + SCOPE_FULL.replace(" ", "_"), userinfo)

        # code replay
        status, _, replay = http_request(discovery["token_endpoint"], form={
            "grant_type": "authorization_code", "code": second["code"], "redirect_uri": second["redirect_uri"],
            "client_id": client_id, "code_verifier": second["verifier"]})
        check.ok(status == 400, "redeeming the same code twice -> 400", f"{status} {replay}")
        check.record("code_replay", {"status": status, "body": replay})

        # RP-initiated logout
        listener = Listener()
        try:
            post_logout = listener.uri("/")
            url = discovery["end_session_endpoint"] + "?" + urllib.parse.urlencode({
                "id_token_hint": second["token"]["id_token"], "client_id": client_id,
                "post_logout_redirect_uri": post_logout, "state": "bye"})
            status, headers, body = http_request(url)
            check.ok(status == 302 and headers.get("Location", "").startswith(post_logout),
                     "RP-initiated logout redirects to the loopback post_logout_redirect_uri",
                     f"{status} {headers.get('Location')} {str(body)[:200]}")
            check.record("logout", {"status": status, "location": headers.get("Location")})
            stats = provider.stats()
            last_logout = stats["logout_requests"][-1] if stats["logout_requests"] else {}
            check.ok(last_logout.get("method") == "GET" and last_logout.get("query_params") == [
                "id_token_hint", "client_id", "post_logout_redirect_uri", "state"] and last_logout.get("status") == 302,
                "stats logout_requests: the end-session request's query parameter names (id_token_hint sent)",
                last_logout)
            check.ok(second["token"]["id_token"] not in json.dumps(stats),
                     "stats logout_requests hold no parameter values (the id_token_hint is not in them)")
            check.record("stats_logout_request", last_logout)
            status, _, after_logout = http_request(discovery["token_endpoint"], form={
                "grant_type": "refresh_token", "refresh_token": second.get("latest_refresh_token") or "",
                "client_id": client_id})
            check.ok(status == 400 and after_logout.get("error") == "invalid_grant",
                     "RP-initiated logout revoked the user's refresh tokens (OIDC_RP_INITIATED_LOGOUT_DELETE_TOKENS)",
                     f"{status} {after_logout}")
            check.record("refresh_after_logout", {"status": status, "body": after_logout})
        finally:
            listener.close()

    # --- bob ---------------------------------------------------------------------------------------------
    bob = sign_in_with(check, provider, discovery, "agent", "bob signs in", user="bob", scope="openid profile")
    if bob:
        claims_bob = json.loads(jwt.JWT(jwt=bob["token"]["id_token"], key=keyset, algs=["RS256"]).claims)
        check.ok(claims_bob["preferred_username"] == "bob" and claims_bob["sub"] != claims["sub"],
                 "bob gets his own sub")
        check.record("token_response_no_offline_access", shorten(bob["token"]))

    # --- deny ------------------------------------------------------------------------------------------
    listener = Listener()
    try:
        verifier, challenge = pkce_pair()
        url = authorize_url(discovery, client_id, listener.uri("/"), SCOPE_FULL, "s-deny", "n", challenge)
        result, _ = run_agent(url, "alice", info["users"]["alice"], "--deny")
        params = urllib.parse.parse_qs(urllib.parse.urlsplit(result.stdout.strip()).query)
        check.ok(result.returncode == 0 and params.get("error") == ["access_denied"] and listener.received,
                 "--deny delivers error=access_denied", f"rc={result.returncode} {result.stdout} {result.stderr}")
        check.record("deny_redirect", result.stdout.strip())
    finally:
        listener.close()

    # --- wrong password --------------------------------------------------------------------------------
    url = authorize_url(discovery, client_id, "http://127.0.0.1:9/", SCOPE_FULL, "s", "n", pkce_pair()[1])
    result, _ = run_agent(url, "alice", "wrong-password")
    check.ok(result.returncode == 2 and "rejected" in result.stderr, "a wrong password fails clearly",
             f"rc={result.returncode} {result.stderr}")

    # --- no PKCE ---------------------------------------------------------------------------------------
    listener = Listener()
    try:
        query = urllib.parse.urlencode({"response_type": "code", "client_id": client_id,
                                        "redirect_uri": listener.uri("/"), "scope": "openid", "state": "s"})
        result, _ = run_agent(discovery["authorization_endpoint"] + "?" + query, "alice", info["users"]["alice"])
        check.ok(result.returncode == 3 and "error=invalid_request" in result.stdout,
                 "an authorization request without PKCE is refused (error redirect)",
                 f"rc={result.returncode} {result.stdout} {result.stderr}")
        check.record("no_pkce", {"redirect": result.stdout.strip(), "stderr": result.stderr.strip()})
    finally:
        listener.close()

    # --- unregistered path, then the admin endpoint ------------------------------------------------------
    listener = Listener()
    try:
        verifier, challenge = pkce_pair()
        redirect_uri = listener.uri("/callback")
        url = authorize_url(discovery, client_id, redirect_uri, SCOPE_FULL, "s-path", "n", challenge)
        result, _ = run_agent(url, "alice", info["users"]["alice"])
        check.ok(result.returncode == 2 and not listener.received,
                 "an unregistered redirect path is refused on the provider's page (nothing delivered)",
                 f"rc={result.returncode} {result.stdout} {result.stderr}")
        check.record("unregistered_redirect_uri", result.stderr.strip())
        status, body = post_json(provider.origin + "/test/redirect-uris", {"redirect_uris": ["http://127.0.0.1/callback"]})
        check.ok(status == 200 and "http://127.0.0.1/callback" in body["redirect_uris"],
                 "POST /test/redirect-uris adds a redirect URI", f"{status} {body}")
        result, _ = run_agent(url, "alice", info["users"]["alice"])
        check.ok(result.returncode == 0 and listener.received, "the same request now succeeds on any port",
                 f"rc={result.returncode} {result.stderr}")
    finally:
        listener.close()

    # --- device authorization grant ------------------------------------------------------------------------
    device_flow(check, provider, discovery)

    # --- run-time test controls: /test/settings, request details in /test/stats ---------------------
    runtime_controls(check, provider, discovery, keyset)

    # --- client credentials: the confidential client ----------------------------------------------------------
    client_credentials(check, provider, discovery)

    # --- silent-cache-hit style check: nothing reaches the provider -------------------------------------------
    provider.reset_stats()
    time.sleep(0.2)
    stats = provider.stats()
    check.ok(stats["total"] == 0, "no requests are counted while the client does nothing", stats)
    log_lines = open(os.path.join(info["state_dir"], "requests.log")).read().splitlines()
    check.ok(len(log_lines) > 10 and json.loads(log_lines[-1])["path"], "requests.log has one JSON line per request")

    # --- real browser ---------------------------------------------------------------------------------------------
    if not args.no_browser:
        provider.reset_stats()
        browser = sign_in_with(check, provider, discovery, "browser", "headless Chromium")
        if browser:
            jwt.JWT(jwt=browser["token"]["id_token"], key=keyset, algs=["RS256"],
                    check_claims={"iss": provider.issuer, "aud": client_id, "nonce": browser["nonce"], "exp": None})
            check.ok(True, "headless Chromium: ID token verifies")
            check.record("stats_after_browser_sign_in", provider.stats())
        listener = Listener()
        try:
            verifier, challenge = pkce_pair()
            url = authorize_url(discovery, client_id, listener.uri("/"), SCOPE_FULL, "s-bdeny", "n", challenge)
            result, seconds = run_browser(url, "bob", info["users"]["bob"], "--deny")
            check.ok(result.returncode == 0 and "error=access_denied" in result.stdout and listener.received,
                     f"headless Chromium --deny delivers error=access_denied ({seconds:.1f} s)",
                     f"rc={result.returncode} {result.stdout} {result.stderr}")
        finally:
            listener.close()


def raw_token_request(provider, discovery, form, headers=None):
    """(status, headers, parsed body, raw body bytes) of one token-endpoint POST."""
    req = urllib.request.Request(discovery["token_endpoint"], data=urllib.parse.urlencode(form).encode(),
                                 method="POST")
    req.add_header("Content-Type", "application/x-www-form-urlencoded")
    for name, value in (headers or {}).items():
        req.add_header(name, value)
    opener = urllib.request.build_opener(urllib.request.ProxyHandler({}))
    try:
        with opener.open(req, timeout=30) as resp:
            status, hdrs, raw = resp.status, resp.headers, resp.read()
    except urllib.error.HTTPError as error:
        status, hdrs, raw = error.code, error.headers, error.read()
    try:
        body = json.loads(raw)
    except ValueError:
        body = raw.decode("utf-8", "replace")
    return status, hdrs, body, raw


def settings_request(provider, payload=None, reset=False):
    url = provider.origin + "/test/settings" + ("/reset" if reset else "")
    if payload is None and not reset:
        status, _, body = http_request(url)
        return status, body
    if reset:
        status, _, body = http_request(url, form={})
        return status, body
    return post_json(url, payload)


def runtime_controls(check, provider, discovery, keyset):
    """POST /test/settings (lifetimes, refresh without id_token, injected failures) and the
    token / end-session request details of /test/stats."""
    info = provider.info
    client_id = info["client_id"]

    status, current = settings_request(provider)
    check.record("settings_default", current)
    check.ok(status == 200 and current["access_token_seconds"] == 120 and current["id_token_seconds"] == 120
             and current["id_token_follows_access_token"] is True and current["refresh_id_token"] is True
             and current["fail_next_token_requests"] is None and current["defaults"]["access_token_seconds"] == 120,
             "GET /test/settings: the start values (120 s, ID token follows, refresh_id_token true, no failures)",
             current)

    for bad in ({"bogus": 1}, {"access_token_seconds": -1}, {"access_token_seconds": "5"},
                {"refresh_id_token": "no"}, {"fail_next_token_requests": {"count": 1, "status": 200}},
                {"access_token_seconds": 5, "refresh_id_token": 0}):
        status, body = settings_request(provider, bad)
        if not check.ok(status == 400 and body.get("error") == "invalid_request",
                        f"POST /test/settings {json.dumps(bad)} -> 400", f"{status} {body}"):
            break
    status, unchanged = settings_request(provider)
    check.ok(unchanged == current, "a refused POST /test/settings changes nothing (not even its valid part)",
             unchanged)

    # Refresh responses without id_token; tokens from the authorization code still carry one.
    status, changed = settings_request(provider, {"refresh_id_token": False})
    check.ok(status == 200 and changed["refresh_id_token"] is False and changed["access_token_seconds"] == 120,
             "POST /test/settings {refresh_id_token: false} answers the new settings", changed)
    signed = sign_in_with(check, provider, discovery, "agent", "runtime controls", scope=SCOPE_FULL)
    if not signed:
        settings_request(provider, reset=True)
        return
    token = signed["token"]
    check.ok("id_token" in token and token["expires_in"] == 120,
             "refresh_id_token=false leaves the authorization-code response alone (id_token, expires_in 120)",
             shorten(token))

    provider.reset_stats()
    status, headers, refreshed, raw = raw_token_request(provider, discovery, {
        "grant_type": "refresh_token", "refresh_token": token["refresh_token"], "client_id": client_id})
    check.ok(status == 200 and "id_token" not in refreshed and {"access_token", "refresh_token", "expires_in",
                                                                 "token_type", "scope"} <= set(refreshed),
             "refresh_id_token=false: the refresh response has no id_token (and everything else)",
             f"{status} {shorten(refreshed)}")
    check.ok(headers.get("Content-Length") == str(len(raw)) and headers.get("Content-Type") == "application/json",
             "the rewritten refresh response has a correct Content-Length and still Content-Type application/json",
             f"{headers.get('Content-Length')} vs {len(raw)}")
    check.record("token_response_refresh_without_id_token", shorten(refreshed))
    stats = provider.stats()
    record = stats["token_requests"][-1] if stats["token_requests"] else {}
    check.record("stats_token_request_refresh", record)
    check.ok(stats["endpoints"]["token"] == 1 and len(stats["token_requests"]) == 1
             and record.get("grant_type") == "refresh_token"
             and record.get("params") == ["grant_type", "refresh_token", "client_id"]
             and record.get("query_params") == [] and record.get("status") == 200
             and record.get("id_token_removed") is True and record.get("injected_failure") is False,
             "stats token_requests: grant_type, the form parameter names in order, status, id_token_removed", record)
    check.ok("scope" not in record.get("params", []) and "client_info" not in record.get("params", []),
             "stats token_requests: this refresh carried no scope and no client_info parameter")
    check.ok({"content-type", "content-length", "host", "user-agent"} <= set(record.get("headers", []))
             and "x-client-sku" not in record.get("headers", []) and "client-request-id" not in record.get("headers", []),
             "stats token_requests: header names (lower case), no x-client-sku / client-request-id",
             record.get("headers"))
    dumped = json.dumps(stats)
    check.ok(token["refresh_token"] not in dumped and client_id not in dumped,
             "stats token_requests hold no parameter values (neither the refresh token nor the client_id)")
    with open(os.path.join(info["state_dir"], "requests.log")) as handle:
        last_line = json.loads(handle.read().splitlines()[-1])
    check.ok(last_line.get("grant_type") == "refresh_token" and last_line.get("id_token_removed") is True,
             "requests.log marks the rewritten response (grant_type, id_token_removed)", last_line)

    # The refresh token of the rewritten response is real: refresh again, now with extra
    # headers and a scope, which the stats must show (by name only).
    status, _, again, _ = raw_token_request(provider, discovery, {
        "grant_type": "refresh_token", "refresh_token": refreshed["refresh_token"], "client_id": client_id,
        "scope": "openid profile"}, headers={"x-client-SKU": "sku-secret-value", "client-request-id": "crid-value"})
    check.ok(status == 200 and "id_token" not in again and again.get("scope") == "openid profile",
             "the rewritten response's refresh token works (narrower scope, again without id_token)",
             f"{status} {shorten(again)}")
    stats = provider.stats()
    record = stats["token_requests"][-1]
    check.ok("scope" in record["params"] and {"x-client-sku", "client-request-id"} <= set(record["headers"])
             and "sku-secret-value" not in json.dumps(stats) and "crid-value" not in json.dumps(stats),
             "stats token_requests show a scope parameter and x-client-sku / client-request-id headers by name only",
             record)

    # Access-token lifetime at run time (the ID token's follows it: no --id-token-seconds).
    status, changed = settings_request(provider, {"access_token_seconds": 2, "refresh_id_token": True})
    check.ok(status == 200 and changed["access_token_seconds"] == 2 and changed["id_token_seconds"] == 2
             and changed["refresh_id_token"] is True,
             "POST /test/settings {access_token_seconds: 2}: the ID token lifetime follows", changed)
    status, _, short, _ = raw_token_request(provider, discovery, {
        "grant_type": "refresh_token", "refresh_token": again["refresh_token"], "client_id": client_id})
    check.ok(status == 200 and short.get("expires_in") == 2 and "id_token" in short,
             "the next token response has expires_in 2 (and an id_token again)", f"{status} {shorten(short)}")
    if status == 200 and "id_token" in short:
        id_claims = json.loads(jwt.JWT(jwt=short["id_token"], key=keyset, algs=["RS256"]).claims)
        check.ok(id_claims["exp"] - id_claims["iat"] in (2, 3), "its ID token lives 2 s (exp - iat)",
                 id_claims["exp"] - id_claims["iat"])
        bearer = {"Authorization": "Bearer " + short["access_token"]}
        status, _, _ = http_request(discovery["userinfo_endpoint"], headers=bearer)
        check.ok(status == 200, "the 2-second access token works at once")
        time.sleep(2.5)
        status, _, body = http_request(discovery["userinfo_endpoint"], headers=bearer)
        check.ok(status == 401, "after 2.5 s it is refused: the stored expiry follows the setting too",
                 f"{status} {body}")

    # A zero lifetime: already expired when issued (oauthlib would turn an int 0 into 3600).
    status, changed = settings_request(provider, {"access_token_seconds": 0})
    status, _, zero, _ = raw_token_request(provider, discovery, {
        "grant_type": "refresh_token", "refresh_token": short.get("refresh_token", ""), "client_id": client_id})
    check.ok(status == 200 and zero.get("expires_in") == 0, "{access_token_seconds: 0} -> expires_in 0",
             f"{status} {shorten(zero)}")
    if status == 200:
        id_claims = decode_segment(zero["id_token"].split(".")[1])
        status, _, body = http_request(discovery["userinfo_endpoint"],
                                       headers={"Authorization": "Bearer " + zero["access_token"]})
        check.ok(status == 401 and id_claims["exp"] - id_claims["iat"] in (0, 1),
                 "a 0-second access token is refused at once (401) and its ID token has exp - iat 0",
                 f"{status} {id_claims['exp'] - id_claims['iat']}")
        short = zero

    # Explicit ID-token lifetime, then following again.
    status, changed = settings_request(provider, {"id_token_seconds": 30})
    check.ok(changed["id_token_seconds"] == 30 and changed["id_token_follows_access_token"] is False
             and changed["access_token_seconds"] == 0, "{id_token_seconds: 30} stops the ID token following", changed)
    status, changed = settings_request(provider, {"access_token_seconds": 10})
    check.ok(changed["access_token_seconds"] == 10 and changed["id_token_seconds"] == 30,
             "then {access_token_seconds: 10} leaves the ID token at 30 s", changed)
    status, changed = settings_request(provider, {"id_token_seconds": None})
    check.ok(changed["id_token_seconds"] == 10 and changed["id_token_follows_access_token"] is True,
             "{id_token_seconds: null} makes it follow again (10 s)", changed)

    # Injected failures: they never reach DOT, so the refresh token survives them.
    provider.reset_stats()
    status, changed = settings_request(provider, {"fail_next_token_requests": {"count": 2, "status": 503}})
    check.record("settings_with_failures", changed)
    check.ok(status == 200 and changed["fail_next_token_requests"] == {
        "count": 2, "status": 503, "error": "temporarily_unavailable",
        "error_description": "injected by POST /test/settings (fail_next_token_requests)", "retry_after": None},
        "POST /test/settings fail_next_token_requests {count: 2, status: 503}", changed)
    form = {"grant_type": "refresh_token", "refresh_token": short.get("refresh_token", ""), "client_id": client_id}
    for attempt in (1, 2):
        status, headers, failed, _ = raw_token_request(provider, discovery, form)
        check.ok(status == 503 and failed.get("error") == "temporarily_unavailable"
                 and headers.get("Content-Type") == "application/json" and headers.get("Cache-Control") == "no-store",
                 f"injected failure {attempt}/2: 503 {{\"error\": \"temporarily_unavailable\", ...}}",
                 f"{status} {failed}")
    check.record("injected_failure_response", {"status": status, "headers": dict(headers), "body": failed})
    status, current = settings_request(provider)
    check.ok(current["fail_next_token_requests"] is None, "the failures are used up (null again)", current)
    status, _, survived, _ = raw_token_request(provider, discovery, form)
    check.ok(status == 200 and survived.get("expires_in") == 10,
             "the third request reaches DOT: the refresh token was never consumed (expires_in 10)",
             f"{status} {shorten(survived)}")
    stats = provider.stats()
    check.ok(stats["endpoints"]["token"] == 3
             and [r["injected_failure"] for r in stats["token_requests"]] == [True, True, False]
             and [r["status"] for r in stats["token_requests"]] == [503, 503, 200],
             "stats count the injected failures as token requests, marked injected_failure",
             json.dumps(stats["token_requests"]))
    check.record("stats_with_injected_failures", stats)

    status, _ = settings_request(provider, {"fail_next_token_requests": {
        "count": 1, "status": 400, "error": "invalid_grant", "error_description": None, "retry_after": 3}})
    status, headers, failed, raw = raw_token_request(provider, discovery, {
        "grant_type": "refresh_token", "refresh_token": survived.get("refresh_token", ""), "client_id": client_id})
    check.ok(status == 400 and raw == b'{"error": "invalid_grant"}' and headers.get("Retry-After") == "3",
             "a custom injected failure: 400, body exactly {\"error\": \"invalid_grant\"}, Retry-After 3",
             f"{status} {raw} {headers.get('Retry-After')}")

    # Reset: the start values, and the token endpoint follows.
    status, current = settings_request(provider, {"refresh_id_token": False,
                                                  "fail_next_token_requests": {"count": 5, "status": 500}})
    status, current = settings_request(provider, reset=True)
    check.ok(status == 200 and current["access_token_seconds"] == 120 and current["id_token_seconds"] == 120
             and current["id_token_follows_access_token"] is True and current["refresh_id_token"] is True
             and current["fail_next_token_requests"] is None,
             "POST /test/settings/reset restores the start values", current)
    status, _, back, _ = raw_token_request(provider, discovery, {
        "grant_type": "refresh_token", "refresh_token": survived.get("refresh_token", ""), "client_id": client_id})
    check.ok(status == 200 and back.get("expires_in") == 120 and "id_token" in back,
             "after the reset: expires_in 120 and an id_token in the refresh response", f"{status} {shorten(back)}")
    if status == 200 and "id_token" in back:
        id_claims = decode_segment(back["id_token"].split(".")[1])
        check.ok(id_claims["exp"] - id_claims["iat"] in (120, 121), "and the ID token lives 120 s again")
    stats = provider.reset_stats()
    check.ok(len(stats["token_requests"]) == 5 and provider.stats()["token_requests"] == []
             and provider.stats()["logout_requests"] == [],
             "POST /test/stats/reset answers the request details as they were and clears them")


def short_lived(check, state_dir):
    """2-second access tokens, an extra redirect URI, the advertised device endpoint, a restart."""
    provider = Provider(state_dir, "--access-token-seconds", "2", "--advertise-device-endpoint",
                        "--redirect-uri", "http://127.0.0.1/fixed")
    try:
        info = provider.info
        check.ok("http://127.0.0.1/fixed" in info["redirect_uris"], "--redirect-uri is registered")
        status, _, discovery = http_request(provider.issuer + "/.well-known/openid-configuration")
        check.ok(discovery.get("device_authorization_endpoint") == info["device_authorization_endpoint"],
                 "--advertise-device-endpoint adds device_authorization_endpoint to discovery", discovery)
        jwks_before = http_request(discovery["jwks_uri"])[2]
        signed = sign_in_with(check, provider, discovery, "agent", "2 s tokens", scope=SCOPE_NARROW, path="/fixed")
        if not signed:
            return
        token = signed["token"]
        check.ok(token["expires_in"] == 2, "expires_in is 2", token["expires_in"])
        bearer = {"Authorization": "Bearer " + token["access_token"]}
        status, _, _ = http_request(discovery["userinfo_endpoint"], headers=bearer)
        check.ok(status == 200, "the fresh access token works")
        time.sleep(2.5)
        status, _, body = http_request(discovery["userinfo_endpoint"], headers=bearer)
        check.ok(status == 401, "after 2.5 s the access token is refused (401)", f"{status} {body}")
        check.record("userinfo_expired_access_token", {"status": status, "body": body})
        id_claims = decode_segment(token["id_token"].split(".")[1])
        check.ok(id_claims["exp"] - id_claims["iat"] in (2, 3), "ID token lifetime follows (exp - iat == 2 s, +1 rounding)")
        status, _, refreshed = http_request(discovery["token_endpoint"], form={
            "grant_type": "refresh_token", "refresh_token": token["refresh_token"], "client_id": info["client_id"]})
        check.ok(status == 200, "an expired access token's refresh token still works", f"{status} {refreshed}")
        port = info["port"]
    finally:
        provider.stop()

    # Restart on the same state directory and port: same users, key and grants.
    provider = Provider(state_dir, "--port", str(port), "--access-token-seconds", "2")
    try:
        check.ok(provider.info["port"] == port and provider.info["users"] == info["users"],
                 "a restart on the same state dir and port keeps the passwords")
        jwks_after = http_request(provider.issuer + "/.well-known/jwks.json")[2]
        check.ok(jwks_after == jwks_before, "a restart keeps the signing key (same JWKS)")
        status, _, again = http_request(provider.issuer + "/token/", form={
            "grant_type": "refresh_token", "refresh_token": refreshed["refresh_token"],
            "client_id": info["client_id"]})
        check.ok(status == 200, "a refresh token issued before the restart works after it", f"{status} {again}")
        check.ok("http://127.0.0.1/fixed" in provider.info["redirect_uris"], "registered redirect URIs persist")
    finally:
        provider.stop()


def client_credentials(check, provider, discovery):
    """The confidential client: client_secret_post / client_secret_basic, wrong secret, scopes."""
    info = provider.info
    secret = info["confidential_clients"]["secret"]
    check.ok(info["token_endpoint"] == discovery["token_endpoint"], "ready-line token_endpoint == discovery's")
    check.ok("private_key_jwt" not in info["confidential_clients"], "no private_key_jwt client (DOT has none)")
    provider.reset_stats()
    form = {"grant_type": "client_credentials", "client_id": secret["client_id"],
            "client_secret": secret["client_secret"], "scope": " ".join(secret["scopes"])}
    status, _, token = http_request(discovery["token_endpoint"], form=form)
    check.record("client_credentials_secret_post", {"status": status, "body": shorten(token)})
    check.ok(status == 200 and token.get("scope") == " ".join(secret["scopes"])
             and not {"refresh_token", "id_token"} & set(token),
             "client credentials, client_secret_post: 200, access token only", f"{status} {token}")
    basic = base64.b64encode(f"{secret['client_id']}:{secret['client_secret']}".encode()).decode()
    status, _, token = http_request(discovery["token_endpoint"], headers={"Authorization": "Basic " + basic},
                                    form={"grant_type": "client_credentials", "scope": " ".join(secret["scopes"])})
    check.ok(status == 200 and "access_token" in token, "client credentials, client_secret_basic: 200",
             f"{status} {token}")
    status, _, body = http_request(discovery["token_endpoint"], form=dict(form, client_secret="wrong"))
    check.record("client_credentials_wrong_secret", {"status": status, "body": body})
    check.ok(status == 401 and body == {"error": "invalid_client"}, "wrong client secret: 401 invalid_client",
             f"{status} {body}")
    not_allowed = info["confidential_clients"]["not_allowed_scopes"][0]
    status, _, body = http_request(discovery["token_endpoint"], form=dict(form, scope=not_allowed))
    check.record("client_credentials_not_allowed_scope", {"status": status, "body": body})
    check.ok(status == 400 and body == {"error": "invalid_scope"}, "scope not allowed: 400 invalid_scope",
             f"{status} {body}")
    stats = provider.stats()
    grant_types = [r["grant_type"] for r in stats["token_requests"]]
    check.ok(stats["endpoints"]["token"] == 4 and grant_types == ["client_credentials"] * 4,
             "stats count the 4 client-credentials token POSTs", stats["endpoints"])


def device_flow(check, provider, discovery):
    info = provider.info
    status, _, started = http_request(info["device_authorization_endpoint"], form={
        "client_id": info["device_client_id"], "scope": "openid profile email"})
    check.ok(status == 200 and "device_code" in started, "device authorization endpoint answers",
             f"{status} {started}")
    check.record("device_authorization_response", shorten(started))
    if status != 200:
        return
    form = {"grant_type": "urn:ietf:params:oauth:grant-type:device_code", "device_code": started["device_code"],
            "client_id": info["device_client_id"]}
    status, _, pending = http_request(discovery["token_endpoint"], form=form)
    check.ok(status == 400 and pending.get("error") == "authorization_pending",
             "device token poll before approval -> authorization_pending", f"{status} {pending}")
    check.record("device_token_pending", {"status": status, "body": pending})

    # The user's side, via verification_uri_complete: sign in, (code prefilled), accept.
    check.ok(started.get("verification_uri_complete", "").endswith("user_code=" + started["user_code"]),
             "the response has verification_uri_complete")
    result, seconds = run_agent(started["verification_uri_complete"], "alice", info["users"]["alice"])
    check.ok(result.returncode == 0 and "device-grant-status" in result.stdout,
             f"login_agent approves the device code ({seconds:.1f} s)",
             f"rc={result.returncode} {result.stdout} {result.stderr}")

    status, _, tokens = http_request(discovery["token_endpoint"], form=form)
    check.ok(status == 200 and "access_token" in tokens, "device token poll after approval -> tokens",
             f"{status} {tokens}")
    check.record("device_token_response", shorten(tokens))
    if "id_token" in tokens:
        check.record("device_id_token_claims", decode_segment(tokens["id_token"].split(".")[1]))
    # Observed, not asserted: DOT 3.4.1 redeems an approved device_code again (fresh tokens each time).
    status, _, again = http_request(discovery["token_endpoint"], form=form)
    print(f"NOTE redeeming the approved device_code a second time -> HTTP {status} "
          f"{'(new tokens)' if status == 200 else again}", flush=True)
    check.record("device_token_second_redeem", {"status": status, "body": shorten(again)})

    # Denied, typing the user code on the plain verification URI.
    status, _, started = http_request(info["device_authorization_endpoint"], form={
        "client_id": info["device_client_id"], "scope": "openid"})
    result, _ = run_agent(started["verification_uri"], "bob", info["users"]["bob"], "--user-code",
                          started["user_code"], "--deny")
    check.ok(result.returncode == 0, "login_agent --user-code --deny denies the device code",
             f"rc={result.returncode} {result.stdout} {result.stderr}")
    status, _, denied = http_request(discovery["token_endpoint"], form={
        "grant_type": "urn:ietf:params:oauth:grant-type:device_code", "device_code": started["device_code"],
        "client_id": info["device_client_id"]})
    check.ok(status == 400 and denied.get("error") == "access_denied", "a denied device code -> access_denied",
             f"{status} {denied}")
    check.record("device_token_denied", {"status": status, "body": denied})


if __name__ == "__main__":
    sys.exit(main())
