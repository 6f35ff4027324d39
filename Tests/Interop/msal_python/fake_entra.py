"""An in-process stand-in for the Microsoft identity platform (public cloud), for MSAL for Python.

MSAL for Python accepts any object with ``get(url, params=None, headers=None, **kw)`` and
``post(url, params=None, data=None, headers=None, **kw)`` as its ``http_client``; both return an
object with ``status_code``, ``text`` and ``headers``. ``FakeEntra`` is such an object. It answers:

* instance discovery (``GET https://<host>/common/discovery/instance``) with the public-cloud alias
  group and the other national clouds, as the real service does (api-version 1.1 shape);
* OpenID configuration (``GET https://<alias>/<tenant>/v2.0/.well-known/openid-configuration``) for
  any tenant on any public-cloud alias, with endpoints on the same host and tenant;
* the token endpoint (``POST https://<alias>/<tenant>/oauth2/v2.0/token``) by handing the form to
  ``token_handler(host, tenant, form) -> (status, body_dict)``; without a handler every token request
  fails with HTTP 400 ``invalid_grant``.

Every request is recorded in ``calls``; token requests also in ``token_calls`` (with their form) and
anything that is neither discovery nor a token request in ``other_calls`` (answered with 404).

Used by write_cache.py (with a handler that issues tokens) and read_cache.py (no handler: a cache
hit must not need the network). No third-party imports: this runs inside the interop venv only for
``msal`` itself.
"""

import base64
import hashlib
import json
import random
from urllib.parse import urlsplit

PUBLIC_CLOUD_ALIASES = (
    "login.microsoftonline.com",
    "login.windows.net",
    "login.microsoft.com",
    "sts.windows.net",
)

# The alias groups instance discovery reports (api-version 1.1). Facts of the public service:
# preferred_network is where requests go, preferred_cache is what some MSALs (not Python) write
# as the cache environment.
INSTANCE_METADATA = [
    {
        "preferred_network": "login.microsoftonline.com",
        "preferred_cache": "login.windows.net",
        "aliases": list(PUBLIC_CLOUD_ALIASES),
    },
    {
        "preferred_network": "login.partner.microsoftonline.cn",
        "preferred_cache": "login.partner.microsoftonline.cn",
        "aliases": ["login.partner.microsoftonline.cn", "login.chinacloudapi.cn"],
    },
    {
        "preferred_network": "login.microsoftonline.de",
        "preferred_cache": "login.microsoftonline.de",
        "aliases": ["login.microsoftonline.de"],
    },
    {
        "preferred_network": "login.microsoftonline.us",
        "preferred_cache": "login.microsoftonline.us",
        "aliases": ["login.microsoftonline.us", "login.usgovcloudapi.net"],
    },
    {
        "preferred_network": "login-us.microsoftonline.com",
        "preferred_cache": "login-us.microsoftonline.com",
        "aliases": ["login-us.microsoftonline.com"],
    },
]

MULTI_TENANT_SEGMENTS = ("common", "organizations", "consumers")


def b64url(raw: bytes) -> str:
    """Base64url without padding, as JOSE and Entra's client_info use it."""
    return base64.urlsafe_b64encode(raw).rstrip(b"=").decode("ascii")


def b64url_json(value) -> str:
    return b64url(json.dumps(value, separators=(",", ":")).encode("utf-8"))


def client_info(uid: str, utid: str) -> str:
    """The ``client_info`` member Entra returns when the request carries ``client_info=1``."""
    return b64url_json({"uid": uid, "utid": utid})


def nonce_hash(nonce: str) -> str:
    """MSAL for Python sends SHA-256(nonce) as hex in the authorization request, and expects that
    value back in the ID token's ``nonce`` claim."""
    return hashlib.sha256(nonce.encode("ascii")).hexdigest()


class Secrets:
    """Deterministic token material: the same seed and the same sequence of calls give the same bytes."""

    def __init__(self, seed):
        self._random = random.Random(seed)

    def raw(self, count: int) -> bytes:
        return bytes(self._random.getrandbits(8) for _ in range(count))

    def guid(self) -> str:
        h = self.raw(16).hex()
        return "%s-%s-4%s-%s%s-%s" % (
            h[0:8], h[8:12], h[13:16], "89ab"[int(h[16], 16) % 4], h[17:20], h[20:32])

    def text(self, count: int) -> str:
        """``count`` base64url characters."""
        return b64url(self.raw(count))[:count]

    def jwt(self, header: dict, claims: dict) -> str:
        """An unsigned-but-realistic JWS: header.payload.<256 random bytes as an RS256 signature>."""
        return "%s.%s.%s" % (b64url_json(header), b64url_json(claims), b64url(self.raw(256)))


class FakeResponse:
    def __init__(self, status_code: int, body, headers=None):
        self.status_code = status_code
        self.text = body if isinstance(body, str) else json.dumps(body)
        self.headers = dict(headers or {"Content-Type": "application/json; charset=utf-8"})

    def raise_for_status(self):
        if self.status_code >= 400:
            raise RuntimeError("HTTP %d from the fake identity provider: %s" % (self.status_code, self.text))


def openid_configuration(host: str, tenant: str) -> dict:
    """The v2.0 OpenID configuration Entra serves for ``tenant`` (a GUID or a multi-tenant segment)."""
    issuer_tenant = "{tenantid}" if tenant.lower() in MULTI_TENANT_SEGMENTS else tenant
    base = "https://%s/%s" % (host, tenant)
    return {
        "token_endpoint": base + "/oauth2/v2.0/token",
        "token_endpoint_auth_methods_supported": ["client_secret_post", "private_key_jwt", "client_secret_basic"],
        "jwks_uri": "https://%s/%s/discovery/v2.0/keys" % (host, tenant),
        "response_modes_supported": ["query", "fragment", "form_post"],
        "subject_types_supported": ["pairwise"],
        "id_token_signing_alg_values_supported": ["RS256"],
        "response_types_supported": ["code", "id_token", "code id_token", "id_token token"],
        "scopes_supported": ["openid", "profile", "email", "offline_access"],
        "issuer": "https://login.microsoftonline.com/%s/v2.0" % issuer_tenant,
        "request_uri_parameter_supported": False,
        "userinfo_endpoint": "https://graph.microsoft.com/oidc/userinfo",
        "authorization_endpoint": base + "/oauth2/v2.0/authorize",
        "device_authorization_endpoint": base + "/oauth2/v2.0/devicecode",
        "http_logout_supported": True,
        "frontchannel_logout_supported": True,
        "end_session_endpoint": base + "/oauth2/v2.0/logout",
        "claims_supported": [
            "sub", "iss", "cloud_instance_name", "cloud_instance_host_name", "cloud_graph_host_name",
            "msgraph_host", "aud", "exp", "iat", "auth_time", "acr", "nonce", "preferred_username",
            "name", "tid", "ver", "at_hash", "c_hash", "email",
        ],
        "kerberos_endpoint": base + "/kerberos",
        "tenant_region_scope": "EU" if issuer_tenant != "{tenantid}" else None,
        "cloud_instance_name": "microsoftonline.com",
        "cloud_graph_host_name": "graph.windows.net",
        "msgraph_host": "graph.microsoft.com",
        "rbac_url": "https://pas.windows.net",
    }


class FakeEntra:
    """A recording fake ``http_client`` for ``msal.PublicClientApplication``."""

    def __init__(self, token_handler=None):
        self.token_handler = token_handler
        self.calls = []        # every request: {"method", "url"}
        self.token_calls = []  # token-endpoint requests: {"url", "form"}
        self.other_calls = []  # anything unexpected: {"method", "url"}

    # --- the http_client interface MSAL for Python uses ---

    def get(self, url, params=None, headers=None, **kwargs):
        self.calls.append({"method": "GET", "url": url})
        parts = urlsplit(url)
        host = (parts.hostname or "").lower()
        segments = [s for s in parts.path.split("/") if s]
        if parts.scheme == "https" and host in PUBLIC_CLOUD_ALIASES:
            if segments == ["common", "discovery", "instance"]:
                return FakeResponse(200, {
                    "tenant_discovery_endpoint":
                        "https://login.microsoftonline.com/common/v2.0/.well-known/openid-configuration",
                    "api-version": "1.1",
                    "metadata": INSTANCE_METADATA,
                })
            if len(segments) == 4 and segments[1:] == ["v2.0", ".well-known", "openid-configuration"]:
                return FakeResponse(200, openid_configuration(host, segments[0]))
        self.other_calls.append({"method": "GET", "url": url})
        return FakeResponse(404, {"error": "not_found", "error_description": "fake_entra: no such endpoint"})

    def post(self, url, params=None, data=None, headers=None, **kwargs):
        self.calls.append({"method": "POST", "url": url})
        parts = urlsplit(url)
        host = (parts.hostname or "").lower()
        segments = [s for s in parts.path.split("/") if s]
        if (parts.scheme == "https" and host in PUBLIC_CLOUD_ALIASES
                and len(segments) == 4 and segments[1:] == ["oauth2", "v2.0", "token"]):
            form = dict(data) if isinstance(data, dict) else {"_raw": data}
            self.token_calls.append({"url": url, "form": form})
            if self.token_handler is None:
                return FakeResponse(400, {
                    "error": "invalid_grant",
                    "error_description": "fake_entra: the network is disabled for this run",
                    "error_codes": [50000],
                })
            status, body = self.token_handler(host, segments[0], form)
            return FakeResponse(status, body)
        self.other_calls.append({"method": "POST", "url": url})
        return FakeResponse(404, {"error": "not_found", "error_description": "fake_entra: no such endpoint"})

    def close(self):
        pass
