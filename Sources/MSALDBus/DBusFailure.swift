/// Why a D-Bus operation failed: what kind of failure, and libdbus's or the peer's words.
package struct DBusFailure: Error, Sendable, CustomStringConvertible {
    /// The kinds of failure a caller tells apart.
    package enum Kind: Sendable, Equatable {
        /// libdbus is not installed, or too old.
        case libraryUnavailable
        /// No bus address: `DBUS_SESSION_BUS_ADDRESS` is not set and none was given.
        case noBus
        /// The bus could not be reached or refused us (`dbus_connection_open_private`, `dbus_bus_register`).
        case connectionFailed
        /// Nothing owns the destination name (`org.freedesktop.DBus.Error.ServiceUnknown`, `NameHasNoOwner`).
        case serviceUnknown
        /// No answer before the timeout (`org.freedesktop.DBus.Error.NoReply`, `Timeout`).
        case noReply
        /// The connection closed (`org.freedesktop.DBus.Error.Disconnected`), or the peer left the bus mid-call.
        case disconnected
        /// The peer answered with an error (``DBusFailure/name`` is its D-Bus error name).
        case remoteError
        /// An argument D-Bus cannot carry (a string with a NUL character, an invalid name).
        case invalidArgument
        /// The answer is not what the method returns (not one string).
        case malformedReply
        /// Another connection owns the name this one asked for.
        case nameTaken
    }

    package let kind: Kind
    /// The D-Bus error name, when there is one.
    package let name: String?
    package let message: String

    package init(_ kind: Kind, _ message: String, name: String? = nil) {
        self.kind = kind
        self.message = message
        self.name = name
    }

    /// The failure for a D-Bus error reply or a libdbus error named `name`.
    package static func named(_ name: String, _ message: String) -> DBusFailure {
        let kind: Kind =
            switch name {
            case "org.freedesktop.DBus.Error.ServiceUnknown", "org.freedesktop.DBus.Error.NameHasNoOwner": .serviceUnknown
            case "org.freedesktop.DBus.Error.NoReply", "org.freedesktop.DBus.Error.Timeout", "org.freedesktop.DBus.Error.TimedOut": .noReply
            case "org.freedesktop.DBus.Error.Disconnected": .disconnected
            case "org.freedesktop.DBus.Error.NoServer", "org.freedesktop.DBus.Error.AuthFailed", "org.freedesktop.DBus.Error.BadAddress",
                "org.freedesktop.DBus.Error.FileNotFound", "org.freedesktop.DBus.Error.AccessDenied":
                .connectionFailed
            default: .remoteError
            }
        return DBusFailure(kind, message, name: name)
    }

    package var description: String {
        name.map { "\(kind) (\($0)): \(message)" } ?? "\(kind): \(message)"
    }
}
