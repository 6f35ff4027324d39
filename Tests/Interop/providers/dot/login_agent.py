#!/usr/bin/env python3
"""A scripted user agent for the DOT test provider; standard library only (any python3).

    python3 login_agent.py AUTHORIZE_URL --username alice --password PW [--deny] [--timeout 30] [-v]
    python3 login_agent.py VERIFICATION_URI --user-code CODE --username alice --password PW [--deny]

It GETs AUTHORIZE_URL (first following swift-msal's single-use start URL, when given one), signs in on the provider's login form (with its CSRF token), answers
the consent page with "Authorize" (or "Cancel" with --deny), and then delivers the final
redirect -- the first redirect that leaves the provider's origin, e.g.
http://127.0.0.1:PORT/?code=...&state=... -- with a GET, the way a browser would.

Device flow (RFC 8628): given the verification URI (with --user-code CODE) or the
verification_uri_complete, it signs in, enters the code and presses Accept (Deny with --deny);
stdout is then the URL of DOT's device-grant-status page, exit 0 when it says Authorized
(Denied with --deny).

stdout: the final redirect URL, one line, once it was delivered.
exit 0: delivered, and it carries `code` (or `error` with --deny);
exit 3: delivered, but it carries an error (or a code with --deny);
exit 2: failed before the redirect could be delivered (message on stderr);
exit 4: the redirect could not be delivered (nothing listening, timeout...).
"""

import argparse
import http.cookiejar
import sys
import time
import urllib.error
import urllib.parse
import urllib.request
from html.parser import HTMLParser

MAX_STEPS = 25


class AgentError(Exception):
    def __init__(self, message, code=2):
        super().__init__(message)
        self.code = code


class FormParser(HTMLParser):
    """Collects the forms of a page: action, method, id, inputs and submit buttons."""

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.forms = []
        self.text = []
        self._form = None
        self._skip = 0

    def handle_starttag(self, tag, attrs):
        attrs = {name: (value if value is not None else "") for name, value in attrs}
        if tag in ("script", "style"):
            self._skip += 1
        if tag == "form":
            self._form = {
                "id": attrs.get("id", ""),
                "action": attrs.get("action", ""),
                "method": attrs.get("method", "get").lower(),
                "fields": [],
                "submits": [],
            }
            self.forms.append(self._form)
        elif self._form is not None and tag in ("input", "button"):
            kind = attrs.get("type", "submit" if tag == "button" else "text").lower()
            name = attrs.get("name", "")
            value = attrs.get("value", "")
            if kind == "submit":
                self._form["submits"].append((name, value))
            elif kind in ("checkbox", "radio"):
                if "checked" in attrs and name:
                    self._form["fields"].append((name, value or "on"))
            elif name:
                self._form["fields"].append((name, value))

    def handle_endtag(self, tag):
        if tag in ("script", "style") and self._skip:
            self._skip -= 1
        if tag == "form":
            self._form = None

    def handle_data(self, data):
        if not self._skip and data.strip():
            self.text.append(data.strip())


class NoRedirect(urllib.request.HTTPRedirectHandler):
    def redirect_request(self, req, fp, code, msg, headers, newurl):
        return None


def origin_of(url):
    parts = urllib.parse.urlsplit(url)
    return (parts.scheme.lower(), (parts.hostname or "").lower(), parts.port)


class Agent:
    def __init__(self, timeout):
        self.deadline = time.monotonic() + timeout
        self.cookies = http.cookiejar.CookieJar()
        self.opener = urllib.request.build_opener(
            urllib.request.ProxyHandler({}),  # loopback only: never via a proxy
            urllib.request.HTTPCookieProcessor(self.cookies),
            NoRedirect(),
        )

    def remaining(self):
        left = self.deadline - time.monotonic()
        if left <= 0:
            raise AgentError("timed out")
        return left

    def request(self, url, data=None, referer=None):
        """One request, redirects not followed: (status, headers, body text)."""
        body = urllib.parse.urlencode(data).encode() if data is not None else None
        req = urllib.request.Request(url, data=body, method="POST" if body is not None else "GET")
        req.add_header("User-Agent", "swift-msal-login-agent/1")
        if referer:
            req.add_header("Referer", referer)
        if body is not None:
            req.add_header("Content-Type", "application/x-www-form-urlencoded")
            parts = urllib.parse.urlsplit(url)
            req.add_header("Origin", f"{parts.scheme}://{parts.netloc}")
        try:
            with self.opener.open(req, timeout=self.remaining()) as resp:
                return resp.status, resp.headers, resp.read().decode("utf-8", "replace")
        except urllib.error.HTTPError as error:
            return error.code, error.headers, error.read().decode("utf-8", "replace")


def summarize(text, limit=400):
    parser = FormParser()
    parser.feed(text)
    summary = " | ".join(parser.text)
    return summary[:limit] + ("..." if len(summary) > limit else "")


def run(authorize_url, username, password, deny, timeout, verbose, user_code=None):
    agent = Agent(timeout)
    authorize_url = follow_start_url(agent, authorize_url, log=(lambda m: print(f"login_agent: {m}", file=sys.stderr)) if verbose else None)
    provider = origin_of(authorize_url)
    url, data, referer = authorize_url, None, None
    logged_in = consented = entered_code = False

    def log(message):
        if verbose:
            print(f"login_agent: {message}", file=sys.stderr)

    for _ in range(MAX_STEPS):
        try:
            status, headers, text = agent.request(url, data, referer)
        except AgentError:
            raise
        except Exception as error:  # connection refused, reset, timeout...
            raise AgentError(f"request to {url} failed: {error}")
        log(f"{'POST' if data is not None else 'GET'} {url} -> {status}")

        if status in (301, 302, 303, 307, 308):
            location = headers.get("Location")
            if not location:
                raise AgentError(f"{status} without Location from {url}")
            target = urllib.parse.urljoin(url, location)
            if origin_of(target) != provider:
                return deliver(agent, target, deny, log)
            url, data, referer = target, None, url
            continue

        if status != 200:
            raise AgentError(f"HTTP {status} from {url}: {summarize(text)}")

        parser = FormParser()
        parser.feed(text)
        login_form = next(
            (f for f in parser.forms if {"username", "password"} <= {n for n, _ in f["fields"]}), None
        )
        consent_form = next((f for f in parser.forms if f["id"] == "authorizationForm"), None)

        if login_form is not None:
            if logged_in:
                raise AgentError(f"sign-in as {username!r} was rejected: {summarize(text)}")
            fields = [(n, v) for n, v in login_form["fields"] if n not in ("username", "password")]
            fields += [("username", username), ("password", password)]
            url, data, referer = urllib.parse.urljoin(url, login_form["action"] or url), fields, url
            logged_in = True
            continue

        if consent_form is not None:
            if consented:
                raise AgentError(f"the consent page came back after answering it: {summarize(text)}")
            fields = list(consent_form["fields"])
            if not deny:
                allow = next(((n, v) for n, v in consent_form["submits"] if n == "allow"), None)
                if allow is None:
                    raise AgentError("the consent page has no 'allow' button")
                fields.append(allow)
            url, data, referer = urllib.parse.urljoin(url, consent_form["action"] or url), fields, url
            consented = True
            continue

        # RFC 8628 device flow pages: enter the user code, then accept or deny.
        code_form = next((f for f in parser.forms if "user_code" in {n for n, _ in f["fields"]}), None)
        action_form = next((f for f in parser.forms if any(n == "action" for n, _ in f["submits"])), None)
        if "/device-grant-status/" in urllib.parse.urlsplit(url).path:
            outcome = " ".join(parser.text)
            print(url, flush=True)
            log(f"device grant status page: {outcome}")
            if ("Denied" if deny else "Authorized") in outcome:
                return 0
            raise AgentError(f"the device grant ended as: {summarize(text)}", code=3)
        if code_form is not None:
            if entered_code:
                raise AgentError(f"the user code was not accepted: {summarize(text)}")
            fields = [(n, v) for n, v in code_form["fields"] if n != "user_code"]
            code = user_code or dict(code_form["fields"]).get("user_code", "")
            if not code:
                raise AgentError("the device page asks for a user code: pass --user-code or a verification_uri_complete")
            fields.append(("user_code", code))
            fields += [submit for submit in code_form["submits"] if submit[0]]
            url, data, referer = urllib.parse.urljoin(url, code_form["action"] or url), fields, url
            entered_code = True
            continue
        if action_form is not None:
            if consented:
                raise AgentError(f"the device confirmation page came back: {summarize(text)}")
            fields = list(action_form["fields"]) + [("action", "deny" if deny else "accept")]
            url, data, referer = urllib.parse.urljoin(url, action_form["action"] or url), fields, url
            consented = True
            continue

        raise AgentError(f"unexpected page at {url}: {summarize(text)}")

    raise AgentError(f"more than {MAX_STEPS} steps without reaching the redirect")


def follow_start_url(agent, url, log=None):
    """swift-msal hands a launched browser a single-use start URL on its loopback listener, which
    redirects to the authorization URL (so no secret is on a command line): for a URL whose path
    starts with /msal-start/, GET it once, without following, and continue at its Location."""
    if not urllib.parse.urlsplit(url).path.startswith("/msal-start/"):
        return url
    try:
        status, headers, text = agent.request(url)
    except AgentError:
        raise
    except Exception as error:
        raise AgentError(f"request to the start URL {url} failed: {error}")
    if log:
        log(f"GET {url} -> {status} (start URL)")
    location = headers.get("Location")
    if status not in (301, 302, 303, 307, 308) or not location:
        raise AgentError(f"the start URL {url} answered HTTP {status} without a redirect: {summarize(text)}")
    return urllib.parse.urljoin(url, location)


def deliver(agent, target, deny, log):
    """GET the loopback redirect like a browser; report whether it carries the expected result."""
    params = urllib.parse.parse_qs(urllib.parse.urlsplit(target).query)
    try:
        status, _, text = agent.request(target)
        log(f"GET {target} -> {status} (listener)")
    except AgentError:
        raise AgentError(f"timed out delivering the redirect to {target}", code=4)
    except Exception as error:
        raise AgentError(f"could not deliver the redirect to {target}: {error}", code=4)
    print(target, flush=True)
    if deny:
        if "error" in params:
            return 0
        raise AgentError("--deny was given but the redirect carries no error", code=3)
    if "code" in params:
        return 0
    description = params.get("error_description", [""])[0]
    raise AgentError(f"the redirect carries error={params.get('error', ['?'])[0]} {description}".strip(), code=3)


def main(argv=None):
    parser = argparse.ArgumentParser(description="Sign in on the DOT test provider without a browser.")
    parser.add_argument("authorize_url")
    parser.add_argument("--username", required=True)
    parser.add_argument("--password", required=True)
    parser.add_argument("--deny", action="store_true", help="press Cancel on the consent page")
    parser.add_argument("--user-code", help="device flow: the user code to enter on the verification page")
    parser.add_argument("--timeout", type=float, default=30.0, help="seconds for the whole sign-in")
    parser.add_argument("--verbose", "-v", action="store_true", help="log each step on stderr")
    args = parser.parse_args(argv)
    try:
        return run(args.authorize_url, args.username, args.password, args.deny, args.timeout, args.verbose,
                   args.user_code)
    except AgentError as error:
        print(f"login_agent: {error}", file=sys.stderr)
        return error.code


if __name__ == "__main__":
    sys.exit(main())
