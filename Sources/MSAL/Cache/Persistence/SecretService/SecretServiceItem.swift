import Glibc

/// One item in the Secret Service, named by a schema and attributes, read and written through
/// libsecret's synchronous password calls (which block: call them off Swift's cooperative threads).
///
/// The item holds the cache document as text (libsecret's `text/plain` password), exactly as
/// msal-extensions' `LibsecretPersistence` stores it, in the default collection. The schema's flags
/// are libsecret's defaults, so lookups match `xdg:schema` = ``schemaName`` plus ``attributes``.
package final class SecretServiceItem: @unchecked Sendable {
    // @unchecked: the `SecretSchema` pointer is created in `init`, never changed, and freed in
    // `deinit`; libsecret only reads a schema, from any thread.
    let library: LibSecret
    /// The schema name (`xdg:schema`).
    let schemaName: String
    /// The item's attributes besides `xdg:schema`, in name order.
    let attributes: [(name: String, value: String)]
    /// The label shown by keyring managers.
    let label: String
    /// How long each D-Bus step may take, in seconds (``MSALSecretServiceStorage/operationTimeout``).
    let timeout: Double
    private let schema: OpaquePointer

    /// An item of `schemaName` with `attributes` (every one a string attribute, as msal-extensions declares them).
    init(library: LibSecret, schemaName: String, attributes: [String: String], label: String, timeout: Double) throws(MSALFailure) {
        guard !schemaName.isEmpty, !schemaName.utf8.contains(0), !label.utf8.contains(0),
            attributes.allSatisfy({ !$0.key.isEmpty && !$0.key.utf8.contains(0) && !$0.value.utf8.contains(0) })
        else {
            throw MSALFailure(
                .internal, internalCode: .internalErrorInvalidParameter,
                message:
                    "Secret Service storage: the schema name and attribute names must be non-empty, and no name, value or label may contain NUL"
            )
        }
        self.library = library
        self.schemaName = schemaName
        self.attributes = attributes.sorted { $0.key < $1.key }.map { (name: $0.key, value: $0.value) }
        self.label = label
        self.timeout = timeout
        let types = library.hashTableNewFull(library.stringHash, library.stringEqual, library.free, nil)
        defer { library.hashTableUnref(types) }
        for attribute in self.attributes {
            // SECRET_SCHEMA_ATTRIBUTE_STRING is 0, which GINT_TO_POINTER makes a null value.
            _ = library.hashTableInsert(types, UnsafeMutableRawPointer(library.stringDuplicate(attribute.name)), nil)
        }
        guard let schema = library.schemaNew(schemaName, 0, types) else {
            throw MSALFailure.secretServiceUnavailable("libsecret refused the schema \"\(schemaName)\"")
        }
        self.schema = schema
    }

    deinit {
        library.schemaUnref(schema)
    }

    /// The item's text as bytes, or `nil` when there is no such item.
    ///
    /// - Throws: `cacheTooLarge` past `limit` bytes; `cacheSecretServiceUnavailable` when libsecret
    ///   fails (no bus, no daemon) or finds nothing while the default keyring stays locked.
    func lookup(limit: Int) throws(MSALFailure) -> CacheSource? {
        var error: UnsafeMutableRawPointer?
        let deadline = SecretServiceDeadline(library: library)
        let secret = deadline.run(timeout: timeout) { cancellable in
            withAttributeTable { table in library.lookup(schema, table, cancellable, &error) }
        }
        guard let secret else {
            if error != nil {
                throw library.failure("cannot read the item \(description)", error, deadline: deadline, timeout: timeout)
            }
            // No item, or one in a keyring that stayed locked (no prompt could unlock it): tell them apart,
            // or a locked keyring would read as an empty cache.
            if try library.isDefaultCollectionLocked(timeout: timeout) {
                throw MSALFailure.secretServiceUnavailable(
                    "the default keyring is locked and could not be unlocked (no prompt could be shown); unlock it, or choose a fallback")
            }
            return nil
        }
        // `secret_password_free` overwrites the text before freeing it.
        defer { library.passwordFree(secret) }
        let count = strlen(secret)
        guard count <= limit else {
            throw MSALFailure(
                .internal, internalCode: .cacheTooLarge,
                message: "Secret Service item \(description): \(count) bytes, over the limit of \(limit) bytes; it was left in place")
        }
        let source = CacheSource(capacity: count + 1)
        let copied = source.append(upTo: count) { room in
            room.copyMemory(from: UnsafeRawBufferPointer(start: secret, count: count))
            return count
        }
        guard copied else {
            throw MSALFailure(
                .internal, internalCode: .cacheIOFailure, message: "Secret Service item \(description): no memory for \(count) bytes")
        }
        return source
    }

    /// Stores `bytes` (a JSON document: no NUL) as the item's text, creating or replacing the item.
    func store(_ bytes: [UInt8]) throws(MSALFailure) {
        guard !bytes.contains(0) else {
            throw MSALFailure(
                .internal, internalCode: .internalErrorUnexpected,
                message: "Secret Service item \(description): the text to store contains NUL")
        }
        var error: UnsafeMutableRawPointer?
        var text = bytes
        text.append(0)
        let deadline = SecretServiceDeadline(library: library)
        let stored = text.withUnsafeBufferPointer { buffer in
            buffer.withMemoryRebound(to: CChar.self) { characters in
                deadline.run(timeout: timeout) { cancellable in
                    withAttributeTable { table in
                        library.store(schema, table, nil, label, characters.baseAddress!, cancellable, &error)
                    }
                }
            }
        }
        // The copy handed to libsecret held every token; wipe it before the array is freed.
        text.withUnsafeMutableBufferPointer { buffer in
            if let base = buffer.baseAddress { memset(base, 0, buffer.count) }
        }
        guard stored != 0 else {
            throw library.failure("cannot store the item \(description)", error, deadline: deadline, timeout: timeout)
        }
    }

    /// Removes the item; `false` when there was none.
    @discardableResult
    func clear() throws(MSALFailure) -> Bool {
        var error: UnsafeMutableRawPointer?
        let deadline = SecretServiceDeadline(library: library)
        let cleared = deadline.run(timeout: timeout) { cancellable in
            withAttributeTable { table in library.clear(schema, table, cancellable, &error) }
        }
        if cleared == 0, error != nil {
            throw library.failure("cannot remove the item \(description)", error, deadline: deadline, timeout: timeout)
        }
        return cleared != 0
    }

    /// `schema "name"` and the attributes, for messages (attribute values are names the app chose, not secrets).
    var description: String {
        let named = attributes.map { "\($0.name)=\"\($0.value)\"" }.joined(separator: ", ")
        return "(schema \"\(schemaName)\"\(named.isEmpty ? "" : ", \(named)"))"
    }

    /// Runs `body` with a new `GHashTable` of the attributes (keys and values owned by the table).
    private func withAttributeTable<T>(_ body: (OpaquePointer?) -> T) -> T {
        let table = library.hashTableNewFull(library.stringHash, library.stringEqual, library.free, library.free)
        defer { library.hashTableUnref(table) }
        for attribute in attributes {
            _ = library.hashTableInsert(
                table, UnsafeMutableRawPointer(library.stringDuplicate(attribute.name)),
                UnsafeMutableRawPointer(library.stringDuplicate(attribute.value)))
        }
        return body(table)
    }
}

extension MSALFailure {
    /// `cacheSecretServiceUnavailable` with `detail`.
    static func secretServiceUnavailable(_ detail: String) -> MSALFailure {
        MSALFailure(.internal, internalCode: .cacheSecretServiceUnavailable, message: "Secret Service token cache: \(detail)")
    }
}
