#!/usr/bin/env python3
"""Starts a real Django OAuth Toolkit OpenID provider on 127.0.0.1 for the interop tests.

    python server.py --state-dir DIR [--port 0] [--access-token-seconds 3600]
                     [--id-token-seconds N] [--redirect-uri URI]... [--advertise-device-endpoint]
                     [--threads 8] [--watch-stdin] [--max-seconds N]

It prepares DIR (SQLite database, RSA signing key, Django secret, users), then serves with
waitress until SIGTERM/SIGINT. When it is ready it prints exactly one JSON line on stdout (see
README.md for the fields); everything else goes to stderr, DIR/server.log and DIR/requests.log.
Run it with the venv's interpreter (.build/oidc-venv/bin/python).
"""

import argparse
import json
import os
import secrets
import signal
import sys
import threading
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent

PUBLIC_CLIENT_ID = "swift-msal-dot-public"
DEVICE_CLIENT_ID = "swift-msal-dot-device"
# Confidential client of the client-credentials grant (client_secret_post / client_secret_basic).
# Its id is also in dotprovider/settings.py (CONFIDENTIAL_CLIENT_IDS), where its scopes are.
SECRET_CLIENT_ID = "swift-msal-secret-client"

# Registered on the public client. DOT matches http://127.0.0.1 (and, with
# ALLOW_LOCALHOST_LOOPBACK, http://localhost) redirect URIs with ANY port (RFC 8252 §7.3),
# but scheme, host, path and query must match exactly, so both the empty and "/" paths are here.
DEFAULT_REDIRECT_URIS = [
    "http://127.0.0.1/",
    "http://127.0.0.1",
    "http://localhost/",
    "http://localhost",
]

USERS = {
    "alice": {"email": "alice@example.test", "first_name": "Alice", "last_name": "Liddell"},
    "bob": {"email": "bob@example.test", "first_name": "Bob", "last_name": "Builder"},
}


def parse_args(argv):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--state-dir", required=True, help="directory for the database, keys and logs")
    parser.add_argument("--port", type=int, default=0, help="TCP port on 127.0.0.1 (0: a free one)")
    parser.add_argument("--access-token-seconds", type=int, default=3600)
    parser.add_argument(
        "--id-token-seconds", type=int, default=None, help="ID token lifetime (default: --access-token-seconds)"
    )
    parser.add_argument(
        "--redirect-uri",
        action="append",
        default=[],
        help="an extra redirect URI for the public client (repeatable); loopback ports need none",
    )
    parser.add_argument(
        "--advertise-device-endpoint",
        action="store_true",
        help="add device_authorization_endpoint to the discovery document (stock DOT omits it)",
    )
    parser.add_argument("--threads", type=int, default=8, help="waitress worker threads")
    parser.add_argument(
        "--watch-stdin",
        action="store_true",
        help="stop when stdin reaches EOF (give it a pipe: the server then dies with its parent)",
    )
    parser.add_argument(
        "--max-seconds", type=float, default=0, help="stop by itself after this many seconds (0: never)"
    )
    args = parser.parse_args(argv)
    args.id_token_follows = args.id_token_seconds is None
    if args.id_token_seconds is None:
        args.id_token_seconds = args.access_token_seconds
    if args.access_token_seconds <= 0 or args.id_token_seconds <= 0:
        parser.error("token lifetimes must be positive")
    return args


def write_private(path, text):
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "w") as handle:
        handle.write(text)


def ensure_rsa_key(path):
    """An RSA 2048 private key (PKCS#8 PEM) for RS256 ID tokens, reused if DIR already has one."""
    if path.exists():
        return
    from cryptography.hazmat.primitives import serialization
    from cryptography.hazmat.primitives.asymmetric import rsa

    key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    pem = key.private_bytes(
        encoding=serialization.Encoding.PEM,
        format=serialization.PrivateFormat.PKCS8,
        encryption_algorithm=serialization.NoEncryption(),
    )
    write_private(path, pem.decode("ascii"))


def ensure_secret(path):
    if not path.exists():
        write_private(path, secrets.token_urlsafe(48) + "\n")


def load_passwords(path):
    """Random passwords, kept in DIR so a restart on the same state directory keeps them."""
    passwords = json.loads(path.read_text()) if path.exists() else {}
    changed = False
    for name in USERS:
        if name not in passwords:
            passwords[name] = secrets.token_urlsafe(12)
            changed = True
    if changed:
        write_private(path, json.dumps(passwords, indent=2) + "\n")
    return passwords


def load_client_secrets(path):
    """Random plaintext client secrets, kept in DIR (DOT stores only a hash of them)."""
    client_secrets = json.loads(path.read_text()) if path.exists() else {}
    if SECRET_CLIENT_ID not in client_secrets:
        client_secrets[SECRET_CLIENT_ID] = secrets.token_urlsafe(24)
        write_private(path, json.dumps(client_secrets, indent=2) + "\n")
    return client_secrets


def prepare_database(passwords, extra_redirect_uris, client_secrets):
    from django.contrib.auth import get_user_model
    from django.core.management import call_command
    from oauth2_provider.models import get_application_model

    call_command("migrate", run_syncdb=True, verbosity=0, interactive=False)

    User = get_user_model()
    for name, details in USERS.items():
        user, _ = User.objects.get_or_create(username=name)
        for field, value in details.items():
            setattr(user, field, value)
        user.is_active = True
        user.set_password(passwords[name])
        user.save()

    Application = get_application_model()
    public, _ = Application.objects.get_or_create(
        client_id=PUBLIC_CLIENT_ID,
        defaults={
            "client_type": Application.CLIENT_PUBLIC,
            "authorization_grant_type": Application.GRANT_AUTHORIZATION_CODE,
        },
    )
    redirect_uris = public.redirect_uris.split()
    for uri in DEFAULT_REDIRECT_URIS + extra_redirect_uris:
        if uri not in redirect_uris:
            redirect_uris.append(uri)
    public.name = "swift-msal interop (public, auth code + PKCE)"
    public.client_type = Application.CLIENT_PUBLIC
    public.authorization_grant_type = Application.GRANT_AUTHORIZATION_CODE
    public.redirect_uris = " ".join(redirect_uris)
    public.post_logout_redirect_uris = " ".join(redirect_uris)
    public.algorithm = Application.RS256_ALGORITHM
    public.skip_authorization = False
    public.save()

    device, _ = Application.objects.get_or_create(
        client_id=DEVICE_CLIENT_ID,
        defaults={
            "client_type": Application.CLIENT_PUBLIC,
            "authorization_grant_type": Application.GRANT_DEVICE_CODE,
        },
    )
    device.name = "swift-msal interop (public, device code)"
    device.client_type = Application.CLIENT_PUBLIC
    device.authorization_grant_type = Application.GRANT_DEVICE_CODE
    device.algorithm = Application.RS256_ALGORITHM
    device.skip_authorization = False
    device.save()

    confidential, _ = Application.objects.get_or_create(
        client_id=SECRET_CLIENT_ID,
        defaults={
            "client_type": Application.CLIENT_CONFIDENTIAL,
            "authorization_grant_type": Application.GRANT_CLIENT_CREDENTIALS,
        },
    )
    confidential.name = "swift-msal interop (confidential, client credentials)"
    confidential.client_type = Application.CLIENT_CONFIDENTIAL
    confidential.authorization_grant_type = Application.GRANT_CLIENT_CREDENTIALS
    # the plaintext secret; DOT hashes it on save (hash_client_secret, Django's first password hasher)
    confidential.hash_client_secret = True
    confidential.client_secret = client_secrets[SECRET_CLIENT_ID]
    confidential.redirect_uris = ""
    confidential.algorithm = Application.NO_ALGORITHM
    confidential.skip_authorization = True
    confidential.save()
    return redirect_uris


class LateApp:
    """The WSGI app handed to waitress before Django exists (the port must be known first)."""

    def __init__(self):
        self.app = None

    def __call__(self, environ, start_response):
        if self.app is None:
            start_response("503 Service Unavailable", [("Content-Type", "text/plain"), ("Retry-After", "1")])
            return [b"starting\n"]
        return self.app(environ, start_response)


def main(argv=None):
    started = time.monotonic()
    args = parse_args(sys.argv[1:] if argv is None else argv)
    state_dir = Path(args.state_dir).resolve()
    state_dir.mkdir(parents=True, exist_ok=True)

    from waitress import create_server

    late_app = LateApp()
    server = create_server(
        late_app,
        host="127.0.0.1",
        port=args.port,
        threads=args.threads,
        ident="dot-test-provider",
        channel_timeout=30,
        clear_untrusted_proxy_headers=True,
    )
    port = int(server.effective_port)

    ensure_rsa_key(state_dir / "oidc_rsa_private_key.pem")
    ensure_secret(state_dir / "django_secret_key")
    passwords = load_passwords(state_dir / "users.json")
    client_secrets = load_client_secrets(state_dir / "client_secrets.json")

    os.environ["DOTP_STATE_DIR"] = str(state_dir)
    os.environ["DOTP_PORT"] = str(port)
    os.environ["DOTP_ACCESS_TOKEN_SECONDS"] = str(args.access_token_seconds)
    os.environ["DOTP_ID_TOKEN_SECONDS"] = str(args.id_token_seconds)
    os.environ["DOTP_ID_TOKEN_FOLLOWS"] = "1" if args.id_token_follows else "0"
    os.environ["DOTP_ADVERTISE_DEVICE_ENDPOINT"] = "1" if args.advertise_device_endpoint else "0"
    os.environ["DJANGO_SETTINGS_MODULE"] = "dotprovider.settings"
    sys.path.insert(0, str(HERE))

    import django

    django.setup()
    from django.conf import settings
    from django.core.handlers.wsgi import WSGIHandler

    import oauth2_provider
    import oauthlib
    from dotprovider.testapi import TestAPI

    redirect_uris = prepare_database(passwords, args.redirect_uri, client_secrets)
    late_app.app = TestAPI(WSGIHandler(), state_dir / "requests.log", PUBLIC_CLIENT_ID)

    def stop(signum, frame):
        # waitress' loop runs in this (main) thread; closing it from a handler is safe.
        raise SystemExit(0)

    signal.signal(signal.SIGTERM, stop)
    signal.signal(signal.SIGINT, stop)

    def stop_later(reason):
        print(f"dot-test-provider: {reason}; stopping", file=sys.stderr, flush=True)
        os.kill(os.getpid(), signal.SIGTERM)

    if args.watch_stdin:

        def watch_stdin():
            while sys.stdin.buffer.read(4096):
                pass
            stop_later("stdin closed")

        threading.Thread(target=watch_stdin, name="watch-stdin", daemon=True).start()
    if args.max_seconds > 0:
        timer = threading.Timer(args.max_seconds, stop_later, args=("--max-seconds reached",))
        timer.daemon = True
        timer.start()

    origin = f"http://127.0.0.1:{port}"
    ready = {
        "issuer": settings.ISSUER,
        "port": port,
        "origin": origin,
        "discovery_url": f"{settings.ISSUER}/.well-known/openid-configuration",
        "client_id": PUBLIC_CLIENT_ID,
        "device_client_id": DEVICE_CLIENT_ID,
        "device_authorization_endpoint": f"{settings.ISSUER}/device-authorization/",
        "device_verification_uri": f"{settings.ISSUER}/device/",
        "device_endpoint_advertised": args.advertise_device_endpoint,
        "redirect_uris": redirect_uris,
        "scopes": list(settings.OAUTH2_PROVIDER["SCOPES"]),
        "token_endpoint": f"{settings.ISSUER}/token/",
        # DOT has no private_key_jwt (nor client_secret_jwt): see README.md
        "confidential_clients": {
            "secret": {
                "client_id": SECRET_CLIENT_ID,
                "client_secret": client_secrets[SECRET_CLIENT_ID],
                "scopes": list(settings.CLIENT_CREDENTIALS_SCOPES),
                "auth_methods": ["client_secret_post", "client_secret_basic"],
            },
            "not_allowed_scopes": list(settings.CLIENT_CREDENTIALS_OTHER_SCOPES),
        },
        "users": passwords,
        "user_details": USERS,
        "access_token_seconds": args.access_token_seconds,
        "id_token_seconds": args.id_token_seconds,
        "stats_url": f"{origin}/test/stats",
        "settings_url": f"{origin}/test/settings",
        "state_dir": str(state_dir),
        "pid": os.getpid(),
        "startup_seconds": round(time.monotonic() - started, 3),
        "dot_version": oauth2_provider.__version__,
        "django_version": django.get_version(),
        "oauthlib_version": oauthlib.__version__,
    }
    sys.stdout.write(json.dumps(ready) + "\n")
    sys.stdout.flush()

    try:
        server.run()
    except SystemExit:
        pass
    finally:
        server.close()
        # waitress' worker threads may still hold a client's keep-alive connection; they must
        # not keep the process alive once it was told to stop.
        print("dot-test-provider: stopped", file=sys.stderr, flush=True)
        sys.stdout.flush()
        os._exit(0)
    return 0


if __name__ == "__main__":
    sys.exit(main())
