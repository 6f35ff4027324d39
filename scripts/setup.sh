#!/usr/bin/env bash
# Installs what swift-msal needs beyond Swift itself on Debian 12:
#   - the OpenSSL and libcurl (OpenSSL flavour) headers, found through pkg-config;
#   - Chromium, the real browser of the end-to-end sign-in test (run headless);
#   - MSAL for Python in a virtual environment at .build/interop-venv, used by the
#     interoperability tests (Tests/Interop/msal_python, Tests/MSALTests/Cache/Interop) and
#     by the Python side of the cache benchmarks (Benchmarks/scripts);
#   - two OpenID providers nobody here wrote, which the provider tests start on loopback
#     (Tests/Interop/providers, Tests/MSALCommandLineTests/Providers): glewlwyd from Debian,
#     and Django OAuth Toolkit in a virtual environment at .build/oidc-venv (with selenium,
#     which drives Debian's chromium through chromium-driver on the providers' real login pages);
#   - a real Secret Service for the Secret Service storage tests (Tests/MSALTests/Cache/SecretService):
#     gnome-keyring and dbus, libsecret (loaded by swift-msal at run time) and its introspection data,
#     and MSAL for Python with msal-extensions in .build/keyring-venv, made from Debian's own
#     python3 with its system site packages, where python3-gi (PyGObject, which msal-extensions'
#     libsecret persistence needs) lives;
#   - PostgreSQL, whose programs (initdb, pg_ctl) the PostgreSQL token cache tests use to run a
#     cluster of their own in a temporary directory on a free port
#     (Tests/MSALPostgresTokenCacheTests) and the example service's end-to-end script; the cluster
#     Debian's package makes is kept stopped;
#   - curl, the client of that end-to-end script (Examples/OrdersService/scripts/end-to-end.sh);
#   - for the Linux broker (docs/broker.md): libdbus (loaded by swift-msal at run time), GLib's
#     gdbus, and Microsoft's broker client in .build/broker-venv: MSAL for Python with
#     pymsalruntime, Microsoft's closed runtime, which links WebKitGTK (libwebkit2gtk-4.1-0).
# Safe to run again; quiet and quick when everything is already in place.
set -euo pipefail

root="$(cd "$(dirname "$0")/.." && pwd)"

# MSAL for Python, pinned: the cache documents it writes and the behaviour the interop tests
# and the cache benchmarks compare against are those of this release. Change it deliberately,
# then rerun this script: it replaces the installed version.
msal_python_version="1.39.0"
# msal-extensions (with portalocker, as Azure CLI installs it): the persisted, file-locked cache
# whose lock swift-msal takes too (Tests/MSALTests/Cache/Interop/ExtensionsLockInteropTests.swift).
msal_extensions_version="1.3.1"
portalocker_version="3.2.0"
venv="$root/.build/interop-venv"

sudo_cmd=()
[ "$(id -u)" -eq 0 ] || sudo_cmd=(sudo)
apt_updated=0
apt_install() {
    echo "Installing: $*"
    if [ "$apt_updated" -eq 0 ]; then
        "${sudo_cmd[@]}" env DEBIAN_FRONTEND=noninteractive apt-get update -q
        apt_updated=1
    fi
    "${sudo_cmd[@]}" env DEBIAN_FRONTEND=noninteractive apt-get install -y -q "$@"
}

# chromium: Tests/MSALEmulatorTests/PublicClient/ChromiumSignInTests.swift signs in through it, headless;
# chromium-driver lets selenium drive it on the providers' login pages; glewlwyd is a provider.
packages=(libssl-dev libcurl4-openssl-dev pkg-config chromium chromium-driver glewlwyd openssl binutils
    gnome-keyring dbus libsecret-1-0 libsecret-1-dev libsecret-tools gir1.2-secret-1 python3-gi postgresql curl
    libdbus-1-3 libglib2.0-bin libwebkit2gtk-4.1-0)
missing=()
for package in "${packages[@]}"; do
    dpkg -s "$package" >/dev/null 2>&1 || missing+=("$package")
done
# Python 3 with venv + ensurepip (Debian ships ensurepip separately, in python3-venv).
if ! command -v python3 >/dev/null 2>&1; then
    missing+=(python3 python3-venv)
elif ! python3 -c 'import ensurepip, venv' >/dev/null 2>&1; then
    missing+=(python3-venv)
fi
if [ ${#missing[@]} -gt 0 ]; then
    apt_install "${missing[@]}"
fi

# The venv counts as ready only when its interpreter runs and imports the pinned msal.
installed_msal_version() {
    "$venv/bin/python" -c 'import msal; print(msal.__version__)' 2>/dev/null || true
}
if [ "$(installed_msal_version)" != "$msal_python_version" ]; then
    echo "Installing MSAL for Python $msal_python_version into .build/interop-venv"
    if ! "$venv/bin/python" -c 'import sys' >/dev/null 2>&1; then
        rm -rf "$venv"
        mkdir -p "$root/.build"
        python3 -m venv "$venv"
    fi
    "$venv/bin/python" -m pip install --quiet --disable-pip-version-check --no-input \
        "msal==$msal_python_version"
    actual="$(installed_msal_version)"
    if [ "$actual" != "$msal_python_version" ]; then
        echo "scripts/setup.sh: expected MSAL for Python $msal_python_version in $venv, found '${actual:-none}'" >&2
        exit 1
    fi
fi

installed_extensions() {
    "$venv/bin/python" -c 'import msal_extensions, portalocker; print(msal_extensions.__version__, portalocker.__version__)' 2>/dev/null || true
}
if [ "$(installed_extensions)" != "$msal_extensions_version $portalocker_version" ]; then
    echo "Installing msal-extensions $msal_extensions_version (portalocker $portalocker_version) into .build/interop-venv"
    "$venv/bin/python" -m pip install --quiet --disable-pip-version-check --no-input \
        "msal-extensions==$msal_extensions_version" "portalocker==$portalocker_version"
    if [ "$(installed_extensions)" != "$msal_extensions_version $portalocker_version" ]; then
        echo "scripts/setup.sh: expected msal-extensions $msal_extensions_version with portalocker $portalocker_version in $venv" >&2
        exit 1
    fi
fi

# glewlwyd's package ships a system service (port 4593, every interface, its own database); the
# tests start their own instances, so keep it stopped and disabled (a no-op where it is not running
# or there is no init system).
if [ -d /run/systemd/system ]; then
    "${sudo_cmd[@]}" systemctl disable --now glewlwyd.service >/dev/null 2>&1 || true
else
    "${sudo_cmd[@]}" /etc/init.d/glewlwyd stop >/dev/null 2>&1 || true
    "${sudo_cmd[@]}" update-rc.d glewlwyd disable >/dev/null 2>&1 || true
fi
# The same for PostgreSQL's system service (port 5432, Debian's main cluster): the tests run their
# own clusters with initdb and pg_ctl.
if [ -d /run/systemd/system ]; then
    "${sudo_cmd[@]}" systemctl disable --now postgresql.service >/dev/null 2>&1 || true
else
    "${sudo_cmd[@]}" /etc/init.d/postgresql stop >/dev/null 2>&1 || true
    "${sudo_cmd[@]}" update-rc.d postgresql disable >/dev/null 2>&1 || true
fi

# Django OAuth Toolkit and selenium for the provider tests, pinned in the DOT provider's
# requirements.txt; reinstalled only when that file changes or the venv is broken.
oidc_requirements="$root/Tests/Interop/providers/dot/requirements.txt"
oidc_venv="$root/.build/oidc-venv"
oidc_stamp="$oidc_venv/.requirements.sha256"
oidc_wanted="$(sha256sum "$oidc_requirements" | cut -d' ' -f1)"
if [ "$(cat "$oidc_stamp" 2>/dev/null || true)" != "$oidc_wanted" ] \
    || ! "$oidc_venv/bin/python" -c 'import oauth2_provider, waitress, selenium, jwcrypto, cryptography' >/dev/null 2>&1; then
    echo "Installing the OpenID provider test environment into .build/oidc-venv"
    if ! "$oidc_venv/bin/python" -c 'import sys' >/dev/null 2>&1; then
        rm -rf "$oidc_venv"
        mkdir -p "$root/.build"
        python3 -m venv "$oidc_venv"
    fi
    "$oidc_venv/bin/python" -m pip install --quiet --disable-pip-version-check --no-input -r "$oidc_requirements"
    echo "$oidc_wanted" > "$oidc_stamp"
fi

# MSAL for Python with msal-extensions' libsecret persistence, for the Secret Service interop tests.
# PyGObject cannot be installed from PyPI without a compiler and GObject's headers, so this venv is
# made from Debian's python3 (/usr/bin/python3, whatever python3 comes first on PATH) with its
# system site packages, where Debian's python3-gi is.
keyring_venv="$root/.build/keyring-venv"
installed_keyring() {
    "$keyring_venv/bin/python" -c 'import msal, msal_extensions, gi; gi.require_version("Secret", "1"); from gi.repository import Secret; print(msal.__version__, msal_extensions.__version__)' 2>/dev/null || true
}
if [ "$(installed_keyring)" != "$msal_python_version $msal_extensions_version" ]; then
    echo "Installing MSAL for Python and msal-extensions with PyGObject into .build/keyring-venv"
    rm -rf "$keyring_venv"
    mkdir -p "$root/.build"
    /usr/bin/python3 -m venv --system-site-packages "$keyring_venv"
    "$keyring_venv/bin/python" -m pip install --quiet --disable-pip-version-check --no-input \
        "msal==$msal_python_version" "msal-extensions==$msal_extensions_version" "portalocker==$portalocker_version"
    if [ "$(installed_keyring)" != "$msal_python_version $msal_extensions_version" ]; then
        echo "scripts/setup.sh: MSAL for Python with msal-extensions and PyGObject is not usable in $keyring_venv" >&2
        exit 1
    fi
fi

# Microsoft's broker client for the broker interop tests (Tests/Interop/broker, Tests/MSALBrokerTests):
# MSAL for Python with pymsalruntime, pinned. Importing pymsalruntime fails unless a broker owns its
# bus name, so the check reads the installed versions without importing it, and that the runtime's
# libraries (WebKitGTK) resolve.
pymsalruntime_version="0.20.7"
broker_venv="$root/.build/broker-venv"
installed_broker() {
    "$broker_venv/bin/python" -c 'import importlib.metadata as m; print(m.version("msal"), m.version("pymsalruntime"))' 2>/dev/null || true
}
if [ "$(installed_broker)" != "$msal_python_version $pymsalruntime_version" ]; then
    echo "Installing MSAL for Python $msal_python_version with pymsalruntime $pymsalruntime_version into .build/broker-venv"
    rm -rf "$broker_venv"
    mkdir -p "$root/.build"
    python3 -m venv "$broker_venv"
    "$broker_venv/bin/python" -m pip install --quiet --disable-pip-version-check --no-input \
        "msal==$msal_python_version" "pymsalruntime==$pymsalruntime_version"
    if [ "$(installed_broker)" != "$msal_python_version $pymsalruntime_version" ]; then
        echo "scripts/setup.sh: expected msal $msal_python_version and pymsalruntime $pymsalruntime_version in $broker_venv" >&2
        exit 1
    fi
fi
runtime_library="$(ls "$broker_venv"/lib/python3*/site-packages/pymsalruntime/libmsalruntime.so 2>/dev/null | head -n 1)"
if [ -z "$runtime_library" ] || ldd "$runtime_library" | grep -q "not found"; then
    echo "scripts/setup.sh: pymsalruntime's libraries do not all resolve (libwebkit2gtk-4.1-0?):" >&2
    [ -n "$runtime_library" ] && ldd "$runtime_library" | grep "not found" >&2
    exit 1
fi
