import Foundation
import MSALSupport

/// A D-Bus service: owns a well-known name on a bus and answers the method calls sent to it, each
/// with `handler`, which may take its time (calls are answered as their handlers finish, not in
/// order). `org.freedesktop.DBus.Peer.Ping` is answered here, as D-Bus libraries do. A thread of
/// its own reads the connection; ``stop()`` ends it and releases the name.
package final class DBusService: Sendable {
    /// A method call, as the handler sees it.
    package struct Call: Sendable {
        package var sender: String?
        package var path: String?
        package var interface: String?
        package var member: String?
        /// The arguments when they are all strings; `nil` otherwise.
        package var arguments: [String]?
    }

    /// What the service does with a call.
    package enum Answer: Sendable {
        /// Answers with these strings.
        case strings([String])
        /// Answers with this D-Bus error.
        case error(name: String, message: String)
        /// Never answers (the caller's timeout ends its wait).
        case none
    }

    /// An incoming call handed to the task that answers it.
    private struct Pending: @unchecked Sendable {
        // @unchecked: the call's message is only read by the one task it is handed to; the loop
        // thread never touches it again.
        let call: DBusIncomingCall
    }

    /// Set once to end the reading thread (a class, so that the thread holds it, not the service).
    private final class StopFlag: Sendable {
        let value = Atomic<Bool>(false)
    }

    private let connection: DBusConnection
    private let stopping = StopFlag()
    private let finished = DispatchSemaphore(value: 0)
    /// The bus name this service owns.
    package let name: String

    /// Connects to the bus at `address` (the session bus when `nil`), takes `name` (throwing
    /// ``DBusFailure/Kind/nameTaken`` when another connection has it) and starts answering.
    package init(address: String?, name: String, handler: @escaping @Sendable (Call) async -> Answer) throws(DBusFailure) {
        let connection = try DBusConnection(address: address)
        try connection.requestName(name)
        self.connection = connection
        self.name = name
        let stopping = stopping
        let finished = finished
        let thread = Thread {
            defer { finished.signal() }
            while !stopping.value.load(ordering: .acquiring) {
                let incoming: DBusIncomingCall?
                do {
                    incoming = try connection.nextMethodCall(waitingAtMost: .milliseconds(50))
                } catch {
                    return
                }
                guard let incoming else { continue }
                if incoming.interface == "org.freedesktop.DBus.Peer" && incoming.member == "Ping" {
                    try? connection.reply(to: incoming, strings: [])
                    continue
                }
                let call = Call(
                    sender: incoming.sender, path: incoming.path, interface: incoming.interface, member: incoming.member,
                    arguments: incoming.strings)
                let pending = Pending(call: incoming)
                Task {
                    switch await handler(call) {
                    case .strings(let strings):
                        if (try? connection.reply(to: pending.call, strings: strings)) == nil {
                            try? connection.replyError(
                                to: pending.call, name: "org.freedesktop.DBus.Error.Failed", message: "the answer could not be sent")
                        }
                    case .error(let name, let message):
                        if (try? connection.replyError(to: pending.call, name: name, message: message)) == nil {
                            try? connection.replyError(
                                to: pending.call, name: "org.freedesktop.DBus.Error.Failed", message: "the error could not be sent")
                        }
                    case .none:
                        break
                    }
                }
            }
        }
        thread.name = "swift-msal D-Bus service \(name)"
        thread.start()
    }

    /// Stops answering, waits for the reading thread to end and closes the connection, which
    /// releases the name; a call still being handled gets no answer (its caller sees the service
    /// leave the bus).
    package func stop() {
        guard !stopping.value.exchange(true, ordering: .acquiringAndReleasing) else { return }
        finished.wait()
        connection.close()
    }

    deinit { stop() }
}
