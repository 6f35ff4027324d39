#!/usr/bin/env python3
"""End-to-end self test of the glewlwyd test provider.

    /work/main/.build/oidc-venv/bin/python selftest.py [--runs 3] [--keep] [--no-browser]

Starts server.py, then for each run:
  * authorization code + PKCE through login_agent.py against a throwaway
    loopback listener (redirect URI registered via POST /test/redirect_uris),
    checks state / iss, redeems the code, verifies the RS256 ID token with the
    JWKS (python 'cryptography'), calls userinfo;
  * /test/stats: reset -> 0 requests, one refresh -> 1 token POST;
  * refresh (rotation), narrower-scope refresh, wider-scope refresh,
    reuse of a rotated refresh token, what happens to the newest one after;
  * ES256 client sign-in (ID token and access token signed ES256), code replay;
  * device authorization grant;
  * client credentials: the secret client (client_secret_post, wrong secret, scope not allowed),
    the private_key_jwt client (RS256 + x5t assertion without kid, its replay, PS256 + x5t#S256);
  * RP-initiated logout (end_session) first hop;
  * the same sign-in with headless Chromium through browser_login.py.
Writes the observed HTTP answers to STATE_DIR/findings.json.
"""

import argparse
import base64
import hashlib
import http.server
import json
import os
import secrets
import signal
import subprocess
import sys
import tempfile
import threading
import time
import urllib.error
import urllib.parse
import urllib.request

HERE = os.path.dirname(os.path.abspath(__file__))
VENV_PY = "/work/main/.build/oidc-venv/bin/python"


class Check(Exception):
    pass


def expect(cond, msg):
    if not cond:
        raise Check(msg)


def b64u_dec(s):
    return base64.urlsafe_b64decode(s + "=" * (-len(s) % 4))


def jwt_parts(token):
    h, p, s = token.split(".")
    return json.loads(b64u_dec(h)), json.loads(b64u_dec(p)), b64u_dec(s), (h + "." + p).encode()


def verify_jws(token, jwks):
    from cryptography.hazmat.primitives import hashes
    from cryptography.hazmat.primitives.asymmetric import ec, padding, rsa
    from cryptography.hazmat.primitives.asymmetric.utils import encode_dss_signature

    header, payload, sig, signing_input = jwt_parts(token)
    keys = [k for k in jwks["keys"] if k.get("kid") == header.get("kid")] if "kid" in header else jwks["keys"]
    expect(keys, "no JWKS key for kid %r" % header.get("kid"))
    key = keys[0]
    alg = header["alg"]
    if alg == "RS256":
        pub = rsa.RSAPublicNumbers(int.from_bytes(b64u_dec(key["e"]), "big"),
                                   int.from_bytes(b64u_dec(key["n"]), "big")).public_key()
        pub.verify(sig, signing_input, padding.PKCS1v15(), hashes.SHA256())
    elif alg == "ES256":
        expect(len(sig) == 64, "ES256 signature is not 64 bytes (got %d)" % len(sig))
        pub = ec.EllipticCurvePublicNumbers(int.from_bytes(b64u_dec(key["x"]), "big"),
                                            int.from_bytes(b64u_dec(key["y"]), "big"),
                                            ec.SECP256R1()).public_key()
        der = encode_dss_signature(int.from_bytes(sig[:32], "big"), int.from_bytes(sig[32:], "big"))
        pub.verify(der, signing_input, ec.ECDSA(hashes.SHA256()))
    else:
        raise Check("unexpected alg %s" % alg)
    return header, payload


def http_req(method, url, form=None, data=None, headers=None, timeout=30):
    headers = dict(headers or {})
    if form is not None:
        data = urllib.parse.urlencode(form).encode()
        headers["Content-Type"] = "application/x-www-form-urlencoded"
    req = urllib.request.Request(url, data=data, method=method, headers=headers)

    class NoRedirect(urllib.request.HTTPRedirectHandler):
        def redirect_request(self, *a, **k):
            return None

    opener = urllib.request.build_opener(NoRedirect())
    try:
        with opener.open(req, timeout=timeout) as r:
            status, hdrs, raw = r.status, dict(r.headers), r.read()
    except urllib.error.HTTPError as e:
        status, hdrs, raw = e.code, dict(e.headers), e.read()
    try:
        body = json.loads(raw) if raw else None
    except ValueError:
        body = raw.decode("utf-8", "replace")
    return status, hdrs, body


def redact(obj):
    """shorten tokens for the findings file"""
    if isinstance(obj, dict):
        return {k: (v[:16] + "...(%d chars)" % len(v) if isinstance(v, str) and len(v) > 60 else redact(v))
                for k, v in obj.items()}
    return obj


class Listener:
    """throwaway loopback redirect receiver (like the SDK's)"""

    def __init__(self):
        got = self.got = []
        event = self.event = threading.Event()

        class H(http.server.BaseHTTPRequestHandler):
            def do_GET(self):
                got.append(self.path)
                body = b"<html><body>signed in, you can close this window</body></html>"
                self.send_response(200)
                self.send_header("Content-Type", "text/html")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)
                if "favicon" not in self.path:
                    event.set()

            def log_message(self, *a):
                pass

        self.httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), H)
        self.port = self.httpd.server_address[1]
        threading.Thread(target=self.httpd.serve_forever, daemon=True).start()

    def redirect_uri(self, path="/"):
        return "http://127.0.0.1:%d%s" % (self.port, path)

    def close(self):
        self.httpd.shutdown()
        self.httpd.server_close()


class Provider:
    def __init__(self, state_dir, access_token_seconds, extra_args=()):
        self.state_dir = state_dir
        t0 = time.time()
        self.proc = subprocess.Popen([sys.executable, os.path.join(HERE, "server.py"), "--state-dir", state_dir,
                                      "--access-token-seconds", str(access_token_seconds), *extra_args],
                                     stdout=subprocess.PIPE, stderr=None, text=True)
        line = self._readline(90)
        self.wall_startup = time.time() - t0
        self.info = json.loads(line)

    def _readline(self, timeout):
        result = {}

        def reader():
            result["line"] = self.proc.stdout.readline()

        t = threading.Thread(target=reader, daemon=True)
        t.start()
        t.join(timeout)
        if not result.get("line"):
            self.proc.kill()
            raise Check("server.py printed no JSON line within %ss (rc=%s)" % (timeout, self.proc.poll()))
        return result["line"]

    def stop(self):
        self.proc.send_signal(signal.SIGTERM)
        try:
            rc = self.proc.wait(20)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            raise Check("server.py did not exit within 20s of SIGTERM")
        return rc


def pkce():
    verifier = secrets.token_urlsafe(48)
    challenge = base64.urlsafe_b64encode(hashlib.sha256(verifier.encode()).digest()).rstrip(b"=").decode()
    return verifier, challenge


def authorize_url(info, client_id, redirect_uri, scope, state, nonce, challenge):
    return info["issuer"] + "/auth?" + urllib.parse.urlencode({
        "response_type": "code", "client_id": client_id, "redirect_uri": redirect_uri, "scope": scope,
        "state": state, "nonce": nonce, "code_challenge": challenge, "code_challenge_method": "S256"})


def sign_in(info, tool, client_id, scope, user="alice", path="/", register=True, extra=()):
    lst = Listener()
    try:
        redirect_uri = lst.redirect_uri(path)
        if register:
            st, _, body = http_req("POST", info["add_redirect_url"],
                                   data=json.dumps({"client_id": client_id, "redirect_uri": redirect_uri}).encode(),
                                   headers={"Content-Type": "application/json"})
            expect(st == 200, "registering %s failed: %s %s" % (redirect_uri, st, body))
        verifier, challenge = pkce()
        state, nonce = secrets.token_urlsafe(12), secrets.token_urlsafe(12)
        url = authorize_url(info, client_id, redirect_uri, scope, state, nonce, challenge)
        if tool == "agent":
            cmd = [sys.executable, os.path.join(HERE, "login_agent.py"), url]
        else:
            cmd = [sys.executable, os.path.join(HERE, "browser_login.py"), url, "--timeout", "60",
                   "--screenshot", os.path.join(tempfile.gettempdir(), "glewlwyd-browser-fail.png")]
        cmd += ["--username", user, "--password", info["users"][user], *extra]
        t0 = time.time()
        res = subprocess.run(cmd, capture_output=True, text=True, timeout=90)
        elapsed = time.time() - t0
        expect(res.returncode == 0, "%s failed rc=%s: %s" % (tool, res.returncode, res.stderr.strip()))
        printed = res.stdout.strip().splitlines()[-1]
        expect(lst.event.wait(10), "loopback listener never received the redirect")
        received = lst.redirect_uri(lst.got[0]) if lst.got[0].startswith("/") else lst.got[0]
        expect(received == printed, "printed URL %r != delivered %r" % (printed, received))
        q = urllib.parse.parse_qs(urllib.parse.urlsplit(printed).query)
        expect(q.get("state") == [state], "state mismatch in %s" % printed)
        expect("code" in q, "no code in %s" % printed)
        return {"code": q["code"][0], "verifier": verifier, "redirect_uri": redirect_uri, "nonce": nonce,
                "auth_response": printed, "auth_params": sorted(q.keys()), "iss_param": (q.get("iss") or [None])[0],
                "seconds": round(elapsed, 2)}
    finally:
        lst.close()


def redeem(info, client_id, flow):
    return http_req("POST", info["issuer"] + "/token", form={
        "grant_type": "authorization_code", "code": flow["code"], "redirect_uri": flow["redirect_uri"],
        "client_id": client_id, "code_verifier": flow["verifier"]})


def refresh(info, client_id, rt, scope=None):
    form = {"grant_type": "refresh_token", "refresh_token": rt, "client_id": client_id}
    if scope:
        form["scope"] = scope
    return http_req("POST", info["issuer"] + "/token", form=form)


def stats(info):
    return http_req("GET", info["stats_url"])[2]


def client_assertion(key_path, cert_path, client_id, audience, alg="RS256", thumbprint="x5t"):
    """a private_key_jwt client assertion built the way the SDK does (no 'kid')"""
    import uuid
    from cryptography import x509
    from cryptography.hazmat.primitives import hashes, serialization
    from cryptography.hazmat.primitives.asymmetric import padding

    with open(key_path, "rb") as f:
        key = serialization.load_pem_private_key(f.read(), None)
    with open(cert_path, "rb") as f:
        der = x509.load_pem_x509_certificate(f.read()).public_bytes(serialization.Encoding.DER)
    digest = hashlib.sha1(der).digest() if thumbprint == "x5t" else hashlib.sha256(der).digest()
    header = {"alg": alg, "typ": "JWT", thumbprint: base64.urlsafe_b64encode(digest).rstrip(b"=").decode()}
    now = int(time.time())
    claims = {"aud": audience, "iss": client_id, "sub": client_id, "jti": str(uuid.uuid4()),
              "nbf": now, "iat": now, "exp": now + 600}
    enc = lambda obj: base64.urlsafe_b64encode(json.dumps(obj, separators=(",", ":")).encode()).rstrip(b"=").decode()
    signing_input = (enc(header) + "." + enc(claims)).encode()
    if alg == "RS256":
        sig = key.sign(signing_input, padding.PKCS1v15(), hashes.SHA256())
    else:
        sig = key.sign(signing_input, padding.PSS(mgf=padding.MGF1(hashes.SHA256()), salt_length=32), hashes.SHA256())
    return signing_input.decode() + "." + base64.urlsafe_b64encode(sig).rstrip(b"=").decode()


def one_run(args, run_no):
    state_dir = tempfile.mkdtemp(prefix="glewlwyd-selftest-")
    findings = {"run": run_no}
    prov = Provider(state_dir, args.access_token_seconds)
    info = prov.info
    findings["startup_seconds_reported"] = info["startup_seconds"]
    findings["startup_seconds_wall"] = round(prov.wall_startup, 2)
    ok = False
    try:
        # ---- discovery / jwks
        st, _, disc = http_req("GET", info["issuer"] + "/.well-known/openid-configuration")
        expect(st == 200 and disc["issuer"] == info["issuer"], "discovery issuer mismatch")
        st, _, jwks = http_req("GET", disc["jwks_uri"])
        expect(st == 200 and len(jwks["keys"]) == 2, "jwks should hold 2 keys")
        findings["discovery"] = {k: disc.get(k) for k in (
            "issuer", "end_session_endpoint", "device_authorization_endpoint", "grant_types_supported",
            "response_types_supported", "token_endpoint_auth_methods_supported", "code_challenge_methods_supported",
            "id_token_signing_alg_values_supported", "scopes_supported", "claims_supported",
            "revocation_endpoint", "introspection_endpoint")}
        findings["discovery"]["authorization_response_iss_parameter_supported"] = disc.get(
            "authorization_response_iss_parameter_supported", "<absent>")
        findings["jwks_kids"] = [(k["kid"], k["alg"], k["kty"]) for k in jwks["keys"]]

        # ---- redirect URI matching: unregistered port is refused
        lst = Listener()
        v, c = pkce()
        bad = authorize_url(info, info["client_id"], lst.redirect_uri("/"), "openid", "s", "n", c)
        st, hdrs, body = http_req("GET", bad)
        findings["unregistered_redirect_uri"] = {"status": st, "location": hdrs.get("Location"), "body": body}
        lst.close()
        expect(not (hdrs.get("Location") or "").startswith(lst.redirect_uri("/")) or
               "error=" in (hdrs.get("Location") or ""), "unregistered redirect URI was accepted")
        # CLI add-redirect works too
        res = subprocess.run([sys.executable, os.path.join(HERE, "server.py"), "add-redirect", "--state-dir",
                              state_dir, "http://127.0.0.1:1/cli-test"], capture_output=True, text=True, timeout=30)
        expect(res.returncode == 0 and "cli-test" in res.stdout, "add-redirect CLI failed: %s" % res.stderr)

        # ---- flow A: public client, scope without email
        scope_a = "openid profile offline_access"
        flow = sign_in(info, "agent", info["client_id"], scope_a)
        findings["agent_flow_seconds"] = flow["seconds"]
        findings["authorization_response_params"] = flow["auth_params"]
        findings["authorization_response_iss"] = flow["iss_param"]
        expect(flow["iss_param"] in (None, info["issuer"]), "iss parameter %r != issuer" % flow["iss_param"])
        st, _, tok = redeem(info, info["client_id"], flow)
        expect(st == 200, "code redemption failed: %s %s" % (st, tok))
        findings["token_response_keys"] = sorted(tok.keys())
        findings["token_response_sample"] = redact(tok)
        hdr, idt = verify_jws(tok["id_token"], jwks)
        findings["id_token_header"] = hdr
        findings["id_token_claims"] = redact(idt)
        expect(hdr["alg"] == "RS256" and hdr.get("kid") == info["kids"]["RS256"], "unexpected id_token header %s" % hdr)
        expect(idt["iss"] == info["issuer"], "id_token iss")
        expect(idt["aud"] == info["client_id"] or info["client_id"] in idt["aud"], "id_token aud")
        expect(idt["nonce"] == flow["nonce"], "nonce")
        expect(idt.get("preferred_username") == "alice" and idt.get("name") == "Alice Example", "profile claims")
        expect("email" not in idt, "email claim present although 'email' scope not requested")
        expect(idt["exp"] > time.time(), "id_token expired")
        ahdr, at = verify_jws(tok["access_token"], jwks)
        findings["access_token_header"] = ahdr
        findings["access_token_claims"] = redact(at)
        st, _, ui = http_req("GET", disc["userinfo_endpoint"], headers={"Authorization": "Bearer " + tok["access_token"]})
        findings["userinfo"] = {"status": st, "body": ui}

        # ---- request counting
        http_req("POST", info["stats_reset_url"])
        s0 = stats(info)
        expect(s0["total"] == 0 and s0["token_endpoint_posts"] == 0, "stats not zero after reset: %s" % s0)
        rt0 = tok["refresh_token"]
        st, _, r1 = refresh(info, info["client_id"], rt0)
        s1 = stats(info)
        expect(s1["token_endpoint_posts"] == 1 and s1["by_grant_type"].get("refresh_token") == 1,
               "stats after one refresh: %s" % s1)
        findings["stats_after_one_refresh"] = {k: s1[k] for k in ("total", "token_endpoint_posts", "by_grant_type")}

        # ---- refresh with rotation
        expect(st == 200, "refresh failed: %s %s" % (st, r1))
        findings["refresh_response_keys"] = sorted(r1.keys())
        findings["refresh_response_sample"] = redact(r1)
        expect(r1.get("refresh_token") and r1["refresh_token"] != rt0, "refresh token not rotated")
        if "id_token" in r1:
            h1, p1 = verify_jws(r1["id_token"], jwks)
            findings["refresh_id_token_claims"] = redact(p1)
        rt1 = r1["refresh_token"]

        # narrower scope
        st, _, r2 = refresh(info, info["client_id"], rt1, scope="openid offline_access")
        findings["refresh_narrower_scope"] = {"status": st, "body": redact(r2)}
        newest = r2.get("refresh_token") if st == 200 and isinstance(r2, dict) and r2.get("refresh_token") else rt1
        if st == 200 and "access_token" in r2:
            _, p = jwt_parts(r2["access_token"])[:2]
            findings["refresh_narrower_scope"]["access_token_scope"] = p.get("scope")

        # wider scope (email was never granted for this token)
        st, _, r3 = refresh(info, info["client_id"], newest, scope="openid profile email offline_access")
        findings["refresh_wider_scope"] = {"status": st, "body": redact(r3)}
        expect(st != 200 or "email" not in (r3.get("scope") or ""), "wider scope was granted on refresh")
        if st == 200 and isinstance(r3, dict) and r3.get("refresh_token"):
            newest = r3["refresh_token"]
        st, _, r3b = refresh(info, info["client_id"], newest)
        findings["refresh_after_wider_scope_attempt"] = {"status": st, "body": redact(r3b)}
        if st == 200:
            newest = r3b["refresh_token"]

        # reuse of a rotated (already used) refresh token
        st, _, r4 = refresh(info, info["client_id"], rt0)
        findings["refresh_reuse_rotated"] = {"status": st, "body": r4}
        expect(st in (400, 401, 403), "rotated refresh token was accepted again: %s %s" % (st, r4))
        st, _, r5 = refresh(info, info["client_id"], newest)
        findings["refresh_newest_after_reuse"] = {"status": st, "body": redact(r5)}

        # ---- flow B: ES256 client, full scope, then code replay
        flow_b = sign_in(info, "agent", info["es256_client_id"], "openid profile email offline_access")
        st, _, tok_b = redeem(info, info["es256_client_id"], flow_b)
        expect(st == 200, "ES256 code redemption failed: %s %s" % (st, tok_b))
        hb, pb = verify_jws(tok_b["id_token"], jwks)
        expect(hb["alg"] == "ES256" and hb.get("kid") == info["kids"]["ES256"], "ES256 client got %s" % hb)
        expect(pb.get("email") == "alice@example.test", "email claim missing with 'email' scope")
        findings["es256_id_token_header"] = hb
        findings["es256_id_token_claims"] = redact(pb)
        findings["es256_access_token_header"] = jwt_parts(tok_b["access_token"])[0]
        st, _, rb = refresh(info, info["es256_client_id"], tok_b["refresh_token"])
        expect(st == 200, "ES256 refresh failed: %s %s" % (st, rb))
        if "id_token" in rb:
            findings["es256_refresh_id_token_header"] = verify_jws(rb["id_token"], jwks)[0]
        st, _, replay = redeem(info, info["es256_client_id"], flow_b)
        findings["code_replay"] = {"status": st, "body": replay}
        expect(st != 200, "code replay accepted")
        st, _, after = refresh(info, info["es256_client_id"], rb["refresh_token"])
        findings["refresh_after_code_replay"] = {"status": st, "body": redact(after)}

        # ---- bob gets his own claims
        flow_c = sign_in(info, "agent", info["client_id"], "openid email", user="bob")
        st, _, tok_c = redeem(info, info["client_id"], flow_c)
        expect(st == 200, "bob redemption failed")
        _, pc = verify_jws(tok_c["id_token"], jwks)
        expect(pc.get("email") == "bob@example.test" and pc["sub"] != idt["sub"], "bob claims")
        findings["bob_openid_email_claims"] = sorted(pc.keys())
        findings["no_offline_access_token_keys"] = sorted(tok_c.keys())

        # ---- device authorization grant
        st, _, dev = http_req("POST", disc["device_authorization_endpoint"],
                              form={"client_id": info["client_id"], "scope": "openid profile offline_access"})
        findings["device_authorization_response"] = {"status": st, "body": redact(dev)}
        expect(st == 200, "device authorization failed: %s %s" % (st, dev))
        grant = "urn:ietf:params:oauth:grant-type:device_code"
        st, _, pending = http_req("POST", disc["token_endpoint"], form={
            "grant_type": grant, "device_code": dev["device_code"], "client_id": info["client_id"]})
        findings["device_token_before_approval"] = {"status": st, "body": pending}
        res = subprocess.run([sys.executable, os.path.join(HERE, "login_agent.py"),
                              dev.get("verification_uri_complete") or dev["verification_uri"],
                              "--username", "alice", "--password", info["users"]["alice"]],
                             capture_output=True, text=True, timeout=60)
        expect(res.returncode == 0, "device verification via login_agent failed: %s" % res.stderr)
        findings["device_verification_final_url"] = res.stdout.strip()
        time.sleep(max(1, dev.get("interval", 1)) + 0.2)
        st, _, dtok = http_req("POST", disc["token_endpoint"], form={
            "grant_type": grant, "device_code": dev["device_code"], "client_id": info["client_id"]})
        findings["device_token_after_approval"] = {"status": st, "keys": sorted(dtok.keys()) if isinstance(dtok, dict) else dtok}
        expect(st == 200 and "access_token" in dtok, "device token failed: %s %s" % (st, dtok))
        if "id_token" in dtok:
            verify_jws(dtok["id_token"], jwks)

        # ---- client credentials: secret client (client_secret_post) and private_key_jwt client
        cc = info["confidential_clients"]
        token_ep = disc["token_endpoint"]
        expect(info["token_endpoint"] == token_ep, "JSON token_endpoint differs from discovery")
        http_req("POST", info["stats_reset_url"])
        sec = cc["secret"]
        form = {"grant_type": "client_credentials", "client_id": sec["client_id"],
                "client_secret": sec["client_secret"], "scope": " ".join(sec["scopes"])}
        st, _, cc_tok = http_req("POST", token_ep, form=form)
        findings["client_credentials_secret_post"] = {"status": st, "body": redact(cc_tok)}
        expect(st == 200 and "access_token" in cc_tok and "refresh_token" not in cc_tok and "id_token" not in cc_tok,
               "client credentials (client_secret_post) failed: %s %s" % (st, cc_tok))
        findings["client_credentials_access_token_claims"] = redact(verify_jws(cc_tok["access_token"], jwks)[1])
        st, _, body = http_req("POST", token_ep, form=dict(form, client_secret="wrong"))
        findings["client_credentials_wrong_secret"] = {"status": st, "body": body}
        expect(st == 403, "wrong client secret was not refused: %s %s" % (st, body))
        st, _, body = http_req("POST", token_ep, form=dict(form, scope=cc["not_allowed_scopes"][0]))
        findings["client_credentials_not_allowed_scope"] = {"status": st, "body": body}
        expect(st == 400, "a scope outside the client's list was not refused: %s %s" % (st, body))
        pk = cc["private_key_jwt"]
        assertion = client_assertion(pk["private_key_pem"], pk["certificate_pem"], pk["client_id"], token_ep)
        form = {"grant_type": "client_credentials", "client_id": pk["client_id"], "scope": " ".join(pk["scopes"]),
                "client_assertion_type": "urn:ietf:params:oauth:client-assertion-type:jwt-bearer",
                "client_assertion": assertion}
        st, _, body = http_req("POST", token_ep, form=form)
        findings["client_credentials_private_key_jwt"] = {"status": st, "body": redact(body)}
        expect(st == 200 and "access_token" in body, "private_key_jwt (RS256, x5t, no kid) failed: %s %s" % (st, body))
        st, _, body = http_req("POST", token_ep, form=form)
        findings["client_credentials_private_key_jwt_replayed"] = {"status": st, "body": body}
        expect(st == 403, "a replayed client assertion (same jti) was accepted: %s %s" % (st, body))
        form["client_assertion"] = client_assertion(pk["private_key_pem"], pk["certificate_pem"], pk["client_id"],
                                                    token_ep, alg="PS256", thumbprint="x5t#S256")
        st, _, body = http_req("POST", token_ep, form=form)
        findings["client_credentials_private_key_jwt_ps256"] = {"status": st, "body": redact(body)}
        expect(st == 200, "private_key_jwt (PS256, x5t#S256) failed: %s %s" % (st, body))
        s_cc = stats(info)
        findings["stats_after_client_credentials"] = {k: s_cc[k] for k in ("token_endpoint_posts", "by_grant_type")}
        expect(s_cc["by_grant_type"].get("client_credentials") == 6,
               "stats: expected 6 client_credentials token POSTs, got %r" % s_cc["by_grant_type"])

        # ---- RP-initiated logout: first hop, then completed by login_agent with the sign-in's cookies
        st, hdrs, body = http_req("GET", disc["end_session_endpoint"] + "?" + urllib.parse.urlencode({
            "id_token_hint": tok_b["id_token"], "post_logout_redirect_uri": info["post_logout_redirect_uris"][0],
            "state": "bye"}))
        findings["end_session_first_hop"] = {"status": st, "location": hdrs.get("Location"), "body": body}
        jar = os.path.join(state_dir, "agent-cookies.txt")
        flow_l = sign_in(info, "agent", info["client_id"], "openid profile", extra=["--cookie-file", jar])
        st, _, tok_l = redeem(info, info["client_id"], flow_l)
        expect(st == 200, "logout-test redemption failed")
        # prompt=none with the session cookie: glewlwyd wants id_token_hint = the last ID token it issued
        for label, extra_q in (("prompt_none_without_hint", {}), ("prompt_none_with_hint", {"id_token_hint": tok_l["id_token"]})):
            v2, c2 = pkce()
            u = authorize_url(info, info["client_id"], flow_l["redirect_uri"], "openid profile", "s2", "n2", c2)
            u += "&" + urllib.parse.urlencode(dict(prompt="none", **extra_q))
            res = subprocess.run([sys.executable, os.path.join(HERE, "login_agent.py"), u, "--cookie-file", jar,
                                  "--no-deliver"], capture_output=True, text=True, timeout=60)
            findings[label] = res.stdout.strip() or res.stderr.strip()
        expect("code=" in findings["prompt_none_with_hint"], "prompt=none with id_token_hint gave no code")
        lst = Listener()
        try:
            post_logout = lst.redirect_uri("/logged-out")
            st, _, body = http_req("POST", info["add_redirect_url"], data=json.dumps(
                {"client_id": info["client_id"], "post_logout_redirect_uri": post_logout}).encode(),
                headers={"Content-Type": "application/json"})
            expect(st == 200, "registering post-logout URI failed: %s %s" % (st, body))
            end_url = disc["end_session_endpoint"] + "?" + urllib.parse.urlencode({
                "id_token_hint": tok_l["id_token"], "post_logout_redirect_uri": post_logout, "state": "bye"})
            res = subprocess.run([sys.executable, os.path.join(HERE, "login_agent.py"), end_url, "--cookie-file", jar],
                                 capture_output=True, text=True, timeout=60)
            expect(res.returncode == 0, "logout via login_agent failed: %s" % res.stderr)
            expect(lst.event.wait(10), "post-logout redirect not delivered")
            findings["end_session_final_redirect"] = lst.got[0]
        finally:
            lst.close()
        st, _, ui = http_req("GET", disc["userinfo_endpoint"], headers={"Authorization": "Bearer " + tok_l["access_token"]})
        findings["userinfo_after_logout"] = {"status": st}
        st, _, rl = refresh(info, info["client_id"], tok_l["refresh_token"])
        findings["refresh_after_logout"] = {"status": st, "body": redact(rl)}

        # ---- same sign-in through real headless Chromium
        if not args.no_browser:
            full = "openid profile email offline_access"
            # (a) alice already granted "openid profile offline_access" to the public client (flow A):
            #     the SPA shows no consent screen, only "Continue" -> code for the granted subset
            flow_d = sign_in(info, "browser", info["client_id"], full, path="/callback", extra=["--consent", "as-shown"])
            st, _, tok_d = redeem(info, info["client_id"], flow_d)
            expect(st == 200, "browser code redemption failed: %s %s" % (st, tok_d))
            hd, pd = verify_jws(tok_d["id_token"], jwks)
            expect(pd["nonce"] == flow_d["nonce"], "browser id_token nonce")
            findings["partial_consent_as_shown"] = {"requested": full, "token_scope": tok_d.get("scope"),
                                                    "id_token_has_email": "email" in pd}
            # (b) same, but the script opens the consent screen from the dropdown and grants the rest
            flow_e = sign_in(info, "browser", info["client_id"], full, path="/callback")
            st, _, tok_e = redeem(info, info["client_id"], flow_e)
            expect(st == 200, "browser code redemption failed: %s %s" % (st, tok_e))
            _, pe = verify_jws(tok_e["id_token"], jwks)
            expect(pe.get("email") == "alice@example.test" and tok_e.get("scope") == full,
                   "browser --consent all did not get every scope: %s" % tok_e.get("scope"))
            # (c) bob, first consent ever for the ES256 client: login form + consent screen + Continue
            flow_f = sign_in(info, "browser", info["es256_client_id"], full, user="bob", path="/cb")
            st, _, tok_f = redeem(info, info["es256_client_id"], flow_f)
            expect(st == 200, "browser code redemption failed: %s %s" % (st, tok_f))
            hf, pf = verify_jws(tok_f["id_token"], jwks)
            expect(hf["alg"] == "ES256" and pf.get("email") == "bob@example.test", "browser ES256/bob claims")
            findings["browser_flow_seconds"] = [flow_d["seconds"], flow_e["seconds"], flow_f["seconds"]]
        ok = True
    finally:
        rc = prov.stop()
        findings["server_exit_code"] = rc
        time.sleep(0.3)
        gl_alive = os.path.exists("/proc/%d" % info["glewlwyd_pid"]) and \
            "zombie" not in open("/proc/%d/status" % info["glewlwyd_pid"]).read().lower() \
            if os.path.exists("/proc/%d/status" % info["glewlwyd_pid"]) else False
        findings["glewlwyd_alive_after_stop"] = gl_alive
        with open(os.path.join(state_dir, "findings.json"), "w") as f:
            json.dump(findings, f, indent=1, default=str)
        if ok and not args.keep:
            import shutil
            shutil.rmtree(state_dir, ignore_errors=True)
        else:
            print("state dir kept: %s" % state_dir)
    expect(rc == 0, "server.py exit code %s" % rc)
    expect(not gl_alive, "glewlwyd still running after server.py stopped")
    return findings


def main(argv):
    p = argparse.ArgumentParser()
    p.add_argument("--runs", type=int, default=1)
    p.add_argument("--access-token-seconds", type=int, default=300)
    p.add_argument("--no-browser", action="store_true")
    p.add_argument("--keep", action="store_true", help="keep state dirs")
    p.add_argument("--findings", help="write the last run's findings here too")
    args = p.parse_args(argv)
    try:
        import cryptography  # noqa: F401
    except ImportError:
        sys.stderr.write("selftest needs 'cryptography': run it with %s\n" % VENV_PY)
        return 4
    passed = failed = 0
    last = None
    for i in range(1, args.runs + 1):
        t0 = time.time()
        try:
            last = one_run(args, i)
            passed += 1
            print("run %d: PASS in %.1fs (startup %.2fs)" % (i, time.time() - t0, last["startup_seconds_wall"]))
        except Check as exc:
            failed += 1
            print("run %d: FAIL: %s" % (i, exc))
        sys.stdout.flush()
    if last is not None:
        out = args.findings
        if out:
            with open(out, "w") as f:
                json.dump(last, f, indent=1, default=str)
        print(json.dumps(last, indent=1, default=str))
    print("%d passed, %d failed" % (passed, failed))
    return 0 if failed == 0 else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
