#!/usr/bin/env python3
"""Writes an answers file for recording_broker.py (a test tool).

    python3 make_answers.py SCENARIO OUT.json [--client-id ID]

SCENARIO: `signed-in` (one account; every token call answers a bearer token for it), `pop` (the
same, the token answered as MSAL's PoP: accessTokenType 1, accessToken the signed HTTP request),
`interaction-required` (acquireTokenSilently answers status 2, acquireTokenInteractively a token),
`user-canceled` (silent: status 2; interactive: status 7).

The shapes are those Microsoft's runtime (pymsalruntime 0.20.7) accepts; docs/broker.md records
how each was found. The ID token is unsigned (`alg` none): the runtime does not check it.
"""

import argparse
import base64
import json
import sys
import time

USER = {"uid": "00000000-0000-0000-0000-0000000000a1", "utid": "72f988bf-86f1-41af-91ab-2d7cd011db47",
        "username": "adele@contoso.com", "name": "Adele Vance", "given_name": "Adele"}


def b64url_json(value):
    return base64.urlsafe_b64encode(json.dumps(value, separators=(",", ":")).encode()).rstrip(b"=").decode()


def account(client_info):
    return {"environment": "login.microsoftonline.com", "givenName": USER["given_name"],
            "homeAccountId": USER["uid"] + "." + USER["utid"], "localAccountId": USER["uid"], "name": USER["name"],
            "passwordExpiry": 0, "realm": USER["utid"], "username": USER["username"], "clientInfo": client_info}


def token_response(client_id, pop):
    now = int(time.time())
    id_token = b64url_json({"alg": "none", "typ": "JWT"}) + "." + b64url_json({
        "aud": client_id, "iss": "https://login.microsoftonline.com/%s/v2.0" % USER["utid"], "iat": now, "nbf": now,
        "exp": now + 3600, "name": USER["name"], "oid": USER["uid"], "preferred_username": USER["username"],
        "sub": "subject-of-adele", "tid": USER["utid"], "ver": "2.0"}) + "."
    client_info = b64url_json({"uid": USER["uid"], "utid": USER["utid"]})
    access_token = ("eyJhbGciOiJSUzI1NiJ9.eyJhdCI6InByb2JlIn0.c2lnbmF0dXJl" if pop else "access-token-from-the-broker")
    return {"brokerTokenResponse": {
        "accessToken": access_token, "accessTokenType": 1 if pop else 0, "account": account(client_info),
        "clientInfo": client_info, "expiresOn": (now + 3600) * 1000, "extendedExpiresOn": (now + 7200) * 1000,
        "idToken": id_token, "grantedScopes": "User.Read openid profile offline_access"}}


def error(status, context, tag):
    return {"error": {"context": context, "errorCode": 0, "status": status, "tag": tag}}


def main(argv):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("scenario", choices=["signed-in", "pop", "interaction-required", "user-canceled"])
    parser.add_argument("out")
    parser.add_argument("--client-id", default="04b07795-8ddb-461a-bbee-02f9e1bf7b46")
    args = parser.parse_args(argv)
    token = token_response(args.client_id, pop=args.scenario == "pop")
    client_info = token["brokerTokenResponse"]["clientInfo"]
    answers = {"getLinuxBrokerVersion": {"linuxBrokerVersion": "2.0.4"}, "getAccounts": {"accounts": [account(client_info)]},
               "acquireTokenSilently": token, "acquireTokenInteractively": token, "removeAccount": {}}
    if args.scenario in ("interaction-required", "user-canceled"):
        answers["getAccounts"] = {"accounts": []}
        answers["acquireTokenSilently"] = error(2, "no usable refresh token for this account", 1001)
    if args.scenario == "user-canceled":
        answers["acquireTokenInteractively"] = error(7, "the user closed the sign-in window", 1002)
    with open(args.out, "w", encoding="utf-8") as f:
        json.dump(answers, f, indent=1)


if __name__ == "__main__":
    main(sys.argv[1:])
