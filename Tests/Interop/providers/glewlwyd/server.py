#!/usr/bin/env python3
"""Run a throwaway glewlwyd (Debian package) OpenID provider on loopback.

Usage:
  python3 server.py --state-dir DIR [--access-token-seconds N] [options]
      Starts glewlwyd on a private loopback port, fronts it with a tiny
      counting reverse proxy on another loopback port (the address the tests
      talk to), configures it through the admin REST API, prints ONE JSON
      line on stdout and keeps running until SIGTERM/SIGINT. Besides the two
      public clients it registers two confidential clients for the client
      credentials grant (client secret, private_key_jwt) and a web app
      (client secret; authorization code + refresh token), unless
      --no-client-credentials.

  python3 server.py --state-dir DIR --mtls [options]
      The same, but glewlwyd itself serves HTTPS on the public port (no proxy,
      so no request counting and no /test/* endpoints), with a private PKI made
      by the openssl CLI in DIR/mtls/, and three more confidential clients
      that authenticate with a TLS client certificate (RFC 8705): two for
      client credentials, tls_client_auth (subject DN) and
      self_signed_tls_client_auth, and a tls_client_auth web app
      (authorization code + refresh token).

  python3 server.py add-redirect --state-dir DIR [--client-id ID] URI [URI...]
      Adds exact redirect URIs to a client of a running instance (glewlwyd
      compares redirect_uri by exact string, so loopback ports must be
      registered one by one).

Standard library only.  See README.md next to this file.
"""

import argparse
import base64
import gzip
import hashlib
import http.client
import http.cookiejar
import http.server
import json
import os
import re
import secrets
import shutil
import signal
import socket
import sqlite3
import ssl
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.parse
import urllib.request

GLEWLWYD_BIN = "/usr/bin/glewlwyd"
SCHEMA_CANDIDATES = [
    "/usr/share/doc/glewlwyd/database/init.sqlite3.sql.gz",
    "/usr/share/doc/glewlwyd/database/init.sqlite3.sql",
]
WEBAPP_DIR = "/usr/share/glewlwyd/webapp"
WEBAPP_CONFIG_TEMPLATE = "/usr/share/glewlwyd/templates/config.json"
LIB_DIR = "/usr/lib/glewlwyd"

PLUGIN_NAME = "oidc"
PUBLIC_CLIENT_ID = "swift-msal-public"
ES256_CLIENT_ID = "swift-msal-es256"
RSA_KID = "rs256-key-1"
EC_KID = "es256-key-1"
# The schema script creates this administrator (docs/INSTALL.md, GETTING_STARTED.md).
ADMIN_USER = "admin"
ADMIN_PASSWORD = "password"
USERS = {
    "alice": {"password": "alice-Passw0rd", "name": "Alice Example", "email": "alice@example.test"},
    "bob": {"password": "bob-Passw0rd", "name": "Bob Example", "email": "bob@example.test"},
}
OIDC_SCOPES = ["openid", "profile", "email", "offline_access"]
STATE_FILE = "state.json"
# Confidential clients for the client-credentials grant (see README.md, "Confidential clients").
SECRET_CLIENT_ID = "swift-msal-secret-client"
JWT_CLIENT_ID = "swift-msal-jwt-client"
# Scopes the two confidential clients may get with client credentials (their 'scope' list), and
# a scope that exists in glewlwyd but is in neither client's list (to provoke a refusal).
CC_SCOPES = ["api.read"]
CC_OTHER_SCOPES = ["api.write"]
# client properties the plugin reads the client's keys from (client-pubkey-parameter /
# client-jwks-parameter); both are declared in the schema's client data-format already
CLIENT_PUBKEY_PROPERTY = "pubkey"
CLIENT_JWKS_PROPERTY = "jwks"
# --mtls: clients that authenticate with a TLS client certificate (RFC 8705 §2), their
# certificates' subjects (openssl -subj order; glewlwyd compares the RFC 4514 form), and the
# client property holding the expected subject DN (not in the schema's client data-format)
MTLS_DN_CLIENT_ID = "swift-msal-mtls-dn-client"
MTLS_SELF_SIGNED_CLIENT_ID = "swift-msal-mtls-self-signed-client"
# web apps (authorization code + refresh token): one with the client secret, one authenticating
# with the tls_client_auth client's certificate (same subject DN) under --mtls; their redirect URI
# is never fetched (the agent runs with --no-deliver)
WEB_CLIENT_ID = "swift-msal-web-client"
WEB_REDIRECT_URI = "https://webapp.swift-msal.test/signin-callback"
MTLS_WEB_CLIENT_ID = "swift-msal-mtls-web-client"
MTLS_WEB_REDIRECT_URI = WEB_REDIRECT_URI
MTLS_DN_SUBJECT = "/O=swift-msal/CN=swift-msal-mtls-dn-client"
MTLS_WRONG_DN_SUBJECT = "/O=swift-msal/CN=someone-else"
MTLS_SELF_SIGNED_SUBJECT = "/CN=swift-msal-mtls-self-signed-client"
MTLS_STRANGER_SUBJECT = "/CN=stranger"
MTLS_DN_PROPERTY = "tls_client_auth_subject_dn"


def log(msg):
    sys.stderr.write("[glewlwyd-server] %s\n" % msg)
    sys.stderr.flush()


# --------------------------------------------------------------------------
# Keys: generate with openssl, convert the DER private keys to private JWKs
# --------------------------------------------------------------------------

def _der_read(data, pos):
    tag = data[pos]
    pos += 1
    length = data[pos]
    pos += 1
    if length & 0x80:
        n = length & 0x7F
        length = int.from_bytes(data[pos:pos + n], "big")
        pos += n
    return tag, data[pos:pos + length], pos + length


def _der_children(content):
    out, pos = [], 0
    while pos < len(content):
        tag, value, pos = _der_read(content, pos)
        out.append((tag, value))
    return out


def _b64u(raw):
    return base64.urlsafe_b64encode(raw).rstrip(b"=").decode("ascii")


def _b64u_int(value_bytes):
    return _b64u(value_bytes.lstrip(b"\x00") or b"\x00")


def _pkcs8_inner(der):
    tag, content, _ = _der_read(der, 0)
    assert tag == 0x30, "PKCS#8: not a SEQUENCE"
    children = _der_children(content)
    # version INTEGER, AlgorithmIdentifier SEQUENCE, privateKey OCTET STRING
    assert children[2][0] == 0x04, "PKCS#8: privateKey is not an OCTET STRING"
    return children[2][1]


def _openssl_pkcs8_der(pem_path):
    return subprocess.run(
        ["openssl", "pkcs8", "-topk8", "-nocrypt", "-in", pem_path, "-outform", "DER"],
        check=True, capture_output=True).stdout


def make_rsa_jwk(state_dir, kid):
    pem = os.path.join(state_dir, "rs256-private.pem")
    subprocess.run(["openssl", "genpkey", "-algorithm", "RSA", "-pkeyopt", "rsa_keygen_bits:2048",
                    "-out", pem], check=True, capture_output=True)
    inner = _pkcs8_inner(_openssl_pkcs8_der(pem))
    tag, content, _ = _der_read(inner, 0)
    ints = [v for (t, v) in _der_children(content)]
    # RSAPrivateKey: version, n, e, d, p, q, dp, dq, qi
    names = ["n", "e", "d", "p", "q", "dp", "dq", "qi"]
    jwk = {"kty": "RSA"}
    for name, value in zip(names, ints[1:9]):
        jwk[name] = _b64u_int(value)
    jwk.update({"kid": kid, "alg": "RS256", "use": "sig"})
    return jwk


def make_ec_jwk(state_dir, kid):
    pem = os.path.join(state_dir, "es256-private.pem")
    subprocess.run(["openssl", "genpkey", "-algorithm", "EC", "-pkeyopt", "ec_paramgen_curve:P-256",
                    "-out", pem], check=True, capture_output=True)
    inner = _pkcs8_inner(_openssl_pkcs8_der(pem))
    tag, content, _ = _der_read(inner, 0)
    children = _der_children(content)
    # ECPrivateKey: version INTEGER, privateKey OCTET STRING, [0] params, [1] publicKey BIT STRING
    d = children[1][1]
    pub = None
    for t, v in children[2:]:
        if t == 0xA1:
            _, bits, _ = _der_read(v, 0)
            pub = bits[1:]  # skip the "unused bits" byte
    if pub is None:
        raise RuntimeError("EC key without public point")
    assert pub[0] == 0x04 and len(pub) == 65, "expected an uncompressed P-256 point"
    return {"kty": "EC", "crv": "P-256", "x": _b64u(pub[1:33]), "y": _b64u(pub[33:65]),
            "d": _b64u(d.rjust(32, b"\x00")), "kid": kid, "alg": "ES256", "use": "sig"}


def public_jwk(jwk):
    keep = {"RSA": ("kty", "n", "e", "kid", "alg", "use"),
            "EC": ("kty", "crv", "x", "y", "kid", "alg", "use")}[jwk["kty"]]
    return {k: jwk[k] for k in keep if k in jwk}


def make_client_key_and_certificate(state_dir, client_id):
    """RSA 2048 key + self-signed certificate for a private_key_jwt client (openssl CLI).

    Returns the paths of the PKCS#8 private key, the certificate and the public key (all PEM),
    the public JWK (kid = x5t), and the certificate's x5t / x5t#S256 / x5c values."""
    key_pem = os.path.join(state_dir, "jwt-client-private.pem")
    cert_pem = os.path.join(state_dir, "jwt-client-certificate.pem")
    pub_pem = os.path.join(state_dir, "jwt-client-public.pem")
    subprocess.run(["openssl", "genpkey", "-algorithm", "RSA", "-pkeyopt", "rsa_keygen_bits:2048",
                    "-out", key_pem], check=True, capture_output=True)
    subprocess.run(["openssl", "req", "-new", "-x509", "-key", key_pem, "-out", cert_pem, "-days", "3650",
                    "-sha256", "-subj", "/CN=" + client_id], check=True, capture_output=True)
    subprocess.run(["openssl", "pkey", "-in", key_pem, "-pubout", "-out", pub_pem], check=True, capture_output=True)
    cert_der = subprocess.run(["openssl", "x509", "-in", cert_pem, "-outform", "DER"],
                              check=True, capture_output=True).stdout
    inner = _pkcs8_inner(_openssl_pkcs8_der(key_pem))
    _, content, _ = _der_read(inner, 0)
    ints = [v for (_, v) in _der_children(content)]  # RSAPrivateKey: version, n, e, ...
    x5t = _b64u(hashlib.sha1(cert_der).digest())
    x5t_s256 = _b64u(hashlib.sha256(cert_der).digest())
    x5c = base64.b64encode(cert_der).decode("ascii")
    # no "alg" member: the same key verifies RS256 and PS256 assertions
    jwk = {"kty": "RSA", "n": _b64u_int(ints[1]), "e": _b64u_int(ints[2]), "kid": x5t, "use": "sig",
           "x5t": x5t, "x5t#S256": x5t_s256, "x5c": [x5c]}
    with open(pub_pem, encoding="ascii") as f:
        pubkey = f.read()
    return {"private_key_pem": key_pem, "certificate_pem": cert_pem, "public_key_pem": pub_pem,
            "pubkey": pubkey, "jwk": jwk, "x5t": x5t, "x5t#S256": x5t_s256, "x5c": [x5c]}


def _openssl(*args, cwd=None):
    return subprocess.run(["openssl"] + list(args), check=True, capture_output=True, cwd=cwd).stdout


def _certificate_facts(cert_path):
    """subject DN (RFC 4514, as glewlwyd's GnuTLS prints it), x5t#S256, the DER as base64
    (x5c member) and the RSA public numbers of a PEM certificate"""
    der = _openssl("x509", "-in", cert_path, "-outform", "DER")
    subject = _openssl("x509", "-in", cert_path, "-noout", "-subject", "-nameopt", "RFC2253").decode().strip()
    subject = subject.split("=", 1)[1] if subject.startswith("subject=") else subject
    pub_pem = _openssl("x509", "-in", cert_path, "-noout", "-pubkey")
    spki = subprocess.run(["openssl", "pkey", "-pubin", "-outform", "DER"], input=pub_pem, check=True,
                          capture_output=True).stdout
    # SubjectPublicKeyInfo: AlgorithmIdentifier, BIT STRING (unused-bits byte + RSAPublicKey(n, e))
    _, spki_content, _ = _der_read(spki, 0)
    bits = _der_children(spki_content)[1][1][1:]
    _, rsa_content, _ = _der_read(bits, 0)
    n, e = [v for (_, v) in _der_children(rsa_content)]
    return {"subject_dn": subject, "x5t#S256": _b64u(hashlib.sha256(der).digest()),
            "x5c": base64.b64encode(der).decode("ascii"), "n": _b64u_int(n), "e": _b64u_int(e)}


def make_mtls_pki(state_dir):
    """A throwaway PKI for --mtls in STATE/mtls (openssl CLI, RSA 2048, SHA-256, 10 years):

    * ca.pem: the CA (trust anchor for glewlwyd's server certificate and the CA-signed clients)
    * server.pem: glewlwyd's TLS certificate, SAN IP:127.0.0.1 and DNS:localhost
    * dn-client.pem: CA-signed, the subject registered for the tls_client_auth client
    * wrong-dn.pem: CA-signed, another subject (trusted by glewlwyd, matches no client)
    * self-signed.pem: self-signed, registered (x5c) for the self_signed_tls_client_auth client
    * stranger.pem: self-signed, known to nobody
    * client-trust.pem: what glewlwyd verifies client certificates with (secure_connection_ca_file):
      the CA plus self-signed.pem (GnuTLS drops a certificate it cannot verify, so a self-signed
      client certificate must be in the bundle itself)
    """
    d = os.path.join(state_dir, "mtls")
    if os.path.isdir(d):
        shutil.rmtree(d)
    os.makedirs(d)

    def path(name):
        return os.path.join(d, name)

    _openssl("req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", path("ca-key.pem"), "-out", path("ca.pem"),
             "-days", "3650", "-sha256", "-subj", "/CN=swift-msal glewlwyd test CA",
             "-addext", "basicConstraints=critical,CA:TRUE", "-addext", "keyUsage=critical,keyCertSign,cRLSign")

    def ca_signed(name, subject, san, eku):
        _openssl("req", "-new", "-newkey", "rsa:2048", "-nodes", "-keyout", path(name + "-key.pem"),
                 "-out", path(name + ".csr"), "-subj", subject)
        with open(path(name + ".ext"), "w", encoding="ascii") as f:
            f.write("basicConstraints=CA:FALSE\nkeyUsage=critical,digitalSignature,keyEncipherment\n"
                    "extendedKeyUsage=%s\nsubjectAltName=%s\n" % (eku, san))
        _openssl("x509", "-req", "-in", path(name + ".csr"), "-CA", path("ca.pem"), "-CAkey", path("ca-key.pem"),
                 "-set_serial", "0x" + secrets.token_hex(8), "-out", path(name + ".pem"), "-days", "3650",
                 "-sha256", "-extfile", path(name + ".ext"))

    def self_signed(name, subject):
        _openssl("req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", path(name + "-key.pem"),
                 "-out", path(name + ".pem"), "-days", "3650", "-sha256", "-subj", subject)

    ca_signed("server", "/CN=127.0.0.1", "IP:127.0.0.1,DNS:localhost", "serverAuth")
    ca_signed("dn-client", MTLS_DN_SUBJECT, "DNS:dn-client.swift-msal.test", "clientAuth")
    ca_signed("wrong-dn", MTLS_WRONG_DN_SUBJECT, "DNS:someone-else.swift-msal.test", "clientAuth")
    self_signed("self-signed", MTLS_SELF_SIGNED_SUBJECT)
    self_signed("stranger", MTLS_STRANGER_SUBJECT)
    with open(path("client-trust.pem"), "w", encoding="ascii") as out:
        for name in ("ca.pem", "self-signed.pem"):
            with open(path(name), encoding="ascii") as f:
                out.write(f.read())
    os.unlink(path("ca-key.pem"))  # nothing else is ever signed with it
    pki = {"dir": d, "ca_file": path("ca.pem"), "client_trust_file": path("client-trust.pem"),
           "server_key": path("server-key.pem"), "server_cert": path("server.pem")}
    for name in ("dn-client", "wrong-dn", "self-signed", "stranger"):
        pki[name] = dict(_certificate_facts(path(name + ".pem")), private_key_pem=path(name + "-key.pem"),
                         certificate_pem=path(name + ".pem"))
    return pki


# --------------------------------------------------------------------------
# Small HTTP helper with a cookie jar, no redirect following
# --------------------------------------------------------------------------

class _NoRedirect(urllib.request.HTTPRedirectHandler):
    def redirect_request(self, req, fp, code, msg, headers, newurl):
        return None


class ApiSession:
    def __init__(self, base, ssl_context=None):
        self.base = base.rstrip("/")
        self.jar = http.cookiejar.CookieJar()
        handlers = [urllib.request.HTTPCookieProcessor(self.jar), _NoRedirect()]
        if ssl_context is not None:
            handlers.append(urllib.request.HTTPSHandler(context=ssl_context))
        self.opener = urllib.request.build_opener(*handlers)
        self.logged_in = False

    def call(self, method, path, body=None, expect=(200,), timeout=30, _retry=True):
        data = None
        headers = {}
        if body is not None:
            data = json.dumps(body).encode()
            headers["Content-Type"] = "application/json"
        req = urllib.request.Request(self.base + path, data=data, method=method, headers=headers)
        try:
            with self.opener.open(req, timeout=timeout) as resp:
                status, raw = resp.status, resp.read()
        except urllib.error.HTTPError as err:
            status, raw = err.code, err.read()
        if status == 401 and _retry and self.logged_in and not path.startswith("/api/auth"):
            # the g_admin scope wants a password younger than 600 s (schema default): log in again
            self.login_admin()
            return self.call(method, path, body, expect, timeout, _retry=False)
        if expect and status not in expect:
            raise RuntimeError("%s %s -> HTTP %s: %s" % (method, path, status, raw[:2000].decode("utf-8", "replace")))
        if raw:
            try:
                return status, json.loads(raw)
            except ValueError:
                return status, raw.decode("utf-8", "replace")
        return status, None

    def login_admin(self):
        self.call("POST", "/api/auth/", {"username": ADMIN_USER, "password": ADMIN_PASSWORD})
        self.logged_in = True


# --------------------------------------------------------------------------
# glewlwyd configuration
# --------------------------------------------------------------------------

def free_port():
    s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    return port


def init_database(db_path):
    if os.path.exists(db_path):
        os.unlink(db_path)
    for candidate in SCHEMA_CANDIDATES:
        if os.path.exists(candidate):
            opener = gzip.open if candidate.endswith(".gz") else open
            with opener(candidate, "rt", encoding="utf-8") as f:
                script = f.read()
            break
    else:
        raise RuntimeError("glewlwyd SQLite schema not found (is the 'glewlwyd' package installed?)")
    conn = sqlite3.connect(db_path)
    try:
        conn.executescript(script)
        conn.commit()
    finally:
        conn.close()


def prepare_webapp(state_dir):
    """glewlwyd's static file server refuses files whose realpath is outside
    static_files_path, and the Debian package's webapp/config.json is a
    symlink to a directory (/etc/glewlwyd/config-2.7.json/), so serve a
    private copy with a working config.json."""
    dest = os.path.join(state_dir, "webapp")
    if os.path.isdir(dest):
        shutil.rmtree(dest)
    shutil.copytree(WEBAPP_DIR, dest, symlinks=False,
                    ignore=lambda d, names: ["config.json"] if os.path.samefile(d, WEBAPP_DIR) else [])
    with open(WEBAPP_CONFIG_TEMPLATE, encoding="utf-8") as f:
        cfg = json.load(f)
    cfg["GlewlwydUrl"] = "./"
    with open(os.path.join(dest, "config.json"), "w", encoding="utf-8") as f:
        json.dump(cfg, f, indent=2)
    return dest


def write_glewlwyd_conf(path, *, port, external_url, webapp, db_path, log_path, log_level, pki=None):
    q = json.dumps  # libconfig strings use C-style escapes; JSON quoting is compatible for paths/URLs
    mime = [(".html", "text/html", 1), (".css", "text/css", 1), (".js", "application/javascript", 1),
            (".json", "application/json", 1), (".txt", "text/plain", 1), (".png", "image/png", 0),
            (".jpg", "image/jpeg", 0), (".jpeg", "image/jpeg", 0), (".ttf", "font/ttf", 0),
            (".woff", "font/woff", 0), (".woff2", "font/woff2", 0), (".otf", "font/otf", 0),
            (".eot", "application/vnd.ms-fontobject", 0), (".svg", "image/svg+xml", 0),
            (".map", "application/octet-stream", 0), (".ico", "image/x-icon", 0)]
    mime_txt = ",\n".join('  { extension = %s; mime_type = %s; compress = %d; }' % (q(e), q(m), c)
                          for e, m, c in mime)
    text = f"""# generated by server.py -- throwaway glewlwyd for swift-msal interop tests
port = {port}
bind_address = "127.0.0.1"
external_url = {q(external_url)}
login_url = "login.html"
api_prefix = "api"
static_files_path = {q(webapp + "/")}
allow_origin = "*"
log_mode = "file"
log_level = {q(log_level)}
log_file = {q(log_path)}
cookie_secure = 0
cookie_same_site = "empty"
session_expiration = 2419200
session_key = "GLEWLWYD2_SESSION_ID"
admin_session_authentication = "cookie"
profile_session_authentication = "cookie"
allow_multiple_user_per_session = true
login_api_enabled = true
plugin_api_run_enabled = ""
add_x_frame_option_header_deny = true
max_post_size = 16778240
admin_scope = "g_admin"
profile_scope = "g_profile"
user_module_path = "{LIB_DIR}/user"
client_module_path = "{LIB_DIR}/client"
user_auth_scheme_module_path = "{LIB_DIR}/scheme"
plugin_module_path = "{LIB_DIR}/plugin"
hash_algorithm = "SHA512"
response_allowed_compression = "deflate,gzip"
database = {{
  type = "sqlite3";
  path = {q(db_path)};
}};
static_files_mime_types = (
{mime_txt}
);
"""
    if pki is not None:
        # HTTPS on the port itself; client certificates are requested (not required) and those
        # that verify against secure_connection_ca_file reach the plugin (src/glewlwyd.c, ulfius)
        text += f"""use_secure_connection = true
secure_connection_key_file = {q(pki["server_key"])}
secure_connection_pem_file = {q(pki["server_cert"])}
secure_connection_ca_file = {q(pki["client_trust_file"])}
"""
    with open(path, "w", encoding="utf-8") as f:
        f.write(text)


def oidc_plugin_parameters(issuer, jwks_private, access_token_seconds, refresh_token_seconds,
                           device_interval, iss_parameter, client_credentials=True, mtls=False):
    params = {
        "iss": issuer,
        "oauth-as-iss-id": iss_parameter,
        "subject-type": "public",
        # signing keys: a JWKS with RS256 (default) and ES256
        "jwt-type": "rsa",
        "jwt-key-size": "256",
        "jwks-uri": "",
        "jwks-private": json.dumps(jwks_private),
        "default-kid": RSA_KID,
        "client-sign_kid-parameter": "sign_kid",
        "jwks-public": "",
        "jwks-public-uri": "",
        "jwks-show": True,
        "jwks-x5c": [],
        "key": "",
        "cert": "",
        # lifetimes
        "access-token-duration": access_token_seconds,
        "refresh-token-duration": refresh_token_seconds,
        "code-duration": 600,
        # refresh tokens: rolling expiry + one-time use (rotation)
        "refresh-token-rolling": True,
        "refresh-token-one-use": "always",
        "client-refresh-token-one-use-parameter": "refresh-token-one-use",
        # grants / response types
        # glewlwyd 2.7.5 answers grant_type=client_credentials only when BOTH auth-type-client-enabled
        # and allow-non-oidc are true (callback_oidc_token); allow-non-oidc also lets /auth accept
        # requests without the 'openid' scope (plain OAuth 2). --no-client-credentials: both false.
        "allow-non-oidc": client_credentials,
        "auth-type-code-enabled": True,
        "auth-type-code-revoke-replayed": True,
        "auth-type-token-enabled": False,
        "auth-type-id-token-enabled": True,
        "auth-type-none-enabled": False,
        "auth-type-password-enabled": False,
        "auth-type-client-enabled": client_credentials,
        "auth-type-device-enabled": True,
        "auth-type-refresh-enabled": True,
        "device-authorization-expiration": 600,
        "device-authorization-interval": device_interval,
        # scopes and claims
        "scope": [],
        "additional-parameters": [],
        "allowed-scope": OIDC_SCOPES,
        "restrict-scope-client-property": "",
        "name-claim": "on-demand",
        "name-claim-scope": ["profile"],
        "email-claim": "on-demand",
        "email-claim-scope": ["email"],
        "scope-claim": "no",
        "scope-claim-scope": [],
        "claims": [
            {"name": "preferred_username", "user-property": "username", "type": "string",
             "scope": ["profile"], "mandatory": False, "on-demand": True},
        ],
        "address-claim": {"type": "no", "formatted": "", "street_address": "", "locality": "",
                          "region": "", "postal_code": "", "country": "", "mandatory": False},
        # PKCE (S256 only, required)
        "pkce-allowed": True,
        "pkce-method-plain-allowed": False,
        "pkce-required": True,
        "pkce-required-public-client": True,
        "pkce-scopes": [],
        # introspection / revocation
        "introspection-revocation-allowed": True,
        "introspection-revocation-auth-scope": [],
        "introspection-revocation-allow-target-client": True,
        # discovery documents
        "service-documentation": "",
        "op-policy-uri": "",
        "op-tos-uri": "",
        # request objects (left at the admin UI defaults)
        "request-parameter-allow": True,
        "request-uri-allow-https-non-secure": False,
        "request-parameter-allow-encrypted": False,
        "request-parameter-ietf-strict": False,
        "request-maximum-exp": 3600,
        # client properties holding a private_key_jwt client's public key: a PEM public key (used
        # when the assertion has no 'kid') and a JWKS (used only when the assertion has a 'kid')
        "client-pubkey-parameter": CLIENT_PUBKEY_PROPERTY if client_credentials else "",
        "client-jwks-parameter": CLIENT_JWKS_PROPERTY,
        "client-jwks_uri-parameter": "jwks_uri",
        # no token encryption
        "encrypt-out-token-allow": False,
        "client-enc-parameter": "enc",
        "client-alg-parameter": "alg",
        "client-alg_kid-parameter": "alg_kid",
        "client-encrypt_code-parameter": "encrypt_code",
        "client-encrypt_at-parameter": "encrypt_at",
        "client-encrypt_userinfo-parameter": "encrypt_userinfo",
        "client-encrypt_id_token-parameter": "encrypt_id_token",
        "client-encrypt_refresh_token-parameter": "encrypt_refresh_token",
        "client-encrypt_introspection-parameter": "encrypt_introspection",
        # session management -> end_session_endpoint (RP-initiated logout)
        "session-management-allowed": True,
        "session-cookie-name": "GLEWLWYD2_OIDC_SID",
        "session-cookie-expiration": 2419200,
        # must be true: GET /api/oidc/session/{sid}/{client_id}, which the login SPA calls on its
        # end-session screen, answers 400 when front-channel logout is disabled (glewlwyd 2.7.5)
        "front-channel-logout-allowed": True,
        "back-channel-logout-allowed": False,
        # everything else off
        "register-client-allowed": False,
        # DPoP (RFC 9449): proofs accepted at the token endpoint (a request without one still gets
        # a bearer token); a proof may be at most 60 s old.
        "oauth-dpop-allowed": True,
        "oauth-dpop-iat-duration": 60,
        "resource-allowed": False,
        "oauth-rar-allowed": False,
        "oauth-par-allowed": False,
        "oauth-ciba-allowed": False,
        "oauth-fapi-check-all": False,
        "oauth-fapi-allow-jarm": False,
        "oauth-fapi-add-s_hash": False,
        "oauth-fapi-verify-nbf": False,
        "oauth-fapi-allow-restrict-alg": False,
        "oauth-fapi-restrict-alg": [],
        "oauth-fapi-allow-multiple-kid": False,
        "oauth-fapi-ciba-confidential-client": False,
        "oauth-fapi-ciba-push-forbidden": False,
    }
    if mtls:
        # RFC 8705: the client certificate of the TLS connection (never a header), checked only on
        # the mtls_endpoint_aliases (<issuer>/mtls/token, ...); self-signed certificates allowed
        params.update({
            "client-cert-source": "TLS",
            "client-cert-header-name": "",
            "client-cert-use-endpoint-aliases": True,
            "client-cert-self-signed-allowed": True,
        })
    return params


def client_body(client_id, name, redirect_uris, post_logout_uris, sign_kid=None):
    body = {
        "client_id": client_id,
        "name": name,
        "description": "swift-msal interop test client (public, PKCE)",
        "enabled": True,
        "confidential": False,
        "scope": [],
        "redirect_uri": list(redirect_uris),
        "authorization_type": ["code", "refresh_token", "device_authorization", "delete_token"],
        "token_endpoint_auth_method": ["none"],
        "post_logout_redirect_uris": list(post_logout_uris),
    }
    if sign_kid:
        body["sign_kid"] = sign_kid
    return body


def confidential_client_bodies(secret, jwt_key, key_source):
    """the two client-credentials clients and the web app (POST /api/client/ bodies)"""
    secret_client = {
        "client_id": SECRET_CLIENT_ID,
        "name": "swift-msal secret client",
        "description": "swift-msal interop test client (confidential, client secret, client credentials)",
        "enabled": True,
        "confidential": True,
        "password": secret,
        "scope": list(CC_SCOPES),
        "redirect_uri": [],
        "authorization_type": ["client_credentials"],
        "token_endpoint_auth_method": ["client_secret_post", "client_secret_basic"],
    }
    jwt_client = {
        "client_id": JWT_CLIENT_ID,
        "name": "swift-msal private_key_jwt client",
        "description": "swift-msal interop test client (confidential, private_key_jwt, client credentials)",
        "enabled": True,
        "confidential": True,
        "scope": list(CC_SCOPES),
        "redirect_uri": [],
        "authorization_type": ["client_credentials"],
        "token_endpoint_auth_method": ["private_key_jwt"],
    }
    if key_source in ("both", "pubkey"):
        jwt_client[CLIENT_PUBKEY_PROPERTY] = jwt_key["pubkey"]
    if key_source in ("both", "jwks"):
        jwt_client[CLIENT_JWKS_PROPERTY] = {"keys": [jwt_key["jwk"]]}
    web_client = {
        "client_id": WEB_CLIENT_ID,
        "name": "swift-msal web app",
        "description": "swift-msal interop test client (confidential, client secret, authorization code + refresh token)",
        "enabled": True,
        "confidential": True,
        "password": secret,
        "scope": [],
        "redirect_uri": [WEB_REDIRECT_URI],
        "authorization_type": ["code", "refresh_token"],
        "token_endpoint_auth_method": ["client_secret_post", "client_secret_basic"],
    }
    return secret_client, jwt_client, web_client


def mtls_client_bodies(pki):
    """the mutual-TLS clients (POST /api/client/ bodies): two client-credentials clients and a web app"""
    common = {"enabled": True, "confidential": True, "scope": list(CC_SCOPES), "redirect_uri": [],
              "authorization_type": ["client_credentials"]}
    dn_client = dict(common, client_id=MTLS_DN_CLIENT_ID, name="swift-msal tls_client_auth client",
                     description="swift-msal interop test client (tls_client_auth, subject DN, client credentials)",
                     token_endpoint_auth_method=["tls_client_auth"])
    dn_client[MTLS_DN_PROPERTY] = pki["dn-client"]["subject_dn"]
    cert = pki["self-signed"]
    self_signed_client = dict(
        common, client_id=MTLS_SELF_SIGNED_CLIENT_ID, name="swift-msal self_signed_tls_client_auth client",
        description="swift-msal interop test client (self_signed_tls_client_auth, client credentials)",
        token_endpoint_auth_method=["self_signed_tls_client_auth"])
    self_signed_client[CLIENT_JWKS_PROPERTY] = {"keys": [{
        "kty": "RSA", "n": cert["n"], "e": cert["e"], "use": "sig", "kid": cert["x5t#S256"], "x5c": [cert["x5c"]]}]}
    web_client = dict(
        common, client_id=MTLS_WEB_CLIENT_ID, name="swift-msal tls_client_auth web app",
        description="swift-msal interop test client (tls_client_auth, subject DN, authorization code + refresh token)",
        scope=[], redirect_uri=[MTLS_WEB_REDIRECT_URI], authorization_type=["code", "refresh_token"],
        token_endpoint_auth_method=["tls_client_auth"])
    web_client[MTLS_DN_PROPERTY] = pki["dn-client"]["subject_dn"]
    return dn_client, self_signed_client, web_client


def configure(api, issuer, jwks_private, args, base_redirects, post_logout_uris, confidential=None, pki=None):
    api.login_admin()

    # 1. let the client database backend store the 'sign_kid' client property
    _, mod = api.call("GET", "/api/mod/client/database")
    params = mod["parameters"]
    params["data-format"]["sign_kid"] = {"multiple": False, "read": True, "write": True}
    # end_session reads the client property 'post_logout_redirect_uris' (plural, a list), which the
    # schema's default data-format does not declare (it only has 'post_logout_redirect_uri')
    params["data-format"]["post_logout_redirect_uris"] = {"multiple": True, "read": True, "write": True}
    if pki is not None:
        # the schema declares tls_client_auth_san_* but not the subject DN property
        params["data-format"][MTLS_DN_PROPERTY] = {"multiple": False, "read": True, "write": True}
    api.call("PUT", "/api/mod/client/database", {
        "display_name": mod.get("display_name", "Database backend"),
        "parameters": params,
        "order_rank": mod.get("order_rank", 0),
        "readonly": mod.get("readonly", False),
    })
    # the running instance keeps its old parameters until it is reset
    api.call("PUT", "/api/mod/client/database/reset")

    # 2. scopes ('openid' and the g_* scopes are created by the schema script)
    for name, desc in (("profile", "Name and username"), ("email", "E-mail address"),
                       ("offline_access", "Refresh tokens")):
        api.call("POST", "/api/scope/", {
            "name": name, "display_name": name, "description": desc,
            "password_required": True, "password_max_age": 0, "scheme": {}})

    # scopes for the client-credentials clients (a client gets only scopes in its own 'scope' list)
    if confidential is not None:
        for name in CC_SCOPES + CC_OTHER_SCOPES:
            api.call("POST", "/api/scope/", {
                "name": name, "display_name": name, "description": "swift-msal test API (client credentials)",
                "password_required": True, "password_max_age": 0, "scheme": {}})

    # 3. users
    for username, u in USERS.items():
        api.call("POST", "/api/user/", {
            "username": username, "password": u["password"], "name": u["name"],
            "email": u["email"], "enabled": True, "scope": list(OIDC_SCOPES)})

    # 4. OpenID Connect plugin instance
    api.call("POST", "/api/mod/plugin/", {
        "module": "oidc", "name": PLUGIN_NAME, "display_name": "OpenID Connect (swift-msal tests)",
        "order_rank": 0, "readonly": False,
        "parameters": oidc_plugin_parameters(issuer, jwks_private, args.access_token_seconds,
                                             args.refresh_token_seconds, args.device_interval,
                                             not args.no_iss_parameter, confidential is not None,
                                             mtls=pki is not None)})

    # 5. clients
    api.call("POST", "/api/client/", client_body(PUBLIC_CLIENT_ID, "swift-msal public client",
                                                 base_redirects, post_logout_uris))
    api.call("POST", "/api/client/", client_body(ES256_CLIENT_ID, "swift-msal ES256 client",
                                                 base_redirects, post_logout_uris, sign_kid=EC_KID))
    _, es_client = api.call("GET", "/api/client/" + ES256_CLIENT_ID)
    if es_client.get("sign_kid") != EC_KID:
        raise RuntimeError("client property 'sign_kid' was not stored: %r" % es_client)

    # 6. confidential clients (client credentials grant)
    if confidential is not None:
        for body in confidential_client_bodies(confidential["secret"], confidential["jwt_key"],
                                               args.jwt_client_key):
            api.call("POST", "/api/client/", body)
        _, jwt_client = api.call("GET", "/api/client/" + JWT_CLIENT_ID)
        if args.jwt_client_key in ("both", "pubkey") and not jwt_client.get(CLIENT_PUBKEY_PROPERTY):
            raise RuntimeError("client property %r was not stored: %r" % (CLIENT_PUBKEY_PROPERTY, jwt_client))
        if args.jwt_client_key in ("both", "jwks") and not jwt_client.get(CLIENT_JWKS_PROPERTY):
            raise RuntimeError("client property %r was not stored: %r" % (CLIENT_JWKS_PROPERTY, jwt_client))

    # 7. mutual-TLS clients (--mtls)
    if pki is not None:
        for body in mtls_client_bodies(pki):
            api.call("POST", "/api/client/", body)
        _, dn_client = api.call("GET", "/api/client/" + MTLS_DN_CLIENT_ID)
        if dn_client.get(MTLS_DN_PROPERTY) != pki["dn-client"]["subject_dn"]:
            raise RuntimeError("client property %r was not stored: %r" % (MTLS_DN_PROPERTY, dn_client))
        _, self_signed_client = api.call("GET", "/api/client/" + MTLS_SELF_SIGNED_CLIENT_ID)
        if not self_signed_client.get(CLIENT_JWKS_PROPERTY):
            raise RuntimeError("client property %r was not stored: %r" % (CLIENT_JWKS_PROPERTY, self_signed_client))


def add_redirect_uris(api, client_id, uris, prop="redirect_uri"):
    """append exact URIs to a client's 'redirect_uri' (or 'post_logout_redirect_uris') list"""
    _, client = api.call("GET", "/api/client/" + urllib.parse.quote(client_id, safe=""))
    current = list(client.get(prop) or [])
    added = [u for u in uris if u not in current]
    if not added:
        return current, []
    client[prop] = current + added
    for key in ("source", "password"):
        client.pop(key, None)
    api.call("PUT", "/api/client/" + urllib.parse.quote(client_id, safe=""), client)
    return client[prop], added


# --------------------------------------------------------------------------
# Counting reverse proxy
# --------------------------------------------------------------------------

LOOPBACK_REDIRECT = re.compile(r"^http://(127\.0\.0\.1|localhost|\[::1\]):(\d{1,5})(/[^?#]*)?$")
HOP_BY_HOP = {"connection", "keep-alive", "proxy-authenticate", "proxy-authorization", "te",
              "trailers", "transfer-encoding", "upgrade", "content-length"}


class Stats:
    def __init__(self):
        self.lock = threading.Lock()
        self.reset()

    def reset(self):
        with getattr(self, "lock", threading.Lock()):
            self.total = 0
            self.by_path = {}
            self.by_method_path = {}
            self.by_grant_type = {}
            self.recent = []
            self.since = time.time()

    def record(self, method, path, status, grant_type=None):
        with self.lock:
            self.total += 1
            self.by_path[path] = self.by_path.get(path, 0) + 1
            key = "%s %s" % (method, path)
            self.by_method_path[key] = self.by_method_path.get(key, 0) + 1
            if grant_type:
                self.by_grant_type[grant_type] = self.by_grant_type.get(grant_type, 0) + 1
            self.recent.append({"t": round(time.time(), 3), "method": method, "path": path, "status": status,
                                **({"grant_type": grant_type} if grant_type else {})})
            del self.recent[:-200]

    def snapshot(self, plugin_prefix):
        with self.lock:
            token_path = plugin_prefix + "/token"
            token_posts = sum(v for k, v in self.by_method_path.items()
                              if k.startswith("POST ") and k[5:].rstrip("/") == token_path)
            return {"total": self.total, "token_endpoint_posts": token_posts,
                    "by_grant_type": dict(self.by_grant_type), "by_path": dict(self.by_path),
                    "by_method_path": dict(self.by_method_path), "recent": list(self.recent),
                    "since": self.since}


class ProxyServer(http.server.ThreadingHTTPServer):
    daemon_threads = True
    allow_reuse_address = True

    def __init__(self, sock, upstream_port, ctx):
        self.upstream_port = upstream_port
        self.ctx = ctx
        super().__init__(sock.getsockname(), ProxyHandler, bind_and_activate=False)
        self.socket.close()
        self.socket = sock
        self.server_address = sock.getsockname()


class ProxyHandler(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server_version = "glewlwyd-test-proxy"

    def log_message(self, fmt, *args):  # quiet
        pass

    def _send_json(self, status, obj):
        raw = json.dumps(obj, indent=1).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(raw)))
        self.send_header("Cache-Control", "no-store")
        self.end_headers()
        self.wfile.write(raw)

    def _read_body(self):
        if "chunked" in (self.headers.get("Transfer-Encoding") or "").lower():
            chunks = []
            while True:
                size = int(self.rfile.readline().split(b";")[0].strip() or b"0", 16)
                if size == 0:
                    while self.rfile.readline() not in (b"\r\n", b"\n", b""):
                        pass
                    return b"".join(chunks)
                chunks.append(self.rfile.read(size))
                self.rfile.readline()
        length = int(self.headers.get("Content-Length") or 0)
        return self.rfile.read(length) if length else b""

    def _test_endpoint(self, method, path, body):
        ctx = self.server.ctx
        if path == "/test/stats" and method == "GET":
            return self._send_json(200, ctx["stats"].snapshot(ctx["plugin_prefix"]))
        if path == "/test/stats/reset" and method == "POST":
            ctx["stats"].reset()
            return self._send_json(200, {"reset": True})
        if path == "/test/info" and method == "GET":
            return self._send_json(200, ctx["info"])
        if path == "/test/redirect_uris" and method == "POST":
            try:
                req = json.loads(body or b"{}")
                client_id = req.get("client_id") or PUBLIC_CLIENT_ID
                out = {"client_id": client_id, "added": []}
                for key, prop in (("redirect_uri", "redirect_uri"),
                                  ("post_logout_redirect_uri", "post_logout_redirect_uris")):
                    uris = req.get(key + "s") or ([req[key]] if req.get(key) else [])
                    if uris:
                        with ctx["admin_lock"]:
                            now, added = add_redirect_uris(ctx["admin_api"](), client_id, uris, prop)
                        out[prop] = now
                        out["added"] += added
                if len(out) == 2:
                    raise ValueError("give redirect_uri(s) and/or post_logout_redirect_uri(s)")
                return self._send_json(200, out)
            except Exception as exc:  # noqa: BLE001
                return self._send_json(400, {"error": str(exc)})
        return self._send_json(404, {"error": "unknown test endpoint"})

    def _maybe_auto_register(self, query, param, prop, client_id=None):
        ctx = self.server.ctx
        params = urllib.parse.parse_qs(query)
        client_id = client_id or (params.get("client_id") or [None])[0]
        uri = (params.get(param) or [None])[0]
        if not client_id or not uri or client_id not in ctx["client_ids"]:
            return
        if not LOOPBACK_REDIRECT.match(uri):
            return
        with ctx["admin_lock"]:
            if (client_id, prop, uri) in ctx["auto_registered"]:
                return
            add_redirect_uris(ctx["admin_api"](), client_id, [uri], prop)
            ctx["auto_registered"].add((client_id, prop, uri))

    def _auto_register(self, path, parsed, body):
        prefix = self.server.ctx["plugin_prefix"]
        p = path.rstrip("/")
        if p == prefix + "/auth":
            self._maybe_auto_register(parsed.query if self.command == "GET" else body.decode("utf-8", "replace"),
                                      "redirect_uri", "redirect_uri")
        elif p == prefix + "/end_session" and self.command == "GET":
            params = urllib.parse.parse_qs(parsed.query)
            client_id = None
            hint = (params.get("id_token_hint") or [""])[0]
            try:
                payload = hint.split(".")[1]
                claims = json.loads(base64.urlsafe_b64decode(payload + "=" * (-len(payload) % 4)))
                aud = claims.get("aud")
                client_id = aud if isinstance(aud, str) else (aud or [None])[0]
            except Exception:  # noqa: BLE001
                return
            self._maybe_auto_register(parsed.query, "post_logout_redirect_uri", "post_logout_redirect_uris",
                                      client_id=client_id)

    def _proxy(self):
        ctx = self.server.ctx
        parsed = urllib.parse.urlsplit(self.path)
        path = parsed.path or "/"
        body = self._read_body()
        if path.startswith("/test/"):
            return self._test_endpoint(self.command, path.rstrip("/") or "/", body)
        grant_type = None
        if self.command == "POST" and path.rstrip("/") == ctx["plugin_prefix"] + "/token":
            try:
                grant_type = (urllib.parse.parse_qs(body.decode("utf-8", "replace")).get("grant_type") or [None])[0]
            except Exception:  # noqa: BLE001
                grant_type = None
        if ctx["loopback_any_port"]:
            try:
                self._auto_register(path, parsed, body)
            except Exception as exc:  # noqa: BLE001
                log("auto-register failed: %s" % exc)
        headers = {}
        for k, v in self.headers.items():
            if k.lower() in HOP_BY_HOP or k.lower() == "host":
                continue
            headers[k] = v
        headers["Host"] = "127.0.0.1:%d" % self.server.upstream_port
        headers["Connection"] = "close"
        if body or self.command in ("POST", "PUT", "PATCH"):
            headers["Content-Length"] = str(len(body))
        conn = http.client.HTTPConnection("127.0.0.1", self.server.upstream_port, timeout=60)
        try:
            conn.request(self.command, self.path, body=body if body else None, headers=headers)
            resp = conn.getresponse()
            data = resp.read()
            status = resp.status
            resp_headers = resp.getheaders()
        except Exception as exc:  # noqa: BLE001
            ctx["stats"].record(self.command, path, 502, grant_type)
            return self._send_json(502, {"error": "upstream glewlwyd failed: %s" % exc})
        finally:
            conn.close()
        ctx["stats"].record(self.command, path, status, grant_type)
        # status line only: glewlwyd's own Date/Server headers are passed through unchanged
        self.log_request(status)
        self.send_response_only(status)
        for k, v in resp_headers:
            if k.lower() in HOP_BY_HOP:
                continue
            self.send_header(k, v)
        if self.command != "HEAD":
            self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        if self.command != "HEAD" and data:
            self.wfile.write(data)

    do_GET = do_POST = do_PUT = do_DELETE = do_PATCH = do_HEAD = do_OPTIONS = _proxy


# --------------------------------------------------------------------------
# main
# --------------------------------------------------------------------------

def wait_until_up(port, proc, log_path, timeout=30, ssl_context=None):
    deadline = time.time() + timeout
    last = None
    while time.time() < deadline:
        if proc.poll() is not None:
            tail = ""
            if os.path.exists(log_path):
                with open(log_path, encoding="utf-8", errors="replace") as f:
                    tail = f.read()[-3000:]
            raise RuntimeError("glewlwyd exited with code %s during start-up\n%s" % (proc.returncode, tail))
        try:
            if ssl_context is not None:
                conn = http.client.HTTPSConnection("127.0.0.1", port, timeout=2, context=ssl_context)
            else:
                conn = http.client.HTTPConnection("127.0.0.1", port, timeout=2)
            conn.request("GET", "/config/")
            resp = conn.getresponse()
            resp.read()
            conn.close()
            if resp.status == 200:
                return
            last = "HTTP %s" % resp.status
        except OSError as exc:
            last = str(exc)
        time.sleep(0.05)
    raise RuntimeError("glewlwyd did not answer on port %d within %ss (%s)" % (port, timeout, last))


def _pdeathsig():
    try:
        import ctypes
        libc = ctypes.CDLL("libc.so.6", use_errno=True)
        libc.prctl(1, signal.SIGTERM)  # PR_SET_PDEATHSIG
    except Exception:  # noqa: BLE001
        pass


def confidential_clients_info(confidential, key_source):
    """the JSON line's 'confidential_clients' member ({} with --no-client-credentials)"""
    if confidential is None:
        return {}
    key = confidential["jwt_key"]
    return {
        "secret": {"client_id": SECRET_CLIENT_ID, "client_secret": confidential["secret"],
                   "scopes": list(CC_SCOPES), "auth_methods": ["client_secret_post", "client_secret_basic"]},
        # a web app (authorization code + refresh token) with the same secret; sign a user in with
        # login_agent.py --no-deliver (nothing serves its redirect URI)
        "web_app": {"client_id": WEB_CLIENT_ID, "client_secret": confidential["secret"], "redirect_uri": WEB_REDIRECT_URI,
                    "scopes": list(OIDC_SCOPES), "auth_methods": ["client_secret_post", "client_secret_basic"]},
        "private_key_jwt": {"client_id": JWT_CLIENT_ID, "private_key_pem": key["private_key_pem"],
                            "certificate_pem": key["certificate_pem"], "public_key_pem": key["public_key_pem"],
                            "scopes": list(CC_SCOPES), "x5t": key["x5t"], "x5t#S256": key["x5t#S256"],
                            "jwks_kid": key["jwk"]["kid"] if key_source in ("both", "jwks") else None,
                            "key_source": key_source},
        "not_allowed_scopes": list(CC_OTHER_SCOPES),
    }


def mtls_info(pki, disc):
    """the JSON line's mutual-TLS members (--mtls)"""
    def material(name, **extra):
        c = pki[name]
        return dict(extra, private_key_pem=c["private_key_pem"], certificate_pem=c["certificate_pem"],
                    subject_dn=c["subject_dn"], **{"x5t#S256": c["x5t#S256"]})
    aliases = disc.get("mtls_endpoint_aliases") or {}
    return {
        "ca_file": pki["ca_file"],
        "client_trust_file": pki["client_trust_file"],
        "mtls_token_endpoint": aliases.get("token_endpoint"),
        "mtls_endpoint_aliases": aliases,
        "mtls_clients": {
            "tls_client_auth": material("dn-client", client_id=MTLS_DN_CLIENT_ID, scopes=list(CC_SCOPES),
                                        auth_method="tls_client_auth"),
            "self_signed_tls_client_auth": material("self-signed", client_id=MTLS_SELF_SIGNED_CLIENT_ID,
                                                    scopes=list(CC_SCOPES), auth_method="self_signed_tls_client_auth"),
        },
        # certificates registered for no client: CA-signed (glewlwyd trusts it) with another subject,
        # and a self-signed one glewlwyd does not trust at all
        "mtls_certificates": {"wrong_dn": material("wrong-dn"), "stranger": material("stranger")},
        # a web app (authorization code + refresh token, scopes OIDC_SCOPES) with the tls_client_auth
        # client's certificate; sign a user in with login_agent.py --no-deliver (SSL_CERT_FILE=ca_file)
        "mtls_web_client": material("dn-client", client_id=MTLS_WEB_CLIENT_ID, redirect_uri=MTLS_WEB_REDIRECT_URI,
                                    scopes=list(OIDC_SCOPES), auth_method="tls_client_auth"),
    }


def serve(args):
    t0 = time.time()
    state_dir = os.path.abspath(args.state_dir)
    os.makedirs(state_dir, exist_ok=True)
    if not os.path.exists(GLEWLWYD_BIN):
        raise SystemExit("glewlwyd is not installed (%s missing): apt-get install glewlwyd" % GLEWLWYD_BIN)

    mtls = bool(args.mtls)
    proxy_sock = None
    if mtls:
        # no proxy: glewlwyd serves HTTPS on the public port itself (a plain-HTTP proxy cannot
        # carry the client's certificate), so the port is known only once glewlwyd has bound it
        port = None
        base = issuer = None
    else:
        # the proxy socket is bound first and kept, so its port cannot be stolen
        proxy_sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        proxy_sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        proxy_sock.bind(("127.0.0.1", args.port or 0))
        proxy_sock.listen(64)
        port = proxy_sock.getsockname()[1]
        base = "http://127.0.0.1:%d" % port
        issuer = base + "/api/" + PLUGIN_NAME

    db_path = os.path.join(state_dir, "glewlwyd.db")
    conf_path = os.path.join(state_dir, "glewlwyd.conf")
    log_path = os.path.join(state_dir, "glewlwyd.log")
    for p in (log_path,):
        if os.path.exists(p):
            os.unlink(p)
    init_database(db_path)
    webapp = prepare_webapp(state_dir)
    rsa = make_rsa_jwk(state_dir, RSA_KID)
    ec = make_ec_jwk(state_dir, EC_KID)
    jwks_private = {"keys": [rsa, ec]}
    with open(os.path.join(state_dir, "jwks-public.json"), "w") as f:
        json.dump({"keys": [public_jwk(rsa), public_jwk(ec)]}, f, indent=1)
    confidential = None
    if not args.no_client_credentials:
        # a new secret and a new key pair on every start (the database is recreated anyway)
        confidential = {"secret": secrets.token_urlsafe(24),
                        "jwt_key": make_client_key_and_certificate(state_dir, JWT_CLIENT_ID)}
    pki = None
    ssl_context = None
    if mtls:
        pki = make_mtls_pki(state_dir)
        ssl_context = ssl.create_default_context(cafile=pki["ca_file"])

    proc = None
    upstream = None
    for attempt in range(5):
        if mtls:
            upstream = (args.port if args.port and attempt == 0 else free_port())
            port = upstream
            base = "https://127.0.0.1:%d" % port
            issuer = base + "/api/" + PLUGIN_NAME
        else:
            upstream = free_port()
        write_glewlwyd_conf(conf_path, port=upstream, external_url=base, webapp=webapp,
                            db_path=db_path, log_path=log_path, log_level=args.log_level, pki=pki)
        out = open(os.path.join(state_dir, "glewlwyd.stdout.log"), "ab")
        proc = subprocess.Popen([GLEWLWYD_BIN, "--config-file=" + conf_path], stdin=subprocess.DEVNULL,
                                stdout=out, stderr=subprocess.STDOUT, cwd=state_dir,
                                preexec_fn=_pdeathsig)
        out.close()
        try:
            wait_until_up(upstream, proc, log_path, ssl_context=ssl_context)
            break
        except RuntimeError as exc:
            log("start attempt %d failed: %s" % (attempt + 1, exc))
            if proc.poll() is None:
                proc.terminate()
                proc.wait(5)
            proc = None
    if proc is None:
        raise SystemExit("could not start glewlwyd")

    def stop_glewlwyd():
        if proc.poll() is None:
            proc.terminate()
            try:
                proc.wait(10)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait(5)

    try:
        admin_base = "%s://127.0.0.1:%d" % ("https" if mtls else "http", upstream)
        base_redirects = ["http://127.0.0.1/", "http://localhost/", "http://[::1]/"]
        post_logout_uris = ["http://127.0.0.1/logged-out"]
        configure(ApiSession(admin_base, ssl_context), issuer, jwks_private, args, base_redirects, post_logout_uris,
                  confidential, pki)
        # sanity check: discovery must advertise exactly our issuer
        _, disc = ApiSession(admin_base, ssl_context).call(
            "GET", "/api/%s/.well-known/openid-configuration" % PLUGIN_NAME)
        if disc.get("issuer") != issuer:
            raise RuntimeError("discovery issuer %r != %r" % (disc.get("issuer"), issuer))
        if mtls:
            expected = issuer + "/mtls/token"
            got = (disc.get("mtls_endpoint_aliases") or {}).get("token_endpoint")
            if got != expected:
                raise RuntimeError("discovery mtls_endpoint_aliases.token_endpoint %r != %r" % (got, expected))
    except Exception:
        stop_glewlwyd()
        raise

    version = "unknown"
    try:
        version = subprocess.run(["dpkg-query", "-W", "-f=${Version}", "glewlwyd"],
                                 capture_output=True, text=True).stdout.strip() or version
    except OSError:
        pass

    info = {
        "issuer": issuer,
        "discovery_url": issuer + "/.well-known/openid-configuration",
        "base_url": base,
        "port": port,
        "glewlwyd_port": upstream,
        "client_id": PUBLIC_CLIENT_ID,
        "es256_client_id": ES256_CLIENT_ID,
        "redirect_uris": base_redirects,
        "redirect_uri_matching": "exact",
        "loopback_any_port": bool(args.loopback_any_port),
        "post_logout_redirect_uris": post_logout_uris,
        "scopes": OIDC_SCOPES,
        "token_endpoint": disc.get("token_endpoint"),
        "client_credentials": confidential is not None,
        "confidential_clients": confidential_clients_info(confidential, args.jwt_client_key),
        "device_authorization": True,
        "device_authorization_endpoint": issuer + "/device_authorization",
        "end_session_endpoint": disc.get("end_session_endpoint"),
        "default_signing_alg": "RS256",
        "kids": {"RS256": RSA_KID, "ES256": EC_KID},
        "access_token_seconds": args.access_token_seconds,
        "refresh_token_seconds": args.refresh_token_seconds,
        "users": {name: u["password"] for name, u in USERS.items()},
        "user_claims": {name: {"email": u["email"], "name": u["name"]} for name, u in USERS.items()},
        # --mtls: no proxy, so no counting and no test endpoints (use `add-redirect`)
        "request_counting": not mtls,
        "stats_url": None if mtls else base + "/test/stats",
        "stats_reset_url": None if mtls else base + "/test/stats/reset",
        "add_redirect_url": None if mtls else base + "/test/redirect_uris",
        "state_dir": state_dir,
        "log_file": log_path,
        "glewlwyd_pid": proc.pid,
        "glewlwyd_version": version.split("-")[0] if version != "unknown" else version,
        "glewlwyd_package_version": version,
        "startup_seconds": None,
    }
    if mtls:
        info["mtls"] = True
        info.update(mtls_info(pki, disc))

    admin_tls = threading.local()

    def admin_api():
        # one logged-in admin session per thread (cookie sessions expire slowly; re-login on 401)
        api = getattr(admin_tls, "api", None)
        if api is None:
            api = ApiSession(admin_base, ssl_context)
            api.login_admin()
            admin_tls.api = api
        return api

    ctx = {
        "stats": Stats(),
        "plugin_prefix": "/api/" + PLUGIN_NAME,
        "info": info,
        "admin_api": admin_api,
        "admin_lock": threading.Lock(),
        "client_ids": {PUBLIC_CLIENT_ID, ES256_CLIENT_ID},
        "loopback_any_port": bool(args.loopback_any_port),
        "auto_registered": set(),
    }
    server = None
    if proxy_sock is not None:
        server = ProxyServer(proxy_sock, upstream, ctx)
        thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.2}, daemon=True)
        thread.start()

    state = {"port": port, "glewlwyd_port": upstream, "issuer": issuer, "pid": os.getpid(),
             "glewlwyd_pid": proc.pid, "admin_user": ADMIN_USER, "admin_password": ADMIN_PASSWORD,
             "client_ids": [PUBLIC_CLIENT_ID, ES256_CLIENT_ID], "admin_base": admin_base,
             "ca_file": pki["ca_file"] if pki else None}
    with open(os.path.join(state_dir, STATE_FILE), "w") as f:
        json.dump(state, f, indent=1)

    info["startup_seconds"] = round(time.time() - t0, 2)
    sys.stdout.write(json.dumps(info) + "\n")
    sys.stdout.flush()

    stop = threading.Event()

    def on_signal(signum, frame):
        stop.set()

    signal.signal(signal.SIGTERM, on_signal)
    signal.signal(signal.SIGINT, on_signal)
    if args.exit_on_stdin_eof:
        def watch_stdin():
            try:
                while sys.stdin.buffer.read(4096):
                    pass
            except Exception:  # noqa: BLE001
                pass
            stop.set()
        threading.Thread(target=watch_stdin, daemon=True).start()

    rc = 0
    while not stop.wait(0.5):
        if proc.poll() is not None:
            log("glewlwyd exited unexpectedly with code %s (see %s)" % (proc.returncode, log_path))
            rc = 1
            break
    if server is not None:
        server.shutdown()
        server.server_close()
    stop_glewlwyd()
    try:
        os.unlink(os.path.join(state_dir, STATE_FILE))
    except OSError:
        pass
    return rc


def cmd_add_redirect(args):
    state_path = os.path.join(os.path.abspath(args.state_dir), STATE_FILE)
    try:
        with open(state_path) as f:
            state = json.load(f)
    except OSError:
        raise SystemExit("no running instance: %s not found" % state_path)
    ca_file = state.get("ca_file")
    api = ApiSession(state.get("admin_base") or "http://127.0.0.1:%d" % state["glewlwyd_port"],
                     ssl.create_default_context(cafile=ca_file) if ca_file else None)
    api.login_admin()
    prop = "post_logout_redirect_uris" if args.post_logout else "redirect_uri"
    now, added = add_redirect_uris(api, args.client_id, args.uris, prop)
    print(json.dumps({"client_id": args.client_id, prop: now, "added": added}))
    return 0


def main(argv):
    if argv and argv[0] == "add-redirect":
        p = argparse.ArgumentParser(prog="server.py add-redirect")
        p.add_argument("--state-dir", required=True)
        p.add_argument("--client-id", default=PUBLIC_CLIENT_ID)
        p.add_argument("--post-logout", action="store_true",
                       help="add to post_logout_redirect_uris (end_session) instead of redirect_uri")
        p.add_argument("uris", nargs="+")
        return cmd_add_redirect(p.parse_args(argv[1:]))
    p = argparse.ArgumentParser(description="throwaway glewlwyd OpenID provider on loopback")
    p.add_argument("--state-dir", required=True, help="directory for config, SQLite DB, keys, logs")
    p.add_argument("--access-token-seconds", type=int, default=3600)
    p.add_argument("--refresh-token-seconds", type=int, default=1209600)
    p.add_argument("--device-interval", type=int, default=1,
                   help="device flow polling interval the server enforces (slow_down below it)")
    p.add_argument("--port", type=int, default=0,
                   help="proxy (public) port, default: a free one (--mtls: glewlwyd's own HTTPS port)")
    p.add_argument("--log-level", default="INFO", choices=["NONE", "ERROR", "WARNING", "INFO", "DEBUG"])
    p.add_argument("--loopback-any-port", action="store_true",
                   help="proxy registers http://127.0.0.1:<port>/... redirect URIs of the test clients "
                        "on the fly before glewlwyd sees /auth (emulates RFC 8252 any-port matching)")
    p.add_argument("--no-iss-parameter", action="store_true",
                   help="do not add the RFC 9207 'iss' parameter to authorization responses")
    p.add_argument("--exit-on-stdin-eof", action="store_true",
                   help="also shut down when stdin reaches EOF (parent died)")
    p.add_argument("--jwt-client-key", choices=["both", "pubkey", "jwks"], default="both",
                   help="how swift-msal-jwt-client's public key is registered: 'pubkey' (PEM, client assertions "
                        "without 'kid' verify), 'jwks' (JWKS with kid = x5t: glewlwyd then requires a matching "
                        "'kid' header), or both (default)")
    p.add_argument("--no-client-credentials", action="store_true",
                   help="no confidential clients; client credentials grant and allow-non-oidc off "
                        "(the plugin configuration of earlier versions of this launcher)")
    p.add_argument("--mtls", action="store_true",
                   help="glewlwyd serves HTTPS itself on the public port (private PKI in DIR/mtls, no counting "
                        "proxy) and also registers a tls_client_auth and a self_signed_tls_client_auth client "
                        "(RFC 8705, client credentials, certificate checked on the mtls_endpoint_aliases)")
    args = p.parse_args(argv)
    if args.access_token_seconds <= 0:
        p.error("--access-token-seconds must be positive")
    if args.mtls and args.no_client_credentials:
        p.error("--mtls needs the client credentials grant: drop --no-client-credentials")
    if args.mtls and args.loopback_any_port:
        p.error("--loopback-any-port is done by the proxy, which --mtls does not run")
    return serve(args)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
