import Foundation
import MSALSupport

/// A private connection to a D-Bus message bus through libdbus, owned: closed and unreferenced in
/// `deinit`. Private (`dbus_connection_open_private`), so that nothing else in the process shares
/// or closes it, and it never ends the process when the bus goes away (libdbus's default for bus
/// connections is `_exit`).
///
/// Every call blocks the calling thread for at most its timeout: call it off Swift's cooperative
/// pool.
package final class DBusConnection: @unchecked Sendable {
    // @unchecked: the pointer is used only through libdbus calls, which are thread-safe once
    // `dbus_threads_init_default` has run (``LibDBus`` does it before any connection), and it is
    // closed once, in `deinit`, when no call can be running.
    private let library: LibDBus
    private let pointer: LibDBus.Connection
    private let closed = Atomic<Bool>(false)

    /// The session bus's address from `environment` (`DBUS_SESSION_BUS_ADDRESS`), or `nil`. An
    /// `autolaunch:` address is never used: libdbus would start a bus daemon.
    package static func sessionBusAddress(in environment: [String: String] = ProcessInfo.processInfo.environment) -> String? {
        guard let address = environment["DBUS_SESSION_BUS_ADDRESS"], !address.isEmpty, !address.hasPrefix("autolaunch:") else {
            return nil
        }
        return address
    }

    /// Connects to the bus at `address` (the session bus's when `nil`) and registers with it,
    /// waiting at most `timeout` for the bus (its authentication and its answer to `Hello`): a bus
    /// that accepts the connection and then says nothing is ``DBusFailure/Kind/connectionFailed``
    /// at the deadline, not after libdbus's own 25 s.
    package init(address: String? = nil, timeout: Duration = .seconds(25)) throws(DBusFailure) {
        let library = try LibDBus.shared.get()
        guard let address = address ?? Self.sessionBusAddress() else {
            throw DBusFailure(.noBus, "no D-Bus session bus: DBUS_SESSION_BUS_ADDRESS is not set")
        }
        guard !address.utf8.contains(0) else { throw DBusFailure(.invalidArgument, "the bus address holds a NUL character") }
        let opened = library.withError { error -> Result<LibDBus.Connection, DBusFailure> in
            guard let connection = library.openPrivate(address, error) else {
                let (name, message) = LibDBus.describe(error) ?? ("", "unknown reason")
                return .failure(DBusFailure(.connectionFailed, "could not connect to the D-Bus bus: \(message)", name: name))
            }
            library.setExitOnDisconnect(connection, 0)
            return .success(connection)
        }
        self.library = library
        pointer = try opened.get()
        // libdbus authenticates on first use, and a call's timeout does not cover that wait (a bus
        // that never speaks would hold `Hello` for ever): authenticate here, in steps, until the
        // deadline.
        let deadline = ContinuousClock.now + timeout
        while library.getIsAuthenticated(pointer) == 0 {
            let remaining = deadline - ContinuousClock.now
            guard remaining > .zero else {
                throw DBusFailure(.connectionFailed, "the D-Bus bus did not authenticate this connection in time")
            }
            guard library.readWrite(pointer, Self.milliseconds(min(remaining, .milliseconds(100)))) != 0 else {
                throw DBusFailure(.connectionFailed, "the D-Bus bus closed the connection during authentication")
            }
        }
        // Registered by hand (what `dbus_bus_register` does, which waits libdbus's default 25 s):
        // `Hello` within the same deadline, then the unique name the bus gave told to libdbus.
        let hello = try DBusMessage.methodCall(
            destination: "org.freedesktop.DBus", path: "/org/freedesktop/DBus", interface: "org.freedesktop.DBus", method: "Hello",
            arguments: [], library: library)
        let name: [String]
        do throws(DBusFailure) {
            name = try send(hello, timeout: max(deadline - ContinuousClock.now, .milliseconds(1))).strings()
        } catch {
            // No answer to Hello in time is a bus that cannot be used: connectionFailed, as above.
            throw DBusFailure(
                error.kind == .noReply ? .connectionFailed : error.kind, "the D-Bus bus did not accept this connection: \(error.message)",
                name: error.name)
        }
        guard name.count == 1, !name[0].isEmpty, name[0].withCString({ library.setUniqueName(pointer, $0) }) != 0 else {
            throw DBusFailure(.connectionFailed, "the D-Bus bus answered Hello without a unique name")
        }
    }

    deinit {
        close()
        library.connectionUnref(pointer)
    }

    /// Closes the connection (once): the bus drops the names it owned, and calls waiting for its
    /// answers end with an error. Later calls on it fail with ``DBusFailure/Kind/disconnected``.
    package func close() {
        guard !closed.exchange(true, ordering: .acquiringAndReleasing) else { return }
        library.connectionClose(pointer)
    }

    /// This connection's unique name on the bus (`:1.42`).
    package var uniqueName: String? { library.getUniqueName(pointer).map { String(cString: $0) } }

    /// Calls `method` of `interface` on the object `path` of `destination` with string arguments
    /// and returns the answer's strings; waits at most `timeout`.
    package func call(
        destination: String, path: String, interface: String, method: String, arguments: [String], timeout: Duration
    ) throws(DBusFailure) -> [String] {
        let request = try DBusMessage.methodCall(
            destination: destination, path: path, interface: interface, method: method, arguments: arguments, library: library)
        let reply = try send(request, timeout: timeout)
        return try reply.strings()
    }

    /// `org.freedesktop.DBus.Peer.Ping` on `path` of `destination`: whether something owns the
    /// name and answers, within `timeout`.
    package func ping(destination: String, path: String, timeout: Duration) throws(DBusFailure) {
        let request = try DBusMessage.methodCall(
            destination: destination, path: path, interface: "org.freedesktop.DBus.Peer", method: "Ping", arguments: [],
            library: library)
        _ = try send(request, timeout: timeout)
    }

    /// Sends `request` and waits at most `timeout` for its answer.
    private func send(_ request: DBusMessage, timeout: Duration) throws(DBusFailure) -> DBusMessage {
        let milliseconds = Self.milliseconds(timeout)
        let answered = library.withError { error -> Result<DBusMessage, DBusFailure> in
            let reply = request.withMessagePointer { library.sendWithReplyAndBlock(pointer, $0, milliseconds, error) }
            guard let reply else {
                let (name, message) = LibDBus.describe(error) ?? ("org.freedesktop.DBus.Error.Failed", "no reply")
                return .failure(DBusFailure.named(name, message))
            }
            return .success(DBusMessage(reply, library: library))
        }
        return try answered.get()
    }

    /// Asks the bus for `name`, never queueing behind another owner.
    package func requestName(_ name: String) throws(DBusFailure) {
        try library.check(name, library.validateBusName, "bus name")
        let outcome = library.withError { error -> Result<Void, DBusFailure> in
            let reply = library.requestName(pointer, name, LibDBus.nameFlagDoNotQueue, error)
            if let (errorName, message) = LibDBus.describe(error) { return .failure(DBusFailure.named(errorName, message)) }
            guard reply == LibDBus.requestNamePrimaryOwner else {
                return .failure(DBusFailure(.nameTaken, "another connection owns \(name) (request_name answered \(reply))"))
            }
            return .success(())
        }
        try outcome.get()
    }

    /// The next method call addressed to this connection, waiting at most `timeout` for one (`nil`
    /// when none came); other messages (signals, stray answers) are dropped. Throws
    /// ``DBusFailure/Kind/disconnected`` once the bus has closed the connection.
    package func nextMethodCall(waitingAtMost timeout: Duration) throws(DBusFailure) -> DBusIncomingCall? {
        if let call = popMethodCall() { return call }
        guard library.readWrite(pointer, Self.milliseconds(timeout)) != 0 else {
            throw DBusFailure(.disconnected, "the D-Bus bus closed the connection")
        }
        return popMethodCall()
    }

    private func popMethodCall() -> DBusIncomingCall? {
        while let popped = library.popMessage(pointer) {
            let message = DBusMessage(popped, library: library)
            if message.type == LibDBus.messageMethodCall { return DBusIncomingCall(message) }
        }
        return nil
    }

    /// Answers `call` with `strings`.
    package func reply(to call: DBusIncomingCall, strings: [String]) throws(DBusFailure) {
        guard let made = call.message.withMessagePointer({ library.newMethodReturn($0) }) else {
            throw DBusFailure(.invalidArgument, "libdbus could not make an answer (out of memory)")
        }
        let reply = DBusMessage(made, library: library)
        try reply.append(strings)
        try deliver(reply)
    }

    /// Answers `call` with the D-Bus error `name` and `message`.
    package func replyError(to call: DBusIncomingCall, name: String, message: String) throws(DBusFailure) {
        try library.check(name, library.validateErrorName, "error name")
        guard !message.utf8.contains(0) else { throw DBusFailure(.invalidArgument, "an error message with a NUL character") }
        guard let made = call.message.withMessagePointer({ library.newError($0, name, message) }) else {
            throw DBusFailure(.invalidArgument, "libdbus refused the error name \(name)")
        }
        try deliver(DBusMessage(made, library: library))
    }

    private func deliver(_ message: DBusMessage) throws(DBusFailure) {
        guard message.withMessagePointer({ library.send(pointer, $0, nil) }) != 0 else {
            throw DBusFailure(.disconnected, "libdbus could not queue the answer")
        }
        library.connectionFlush(pointer)
    }

    /// `timeout` in whole milliseconds for libdbus: at least 1, at most `Int32.max - 1` (libdbus's
    /// `DBUS_TIMEOUT_INFINITE` is `Int32.max`, which is never asked for).
    static func milliseconds(_ timeout: Duration) -> Int32 {
        let (seconds, attoseconds) = timeout.components
        guard seconds >= 0 else { return 1 }
        let total = Double(seconds) * 1000 + Double(attoseconds) / 1e15
        return Int32(max(1, min(total.rounded(.up), Double(Int32.max - 1))))
    }
}
