"""What the scripts that run MSAL for Python against MSALEmulator share.

- RewritingSession: an http_client for MSAL for Python sending every request for the advertised
  origin (https://login.microsoftonline.com) to where the emulator listens, refusing any other,
  and counting token requests.
- load_cache / save_cache: a SerializableTokenCache read from a file, and written back owner-only
  (mode 0600, as msal-extensions writes one; swift-msal refuses a group- or world-readable file).
- entries_of: each cache section's entries as the Swift tests compare them: key, sorted member
  names, and the string members but "secret".
- print_report: prints a JSON report after checking it quotes none of the given secrets.
- report: the parts of a token answer the tests compare; usage: a usage error (exit status 2).
"""

import json
import os
import sys

import msal
import requests

SECTIONS = ("AccessToken", "RefreshToken", "IdToken", "Account", "AppMetadata")
TOKEN_PATH_SUFFIX = "/oauth2/v2.0/token"


class RewritingSession(requests.Session):
    """A requests.Session sending every request for ADVERTISED to EMULATOR instead."""

    def __init__(self, advertised, emulator):
        super().__init__()
        self.advertised = advertised.rstrip("/")
        self.emulator = emulator.rstrip("/")
        self.seen = []

    def request(self, method, url, *args, **kwargs):
        if not url.startswith(self.advertised + "/"):
            raise RuntimeError("refused a request outside the advertised origin: " + url)
        path = url[len(self.advertised):]
        self.seen.append([method.upper(), path.split("?")[0]])
        return super().request(method, self.emulator + path, *args, **kwargs)

    def token_requests(self, since=0):
        """POSTs to the token endpoint among the requests seen, from the `since`-th on."""
        return sum(
            1 for method, path in self.seen[since:] if method == "POST" and path.endswith(TOKEN_PATH_SUFFIX))


def load_cache(path):
    """A SerializableTokenCache with the file's contents, empty when the file does not exist."""
    cache = msal.SerializableTokenCache()
    try:
        with open(path, encoding="utf-8") as handle:
            cache.deserialize(handle.read())
    except FileNotFoundError:
        pass
    return cache


def save_cache(cache, path):
    """Writes the cache back, owner-only, when it changed."""
    if cache.has_state_changed:
        descriptor = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        with os.fdopen(descriptor, "w", encoding="utf-8") as handle:
            handle.write(cache.serialize())


def entries_of(serialized):
    """Each section's entries: key, sorted member names, and the string members but the secret."""
    return {
        section: [
            {
                "key": key,
                "members": sorted(entry),
                "values": {
                    name: value for name, value in sorted(entry.items())
                    if name != "secret" and isinstance(value, str)
                },
            }
            for key, entry in sorted(serialized.get(section, {}).items())
        ]
        for section in SECTIONS
    }


def print_report(report, serialized, secrets):
    """Prints `report` as JSON, unless it would quote one of `secrets` or a cached refresh token."""
    text = json.dumps(report)
    never_printed = [secret for secret in secrets if secret]
    never_printed += [entry.get("secret") for entry in serialized.get("RefreshToken", {}).values()]
    if any(isinstance(secret, str) and len(secret) >= 8 and secret in text for secret in never_printed):
        raise RuntimeError("the report would quote a credential or a refresh token; nothing printed")
    print(text)


def report(answer):
    """The parts of an answer the tests compare (never its refresh token or ID token)."""
    if answer is None:
        return {"token_source": None, "access_token": None, "error": "no_token",
                "error_description": "acquire_token_silent returned None", "username": None}
    return {
        "token_source": answer.get("token_source"),
        "access_token": answer.get("access_token"),
        "error": answer.get("error"),
        "error_description": answer.get("error_description"),
        "username": (answer.get("id_token_claims") or {}).get("preferred_username"),
    }


def usage(message):
    print(message, file=sys.stderr)
    return 2
