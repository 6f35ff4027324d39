#!/usr/bin/env python3
"""Write Fixtures/Tutorial/tutorial.json: the identity-platform traffic the MSAL-for-iOS
tutorial's auth code (Tests/TutorialTests) makes on Linux, as a recorded fixture (docs/fixtures.md).

The discovery and metadata bodies are the recorded public-cloud ones already in Fixtures/Authority
(their provenance is in Fixtures/Authority/README.md). The token responses are synthetic: their ID
tokens are signed RS256 with the test-only key Fixtures/Samples/rsa-2048-private.pem (kid
sample-rsa-2048, published in Fixtures/Samples/jwks.json) and carry the fixed nonce the tests'
interactive secrets source uses, so they verify against the JWKS exactly as the SDK checks them.

Requires Python 3.11+ and `cryptography`. Run from the repository root:
    python3 scripts/make-tutorial-fixture.py
"""

from __future__ import annotations

import base64
import json
from pathlib import Path

from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import padding

ROOT = Path(__file__).resolve().parent.parent
CLIENT_ID = "5a434691-ccb2-4fd1-b97b-b64bcfbc03fc"
TENANT = "72f988bf-86f1-41af-91ab-2d7cd011db47"
UID = "6e1a2b3c-4d5e-4f60-8a9b-0c1d2e3f4a5b"
NONCE = "tutorial-nonce"
ISSUED_AT = 1_700_000_000
LIFETIME = 7 * 24 * 3600


def b64url(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def sign(claims: dict) -> str:
    key = serialization.load_pem_private_key((ROOT / "Fixtures/Samples/rsa-2048-private.pem").read_bytes(), password=None)
    header = {"alg": "RS256", "kid": "sample-rsa-2048", "typ": "JWT"}
    signing_input = b64url(json.dumps(header, separators=(",", ":")).encode()) + "." + b64url(
        json.dumps(claims, separators=(",", ":")).encode())
    signature = key.sign(signing_input.encode(), padding.PKCS1v15(), hashes.SHA256())
    return signing_input + "." + b64url(signature)


def id_token(nonce: str | None) -> str:
    claims = {
        "ver": "2.0", "iss": f"https://login.microsoftonline.com/{TENANT}/v2.0", "sub": "tutorial-subject",
        "aud": CLIENT_ID, "exp": ISSUED_AT + LIFETIME, "iat": ISSUED_AT, "nbf": ISSUED_AT, "name": "Tutorial User",
        "preferred_username": "tutorial.user@contoso.example", "oid": UID, "tid": TENANT,
    }
    if nonce is not None:
        claims["nonce"] = nonce
    return sign(claims)


def token_response(access_token: str, nonce: str | None) -> dict:
    client_info = b64url(json.dumps({"uid": UID, "utid": TENANT}, separators=(",", ":")).encode())
    return {
        "token_type": "Bearer", "scope": "https://graph.microsoft.com/User.Read openid profile offline_access",
        "expires_in": 3600, "ext_expires_in": 3600, "access_token": access_token,
        "refresh_token": "tutorial-refresh-token", "id_token": id_token(nonce), "client_info": client_info,
    }


def main() -> None:
    discovery = json.loads((ROOT / "Fixtures/Authority/instance_discovery_common.json").read_text())
    common = json.loads((ROOT / "Fixtures/Authority/openid_configuration_common.json").read_text())
    tenant = json.loads(json.dumps(common).replace("/common/", f"/{TENANT}/").replace("{tenantid}", TENANT))
    jwks = json.loads((ROOT / "Fixtures/Samples/jwks.json").read_text())
    host = "https://login.microsoftonline.com"

    def get(url: str, body: dict) -> dict:
        return {"request": {"method": "GET", "url": url}, "response": {"status": 200, "body": body}, "repeatable": True}

    def token(grant: str, status: int, body: dict) -> dict:
        return {
            "request": {"method": "POST", "url": f"{host}/common/oauth2/v2.0/token" if grant == "authorization_code"
                        else f"{host}/{TENANT}/oauth2/v2.0/token",
                        "form": {"grant_type": grant, "client_id": CLIENT_ID}},
            "response": {"status": status, "body": body},
        }

    fixture = {
        "name": "tutorial",
        "description": "The MSAL-for-iOS tutorial's auth code on Linux: interactive sign-in through /common, a silent cache hit, "
                       "an expired token whose refresh is rejected (invalid_grant), the interactive fallback, and sign-out.",
        "provenance": [
            {"path": "Fixtures/Authority/instance_discovery_common.json", "notes": "instance discovery body, recorded (see Fixtures/Authority/README.md)"},
            {"path": "Fixtures/Authority/openid_configuration_common.json", "notes": "common metadata, recorded; the tenant metadata is the same document with the tenant id put in, synthetic"},
            {"path": "scripts/make-tutorial-fixture.py", "notes": "token responses synthetic; ID tokens signed with the test-only sample RSA key and the fixed test nonce"},
        ],
        "interactions": [
            get(f"{host}/common/discovery/instance?api-version=1.1&authorization_endpoint={host}/common/oauth2/v2.0/authorize", discovery),
            get(f"{host}/common/discovery/instance?api-version=1.1&authorization_endpoint={host}/{TENANT}/oauth2/v2.0/authorize", discovery),
            get(f"{host}/common/v2.0/.well-known/openid-configuration", common),
            get(f"{host}/{TENANT}/v2.0/.well-known/openid-configuration", tenant),
            get(f"{host}/common/discovery/v2.0/keys", jwks),
            get(f"{host}/{TENANT}/discovery/v2.0/keys", jwks),
            token("authorization_code", 200, token_response("tutorial-access-token-1", NONCE)),
            token("refresh_token", 400, {
                "error": "invalid_grant", "error_description": "AADSTS700082: The refresh token has expired due to inactivity.",
                "error_codes": [700082], "suberror": "bad_token", "correlation_id": "00000000-0000-0000-0000-000000000000"}),
            token("authorization_code", 200, token_response("tutorial-access-token-2", NONCE)),
        ],
        "conformance": {"client_id": CLIENT_ID, "tenant": TENANT, "home_account_id": f"{UID}.{TENANT}", "nonce": NONCE,
                        "now": ISSUED_AT + 1000, "username": "tutorial.user@contoso.example"},
    }
    out = ROOT / "Fixtures/Tutorial/tutorial.json"
    out.write_text(json.dumps(fixture, indent=2) + "\n")
    print("wrote", out.relative_to(ROOT))


if __name__ == "__main__":
    main()
