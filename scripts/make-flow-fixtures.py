#!/usr/bin/env python3
"""Generate the token-flow conformance scenarios in Fixtures/Conformance/Flows/.

Requires Python 3.11+ and the `cryptography` package, the test key in
Fixtures/Samples/rsa-2048-private.pem and the reference inputs copied from the shared reference
collection into Fixtures/Reference (override with --reference).

Usage:
    python3 scripts/make-flow-fixtures.py                 # (re)write every scenario
    python3 scripts/make-flow-fixtures.py --check-only    # only check that the files on disk are current

Each scenario is a recorded fixture (docs/fixtures.md) whose `conformance` section the runner in
Tests/MSALTests/Flows/FlowConformanceTests.swift executes through the public API. Response bodies come
from the reference collection; what had to be made up is marked SYNTHETIC in each file's provenance.

ID tokens are minted here with the published test key (kid `sample-rsa-2048`, RS256, so the output is
deterministic) and are valid from 1700000000 to 1700003600, like the tokens in Fixtures/Samples. The
runner's clock starts at 1700001000, so the committed tokens never expire.
"""

from __future__ import annotations

import argparse
import base64
import copy
import hashlib
import json
import sys
from pathlib import Path

from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import padding

REPO_ROOT = Path(__file__).resolve().parent.parent
OUT = REPO_ROOT / "Fixtures" / "Conformance" / "Flows"
SAMPLES = REPO_ROOT / "Fixtures" / "Samples"
DEFAULT_REFERENCE = REPO_ROOT / "Fixtures" / "Reference"

# --------------------------------------------------------------------------- identities

CLIENT = "6cb04018-a3f5-46a7-b995-940c78f5aef3"          # audience of the Fixtures/Samples tokens
FAMILY_CLIENT = "b0b0b0b0-2222-4333-8444-555566667777"   # SYNTHETIC second client of family "1"
CAE_CLIENT = "azure_client_id"                          # the recording's sanitized client id
HOST = "login.microsoftonline.com"
CACHE_ENV = "login.windows.net"
TENANT = "12345678-1234-1234-1234-123456789012"          # the recording's sanitized tenant
GUEST = "bbbbbbbb-2222-4222-8222-222222222222"           # SYNTHETIC guest tenant
GUEST_DOMAIN = "fabrikam.onmicrosoft.com"                # SYNTHETIC domain of the guest tenant
UID = "00000000-0000-0000-66f3-3332eca7ea81"
GUEST_OID = "cccccccc-3333-4333-8333-333333333333"       # SYNTHETIC object id in the guest tenant
HOME = f"{UID}.{TENANT}"
NOW = 1_700_001_000
ISSUED = 1_700_000_000
ID_TOKEN_EXPIRY = 1_700_003_600
USERNAME = "AbeLi@contoso.com"
SCOPES = ["User.Read"]
TARGET = "email openid profile User.Read"
ARM = "https://management.azure.com/.default"

TELEMETRY = {"x-client-SKU": "MSAL.Swift.Linux", "x-ms-lib-capability": "retry-after, h429", "return-client-request-id": "true"}
FORM_CONTENT_TYPE = "application/x-www-form-urlencoded"

# --------------------------------------------------------------------------- helpers


def b64u(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode("ascii")


def compact(obj: object) -> bytes:
    return json.dumps(obj, separators=(",", ":"), ensure_ascii=False).encode("utf-8")


class Minter:
    def __init__(self) -> None:
        pem = (SAMPLES / "rsa-2048-private.pem").read_bytes()
        self.key = serialization.load_pem_private_key(pem, password=None)

    def id_token(self, *, tid: str = TENANT, oid: str = UID, aud: str = CLIENT, username: str = USERNAME,
                 extra: dict | None = None) -> str:
        claims = {
            "ver": "2.0",
            "iss": f"https://{HOST}/{tid}/v2.0",
            "sub": "AAAAAAAAAAAAAAAAAAAAAIkzqFVrSaSaFHy782bbtaQ" if oid == UID else "BBBBBBBBBBBBBBBBBBBBBIkzqFVrSaSaFHy782bbtaQ",
            "aud": aud,
            "exp": ID_TOKEN_EXPIRY,
            "iat": ISSUED,
            "nbf": ISSUED,
            "name": "Abe Lincoln",
            "preferred_username": username,
            "oid": oid,
            "tid": tid,
        }
        claims.update(extra or {})
        header = {"alg": "RS256", "kid": "sample-rsa-2048", "typ": "JWT"}
        signing_input = f"{b64u(compact(header))}.{b64u(compact(claims))}"
        signature = self.key.sign(signing_input.encode("ascii"), padding.PKCS1v15(), hashes.SHA256())
        return f"{signing_input}.{b64u(signature)}"


def client_info(uid: str = UID, utid: str = TENANT) -> str:
    return b64u(compact({"uid": uid, "utid": utid}))


class Reference:
    def __init__(self, root: Path) -> None:
        self.root = root
        manifest = json.loads((root / "MANIFEST.json").read_text())
        self.manifest = manifest

    def load(self, rel: str) -> dict:
        return json.loads((self.root / rel).read_text())

    def source(self, rel: str, notes: str) -> dict:
        """A provenance entry for a reference file: its first original source, plus the reference path."""
        doc = self.load(rel)
        prov = doc.get("_provenance", {})
        sources = prov.get("sources") or [{}]
        first = sources[0]
        entry = {}
        for name in ("repo", "path", "commit"):
            if first.get(name):
                entry[name] = first[name]
        entry["notes"] = f"{notes} (shared reference file {rel}, {prov.get('kind', 'reference')})"
        return entry


def strip_headers(headers: dict) -> dict:
    return {k: v for k, v in headers.items() if k.lower() != "content-length"}


# --------------------------------------------------------------------------- interactions


class Builder:
    """Collects one scenario's interactions and provenance."""

    def __init__(self, ref: Reference, minter: Minter, name: str, description: str) -> None:
        self.ref = ref
        self.minter = minter
        self.name = name
        self.description = description
        self.interactions: list[dict] = []
        self.provenance: list[dict] = []
        self._seen: set[str] = set()

    def cite(self, key: str, entry: dict) -> None:
        if key not in self._seen:
            self._seen.add(key)
            self.provenance.append(entry)

    def add(self, method: str, url: str, response: dict, *, form: dict | None = None, headers: dict | None = None) -> None:
        request: dict = {"method": method, "url": url}
        if headers:
            request["headers"] = headers
        if form is not None:
            request["form"] = form
        self.interactions.append({"request": request, "response": response, "repeatable": False})

    # -- metadata ------------------------------------------------------------

    def discovery(self, tenant: str = TENANT) -> None:
        live = self.ref.load("recorded-live/azsdkjs_cae_devicecode_flow.json")["Entries"]
        entries = [live[0], live[1]]
        if tenant == TENANT:
            self.cite("live-discovery", {
                "repo": "Azure/azure-sdk-for-js",
                "path": "sdk/identity/identity/recordings/node/cae/recording_devicecodecredential.json",
                "commit": "393596bf3941885e57b73faf7e2805f1f10d5d16",
                "notes": "entries 1 and 2 (instance discovery, tenant openid-configuration): URLs, status, headers and bodies "
                         "as recorded, Content-Length dropped (shared reference file recorded-live/azsdkjs_cae_devicecode_flow.json)",
            })
        else:
            self.cite("guest-discovery", {
                "repo": "Azure/azure-sdk-for-js",
                "path": "sdk/identity/identity/recordings/node/cae/recording_devicecodecredential.json",
                "commit": "393596bf3941885e57b73faf7e2805f1f10d5d16",
                "notes": f"SYNTHETIC: the recorded instance discovery and tenant openid-configuration (entries 1 and 2) with the tenant "
                         f"{TENANT} replaced by the guest tenant {tenant} in the URLs and bodies; no recording of a second tenant exists "
                         "(shared reference file recorded-live/azsdkjs_cae_devicecode_flow.json)",
            })
        for entry in entries:
            url = entry["RequestUri"].replace(TENANT, tenant)
            body = json.loads(json.dumps(entry["ResponseBody"]).replace(TENANT, tenant))
            self.add(entry["RequestMethod"], url, {
                "status": entry["StatusCode"], "headers": strip_headers(entry["ResponseHeaders"]), "body": body,
            })

    def domain_discovery(self, domain: str, tenant_id: str) -> None:
        """Discovery of a domain-named tenant: the tenant document names the tenant's id in its issuer and endpoints."""
        live = self.ref.load("recorded-live/azsdkjs_cae_devicecode_flow.json")["Entries"]
        self.cite("domain-discovery", {
            "repo": "Azure/azure-sdk-for-js",
            "path": "sdk/identity/identity/recordings/node/cae/recording_devicecodecredential.json",
            "commit": "393596bf3941885e57b73faf7e2805f1f10d5d16",
            "notes": f"SYNTHETIC: the recorded instance discovery and tenant openid-configuration (entries 1 and 2) asked for the "
                     f"domain {domain}: request URLs and tenant_discovery_endpoint name the domain, the tenant document's issuer and "
                     f"endpoints the tenant id {tenant_id} (as Entra answers for a domain) "
                     "(shared reference file recorded-live/azsdkjs_cae_devicecode_flow.json)",
        })
        instance, config = live[0], live[1]
        body = json.loads(json.dumps(instance["ResponseBody"]).replace(TENANT, domain))
        self.add("GET", instance["RequestUri"].replace(TENANT, domain),
                 {"status": 200, "headers": strip_headers(instance["ResponseHeaders"]), "body": body})
        body = json.loads(json.dumps(config["ResponseBody"]).replace(TENANT, tenant_id))
        self.add("GET", config["RequestUri"].replace(TENANT, domain),
                 {"status": 200, "headers": strip_headers(config["ResponseHeaders"]), "body": body})

    def common_discovery(self) -> None:
        discovery = self.ref.load("instance-discovery/msaljs_docs_common_discovery_instance.json")
        config = self.ref.load("openid-configuration/msaljs_docs_common_v2.0_openid_configuration.json")
        self.cite("common-discovery", self.ref.source(
            "instance-discovery/msaljs_docs_common_discovery_instance.json",
            "instance discovery body for /common, verbatim; response headers SYNTHETIC (Content-Type only)"))
        self.cite("common-config", self.ref.source(
            "openid-configuration/msaljs_docs_common_v2.0_openid_configuration.json",
            "/common v2.0 openid-configuration body (issuer template {tenantid}), verbatim; response headers SYNTHETIC"))
        self.add("GET", f"https://{HOST}/common/discovery/instance?api-version=1.1&authorization_endpoint=https://{HOST}/common/oauth2/v2.0/authorize",
                 {"status": 200, "headers": {"Content-Type": "application/json; charset=utf-8"}, "body": body_of(discovery)})
        self.add("GET", f"https://{HOST}/common/v2.0/.well-known/openid-configuration",
                 {"status": 200, "headers": {"Content-Type": "application/json; charset=utf-8"}, "body": body_of(config)})

    def jwks(self, tenant: str = TENANT) -> None:
        self.cite("jwks", {"path": "Fixtures/Samples/jwks.json",
                           "notes": "SYNTHETIC: the signing keys answer the tenant's jwks_uri with this repository's published test key set "
                                    "(written by scripts/make-sample-tokens.py); every ID token in this file is minted with its key "
                                    "sample-rsa-2048 by scripts/make-flow-fixtures.py"})
        keys = json.loads((SAMPLES / "jwks.json").read_text())
        self.add("GET", f"https://{HOST}/{tenant}/discovery/v2.0/keys",
                 {"status": 200, "headers": {"Content-Type": "application/json; charset=utf-8"}, "body": keys})

    # -- token endpoint --------------------------------------------------------

    def token(self, response: dict, *, tenant: str = TENANT, form: dict) -> None:
        headers = dict(TELEMETRY)
        headers["Content-Type"] = FORM_CONTENT_TYPE
        self.add("POST", f"https://{HOST}/{tenant}/oauth2/v2.0/token", response, form=form, headers=headers)

    def success(self, *, access_token: str, refresh_token: str | None, scope: str = TARGET, tenant: str = TENANT,
                oid: str = UID, aud: str = CLIENT, foci: str | None = None, expires_in: int = 3599,
                refresh_in: int | None = None, extra: dict | None = None) -> dict:
        self.cite("success", self.ref.source(
            "token-responses/msaljs_auth_code_success.json",
            "shape of every token success response (token_type, scope, expires_in, ext_expires_in, access_token, refresh_token, "
            "id_token, client_info); SYNTHETIC: the token values are placeholders, the id_token is minted with the test key for "
            "this scenario's tenant, audience and account, client_info names the scenario's account"))
        body: dict = {"token_type": "Bearer", "scope": scope, "expires_in": expires_in, "ext_expires_in": expires_in}
        if refresh_in is not None:
            body["refresh_in"] = refresh_in
        body["access_token"] = access_token
        if refresh_token is not None:
            body["refresh_token"] = refresh_token
        if foci is not None:
            body["foci"] = foci
        body["id_token"] = self.minter.id_token(tid=tenant, oid=oid, aud=aud)
        body["client_info"] = client_info()
        body.update(extra or {})
        return {"status": 200, "headers": {"Content-Type": "application/json; charset=utf-8"}, "body": body}

    def reference_response(self, rel: str, notes: str) -> dict:
        self.cite(rel, self.ref.source(rel, notes))
        return copy.deepcopy(self.ref.load(rel)["response"])

    def document(self, steps: list[dict], setup: dict) -> dict:
        return {
            "name": self.name,
            "description": self.description,
            "provenance": self.provenance or [{"notes": "SYNTHETIC: no HTTP exchange; only the cache document below"}],
            "interactions": self.interactions,
            "conformance": {"operation": "token_flow", "setup": setup, "steps": steps},
        }


def body_of(doc: dict) -> object:
    if "response" in doc:
        return doc["response"]["body"]
    return doc["body"]


def refresh_form(refresh_token: str, *, client: str = CLIENT, scopes: list[str] = SCOPES, claims: str | None = None) -> dict:
    form = {
        "client_id": client, "grant_type": "refresh_token", "refresh_token": refresh_token,
        "scope": " ".join(scopes + ["openid", "profile", "offline_access"]), "client_info": "1",
    }
    if claims is not None:
        form["claims"] = claims
    return form


# --------------------------------------------------------------------------- cache documents


def cache_document(*, access_tokens: list[dict], refresh_tokens: list[dict], id_token_clients: list[str],
                   minter: Minter, app_metadata: list[dict]) -> dict:
    """A unified-schema cache document for the home account (as swift-msal writes it)."""
    doc: dict = {"Account": {}, "IdToken": {}, "AccessToken": {}, "RefreshToken": {}, "AppMetadata": {}}
    doc["Account"][f"{HOME}-{CACHE_ENV}-{TENANT}".lower()] = {
        "home_account_id": HOME, "environment": CACHE_ENV, "realm": TENANT, "local_account_id": UID,
        "username": USERNAME, "authority_type": "MSSTS", "name": "Abe Lincoln", "client_info": client_info(),
    }
    for client in id_token_clients:
        doc["IdToken"][f"{HOME}-{CACHE_ENV}-idtoken-{client}-{TENANT}-".lower()] = {
            "home_account_id": HOME, "environment": CACHE_ENV, "client_id": client, "credential_type": "IdToken",
            "secret": minter.id_token(aud=client), "realm": TENANT,
        }
    for at in access_tokens:
        client = at.get("client_id", CLIENT)
        realm = at.get("realm", TENANT)
        target = at.get("target", TARGET)
        entry = {
            "home_account_id": HOME, "environment": CACHE_ENV, "client_id": client, "credential_type": "AccessToken",
            "secret": at["secret"], "realm": realm, "target": target, "cached_at": str(ISSUED),
            "expires_on": str(at["expires_on"]), "extended_expires_on": str(at.get("extended_expires_on", at["expires_on"])),
            "token_type": "Bearer",
        }
        if "refresh_on" in at:
            entry["refresh_on"] = str(at["refresh_on"])
        doc["AccessToken"][f"{HOME}-{CACHE_ENV}-accesstoken-{client}-{realm}-{target}".lower()] = entry
    for rt in refresh_tokens:
        client = rt.get("client_id", CLIENT)
        family = rt.get("family_id")
        entry = {"home_account_id": HOME, "environment": CACHE_ENV, "client_id": client, "credential_type": "RefreshToken",
                 "secret": rt["secret"], "last_modification_time": str(ISSUED)}
        if family:
            entry["family_id"] = family
        doc["RefreshToken"][f"{HOME}-{CACHE_ENV}-refreshtoken-{family or client}--".lower()] = entry
    for meta in app_metadata:
        entry = {"client_id": meta["client_id"], "environment": CACHE_ENV}
        if "family_id" in meta:
            entry["family_id"] = meta["family_id"]
        doc["AppMetadata"][f"appmetadata-{CACHE_ENV}-{meta['client_id']}"] = entry
    return doc


def standard_cache(minter: Minter, *, at: dict | None, rt: str | None = "rt-home-1", client: str = CLIENT) -> dict:
    return cache_document(
        access_tokens=[at] if at else [], refresh_tokens=[{"secret": rt, "client_id": client}] if rt else [],
        id_token_clients=[client], minter=minter, app_metadata=[{"client_id": client}])


VALID_AT = {"secret": "at-cached-1", "expires_on": 1_700_004_600}
NEAR_EXPIRY_AT = {"secret": "at-cached-1", "expires_on": 1_700_001_200}   # 200 s left: inside the 300 s buffer
EXPIRED_AT = {"secret": "at-cached-1", "expires_on": 1_700_000_900}


def setup(cache: dict, *, client: str = CLIENT, authority: str = f"https://{HOST}/common", **extra: object) -> dict:
    value: dict = {"client_id": client, "authority": authority, "now": NOW}
    value.update(extra)
    value["cache"] = cache
    return value


def silent(expect: dict | None = None, *, error: dict | None = None, requests: int, scopes: list[str] = SCOPES,
           **extra: object) -> dict:
    step: dict = {"call": "acquire_token_silent", "account": HOME, "scopes": scopes}
    step.update(extra)
    if expect is not None:
        step["expect"] = expect
    if error is not None:
        step["expect_error"] = error
    step["expect_requests"] = requests
    return step


def ok(access_token: str, source: str, *, tenant: str = TENANT, scopes: list[str] | None = None, **extra: object) -> dict:
    value: dict = {"access_token": access_token, "token_source": source, "account": HOME, "tenant_id": tenant}
    if scopes is not None:
        value["scopes"] = scopes
    value.update(extra)
    return value


def cache_state(access_tokens: list[tuple[str, str, str]] | None = None, refresh_tokens: list[tuple[str, str | None]] | None = None,
                app_metadata: list[tuple[str, str | None]] | None = None) -> dict:
    """Exact cache contents after a step: (secret, realm, target), (secret, family_id), (client_id, family_id)."""
    state: dict = {}
    if access_tokens is not None:
        state["access_tokens"] = [{"secret": s, "realm": r, "target": t} for s, r, t in access_tokens]
    if refresh_tokens is not None:
        state["refresh_tokens"] = [{"secret": s, "family_id": f} for s, f in refresh_tokens]
    if app_metadata is not None:
        state["app_metadata"] = [{"client_id": c, "family_id": f} for c, f in app_metadata]
    return state


# --------------------------------------------------------------------------- scenarios


def scenarios(ref: Reference, minter: Minter) -> list[dict]:
    out: list[dict] = []

    def new(name: str, description: str) -> Builder:
        return Builder(ref, minter, name, description)

    # Silent hit: no request at all.
    b = new("silent-cache-hit", "A valid cached access token answers acquireTokenSilent with no request at all: no instance "
            "discovery, no tenant metadata, no token request.")
    b.provenance.append({"notes": "SYNTHETIC: a cache document in the unified schema as swift-msal writes it (placeholder token "
                                  "values; the ID token is minted with the test key); there is no HTTP exchange"})
    out.append(b.document([silent(ok("at-cached-1", "cache", scopes=TARGET.split(), expires_on=1_700_004_600,
                                     extended_lifetime_token=False), requests=0,
                                  expect_cache=cache_state([("at-cached-1", TENANT, TARGET)], [("rt-home-1", None)]))],
                          setup(standard_cache(minter, at=VALID_AT))))

    # Silent expired (inside the 5-minute buffer) -> refresh, rotated refresh token.
    b = new("silent-expired-refresh", "The cached access token expires in 200 s, inside the 300 s expiration buffer: the "
            "refresh token is redeemed at the account's home tenant (derived from /common), the ID token verified, the new "
            "tokens cached, the rotated refresh token replacing the old one.")
    b.discovery()
    b.token(b.success(access_token="at-refreshed-2", refresh_token="rt-home-2"), form=refresh_form("rt-home-1"))
    b.jwks()
    out.append(b.document([silent(ok("at-refreshed-2", "identity_provider", scopes=TARGET.split(), expires_on=NOW + 3599,
                                     id_token_claims={"oid": UID, "tid": TENANT, "preferred_username": USERNAME}), requests=4,
                                  expect_cache=cache_state([("at-refreshed-2", TENANT, TARGET)], [("rt-home-2", None)])),
                           silent(ok("at-refreshed-2", "cache"), requests=0)],
                          setup(standard_cache(minter, at=NEAR_EXPIRY_AT))))

    # Refresh without a new refresh token keeps the old one.
    b = new("silent-refresh-keeps-refresh-token", "A refresh whose response carries no refresh_token: the new access token is "
            "cached and the old refresh token kept.")
    b.discovery()
    b.token(b.success(access_token="at-refreshed-2", refresh_token=None), form=refresh_form("rt-home-1"))
    b.jwks()
    out.append(b.document([silent(ok("at-refreshed-2", "identity_provider"), requests=4,
                                  expect_cache=cache_state([("at-refreshed-2", TENANT, TARGET)], [("rt-home-1", None)]))],
                          setup(standard_cache(minter, at=EXPIRED_AT))))

    # refresh_on passed -> refresh.
    b = new("silent-refresh-on-refresh", "The cached token is valid for another hour but its refresh_on has passed: it is "
            "refreshed proactively and the new token (with its own refresh_in) returned.")
    b.discovery()
    b.token(b.success(access_token="at-refreshed-2", refresh_token="rt-home-2", refresh_in=1800), form=refresh_form("rt-home-1"))
    b.jwks()
    refresh_on_at = dict(VALID_AT, refresh_on=1_700_000_900)
    out.append(b.document([silent(ok("at-refreshed-2", "identity_provider", refresh_on=NOW + 1800), requests=4,
                                  expect_cache=cache_state([("at-refreshed-2", TENANT, TARGET)], [("rt-home-2", None)]))],
                          setup(standard_cache(minter, at=refresh_on_at))))

    # refresh_on passed, refresh fails -> the still-valid cached token.
    b = new("silent-refresh-on-fallback", "Past refresh_on the proactive refresh fails (503, retried once, 503 again): the "
            "still-valid cached token is returned from the cache and nothing is removed.")
    b.discovery()
    failure = b.reference_response("errors/dotnet_5xx_server_error.json",
                                   "5xx body, verbatim; the optional Retry-After header left out")
    failure.pop("headers", None)
    b.token(failure, form=refresh_form("rt-home-1"))
    b.token(copy.deepcopy(failure), form=refresh_form("rt-home-1"))
    out.append(b.document([silent(ok("at-cached-1", "cache", refresh_on=1_700_000_900), requests=4, expect_sleeps=[0.5],
                                  expect_cache=cache_state([("at-cached-1", TENANT, TARGET)], [("rt-home-1", None)]))],
                          setup(standard_cache(minter, at=refresh_on_at))))

    # forceRefresh.
    b = new("silent-force-refresh", "forceRefresh ignores a valid cached access token and redeems the refresh token.")
    b.discovery()
    b.token(b.success(access_token="at-refreshed-2", refresh_token="rt-home-2"), form=refresh_form("rt-home-1"))
    b.jwks()
    out.append(b.document([silent(ok("at-refreshed-2", "identity_provider"), requests=4, force_refresh=True,
                                  expect_cache=cache_state([("at-refreshed-2", TENANT, TARGET)], [("rt-home-2", None)]))],
                          setup(standard_cache(minter, at=VALID_AT))))

    # No refresh token: interaction required, no request.
    b = new("silent-no-refresh-token", "The access token expired and the cache holds no refresh token for the account: "
            "interactionRequired, without any request.")
    b.provenance.append({"notes": "SYNTHETIC: a cache document only; there is no HTTP exchange"})
    out.append(b.document([silent(error={"code": "interactionRequired", "internal_code": None}, requests=0)],
                          setup(standard_cache(minter, at=EXPIRED_AT, rt=None))))

    # FOCI: the family refresh token used by a second client of the family.
    foci_cache = cache_document(
        access_tokens=[dict(VALID_AT, client_id=CLIENT)],
        refresh_tokens=[{"secret": "frt-1", "client_id": CLIENT, "family_id": "1"}],
        id_token_clients=[CLIENT], minter=minter,
        app_metadata=[{"client_id": CLIENT, "family_id": "1"}, {"client_id": FAMILY_CLIENT, "family_id": "1"}])
    b = new("silent-foci-family-refresh-token", "A second client of family 1, which holds no token of its own, gets a token "
            "silently by redeeming the family refresh token another family member stored; the response's foci keeps the "
            "rotated token a family refresh token.")
    b.cite("foci", ref.source("token-responses/dotnet_foci_token_response.json",
                              "foci:\"1\" in the token response makes the refresh token a family refresh token"))
    b.discovery()
    b.token(b.success(access_token="at-family-2", refresh_token="frt-2", aud=FAMILY_CLIENT, foci="1"),
            form=refresh_form("frt-1", client=FAMILY_CLIENT))
    b.jwks()
    out.append(b.document([silent(ok("at-family-2", "identity_provider"), requests=4,
                                  expect_cache=cache_state([("at-cached-1", TENANT, TARGET), ("at-family-2", TENANT, TARGET)],
                                                           [("frt-2", "1")],
                                                           [(CLIENT, "1"), (FAMILY_CLIENT, "1")]))],
                          setup(foci_cache, client=FAMILY_CLIENT)))

    b = new("silent-foci-client-mismatch", "The second client's metadata says it is in family 1, but the service answers the "
            "family refresh token with invalid_grant/client_mismatch (the client is not in the family): interactionRequired "
            "with the sub-error kept, the family refresh token left for the real members, and the client recorded as not in "
            "the family, so the account is no longer listed for it.")
    b.discovery()
    mismatch = b.reference_response("errors/dotnet_invalid_grant_client_mismatch_foci.json", "error body, verbatim")
    mismatch["headers"] = {"Content-Type": "application/json; charset=utf-8"}
    b.token(mismatch, form=refresh_form("frt-1", client=FAMILY_CLIENT))
    out.append(b.document([
        silent(error={"code": "interactionRequired", "internal_code": "internalErrorInvalidGrant", "oauth_error": "invalid_grant",
                      "oauth_suberror": "client_mismatch", "http_status": 400}, requests=3,
               expect_cache=cache_state(refresh_tokens=[("frt-1", "1")], app_metadata=[(CLIENT, "1"), (FAMILY_CLIENT, "")]),
               expect_accounts=[]),
    ], setup(foci_cache, client=FAMILY_CLIENT)))

    # FOCI for a client with no AppMetadata yet: family "1" is assumed (MSAL for iOS and Python do so).
    foci_unknown_cache = cache_document(
        access_tokens=[dict(VALID_AT, client_id=CLIENT)],
        refresh_tokens=[{"secret": "frt-1", "client_id": CLIENT, "family_id": "1"}],
        id_token_clients=[CLIENT], minter=minter,
        app_metadata=[{"client_id": CLIENT, "family_id": "1"}])
    b = new("silent-foci-unknown-app", "A second client that has no AppMetadata yet (it never signed in) is assumed to be "
            "in family 1, as MSAL for iOS and Python assume: the account is listed for it and a silent request redeems the "
            "family refresh token; the response's foci records the client in the family.")
    b.cite("foci", ref.source("token-responses/dotnet_foci_token_response.json",
                              "foci:\"1\" in the token response makes the refresh token a family refresh token"))
    b.discovery()
    b.token(b.success(access_token="at-family-2", refresh_token="frt-2", aud=FAMILY_CLIENT, foci="1"),
            form=refresh_form("frt-1", client=FAMILY_CLIENT))
    b.jwks()
    out.append(b.document([silent(ok("at-family-2", "identity_provider"), requests=4,
                                  expect_cache=cache_state([("at-cached-1", TENANT, TARGET), ("at-family-2", TENANT, TARGET)],
                                                           [("frt-2", "1")], [(CLIENT, "1"), (FAMILY_CLIENT, "1")]))],
                          setup(foci_unknown_cache, client=FAMILY_CLIENT)))

    b = new("silent-foci-unknown-app-client-mismatch", "A client with no AppMetadata tries the family refresh token and the "
            "service answers invalid_grant/client_mismatch: interactionRequired, the family token left for the family, and "
            "the client recorded as in no family, so the account is no longer listed for it.")
    b.discovery()
    mismatch = b.reference_response("errors/dotnet_invalid_grant_client_mismatch_foci.json", "error body, verbatim")
    mismatch["headers"] = {"Content-Type": "application/json; charset=utf-8"}
    b.token(mismatch, form=refresh_form("frt-1", client=FAMILY_CLIENT))
    out.append(b.document([
        silent(error={"code": "interactionRequired", "internal_code": "internalErrorInvalidGrant", "oauth_error": "invalid_grant",
                      "oauth_suberror": "client_mismatch", "http_status": 400}, requests=3,
               expect_cache=cache_state(refresh_tokens=[("frt-1", "1")], app_metadata=[(CLIENT, "1"), (FAMILY_CLIENT, "")]),
               expect_accounts=[]),
    ], setup(foci_unknown_cache, client=FAMILY_CLIENT)))

    b = new("silent-foci-unknown-app-refused", "A client with no AppMetadata tries the family refresh token and the service "
            "refuses it with another invalid_grant: interactionRequired, and the token is not removed — it belongs to the "
            "family's apps, whose sign-in may still work (MSAL for Python keeps it too).")
    b.discovery()
    refused = b.reference_response("errors/msaljs_invalid_grant_bad_token.json", "error body, verbatim")
    refused["headers"] = {"Content-Type": "application/json; charset=utf-8"}
    b.token(refused, form=refresh_form("frt-1", client=FAMILY_CLIENT))
    out.append(b.document([
        silent(error={"code": "interactionRequired", "oauth_error": "invalid_grant", "http_status": 400}, requests=3,
               expect_cache=cache_state(refresh_tokens=[("frt-1", "1")], app_metadata=[(CLIENT, "1")])),
    ], setup(foci_unknown_cache, client=FAMILY_CLIENT)))

    # Guest tenant through the parameters' authority.
    b = new("silent-guest-tenant", "A token for a tenant the account is a guest in, asked through the parameters' authority: "
            "the home refresh token is redeemed at the guest tenant, the token cached under the guest realm; a repeat is a "
            "cache hit, and the home tenant's token is still answered from the cache.")
    b.discovery(GUEST)
    b.token(b.success(access_token="at-guest-1", refresh_token="rt-home-2", tenant=GUEST, oid=GUEST_OID), tenant=GUEST,
            form=refresh_form("rt-home-1"))
    b.jwks(GUEST)
    guest_authority = f"https://{HOST}/{GUEST}"
    out.append(b.document([
        silent(ok("at-guest-1", "identity_provider", tenant=GUEST, id_token_claims={"oid": GUEST_OID, "tid": GUEST}),
               requests=4, authority=guest_authority,
               expect_cache=cache_state([("at-cached-1", TENANT, TARGET), ("at-guest-1", GUEST, TARGET)], [("rt-home-2", None)])),
        silent(ok("at-guest-1", "cache", tenant=GUEST), requests=0, authority=guest_authority),
        silent(ok("at-cached-1", "cache", tenant=TENANT), requests=0),
    ], setup(standard_cache(minter, at=VALID_AT))))

    # Guest tenant named by its domain: cached under the tenant id, found again once the metadata is known.
    b = new("silent-guest-tenant-domain", "A guest tenant named by its domain in the parameters' authority: the token is "
            "issued for and cached under the tenant id, which the tenant document's issuer names, so the repeat finds it in "
            "the cache without a request.")
    b.domain_discovery(GUEST_DOMAIN, GUEST)
    b.token(b.success(access_token="at-guest-1", refresh_token="rt-home-2", tenant=GUEST, oid=GUEST_OID), tenant=GUEST,
            form=refresh_form("rt-home-1"))
    b.jwks(GUEST)
    domain_authority = f"https://{HOST}/{GUEST_DOMAIN}"
    out.append(b.document([
        silent(ok("at-guest-1", "identity_provider", tenant=GUEST), requests=4, authority=domain_authority,
               expect_cache=cache_state([("at-cached-1", TENANT, TARGET), ("at-guest-1", GUEST, TARGET)], [("rt-home-2", None)])),
        silent(ok("at-guest-1", "cache", tenant=GUEST), requests=0, authority=domain_authority),
    ], setup(standard_cache(minter, at=VALID_AT))))

    # Declined scopes.
    declined_ref = ref.load("token-responses/objc_declined_scopes.json")["cases"][0]
    b = new("silent-declined-scopes", "The service grants fewer scopes than asked: serverDeclinedScopes with the declined and "
            "granted scopes (OpenID scopes not counted as granted) and the result for the granted ones; the token is cached "
            "under the granted scopes, replacing the overlapping one.")
    b.cite("declined", ref.source("token-responses/objc_declined_scopes.json",
                                  "case 1: requested scopes, response scope and the expected declined/granted split; the "
                                  "response's tokens SYNTHETIC (minted ID token, placeholder access and refresh tokens)"))
    b.discovery()
    requested = declined_ref["requested_scopes"].split()
    b.token(b.success(access_token="at-declined-1", refresh_token="rt-home-2", scope=declined_ref["response"]["scope"]),
            form=refresh_form("rt-home-1", scopes=requested))
    b.jwks()
    granted_target = "offline_access openid profile user.read user.write"
    out.append(b.document([
        silent(error={"code": "serverDeclinedScopes", "internal_code": None,
                      "declined_scopes": declined_ref["expected"]["declined_scopes"],
                      "granted_scopes": declined_ref["expected"]["granted_scopes"],
                      "invalid_result_access_token": "at-declined-1"}, requests=4, scopes=requested,
               expect_cache=cache_state([("at-declined-1", TENANT, granted_target)], [("rt-home-2", None)])),
        silent(ok("at-declined-1", "cache"), requests=0, scopes=["user.write"]),
    ], setup(standard_cache(minter, at=VALID_AT))))

    # invalid_grant sub-errors.
    matrix = ref.load("errors/invalid_grant_suberror_matrix.json")
    for case in matrix["cases"]:
        sub = case["suberror"]
        body = copy.deepcopy(matrix["body_template"])
        if sub is None:
            del body["suberror"]
            label = "none"
        else:
            body["suberror"] = sub
            label = sub or "empty"
        name = f"silent-invalid-grant-suberror-{label.replace('_', '-')}"
        b = new(name, f"The refresh token is answered with invalid_grant and sub-error {sub!r}: " + (
            "serverProtectionPoliciesRequired with the sub-error and claims kept, and the refresh token kept (the app must "
            "apply the protection policies, then silent acquisition works again)." if sub == "protection_policy_required" else
            "interactionRequired with the sub-error and claims kept; the refresh token stays (for FOCI this sub-error means "
            "the client is not in the family, not that the token is dead)." if sub == "client_mismatch" else
            "interactionRequired with the sub-error and claims kept, and the dead refresh token removed from the cache."))
        b.discovery()
        b.cite("matrix", ref.source("errors/invalid_grant_suberror_matrix.json",
                                    "body_template with some_suberror replaced by this case's value, as the test does" +
                                    ("; ADAPTED: for the null case the suberror member is left out (the test's string "
                                     "replacement gives the same body as the empty case)" if sub is None else "")))
        b.token({"status": matrix["status"], "headers": {"Content-Type": "application/json; charset=utf-8"}, "body": body},
                form=refresh_form("rt-home-1"))
        keeps = sub in ("client_mismatch", "protection_policy_required")
        error = {
            "code": "serverProtectionPoliciesRequired" if sub == "protection_policy_required" else "interactionRequired",
            "internal_code": None if sub == "protection_policy_required" else "internalErrorInvalidGrant",
            "oauth_error": "invalid_grant", "oauth_suberror": body.get("suberror"), "claims": "some_claims", "http_status": 400,
        }
        out.append(b.document([silent(error=error, requests=3,
                                      expect_cache=cache_state(refresh_tokens=[("rt-home-1", None)] if keeps else []))],
                              setup(standard_cache(minter, at=EXPIRED_AT))))

    # interaction_required with claims; the repeat is throttled for 120 s.
    b = new("silent-interaction-required-claims", "The refresh is answered with interaction_required and a conditional-access "
            "claims challenge: interactionRequired with the claims kept verbatim and the refresh token kept; the same request "
            "repeated at once is answered locally (throttled, as MSAL.NET does for 120 s), without a request.")
    b.discovery()
    b.token(b.reference_response("errors/msaljs_interaction_required_AADSTS50079_claims.json", "error body, verbatim; "
                                 "Content-Type SYNTHETIC") | {"headers": {"Content-Type": "application/json; charset=utf-8"}},
            form=refresh_form("rt-home-1"))
    claims = ref.load("errors/msaljs_interaction_required_AADSTS50079_claims.json")["response"]["body"]["claims"]
    err = {"code": "interactionRequired", "internal_code": None, "oauth_error": "interaction_required", "oauth_suberror": None,
           "claims": claims, "http_status": 400}
    out.append(b.document([
        silent(error=err | {"throttling_cache_hit": False}, requests=3,
               expect_cache=cache_state(refresh_tokens=[("rt-home-1", None)])),
        silent(error=err | {"throttling_cache_hit": True}, requests=0, advance_clock=60),
    ], setup(standard_cache(minter, at=EXPIRED_AT))))

    # Protection policy.
    b = new("silent-protection-policy-required", "unauthorized_client with sub-error protection_policy_required (Intune app "
            "protection): serverProtectionPoliciesRequired, not interactionRequired, with the sub-error kept and the refresh "
            "token kept.")
    b.discovery()
    b.token(b.reference_response("errors/android_unauthorized_client_protection_policy_required.json",
                                 "error body, verbatim; Content-Type SYNTHETIC") |
            {"headers": {"Content-Type": "application/json; charset=utf-8"}}, form=refresh_form("rt-home-1"))
    out.append(b.document([silent(error={"code": "serverProtectionPoliciesRequired", "internal_code": None,
                                         "oauth_error": "unauthorized_client", "oauth_suberror": "protection_policy_required",
                                         "http_status": 400}, requests=3,
                                  expect_cache=cache_state(refresh_tokens=[("rt-home-1", None)]))],
                          setup(standard_cache(minter, at=EXPIRED_AT))))

    # 429 with Retry-After.
    b = new("silent-throttled-429", "The refresh is answered 429 with Retry-After: 120: an internal error (as MSAL for iOS "
            "reports it) with the throttled internal code and the status kept; the same call within 120 s is answered from the throttling cache without a "
            "request; after 121 s the request is sent again and succeeds.")
    b.discovery()
    b.token(b.reference_response("errors/dotnet_429_json_retry_after.json", "status, Retry-After and body, verbatim"),
            form=refresh_form("rt-home-1"))
    b.token(b.success(access_token="at-refreshed-2", refresh_token="rt-home-2"), form=refresh_form("rt-home-1"))
    b.jwks()
    throttled = {"code": "internal", "internal_code": "throttled", "http_status": 429}
    out.append(b.document([
        silent(error=throttled | {"throttling_cache_hit": False}, requests=3),
        silent(error=throttled | {"throttling_cache_hit": True}, requests=0, advance_clock=119),
        silent(ok("at-refreshed-2", "identity_provider"), requests=2, advance_clock=2),
    ], setup(standard_cache(minter, at=EXPIRED_AT))))

    # 429 with a plain-text body.
    b = new("silent-throttled-429-text", "A 429 whose body is plain text, not JSON: the same throttled internal error, no crash, "
            "and the repeat answered locally.")
    b.discovery()
    b.token(b.reference_response("errors/dotnet_429_non_json_retry_after.json", "status, Retry-After and body, verbatim"),
            form=refresh_form("rt-home-1"))
    out.append(b.document([
        silent(error=throttled | {"throttling_cache_hit": False, "oauth_error": None}, requests=3),
        silent(error=throttled | {"throttling_cache_hit": True}, requests=0),
    ], setup(standard_cache(minter, at=EXPIRED_AT))))

    # 5xx retried once, then success.
    b = new("silent-5xx-retried", "A 503 on the refresh is retried once, after the pipeline's half-second wait (MSAL for iOS's retry interval), and the retry "
            "succeeds.")
    b.discovery()
    failure = b.reference_response("errors/msaljs_503_service_unavailable.json", "status and body, verbatim")
    failure["headers"] = {"Content-Type": "application/json; charset=utf-8"}
    b.token(failure, form=refresh_form("rt-home-1"))
    b.token(b.success(access_token="at-refreshed-2", refresh_token="rt-home-2"), form=refresh_form("rt-home-1"))
    b.jwks()
    out.append(b.document([silent(ok("at-refreshed-2", "identity_provider"), requests=5, expect_sleeps=[0.5])],
                          setup(standard_cache(minter, at=EXPIRED_AT))))

    # 5xx twice -> internal (unhandledResponse, as MSAL for iOS), then throttled for 60 s.
    b = new("silent-5xx-twice", "A 503 that persists through the retry is an internal error with internalErrorUnhandledResponse, as "
            "MSAL for iOS reports it (not interactionRequired), with the status kept and the refresh token kept; the repeat is answered locally for 60 s, then sent again.")
    b.discovery()
    failure = b.reference_response("errors/dotnet_5xx_server_error.json", "5xx body, verbatim; without the optional Retry-After")
    failure.pop("headers", None)
    b.token(failure, form=refresh_form("rt-home-1"))
    b.token(copy.deepcopy(failure), form=refresh_form("rt-home-1"))
    b.token(b.success(access_token="at-refreshed-2", refresh_token="rt-home-2"), form=refresh_form("rt-home-1"))
    b.jwks()
    out.append(b.document([
        silent(error={"code": "internal", "internal_code": "internalErrorUnhandledResponse", "http_status": 503,
                      "throttling_cache_hit": False}, requests=4, expect_sleeps=[0.5],
               expect_cache=cache_state([("at-cached-1", TENANT, TARGET)], [("rt-home-1", None)])),
        silent(error={"code": "internal", "http_status": 503, "throttling_cache_hit": True}, requests=0, advance_clock=30),
        silent(ok("at-refreshed-2", "identity_provider"), requests=2, advance_clock=31),
    ], setup(standard_cache(minter, at=EXPIRED_AT))))

    # Extended lifetime.
    extended_at = dict(EXPIRED_AT, extended_expires_on=1_700_090_000)
    b = new("silent-extended-lifetime", "With extendedLifetimeEnabled, a refresh that fails with 5xx (after the retry) returns "
            "the expired access token that is still within its extended lifetime, flagged extendedLifeTimeToken.")
    b.discovery()
    failure = b.reference_response("errors/dotnet_5xx_server_error.json", "5xx body, verbatim; without the optional Retry-After")
    failure.pop("headers", None)
    b.token(failure, form=refresh_form("rt-home-1"))
    b.token(copy.deepcopy(failure), form=refresh_form("rt-home-1"))
    out.append(b.document([silent(ok("at-cached-1", "cache", extended_lifetime_token=True, expires_on=1_700_090_000),
                                  requests=4, expect_sleeps=[0.5])],
                          setup(standard_cache(minter, at=extended_at), extended_lifetime_enabled=True)))

    b = new("silent-extended-lifetime-not-on-invalid-grant", "With extendedLifetimeEnabled, a refresh answered with invalid_grant "
            "is interactionRequired: the extended lifetime covers an unavailable service, not a dead grant.")
    b.discovery()
    b.token(b.reference_response("errors/dotnet_invalid_grant.json", "error body, verbatim") |
            {"headers": {"Content-Type": "application/json; charset=utf-8"}}, form=refresh_form("rt-home-1"))
    out.append(b.document([silent(error={"code": "interactionRequired", "internal_code": "internalErrorInvalidGrant",
                                         "oauth_error": "invalid_grant"}, requests=3,
                                  expect_cache=cache_state(refresh_tokens=[]))],
                          setup(standard_cache(minter, at=extended_at), extended_lifetime_enabled=True)))

    # CAE: capabilities only (no bypass), then a claims challenge (bypass, merged with xms_cc).
    live = ref.load("recorded-live/azsdkjs_cae_devicecode_flow.json")["Entries"]
    arm_target = "https://management.azure.com/.default https://management.azure.com/user_impersonation"
    cae_cache = cache_document(
        access_tokens=[{"secret": "at-arm-1", "expires_on": 1_700_004_600, "client_id": CAE_CLIENT, "target": arm_target}],
        refresh_tokens=[{"secret": "refresh_token", "client_id": CAE_CLIENT, "family_id": "1"}],
        id_token_clients=[CAE_CLIENT], minter=minter, app_metadata=[{"client_id": CAE_CLIENT, "family_id": "1"}])
    challenge_b64 = live[5]["ResponseHeaders"]["WWW-Authenticate"].split('claims="')[1].rstrip('"')
    challenge = base64.b64decode(challenge_b64).decode("utf-8")
    merged = "{\"access_token\":{\"nbf\":{\"essential\":true,\"value\":\"1645229974\"},\"xms_cc\":{\"values\":[\"cp1\"]}}}"
    assert f"claims={merged}" in live[6]["RequestBody"].replace("%7B", "{").replace("%7D", "}").replace("%22", "\"") \
        .replace("%3A", ":").replace("%2C", ",").replace("%5B", "[").replace("%5D", "]")
    b = new("silent-cae-claims-challenge", "Continuous access evaluation: with client capabilities [cp1] a silent call is still "
            "answered from the cache; after a resource's claims challenge the call with that claims request bypasses the "
            "valid cached token and refreshes with the challenge merged with the capabilities as access_token.xms_cc (the "
            "exact claims value the live recording shows); the new token then answers from the cache.")
    b.cite("cae-live", {
        "repo": "Azure/azure-sdk-for-js",
        "path": "sdk/identity/identity/recordings/node/cae/recording_devicecodecredential.json",
        "commit": "393596bf3941885e57b73faf7e2805f1f10d5d16",
        "notes": "entry 6: the resource's WWW-Authenticate claims challenge (decoded from base64 into the step's claims); entry 7: "
                 "the merged claims value sent with cp1, used verbatim as the expected form value; entry 9: the success body "
                 "(scope, expires_in, placeholder access_token/refresh_token, foci) with id_token and client_info SYNTHETIC "
                 "(minted for this scenario; the recording's are sanitized and unsigned). The recording's challenge was answered "
                 "by a device code sign-in; here by a refresh (shared reference file recorded-live/azsdkjs_cae_devicecode_flow.json)",
    })
    b.discovery()
    success = copy.deepcopy(live[8]["ResponseBody"])
    success["id_token"] = minter.id_token(aud=CAE_CLIENT)
    success["client_info"] = client_info()
    b.token({"status": 200, "headers": {"Content-Type": "application/json; charset=utf-8"}, "body": success},
            form=refresh_form("refresh_token", client=CAE_CLIENT, scopes=[ARM], claims=merged))
    b.jwks()
    out.append(b.document([
        silent(ok("at-arm-1", "cache"), requests=0, scopes=[ARM]),
        silent(ok("access_token", "identity_provider", expires_on=NOW + 86500), requests=4, scopes=[ARM], claims=challenge),
        silent(ok("access_token", "cache"), requests=0, scopes=[ARM]),
    ], setup(cae_cache, client=CAE_CLIENT, authority=f"https://{HOST}/{TENANT}", client_capabilities=["cp1"])))

    # Capabilities only: the refresh carries claims {"access_token":{"xms_cc":...}} (recorded entry 5).
    b = new("silent-capabilities-refresh", "With client capabilities [cp1] and no claims request, an expired token is refreshed "
            "with claims={\"access_token\":{\"xms_cc\":{\"values\":[\"cp1\"]}}}, as the live recording's refresh shows, and "
            "the family refresh token is used and rotated.")
    b.cite("cae-live-5", {
        "repo": "Azure/azure-sdk-for-js",
        "path": "sdk/identity/identity/recordings/node/cae/recording_devicecodecredential.json",
        "commit": "393596bf3941885e57b73faf7e2805f1f10d5d16",
        "notes": "entry 5: the refresh_token grant with the capabilities-only claims value (verbatim as the expected form value) "
                 "and its success body (scope, expires_in, placeholder tokens, foci) with id_token and client_info SYNTHETIC "
                 "(shared reference file recorded-live/azsdkjs_cae_devicecode_flow.json)",
    })
    b.discovery()
    success = copy.deepcopy(live[4]["ResponseBody"])
    success["id_token"] = minter.id_token(aud=CAE_CLIENT)
    success["client_info"] = client_info()
    success["refresh_token"] = "refresh_token_2"
    b.token({"status": 200, "headers": {"Content-Type": "application/json; charset=utf-8"}, "body": success},
            form=refresh_form("refresh_token", client=CAE_CLIENT, scopes=["User.ReadWrite.All"],
                              claims="{\"access_token\":{\"xms_cc\":{\"values\":[\"cp1\"]}}}"))
    b.jwks()
    cap_cache = cache_document(
        access_tokens=[{"secret": "at-graph-1", "expires_on": 1_700_000_900, "client_id": CAE_CLIENT,
                        "target": "User.ReadWrite.All"}],
        refresh_tokens=[{"secret": "refresh_token", "client_id": CAE_CLIENT, "family_id": "1"}],
        id_token_clients=[CAE_CLIENT], minter=minter, app_metadata=[{"client_id": CAE_CLIENT, "family_id": "1"}])
    out.append(b.document([
        silent(ok("access_token", "identity_provider", expires_on=NOW + 86400), requests=4, scopes=["User.ReadWrite.All"],
               expect_cache=cache_state(refresh_tokens=[("refresh_token_2", "1")])),
    ], setup(cap_cache, client=CAE_CLIENT, authority=f"https://{HOST}/{TENANT}", client_capabilities=["cp1"])))

    out.extend(device_code_scenarios(ref, minter, new, live))
    out.extend(interactive_scenarios(minter, new))
    return out


def device_code_step(expect: dict | None = None, *, error: dict | None = None, requests: int, scopes: list[str] = SCOPES,
                     **extra: object) -> dict:
    step: dict = {"call": "acquire_token_device_code", "scopes": scopes}
    step.update(extra)
    if expect is not None:
        step["expect"] = expect
    if error is not None:
        step["expect_error"] = error
    step["expect_requests"] = requests
    return step


def device_code_scenarios(ref: Reference, minter: Minter, new, live: list[dict]) -> list[dict]:
    out: list[dict] = []
    tenant_authority = f"https://{HOST}/{TENANT}"
    empty_cache = {"Account": {}, "IdToken": {}, "AccessToken": {}, "RefreshToken": {}, "AppMetadata": {}}
    devicecode_url = f"https://{HOST}/{TENANT}/oauth2/v2.0/devicecode"
    scope_param = " ".join(SCOPES + ["openid", "profile", "offline_access"])
    start_form = {"client_id": CLIENT, "scope": scope_param}
    poll_form = lambda code: {"client_id": CLIENT, "grant_type": "urn:ietf:params:oauth:grant-type:device_code",  # noqa: E731
                              "device_code": code, "client_info": "1"}
    android = ref.load("device-code/android_device_code_response.json")["response"]["body"]
    android_info = {"user_code": android["user_code"], "verification_uri": android["verification_uri"],
                    "message": android["message"], "interval": android["interval"], "expires_on": NOW + android["expires_in"]}
    json_headers = {"Content-Type": "application/json; charset=utf-8"}

    def start(b: Builder, body: dict | None = None, text: str | None = None) -> None:
        response: dict = {"status": 200}
        if body is not None:
            response["headers"] = json_headers
            response["body"] = body
        else:
            response["body_text"] = text
        b.add("POST", devicecode_url, response, form=start_form, headers={"Content-Type": FORM_CONTENT_TYPE} | TELEMETRY)

    def android_start(b: Builder) -> None:
        b.cite("android", ref.source("device-code/android_device_code_response.json",
                                     "device authorization response, verbatim (interval 5, expires_in 900)"))
        start(b, copy.deepcopy(android))

    def pending(b: Builder, code: str) -> None:
        b.token(b.reference_response("device-code/msaljs_authorization_pending.json", "poll answer, verbatim") |
                {"headers": json_headers}, form=poll_form(code))

    account = {"account": HOME, "tenant_id": TENANT}

    # pending, slow_down, success.
    b = new("device-code-pending-slow-down", "Device code sign-in: the code and instructions reach the callback, the poll is "
            "answered authorization_pending (keep the interval), then slow_down (five seconds more from then on), then with "
            "tokens, which are verified and cached.")
    b.discovery()
    android_start(b)
    pending(b, android["device_code"])
    go = ref.load("device-code/go_pending_and_slow_down_minimal.json")
    b.cite("go", ref.source("device-code/go_pending_and_slow_down_minimal.json", "the minimal slow_down body, verbatim"))
    b.token(copy.deepcopy(go["responses"][1]) | {"headers": json_headers}, form=poll_form(android["device_code"]))
    b.token(b.success(access_token="at-device-1", refresh_token="rt-device-1"), form=poll_form(android["device_code"]))
    b.jwks()
    out.append(b.document([device_code_step(
        {"access_token": "at-device-1", "token_source": "identity_provider", "scopes": TARGET.split(), **account,
         "expires_on": NOW + 20 + 3599, "id_token_claims": {"preferred_username": USERNAME}},
        requests=7, expect_sleeps=[5, 5, 10], expect_device_code=android_info,
        expect_cache=cache_state([("at-device-1", TENANT, TARGET)], [("rt-device-1", None)]))],
        setup(empty_cache, authority=tenant_authority)))

    # expired_token from the service.
    b = new("device-code-expired-token", "The user never finishes: the service answers the poll expired_token, which ends the "
            "flow with deviceCodeExpired and caches nothing.")
    b.discovery()
    android_start(b)
    pending(b, android["device_code"])
    b.provenance.append({"notes": "SYNTHETIC: the expired_token poll answer (RFC 8628 §3.5 error code with an AADSTS70019-style "
                                  "description); no library test data has one"})
    b.token({"status": 400, "headers": json_headers, "body": {
        "error": "expired_token", "error_description": "AADSTS70019: Verification code expired.",
        "error_codes": [70019], "timestamp": "2023-11-14 22:30:00Z"}}, form=poll_form(android["device_code"]))
    out.append(b.document([device_code_step(
        error={"code": "internal", "internal_code": "deviceCodeExpired", "oauth_error": "expired_token"},
        requests=5, expect_sleeps=[5, 5], expect_device_code=android_info,
        expect_cache=cache_state([], []))], setup(empty_cache, authority=tenant_authority)))

    # local expiry: expires_in shorter than the interval.
    b = new("device-code-expires-before-first-poll", "The device authorization response says expires_in 3 with interval 5: "
            "the wait is cut at the code's expiry (3 s, not the 5 s interval), and the flow ends with deviceCodeExpired without polling.")
    b.discovery()
    b.cite("android", ref.source("device-code/android_device_code_response.json",
                                 "device authorization response; ADAPTED (SYNTHETIC): expires_in changed from 900 to 3"))
    short = copy.deepcopy(android) | {"expires_in": 3}
    start(b, short)
    out.append(b.document([device_code_step(
        error={"code": "internal", "internal_code": "deviceCodeExpired"}, requests=3, expect_sleeps=[3],
        expect_device_code=android_info | {"expires_on": NOW + 3})], setup(empty_cache, authority=tenant_authority)))

    # declined.
    b = new("device-code-declined", "The user declines on the other device: authorization_declined ends the flow with "
            "userCanceled.")
    b.discovery()
    android_start(b)
    b.provenance.append({"notes": "SYNTHETIC: the authorization_declined poll answer (the error Entra sends when the user "
                                  "declines; RFC 8628 calls it access_denied, which maps the same); no library test data has one"})
    b.token({"status": 400, "headers": json_headers, "body": {
        "error": "authorization_declined", "error_description": "AADSTS70000: The user declined the sign-in.",
        "error_codes": [70000]}}, form=poll_form(android["device_code"]))
    out.append(b.document([device_code_step(
        error={"code": "userCanceled", "internal_code": "internalErrorAuthorizationFailed", "oauth_error": "authorization_declined"},
        requests=4, expect_sleeps=[5], expect_device_code=android_info)], setup(empty_cache, authority=tenant_authority)))

    # MSAL.NET's mock: trailing comma -> clean failure.
    dotnet = ref.load("device-code/dotnet_device_code_response.json")["response"]["body_text"]
    b = new("device-code-dotnet-trailing-comma", "MSAL.NET's mocked device authorization response has a trailing comma, which "
            "is not JSON. swift-msal reads responses strictly (the real endpoint sends strict JSON), so the flow fails cleanly "
            "with invalidResponse before the callback or any poll.")
    b.discovery()
    b.cite("dotnet", ref.source("device-code/dotnet_device_code_response.json", "body text, byte for byte"))
    start(b, text=dotnet)
    out.append(b.document([device_code_step(
        error={"code": "internal", "internal_code": "internalErrorInvalidResponse"}, requests=3, expect_sleeps=[],
        expect_device_code=None)], setup(empty_cache, authority=tenant_authority)))

    # The same response as strict JSON, string numbers + verification_url, with the 403 pending variant.
    strict = json.loads(dotnet.replace(",}", "}"))
    b = new("device-code-dotnet-403-pending", "MSAL.NET's device authorization response made strict JSON (its trailing comma "
            "removed) keeps its quirks — verification_url instead of verification_uri, expires_in and interval as strings — "
            "and is accepted; its authorization_pending poll answer with status 403 keeps the flow polling.")
    b.discovery()
    b.cite("dotnet", ref.source("device-code/dotnet_device_code_response.json",
                                "ADAPTED: the trailing comma removed; every value verbatim"))
    start(b, strict)
    b.token(b.reference_response("device-code/dotnet_authorization_pending_403.json", "status 403 and body, verbatim") |
            {"headers": json_headers}, form=poll_form(strict["device_code"]))
    b.token(b.success(access_token="at-device-1", refresh_token="rt-device-1"), form=poll_form(strict["device_code"]))
    b.jwks()
    out.append(b.document([device_code_step(
        {"access_token": "at-device-1", "token_source": "identity_provider", **account}, requests=6, expect_sleeps=[1, 1],
        expect_device_code={"user_code": strict["user_code"], "verification_uri": strict["verification_url"],
                            "message": strict["message"], "interval": 1, "expires_on": NOW + 900})],
        setup(empty_cache, authority=tenant_authority)))

    # /common authority: the issuer template.
    b = new("device-code-common-authority", "Device code through /common: the device code endpoint derived from the token "
            "endpoint (the /common document has no device_authorization_endpoint), the ID token's issuer checked against the "
            "{tenantid} template with its tid, and the tokens cached under the account's tenant.")
    b.common_discovery()
    android_start(b)
    b.interactions[-1]["request"]["url"] = f"https://{HOST}/common/oauth2/v2.0/devicecode"
    b.add("POST", f"https://{HOST}/common/oauth2/v2.0/token",
          b.success(access_token="at-device-1", refresh_token="rt-device-1"),
          form=poll_form(android["device_code"]), headers=TELEMETRY)
    b.add("GET", f"https://{HOST}/common/discovery/v2.0/keys",
          {"status": 200, "headers": json_headers, "body": json.loads((SAMPLES / "jwks.json").read_text())})
    b.cite("jwks", {"path": "Fixtures/Samples/jwks.json", "notes": "SYNTHETIC: the /common jwks_uri answered with this "
                    "repository's published test key set; the ID token is minted with its key sample-rsa-2048"})
    out.append(b.document([device_code_step(
        {"access_token": "at-device-1", "token_source": "identity_provider", **account}, requests=5, expect_sleeps=[5],
        expect_device_code=android_info, expect_cache=cache_state([("at-device-1", TENANT, TARGET)], [("rt-device-1", None)]),
        expect_accounts=[HOME]),
        silent(ok("at-device-1", "cache"), requests=0)],
        setup(empty_cache)))

    # CAE device code, replayed from the live recording (entries 7-9).
    b = new("device-code-cae-claims-challenge", "The live recording's second device code sign-in: a claims challenge merged "
            "with client capabilities [cp1] into the devicecode request's claims (exactly as recorded), interval 0 in the "
            "answer (the default five seconds used), one authorization_pending, then tokens (foci 1).")
    b.discovery()
    b.cite("cae-live-dc", {
        "repo": "Azure/azure-sdk-for-js",
        "path": "sdk/identity/identity/recordings/node/cae/recording_devicecodecredential.json",
        "commit": "393596bf3941885e57b73faf7e2805f1f10d5d16",
        "notes": "entries 7, 8 and 9: the devicecode request's form values (client_id, scope, claims) and every response status, "
                 "header and body as recorded, except the success's id_token and client_info, which are SYNTHETIC (minted for "
                 "this scenario; the recording's are sanitized and unsigned). The recorded polls come from msal-node, which "
                 "sends grant_type=device_code and repeats scope and claims; swift-msal sends the RFC 8628 grant type and only "
                 "what RFC 8628 asks for, so only those members are matched (shared reference file "
                 "recorded-live/azsdkjs_cae_devicecode_flow.json)",
    })
    entry7, entry8, entry9 = live[6], live[7], live[8]
    merged = "{\"access_token\":{\"nbf\":{\"essential\":true,\"value\":\"1645229974\"},\"xms_cc\":{\"values\":[\"cp1\"]}}}"
    challenge = "{\"access_token\":{\"nbf\":{\"essential\":true, \"value\":\"1645229974\"}}}"
    b.add("POST", entry7["RequestUri"], {"status": 200, "headers": strip_headers(entry7["ResponseHeaders"]),
                                          "body": entry7["ResponseBody"]},
          form={"client_id": CAE_CLIENT, "scope": f"{ARM} openid profile offline_access", "claims": merged},
          headers={"Content-Type": FORM_CONTENT_TYPE})
    cae_poll = {"client_id": CAE_CLIENT, "grant_type": "urn:ietf:params:oauth:grant-type:device_code",
                "device_code": "DEVICE_CODE", "client_info": "1"}
    b.add("POST", entry8["RequestUri"], {"status": 400, "headers": strip_headers(entry8["ResponseHeaders"]),
                                          "body": entry8["ResponseBody"]}, form=cae_poll)
    success = copy.deepcopy(entry9["ResponseBody"])
    success["id_token"] = minter.id_token(aud=CAE_CLIENT)
    success["client_info"] = client_info()
    b.add("POST", entry9["RequestUri"], {"status": 200, "headers": strip_headers(entry9["ResponseHeaders"]), "body": success},
          form=cae_poll)
    b.jwks()
    out.append(b.document([device_code_step(
        {"access_token": "access_token", "token_source": "identity_provider", "account": HOME, "tenant_id": TENANT,
         "scopes": sorted(success["scope"].split(), key=str.lower), "expires_on": NOW + 10 + 86500},
        requests=6, scopes=[ARM], claims=challenge, expect_sleeps=[5, 5],
        expect_device_code={"user_code": "USER_CODE", "verification_uri": "https://microsoft.com/devicelogin",
                            "message": entry7["ResponseBody"]["message"], "interval": 5, "expires_on": NOW + 900},
        expect_cache=cache_state(refresh_tokens=[("refresh_token", "1")], app_metadata=[(CAE_CLIENT, "1")]))],
        setup(empty_cache, client=CAE_CLIENT, authority=tenant_authority, client_capabilities=["cp1"])))
    return out


# --------------------------------------------------------------------------- interactive sign-in
#
# The runner plays the user with MSALTesting's MSALScriptedWebUI: each step's `web_ui` is its script. The
# redirects it answers with are not HTTP exchanges of the transport, so they are not interactions; what the
# identity provider would put in them (codes, error texts) is SYNTHETIC and cited once per file. The
# application gets fixed interactive secrets (`setup.interactive_secrets`) so the recorded code redemption
# can name the PKCE verifier and the minted ID tokens the nonce; the expected code_challenge is computed here
# (SHA-256, base64url), independently of swift-msal.

REDIRECT_SCHEME_URI = f"msal{CLIENT}://auth"          # a custom-scheme redirect only the app's web UI can catch
OTHER_UID = "dddddddd-4444-4444-8444-444444444444"     # SYNTHETIC second user of the tenant
OTHER_USERNAME = "BenSmith@contoso.com"
VERIFIER = "pkce-verifier-0123456789-abcdefghijklmnopqrstuvwxyz.ABCDEFGHIJ~"   # 63 unreserved characters
STATE = "state-7c1e9a3b5d"
NONCE = "nonce-5d2f8b64a0"
SECRETS = {"code_verifier": VERIFIER, "state": STATE, "nonce": NONCE}
CHALLENGE = b64u(hashlib.sha256(VERIFIER.encode("ascii")).digest())
RESERVED = ["openid", "profile", "offline_access"]
EMPTY_CACHE_STATE = {"access_tokens": [], "refresh_tokens": [], "app_metadata": []}


def authorize(tenant: str = TENANT, *, redirect_uri: str = "<loopback>", scopes: list[str] = SCOPES,
              prompt: str | None = None, extra: dict | None = None) -> dict:
    """The whole authorize URL: endpoint and every query parameter (`<loopback>`: http://localhost:<port>/,
    `<msal_version>`: the library version)."""
    query = {
        "client_id": CLIENT, "response_type": "code", "redirect_uri": redirect_uri, "scope": " ".join(scopes + RESERVED),
        "state": STATE, "nonce": NONCE, "code_challenge": CHALLENGE, "code_challenge_method": "S256", "client_info": "1",
        "response_mode": "query", "x-client-SKU": "MSAL.Swift.Linux", "x-client-Ver": "<msal_version>",
    }
    if prompt is not None:
        query["prompt"] = prompt
    query.update(extra or {})
    return {"endpoint": f"https://{HOST}/{tenant}/oauth2/v2.0/authorize", "query": query}


def code_form(code: str, *, redirect_uri: str | None = None, scopes: list[str] = SCOPES, claims: str | None = None) -> dict:
    """The code redemption's form. A loopback redirect URI has an ephemeral port and is left out; the runner
    checks that the redemption repeats the authorize URL's redirect_uri."""
    form = {"client_id": CLIENT, "grant_type": "authorization_code", "code": code, "scope": " ".join(scopes + RESERVED),
            "code_verifier": VERIFIER, "client_info": "1"}
    if redirect_uri is not None:
        form["redirect_uri"] = redirect_uri
    if claims is not None:
        form["claims"] = claims
    return form


def interactive(expect: dict | None = None, *, error: dict | None = None, requests: int, web_ui: list[dict],
                expect_authorize: dict | None, scopes: list[str] = SCOPES, **extra: object) -> dict:
    step: dict = {"call": "acquire_token_interactive", "scopes": scopes, "web_ui": web_ui}
    step.update(extra)
    if expect_authorize is not None:
        step["expect_authorize"] = expect_authorize
    if expect is not None:
        step["expect"] = expect
    if error is not None:
        step["expect_error"] = error
    step["expect_requests"] = requests
    return step


def code_action(code: str, **extra: object) -> dict:
    return {"action": "redirect", "parameters": {"code": code}, **extra}


def interactive_scenarios(minter: Minter, new) -> list[dict]:
    out: list[dict] = []
    tenant_authority = f"https://{HOST}/{TENANT}"
    empty_cache = {"Account": {}, "IdToken": {}, "AccessToken": {}, "RefreshToken": {}, "AppMetadata": {}}
    signed_in = {"oid": UID, "tid": TENANT, "preferred_username": USERNAME, "nonce": NONCE}

    def begin(name: str, description: str, redirect_note: str) -> Builder:
        b = new(name, description)
        b.provenance.append({"notes": "SYNTHETIC: the user's part is scripted with MSALScriptedWebUI (the step's web_ui); "
                                      f"{redirect_note}. The PKCE verifier, state and nonce are fixed by the runner "
                                      "(setup.interactive_secrets) so the code redemption and the ID token's nonce can be recorded"})
        return b

    def id_token(**claims: object) -> str:
        return minter.id_token(extra={"nonce": NONCE, **claims})

    def signed_in_response(b: Builder, at: str, rt: str, tenant: str = TENANT, token: str | None = None) -> dict:
        return b.success(access_token=at, refresh_token=rt, tenant=tenant, extra={"id_token": token or id_token()})

    def tenant_setup(cache: dict = empty_cache, **extra: object) -> dict:
        return setup(cache, authority=tenant_authority, interactive_secrets=SECRETS, **extra)

    signed_in_cache = cache_state([("at-interactive-1", TENANT, TARGET)], [("rt-interactive-1", None)], [(CLIENT, None)])

    # Happy path: the web UI captures the redirect; the loopback listener runs too.
    b = begin("interactive-captured-redirect", "acquireToken with an app-supplied web UI that captures the redirect itself "
              "(the default loopback redirect URI, so the listener runs too and loses): the authorize URL carries every "
              "protocol parameter, the code is redeemed with the verifier and the authorize URL's redirect_uri, the ID token "
              "(nonce included) verified, the tokens cached; the repeat is a silent cache hit.",
              "the redirect carries the code and the request's own state")
    b.discovery()
    b.token(signed_in_response(b, "at-interactive-1", "rt-interactive-1"), form=code_form("code-interactive-1"))
    b.jwks()
    out.append(b.document([
        interactive(ok("at-interactive-1", "identity_provider", scopes=TARGET.split(), expires_on=NOW + 3599,
                       id_token_claims=signed_in), requests=4, web_ui=[code_action("code-interactive-1")],
                    expect_authorize=authorize(), expect_cache=signed_in_cache, expect_accounts=[HOME]),
        silent(ok("at-interactive-1", "cache"), requests=0),
    ], tenant_setup()))

    # Every option, a custom-scheme redirect URI and a fragment redirect.
    claims = "{\"id_token\":{\"auth_time\":{\"essential\":true}}}"
    extra_query = {"dc": "ESTS-PUB-WEULR1-AZ1-FD000-TEST1", "msafed": "0", "prompt": "none", "state": "overridden"}
    b = begin("interactive-options-custom-scheme", "prompt=login, login and domain hints, extra scopes to consent, a claims "
              "request and extra query parameters (the two naming protocol parameters, prompt and state, are dropped) on the "
              "authorize URL; a custom-scheme redirect URI, which only the app's web UI can receive (no listener), handed "
              "back with the response in the fragment; the redemption repeats redirect_uri, scope and claims, and the extra "
              "query parameters ride on the token endpoint URL.",
              "the web UI hands back the custom-scheme redirect with the code and state in the fragment")
    b.discovery()
    headers = dict(TELEMETRY)
    headers["Content-Type"] = FORM_CONTENT_TYPE
    b.add("POST", f"https://{HOST}/{TENANT}/oauth2/v2.0/token?dc={extra_query['dc']}&msafed=0",
          signed_in_response(b, "at-interactive-1", "rt-interactive-1"),
          form=code_form("code-options-1", redirect_uri=REDIRECT_SCHEME_URI, scopes=SCOPES + ["Calendars.Read"], claims=claims),
          headers=headers)
    b.jwks()
    out.append(b.document([
        interactive(ok("at-interactive-1", "identity_provider", scopes=TARGET.split()), requests=4,
                    web_ui=[code_action("code-options-1", fragment=True)],
                    expect_authorize=authorize(redirect_uri=REDIRECT_SCHEME_URI, scopes=SCOPES + ["Calendars.Read"], prompt="login",
                                               extra={"login_hint": USERNAME, "domain_hint": "contoso.com", "claims": claims,
                                                      "dc": extra_query["dc"], "msafed": "0"}),
                    prompt="login", login_hint=USERNAME, domain_hint="contoso.com", extra_scopes_to_consent=["Calendars.Read"],
                    claims=claims, extra_query_parameters=extra_query, expect_cache=signed_in_cache, expect_accounts=[HOME]),
    ], tenant_setup(redirect_uri=REDIRECT_SCHEME_URI)))

    # /common: the authorize and token endpoints of the common document, the issuer template.
    b = begin("interactive-common-authority", "acquireToken through /common: the authorize URL and the code redemption on "
              "the /common endpoints, the ID token's issuer checked against the {tenantid} template with its tid, the tokens "
              "cached under the account's tenant; the repeat is a silent cache hit.",
              "the redirect carries the code and the request's own state")
    b.common_discovery()
    b.token(signed_in_response(b, "at-interactive-1", "rt-interactive-1"), tenant="common", form=code_form("code-interactive-1"))
    b.add("GET", f"https://{HOST}/common/discovery/v2.0/keys",
          {"status": 200, "headers": {"Content-Type": "application/json; charset=utf-8"},
           "body": json.loads((SAMPLES / "jwks.json").read_text())})
    b.cite("jwks", {"path": "Fixtures/Samples/jwks.json", "notes": "SYNTHETIC: the /common jwks_uri answered with this "
                    "repository's published test key set; the ID token is minted with its key sample-rsa-2048"})
    out.append(b.document([
        interactive(ok("at-interactive-1", "identity_provider"), requests=4,
                    web_ui=[code_action("code-interactive-1")], expect_authorize=authorize("common"),
                    expect_cache=signed_in_cache, expect_accounts=[HOME]),
        silent(ok("at-interactive-1", "cache"), requests=0),
    ], setup(empty_cache, interactive_secrets=SECRETS)))

    # Error redirects.
    def redirect_error(name: str, description: str, action: dict, error: dict, note: str) -> None:
        b = begin(name, description, note)
        b.discovery()
        out.append(b.document([
            interactive(error=error, requests=2, web_ui=[action], expect_authorize=authorize(),
                        expect_cache=EMPTY_CACHE_STATE, expect_accounts=[]),
        ], tenant_setup()))

    redirect_error(
        "interactive-access-denied", "The user declines consent: the redirect carries error=access_denied, which is "
        "userCanceled (authorizationFailed) with the OAuth error and the description kept; no token request, nothing cached.",
        {"action": "error", "error": "access_denied", "description": "AADSTS65004: User declined to consent to access the app."},
        {"code": "userCanceled", "internal_code": "internalErrorAuthorizationFailed", "oauth_error": "access_denied", "oauth_suberror": None,
         "message_contains": ["access_denied", "AADSTS65004: User declined to consent to access the app."]},
        "the error redirect's text is modeled on Entra's AADSTS65004 message")
    redirect_error(
        "interactive-access-denied-cancel-subcode", "Entra's cancel: error=access_denied with error_subcode=cancel is "
        "userCanceled with the sub-error kept.",
        {"action": "error", "error": "access_denied", "description": "AADSTS50058: The user canceled the sign-in.",
         "suberror": "cancel"},
        {"code": "userCanceled", "internal_code": "internalErrorAuthorizationFailed", "oauth_error": "access_denied", "oauth_suberror": "cancel"},
        "the error redirect with Entra's error_subcode=cancel")
    redirect_error(
        "interactive-user-closed", "The user closes the sign-in page (the web UI throws userCanceled): the request fails "
        "with userCanceled/sessionCanceled; no token request, nothing cached.",
        {"action": "cancel"}, {"code": "userCanceled", "internal_code": "internalErrorSessionCanceled"},
        "the web UI reports that the user closed the page")
    redirect_error(
        "interactive-redirect-invalid-request", "A redirect with error=invalid_request is internal/authorizationFailed with "
        "the OAuth error and description kept (docs/token-acquisition.md, Interactive step 5).",
        {"action": "error", "error": "invalid_request",
         "description": "AADSTS900144: The request body must contain the following parameter: 'client_id'."},
        {"code": "internal", "internal_code": "internalErrorAuthorizationFailed", "oauth_error": "invalid_request",
         "message_contains": ["invalid_request", "AADSTS900144"]},
        "the error redirect's text is modeled on Entra's AADSTS900144 message")
    redirect_error(
        "interactive-redirect-server-error", "A redirect with error=server_error (the service failing) is "
        "internal with MSALError.serverError's value as the internal code, as MSAL for iOS reports it.",
        {"action": "error", "error": "server_error", "description": "AADSTS90033: A transient error has occurred. Please try again."},
        {"code": "internal", "internal_code": "serverError", "oauth_error": "server_error",
         "message_contains": ["AADSTS90033"]},
        "the error redirect's text is modeled on Entra's AADSTS90033 message")
    redirect_error(
        "interactive-redirect-temporarily-unavailable", "A redirect with error=temporarily_unavailable is "
        "internal/internalErrorAuthorizationFailed, as MSAL for iOS reports it.",
        {"action": "error", "error": "temporarily_unavailable"},
        {"code": "internal", "internal_code": "internalErrorAuthorizationFailed", "oauth_error": "temporarily_unavailable"},
        "the error redirect carries no description")
    redirect_error(
        "interactive-state-mismatch", "The captured redirect carries a code and another request's state: invalidState, and "
        "the code is never redeemed (no token request; only the two metadata requests were sent).",
        {"action": "redirect_with_state", "state": "state-of-another-request", "parameters": {"code": "code-stolen-1"}},
        {"code": "internal", "internal_code": "internalErrorInvalidState"},
        "the redirect carries another request's state")
    redirect_error(
        "interactive-browser-launch-failure", "The web UI cannot start a browser: browserLaunchFailed, and the error carries "
        "the authorization URL it was shown (MSALError.authorizationURL), for the app to show the user.",
        {"action": "launch_failure"},
        {"code": "internal", "internal_code": "browserLaunchFailed", "authorization_url_presented": True},
        "the web UI fails as a browser that cannot start")

    # A second interactive request while one runs.
    b = begin("interactive-session-already-running", "While an interactive request waits for the user, a second one fails "
              "at once with interactiveSessionAlreadyRunning (MSAL for iOS -42402) without showing anything or sending a "
              "request; the first then completes, and a later one runs (metadata and keys cached: only the redemption).",
              "the first presentation waits until the runner answers it with the code")
    b.discovery()
    b.token(signed_in_response(b, "at-interactive-1", "rt-interactive-1"), form=code_form("code-interactive-1"))
    b.jwks()
    b.token(signed_in_response(b, "at-interactive-2", "rt-interactive-2"), form=code_form("code-interactive-2"))
    out.append(b.document([
        interactive(ok("at-interactive-1", "identity_provider"), requests=4, web_ui=[{"action": "wait"}],
                    concurrent_call={"expect_error": {"code": "internal", "internal_code": "internalErrorInteractiveSessionAlreadyRunning"}},
                    resume_with=code_action("code-interactive-1"), expect_authorize=authorize(),
                    expect_cache=signed_in_cache, expect_accounts=[HOME]),
        interactive(ok("at-interactive-2", "identity_provider"), requests=1, web_ui=[code_action("code-interactive-2")],
                    expect_authorize=authorize(),
                    expect_cache=cache_state([("at-interactive-2", TENANT, TARGET)], [("rt-interactive-2", None)])),
    ], tenant_setup()))

    # The parameters name an account; another user signs in.
    b = begin("interactive-mismatched-user", "The parameters name the cached account (its username becomes login_hint) but "
              "another user of the tenant signs in: the ID token verifies, but the response is for another account, so the "
              "request fails with mismatchedUser and nothing of the other user is cached.",
              "the redirect carries the code and the request's own state")
    b.discovery()
    other = b.success(access_token="at-other-user-1", refresh_token="rt-other-user-1",
                      extra={"id_token": minter.id_token(oid=OTHER_UID, username=OTHER_USERNAME,
                                                         extra={"nonce": NONCE, "name": "Ben Smith"}),
                             "client_info": client_info(OTHER_UID)})
    b.token(other, form=code_form("code-interactive-1"))
    b.jwks()
    b.cite("other-user", {"notes": f"SYNTHETIC: a second user {OTHER_UID} ({OTHER_USERNAME}) of the tenant; its ID token is "
                                   "minted with the test key and its client_info names it"})
    out.append(b.document([
        interactive(error={"code": "internal", "internal_code": "internalErrorMismatchedUser"}, requests=4, account=HOME,
                    web_ui=[code_action("code-interactive-1")], expect_authorize=authorize(extra={"login_hint": USERNAME}),
                    expect_cache=cache_state([("at-cached-1", TENANT, TARGET)], [("rt-home-1", None)], [(CLIENT, None)]),
                    expect_accounts=[HOME]),
    ], tenant_setup(standard_cache(minter, at=VALID_AT))))

    # The browser follows the redirect to the real loopback listener.
    b = begin("interactive-loopback-hand-off", "The web UI hands the URL to a browser (returns nil) that then requests the "
              "loopback listener on 127.0.0.1 itself: a stray path (404) and another request's state (400) are turned away "
              "and the listener keeps waiting; the redirect with the request's state gets the success page and ends the "
              "wait; the code it carried is redeemed.",
              "the scripted browser's requests to the loopback listener")
    b.discovery()
    b.token(signed_in_response(b, "at-interactive-1", "rt-interactive-1"), form=code_form("code-interactive-1"))
    b.jwks()
    out.append(b.document([
        interactive(ok("at-interactive-1", "identity_provider"), requests=4,
                    web_ui=[{"action": "hand_off", "deliveries": [
                        {"parameters": {"code": "code-interactive-1"}, "path": "/favicon.ico"},
                        {"parameters": {"code": "code-stolen-1"}, "state": "state-of-another-request"},
                        {"parameters": {"code": "code-interactive-1"}}]}],
                    expect_deliveries=[{"status": 404}, {"status": 400}, {"status": 200, "body_contains": "Sign-in complete"}],
                    expect_authorize=authorize(), expect_cache=signed_in_cache, expect_accounts=[HOME]),
    ], tenant_setup()))

    b = begin("interactive-loopback-access-denied", "The browser brings error=access_denied to the loopback listener: the "
              "failure page (200) names the error, and the request fails with userCanceled.",
              "the scripted browser's request to the loopback listener, its text modeled on Entra's AADSTS65004 message")
    b.discovery()
    out.append(b.document([
        interactive(error={"code": "userCanceled", "internal_code": "internalErrorAuthorizationFailed", "oauth_error": "access_denied"},
                    requests=2,
                    web_ui=[{"action": "hand_off", "deliveries": [
                        {"parameters": {"error": "access_denied",
                                        "error_description": "AADSTS65004: User declined to consent to access the app."}}]}],
                    expect_deliveries=[{"status": 200, "body_contains": "access_denied"}],
                    expect_authorize=authorize(), expect_cache=EMPTY_CACHE_STATE, expect_accounts=[]),
    ], tenant_setup()))

    # The token response fails verification: nothing cached.
    def bad_response(name: str, description: str, id_token_value: str | None, error: dict, requests: int) -> None:
        b = begin(name, description, "the redirect carries the code and the request's own state")
        b.discovery()
        response = b.success(access_token="at-interactive-1", refresh_token="rt-interactive-1")
        if id_token_value is None:
            del response["body"]["id_token"]
        else:
            response["body"]["id_token"] = id_token_value
        b.token(response, form=code_form("code-interactive-1"))
        if id_token_value is not None:
            b.jwks()
        out.append(b.document([
            interactive(error=error, requests=requests, web_ui=[code_action("code-interactive-1")],
                        expect_authorize=authorize(), expect_cache=EMPTY_CACHE_STATE, expect_accounts=[]),
        ], tenant_setup()))

    bad_response("interactive-id-token-nonce-mismatch", "The ID token carries another request's nonce: idTokenNonceMismatch, "
                 "nothing cached.", minter.id_token(extra={"nonce": "nonce-of-another-request"}),
                 {"code": "internal", "internal_code": "idTokenNonceMismatch"}, 4)
    bad_response("interactive-id-token-without-nonce", "The ID token has no nonce although one was sent: "
                 "idTokenNonceMismatch, nothing cached.", minter.id_token(),
                 {"code": "internal", "internal_code": "idTokenNonceMismatch"}, 4)
    head, payload, signature = id_token().split(".")
    flipped = signature[:20] + ("A" if signature[20] != "A" else "B") + signature[21:]
    bad_response("interactive-id-token-bad-signature", "The ID token's signature does not verify with the tenant's keys (one "
                 "character of it changed; its kid is known, so the keys are not fetched again): jwtInvalidSignature, "
                 "nothing cached.", f"{head}.{payload}.{flipped}",
                 {"code": "internal", "internal_code": "jwtInvalidSignature"}, 4)
    bad_response("interactive-no-id-token", "The code redemption's answer has no ID token, so the sign-in cannot be "
                 "verified: invalidResponse, nothing cached (and no keys fetched).", None,
                 {"code": "internal", "internal_code": "internalErrorInvalidResponse"}, 3)

    b = begin("interactive-code-redemption-invalid-grant", "The token endpoint rejects the code (invalid_grant, expired): "
              "interactionRequired/invalidGrant with the HTTP status, nothing cached.",
              "the redirect carries the code and the request's own state")
    b.discovery()
    b.token(b.reference_response("errors/dotnet_invalid_grant.json", "invalid_grant body, verbatim"),
            form=code_form("code-interactive-1"))
    out.append(b.document([
        interactive(error={"code": "interactionRequired", "internal_code": "internalErrorInvalidGrant", "oauth_error": "invalid_grant",
                           "http_status": 400}, requests=3, web_ui=[code_action("code-interactive-1")],
                    expect_authorize=authorize(), expect_cache=EMPTY_CACHE_STATE, expect_accounts=[]),
    ], tenant_setup()))

    b = begin("interactive-code-redemption-5xx-not-retried", "The token endpoint answers the code redemption with 503: a "
              "code is single-use, so it is not sent again (unlike a refresh): an internal error (internalErrorUnhandledResponse) "
              "after one token request.",
              "the redirect carries the code and the request's own state")
    b.discovery()
    failure = b.reference_response("errors/dotnet_5xx_server_error.json", "5xx body, verbatim; the optional Retry-After header left out")
    failure.pop("headers", None)
    b.token(failure, form=code_form("code-interactive-1"))
    out.append(b.document([
        interactive(error={"code": "internal", "internal_code": "internalErrorUnhandledResponse", "http_status": failure["status"]}, requests=3, expect_sleeps=[],
                    web_ui=[code_action("code-interactive-1")], expect_authorize=authorize(),
                    expect_cache=EMPTY_CACHE_STATE, expect_accounts=[]),
    ], tenant_setup()))
    return out


# --------------------------------------------------------------------------- main


def render(doc: dict) -> str:
    return json.dumps(doc, indent=2, ensure_ascii=False) + "\n"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--reference", type=Path, default=DEFAULT_REFERENCE, help="the shared reference collection")
    parser.add_argument("--check-only", action="store_true", help="fail when a file on disk differs from what would be written")
    args = parser.parse_args()

    ref = Reference(args.reference)
    minter = Minter()
    docs = scenarios(ref, minter)
    names = [d["name"] for d in docs]
    assert len(names) == len(set(names)), "duplicate scenario names"
    stale = []
    OUT.mkdir(parents=True, exist_ok=True)
    for doc in docs:
        path = OUT / f"{doc['name']}.json"
        text = render(doc)
        if args.check_only:
            if not path.exists() or path.read_text() != text:
                stale.append(path.name)
        else:
            path.write_text(text)
    extra = sorted(p.name for p in OUT.glob("*.json") if p.stem not in names)
    if args.check_only:
        if stale or extra:
            print("stale:", ", ".join(stale), "unexpected:", ", ".join(extra))
            return 1
        print(f"OK ({len(docs)} scenarios)")
        return 0
    for name in extra:
        (OUT / name).unlink()
    print(f"wrote {len(docs)} scenarios to {OUT.relative_to(REPO_ROOT)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
