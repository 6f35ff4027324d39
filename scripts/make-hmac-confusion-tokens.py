#!/usr/bin/env python3
"""Write HS256 tokens keyed with the bytes of the sample RSA *public* key.

This is the classic algorithm-confusion forgery: a verifier that takes `alg`
from the header and feeds "the key" to HMAC would accept these tokens, since
anyone can compute them from the published public key. swift-msal must refuse
them with `unsupported_algorithm` before touching any key.

Requires Python 3.11+ and the `cryptography` package. Run from the repository root:

    python3 scripts/make-hmac-confusion-tokens.py

Inputs:  Fixtures/Samples/rsa-2048-public.pem, Fixtures/Samples/id-token-rs256.jwt (payload reused)
Outputs: Fixtures/BadInputs/hs256-keyed-with-*.jwt (one token plus a newline each)

HMAC output is deterministic, so re-running produces identical files while the
sample key does not change. The script re-checks each written token with `hmac`.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import json
from pathlib import Path

from cryptography.hazmat.primitives import serialization

REPO_ROOT = Path(__file__).resolve().parent.parent
SAMPLES = REPO_ROOT / "Fixtures" / "Samples"
OUT = REPO_ROOT / "Fixtures" / "BadInputs"


def b64url(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode("ascii")


def main() -> None:
    pem = (SAMPLES / "rsa-2048-public.pem").read_bytes()
    public_key = serialization.load_pem_public_key(pem)
    numbers = public_key.public_numbers()
    n_bytes = numbers.n.to_bytes((numbers.n.bit_length() + 7) // 8, "big")
    secrets = {
        "pem": pem,
        "spki-der": public_key.public_bytes(serialization.Encoding.DER, serialization.PublicFormat.SubjectPublicKeyInfo),
        "pkcs1-der": public_key.public_bytes(serialization.Encoding.DER, serialization.PublicFormat.PKCS1),
        "modulus": n_bytes,
    }
    payload_segment = (SAMPLES / "id-token-rs256.jwt").read_text().strip().split(".")[1]
    header = {"alg": "HS256", "kid": "sample-rsa-2048", "typ": "JWT"}
    header_segment = b64url(json.dumps(header, separators=(",", ":")).encode())
    OUT.mkdir(parents=True, exist_ok=True)
    for name, secret in secrets.items():
        signing_input = f"{header_segment}.{payload_segment}".encode("ascii")
        mac = hmac.new(secret, signing_input, hashlib.sha256).digest()
        path = OUT / f"hs256-keyed-with-{name}.jwt"
        path.write_text(f"{signing_input.decode()}.{b64url(mac)}\n")
        # Re-check what is on disk.
        h, p, s = path.read_text().strip().split(".")
        padded = s + "=" * (-len(s) % 4)
        expected = hmac.new(secret, f"{h}.{p}".encode(), hashlib.sha256).digest()
        assert hmac.compare_digest(base64.urlsafe_b64decode(padded), expected), name
        assert json.loads(base64.urlsafe_b64decode(h + "=" * (-len(h) % 4)))["alg"] == "HS256"
    print("OK")


if __name__ == "__main__":
    main()
