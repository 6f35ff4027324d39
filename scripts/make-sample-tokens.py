#!/usr/bin/env python3
"""Generate the signed sample tokens and key material in Fixtures/Samples/.

Requires Python 3.11+ and the `cryptography` package.

Usage:
    python3 scripts/make-sample-tokens.py               # (re)write tokens, reuse existing keys
    python3 scripts/make-sample-tokens.py --new-keys    # also replace the key pairs
    python3 scripts/make-sample-tokens.py --check-only  # only verify what is on disk

Keys are created on the first run and reused afterwards, so the JWKS stays stable
across runs. ES256/ES384/PS256 signatures are randomised, so those tokens change on
every run; RS256 is deterministic for a given key.

After writing, the script re-reads every output file and checks it independently:
each token is split, decoded and verified against the public key loaded from the
*.pem file on disk (ECDSA signatures must be raw R||S of the right size), and the
JWKS members are compared with the PEM public keys.

All keys produced here are for tests only.
"""

from __future__ import annotations

import argparse
import base64
import json
import sys
from pathlib import Path

from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec, padding, rsa
from cryptography.hazmat.primitives.asymmetric.utils import (
    decode_dss_signature,
    encode_dss_signature,
)

REPO_ROOT = Path(__file__).resolve().parent.parent
DEFAULT_OUT = REPO_ROOT / "Fixtures" / "Samples"

# Claims of every sample ID token; dict order is the serialisation order.
CLAIMS: dict[str, object] = {
    "ver": "2.0",
    "iss": "https://login.microsoftonline.com/9188040d-6c67-4c5b-b112-36a304b66dad/v2.0",
    "sub": "AAAAAAAAAAAAAAAAAAAAAIkzqFVrSaSaFHy782bbtaQ",
    "aud": "6cb04018-a3f5-46a7-b995-940c78f5aef3",
    "exp": 1700003600,
    "iat": 1700000000,
    "nbf": 1700000000,
    "name": "Abe Lincoln",
    "preferred_username": "AbeLi@microsoft.com",
    "oid": "00000000-0000-0000-66f3-3332eca7ea81",
    "tid": "9188040d-6c67-4c5b-b112-36a304b66dad",
    "nonce": "123523",
    "email": "abe@example.com",
    "upn": "AbeLi@microsoft.com",
    "aio": "Df2UVXL1ix!lMCWMSOJBcFatzcGfvFGhjKv8q5g0x732dR5MB5BisvGQO7YWByjd8iQDLq!eGbIDakyp5mnOrcdqHeYSnltepQmRp6AIZ8jY",
}

# Claims of the sample access token: what Microsoft Entra issues (v2.0) to a client calling the
# web API whose client id is the ID tokens' `aud`, for a signed-in user (delegated: `scp`).
ACCESS_CLAIMS: dict[str, object] = {
    "aud": "6cb04018-a3f5-46a7-b995-940c78f5aef3",
    "iss": "https://login.microsoftonline.com/9188040d-6c67-4c5b-b112-36a304b66dad/v2.0",
    "iat": 1700000000,
    "nbf": 1700000000,
    "exp": 1700003600,
    "aio": "AWQAm/8VAAAA2zYXKuFvRpJ3nJyBcqbKXsEsaJ0ih4wXlh8DBSGA1rpbf3r1sPh6oFCGcl0ll4TZ3h2nd1nr5GPjmvZl8gwWY0",
    "azp": "1950a258-227b-4e31-a9cf-717495945fc2",
    "azpacr": "0",
    "name": "Abe Lincoln",
    "oid": "00000000-0000-0000-66f3-3332eca7ea81",
    "preferred_username": "AbeLi@microsoft.com",
    "rh": "0.AVYAaLUeQ8hZ3UunjGc_oBi7k0AYsGz1o6dGuZWUDHj1rvNWAHY.",
    "scp": "access_as_user User.Read",
    "sub": "hJ6m1bNBlDEJ0cWbsmjMkc-RJ7m0Ae0YfsMffzvqD5c",
    "tid": "9188040d-6c67-4c5b-b112-36a304b66dad",
    "uti": "qOBP2JI5v0SjIbDVQ8YKAA",
    "ver": "2.0",
}

CLIENT_INFO: dict[str, str] = {
    "uid": "00000000-0000-0000-66f3-3332eca7ea81",
    "utid": "9188040d-6c67-4c5b-b112-36a304b66dad",
}

OCT_ENTRY = {"kty": "oct", "kid": "sample-oct", "k": "c2VjcmV0"}

KID_RSA = "sample-rsa-2048"
KID_P256 = "sample-ec-p256"
KID_P384 = "sample-ec-p384"

# (key file stem, kid, JWS alg, output file)
TOKENS = [
    ("rsa-2048", KID_RSA, "RS256", "id-token-rs256.jwt"),
    ("ec-p256", KID_P256, "ES256", "id-token-es256.jwt"),
    ("ec-p384", KID_P384, "ES384", "id-token-es384.jwt"),
    ("rsa-2048", KID_RSA, "PS256", "id-token-ps256.jwt"),
]

# (key file stem, kid, JWS alg, output file) of the access tokens (ACCESS_CLAIMS).
ACCESS_TOKENS = [
    ("rsa-2048", KID_RSA, "RS256", "access-token-rs256.jwt"),
]

HASHES = {"256": hashes.SHA256, "384": hashes.SHA384, "512": hashes.SHA512}
EC_COORD_SIZE = {"P-256": 32, "P-384": 48}
EC_ALG_SIZE = {"ES256": 32, "ES384": 48}
PSS_SALT_LENGTH = 32


# --------------------------------------------------------------------------- helpers

def b64u(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode("ascii")


def b64u_decode(text: str) -> bytes:
    if "=" in text or "+" in text or "/" in text:
        raise ValueError(f"not unpadded base64url: {text[:20]}...")
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


def compact_json(obj: object) -> bytes:
    return json.dumps(obj, separators=(",", ":"), ensure_ascii=False).encode("utf-8")


def int_to_bytes(value: int, length: int | None = None) -> bytes:
    if length is None:
        length = max(1, (value.bit_length() + 7) // 8)  # minimal, no leading zero byte
    return value.to_bytes(length, "big")


def write_text(path: Path, text: str) -> None:
    path.write_text(text, encoding="utf-8", newline="\n")


# --------------------------------------------------------------------------- keys

def load_or_create_keys(out: Path, new_keys: bool) -> dict[str, object]:
    specs = {
        "rsa-2048": lambda: rsa.generate_private_key(public_exponent=65537, key_size=2048),
        "ec-p256": lambda: ec.generate_private_key(ec.SECP256R1()),
        "ec-p384": lambda: ec.generate_private_key(ec.SECP384R1()),
    }
    keys: dict[str, object] = {}
    for stem, make in specs.items():
        priv_path = out / f"{stem}-private.pem"
        pub_path = out / f"{stem}-public.pem"
        if priv_path.exists() and not new_keys:
            key = serialization.load_pem_private_key(priv_path.read_bytes(), password=None)
        else:
            key = make()
            priv_path.write_bytes(
                key.private_bytes(
                    serialization.Encoding.PEM,
                    serialization.PrivateFormat.PKCS8,
                    serialization.NoEncryption(),
                )
            )
        # Always (re)write the public half from the private key so the pair matches.
        pub_path.write_bytes(
            key.public_key().public_bytes(
                serialization.Encoding.PEM,
                serialization.PublicFormat.SubjectPublicKeyInfo,
            )
        )
        keys[stem] = key
    return keys


def rsa_jwk(pub: rsa.RSAPublicKey, kid: str, alg: str | None) -> dict[str, str]:
    nums = pub.public_numbers()
    jwk = {"kty": "RSA", "kid": kid, "use": "sig"}
    if alg is not None:
        jwk["alg"] = alg
    jwk["n"] = b64u(int_to_bytes(nums.n))
    jwk["e"] = b64u(int_to_bytes(nums.e))
    return jwk


def ec_jwk(pub: ec.EllipticCurvePublicKey, kid: str, alg: str) -> dict[str, str]:
    crv = {"secp256r1": "P-256", "secp384r1": "P-384"}[pub.curve.name]
    size = EC_COORD_SIZE[crv]
    nums = pub.public_numbers()
    return {
        "kty": "EC",
        "kid": kid,
        "use": "sig",
        "alg": alg,
        "crv": crv,
        "x": b64u(int_to_bytes(nums.x, size)),
        "y": b64u(int_to_bytes(nums.y, size)),
    }


# --------------------------------------------------------------------------- signing

def sign(key: object, alg: str, signing_input: bytes) -> bytes:
    digest = HASHES[alg[2:]]()
    if alg.startswith("RS"):
        return key.sign(signing_input, padding.PKCS1v15(), digest)
    if alg.startswith("PS"):
        pss = padding.PSS(mgf=padding.MGF1(HASHES[alg[2:]]()), salt_length=PSS_SALT_LENGTH)
        return key.sign(signing_input, pss, digest)
    if alg.startswith("ES"):
        der = key.sign(signing_input, ec.ECDSA(digest))
        r, s = decode_dss_signature(der)
        size = EC_ALG_SIZE[alg]
        return int_to_bytes(r, size) + int_to_bytes(s, size)
    raise ValueError(alg)


def make_token(key: object, alg: str, kid: str, claims: dict[str, object] = CLAIMS) -> str:
    header = {"alg": alg, "kid": kid, "typ": "JWT"}
    signing_input = f"{b64u(compact_json(header))}.{b64u(compact_json(claims))}"
    signature = sign(key, alg, signing_input.encode("ascii"))
    return f"{signing_input}.{b64u(signature)}"


def generate(out: Path, new_keys: bool) -> None:
    out.mkdir(parents=True, exist_ok=True)
    keys = load_or_create_keys(out, new_keys)

    jwks = {
        "keys": [
            rsa_jwk(keys["rsa-2048"].public_key(), KID_RSA, "RS256"),
            ec_jwk(keys["ec-p256"].public_key(), KID_P256, "ES256"),
            ec_jwk(keys["ec-p384"].public_key(), KID_P384, "ES384"),
            dict(OCT_ENTRY),
        ]
    }
    write_text(out / "jwks.json", json.dumps(jwks, indent=2) + "\n")

    noalg = {"keys": [rsa_jwk(keys["rsa-2048"].public_key(), KID_RSA, None)]}
    write_text(out / "jwks-rsa-noalg.json", json.dumps(noalg, indent=2) + "\n")

    for stem, kid, alg, filename in TOKENS:
        write_text(out / filename, make_token(keys[stem], alg, kid) + "\n")
    for stem, kid, alg, filename in ACCESS_TOKENS:
        write_text(out / filename, make_token(keys[stem], alg, kid, ACCESS_CLAIMS) + "\n")

    write_text(out / "client-info.txt", b64u(compact_json(CLIENT_INFO)) + "\n")


# --------------------------------------------------------------------------- checks

def load_public(out: Path, stem: str) -> object:
    return serialization.load_pem_public_key((out / f"{stem}-public.pem").read_bytes())


def verify_signature(pub: object, alg: str, signing_input: bytes, sig: bytes) -> None:
    digest = HASHES[alg[2:]]()
    if alg.startswith("RS"):
        assert len(sig) == pub.key_size // 8, f"{alg}: signature length {len(sig)}"
        pub.verify(sig, signing_input, padding.PKCS1v15(), digest)
    elif alg.startswith("PS"):
        assert len(sig) == pub.key_size // 8, f"{alg}: signature length {len(sig)}"
        pss = padding.PSS(mgf=padding.MGF1(HASHES[alg[2:]]()), salt_length=PSS_SALT_LENGTH)
        pub.verify(sig, signing_input, pss, digest)
        # A PSS signature must not pass as PKCS#1 v1.5.
        try:
            pub.verify(sig, signing_input, padding.PKCS1v15(), HASHES[alg[2:]]())
        except InvalidSignature:
            pass
        else:
            raise AssertionError("PS256 signature verified as PKCS#1 v1.5")
    elif alg.startswith("ES"):
        size = EC_ALG_SIZE[alg]
        assert len(sig) == 2 * size, f"{alg}: R||S length {len(sig)} != {2 * size}"
        r = int.from_bytes(sig[:size], "big")
        s = int.from_bytes(sig[size:], "big")
        pub.verify(encode_dss_signature(r, s), signing_input, ec.ECDSA(digest))
    else:
        raise AssertionError(f"unexpected alg {alg}")


def check(out: Path) -> None:
    pubs = {stem: load_public(out, stem) for stem in ("rsa-2048", "ec-p256", "ec-p384")}

    # Private PEMs are PKCS#8 and match the public PEMs.
    for stem, pub in pubs.items():
        pem = (out / f"{stem}-private.pem").read_bytes()
        assert pem.startswith(b"-----BEGIN PRIVATE KEY-----"), f"{stem}: not PKCS#8"
        priv = serialization.load_pem_private_key(pem, password=None)
        assert priv.public_key().public_numbers() == pub.public_numbers(), stem
        assert (out / f"{stem}-public.pem").read_bytes().startswith(b"-----BEGIN PUBLIC KEY-----")
    assert pubs["rsa-2048"].key_size == 2048
    print("OK  key files (PKCS#8 private, SubjectPublicKeyInfo public, pairs match)")

    # JWKS members agree with the PEMs.
    jwks = json.loads((out / "jwks.json").read_text(encoding="utf-8"))
    entries = {k["kid"]: k for k in jwks["keys"]}
    assert [k["kid"] for k in jwks["keys"]] == [KID_RSA, KID_P256, KID_P384, "sample-oct"]
    rsa_entry = entries[KID_RSA]
    n_bytes = b64u_decode(rsa_entry["n"])
    assert n_bytes[0] != 0, "n has a leading zero byte"
    assert len(n_bytes) == 256
    nums = pubs["rsa-2048"].public_numbers()
    assert int.from_bytes(n_bytes, "big") == nums.n
    assert int.from_bytes(b64u_decode(rsa_entry["e"]), "big") == nums.e
    assert (rsa_entry["kty"], rsa_entry["alg"], rsa_entry["use"]) == ("RSA", "RS256", "sig")
    for kid, stem, crv, alg in ((KID_P256, "ec-p256", "P-256", "ES256"),
                                (KID_P384, "ec-p384", "P-384", "ES384")):
        e = entries[kid]
        size = EC_COORD_SIZE[crv]
        x, y = b64u_decode(e["x"]), b64u_decode(e["y"])
        assert len(x) == size and len(y) == size, f"{kid}: coordinate length"
        nums = pubs[stem].public_numbers()
        assert (int.from_bytes(x, "big"), int.from_bytes(y, "big")) == (nums.x, nums.y)
        assert (e["kty"], e["crv"], e["alg"], e["use"]) == ("EC", crv, alg, "sig")
    assert entries["sample-oct"] == OCT_ENTRY
    noalg = json.loads((out / "jwks-rsa-noalg.json").read_text(encoding="utf-8"))
    assert len(noalg["keys"]) == 1 and "alg" not in noalg["keys"][0]
    assert {k: v for k, v in rsa_entry.items() if k != "alg"} == noalg["keys"][0]
    print("OK  jwks.json / jwks-rsa-noalg.json match the public PEMs")

    # Tokens.
    for (stem, kid, alg, filename), claims in [(t, CLAIMS) for t in TOKENS] + [(t, ACCESS_CLAIMS) for t in ACCESS_TOKENS]:
        raw = (out / filename).read_bytes()
        assert raw.endswith(b"\n") and raw.count(b"\n") == 1, f"{filename}: newline"
        token = raw[:-1].decode("ascii")
        parts = token.split(".")
        assert len(parts) == 3, f"{filename}: not compact JWS"
        header_bytes, payload_bytes, sig = (b64u_decode(p) for p in parts)
        header = json.loads(header_bytes)
        assert list(header.items()) == [("alg", alg), ("kid", kid), ("typ", "JWT")], header
        assert payload_bytes == compact_json(claims), f"{filename}: payload differs"
        assert list(json.loads(payload_bytes)) == list(claims), f"{filename}: member order"
        verify_signature(pubs[stem], alg, f"{parts[0]}.{parts[1]}".encode("ascii"), sig)
        print(f"OK  {filename}  ({alg}, kid {kid}, signature {len(sig)} bytes)")

    raw = (out / "client-info.txt").read_bytes()
    assert raw.endswith(b"\n") and raw.count(b"\n") == 1
    assert json.loads(b64u_decode(raw[:-1].decode("ascii"))) == CLIENT_INFO
    print("OK  client-info.txt")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT, help="output directory")
    parser.add_argument("--new-keys", action="store_true", help="replace existing key pairs")
    parser.add_argument("--check-only", action="store_true", help="verify files on disk only")
    args = parser.parse_args()

    if not args.check_only:
        generate(args.out, args.new_keys)
        print(f"wrote {args.out}")
    check(args.out)
    print("OK")
    return 0


if __name__ == "__main__":
    sys.exit(main())
