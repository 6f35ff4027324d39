"""Checks a client assertion the way an identity provider would, with PyJWT and cryptography
(both installed with MSAL for Python), against the certificate it names.

    verify_assertion.py TOKEN_FILE CERTIFICATE_PEM AUDIENCE CLIENT_ID

Prints one JSON object: the verified header and claims, and the certificate's thumbprints and
base64 DER as cryptography computes them. Exits non-zero when the signature or a claim fails.
"""
import base64
import json
import sys

import jwt
from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization


def b64url(data):
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode("ascii")


def main(token_file, certificate_file, audience, client_id):
    with open(token_file, encoding="ascii") as handle:
        token = handle.read().strip()
    with open(certificate_file, "rb") as handle:
        certificate = x509.load_pem_x509_certificate(handle.read())
    header = jwt.get_unverified_header(token)
    claims = jwt.decode(
        token,
        key=certificate.public_key(),
        algorithms=[header["alg"]],
        audience=audience,
        issuer=client_id,
        options={"require": ["exp", "nbf", "iat", "jti", "aud", "iss", "sub"]},
    )
    der = certificate.public_bytes(serialization.Encoding.DER)
    print(json.dumps({
        "header": header,
        "claims": claims,
        "x5t#S256": b64url(certificate.fingerprint(hashes.SHA256())),
        "x5t": b64url(certificate.fingerprint(hashes.SHA1())),
        "der_base64": base64.b64encode(der).decode("ascii"),
    }))


if __name__ == "__main__":
    main(*sys.argv[1:])
