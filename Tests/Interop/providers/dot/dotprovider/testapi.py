"""Test-only WSGI layer in front of Django: counters, a request log, run-time test controls.

Routes it answers itself (never passed to Django, never counted, never logged):

    GET  /test/stats              counters since start or the last reset, plus the parameter and
                                  header NAMES of the recent token and end-session requests, and
                                  refresh_tokens: {grants, failures, reused} (a refresh token
                                  presented a second time; digests kept, never values) (JSON)
    POST /test/stats/reset        zero the counters; answers the counters as they were
    GET  /test/settings           the run-time test settings (JSON)
    POST /test/settings           change any subset of them: JSON body, e.g.
                                  {"access_token_seconds": 5, "refresh_id_token": false,
                                   "fail_next_token_requests": {"count": 2, "status": 503}}
    POST /test/settings/reset     back to the values the server started with
    GET  /test/redirect-uris      redirect URIs of the clients (JSON)
    POST /test/redirect-uris      add redirect URIs to a client: JSON body
                                  {"redirect_uris": ["http://127.0.0.1:1234/cb"], "client_id": "..."}
                                  (client_id defaults to the public client)

Every other request is counted by "METHOD /path" and by endpoint name, appended to the
request log as one JSON object per line, and handed to Django. Token-endpoint POSTs and
end-session requests are also described (names only, never values, except grant_type) in
/test/stats; token-endpoint POSTs may be answered here (injected failures) or have their
response rewritten (id_token removed from refresh responses) according to /test/settings.
"""

import collections
import hashlib
import http
import io
import json
import threading
import time
from urllib.parse import parse_qs, parse_qsl

TOKEN_PATH = "/o/token/"
LOGOUT_PATH = "/o/logout/"

# (method or None for any, path) -> endpoint name used in /test/stats "endpoints".
ENDPOINTS = {
    ("POST", TOKEN_PATH): "token",
    ("GET", "/o/authorize/"): "authorize",
    ("POST", "/o/authorize/"): "authorize_consent",
    (None, "/o/userinfo/"): "userinfo",
    ("GET", "/o/.well-known/jwks.json"): "jwks",
    ("GET", "/o/.well-known/openid-configuration"): "discovery",
    ("GET", "/o/.well-known/openid-configuration/"): "discovery",
    ("GET", "/o/.well-known/oauth-authorization-server"): "oauth_metadata",
    ("POST", "/o/device-authorization/"): "device_authorization",
    (None, "/o/device/"): "device_user_code",
    (None, LOGOUT_PATH): "logout",
    ("POST", "/o/revoke_token/"): "revoke",
    ("POST", "/o/introspect/"): "introspect",
    ("GET", "/accounts/login/"): "login_page",
    ("POST", "/accounts/login/"): "login_post",
}

ALL_ENDPOINT_NAMES = sorted(set(ENDPOINTS.values()))

# How many token / end-session requests /test/stats describes (the most recent ones).
RECENT_LIMIT = 50

# Upper bound for the lifetimes /test/settings accepts (ten years).
MAX_LIFETIME_SECONDS = 10 * 365 * 86400

# Request bodies larger than this are not buffered for inspection (token requests are tiny).
MAX_INSPECTED_BODY = 1 << 20

SETTING_KEYS = ("access_token_seconds", "id_token_seconds", "refresh_id_token", "fail_next_token_requests")


def endpoint_name(method, path):
    return ENDPOINTS.get((method, path)) or ENDPOINTS.get((None, path))


def header_names(environ):
    """The request's header names, lower-case, sorted (WSGI keeps no case; waitress drops names
    containing "_", so "-" here is exactly what the client sent)."""
    names = {key[5:].lower().replace("_", "-") for key in environ if key.startswith("HTTP_")}
    if environ.get("CONTENT_TYPE"):
        names.add("content-type")
    if environ.get("CONTENT_LENGTH"):
        names.add("content-length")
    return sorted(names)


def param_names(pairs):
    """Names in the order sent, repeated names repeated."""
    return [name for name, _ in pairs]


def reason(status):
    try:
        return http.HTTPStatus(status).phrase
    except ValueError:
        return "Unknown"


class SettingsError(ValueError):
    pass


def lifetime(key, value):
    if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value <= MAX_LIFETIME_SECONDS:
        raise SettingsError(f"{key} must be an integer from 0 to {MAX_LIFETIME_SECONDS}")
    return value


def default_error(status):
    if status == 503:
        return "temporarily_unavailable"
    if status >= 500:
        return "server_error"
    if status == 401:
        return "invalid_client"
    return "invalid_request"


def failure_plan(value):
    """Validates "fail_next_token_requests"; None (or count 0) means no injected failures."""
    if value is None:
        return None
    if not isinstance(value, dict):
        raise SettingsError('fail_next_token_requests must be null or {"count": N, "status": 400..599}')
    unknown = set(value) - {"count", "status", "error", "error_description", "retry_after"}
    if unknown:
        raise SettingsError(f"fail_next_token_requests: unknown member(s) {sorted(unknown)}")
    count = value.get("count", 1)
    status = value.get("status", 503)
    if isinstance(count, bool) or not isinstance(count, int) or count < 0:
        raise SettingsError("fail_next_token_requests.count must be an integer >= 0")
    if isinstance(status, bool) or not isinstance(status, int) or not 400 <= status <= 599:
        raise SettingsError("fail_next_token_requests.status must be an integer from 400 to 599")
    error = value.get("error") or default_error(status)
    description = value.get("error_description", "injected by POST /test/settings (fail_next_token_requests)")
    retry_after = value.get("retry_after")
    if not isinstance(error, str) or not (description is None or isinstance(description, str)):
        raise SettingsError("fail_next_token_requests.error and .error_description must be strings")
    if retry_after is not None and (isinstance(retry_after, bool) or not isinstance(retry_after, int)
                                    or retry_after < 0):
        raise SettingsError("fail_next_token_requests.retry_after must be null or an integer >= 0")
    if count == 0:
        return None
    return {"count": count, "status": status, "error": error, "error_description": description,
            "retry_after": retry_after}


class TestAPI:
    def __init__(self, app, log_path, default_client_id):
        from django.conf import settings
        from oauth2_provider.settings import oauth2_settings

        self.app = app
        self.log_path = log_path
        self.default_client_id = default_client_id
        self.lock = threading.Lock()
        self.log_file = open(log_path, "a", buffering=1, encoding="utf-8")
        self.oauth2_settings = oauth2_settings
        # Read both lifetimes once now, so DOT's lazy first read (OAuth2ProviderSettings.__getattr__
        # caches with setattr) can never race with, and undo, a change made by /test/settings.
        self.defaults = {
            "access_token_seconds": oauth2_settings.ACCESS_TOKEN_EXPIRE_SECONDS,
            "id_token_seconds": oauth2_settings.ID_TOKEN_EXPIRE_SECONDS,
            "id_token_follows_access_token": bool(getattr(settings, "ID_TOKEN_FOLLOWS_ACCESS_TOKEN", False)),
            "refresh_id_token": True,
            "fail_next_token_requests": None,
        }
        self._reset_locked()
        self._reset_settings_locked()

    # -- counters -------------------------------------------------------------------

    def _reset_locked(self):
        self.by_path = {}
        self.endpoints = {name: 0 for name in ALL_ENDPOINT_NAMES}
        self.total = 0
        self.since = time.time()
        self.token_requests = collections.deque(maxlen=RECENT_LIMIT)
        self.logout_requests = collections.deque(maxlen=RECENT_LIMIT)
        # Refresh grants: how many, how many answered other than 200, and how many presented a
        # refresh token already presented before (kept as SHA-256 digests, never the values).
        self.refresh_presented = set()
        self.refresh_grants = 0
        self.refresh_failures = 0
        self.refresh_reuses = 0

    def _snapshot_locked(self):
        return {
            "total": self.total,
            "endpoints": dict(self.endpoints),
            "by_path": dict(self.by_path),
            "since": self.since,
            "recent_limit": RECENT_LIMIT,
            "token_requests": [json.loads(json.dumps(r)) for r in self.token_requests],
            "logout_requests": [json.loads(json.dumps(r)) for r in self.logout_requests],
            "refresh_tokens": {
                "grants": self.refresh_grants,
                "failures": self.refresh_failures,
                "reused": self.refresh_reuses,
            },
        }

    def snapshot(self):
        with self.lock:
            return self._snapshot_locked()

    def count(self, method, path, name, record=None):
        key = f"{method} {path}"
        with self.lock:
            self.total += 1
            self.by_path[key] = self.by_path.get(key, 0) + 1
            if name:
                self.endpoints[name] += 1
            if record is not None:
                (self.token_requests if name == "token" else self.logout_requests).append(record)

    # -- run-time settings ----------------------------------------------------------

    def _set_dot_setting(self, name, value):
        # oauth2_settings answers from an instance attribute once read; its user_settings dict
        # (the very dict of settings.OAUTH2_PROVIDER) is what a first read or a reload() uses.
        # Setting both makes every later reader see the value. The token endpoint reads
        # ACCESS_TOKEN_EXPIRE_SECONDS per token through settings.EXTRA_SERVER_KWARGS
        # ["token_expires_in"] (DOT caches its oauthlib server, which would otherwise keep the
        # start value), the ID token's exp is computed from ID_TOKEN_EXPIRE_SECONDS per token.
        self.oauth2_settings.user_settings[name] = value
        setattr(self.oauth2_settings, name, value)

    def _reset_settings_locked(self):
        self.id_token_follows = self.defaults["id_token_follows_access_token"]
        self.refresh_id_token = True
        self.fail_plan = None
        self._set_dot_setting("ACCESS_TOKEN_EXPIRE_SECONDS", self.defaults["access_token_seconds"])
        self._set_dot_setting("ID_TOKEN_EXPIRE_SECONDS", self.defaults["id_token_seconds"])

    def _settings_locked(self):
        return {
            "access_token_seconds": self.oauth2_settings.ACCESS_TOKEN_EXPIRE_SECONDS,
            "id_token_seconds": self.oauth2_settings.ID_TOKEN_EXPIRE_SECONDS,
            "id_token_follows_access_token": self.id_token_follows,
            "refresh_id_token": self.refresh_id_token,
            "fail_next_token_requests": dict(self.fail_plan) if self.fail_plan else None,
            "defaults": dict(self.defaults),
        }

    def change_settings(self, body):
        if not isinstance(body, dict):
            raise SettingsError("the body must be a JSON object")
        unknown = set(body) - set(SETTING_KEYS)
        if unknown:
            raise SettingsError(f"unknown setting(s) {sorted(unknown)}; known: {list(SETTING_KEYS)}")
        # Validate everything first: a request either applies completely or not at all.
        access = lifetime("access_token_seconds", body["access_token_seconds"]) \
            if "access_token_seconds" in body else None
        id_given = "id_token_seconds" in body
        id_seconds = None
        if id_given and body["id_token_seconds"] is not None:
            id_seconds = lifetime("id_token_seconds", body["id_token_seconds"])
        if "refresh_id_token" in body and not isinstance(body["refresh_id_token"], bool):
            raise SettingsError("refresh_id_token must be true or false")
        plan = failure_plan(body["fail_next_token_requests"]) if "fail_next_token_requests" in body else None
        with self.lock:
            if access is not None:
                self._set_dot_setting("ACCESS_TOKEN_EXPIRE_SECONDS", access)
            if id_given:
                self.id_token_follows = id_seconds is None   # null: follow the access-token lifetime again
                if id_seconds is not None:
                    self._set_dot_setting("ID_TOKEN_EXPIRE_SECONDS", id_seconds)
            if self.id_token_follows:
                self._set_dot_setting("ID_TOKEN_EXPIRE_SECONDS", self.oauth2_settings.ACCESS_TOKEN_EXPIRE_SECONDS)
            if "refresh_id_token" in body:
                self.refresh_id_token = body["refresh_id_token"]
            if "fail_next_token_requests" in body:
                self.fail_plan = plan
            return self._settings_locked()

    def take_failure(self):
        """The injected failure for this token request, if one is pending (counts it down)."""
        with self.lock:
            plan = self.fail_plan
            if not plan:
                return None
            plan["count"] -= 1
            if plan["count"] <= 0:
                self.fail_plan = None
            return dict(plan)

    # -- WSGI -----------------------------------------------------------------------

    def __call__(self, environ, start_response):
        method = environ.get("REQUEST_METHOD", "GET")
        path = environ.get("PATH_INFO", "/")
        if path == "/test" or path.startswith("/test/"):
            return self.handle_test(method, path, environ, start_response)

        name = endpoint_name(method, path)
        record = None
        if name in ("token", "logout"):
            record = self.describe(name, method, environ)
        self.count(method, path, name, record)
        started = time.time()
        seen = {}

        def recording_start_response(status, headers, exc_info=None):
            seen["status"] = int(status.split(" ", 1)[0])
            for header, value in headers:
                if header.lower() == "location":
                    seen["location"] = value
            return start_response(status, headers, exc_info)

        try:
            if name == "token":
                return self.token_request(environ, recording_start_response, record)
            return self.app(environ, recording_start_response)
        finally:
            entry = {
                "t": round(started, 3),
                "method": method,
                "path": path,
                "query": environ.get("QUERY_STRING", ""),
                "endpoint": name,
                "status": seen.get("status"),
                "ms": round((time.time() - started) * 1000, 1),
            }
            if "location" in seen:
                entry["location"] = seen["location"]
            if name == "token":
                entry["grant_type"] = record["grant_type"]
                if record["injected_failure"]:
                    entry["injected_failure"] = True
                if record["id_token_removed"]:
                    entry["id_token_removed"] = True
            with self.lock:
                if record is not None:
                    record["status"] = seen.get("status")
                    if name == "token" and record.get("grant_type") == "refresh_token" and seen.get("status") != 200:
                        self.refresh_failures += 1
                self.log_file.write(json.dumps(entry) + "\n")

    def describe(self, name, method, environ):
        """Names (not values) of the query and form parameters and headers; grant_type's value.
        Buffers the request body and hands Django an identical copy."""
        query = parse_qsl(environ.get("QUERY_STRING", ""), keep_blank_values=True)
        form = []
        content_type = environ.get("CONTENT_TYPE", "")
        length = int(environ.get("CONTENT_LENGTH") or 0)
        if method == "POST" and 0 < length <= MAX_INSPECTED_BODY:
            raw = environ["wsgi.input"].read(length)
            environ["wsgi.input"] = io.BytesIO(raw)
            environ["CONTENT_LENGTH"] = str(len(raw))
            if content_type.split(";")[0].strip().lower() == "application/x-www-form-urlencoded":
                form = parse_qsl(raw.decode("utf-8", "replace"), keep_blank_values=True)
        record = {"t": round(time.time(), 3), "method": method}
        if name == "token":
            grant_types = [value for key, value in form if key == "grant_type"]
            if grant_types[:1] == ["refresh_token"]:
                presented = [value for key, value in form if key == "refresh_token"]
                digest = hashlib.sha256(presented[0].encode("utf-8")).hexdigest() if presented else None
                with self.lock:
                    self.refresh_grants += 1
                    if digest is not None:
                        if digest in self.refresh_presented:
                            self.refresh_reuses += 1
                        self.refresh_presented.add(digest)
            record.update({
                "grant_type": grant_types[0] if grant_types else None,
                "params": param_names(form),
                "query_params": param_names(query),
                "headers": header_names(environ),
                "content_type": content_type or None,
                "status": None,
                "injected_failure": False,
                "id_token_removed": False,
            })
        else:
            record.update({
                "query_params": param_names(query),
                "form_params": param_names(form),
                "headers": header_names(environ),
                "status": None,
            })
        return record

    def token_request(self, environ, start_response, record):
        failure = self.take_failure()
        if failure:
            with self.lock:
                record["injected_failure"] = True
            payload = {"error": failure["error"]}
            if failure["error_description"]:
                payload["error_description"] = failure["error_description"]
            extra = [("Pragma", "no-cache")]
            if failure["retry_after"] is not None:
                extra.append(("Retry-After", str(failure["retry_after"])))
            return self.json(start_response, failure["status"], payload, extra)

        with self.lock:
            strip_id_token = not self.refresh_id_token
        if not (strip_id_token and record["grant_type"] == "refresh_token"):
            return self.app(environ, start_response)

        # Buffer DOT's response, drop "id_token" from a successful one, fix Content-Length.
        captured = {}
        chunks = []

        def capture(status, headers, exc_info=None):
            captured["status"], captured["headers"] = status, list(headers)
            return chunks.append

        result = self.app(environ, capture)
        try:
            for chunk in result:
                chunks.append(chunk)
        finally:
            if hasattr(result, "close"):
                result.close()
        body = b"".join(chunks)
        status, headers = captured["status"], captured["headers"]
        content_type = next((v for k, v in headers if k.lower() == "content-type"), "")
        if status.startswith("200") and content_type.startswith("application/json"):
            try:
                token = json.loads(body)
            except ValueError:
                token = None
            if isinstance(token, dict) and "id_token" in token:
                del token["id_token"]
                body = json.dumps(token).encode("utf-8")   # oauthlib's json.dumps, minus one member
                with self.lock:
                    record["id_token_removed"] = True
                headers = [(k, v) for k, v in headers if k.lower() != "content-length"]
                headers.append(("Content-Length", str(len(body))))
        start_response(status, headers)
        return [body]

    def handle_test(self, method, path, environ, start_response):
        try:
            if path == "/test/stats" and method == "GET":
                return self.json(start_response, 200, self.snapshot())
            if path == "/test/stats/reset" and method == "POST":
                with self.lock:
                    before = self._snapshot_locked()
                    self._reset_locked()
                return self.json(start_response, 200, before)
            if path == "/test/settings" and method == "GET":
                with self.lock:
                    return self.json(start_response, 200, self._settings_locked())
            if path == "/test/settings" and method == "POST":
                length = int(environ.get("CONTENT_LENGTH") or 0)
                raw = environ["wsgi.input"].read(length) if length else b""
                try:
                    body = json.loads(raw or b"{}")
                except ValueError:
                    return self.json(start_response, 400, {"error": "invalid_request", "detail": "body is not JSON"})
                try:
                    return self.json(start_response, 200, self.change_settings(body))
                except SettingsError as error:
                    return self.json(start_response, 400, {"error": "invalid_request", "detail": str(error)})
            if path == "/test/settings/reset" and method == "POST":
                with self.lock:
                    self._reset_settings_locked()
                    return self.json(start_response, 200, self._settings_locked())
            if path == "/test/redirect-uris" and method == "GET":
                return self.json(start_response, 200, self.list_redirect_uris())
            if path == "/test/redirect-uris" and method == "POST":
                return self.add_redirect_uris(environ, start_response)
            return self.json(start_response, 404, {"error": "not_found", "path": path, "method": method})
        except Exception as error:  # a test endpoint must never take the server down
            return self.json(start_response, 500, {"error": "server_error", "detail": repr(error)})

    # -- redirect URIs ----------------------------------------------------------------

    def list_redirect_uris(self):
        from django.db import close_old_connections
        from oauth2_provider.models import get_application_model

        try:
            return {
                app.client_id: app.redirect_uris.split()
                for app in get_application_model().objects.order_by("id")
            }
        finally:
            close_old_connections()

    def add_redirect_uris(self, environ, start_response):
        from django.db import close_old_connections, transaction
        from oauth2_provider.models import get_application_model

        length = int(environ.get("CONTENT_LENGTH") or 0)
        raw = environ["wsgi.input"].read(length) if length else b""
        content_type = environ.get("CONTENT_TYPE", "")
        if content_type.startswith("application/x-www-form-urlencoded"):
            form = parse_qs(raw.decode("utf-8"))
            body = {
                "redirect_uris": form.get("redirect_uri", []) + form.get("redirect_uris", []),
                "client_id": (form.get("client_id") or [None])[0],
            }
        else:
            try:
                body = json.loads(raw or b"{}")
            except ValueError:
                return self.json(start_response, 400, {"error": "invalid_request", "detail": "body is not JSON"})
        uris = body.get("redirect_uris") or []
        if isinstance(uris, str):
            uris = [uris]
        if body.get("redirect_uri"):
            uris.append(body["redirect_uri"])
        if not uris or not all(isinstance(u, str) and u and " " not in u for u in uris):
            return self.json(
                start_response, 400, {"error": "invalid_request", "detail": "redirect_uris must be non-empty URIs"}
            )
        client_id = body.get("client_id") or self.default_client_id
        Application = get_application_model()
        try:
            with transaction.atomic():
                try:
                    app = Application.objects.get(client_id=client_id)
                except Application.DoesNotExist:
                    return self.json(start_response, 404, {"error": "unknown_client", "client_id": client_id})
                current = app.redirect_uris.split()
                logout_current = app.post_logout_redirect_uris.split()
                for uri in uris:
                    if uri not in current:
                        current.append(uri)
                    if uri not in logout_current:
                        logout_current.append(uri)
                app.redirect_uris = " ".join(current)
                app.post_logout_redirect_uris = " ".join(logout_current)
                app.save(update_fields=["redirect_uris", "post_logout_redirect_uris"])
            return self.json(start_response, 200, {"client_id": client_id, "redirect_uris": current})
        finally:
            close_old_connections()

    @staticmethod
    def json(start_response, status, payload, extra_headers=()):
        body = json.dumps(payload).encode("utf-8")
        start_response(
            f"{status} {reason(status)}",
            [("Content-Type", "application/json"), ("Content-Length", str(len(body))), ("Cache-Control", "no-store"),
             *extra_headers],
        )
        return [body]
