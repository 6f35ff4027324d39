"""Django settings of the throwaway Django OAuth Toolkit provider used by the interop tests.

server.py fills the DOTP_* environment variables before Django starts; nothing here is meant
for production. Every value that changes what the provider does on the wire is listed in
README.md ("Provider settings").
"""

import os
from pathlib import Path

PACKAGE_DIR = Path(__file__).resolve().parent
STATE_DIR = Path(os.environ["DOTP_STATE_DIR"]).resolve()
PORT = int(os.environ["DOTP_PORT"])
ORIGIN = f"http://127.0.0.1:{PORT}"
ISSUER = f"{ORIGIN}/o"

ACCESS_TOKEN_SECONDS = int(os.environ.get("DOTP_ACCESS_TOKEN_SECONDS", "3600"))
ID_TOKEN_SECONDS = int(os.environ.get("DOTP_ID_TOKEN_SECONDS", "3600"))
# True when --id-token-seconds was not given: /test/settings then changes both lifetimes together.
ID_TOKEN_FOLLOWS_ACCESS_TOKEN = os.environ.get("DOTP_ID_TOKEN_FOLLOWS", "1") == "1"
ADVERTISE_DEVICE_ENDPOINT = os.environ.get("DOTP_ADVERTISE_DEVICE_ENDPOINT", "0") == "1"

SECRET_KEY = (STATE_DIR / "django_secret_key").read_text().strip()
DEBUG = False
ALLOWED_HOSTS = ["127.0.0.1", "localhost", "[::1]"]

INSTALLED_APPS = [
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "oauth2_provider",
]

MIDDLEWARE = [
    "django.middleware.security.SecurityMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
]

# No migration files: the throwaway database is created straight from the current models
# (`migrate --run-syncdb`), which takes ~0.3 s instead of ~3 s of migration-state rendering.
MIGRATION_MODULES = {app.rsplit(".", 1)[-1]: None for app in INSTALLED_APPS}

ROOT_URLCONF = "dotprovider.urls"
WSGI_APPLICATION = None

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [PACKAGE_DIR / "templates"],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.contrib.auth.context_processors.auth",
            ],
        },
    },
]

DATABASES = {
    "default": {
        "ENGINE": "django.db.backends.sqlite3",
        "NAME": STATE_DIR / "db.sqlite3",
        "OPTIONS": {
            # The WSGI server is multithreaded: wait for the write lock instead of failing,
            # take it at BEGIN (no lock-upgrade deadlocks) and let readers run beside a writer.
            "timeout": 30,
            "transaction_mode": "IMMEDIATE",
            "init_command": "PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL;",
        },
    }
}

# A fast hasher: the provider is rebuilt for each test run and user passwords are random
# throwaway values; PBKDF2's deliberate slowness would only add seconds to start-up and sign-in.
PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
AUTH_PASSWORD_VALIDATORS = []

LOGIN_URL = "/accounts/login/"
LOGIN_REDIRECT_URL = "/"

LANGUAGE_CODE = "en-us"
TIME_ZONE = "UTC"
USE_I18N = False
USE_TZ = True

STATIC_URL = "/static/"
DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

SESSION_COOKIE_NAME = "dotp_sessionid"
CSRF_COOKIE_NAME = "dotp_csrftoken"

OIDC_RSA_PRIVATE_KEY = (STATE_DIR / "oidc_rsa_private_key.pem").read_text()

# Confidential client(s) of the client-credentials grant (created by server.py) and the scopes
# only they can get (dotprovider.scopes.TestScopes); api.write exists but no client may get it.
CONFIDENTIAL_CLIENT_IDS = ("swift-msal-secret-client",)
CLIENT_CREDENTIALS_SCOPES = {"api.read": "Read the test API (client credentials)"}
CLIENT_CREDENTIALS_OTHER_SCOPES = {"api.write": "Write the test API (no client may get it)"}



def access_token_expires_in(request):
    """oauthlib's token_expires_in, read for every token issued.

    DOT builds its oauthlib server (with token_expires_in=ACCESS_TOKEN_EXPIRE_SECONDS, an int)
    once per view class and caches it, so a value changed at run time by POST /test/settings
    would never reach the token endpoint's expires_in. oauthlib's BearerToken calls a callable
    token_expires_in per token instead, and this one reads DOT's current setting.
    """
    from oauth2_provider.settings import oauth2_settings

    return oauth2_settings.ACCESS_TOKEN_EXPIRE_SECONDS


OAUTH2_PROVIDER = {
    # OpenID Connect, ID tokens signed with the RSA key (RS256; the client's algorithm is RS256).
    "OIDC_ENABLED": True,
    "OIDC_RSA_PRIVATE_KEY": OIDC_RSA_PRIVATE_KEY,
    # A fixed issuer, independent of the Host header the client used.
    "OIDC_ISS_ENDPOINT": ISSUER,
    # RP-initiated logout (end_session_endpoint in discovery). No confirmation page when a
    # valid id_token_hint is given, so a scripted client can log out without a browser.
    "OIDC_RP_INITIATED_LOGOUT_ENABLED": True,
    "OIDC_RP_INITIATED_LOGOUT_ALWAYS_PROMPT": False,
    "SCOPES": {
        "openid": "OpenID Connect sign-in",
        "profile": "Your name and user name",
        "email": "Your e-mail address",
        "offline_access": "Stay signed in (refresh tokens)",
    },
    "DEFAULT_SCOPES": ["openid"],
    # SCOPES for discovery and the public clients; api.read for the confidential client only.
    "SCOPES_BACKEND_CLASS": "dotprovider.scopes.TestScopes",
    # PKCE on every authorization-code request.
    "PKCE_REQUIRED": True,
    # Refresh tokens: a new one on every refresh; presenting a superseded one revokes the
    # whole token family; no grace period.
    "ROTATE_REFRESH_TOKEN": True,
    "REFRESH_TOKEN_REUSE_PROTECTION": True,
    "REFRESH_TOKEN_GRACE_PERIOD_SECONDS": 0,
    "ACCESS_TOKEN_EXPIRE_SECONDS": ACCESS_TOKEN_SECONDS,
    "ID_TOKEN_EXPIRE_SECONDS": ID_TOKEN_SECONDS,
    # expires_in read per token (see access_token_expires_in), so /test/settings takes effect.
    "EXTRA_SERVER_KWARGS": {"token_expires_in": access_token_expires_in},
    "AUTHORIZATION_CODE_EXPIRE_SECONDS": 120,
    # RFC 8252 §7.3: any port on a registered http://127.0.0.1/... redirect URI is accepted
    # by DOT itself; this extends the same to http://localhost/... (the SDK's default host).
    "ALLOW_LOCALHOST_LOOPBACK": True,
    # RFC 8628 device authorization grant: where the user enters the code.
    "OAUTH_DEVICE_VERIFICATION_URI": f"{ORIGIN}/o/device/",
    "OAUTH_DEVICE_VERIFICATION_URI_COMPLETE": f"{ORIGIN}/o/device/?user_code={{user_code}}",
    "DEVICE_FLOW_INTERVAL": 1,
    # ID token / userinfo claims: preferred_username, name, given_name, family_name, email.
    "OAUTH2_VALIDATOR_CLASS": "dotprovider.validator.ClaimsValidator",
}

LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "formatters": {
        "plain": {"format": "%(asctime)s %(levelname)s %(name)s %(threadName)s: %(message)s"},
    },
    "handlers": {
        "stderr": {"class": "logging.StreamHandler", "level": "ERROR", "formatter": "plain"},
        "file": {
            "class": "logging.FileHandler",
            "filename": str(STATE_DIR / "server.log"),
            "level": "DEBUG",
            "formatter": "plain",
        },
    },
    "loggers": {
        "django": {"handlers": ["stderr", "file"], "level": "INFO", "propagate": False},
        "django.db.backends": {"handlers": ["file"], "level": "INFO", "propagate": False},
        "oauth2_provider": {"handlers": ["stderr", "file"], "level": "DEBUG", "propagate": False},
        "oauthlib": {"handlers": ["file"], "level": "DEBUG", "propagate": False},
        "waitress": {"handlers": ["stderr", "file"], "level": "INFO", "propagate": False},
    },
}
