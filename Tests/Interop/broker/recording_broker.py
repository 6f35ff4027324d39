#!/usr/bin/env python3
"""A recording stand-in for microsoft-identity-broker on a D-Bus session bus (a test tool).

    python3 recording_broker.py --record CALLS.jsonl [--answers ANSWERS.json]

Owns com.microsoft.identity.broker1 on the session bus it is started on (always a private
`dbus-run-session` bus in tests, never a desktop's), exports /com/microsoft/identity/broker1 with
the interface com.microsoft.identity.Broker1 (eight methods, each `(sss) -> s`: protocol version,
correlation id, request JSON -> response JSON), appends every call to CALLS.jsonl as
{"method", "protocol", "correlation_id", "request"} and answers with ANSWERS.json's member named
after the method (a JSON object, sent as its text; `{}` when absent). Prints READY once it owns
the name. GLib's Gio answers org.freedesktop.DBus.Peer.Ping, which Microsoft's runtime sends first.

Needs PyGObject (the keyring test environment has it: .build/keyring-venv).
"""

import argparse
import json
import sys

import gi

gi.require_version("Gio", "2.0")
from gi.repository import Gio, GLib  # noqa: E402

BUS_NAME = "com.microsoft.identity.broker1"
OBJECT_PATH = "/com/microsoft/identity/broker1"
INTERFACE = "com.microsoft.identity.Broker1"
METHODS = ("acquireTokenInteractively", "acquireTokenSilently", "getAccounts", "removeAccount",
           "acquirePrtSsoCookie", "generateSignedHttpRequest", "cancelInteractiveFlow", "getLinuxBrokerVersion")


def interface_xml():
    method = ("<method name='%s'><arg type='s' direction='in'/><arg type='s' direction='in'/>"
              "<arg type='s' direction='in'/><arg type='s' direction='out'/></method>")
    return "<node><interface name='%s'>%s</interface></node>" % (INTERFACE, "".join(method % m for m in METHODS))


def main(argv):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--record", required=True, help="append each call here as a JSON line")
    parser.add_argument("--answers", help="JSON object: method name -> the JSON object to answer")
    args = parser.parse_args(argv)
    answers = {}
    if args.answers:
        with open(args.answers, encoding="utf-8") as f:
            answers = json.load(f)
    record = open(args.record, "a", encoding="utf-8", buffering=1)

    def on_call(_connection, _sender, _path, _interface, method, parameters, invocation):
        protocol, correlation_id, request = parameters.unpack()
        try:
            decoded = json.loads(request)
        except ValueError:
            decoded = request
        record.write(json.dumps({"method": method, "protocol": protocol, "correlation_id": correlation_id,
                                 "request": decoded}) + "\n")
        invocation.return_value(GLib.Variant("(s)", (json.dumps(answers.get(method, {})),)))

    node = Gio.DBusNodeInfo.new_for_xml(interface_xml())

    def on_bus(connection, _name):
        connection.register_object(OBJECT_PATH, node.interfaces[0], on_call, None, None)

    def on_name(_connection, _name):
        print("READY", flush=True)

    def on_lost(_connection, _name):
        sys.stderr.write("recording_broker: could not own %s (is another broker on this bus?)\n" % BUS_NAME)
        sys.exit(3)

    Gio.bus_own_name(Gio.BusType.SESSION, BUS_NAME, Gio.BusNameOwnerFlags.NONE, on_bus, on_name, on_lost)
    GLib.MainLoop().run()


if __name__ == "__main__":
    main(sys.argv[1:])
