"""Checks a proof-of-possession proof the way a server would, with PyJWT and cryptography (both
installed with MSAL for Python), from the rules of RFC 9449 and RFC 7638 written here, not from
swift-msal's code.

    verify_proof.py dpop PROOF_FILE METHOD URL ACCESS_TOKEN_FILE|- NONCE|-
    verify_proof.py shr SHR_FILE

dpop: a DPoP proof (RFC 9449 section 4.3): typ dpop+jwt, an asymmetric alg, a public jwk without
private members that verifies the signature, htm equal to METHOD, htu equal to URL without its
query and fragment (scheme and host in lower case, no default port, an empty path as /), iat
within a minute of now, a jti of at least 96 bits, ath the hash of the access token when one is
given, the nonce when one is given.

shr: MSAL's signed HTTP request: typ pop, RS256, kid the RFC 7638 thumbprint of cnf.jwk, which
verifies the signature; at, ts, m, u, p and nonce present.

Prints one JSON object: the verified header and claims and the key's thumbprint as computed here.
Exits non-zero, naming the rule, when a check fails.
"""
import base64
import hashlib
import json
import sys
import time
from urllib.parse import urlsplit

import jwt

ASYMMETRIC = {"RS256", "RS384", "RS512", "PS256", "PS384", "PS512", "ES256", "ES384", "ES512", "EdDSA"}
PRIVATE_MEMBERS = {"d", "p", "q", "dp", "dq", "qi", "oth", "k"}
REQUIRED_MEMBERS = {"RSA": ("e", "kty", "n"), "EC": ("crv", "kty", "x", "y"), "OKP": ("crv", "kty", "x")}


def b64url(data):
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode("ascii")


def b64url_decode(text):
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


def fail(rule):
    print(json.dumps({"error": rule}))
    sys.exit(1)


def thumbprint(jwk):
    """RFC 7638: the required members, sorted, no whitespace, SHA-256, base64url."""
    members = REQUIRED_MEMBERS.get(jwk.get("kty"))
    if members is None or any(name not in jwk for name in members):
        fail("the jwk lacks a required member for a thumbprint")
    canonical = json.dumps({name: jwk[name] for name in members}, separators=(",", ":"), sort_keys=True)
    return b64url(hashlib.sha256(canonical.encode("utf-8")).digest())


def verified(token, jwk, algorithm):
    if PRIVATE_MEMBERS & set(jwk):
        fail("the jwk holds private key members")
    try:
        key = jwt.PyJWK(jwk, algorithm=algorithm).key
        return jwt.decode(token, key=key, algorithms=[algorithm], options={"verify_aud": False, "verify_exp": False})
    except jwt.PyJWTError as error:
        fail(f"the signature does not verify with the jwk: {error}")


def normalized_target(url):
    parts = urlsplit(url)
    scheme = parts.scheme.lower()
    host = (parts.hostname or "").lower()
    port = parts.port
    default = {"https": 443, "http": 80}.get(scheme)
    authority = host if port is None or port == default else f"{host}:{port}"
    return f"{scheme}://{authority}{parts.path or '/'}"


def read(path):
    with open(path, encoding="ascii") as handle:
        return handle.read().strip()


def dpop(proof_file, method, url, token_file, nonce):
    proof = read(proof_file)
    header = jwt.get_unverified_header(proof)
    if header.get("typ") != "dpop+jwt":
        fail("typ is not dpop+jwt")
    if header.get("alg") not in ASYMMETRIC:
        fail("alg is not an asymmetric signature algorithm")
    jwk = header.get("jwk")
    if not isinstance(jwk, dict):
        fail("no jwk header")
    claims = verified(proof, jwk, header["alg"])
    for name in ("jti", "htm", "htu", "iat"):
        if name not in claims:
            fail(f"no {name} claim")
    if len(b64url_decode(claims["jti"])) < 12:
        fail("jti has fewer than 96 bits")
    if claims["htm"] != method:
        fail("htm is not the request's method")
    if claims["htu"] != normalized_target(url):
        fail("htu is not the request's target URI")
    if not isinstance(claims["iat"], int) or abs(time.time() - claims["iat"]) > 60:
        fail("iat is outside the window")
    if token_file != "-":
        expected = b64url(hashlib.sha256(read(token_file).encode("ascii")).digest())
        if claims.get("ath") != expected:
            fail("ath is not the access token's hash")
    elif "ath" in claims:
        fail("ath without an access token")
    if nonce != "-":
        if claims.get("nonce") != nonce:
            fail("nonce is not the server's")
    elif "nonce" in claims:
        fail("nonce without a server nonce")
    return {"header": header, "claims": claims, "jkt": thumbprint(jwk)}


def shr(shr_file):
    token = read(shr_file)
    header = jwt.get_unverified_header(token)
    if header.get("typ") != "pop":
        fail("typ is not pop")
    if header.get("alg") != "RS256":
        fail("alg is not RS256")
    unverified = json.loads(b64url_decode(token.split(".")[1]))
    jwk = (unverified.get("cnf") or {}).get("jwk")
    if not isinstance(jwk, dict):
        fail("no cnf.jwk claim")
    if header.get("kid") != thumbprint(jwk):
        fail("kid is not the thumbprint of cnf.jwk")
    claims = verified(token, jwk, "RS256")
    for name in ("at", "ts", "m", "u", "p", "nonce"):
        if name not in claims:
            fail(f"no {name} claim")
    return {"header": header, "claims": claims, "jkt": thumbprint(jwk)}


if __name__ == "__main__":
    if len(sys.argv) == 7 and sys.argv[1] == "dpop":
        print(json.dumps(dpop(*sys.argv[2:])))
    elif len(sys.argv) == 3 and sys.argv[1] == "shr":
        print(json.dumps(shr(sys.argv[2])))
    else:
        print(__doc__, file=sys.stderr)
        sys.exit(2)
