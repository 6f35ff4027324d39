#!/usr/bin/env python3
"""Sign in through glewlwyd's real login SPA with headless Chromium (selenium).

    /work/main/.build/oidc-venv/bin/python browser_login.py AUTHORIZE_URL \
        --username alice --password PW [--timeout 60]

Uses Debian's /usr/bin/chromium and /usr/bin/chromedriver by explicit path
(selenium never downloads anything), --headless=new, --no-sandbox (root).

The SPA (login.html) is driven like a person would: type the username and
password and press OK, tick the requested scopes on the consent screen and
press "Grant access", then press "Continue".  (If the user had already granted
some of the requested scopes, the SPA shows no consent screen; by default the
script then opens it from the "Manage" dropdown -- see --consent.)  The script ends when the browser
has loaded the loopback redirect page (any URL outside the provider's origin)
and prints that URL on stdout.  Also completes a device verification URL
(ends on login.html?prompt=deviceComplete).

Exit status: 0 success, 2 sign-in failed or timed out, 4 set-up error.
"""

import argparse
import os
import sys
import tempfile
import time
import urllib.parse

CHROMIUM = "/usr/bin/chromium"
CHROMEDRIVER = "/usr/bin/chromedriver"


def build_driver(args, profile_dir):
    os.environ.setdefault("SE_OFFLINE", "true")          # never let Selenium Manager reach out
    os.environ.setdefault("SE_AVOID_STATS", "true")
    for var in ("no_proxy", "NO_PROXY"):
        existing = os.environ.get(var, "")
        os.environ[var] = ",".join(x for x in (existing, "127.0.0.1", "localhost", "::1") if x)
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    opts = webdriver.ChromeOptions()
    opts.binary_location = args.chromium
    for flag in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                 "--no-first-run", "--no-default-browser-check", "--no-proxy-server",
                 "--disable-background-networking", "--disable-component-update", "--disable-sync",
                 "--disable-default-apps", "--disable-extensions", "--disable-domain-reliability",
                 "--disable-client-side-phishing-detection", "--disable-features=Translate,OptimizationHints,MediaRouter",
                 "--metrics-recording-only", "--password-store=basic", "--lang=en-US",
                 "--window-size=1280,1000", "--user-data-dir=" + profile_dir):
        opts.add_argument(flag)
    opts.add_experimental_option("prefs", {"intl.accept_languages": "en-US,en",
                                           "credentials_enable_service": False,
                                           "profile.password_manager_enabled": False})
    opts.page_load_strategy = "normal"
    service = Service(executable_path=args.chromedriver, log_output=args.driver_log or os.devnull)
    driver = webdriver.Chrome(service=service, options=opts)
    driver.set_page_load_timeout(max(5, args.timeout))
    return driver


def run(args):
    from selenium.common.exceptions import (ElementClickInterceptedException, NoSuchElementException,
                                            StaleElementReferenceException, WebDriverException)
    from selenium.webdriver.common.by import By

    start = urllib.parse.urlsplit(args.url)
    provider = (start.scheme, start.netloc)
    # swift-msal's single-use start URL (/msal-start/... on the loopback listener) redirects to the
    # provider: then the provider is where the browser lands.
    follows_start = start.path.startswith("/msal-start/")
    deadline = time.monotonic() + args.timeout
    profile_dir = tempfile.mkdtemp(prefix="glewlwyd-chromium-")
    driver = None
    stage = "starting chromium"
    try:
        driver = build_driver(args, profile_dir)
        stage = "loading the authorization URL"
        driver.get(args.url)
        if follows_start:
            landed = urllib.parse.urlsplit(driver.current_url)
            provider = (landed.scheme, landed.netloc)
        typed = granted = continued = 0
        while True:
            if time.monotonic() > deadline:
                raise TimeoutError("timed out after %ss while %s (at %s)" % (args.timeout, stage, driver.current_url))
            url = driver.current_url
            parts = urllib.parse.urlsplit(url)
            if parts.scheme in ("http", "https") and (parts.scheme, parts.netloc) != provider:
                stage = "waiting for the loopback redirect page"
                if driver.execute_script("return document.readyState") == "complete":
                    return url
                time.sleep(0.05)
                continue
            if parts.scheme == "chrome-error" or url.startswith("chrome-error:"):
                raise RuntimeError("browser error page (is the loopback listener running?) while %s" % stage)
            query = urllib.parse.parse_qs(parts.query)
            prompt = (query.get("prompt") or [""])[0]
            if prompt == "deviceComplete":
                return url
            if prompt in ("deviceCodeError", "deviceServerError"):
                raise RuntimeError("device verification failed: prompt=%s" % prompt)
            try:
                # 1. password form
                pw = [e for e in driver.find_elements(By.ID, "password") if e.is_displayed() and e.is_enabled()]
                if pw and typed < 3 and not pw[0].get_attribute("value"):
                    stage = "filling the login form"
                    user = driver.find_elements(By.ID, "username")
                    if user and user[0].is_enabled():
                        user[0].clear()
                        user[0].send_keys(args.username)
                    pw[0].send_keys(args.password)
                    driver.find_element(By.ID, "loginbut").click()
                    typed += 1
                    time.sleep(0.2)
                    continue
                # 2. consent screen: tick every requested scope, press "Grant access"
                boxes = [b for b in driver.find_elements(By.CSS_SELECTOR, "input[type=checkbox][id^='grant-']")
                         if b.is_displayed()]
                if boxes and granted < 3:
                    stage = "granting scopes"
                    for box in boxes:
                        if not box.is_selected() and box.is_enabled():
                            box.click()
                    buttons = [b for b in driver.find_elements(
                        By.XPATH, "//input[starts-with(@id,'grant-')]/ancestor::*[.//button[contains(@class,'btn-primary')]][1]"
                                  "//button[contains(@class,'btn-primary')]") if b.is_displayed()]
                    if buttons:
                        buttons[0].click()
                        granted += 1
                        time.sleep(0.2)
                        continue
                # 3. "Continue" (button.btn-success with the play icon)
                cont = [b for b in driver.find_elements(
                    By.XPATH, "//button[contains(@class,'btn-success')][.//i[contains(@class,'fa-play')]]")
                        if b.is_displayed() and b.is_enabled()]
                # When the user already granted SOME of the requested scopes to this client, the SPA
                # skips the consent screen and only offers "Continue" (glewlwyd then issues the code
                # for the granted subset).  With --consent all (default) open the consent screen from
                # the "Manage" dropdown (marked with an asterisk) and grant the rest, like a user who
                # wants the app to get everything it asked for.
                if cont and args.consent == "all" and granted < 3:
                    star = driver.find_elements(By.CSS_SELECTOR, "#selectGrant .fa-asterisk")
                    if star:
                        stage = "opening the consent screen"
                        driver.find_element(By.ID, "selectGrant").click()
                        time.sleep(0.2)
                        items = [a for a in driver.find_elements(
                            By.CSS_SELECTOR, "div[aria-labelledby=selectGrant] a.dropdown-item")
                                 if a.is_displayed() and a.find_elements(By.CSS_SELECTOR, ".fa-user-cog")]
                        if items:
                            items[0].click()
                            time.sleep(0.2)
                            continue
                if cont and continued < 5:
                    stage = "pressing Continue"
                    cont[0].click()
                    continued += 1
                    time.sleep(0.3)
                    continue
                # error banners shown by the SPA
                alerts = [a.text.strip() for a in driver.find_elements(By.CSS_SELECTOR, ".alert-danger, .toast-body")
                          if a.is_displayed() and a.text.strip()]
                if alerts and typed and any("error" in a.lower() or "invalid" in a.lower() for a in alerts):
                    raise RuntimeError("login page reports: %s" % " | ".join(alerts))
            except (StaleElementReferenceException, ElementClickInterceptedException, NoSuchElementException):
                pass
            except WebDriverException as exc:
                if "chrome-error" in str(exc):
                    raise
            time.sleep(0.1)
    except BaseException:
        if driver is not None and args.screenshot:
            try:
                driver.save_screenshot(args.screenshot)
                sys.stderr.write("browser_login: screenshot saved to %s\n" % args.screenshot)
            except Exception:  # noqa: BLE001
                pass
        raise
    finally:
        if driver is not None:
            try:
                driver.quit()
            except Exception:  # noqa: BLE001
                pass
        import shutil
        shutil.rmtree(profile_dir, ignore_errors=True)


def main(argv):
    p = argparse.ArgumentParser(description="headless Chromium sign-in against the test glewlwyd")
    p.add_argument("url")
    p.add_argument("--username", required=True)
    p.add_argument("--password", required=True)
    p.add_argument("--timeout", type=float, default=60.0, help="overall time limit (s), default 60")
    p.add_argument("--chromium", default=CHROMIUM)
    p.add_argument("--chromedriver", default=CHROMEDRIVER)
    p.add_argument("--consent", choices=["all", "as-shown"], default="all",
                   help="all: make sure every requested scope is granted (default); "
                        "as-shown: only accept what the SPA asks, then Continue")
    p.add_argument("--screenshot", help="save a PNG here on failure")
    p.add_argument("--driver-log", help="chromedriver log file")
    args = p.parse_args(argv)
    for path in (args.chromium, args.chromedriver):
        if not os.path.exists(path):
            sys.stderr.write("browser_login: %s not found (apt-get install chromium chromium-driver)\n" % path)
            return 4
    try:
        import selenium  # noqa: F401
    except ImportError:
        sys.stderr.write("browser_login: selenium missing; run with /work/main/.build/oidc-venv/bin/python\n")
        return 4
    try:
        url = run(args)
    except (TimeoutError, RuntimeError) as exc:
        sys.stderr.write("browser_login: %s\n" % exc)
        return 2
    except Exception as exc:  # noqa: BLE001
        sys.stderr.write("browser_login: unexpected error: %r\n" % (exc,))
        return 4
    print(url)
    sys.stdout.flush()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
