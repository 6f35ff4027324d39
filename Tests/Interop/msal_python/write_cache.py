#!/usr/bin/env python3
"""Let the real MSAL for Python build a token cache through its own flows, then save it.

Usage: write_cache.py OUT_CACHE OUT_EXPECTED

OUT_CACHE receives ``SerializableTokenCache.serialize()`` exactly as MSAL for Python returns it.
OUT_EXPECTED receives what a correct reader of that cache must find (JSON, UTF-8):

    {
      "msal_python_version": "1.39.0",
      "environment": "login.microsoftonline.com",
      "client_id": "<app 1>",                     # default client for "queries" (read_cache.py contract)
      "authority": "https://login.microsoftonline.com/organizations",   # default authority
      "clients": [{"client_id", "display_name", "family_id": "1" | null}],
      "accounts": [{
          "home_account_id": "<uid>.<utid>", "environment", "username",
          "home_tenant_id": "<utid>",
          "client_ids": [...],                    # clients holding a refresh token for the account
          "tenant_profiles": [{
              "realm",                            # as written in the cache (MSAL Python: the authority's
                                                  # tenant segment, so "organizations"/"common" literally)
              "tenant_id",                        # the ID token's tid
              "local_account_id",                 # the ID token's oid
              "is_home_tenant"                    # tid == utid
          }]
      }],
      "queries": [{                               # usable as read_cache.py's "queries" as they are
          "id", "home_account_id", "client_id", "authority", "realm", "scopes": [...],
          "force_refresh": false,
          "expected_access_token": "<secret>" | null,     # null: no usable access token in the cache
          "expected_refresh_token": "<secret>" | null,    # the RT a refresh for this query would use
          "expected_refresh_token_family_id": "1" | null
      }]
    }

How the cache is built (all through ``msal.PublicClientApplication`` and a fake ``http_client``,
fake_entra.FakeEntra, that serves discovery documents and issues the tokens below):

1. app 1, authority .../organizations: alice signs in (auth code flow) for User.Read.
2. app 1: alice's silent request for Mail.Read + Calendars.Read misses the cache, so MSAL refreshes
   with alice's RT; the response rotates the RT and adds a second access token.
3. app 1, authority .../<tenant A>: bob signs in for User.Read (home tenant).
4. app 1, authority .../<tenant B>: bob signs in as a guest of tenant B (a second tenant profile of
   the same home account); this response carries ``refresh_in`` (so the AT has ``refresh_on``).
5. app 2 (a family app), authority .../common: carol signs in; the response has ``"foci": "1"``.

Every token is valid for ten years; token material is deterministic (seeded), timestamps are not.
"""

import json
import os
import sys
import warnings

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))  # fake_entra.py, also under python -P

import msal  # noqa: E402

from fake_entra import FakeEntra, Secrets, client_info, nonce_hash, MULTI_TENANT_SEGMENTS  # noqa: E402

ENVIRONMENT = "login.microsoftonline.com"
AUTHORITY_HOST = "https://" + ENVIRONMENT

TENANT_A = "4d3b1f0e-8c2a-4e6b-9f7d-0a1c2e3b4d5f"   # contoso.com: alice, bob and carol live here
TENANT_B = "b8e6c4a2-1f3d-4b5e-8a7c-9d0e1f2a3b4c"   # fabrikam.com: bob is a guest here

APP_1 = "5a9c3e7b-2d4f-4a6c-8e0b-1c3d5e7f9a2b"       # "Contoso Notes", not in a family
APP_2 = "e1f2a3b4-c5d6-4e7f-a8b9-0c1d2e3f4a5b"       # "Contoso Mail", a family (FOCI) app
CLIENTS = {
    APP_1: {"display_name": "Contoso Notes", "family_id": None},
    APP_2: {"display_name": "Contoso Mail", "family_id": "1"},
}

USERS = {
    "alice": {
        "name": "Alice Lindqvist", "given_name": "Alice", "family_name": "Lindqvist",
        "username": "alice@contoso.com", "home_tenant": TENANT_A,
        "oid": {TENANT_A: "0f6a2c4e-7b1d-4c3e-9a5f-8e2d4b6c1a3e"},
    },
    "bob": {
        "name": "Bob Okafor", "given_name": "Bob", "family_name": "Okafor",
        "username": "bob@contoso.com", "home_tenant": TENANT_A,
        "oid": {TENANT_A: "7c9e1a3b-5d2f-4e8a-b6c4-2f1e3d5a7b9c",
                TENANT_B: "3e5a7c9b-1d4f-4b2e-8c6a-9f0b2d4e6a8c"},  # the guest object in tenant B
    },
    "carol": {
        "name": "Carol Nakamura", "given_name": "Carol", "family_name": "Nakamura",
        "username": "carol@contoso.com", "home_tenant": TENANT_A,
        "oid": {TENANT_A: "a2c4e6f8-0b1d-4f3a-9c5e-7b9d1f3a5c7e"},
    },
}

TEN_YEARS = 10 * 365 * 24 * 3600
# Claim times inside the tokens are fixed so the token strings are deterministic; the cache's own
# timestamps (cached_at, expires_on …) come from MSAL for Python's clock and expires_in.
IAT = 1767225600          # 2026-01-01T00:00:00Z
EXP = 4102444800          # 2100-01-01T00:00:00Z
GRAPH = "00000003-0000-0000-c000-000000000000"
OIDC_SCOPES = {"openid", "profile", "offline_access"}


def home_account_id(user):
    u = USERS[user]
    return "%s.%s" % (u["oid"][u["home_tenant"]], u["home_tenant"])


class Issuer:
    """The token endpoint's brain: remembers codes and refresh tokens, and every token it issued."""

    def __init__(self, seed=20260401):
        self.secrets = Secrets(seed)
        self.pending_codes = {}   # code -> {"user", "client_id", "nonce_hash"}
        self.refresh_tokens = {}  # RT secret -> {"user", "client_id", "family_id"}
        self.issued = []          # {"user", "client_id", "tenant", "realm", "scopes", "access_token", "refresh_token", ...}

    def new_code(self, user, client_id, nonce):
        code = "1.A" + self.secrets.text(420)
        self.pending_codes[code] = {"user": user, "client_id": client_id, "nonce_hash": nonce_hash(nonce)}
        return code

    def __call__(self, host, tenant_segment, form):
        grant = form.get("grant_type")
        client_id = form.get("client_id")
        if grant == "authorization_code":
            grant_info = self.pending_codes.pop(form.get("code"), None)
            if not grant_info or grant_info["client_id"] != client_id:
                return 400, {"error": "invalid_grant", "error_description": "unknown code", "error_codes": [70008]}
            user, nonce = grant_info["user"], grant_info["nonce_hash"]
        elif grant == "refresh_token":
            grant_info = self.refresh_tokens.get(form.get("refresh_token"))
            if not grant_info or grant_info["client_id"] != client_id:
                return 400, {"error": "invalid_grant", "error_description": "unknown refresh token",
                             "error_codes": [9002313]}
            user, nonce = grant_info["user"], None
        else:
            return 400, {"error": "unsupported_grant_type", "error_codes": [70003]}
        u = USERS[user]
        tenant = u["home_tenant"] if tenant_segment.lower() in MULTI_TENANT_SEGMENTS else tenant_segment
        if tenant not in u["oid"]:
            return 400, {"error": "invalid_grant", "error_description": "user not in tenant", "error_codes": [50020]}
        requested = form.get("scope", "").split()
        resource_scopes = [s for s in requested if s not in OIDC_SCOPES]
        granted = ["openid", "profile"] + resource_scopes + ["email"]   # Entra's order, not sorted
        family_id = CLIENTS[client_id]["family_id"]
        response = {
            "token_type": "Bearer",
            "scope": " ".join(granted),
            "expires_in": TEN_YEARS,
            "ext_expires_in": TEN_YEARS,
            "access_token": self.access_token(user, tenant, client_id, granted),
            "refresh_token": "1.A" + self.secrets.text(880),
            "id_token": self.id_token(user, tenant, client_id, nonce),
            "client_info": client_info(u["oid"][u["home_tenant"]], u["home_tenant"]),
        }
        if tenant == TENANT_B:
            response["refresh_in"] = TEN_YEARS // 2
        if family_id:
            response["foci"] = family_id
        self.refresh_tokens[response["refresh_token"]] = {"user": user, "client_id": client_id, "family_id": family_id}
        self.issued.append({
            "user": user, "client_id": client_id, "tenant": tenant, "realm": tenant_segment,
            "scopes": resource_scopes, "granted": granted,
            "access_token": response["access_token"], "refresh_token": response["refresh_token"],
            "family_id": family_id,
        })
        return 200, response

    def access_token(self, user, tenant, client_id, granted):
        u, s = USERS[user], self.secrets
        kid = s.text(27)
        return s.jwt({"typ": "JWT", "nonce": s.text(43), "alg": "RS256", "x5t": kid, "kid": kid}, {
            "aud": GRAPH, "iss": "https://sts.windows.net/%s/" % tenant,
            "iat": IAT, "nbf": IAT, "exp": EXP, "acct": 0, "acr": "1", "aio": s.text(88),
            "amr": ["pwd", "mfa"], "app_displayname": CLIENTS[client_id]["display_name"], "appid": client_id,
            "appidacr": "0", "family_name": u["family_name"], "given_name": u["given_name"], "idtyp": "user",
            "ipaddr": "203.0.113.42", "name": u["name"], "oid": u["oid"][tenant], "platf": "14",
            "puid": s.raw(8).hex().upper(), "rh": "1.A" + s.text(60) + ".", "scp": " ".join(granted),
            "sid": s.guid(), "sub": s.text(43), "tenant_region_scope": "EU", "tid": tenant,
            "unique_name": u["username"], "upn": u["username"], "uti": s.text(22), "ver": "1.0",
            "wids": ["b79fbf4d-3ef9-4689-8143-76b194e85509"], "xms_ftd": s.text(43), "xms_idrel": "1 20",
            "xms_st": {"sub": s.text(43)}, "xms_tcdt": 1600000000,
        })

    def id_token(self, user, tenant, client_id, nonce):
        u, s = USERS[user], self.secrets
        claims = {
            "aud": client_id, "iss": "https://login.microsoftonline.com/%s/v2.0" % tenant,
            "iat": IAT, "nbf": IAT, "exp": EXP, "aio": s.text(88), "name": u["name"],
            "oid": u["oid"][tenant], "preferred_username": u["username"], "rh": "1.A" + s.text(60) + ".",
            "sid": s.guid(), "sub": s.text(43), "tid": tenant, "uti": s.text(22), "ver": "2.0",
        }
        if nonce:
            claims["nonce"] = nonce
        return s.jwt({"typ": "JWT", "alg": "RS256", "kid": s.text(27)}, claims)


def sign_in(app, issuer, user, scopes):
    """Authorization code flow with a fake browser: MSAL builds the request, the 'user' consents."""
    flow = app.initiate_auth_code_flow(scopes, redirect_uri="http://localhost:8400", login_hint=USERS[user]["username"])
    code = issuer.new_code(user, app.client_id, flow["nonce"])
    result = app.acquire_token_by_auth_code_flow(flow, {"code": code, "state": flow["state"]})
    if "access_token" not in result:
        raise SystemExit("write_cache.py: sign-in of %s failed: %s" % (user, json.dumps(result)))
    return result


def account_of(app, user):
    for account in app.get_accounts():
        if account["home_account_id"] == home_account_id(user):
            return account
    raise SystemExit("write_cache.py: MSAL for Python lists no account for %s" % user)


def build():
    issuer = Issuer()
    http = FakeEntra(token_handler=issuer)
    cache = msal.SerializableTokenCache()

    def app(client_id, tenant_segment):
        return msal.PublicClientApplication(
            client_id, authority="%s/%s" % (AUTHORITY_HOST, tenant_segment),
            token_cache=cache, http_client=http)

    notes_org = app(APP_1, "organizations")
    sign_in(notes_org, issuer, "alice", ["User.Read"])                                  # step 1
    second = notes_org.acquire_token_silent(["Mail.Read", "Calendars.Read"], account_of(notes_org, "alice"))
    if not second or second.get("token_source") != "identity_provider":                # step 2
        raise SystemExit("write_cache.py: alice's refresh did not reach the token endpoint: %r" % (second,))
    sign_in(app(APP_1, TENANT_A), issuer, "bob", ["User.Read"])                          # step 3
    sign_in(app(APP_1, TENANT_B), issuer, "bob", ["User.Read"])                          # step 4
    sign_in(app(APP_2, "common"), issuer, "carol", ["User.Read"])                        # step 5
    if http.other_calls:
        raise SystemExit("write_cache.py: unexpected requests: %r" % http.other_calls)
    return cache, issuer


def expectations(issuer):
    """What a reader must find, derived from what the fake identity provider issued (not from the cache)."""
    latest_rt = {}
    for grant in issuer.issued:
        latest_rt[(grant["user"], grant["client_id"])] = grant
    accounts = []
    for user, u in USERS.items():
        grants = [g for g in issuer.issued if g["user"] == user]
        if not grants:
            continue
        profiles = {}
        for g in grants:
            profiles[g["realm"]] = {
                "realm": g["realm"], "tenant_id": g["tenant"], "local_account_id": u["oid"][g["tenant"]],
                "is_home_tenant": g["tenant"] == u["home_tenant"],
            }
        accounts.append({
            "home_account_id": home_account_id(user), "environment": ENVIRONMENT, "username": u["username"],
            "home_tenant_id": u["home_tenant"],
            "client_ids": sorted({g["client_id"] for g in grants}),
            "tenant_profiles": list(profiles.values()),
        })

    def query(qid, user, client_id, realm, scopes, expected_at, force_refresh=False):
        rt = latest_rt.get((user, client_id))
        return {
            "id": qid, "home_account_id": home_account_id(user), "client_id": client_id,
            "authority": "%s/%s" % (AUTHORITY_HOST, realm), "realm": realm, "scopes": scopes,
            "force_refresh": force_refresh,
            "expected_access_token": expected_at,
            "expected_refresh_token": rt["refresh_token"] if rt else None,
            "expected_refresh_token_family_id": rt["family_id"] if rt else None,
        }

    def at(user, client_id, realm, first_scope):
        for g in issuer.issued:
            if (g["user"], g["client_id"], g["realm"]) == (user, client_id, realm) and first_scope in g["scopes"]:
                return g["access_token"]
        raise AssertionError("no access token issued for %s %s %s %s" % (user, client_id, realm, first_scope))

    queries = [
        query("alice-user-read", "alice", APP_1, "organizations", ["User.Read"],
              at("alice", APP_1, "organizations", "User.Read")),
        query("alice-mail-calendars", "alice", APP_1, "organizations", ["Mail.Read", "Calendars.Read"],
              at("alice", APP_1, "organizations", "Mail.Read")),
        query("alice-calendars-subset", "alice", APP_1, "organizations", ["Calendars.Read"],
              at("alice", APP_1, "organizations", "Calendars.Read")),
        query("bob-home-tenant", "bob", APP_1, TENANT_A, ["User.Read"], at("bob", APP_1, TENANT_A, "User.Read")),
        query("bob-guest-tenant", "bob", APP_1, TENANT_B, ["User.Read"], at("bob", APP_1, TENANT_B, "User.Read")),
        query("carol-family-app", "carol", APP_2, "common", ["User.Read"], at("carol", APP_2, "common", "User.Read")),
        # alice has no token for app 2, and her RT is not a family RT: nothing to use, no network needed.
        query("alice-other-client", "alice", APP_2, "organizations", ["User.Read"], None),
    ]
    # The same request through an alias of the cache environment must find the same token.
    queries.append(dict(queries[0], id="alice-user-read-via-alias",
                        authority="https://login.windows.net/organizations"))
    # Refresh probes: skip the access-token cache; the refresh token sent must be the expected one.
    queries.append(query("alice-refresh-probe", "alice", APP_1, "organizations", ["User.Read"], None,
                         force_refresh=True))
    queries.append(query("carol-refresh-probe", "carol", APP_2, "common", ["User.Read"], None,
                         force_refresh=True))
    return {
        "msal_python_version": msal.__version__,
        "environment": ENVIRONMENT,
        "client_id": APP_1,
        "authority": "%s/organizations" % AUTHORITY_HOST,
        "clients": [{"client_id": c, **v} for c, v in CLIENTS.items()],
        "accounts": accounts,
        "queries": queries,
    }


def main(argv):
    if len(argv) != 3:
        sys.stderr.write("usage: write_cache.py OUT_CACHE OUT_EXPECTED\n")
        return 2
    warnings.simplefilter("ignore")  # MSAL's advice (e.g. response_mode) would only clutter stderr
    cache, issuer = build()
    with open(argv[1], "w", encoding="utf-8") as f:
        f.write(cache.serialize())
    with open(argv[2], "w", encoding="utf-8") as f:
        json.dump(expectations(issuer), f, indent=2)
        f.write("\n")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
