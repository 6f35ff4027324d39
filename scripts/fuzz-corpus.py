#!/usr/bin/env python3
"""Writes the seed corpora of the fuzz targets (FuzzTesting/) from the repository's fixtures.

    python3 scripts/fuzz-corpus.py [--reference DIR] [--out DIR]

Seeds come from Fixtures/ (conformance recordings, cache documents, sample tokens and keys, the
Wycheproof JWS and JWK files, and the reference responses of Fixtures/FuzzSeeds/), from another
folder of reference responses when one is named (--reference DIR or $MSAL_REFERENCE_DIR), and from
a few hand-written requests and URLs. Nothing outside the repository is read unless named, so a
clone alone writes the same corpus. Each seed is written to FuzzTesting/Corpus/<target>/
under the SHA-1 of its bytes, so running the script again only adds what is missing and the
inputs libFuzzer added to the same folders stay. Nothing here is committed: the corpora are
generated on every machine (scripts/fuzz.sh runs this script first).
"""

import argparse
import base64
import hashlib
import json
import os
import sys
from pathlib import Path
from urllib.parse import quote, urlencode

ROOT = Path(__file__).resolve().parent.parent
TARGETS = [
    "FuzzJWS", "FuzzJWKS", "FuzzJSON", "FuzzAuthorityMetadata", "FuzzAuthorityURL",
    "FuzzTokenResponse", "FuzzCacheDocument", "FuzzLoopbackRequest", "FuzzDPoP",
]
# Must match FuzzTesting/Sources/FuzzLoopbackRequest.
LOOPBACK_STATE = "fuzz-state-4711"
LOOPBACK_HOST = "localhost:53123"

seeds = {target: {} for target in TARGETS}


def add(target, data, limit=64 * 1024):
    """Adds one seed (bytes or str) to `target`; seeds over `limit` bytes are left out."""
    if isinstance(data, str):
        data = data.encode("utf-8")
    if not data or len(data) > limit:
        return
    seeds[target][hashlib.sha1(data).hexdigest()] = data


def compact(value):
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False)


def load_json(path):
    try:
        with open(path, "rb") as handle:
            raw = handle.read()
        if raw.startswith(b"\xef\xbb\xbf"):
            raw = raw[3:]
        return json.loads(raw)
    except (OSError, ValueError):
        return None


def body_bytes(response):
    """The body of a recorded response as bytes: `body_text` verbatim, `body` as compact JSON."""
    if not isinstance(response, dict):
        return None
    if "body_text" in response and isinstance(response["body_text"], str):
        return response["body_text"].encode("utf-8")
    if "body" in response:
        body = response["body"]
        return body.encode("utf-8") if isinstance(body, str) else compact(body).encode("utf-8")
    return None


def classify(url, method, body):
    """The targets a recorded response body seeds, by the URL it answered."""
    if body is None:
        return
    url = url or ""
    if "discovery/instance" in url or "openid-configuration" in url:
        add("FuzzAuthorityMetadata", body)
    elif url.endswith("/keys") or "jwks" in url or "discovery/v2.0/keys" in url:
        add("FuzzJWKS", body)
    elif "/token" in url or "devicecode" in url or "deviceauth" in url:
        add("FuzzTokenResponse", body)
        seed_tokens_from_response(body)
    add("FuzzJSON", body, limit=16 * 1024)


def seed_tokens_from_response(body):
    """ID tokens inside token responses seed the JWS target (the conformance ones are signed by the sample key)."""
    try:
        value = json.loads(body)
    except ValueError:
        return
    if isinstance(value, dict) and isinstance(value.get("id_token"), str):
        add("FuzzJWS", value["id_token"])


def walk_interactions(document):
    """Request/response pairs in a conformance fixture or a recorded-live reference file."""
    if not isinstance(document, dict):
        return
    for interaction in document.get("interactions", []) or []:
        request = interaction.get("request", {}) or {}
        yield request.get("url"), request.get("method"), interaction.get("response")
    for entry in document.get("Entries", []) or []:
        body = entry.get("ResponseBody")
        response = {"body": body} if not isinstance(body, str) else {"body_text": body}
        yield entry.get("RequestUri"), entry.get("RequestMethod"), response


def conformance_fixtures():
    for path in sorted((ROOT / "Fixtures" / "Conformance").rglob("*.json")):
        document = load_json(path)
        if not isinstance(document, dict):
            continue
        for url, method, response in walk_interactions(document):
            classify(url, method, body_bytes(response))
            if url:
                add("FuzzAuthorityURL", url.split("?")[0])
        conformance = document.get("conformance", {}) or {}
        for holder in (conformance.get("input", {}) or {}, conformance.get("setup", {}) or {}):
            if isinstance(holder.get("authority"), str):
                add("FuzzAuthorityURL", holder["authority"])
            for known in holder.get("known_authorities", []) or []:
                if isinstance(known, str):
                    add("FuzzAuthorityURL", known)
            if isinstance(holder.get("cache"), dict):
                add("FuzzCacheDocument", compact(holder["cache"]))
        for step in conformance.get("steps", []) or []:
            for action in step.get("web_ui", []) or []:
                parameters = action.get("parameters")
                if isinstance(parameters, dict):
                    loopback_requests(parameters)


def loopback_requests(parameters):
    """Redirect requests (and captured redirect URLs) carrying `parameters` and the fuzz target's state."""
    query = dict(parameters)
    query["state"] = LOOPBACK_STATE
    encoded = urlencode(query, quote_via=quote)
    add("FuzzLoopbackRequest", f"GET /callback?{encoded} HTTP/1.1\r\nHost: {LOOPBACK_HOST}\r\n\r\n")
    add("FuzzLoopbackRequest", f"http://{LOOPBACK_HOST}/callback?{encoded}")


def handwritten_loopback():
    requests = [
        f"GET /callback?code=abc&state={LOOPBACK_STATE} HTTP/1.1\r\nHost: {LOOPBACK_HOST}\r\nUser-Agent: fuzz\r\n\r\n",
        f"GET /callback?error=access_denied&error_description=The+user+said+%3Cno%3E&error_subcode=cancel&state={LOOPBACK_STATE} "
        f"HTTP/1.1\r\nHost: 127.0.0.1:53123\r\n\r\n",
        f"GET /callback?state={LOOPBACK_STATE} HTTP/1.1\r\nHost: {LOOPBACK_HOST}\r\n\r\n",
        f"GET /callback?code=a&code=b&state={LOOPBACK_STATE} HTTP/1.1\r\nHost: {LOOPBACK_HOST}\r\n\r\n",
        f"GET /callback?code=a&error=b&state={LOOPBACK_STATE} HTTP/1.1\r\nHost: {LOOPBACK_HOST}\r\n\r\n",
        f"GET /callback?code=%ZZ&state={LOOPBACK_STATE} HTTP/1.1\r\nHost: {LOOPBACK_HOST}\r\n\r\n",
        f"GET /callback?code=abc&state=other HTTP/1.1\r\nHost: {LOOPBACK_HOST}\r\n\r\n",
        f"POST /callback?code=abc&state={LOOPBACK_STATE} HTTP/1.1\r\nHost: {LOOPBACK_HOST}\r\nContent-Length: 3\r\n\r\nabc",
        f"GET /other HTTP/1.1\r\nHost: {LOOPBACK_HOST}\r\n\r\n",
        f"GET /callback?code=abc&state={LOOPBACK_STATE} HTTP/1.1\r\nHost: evil.example:53123\r\n\r\n",
        f"GET /callback?code=abc&state={LOOPBACK_STATE} HTTP/1.1\r\nHost: {LOOPBACK_HOST}\r\nHost: {LOOPBACK_HOST}\r\n\r\n",
        f"GET http://{LOOPBACK_HOST}/callback?code=abc&state={LOOPBACK_STATE} HTTP/1.1\r\nHost: {LOOPBACK_HOST}\r\n\r\n",
        f"GET /callback?code=abc&state={LOOPBACK_STATE}#frag HTTP/1.1\r\nHost: {LOOPBACK_HOST}\r\n\r\n",
        f"GET /callback?code=abc&state={LOOPBACK_STATE} HTTP/1.0\r\n\r\n",
        f"GET /callback?code=abc&state={LOOPBACK_STATE} HTTP/1.1\r\nHost: {LOOPBACK_HOST}\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n",
        "\x16\x03\x01\x00\xa5\x01\x00\x00\xa1\x03\x03",
        f"GET /callback?code=abc&state={LOOPBACK_STATE} HTTP/1.1\r\nHost: {LOOPBACK_HOST}\r\n\r\n"
        f"GET /callback?code=def&state={LOOPBACK_STATE} HTTP/1.1\r\nHost: {LOOPBACK_HOST}\r\n\r\n",
    ]
    for request in requests:
        add("FuzzLoopbackRequest", request)
    for uri in [
        "http://localhost", "http://localhost:8400/", "http://127.0.0.1:53123/auth/callback", "http://LOCALHOST/a%20b",
        "https://localhost/", "http://[::1]:8080/", "http://user@localhost/", "http://localhost/./x", "http://localhost/%2e%2e/x",
        f"http://{LOOPBACK_HOST}/callback#code=abc&state={LOOPBACK_STATE}",
        f"msauth.com.example://auth?code=abc&state={LOOPBACK_STATE}",
    ]:
        add("FuzzLoopbackRequest", uri)


def handwritten_authorities():
    for authority in [
        "https://login.microsoftonline.com/common", "https://login.microsoftonline.com/organizations/",
        "https://login.microsoftonline.us/72f988bf-86f1-41af-91ab-2d7cd011db47", "https://LOGIN.microsoftonline.com:443/Contoso.onmicrosoft.com",
        "https://contoso.b2clogin.com/tfp/contoso.onmicrosoft.com/B2C_1_SignIn", "https://contoso.b2clogin.com/contoso.onmicrosoft.com/b2c_1_susi",
        "https://login.contoso.com/tfp/contoso.onmicrosoft.com/B2C_1_SignIn", "https://contoso.ciamlogin.com", "https://contoso.ciamlogin.com/contoso.onmicrosoft.com",
        "https://fs.contoso.com/adfs/", "https://issuer.example.com/tenant/v2.0/", "http://127.0.0.1:8443/common", "http://localhost/common",
        "http://[::1]:8443/common", "https://[::1]/common", "https://login.microsoftonline.com:8443/common", "https://user@login.microsoftonline.com/common",
        "https://login.microsoftonline.com/common?x=1", "https://login.microsoftonline.com/../common", "https://xn--bcher-kva.example/common",
        "https://login.microsoftonline.com\\@evil.com/common", "https://login.microsoftonline.com/%63ommon",
    ]:
        add("FuzzAuthorityURL", authority)


def handwritten_dpop():
    """WWW-Authenticate headers (RFC 9449 §7.1 and §9, RFC 6750, RFC 9110's examples) and proof-shaped seeds."""
    for header in [
        'DPoP error="use_dpop_nonce", error_description="Resource server requires nonce in DPoP proof"',
        'DPoP algs="ES256 PS256"', 'Bearer realm="example", DPoP algs="ES256", error="invalid_dpop_proof"',
        'Bearer realm="apps", error="invalid_token", error_description="The access token expired"',
        'Newauth realm="apps", type=1, title="Login to \\"apps\\"", Basic realm="simple"',
        'Basic dXNlcjpwYXNz==, DPoP error=use_dpop_nonce', 'DPoP error="use_dpop_nonce', 'dpop ERROR="use_dpop_nonce"',
        ', ,DPoP  error = "use_dpop_nonce" ,', 'DPoP error="a\\"b", nonce=x',
    ]:
        add("FuzzDPoP", header)
    # RFC 9449 §4.1's example proof (ES256, an htu of https://server.example.com/token), and it with the URI line.
    example = (
        "eyJ0eXAiOiJkcG9wK2p3dCIsImFsZyI6IkVTMjU2IiwiandrIjp7Imt0eSI6IkVDIiwieCI6Imw4dEZyaHgtMzR0VjNoUklDUkRZOXpDa0RscEJoRjQyVVFVZldWQVdCRnMiLCJ5IjoiOVZFNGpmX09rX282NHpiVFRsY3VOSmFqSG10NnY5VERWclUwQ2R2R1JEQSIsImNydiI6IlAtMjU2In19"
        ".eyJqdGkiOiItQndDM0VTYzZhY2MybFRjIiwiaHRtIjoiUE9TVCIsImh0dSI6Imh0dHBzOi8vc2VydmVyLmV4YW1wbGUuY29tL3Rva2VuIiwiaWF0IjoxNTYyMjYyNjE2fQ"
        ".2-GxA6T8lP4vfrg8v-FdWP0A0zdrj8igiMLvqRMUvwnQg4PtFLbdLXiOSsX0x7NVY-FNyJK70nfbV37xRZT3Lg"
    )
    add("FuzzDPoP", example)
    add("FuzzDPoP", example + "\nhttps://server.example.com/token")
    for uri in ["https://Server.Example.COM:443/token?x=1#f", "http://127.0.0.1:80", "https://a.example:8443/p/../q", ""]:
        add("FuzzDPoP", "x.y.z\n" + uri)


def cache_documents():
    for path in sorted((ROOT / "Fixtures" / "Cache").rglob("*.json")):
        add("FuzzCacheDocument", path.read_bytes())
    for path in sorted((ROOT / "Fixtures" / "Tutorial").rglob("*.json")):
        document = load_json(path)
        if isinstance(document, dict) and isinstance(document.get("cache"), dict):
            add("FuzzCacheDocument", compact(document["cache"]))
    add("FuzzCacheDocument", "{}")
    add("FuzzCacheDocument", "\xef\xbb\xbf{\"AccessToken\":{}}".encode("latin-1"))


def samples_and_wycheproof():
    samples = ROOT / "Fixtures" / "Samples"
    jwks = compact(load_json(samples / "jwks.json"))
    add("FuzzJWKS", jwks)
    add("FuzzJWKS", compact(load_json(samples / "jwks-rsa-noalg.json")))
    for token_file in sorted(samples.glob("*.jwt")) + sorted((ROOT / "Fixtures" / "BadInputs").glob("*.jwt")):
        token = token_file.read_text().strip()
        add("FuzzJWS", token)
        add("FuzzJWS", jwks + "\n" + token)
    wycheproof = ROOT / "Fixtures" / "Wycheproof"
    signature_tests = load_json(wycheproof / "json_web_signature_test.json") or {}
    for group in signature_tests.get("testGroups", []):
        key = public_jwk(group.get("private") or group.get("public") or {})
        key_set = compact({"keys": [key]}) if key else None
        if key_set:
            add("FuzzJWKS", key_set)
        for test in group.get("tests", []):
            token = test.get("jws")
            if isinstance(token, str):
                add("FuzzJWS", token)
                if key_set:
                    add("FuzzJWS", key_set + "\n" + token)
    key_tests = load_json(wycheproof / "json_web_key_test.json") or {}
    for group in key_tests.get("testGroups", []):
        for name in ("private", "public", "jwks", "keys"):
            value = group.get(name)
            if isinstance(value, dict):
                add("FuzzJWKS", compact(value if "keys" in value else {"keys": [public_jwk(value) or value]}))
        for test in group.get("tests", []):
            token = test.get("jws")
            if isinstance(token, str):
                add("FuzzJWS", token)


def public_jwk(jwk):
    """A JWK without its private members (the Wycheproof groups carry private keys)."""
    if not isinstance(jwk, dict):
        return None
    return {name: value for name, value in jwk.items() if name not in ("d", "p", "q", "dp", "dq", "qi", "oth")}


def reference_files(reference):
    if reference is None or not reference.is_dir():
        return
    for path in sorted(reference.rglob("*.json")):
        part = path.relative_to(reference).parts[0]
        document = load_json(path)
        if document is None:
            continue
        if part == "cache":
            add("FuzzCacheDocument", path.read_bytes())
            continue
        if part == "wycheproof":
            continue  # the same files as Fixtures/Wycheproof
        responses = []
        if isinstance(document, dict):
            if isinstance(document.get("response"), dict):
                url = (document.get("request") or {}).get("url", "")
                responses.append((url, document["response"]))
            for response in document.get("responses", []) or []:
                if isinstance(response, dict):
                    responses.append(("", response.get("response", response)))
            for url, method, response in walk_interactions(document):
                responses.append((url or "", response))
        for url, response in responses:
            body = body_bytes(response)
            if body is None:
                continue
            target = {
                "instance-discovery": "FuzzAuthorityMetadata", "openid-configuration": "FuzzAuthorityMetadata",
                "token-responses": "FuzzTokenResponse", "errors": "FuzzTokenResponse", "device-code": "FuzzTokenResponse",
                "cae": "FuzzTokenResponse",
            }.get(part)
            if target:
                add(target, body)
                if target == "FuzzTokenResponse":
                    seed_tokens_from_response(body)
            else:
                classify(url, None, body)
            add("FuzzJSON", body, limit=16 * 1024)
        # Verbatim metadata documents (no envelope).
        if part in ("openid-configuration", "instance-discovery") and isinstance(document, dict) and "_provenance" not in document:
            add("FuzzAuthorityMetadata", path.read_bytes())
        if part == "jwt" and isinstance(document, dict) and isinstance(document.get("response"), dict):
            add("FuzzJWKS", body_bytes(document["response"]))
    for path in sorted(reference.rglob("*.txt")):
        text = path.read_text(errors="replace").strip()
        add("FuzzJWS", text)


def combined_metadata():
    """A few `<instance discovery>\\0<OpenID configuration>` pairs from the authority fixtures."""
    for path in sorted((ROOT / "Fixtures" / "Conformance" / "Authority").glob("*.json")):
        document = load_json(path) or {}
        discovery = configuration = None
        for url, method, response in walk_interactions(document):
            if url and "discovery/instance" in url:
                discovery = body_bytes(response)
            elif url and "openid-configuration" in url:
                configuration = body_bytes(response)
        if discovery and configuration:
            add("FuzzAuthorityMetadata", discovery + b"\0" + configuration)
    for path in sorted((ROOT / "Fixtures" / "Authority").glob("*")):
        if path.suffix in (".json", ".txt"):
            add("FuzzAuthorityMetadata", path.read_bytes())


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    default_reference = os.environ.get("MSAL_REFERENCE_DIR") or str(ROOT / "Fixtures" / "FuzzSeeds")
    parser.add_argument(
        "--reference", default=default_reference,
        help="a folder of reference responses laid out as Fixtures/FuzzSeeds (the default)")
    parser.add_argument("--out", default=str(ROOT / "FuzzTesting" / "Corpus"))
    arguments = parser.parse_args()

    conformance_fixtures()
    handwritten_loopback()
    handwritten_authorities()
    handwritten_dpop()
    cache_documents()
    samples_and_wycheproof()
    combined_metadata()
    reference_files(Path(arguments.reference))
    # Every JSON seed of the other targets is JSON seed material too.
    for target in ("FuzzJWKS", "FuzzAuthorityMetadata", "FuzzTokenResponse"):
        for data in list(seeds[target].values()):
            add("FuzzJSON", data, limit=16 * 1024)

    out = Path(arguments.out)
    for target, items in seeds.items():
        folder = out / target
        folder.mkdir(parents=True, exist_ok=True)
        for name, data in items.items():
            path = folder / name
            if not path.exists():
                path.write_bytes(data)
        size = sum(len(data) for data in items.values())
        print(f"{target}: {len(items)} seeds, {size} bytes")
    return 0


if __name__ == "__main__":
    sys.exit(main())
