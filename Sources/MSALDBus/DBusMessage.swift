/// One libdbus `DBusMessage`, owned: unreferenced in `deinit`, its pointer lent only inside
/// ``withMessagePointer(_:)``.
final class DBusMessage {
    private let library: LibDBus
    private let pointer: LibDBus.Message

    /// Takes ownership of `pointer` (one reference).
    init(_ pointer: LibDBus.Message, library: LibDBus) {
        self.pointer = pointer
        self.library = library
    }

    deinit { library.messageUnref(pointer) }

    func withMessagePointer<T, E: Error>(_ body: (LibDBus.Message) throws(E) -> T) throws(E) -> T {
        try body(pointer)
    }

    /// A method call to `method` of `interface` on `path` of `destination`, with `arguments` as strings.
    static func methodCall(
        destination: String, path: String, interface: String, method: String, arguments: [String], library: LibDBus
    ) throws(DBusFailure) -> DBusMessage {
        try library.check(destination, library.validateBusName, "bus name")
        try library.check(path, library.validatePath, "object path")
        try library.check(interface, library.validateInterface, "interface")
        try library.check(method, library.validateMember, "member")
        guard let made = library.newMethodCall(destination, path, interface, method) else {
            throw DBusFailure(.invalidArgument, "libdbus refused the method call \(interface).\(method) on \(path)")
        }
        let message = DBusMessage(made, library: library)
        try message.append(arguments)
        return message
    }

    /// Appends `strings` as `s` arguments; refuses one with a NUL character (D-Bus strings are C
    /// strings of valid UTF-8, and libdbus aborts on an invalid one).
    func append(_ strings: [String]) throws(DBusFailure) {
        let iterator = UnsafeMutableRawPointer.allocate(byteCount: LibDBus.iteratorSize, alignment: 16)
        defer { iterator.deallocate() }
        iterator.initializeMemory(as: UInt8.self, repeating: 0, count: LibDBus.iteratorSize)
        library.iterInitAppend(pointer, iterator)
        for string in strings {
            guard !string.utf8.contains(0) else { throw DBusFailure(.invalidArgument, "a string argument holds a NUL character") }
            let appended = string.withCString { text in
                withUnsafePointer(to: text) { library.iterAppendBasic(iterator, LibDBus.typeString, $0) }
            }
            guard appended != 0 else { throw DBusFailure(.invalidArgument, "libdbus could not append a string argument (out of memory)") }
        }
    }

    /// The message's arguments, which must all be strings.
    func strings() throws(DBusFailure) -> [String] {
        let iterator = UnsafeMutableRawPointer.allocate(byteCount: LibDBus.iteratorSize, alignment: 16)
        defer { iterator.deallocate() }
        iterator.initializeMemory(as: UInt8.self, repeating: 0, count: LibDBus.iteratorSize)
        guard library.iterInit(pointer, iterator) != 0 else { return [] }
        var strings: [String] = []
        repeat {
            let type = library.iterGetArgType(iterator)
            guard type == LibDBus.typeString else {
                throw DBusFailure(.malformedReply, "an argument of D-Bus type \(type) where a string was expected")
            }
            var text: UnsafePointer<CChar>? = nil
            library.iterGetBasic(iterator, &text)
            guard let text else { throw DBusFailure(.malformedReply, "a string argument without text") }
            strings.append(String(cString: text))
        } while library.iterNext(iterator) != 0
        return strings
    }

    var type: Int32 { library.messageGetType(pointer) }
    var member: String? { library.messageGetMember(pointer).map { String(cString: $0) } }
    var interface: String? { library.messageGetInterface(pointer).map { String(cString: $0) } }
    var path: String? { library.messageGetPath(pointer).map { String(cString: $0) } }
    var errorName: String? { library.messageGetErrorName(pointer).map { String(cString: $0) } }
    var sender: String? { library.messageGetSender(pointer).map { String(cString: $0) } }
}
