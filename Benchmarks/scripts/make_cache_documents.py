#!/usr/bin/env python3
"""Generate realistic unified-schema token cache documents for the cache benchmarks.

Usage: make_cache_documents.py OUT_DIR [--accounts 1,100,10000] [--seed 20260401]

Writes, for one client and each account count N:

    OUT_DIR/cache-N.json     the document, laid out exactly as MSAL for Python's
                             SerializableTokenCache.serialize() writes it (json.dumps, indent=4,
                             sections and entries in the order MSAL for Python adds them)
    OUT_DIR/manifest.json    what the benchmarks need to query the documents (below)

Each account has what one interactive sign-in through MSAL for Python leaves behind
(authority https://login.microsoftonline.com/organizations, so realm "organizations"):

    AccessToken   target "User.Read email openid profile" (Entra's usual answer to a User.Read
                  request), a ~1.5 KB Graph-style JWT as secret, valid until 2100
    RefreshToken  a ~1.1 KB opaque secret ("1.A…"), same target
    IdToken       a ~1.2 KB v2 ID token
    Account       home_account_id <oid>.<tid>, username, local_account_id, MSSTS, authorization_code

plus one AppMetadata entry. The accounts are spread over 20 tenants. Everything is deterministic:
account i is the same in every document (its material is drawn from a generator seeded with the
seed and i), and all timestamps are fixed, so the same seed gives byte-identical files.
No third-party packages; MSAL for Python is not needed to generate.

manifest.json:

    {
      "generator": "make_cache_documents.py", "seed": 20260401,
      "client_id": "...", "authority": "https://login.microsoftonline.com/organizations",
      "environment": "login.microsoftonline.com", "realm": "organizations",
      "scopes": ["User.Read"], "target": "User.Read email openid profile",
      "documents": [{
        "accounts": 10000, "file": "cache-10000.json", "bytes": 64000000, "sha256": "...",
        "probes": [{"index": 0, "home_account_id": "...", "username": "...",
                    "access_token": "<the AT secret a silent User.Read request must return>"}]
      }]
    }

The probes are up to 16 accounts spread evenly over the document (first, last and between), so a
benchmark that cycles through them measures the average position, not the luckiest one.
"""

import argparse
import base64
import hashlib
import json
import os
import random
import sys

ENVIRONMENT = "login.microsoftonline.com"
REALM = "organizations"
AUTHORITY = "https://%s/%s" % (ENVIRONMENT, REALM)
CLIENT_ID = "5a9c3e7b-2d4f-4a6c-8e0b-1c3d5e7f9a2b"
GRAPH = "00000003-0000-0000-c000-000000000000"
TARGET = "User.Read email openid profile"   # sorted, case kept: what MSAL writes
GRANTED = "openid profile User.Read email"  # the order Entra returns
CACHED_AT = 1767225600                      # 2026-01-01T00:00:00Z
EXPIRES_ON = 4102444800                     # 2100-01-01T00:00:00Z
TENANT_COUNT = 20
PROBE_COUNT = 16

GIVEN_NAMES = ["Alex", "Bea", "Chen", "Dana", "Emeka", "Farah", "Goran", "Hana", "Ines", "Jonas",
               "Kofi", "Lena", "Mateo", "Nadia", "Omar", "Priya", "Quinn", "Rosa", "Sven", "Tariq"]
FAMILY_NAMES = ["Andersson", "Bianchi", "Costa", "Dubois", "Eriksen", "Fischer", "Garcia", "Haddad",
                "Ivanova", "Jensen", "Kowalski", "Laine", "Moreau", "Novak", "Okafor", "Petrov"]


def b64url(raw):
    return base64.urlsafe_b64encode(raw).rstrip(b"=").decode("ascii")


def b64url_json(value):
    return b64url(json.dumps(value, separators=(",", ":")).encode("utf-8"))


class Material:
    """Deterministic random material from one seeded generator."""

    def __init__(self, seed):
        self.rng = random.Random(seed)

    def guid(self):
        h = self.rng.randbytes(16).hex()
        return "%s-%s-4%s-%s%s-%s" % (h[0:8], h[8:12], h[13:16], "89ab"[int(h[16], 16) % 4], h[17:20], h[20:32])

    def text(self, count):
        return b64url(self.rng.randbytes(count))[:count]

    def jwt(self, header, claims):
        return "%s.%s.%s" % (b64url_json(header), b64url_json(claims), b64url(self.rng.randbytes(256)))


def tenants(seed):
    m = Material("%s:tenants" % seed)
    return [{"id": m.guid(), "domain": "contoso%02d.example.com" % t} for t in range(TENANT_COUNT)]


def account_material(seed, index, tenant_list):
    """Everything about account ``index``; independent of how many accounts the document has."""
    m = Material("%s:account:%d" % (seed, index))
    tenant = tenant_list[m.rng.randrange(TENANT_COUNT)]
    oid = m.guid()
    given, family = m.rng.choice(GIVEN_NAMES), m.rng.choice(FAMILY_NAMES)
    username = "%s.%s%d@%s" % (given.lower(), family.lower(), index, tenant["domain"])
    name = "%s %s" % (given, family)
    kid = m.text(27)
    access_token = m.jwt({"typ": "JWT", "nonce": m.text(43), "alg": "RS256", "x5t": kid, "kid": kid}, {
        "aud": GRAPH, "iss": "https://sts.windows.net/%s/" % tenant["id"], "iat": CACHED_AT,
        "nbf": CACHED_AT, "exp": EXPIRES_ON, "acct": 0, "acr": "1", "aio": m.text(56), "amr": ["pwd"],
        "app_displayname": "Contoso Notes", "appid": CLIENT_ID, "idtyp": "user", "name": name,
        "oid": oid, "puid": m.rng.randbytes(8).hex().upper(), "scp": GRANTED, "sid": m.guid(), "sub": m.text(43), "tid": tenant["id"],
        "unique_name": username, "upn": username, "uti": m.text(22), "ver": "1.0", "xms_tcdt": 1600000000,
    })
    id_token = m.jwt({"typ": "JWT", "alg": "RS256", "kid": m.text(27)}, {
        "aud": CLIENT_ID, "iss": "https://login.microsoftonline.com/%s/v2.0" % tenant["id"],
        "iat": CACHED_AT, "nbf": CACHED_AT, "exp": EXPIRES_ON, "aio": m.text(56), "name": name,
        "nonce": hashlib.sha256(m.text(22).encode("ascii")).hexdigest(), "oid": oid,
        "preferred_username": username, "sub": m.text(43),
        "tid": tenant["id"], "uti": m.text(22), "ver": "2.0",
    })
    refresh_token = "1.A" + m.text(1130)
    return {
        "home_account_id": "%s.%s" % (oid, tenant["id"]), "oid": oid, "username": username,
        "access_token": access_token, "id_token": id_token, "refresh_token": refresh_token,
    }


def document(seed, count, tenant_list):
    """The cache after ``count`` sign-ins, with MSAL for Python's section and entry order."""
    sections = {"AccessToken": {}, "Account": {}, "IdToken": {}, "RefreshToken": {}, "AppMetadata": {}}
    accounts = []
    for index in range(count):
        a = account_material(seed, index, tenant_list)
        accounts.append(a)
        hid = a["home_account_id"]
        sections["AccessToken"]["-".join([hid, ENVIRONMENT, "AccessToken", CLIENT_ID, REALM, TARGET]).lower()] = {
            "credential_type": "AccessToken", "secret": a["access_token"], "home_account_id": hid,
            "environment": ENVIRONMENT, "client_id": CLIENT_ID, "target": TARGET, "realm": REALM,
            "token_type": "Bearer", "cached_at": str(CACHED_AT), "expires_on": str(EXPIRES_ON),
            "extended_expires_on": str(EXPIRES_ON),
        }
        sections["Account"]["-".join([hid, ENVIRONMENT, REALM]).lower()] = {
            "home_account_id": hid, "environment": ENVIRONMENT, "realm": REALM, "local_account_id": a["oid"],
            "username": a["username"], "authority_type": "MSSTS", "account_source": "authorization_code",
        }
        sections["IdToken"]["-".join([hid, ENVIRONMENT, "IdToken", CLIENT_ID, REALM, ""]).lower()] = {
            "credential_type": "IdToken", "secret": a["id_token"], "home_account_id": hid,
            "environment": ENVIRONMENT, "realm": REALM, "client_id": CLIENT_ID,
        }
        sections["RefreshToken"]["-".join([hid, ENVIRONMENT, "RefreshToken", CLIENT_ID, "", TARGET]).lower()] = {
            "credential_type": "RefreshToken", "secret": a["refresh_token"], "home_account_id": hid,
            "environment": ENVIRONMENT, "client_id": CLIENT_ID, "target": TARGET,
            "last_modification_time": str(CACHED_AT),
        }
    sections["AppMetadata"]["appmetadata-%s-%s" % (ENVIRONMENT, CLIENT_ID)] = {
        "client_id": CLIENT_ID, "environment": ENVIRONMENT,
    }
    return sections, accounts


def probe_indices(count):
    if count <= PROBE_COUNT:
        return list(range(count))
    return sorted({round(j * (count - 1) / (PROBE_COUNT - 1)) for j in range(PROBE_COUNT)})


def main(argv):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("out_dir")
    parser.add_argument("--accounts", default="1,100,10000", help="comma-separated account counts")
    parser.add_argument("--seed", type=int, default=20260401)
    args = parser.parse_args(argv[1:])
    counts = [int(c) for c in args.accounts.split(",") if c.strip()]
    if not counts or any(c < 1 for c in counts):
        parser.error("--accounts needs positive counts")
    os.makedirs(args.out_dir, exist_ok=True)
    tenant_list = tenants(args.seed)
    manifest = {
        "generator": "make_cache_documents.py", "seed": args.seed, "client_id": CLIENT_ID,
        "authority": AUTHORITY, "environment": ENVIRONMENT, "realm": REALM,
        "scopes": ["User.Read"], "target": TARGET, "documents": [],
    }
    for count in counts:
        sections, accounts = document(args.seed, count, tenant_list)
        text = json.dumps(sections, indent=4)  # what SerializableTokenCache.serialize() produces
        data = text.encode("utf-8")
        name = "cache-%d.json" % count
        with open(os.path.join(args.out_dir, name), "wb") as f:
            f.write(data)
        manifest["documents"].append({
            "accounts": count, "file": name, "bytes": len(data), "sha256": hashlib.sha256(data).hexdigest(),
            "probes": [{"index": i, "home_account_id": accounts[i]["home_account_id"],
                        "username": accounts[i]["username"], "access_token": accounts[i]["access_token"]}
                       for i in probe_indices(count)],
        })
        sys.stderr.write("%s: %d accounts, %.1f MB\n" % (name, count, len(data) / 1e6))
    with open(os.path.join(args.out_dir, "manifest.json"), "w", encoding="utf-8") as f:
        json.dump(manifest, f, indent=2)
        f.write("\n")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
