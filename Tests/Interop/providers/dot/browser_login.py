#!/usr/bin/env python3
"""Signs in on the DOT test provider with real headless Chromium (selenium + Debian's chromedriver).

    .build/oidc-venv/bin/python browser_login.py AUTHORIZE_URL --username alice --password PW
        [--deny] [--timeout 60] [--screenshot FILE]

It opens AUTHORIZE_URL, fills DOT's login form, presses "Authorize" (or "Cancel" with --deny)
on the consent page, and waits until the browser has loaded the redirect outside the provider's
origin (the page of the app's loopback listener, e.g. http://127.0.0.1:PORT/?code=...).

stdout: the URL of the loaded redirect, one line. exit 0: loaded, carrying `code` (or `error`
with --deny); 3: loaded, unexpected result; 4: the redirect reached no listener; 2: anything
else (message on stderr).
Selenium Manager is never used: the driver and browser paths are explicit, so nothing is
downloaded.
"""

import argparse
import os
import shutil
import signal
import sys
import tempfile
import time
import urllib.parse

CHROMEDRIVER = os.environ.get("DOTP_CHROMEDRIVER", "/usr/bin/chromedriver")
CHROMIUM = os.environ.get("DOTP_CHROMIUM", "/usr/bin/chromium")


def is_start_url(url):
    return urllib.parse.urlsplit(url).path.startswith("/msal-start/")


def origin_of(url):
    parts = urllib.parse.urlsplit(url)
    return (parts.scheme.lower(), (parts.hostname or "").lower(), parts.port)


class Failure(Exception):
    def __init__(self, message, code=2):
        super().__init__(message)
        self.code = code


def make_driver(profile_dir, log_path):
    # No telemetry, no Selenium Manager; set before selenium is imported.
    os.environ.setdefault("SE_AVOID_STATS", "true")
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    for path in (CHROMEDRIVER, CHROMIUM):
        if not os.access(path, os.X_OK):
            raise Failure(f"{path} is missing: apt-get install chromium chromium-driver")

    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM
    for argument in (
        "--headless=new",
        f"--user-data-dir={profile_dir}",
        "--no-first-run",
        "--no-default-browser-check",
        "--disable-gpu",
        "--disable-dev-shm-usage",
        "--disable-extensions",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
        "--disable-features=Translate,OptimizationHints,MediaRouter,AutofillServerCommunication",
        "--metrics-recording-only",
        "--no-proxy-server",
        "--password-store=basic",
        "--window-size=1024,768",
    ):
        options.add_argument(argument)
    if os.geteuid() == 0:
        options.add_argument("--no-sandbox")
    options.page_load_strategy = "normal"
    service = Service(executable_path=CHROMEDRIVER, log_output=log_path)
    return webdriver.Chrome(service=service, options=options)


def sign_in(driver, authorize_url, username, password, deny, deadline):
    from selenium.common.exceptions import WebDriverException
    from selenium.webdriver.common.by import By

    remaining = lambda: max(0.5, deadline - time.monotonic())  # noqa: E731
    driver.set_page_load_timeout(remaining())
    driver.get(authorize_url)
    # swift-msal's single-use start URL (/msal-start/... on the loopback listener) redirects the
    # browser to the provider: the provider is where the browser landed.
    provider = origin_of(driver.current_url if is_start_url(authorize_url) else authorize_url)

    logged_in = consented = False
    while time.monotonic() < deadline:
        current = driver.current_url
        if origin_of(current) != provider and current.startswith("http"):
            # Left the provider: wait until the listener's page has finished loading.
            while driver.execute_script("return document.readyState") != "complete":
                if time.monotonic() >= deadline:
                    raise Failure(f"the redirect page {current} did not finish loading")
                time.sleep(0.05)
            # A navigation that reached no server (nothing listening) ends on Chromium's error
            # page, whose navigation entry has no HTTP status.
            status = driver.execute_script(
                "const n = performance.getEntriesByType('navigation')[0];"
                "return n && typeof n.responseStatus === 'number' ? n.responseStatus : -1;"
            )
            if status == 0:
                raise Failure(f"the redirect to {current} was not delivered (nothing answered)", code=4)
            return current

        try:
            login_fields = driver.find_elements(By.NAME, "password")
            consent_forms = driver.find_elements(By.ID, "authorizationForm")
        except WebDriverException:
            time.sleep(0.05)  # page changing under us
            continue

        if login_fields and not logged_in:
            driver.find_element(By.NAME, "username").send_keys(username)
            login_fields[0].send_keys(password)
            driver.find_element(By.CSS_SELECTOR, "form button[type=submit], form input[type=submit]").click()
            logged_in = True
        elif login_fields and logged_in and driver.find_elements(By.ID, "login-error"):
            raise Failure(f"sign-in as {username!r} was rejected")
        elif consent_forms and not consented:
            form = consent_forms[0]
            if deny:
                button = form.find_element(By.CSS_SELECTOR, "input[type=submit]:not([name=allow])")
            else:
                button = form.find_element(By.CSS_SELECTOR, "input[type=submit][name=allow]")
            button.click()
            consented = True
        elif not login_fields and not consent_forms and driver.execute_script(
            "return document.readyState"
        ) == "complete" and driver.find_elements(By.TAG_NAME, "h2"):
            # DOT's error page (e.g. an unregistered redirect URI) has an <h2>Error: ...</h2>.
            heading = driver.find_element(By.TAG_NAME, "h2").text
            if heading.startswith("Error"):
                body = driver.find_element(By.TAG_NAME, "body").text.replace("\n", " | ")
                raise Failure(f"the provider shows an error at {current}: {body[:400]}")
        time.sleep(0.05)
    raise Failure(f"timed out; the browser is at {driver.current_url}")


def main(argv=None):
    parser = argparse.ArgumentParser(description="Sign in on the DOT test provider with headless Chromium.")
    parser.add_argument("authorize_url")
    parser.add_argument("--username", required=True)
    parser.add_argument("--password", required=True)
    parser.add_argument("--deny", action="store_true", help="press Cancel on the consent page")
    parser.add_argument("--timeout", type=float, default=60.0, help="seconds for everything (default 60)")
    parser.add_argument("--screenshot", help="save a PNG of the last page here")
    parser.add_argument("--driver-log", help="chromedriver's log file (default: discarded)")
    args = parser.parse_args(argv)

    deadline = time.monotonic() + args.timeout

    def watchdog(signum, frame):
        raise Failure(f"gave up after {args.timeout:.0f} s")

    # A hard limit even if chromedriver or Chromium hangs inside a selenium call.
    signal.signal(signal.SIGALRM, watchdog)
    signal.alarm(int(args.timeout) + 5)
    profile_dir = tempfile.mkdtemp(prefix="dotp-chromium-")
    driver = None
    try:
        driver = make_driver(profile_dir, args.driver_log or os.devnull)
        final_url = sign_in(driver, args.authorize_url, args.username, args.password, args.deny, deadline)
        print(final_url, flush=True)
        params = urllib.parse.parse_qs(urllib.parse.urlsplit(final_url).query)
        if args.deny:
            if "error" not in params:
                raise Failure("--deny was given but the redirect carries no error", code=3)
        elif "code" not in params:
            raise Failure(f"the redirect carries error={params.get('error', ['?'])[0]}", code=3)
        return 0
    except Failure as failure:
        print(f"browser_login: {failure}", file=sys.stderr)
        return failure.code
    except Exception as error:  # selenium errors, timeouts
        where = ""
        try:
            where = f" (browser at {driver.current_url})" if driver else ""
        except Exception:
            pass
        print(f"browser_login: {type(error).__name__}: {str(error).strip().splitlines()[0] if str(error).strip() else ''}{where}",
              file=sys.stderr)
        return 2
    finally:
        def give_up(signum, frame):
            print("browser_login: could not close Chromium in time", file=sys.stderr, flush=True)
            os._exit(2)

        signal.signal(signal.SIGALRM, give_up)
        signal.alarm(20)
        if driver is not None:
            if args.screenshot:
                try:
                    driver.save_screenshot(args.screenshot)
                except Exception:
                    pass
            try:
                driver.quit()
            except Exception:
                pass
        shutil.rmtree(profile_dir, ignore_errors=True)
        signal.alarm(0)


if __name__ == "__main__":
    sys.exit(main())
