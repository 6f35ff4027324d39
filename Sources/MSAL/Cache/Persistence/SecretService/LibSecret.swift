import Glibc
import MSALJOSE

/// libsecret (and the few GLib calls its API needs), loaded with `dlopen` the first time a cache
/// stored in the Secret Service is used.
///
/// Loaded at run time rather than linked, so that every app that imports MSAL links and runs on a
/// machine without libsecret (a server, a container): only an app that asks for Secret Service
/// storage needs it, and there a missing library is a typed error or the app's chosen fallback,
/// not a loader failure at start. See `docs/cache-persistence.md`.
///
/// The library is never unloaded; the function pointers stay valid for the life of the process.
final class LibSecret: @unchecked Sendable {
    // @unchecked: every property is a `let` set in `init` to the address of a function in a library
    // that is never unloaded; C function pointers and raw pointers are not `Sendable` types, but
    // nothing here is ever written after `init`, and libsecret's synchronous calls may be made from any thread.
    typealias SchemaNew = @convention(c) (UnsafePointer<CChar>, Int32, OpaquePointer?) -> OpaquePointer?
    typealias SchemaUnref = @convention(c) (OpaquePointer?) -> Void
    typealias Store =
        @convention(c) (
            OpaquePointer?, OpaquePointer?, UnsafePointer<CChar>?, UnsafePointer<CChar>, UnsafePointer<CChar>,
            OpaquePointer?, UnsafeMutablePointer<UnsafeMutableRawPointer?>?
        ) -> Int32
    typealias Lookup =
        @convention(c) (OpaquePointer?, OpaquePointer?, OpaquePointer?, UnsafeMutablePointer<UnsafeMutableRawPointer?>?) ->
        UnsafeMutablePointer<CChar>?
    typealias Clear =
        @convention(c) (OpaquePointer?, OpaquePointer?, OpaquePointer?, UnsafeMutablePointer<UnsafeMutableRawPointer?>?) -> Int32
    typealias PasswordFree = @convention(c) (UnsafeMutablePointer<CChar>?) -> Void
    typealias HashTableNewFull =
        @convention(c) (UnsafeMutableRawPointer?, UnsafeMutableRawPointer?, UnsafeMutableRawPointer?, UnsafeMutableRawPointer?) ->
        OpaquePointer?
    typealias HashTableInsert = @convention(c) (OpaquePointer?, UnsafeMutableRawPointer?, UnsafeMutableRawPointer?) -> Int32
    typealias HashTableUnref = @convention(c) (OpaquePointer?) -> Void
    typealias ErrorFree = @convention(c) (UnsafeMutableRawPointer?) -> Void
    typealias QuarkToString = @convention(c) (UInt32) -> UnsafePointer<CChar>?
    typealias StringDuplicate = @convention(c) (UnsafePointer<CChar>?) -> UnsafeMutablePointer<CChar>?
    typealias ServiceGet = @convention(c) (Int32, OpaquePointer?, UnsafeMutablePointer<UnsafeMutableRawPointer?>?) -> OpaquePointer?
    typealias CollectionForAlias =
        @convention(c) (OpaquePointer?, UnsafePointer<CChar>, Int32, OpaquePointer?, UnsafeMutablePointer<UnsafeMutableRawPointer?>?) ->
        OpaquePointer?
    typealias CollectionGetLocked = @convention(c) (OpaquePointer?) -> Int32
    typealias ObjectUnref = @convention(c) (OpaquePointer?) -> Void
    typealias CancellableNew = @convention(c) () -> OpaquePointer?
    typealias CancellableCancel = @convention(c) (OpaquePointer?) -> Void

    /// The layout of GLib's `GError` (`guint32 domain; gint code; gchar *message;`).
    struct GErrorLayout {
        var domain: UInt32
        var code: Int32
        var message: UnsafeMutablePointer<CChar>?
    }

    /// The library's soname, as Debian's `libsecret-1-0` installs it.
    static let soname = "libsecret-1.so.0"

    let schemaNew: SchemaNew
    let schemaUnref: SchemaUnref
    let store: Store
    let lookup: Lookup
    let clear: Clear
    let passwordFree: PasswordFree
    let hashTableNewFull: HashTableNewFull
    let hashTableInsert: HashTableInsert
    let hashTableUnref: HashTableUnref
    let errorFree: ErrorFree
    let quarkToString: QuarkToString
    let stringDuplicate: StringDuplicate
    let serviceGet: ServiceGet
    let collectionForAlias: CollectionForAlias
    let collectionGetLocked: CollectionGetLocked
    let objectUnref: ObjectUnref
    /// GIO's `g_cancellable_new` and `g_cancellable_cancel`, for ``SecretServiceDeadline``.
    let cancellableNew: CancellableNew
    let cancellableCancel: CancellableCancel
    /// GLib's `g_str_hash`, `g_str_equal` and `g_free`, handed to `g_hash_table_new_full` as they are.
    let stringHash: UnsafeMutableRawPointer
    let stringEqual: UnsafeMutableRawPointer
    let free: UnsafeMutableRawPointer

    /// The library, loaded once per process; the error says why it could not be.
    static let shared: Result<LibSecret, MSALFailure> = Result { () throws(MSALFailure) in try LibSecret(soname: soname) }

    /// Loads `soname` and resolves every symbol, or throws `cacheSecretServiceUnavailable`.
    init(soname: String) throws(MSALFailure) {
        guard let handle = dlopen(soname, RTLD_NOW | RTLD_LOCAL) else {
            let reason = dlerror().map { String(cString: $0) } ?? "unknown reason"
            throw MSALFailure.secretServiceUnavailable(
                "libsecret could not be loaded (\(reason)); install it (Debian: apt install libsecret-1-0) or choose another storage")
        }
        func symbol(_ name: String) throws(MSALFailure) -> UnsafeMutableRawPointer {
            // `dlsym` on the handle also searches the libraries libsecret depends on (GLib).
            guard let pointer = dlsym(handle, name) else {
                throw MSALFailure.secretServiceUnavailable("\(soname) has no symbol \(name); libsecret 0.18 or later is needed")
            }
            return pointer
        }
        func function<F>(_ name: String, as type: F.Type) throws(MSALFailure) -> F {
            unsafeBitCast(try symbol(name), to: type)
        }
        schemaNew = try function("secret_schema_newv", as: SchemaNew.self)
        schemaUnref = try function("secret_schema_unref", as: SchemaUnref.self)
        store = try function("secret_password_storev_sync", as: Store.self)
        lookup = try function("secret_password_lookupv_sync", as: Lookup.self)
        clear = try function("secret_password_clearv_sync", as: Clear.self)
        passwordFree = try function("secret_password_free", as: PasswordFree.self)
        hashTableNewFull = try function("g_hash_table_new_full", as: HashTableNewFull.self)
        hashTableInsert = try function("g_hash_table_insert", as: HashTableInsert.self)
        hashTableUnref = try function("g_hash_table_unref", as: HashTableUnref.self)
        errorFree = try function("g_error_free", as: ErrorFree.self)
        quarkToString = try function("g_quark_to_string", as: QuarkToString.self)
        stringDuplicate = try function("g_strdup", as: StringDuplicate.self)
        serviceGet = try function("secret_service_get_sync", as: ServiceGet.self)
        collectionForAlias = try function("secret_collection_for_alias_sync", as: CollectionForAlias.self)
        collectionGetLocked = try function("secret_collection_get_locked", as: CollectionGetLocked.self)
        objectUnref = try function("g_object_unref", as: ObjectUnref.self)
        cancellableNew = try function("g_cancellable_new", as: CancellableNew.self)
        cancellableCancel = try function("g_cancellable_cancel", as: CancellableCancel.self)
        stringHash = try symbol("g_str_hash")
        stringEqual = try symbol("g_str_equal")
        free = try symbol("g_free")
    }

    /// Whether the default collection (where items are stored) exists and is locked. libsecret's
    /// lookups skip the items of a locked collection that no prompt could unlock, as if there were none.
    ///
    /// Each of the two D-Bus steps must answer within `timeout` seconds.
    func isDefaultCollectionLocked(timeout: Double) throws(MSALFailure) -> Bool {
        var error: UnsafeMutableRawPointer?
        let serviceDeadline = SecretServiceDeadline(library: self)
        let service = serviceDeadline.run(timeout: timeout) { cancellable in serviceGet(0, cancellable, &error) }
        guard let service else {
            throw failure("cannot reach the Secret Service", error, deadline: serviceDeadline, timeout: timeout)
        }
        defer { objectUnref(service) }
        let collectionDeadline = SecretServiceDeadline(library: self)
        let collection = collectionDeadline.run(timeout: timeout) { cancellable in
            collectionForAlias(service, "default", 0, cancellable, &error)
        }
        guard let collection else {
            if error != nil {
                throw failure("cannot find the default keyring", error, deadline: collectionDeadline, timeout: timeout)
            }
            return false
        }
        defer { objectUnref(collection) }
        return collectionGetLocked(collection) != 0
    }

    /// `cacheSecretServiceUnavailable` for a call that failed with `error` (freed): `doing` and the
    /// error's text, or, when the call's deadline expired, that the Secret Service did not answer in time.
    func failure(_ doing: String, _ error: UnsafeMutableRawPointer?, deadline: SecretServiceDeadline, timeout: Double) -> MSALFailure {
        let details = consume(error)
        guard deadline.expired else { return .secretServiceUnavailable("\(doing): \(details)") }
        return .secretServiceUnavailable(
            "\(doing): no answer within \(Self.seconds(timeout)) (is the session bus or the keyring daemon stopped or hung?); "
                + "raise MSALSecretServiceStorage.operationTimeout if the keyring needs longer")
    }

    /// `timeout` as "2 s" or "0.5 s".
    static func seconds(_ timeout: Double) -> String {
        timeout == timeout.rounded() ? "\(Int(timeout)) s" : "\(timeout) s"
    }

    /// The text of a `GError` (its domain, code and message), freeing it.
    func consume(_ error: UnsafeMutableRawPointer?) -> String {
        guard let error else { return "no error details" }
        defer { errorFree(error) }
        let layout = error.load(as: GErrorLayout.self)
        let domain = quarkToString(layout.domain).map { String(cString: $0) } ?? "unknown domain"
        // The daemon's words, which may quote an app's attribute values: escaped like any text from outside.
        let message = layout.message.map { UntrustedText.escaped(String(cString: $0)) } ?? ""
        return "\(message) (\(UntrustedText.escaped(domain)) \(layout.code))"
    }
}
