#!/usr/bin/env bash
# make_pki.sh DIR: a throwaway public-key infrastructure for swift-msal's TLS tests, made with the
# openssl command-line tool. A test tool: nothing here is secret, every key is new and lives in DIR.
#
# Writes into DIR (created if missing), keys as unencrypted PKCS#8 PEM, certificates as PEM,
# valid for 2 days:
#   ca.pem, ca.key                      a test certificate authority (RSA-2048)
#   server.pem, server.key              the server's certificate, signed by the CA, for
#                                       IP:127.0.0.1, DNS:localhost, DNS:mtlsauth.microsoft.com,
#                                       DNS:*.mtlsauth.microsoft.com (serverAuth)
#   client-a.pem, client-a.key          a client certificate signed by the CA (clientAuth, RSA-2048)
#   client-b.pem, client-b.key          another one
#   client-self.pem, client-self.key    a self-signed client certificate (clientAuth, RSA-2048)
#   client-trust.pem                    ca.pem followed by client-self.pem: the certificates a
#                                       server (tls_front.py --client-ca) trusts for all three clients
# Prints nothing on success; on failure, openssl's messages and a non-zero status.
set -euo pipefail

if [ $# -ne 1 ]; then
    echo "usage: $0 DIR" >&2
    exit 2
fi
if ! command -v openssl >/dev/null 2>&1; then
    echo "$0: the openssl command-line tool is not installed (scripts/setup.sh installs it)" >&2
    exit 1
fi

dir=$1
mkdir -p "$dir"
cd "$dir"
umask 077

log=$(mktemp)
trap 'rm -f "$log" ./*.csr ./*.ext ./*.srl' EXIT
# Runs openssl quietly; shows what it wrote when it fails.
quiet() {
    if ! openssl "$@" >"$log" 2>&1; then
        cat "$log" >&2
        echo "$0: openssl $1 failed" >&2
        exit 1
    fi
}

new_key() {
    quiet genpkey -algorithm RSA -pkeyopt rsa_keygen_bits:2048 -out "$1.key"
}

# CA: basicConstraints CA:TRUE, keyCertSign.
new_key ca
quiet req -x509 -new -key ca.key -sha256 -days 2 -subj "/CN=swift-msal test CA" \
    -addext "basicConstraints=critical,CA:TRUE" \
    -addext "keyUsage=critical,keyCertSign,cRLSign" \
    -addext "subjectKeyIdentifier=hash" \
    -out ca.pem

# Signs NAME.csr with the CA, with the extensions given.
sign() {
    local name=$1 extensions=$2
    printf '%s\n' "$extensions" >"$name.ext"
    quiet x509 -req -in "$name.csr" -CA ca.pem -CAkey ca.key -CAcreateserial -sha256 -days 2 \
        -extfile "$name.ext" -out "$name.pem"
}

new_key server
quiet req -new -key server.key -subj "/CN=127.0.0.1" -out server.csr
sign server "basicConstraints=critical,CA:FALSE
keyUsage=critical,digitalSignature,keyEncipherment
extendedKeyUsage=serverAuth
subjectAltName=IP:127.0.0.1,DNS:localhost,DNS:mtlsauth.microsoft.com,DNS:*.mtlsauth.microsoft.com
authorityKeyIdentifier=keyid"

for client in client-a client-b; do
    new_key "$client"
    quiet req -new -key "$client.key" -subj "/CN=swift-msal test $client" -out "$client.csr"
    sign "$client" "basicConstraints=critical,CA:FALSE
keyUsage=critical,digitalSignature
extendedKeyUsage=clientAuth
authorityKeyIdentifier=keyid"
done

new_key client-self
quiet req -x509 -new -key client-self.key -sha256 -days 2 -subj "/CN=swift-msal test self-signed client" \
    -addext "basicConstraints=critical,CA:FALSE" \
    -addext "keyUsage=critical,digitalSignature" \
    -addext "extendedKeyUsage=clientAuth" \
    -out client-self.pem

cat ca.pem client-self.pem >client-trust.pem
