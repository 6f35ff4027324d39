/// A method call another connection sent to ours, with what a server needs to answer it.
package final class DBusIncomingCall {
    let message: DBusMessage
    /// The caller's unique name.
    package let sender: String?
    package let path: String?
    package let interface: String?
    package let member: String?
    /// The call's arguments when they are all strings; `nil` otherwise.
    package let strings: [String]?

    init(_ message: DBusMessage) {
        self.message = message
        sender = message.sender
        path = message.path
        interface = message.interface
        member = message.member
        strings = try? message.strings()
    }
}
