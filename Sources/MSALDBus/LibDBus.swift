import Glibc

/// libdbus (the reference D-Bus library), loaded with `dlopen` the first time a D-Bus connection
/// is made, as libsecret is: every app that imports MSAL links and runs on a machine without it,
/// and only an app that asks for the broker needs it (`docs/broker.md`).
///
/// Only the blocking, thread-safe part of the API is used: method calls with a timeout, name
/// ownership, and reading and writing messages on a connection of our own. `dbus_threads_init_default`
/// is called once, before any connection. The library is never unloaded.
package final class LibDBus: @unchecked Sendable {
    // @unchecked: every property is a `let` set in `init` to the address of a function in a library
    // that is never unloaded; C function pointers are not `Sendable` types, but nothing here is
    // written after `init`, and libdbus is thread-safe once `dbus_threads_init_default` has run.
    typealias Connection = OpaquePointer
    typealias Message = OpaquePointer

    typealias ThreadsInit = @convention(c) () -> UInt32
    typealias ErrorInit = @convention(c) (UnsafeMutableRawPointer) -> Void
    typealias ErrorFree = @convention(c) (UnsafeMutableRawPointer) -> Void
    typealias OpenPrivate = @convention(c) (UnsafePointer<CChar>, UnsafeMutableRawPointer) -> Connection?
    typealias SetUniqueName = @convention(c) (Connection, UnsafePointer<CChar>) -> UInt32
    typealias SetExitOnDisconnect = @convention(c) (Connection, UInt32) -> Void
    typealias ConnectionVoid = @convention(c) (Connection) -> Void
    typealias RequestName = @convention(c) (Connection, UnsafePointer<CChar>, UInt32, UnsafeMutableRawPointer) -> Int32
    typealias GetUniqueName = @convention(c) (Connection) -> UnsafePointer<CChar>?
    typealias NewMethodCall =
        @convention(c) (UnsafePointer<CChar>?, UnsafePointer<CChar>, UnsafePointer<CChar>?, UnsafePointer<CChar>) -> Message?
    typealias NewMethodReturn = @convention(c) (Message) -> Message?
    typealias NewError = @convention(c) (Message, UnsafePointer<CChar>, UnsafePointer<CChar>?) -> Message?
    typealias MessageUnref = @convention(c) (Message) -> Void
    typealias IterInitAppend = @convention(c) (Message, UnsafeMutableRawPointer) -> Void
    typealias IterAppendBasic = @convention(c) (UnsafeMutableRawPointer, Int32, UnsafeRawPointer) -> UInt32
    typealias IterInit = @convention(c) (Message, UnsafeMutableRawPointer) -> UInt32
    typealias IterGetArgType = @convention(c) (UnsafeMutableRawPointer) -> Int32
    typealias IterGetBasic = @convention(c) (UnsafeMutableRawPointer, UnsafeMutableRawPointer) -> Void
    typealias IterNext = @convention(c) (UnsafeMutableRawPointer) -> UInt32
    typealias MessageGetType = @convention(c) (Message) -> Int32
    typealias MessageGetString = @convention(c) (Message) -> UnsafePointer<CChar>?
    typealias SendWithReplyAndBlock = @convention(c) (Connection, Message, Int32, UnsafeMutableRawPointer) -> Message?
    typealias Send = @convention(c) (Connection, Message, UnsafeMutablePointer<UInt32>?) -> UInt32
    typealias ReadWrite = @convention(c) (Connection, Int32) -> UInt32
    typealias ConnectionFlag = @convention(c) (Connection) -> UInt32
    typealias PopMessage = @convention(c) (Connection) -> Message?
    typealias Validate = @convention(c) (UnsafePointer<CChar>, UnsafeMutableRawPointer?) -> UInt32

    /// The layout of libdbus's `DBusError` (`const char *name; const char *message;` five one-bit
    /// fields; `void *padding1;`), 32 bytes on 64-bit Linux.
    package struct ErrorLayout {
        var name: UnsafePointer<CChar>? = nil
        var message: UnsafePointer<CChar>? = nil
        var bits: UInt32 = 0
        var padding: UnsafeMutableRawPointer? = nil
    }

    /// `DBusMessageIter` has no public fields; 72 bytes on 64-bit Linux. Iterators are given this
    /// many bytes, with room to spare.
    static let iteratorSize = 128

    /// `DBUS_TYPE_STRING` (`'s'`) and `DBUS_TYPE_INVALID`.
    static let typeString: Int32 = 115
    static let typeInvalid: Int32 = 0
    /// `DBUS_MESSAGE_TYPE_METHOD_CALL`, `_METHOD_RETURN`, `_ERROR`.
    static let messageMethodCall: Int32 = 1
    static let messageMethodReturn: Int32 = 2
    static let messageError: Int32 = 3
    /// `DBUS_NAME_FLAG_DO_NOT_QUEUE` and `DBUS_REQUEST_NAME_REPLY_PRIMARY_OWNER`.
    static let nameFlagDoNotQueue: UInt32 = 4
    static let requestNamePrimaryOwner: Int32 = 1

    /// The library's soname, as Debian's `libdbus-1-3` installs it.
    package static let soname = "libdbus-1.so.3"

    let threadsInit: ThreadsInit
    let errorInit: ErrorInit
    let errorFree: ErrorFree
    let openPrivate: OpenPrivate
    let setUniqueName: SetUniqueName
    let setExitOnDisconnect: SetExitOnDisconnect
    let connectionClose: ConnectionVoid
    let connectionUnref: ConnectionVoid
    let connectionFlush: ConnectionVoid
    let requestName: RequestName
    let getUniqueName: GetUniqueName
    let newMethodCall: NewMethodCall
    let newMethodReturn: NewMethodReturn
    let newError: NewError
    let messageUnref: MessageUnref
    let iterInitAppend: IterInitAppend
    let iterAppendBasic: IterAppendBasic
    let iterInit: IterInit
    let iterGetArgType: IterGetArgType
    let iterGetBasic: IterGetBasic
    let iterNext: IterNext
    let messageGetType: MessageGetType
    let messageGetMember: MessageGetString
    let messageGetInterface: MessageGetString
    let messageGetPath: MessageGetString
    let messageGetErrorName: MessageGetString
    let messageGetSender: MessageGetString
    let sendWithReplyAndBlock: SendWithReplyAndBlock
    let send: Send
    let readWrite: ReadWrite
    let getIsAuthenticated: ConnectionFlag
    let popMessage: PopMessage
    /// `dbus_validate_bus_name`, `_path`, `_interface`, `_member`, `_error_name`: libdbus treats an
    /// invalid name as a programming error and, by default, aborts the process on it, so every
    /// name is checked with these first.
    let validateBusName: Validate
    let validatePath: Validate
    let validateInterface: Validate
    let validateMember: Validate
    let validateErrorName: Validate

    /// The library, loaded (and its threading initialized) once per process; the error says why it could not be.
    package static let shared: Result<LibDBus, DBusFailure> = Result { () throws(DBusFailure) in try LibDBus(soname: soname) }

    /// Loads `soname`, resolves every symbol and initializes libdbus's threading, or throws
    /// ``DBusFailure/Kind/libraryUnavailable``.
    init(soname: String) throws(DBusFailure) {
        guard let handle = dlopen(soname, RTLD_NOW | RTLD_LOCAL) else {
            let reason = dlerror().map { String(cString: $0) } ?? "unknown reason"
            throw DBusFailure(.libraryUnavailable, "libdbus could not be loaded (\(reason)); install it (Debian: apt install libdbus-1-3)")
        }
        func function<F>(_ name: String, as type: F.Type) throws(DBusFailure) -> F {
            guard let pointer = dlsym(handle, name) else {
                throw DBusFailure(.libraryUnavailable, "\(soname) has no symbol \(name); libdbus 1.10 or later is needed")
            }
            return unsafeBitCast(pointer, to: type)
        }
        threadsInit = try function("dbus_threads_init_default", as: ThreadsInit.self)
        errorInit = try function("dbus_error_init", as: ErrorInit.self)
        errorFree = try function("dbus_error_free", as: ErrorFree.self)
        openPrivate = try function("dbus_connection_open_private", as: OpenPrivate.self)
        setUniqueName = try function("dbus_bus_set_unique_name", as: SetUniqueName.self)
        setExitOnDisconnect = try function("dbus_connection_set_exit_on_disconnect", as: SetExitOnDisconnect.self)
        connectionClose = try function("dbus_connection_close", as: ConnectionVoid.self)
        connectionUnref = try function("dbus_connection_unref", as: ConnectionVoid.self)
        connectionFlush = try function("dbus_connection_flush", as: ConnectionVoid.self)
        requestName = try function("dbus_bus_request_name", as: RequestName.self)
        getUniqueName = try function("dbus_bus_get_unique_name", as: GetUniqueName.self)
        newMethodCall = try function("dbus_message_new_method_call", as: NewMethodCall.self)
        newMethodReturn = try function("dbus_message_new_method_return", as: NewMethodReturn.self)
        newError = try function("dbus_message_new_error", as: NewError.self)
        messageUnref = try function("dbus_message_unref", as: MessageUnref.self)
        iterInitAppend = try function("dbus_message_iter_init_append", as: IterInitAppend.self)
        iterAppendBasic = try function("dbus_message_iter_append_basic", as: IterAppendBasic.self)
        iterInit = try function("dbus_message_iter_init", as: IterInit.self)
        iterGetArgType = try function("dbus_message_iter_get_arg_type", as: IterGetArgType.self)
        iterGetBasic = try function("dbus_message_iter_get_basic", as: IterGetBasic.self)
        iterNext = try function("dbus_message_iter_next", as: IterNext.self)
        messageGetType = try function("dbus_message_get_type", as: MessageGetType.self)
        messageGetMember = try function("dbus_message_get_member", as: MessageGetString.self)
        messageGetInterface = try function("dbus_message_get_interface", as: MessageGetString.self)
        messageGetPath = try function("dbus_message_get_path", as: MessageGetString.self)
        messageGetErrorName = try function("dbus_message_get_error_name", as: MessageGetString.self)
        messageGetSender = try function("dbus_message_get_sender", as: MessageGetString.self)
        sendWithReplyAndBlock = try function("dbus_connection_send_with_reply_and_block", as: SendWithReplyAndBlock.self)
        send = try function("dbus_connection_send", as: Send.self)
        readWrite = try function("dbus_connection_read_write", as: ReadWrite.self)
        getIsAuthenticated = try function("dbus_connection_get_is_authenticated", as: ConnectionFlag.self)
        popMessage = try function("dbus_connection_pop_message", as: PopMessage.self)
        validateBusName = try function("dbus_validate_bus_name", as: Validate.self)
        validatePath = try function("dbus_validate_path", as: Validate.self)
        validateInterface = try function("dbus_validate_interface", as: Validate.self)
        validateMember = try function("dbus_validate_member", as: Validate.self)
        validateErrorName = try function("dbus_validate_error_name", as: Validate.self)
        guard threadsInit() != 0 else {
            throw DBusFailure(.libraryUnavailable, "libdbus could not initialize its threading (out of memory)")
        }
    }

    /// Runs `body` with an initialized `DBusError` (as the raw pointer libdbus's functions take),
    /// freed afterwards.
    func withError<T, E: Error>(_ body: (UnsafeMutableRawPointer) throws(E) -> T) throws(E) -> T {
        let error = UnsafeMutablePointer<ErrorLayout>.allocate(capacity: 1)
        error.initialize(to: ErrorLayout())
        defer {
            errorFree(UnsafeMutableRawPointer(error))
            error.deinitialize(count: 1)
            error.deallocate()
        }
        errorInit(UnsafeMutableRawPointer(error))
        return try body(UnsafeMutableRawPointer(error))
    }

    /// Throws ``DBusFailure/Kind/invalidArgument`` unless `name` is valid for `validate` (and has no NUL).
    func check(_ name: String, _ validate: Validate, _ what: String) throws(DBusFailure) {
        guard !name.utf8.contains(0), name.withCString({ validate($0, nil) }) != 0 else {
            throw DBusFailure(.invalidArgument, "not a valid D-Bus \(what): \(name.prefix(64))")
        }
    }

    /// The name and message of a set `DBusError`, or `nil` when it is not set.
    static func describe(_ error: UnsafeMutableRawPointer) -> (name: String, message: String)? {
        let layout = error.assumingMemoryBound(to: ErrorLayout.self).pointee
        guard let name = layout.name else { return nil }
        return (String(cString: name), layout.message.map { String(cString: $0) } ?? "")
    }
}
