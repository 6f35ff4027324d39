#!/usr/bin/env python3
"""A TLS front for swift-msal's tests: an HTTPS server on 127.0.0.1 that can ask for client certificates.

A test tool (Python 3.11 standard library only; TLS through the `ssl` module, that is OpenSSL). It
listens on an ephemeral port of 127.0.0.1, speaks HTTP/1.1 with keep-alive (so that a client's
connection reuse can be observed), and works in one of two modes:

``--echo``
    Answers every request with 200 and a JSON object::

        {"method": "GET", "path": "/a?b=c",
         "client_certificate_sha256": "<lowercase hex SHA-256 of the client certificate's DER>" or null,
         "connection": <serial number of the TCP connection, from 1>,
         "request": <serial number of the request, from 1, over all connections>}

    The request body, if any, is read and ignored.

``--upstream http://127.0.0.1:PORT --forward-header NAME``
    Forwards each request (method, path and query, headers, body) over plain HTTP to the upstream
    server, one upstream connection per request. Any incoming header NAME is removed, and
    ``NAME: <standard base64 of the client certificate's DER>`` is added when the TLS connection
    has a client certificate. The upstream's status, headers (hop-by-hop ones removed) and body are
    relayed back; 502 when the upstream cannot be reached. Hop-by-hop request headers are not
    forwarded; ``Host`` is forwarded as the client sent it.

TLS options:

``--cert PEM --key PEM``
    The server's certificate (chain) and private key.
``--client-ca PEM``
    Certificates trusted for client authentication. With it, the server asks for a client
    certificate (OpenSSL's verify mode CERT_OPTIONAL): a connection without one is accepted, one
    with a certificate not issued by (or equal to) one of these fails its handshake. Without it,
    no client certificate is asked for.
``--require-client-cert``
    With ``--client-ca``: a connection without a client certificate fails (CERT_REQUIRED).

Once listening, it prints one line ``{"port": N}`` to standard output and flushes it. Handshake
failures are reported on standard error, one line each. It exits on SIGTERM, SIGINT or end of
file on standard input (``--ignore-stdin`` disables the latter, for a shell's background job).

Example::

    bash Tests/Interop/tls/make_pki.sh /tmp/pki
    python3 Tests/Interop/tls/tls_front.py --cert /tmp/pki/server.pem --key /tmp/pki/server.key \\
        --client-ca /tmp/pki/client-trust.pem --echo
"""

import argparse
import base64
import hashlib
import http.client
import http.server
import itertools
import json
import os
import signal
import socket
import ssl
import sys
import threading
import urllib.parse

# Hop-by-hop headers (RFC 9110 section 7.6.1 and the classic list), never forwarded or relayed.
HOP_BY_HOP = {
    "connection",
    "keep-alive",
    "proxy-authenticate",
    "proxy-authorization",
    "proxy-connection",
    "te",
    "trailer",
    "trailers",
    "transfer-encoding",
    "upgrade",
}

# Handshake and idle limit for a connection, in seconds.
CONNECTION_TIMEOUT = 30
# The largest request body accepted.
MAXIMUM_BODY = 16 * 1024 * 1024


def log(message):
    """Writes one line to standard error."""
    print(f"tls_front: {message}", file=sys.stderr, flush=True)


class BodyError(Exception):
    """A request body that cannot be read (bad framing or too large)."""


class FrontHandler(http.server.BaseHTTPRequestHandler):
    """Answers (echo) or forwards (upstream) the requests of one TLS connection."""

    protocol_version = "HTTP/1.1"
    server_version = "tls_front"
    sys_version = ""

    def __init__(self, request, client_address, server, *, connection_serial, client_certificate):
        # Set before the base class's __init__, which handles the whole connection.
        self.connection_serial = connection_serial
        self.client_certificate = client_certificate
        super().__init__(request, client_address, server)

    def log_message(self, format, *args):  # noqa: A002 (the base class's signature)
        pass

    def read_body(self):
        """The request body: Content-Length or chunked framing, or empty."""
        if "chunked" in self.headers.get("Transfer-Encoding", "").lower():
            body = bytearray()
            while True:
                line = self.rfile.readline(1024)
                try:
                    size = int(line.split(b";", 1)[0].strip(), 16)
                except ValueError:
                    raise BodyError("bad chunk size line") from None
                if size == 0:
                    while self.rfile.readline(8192) not in (b"\r\n", b"\n", b""):
                        pass  # trailer fields, ignored
                    return bytes(body)
                if len(body) + size > MAXIMUM_BODY:
                    raise BodyError("body too large")
                chunk = self.rfile.read(size)
                if len(chunk) != size:
                    raise BodyError("connection closed inside a chunk")
                body += chunk
                self.rfile.readline(8)
        length = self.headers.get("Content-Length")
        if length is None:
            return b""
        try:
            size = int(length)
        except ValueError:
            raise BodyError("bad Content-Length") from None
        if size < 0 or size > MAXIMUM_BODY:
            raise BodyError("bad Content-Length")
        body = self.rfile.read(size)
        if len(body) != size:
            raise BodyError("connection closed inside the body")
        return body

    def respond(self, status, headers, body, *, send_body=True, relayed=False):
        """Sends a response with a Content-Length (the connection stays open unless closing).

        A relayed response keeps the upstream's Server and Date headers instead of adding ours.
        """
        if relayed:
            self.send_response_only(status)
        else:
            self.send_response(status)
        for name, value in headers:
            self.send_header(name, value)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        if send_body and body:
            self.wfile.write(body)
        self.wfile.flush()

    def handle_any(self):
        try:
            body = self.read_body()
        except BodyError as error:
            self.close_connection = True
            self.respond(400, [("Content-Type", "text/plain"), ("Connection", "close")], f"{error}\n".encode())
            return
        if self.server.upstream is None:
            self.echo()
        else:
            self.forward(body)

    def echo(self):
        fingerprint = hashlib.sha256(self.client_certificate).hexdigest() if self.client_certificate else None
        document = {
            "method": self.command,
            "path": self.path,
            "client_certificate_sha256": fingerprint,
            "connection": self.connection_serial,
            "request": self.server.next_request_serial(),
        }
        body = json.dumps(document).encode()
        self.respond(200, [("Content-Type", "application/json")], body, send_body=self.command != "HEAD")

    def forward(self, body):
        forward_header = self.server.forward_header.lower()
        connection_tokens = {
            token.strip().lower() for value in self.headers.get_all("Connection", []) for token in value.split(",")
        }
        headers = [
            (name, value)
            for name, value in self.headers.items()
            if name.lower() not in HOP_BY_HOP
            and name.lower() not in connection_tokens
            and name.lower() != forward_header
            and name.lower() != "content-length"
        ]
        if self.client_certificate:
            headers.append((self.server.forward_header, base64.b64encode(self.client_certificate).decode("ascii")))
        host, port = self.server.upstream
        upstream = http.client.HTTPConnection(host, port, timeout=CONNECTION_TIMEOUT)
        try:
            upstream.putrequest(self.command, self.path, skip_host=True, skip_accept_encoding=True)
            for name, value in headers:
                upstream.putheader(name, value)
            if body or self.command in ("POST", "PUT", "PATCH") or "Content-Length" in self.headers:
                upstream.putheader("Content-Length", str(len(body)))
            upstream.endheaders(body or None)
            response = upstream.getresponse()
            answer = response.read()
            status = response.status
            relayed_tokens = {
                token.strip().lower() for value in response.headers.get_all("Connection", []) for token in value.split(",")
            }
            relayed = [
                (name, value)
                for name, value in response.headers.items()
                if name.lower() not in HOP_BY_HOP and name.lower() not in relayed_tokens and name.lower() != "content-length"
            ]
        except (OSError, http.client.HTTPException) as error:
            log(f"upstream {host}:{port}: {error}")
            self.respond(502, [("Content-Type", "text/plain")], f"upstream unreachable: {error}\n".encode())
            return
        finally:
            upstream.close()
        if self.command == "HEAD" or status in (204, 304) or 100 <= status < 200:
            # No body; a HEAD answer keeps the upstream's Content-Length.
            self.send_response_only(status)
            for name, value in relayed:
                self.send_header(name, value)
            length = response.headers.get("Content-Length")
            if self.command == "HEAD" and length is not None:
                self.send_header("Content-Length", length)
            self.end_headers()
            self.wfile.flush()
        else:
            self.respond(status, relayed, answer, relayed=True)

    do_GET = do_POST = do_PUT = do_PATCH = do_DELETE = do_HEAD = do_OPTIONS = handle_any


class FrontServer(http.server.ThreadingHTTPServer):
    """Accepts TCP connections and completes each TLS handshake on the connection's own thread."""

    daemon_threads = True

    def __init__(self, context, upstream, forward_header):
        self.context = context
        self.upstream = upstream
        self.forward_header = forward_header
        self.connection_serials = itertools.count(1)
        self.request_serials = itertools.count(1)
        self.serial_lock = threading.Lock()
        super().__init__(("127.0.0.1", 0), FrontHandler)

    def next_request_serial(self):
        with self.serial_lock:
            return next(self.request_serials)

    def finish_request(self, request, client_address):
        with self.serial_lock:
            serial = next(self.connection_serials)
        request.settimeout(CONNECTION_TIMEOUT)
        try:
            connection = self.context.wrap_socket(request, server_side=True, do_handshake_on_connect=False)
        except OSError as error:
            log(f"connection {serial}: {error}")
            return
        try:
            connection.do_handshake()
        except (ssl.SSLError, OSError) as error:
            log(f"connection {serial}: TLS handshake failed: {error}")
            drain(connection)
            connection.close()
            return
        try:
            certificate = connection.getpeercert(binary_form=True)
            FrontHandler(
                connection, client_address, self, connection_serial=serial, client_certificate=certificate
            )
        except (ssl.SSLError, OSError) as error:
            # A reset connection, or a TLS error after the handshake.
            log(f"connection {serial}: {error}")
        finally:
            try:
                connection.close()
            except OSError:
                pass


def drain(connection):
    """After a failed handshake, whose alert OpenSSL has sent: half-closes the connection and reads
    what the client still sends (with TLS 1.3, its Finished and its first request) until it closes.

    Closing with those bytes unread would reset the connection, and the client could then see the
    reset (a failed write) instead of the alert, depending on timing.
    """
    try:
        connection.shutdown(socket.SHUT_WR)  # from here on, recv reads the raw socket
        connection.settimeout(5)
        while connection.recv(65536):
            pass
    except OSError:
        pass


def parse_upstream(text):
    """(host, port) of an http:// upstream URL."""
    url = urllib.parse.urlsplit(text)
    if url.scheme != "http" or not url.hostname or url.port is None or url.path not in ("", "/"):
        raise argparse.ArgumentTypeError(f"expected http://HOST:PORT, got {text!r}")
    return url.hostname, url.port


def main():
    parser = argparse.ArgumentParser(description="HTTPS front on 127.0.0.1 with optional TLS client authentication")
    parser.add_argument("--cert", required=True, help="the server's certificate chain (PEM)")
    parser.add_argument("--key", required=True, help="the server's private key (PEM)")
    parser.add_argument("--client-ca", help="certificates trusted for client authentication (PEM)")
    parser.add_argument("--require-client-cert", action="store_true", help="refuse connections without a client certificate")
    mode = parser.add_mutually_exclusive_group(required=True)
    mode.add_argument("--echo", action="store_true", help="answer every request with a JSON description of it")
    mode.add_argument("--upstream", type=parse_upstream, help="forward to this http://127.0.0.1:PORT")
    parser.add_argument("--forward-header", help="with --upstream: the header that carries the client certificate")
    parser.add_argument("--ignore-stdin", action="store_true", help="do not exit at end of file on standard input")
    arguments = parser.parse_args()
    if arguments.upstream is not None and not arguments.forward_header:
        parser.error("--upstream needs --forward-header")
    if arguments.forward_header and arguments.upstream is None:
        parser.error("--forward-header needs --upstream")
    if arguments.require_client_cert and not arguments.client_ca:
        parser.error("--require-client-cert needs --client-ca")

    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.minimum_version = ssl.TLSVersion.TLSv1_2
    context.load_cert_chain(arguments.cert, arguments.key)
    if arguments.client_ca:
        context.load_verify_locations(cafile=arguments.client_ca)
        context.verify_mode = ssl.CERT_REQUIRED if arguments.require_client_cert else ssl.CERT_OPTIONAL

    server = FrontServer(context, arguments.upstream, arguments.forward_header)
    stop = threading.Event()
    signal.signal(signal.SIGTERM, lambda *_: stop.set())
    signal.signal(signal.SIGINT, lambda *_: stop.set())
    serving = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.1}, daemon=True)
    serving.start()
    print(json.dumps({"port": server.server_address[1]}), flush=True)

    if not arguments.ignore_stdin:

        def watch_stdin():
            # os.read, not sys.stdin: a daemon thread blocked inside a buffered reader's lock
            # aborts the interpreter at exit.
            try:
                while os.read(0, 4096):
                    pass
            except (OSError, ValueError):
                pass
            stop.set()

        threading.Thread(target=watch_stdin, daemon=True).start()

    while not stop.wait(0.5):
        pass
    server.shutdown()
    server.server_close()


if __name__ == "__main__":
    main()
