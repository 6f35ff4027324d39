#!/usr/bin/env python3
"""Scripted user agent for the test glewlwyd instance (standard library only).

    python3 login_agent.py AUTHORIZE_URL --username alice --password PW

glewlwyd's login page is a JavaScript single-page app, so this agent does what
that app does, through the same REST API:

  1. GET the authorization URL; glewlwyd answers 302 -> login.html?client_id=..
     &scope=..&callback_url=<the authorization URL>
  2. POST /api/auth/ {"username", "password"}        (session cookie)
  3. GET  /api/auth/grant/{client_id}/{scope}        (what the consent screen shows)
     PUT  /api/auth/grant/{client_id}/ {"scope": "a b c"}   (the "Grant" button;
          space-separated like the SPA sends it -- API.md's "comma" is wrong)
  4. GET callback_url + "&g_continue"                 (the "Continue" button)
     -> 302 to redirect_uri?code=...&state=...[&iss=...]
  5. GET that redirect URL (delivers it to the loopback listener, as a browser
     would) and print it on stdout.

It also completes the device flow when given the verification URL
(.../api/oidc/device?code=XXXX-XXXX): then step 4 ends on
login.html?prompt=deviceComplete and the agent prints that URL.

And RP-initiated logout: given the end_session URL (with id_token_hint and a
registered post_logout_redirect_uri), it confirms the logout like the SPA's
end-session screen (GET/DELETE /api/oidc/session/{sid}, DELETE /api/auth/) and
delivers the post-logout redirect.  This needs the glewlwyd session of the
sign-in, so use the same --cookie-file for both runs.

Exit status: 0 success, 2 provider/login failure, 3 redirect not deliverable,
4 usage/unexpected error.
"""

import argparse
import http.cookiejar
import json
import sys
import time
import urllib.error
import urllib.parse
import urllib.request


class Failure(Exception):
    def __init__(self, msg, code=2):
        super().__init__(msg)
        self.code = code


class _NoRedirect(urllib.request.HTTPRedirectHandler):
    def redirect_request(self, req, fp, code, msg, headers, newurl):
        return None


class Agent:
    def __init__(self, cookie_file=None, timeout=15.0, verbose=False):
        if cookie_file:
            self.jar = http.cookiejar.MozillaCookieJar(cookie_file)
            try:
                self.jar.load(ignore_discard=True, ignore_expires=True)
            except (OSError, http.cookiejar.LoadError):
                pass
        else:
            self.jar = http.cookiejar.CookieJar()
        self.cookie_file = cookie_file
        self.opener = urllib.request.build_opener(urllib.request.HTTPCookieProcessor(self.jar), _NoRedirect())
        self.timeout = timeout
        self.verbose = verbose

    def trace(self, msg):
        if self.verbose:
            sys.stderr.write("[login_agent] %s\n" % msg)

    def request(self, method, url, body=None):
        data, headers = None, {"Accept": "text/html,application/json;q=0.9,*/*;q=0.8",
                               "User-Agent": "swift-msal-login-agent/1"}
        if body is not None:
            data = json.dumps(body).encode()
            headers["Content-Type"] = "application/json"
        req = urllib.request.Request(url, data=data, method=method, headers=headers)
        try:
            resp = self.opener.open(req, timeout=self.timeout)
            status, hdrs, raw = resp.status, resp.headers, resp.read()
            resp.close()
        except urllib.error.HTTPError as err:
            status, hdrs, raw = err.code, err.headers, err.read()
        except urllib.error.URLError as err:
            raise Failure("%s %s failed: %s" % (method, url, err.reason))
        self.trace("%s %s -> %s %s" % (method, url, status, hdrs.get("Location", "")))
        return status, hdrs, raw

    def save(self):
        if self.cookie_file:
            self.jar.save(ignore_discard=True, ignore_expires=True)


def _body_text(raw):
    return raw[:500].decode("utf-8", "replace").strip()


def login_and_grant(agent, api_base, username, password, client_id, scope, logged_in):
    if not logged_in:
        status, _, raw = agent.request("POST", api_base + "/auth/", {"username": username, "password": password})
        if status != 200:
            raise Failure("login failed for user %r: HTTP %s %s" % (username, status, _body_text(raw)))
    if not client_id or not scope:
        return
    scope_path = urllib.parse.quote(scope, safe="")
    client_path = urllib.parse.quote(client_id, safe="")
    status, _, raw = agent.request("GET", "%s/auth/grant/%s/%s" % (api_base, client_path, scope_path))
    if status != 200:
        raise Failure("reading the consent for client %r failed: HTTP %s %s" % (client_id, status, _body_text(raw)))
    try:
        grant = json.loads(raw)
    except ValueError:
        raise Failure("unexpected consent answer: %s" % _body_text(raw))
    # the consent screen lists the requested scopes the user may grant; accept them all
    names = [s["name"] for s in grant.get("scope", [])] or scope.split(" ")
    if all(s.get("granted") for s in grant.get("scope", [])) and grant.get("scope"):
        return
    status, _, raw = agent.request("PUT", "%s/auth/grant/%s/" % (api_base, client_path), {"scope": " ".join(names)})
    if status != 200:
        raise Failure("granting scopes %r to %r failed: HTTP %s %s" % (names, client_id, status, _body_text(raw)))


def has_session(agent, api_base, username):
    """An existing glewlwyd session (e.g. from --cookie-file) whose current user is `username`."""
    status, _, raw = agent.request("GET", api_base + "/profile_list")
    if status != 200:
        return False
    try:
        users = [u.get("username") for u in json.loads(raw)]
    except (ValueError, AttributeError):
        return False
    return bool(users) and (not username or users[0] == username)


def end_session(agent, api_base, query):
    """What the SPA's EndSession screen does when the user confirms the logout."""
    sid = (query.get("sid") or [""])[0]
    plugin = (query.get("plugin") or [""])[0]
    client_id = (query.get("client_id") or [""])[0]
    callback = (query.get("callback_url") or [""])[0]
    post_redirect_to = (query.get("post_redirect_to") or [""])[0]
    if not (sid and plugin and client_id):
        raise Failure("end_session page without sid/plugin/client_id")
    url = "%s/%s/session/%s/%s" % (api_base, plugin, urllib.parse.quote(sid, safe=""),
                                   urllib.parse.quote(client_id, safe=""))
    if post_redirect_to:
        url += "?post_redirect_to=" + urllib.parse.quote(post_redirect_to, safe="")
    status, _, raw = agent.request("GET", url)
    if status != 200:
        raise Failure("end_session: no glewlwyd session for sid %s in this cookie jar (HTTP %s) -- "
                      "use the same --cookie-file as for the sign-in" % (sid, status))
    status, _, raw = agent.request("DELETE", "%s/%s/session/%s" % (api_base, plugin, urllib.parse.quote(sid, safe="")))
    if status != 200:
        raise Failure("end_session: DELETE session failed: HTTP %s %s" % (status, _body_text(raw)))
    agent.request("DELETE", api_base + "/auth/")
    return callback or None


def follow_start_url(agent, url):
    """swift-msal hands a launched browser a single-use start URL on its loopback listener
    (path /msal-start/...) that redirects to the authorization URL, so no secret is on a command
    line: GET it once, without following, and go on from its Location."""
    if not urllib.parse.urlsplit(url).path.startswith("/msal-start/"):
        return url
    status, hdrs, raw = agent.request("GET", url)
    location = hdrs.get("Location")
    if status not in (301, 302, 303, 307, 308) or not location:
        raise Failure("the start URL %s answered HTTP %s without a redirect: %s" % (url, status, _body_text(raw)))
    return urllib.parse.urljoin(url, location)


def run(args):
    agent = Agent(cookie_file=args.cookie_file, timeout=args.timeout, verbose=args.verbose)
    args.url = follow_start_url(agent, args.url)
    start = urllib.parse.urlsplit(args.url)
    if start.scheme not in ("http", "https") or not start.netloc:
        raise Failure("not an absolute http(s) URL: %s" % args.url, 4)
    provider = (start.scheme, start.netloc)
    api_base = "%s://%s%s" % (start.scheme, start.netloc, args.api_prefix)
    deadline = time.monotonic() + args.deadline

    url = args.url
    logged_in = False
    granted_for = set()
    for _hop in range(args.max_hops):
        if time.monotonic() > deadline:
            raise Failure("gave up after %ss" % args.deadline)
        parts = urllib.parse.urlsplit(url)
        if (parts.scheme, parts.netloc) != provider:
            return finish(agent, url, args)
        query = urllib.parse.parse_qs(parts.query, keep_blank_values=True)
        if parts.path.endswith("/" + args.login_page):
            prompt = (query.get("prompt") or [""])[0]
            if prompt == "deviceComplete":
                agent.save()
                print(url)
                return 0
            if prompt in ("deviceCodeError", "deviceServerError"):
                raise Failure("device verification failed: prompt=%s (%s)" % (prompt, url))
            if prompt == "end_session":
                url = end_session(agent, api_base, query)
                if url is None:  # no (registered) post_logout_redirect_uri: logout done, nowhere to go
                    agent.save()
                    print(args.url)
                    return 0
                continue
            if prompt == "single_logout":
                raise Failure("end_session: glewlwyd did not accept the id_token_hint (prompt=single_logout)")
            if not logged_in:
                logged_in = has_session(agent, api_base, args.username)
            if not logged_in and (not args.username or not args.password):
                raise Failure("the provider wants a login but --username/--password were not given "
                              "(and the cookie jar holds no glewlwyd session)")
            callback = (query.get("callback_url") or [""])[0]
            client_id = (query.get("client_id") or [""])[0]
            scope = (query.get("scope") or [""])[0]
            if not callback:
                raise Failure("login page reached without a callback_url (prompt=%r): %s" % (prompt, url))
            key = (client_id, scope)
            if not logged_in or key not in granted_for:
                login_and_grant(agent, api_base, args.username, args.password, client_id, scope, logged_in)
                logged_in = True
                granted_for.add(key)
            elif "g_continue" in urllib.parse.parse_qs(urllib.parse.urlsplit(callback).query, keep_blank_values=True):
                raise Failure("glewlwyd keeps sending the user back to the login page: %s" % url)
            url = callback + ("&" if "?" in callback else "?") + "g_continue"
            continue
        status, hdrs, raw = agent.request("GET", url)
        location = hdrs.get("Location")
        if status in (301, 302, 303, 307, 308) and location:
            url = urllib.parse.urljoin(url, location)
            continue
        if status == 200 and b"<form" in raw and b"form_post" not in raw and parts.path.endswith("/auth"):
            raise Failure("response_mode=form_post is not supported by this agent")
        raise Failure("unexpected answer from the provider: GET %s -> HTTP %s %s" % (url, status, _body_text(raw)))
    raise Failure("too many redirects")


def finish(agent, url, args):
    agent.save()
    query = urllib.parse.parse_qs(urllib.parse.urlsplit(url).query)
    if "error" in query:
        sys.stderr.write("[login_agent] provider returned error=%s %s\n"
                         % (query["error"][0], (query.get("error_description") or [""])[0]))
    print(url)
    sys.stdout.flush()
    if args.no_deliver:
        return 0
    # deliver like a browser: plain GET, no provider cookies, no redirect following
    plain = urllib.request.build_opener(_NoRedirect())
    try:
        with plain.open(urllib.request.Request(url, headers={"User-Agent": "swift-msal-login-agent/1"}),
                        timeout=args.timeout) as resp:
            resp.read()
    except urllib.error.HTTPError as err:
        err.read()  # any HTTP answer means the listener got it
    except (urllib.error.URLError, OSError) as err:
        raise Failure("could not deliver the redirect to %s: %s" % (url, getattr(err, "reason", err)), 3)
    return 0


def main(argv):
    p = argparse.ArgumentParser(description="scripted sign-in against the test glewlwyd")
    p.add_argument("url", help="authorization URL (or device verification URL)")
    p.add_argument("--username", help="required unless the URL only needs an existing session (logout)")
    p.add_argument("--password")
    p.add_argument("--cookie-file", help="persist the glewlwyd session (Mozilla cookie file) between runs")
    p.add_argument("--no-deliver", action="store_true", help="print the redirect URL without GETting it")
    p.add_argument("--timeout", type=float, default=15.0, help="per-request timeout (s)")
    p.add_argument("--deadline", type=float, default=60.0, help="overall time limit (s)")
    p.add_argument("--max-hops", type=int, default=20)
    p.add_argument("--api-prefix", default="/api")
    p.add_argument("--login-page", default="login.html")
    p.add_argument("-v", "--verbose", action="store_true")
    args = p.parse_args(argv)
    try:
        return run(args)
    except Failure as f:
        sys.stderr.write("login_agent: %s\n" % f)
        return f.code
    except Exception as exc:  # noqa: BLE001
        sys.stderr.write("login_agent: unexpected error: %r\n" % (exc,))
        return 4


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
