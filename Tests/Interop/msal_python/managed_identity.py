"""MSAL for Python's ManagedIdentityClient against swift-msal's local provider.

    managed_identity.py SPEC_JSON

SPEC_JSON (a file):

    {
      "environment": {"AZURE_POD_IDENTITY_AUTHORITY_HOST": "http://127.0.0.1:<port>", ...},
                                        # replaces every managed-identity variable of this process
      "identity": {"ManagedIdentityIdType": "SystemAssigned", "Id": null}
                  or {"ManagedIdentityIdType": "ClientId", "Id": "..."},
      "resource": "https://vault.azure.net",
      "cache_file": "...",              # read first when it exists, written back when changed
      "calls": 2
    }

Only loopback addresses are allowed: any request to another host raises before it is sent.

Prints one JSON object: {"msal_python_version", "source", "results": [{"access_token",
"token_source", "expires_in"} or {"error", "error_description"}], "requests": [[method, path], ...]}.
"""

import json
import os
import sys
from urllib.parse import urlparse

import msal
import requests

MI_VARIABLES = [
    "IDENTITY_ENDPOINT", "IDENTITY_HEADER", "IDENTITY_SERVER_THUMBPRINT", "IMDS_ENDPOINT", "MSI_ENDPOINT", "MSI_SECRET",
    "AZUREPS_HOST_ENVIRONMENT", "AZURE_POD_IDENTITY_AUTHORITY_HOST",
]


class LoopbackSession(requests.Session):
    """A requests.Session that refuses anything but 127.0.0.1 and records what it sends."""

    def __init__(self):
        super().__init__()
        self.seen = []

    def request(self, method, url, *args, **kwargs):
        host = urlparse(url).hostname
        if host not in ("127.0.0.1", "localhost"):
            raise RuntimeError("refused a request off this machine: " + url)
        self.seen.append([method.upper(), urlparse(url).path])
        return super().request(method, url, *args, **kwargs)


def source_name():
    """The name of the module constant get_managed_identity_source() returns (they are bare objects)."""
    module = msal.managed_identity
    source = module.get_managed_identity_source()
    for name in ("SERVICE_FABRIC", "APP_SERVICE", "MACHINE_LEARNING", "AZURE_ARC", "CLOUD_SHELL", "DEFAULT_TO_VM"):
        if getattr(module, name, None) is source:
            return name
    return repr(source)


def main(spec_path):
    with open(spec_path, encoding="utf-8") as handle:
        spec = json.load(handle)
    for name in MI_VARIABLES:
        os.environ.pop(name, None)
    os.environ.update(spec["environment"])
    cache = msal.SerializableTokenCache()
    cache_file = spec["cache_file"]
    if os.path.exists(cache_file):
        with open(cache_file, encoding="utf-8") as handle:
            cache.deserialize(handle.read())
    session = LoopbackSession()
    client = msal.ManagedIdentityClient(spec["identity"], http_client=session, token_cache=cache)
    results = []
    for _ in range(spec.get("calls", 1)):
        result = client.acquire_token_for_client(resource=spec["resource"])
        if "access_token" in result:
            results.append({
                "access_token": result["access_token"],
                "token_source": result.get("token_source"),
                "expires_in": result.get("expires_in"),
            })
        else:
            results.append({"error": result.get("error"), "error_description": result.get("error_description")})
    if cache.has_state_changed:
        # Owner-only, as every MSAL writes its cache file (swift-msal refuses a wider one).
        descriptor = os.open(cache_file, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        with os.fdopen(descriptor, "w", encoding="utf-8") as handle:
            handle.write(cache.serialize())
    print(json.dumps({
        "msal_python_version": msal.__version__,
        "source": source_name(),
        "results": results,
        "requests": session.seen,
    }))


if __name__ == "__main__":
    main(sys.argv[1])
