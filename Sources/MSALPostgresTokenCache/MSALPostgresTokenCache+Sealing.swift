import MSAL
import MSALJOSE
import NIOCore

extension MSALPostgresTokenCache {
    /// The first byte of a sealed value: this layout (AES-256-GCM, nonce, tag, ciphertext).
    static let sealedFormat: UInt8 = 1

    /// What the tag authenticates besides the document: the layout, the table and the partition
    /// key, so a row's value copied under another key or into another table does not open.
    func authenticatedData(partition key: String) -> [UInt8] {
        Array("swift-msal token cache partition v1\u{0}\(table)\u{0}\(key)".utf8)
    }

    /// `document` encrypted with the first configured key.
    func seal(_ document: [UInt8], partition key: String) throws(MSALFailure) -> [UInt8] {
        let box: AESGCM.Box
        do {
            box = try AESGCM.seal(
                document, key: configuration.encryptionKeys[0].bytes, authenticatedData: authenticatedData(partition: key))
        } catch {
            throw MSALFailure(
                .internal, internalCode: .cacheStoreFailed, message: "The token cache partition could not be encrypted: \(error)")
        }
        var sealed = [Self.sealedFormat]
        sealed.reserveCapacity(1 + AESGCM.nonceSize + AESGCM.tagSize + box.ciphertext.count)
        sealed += box.nonce
        sealed += box.tag
        sealed += box.ciphertext
        return sealed
    }

    /// The document in a sealed value, opened with whichever configured key sealed it.
    ///
    /// - Throws: ``MSALFailure`` with ``MSALInternalError/cacheCorrupt`` when the value is not in the
    ///   sealed layout or no configured key opens it (another key, or changed in the database).
    func open(_ value: ByteBuffer, partition key: String) throws(MSALFailure) -> [UInt8] {
        let bytes = Array(value.readableBytesView)
        let header = 1 + AESGCM.nonceSize + AESGCM.tagSize
        guard bytes.count >= header, bytes[0] == Self.sealedFormat else {
            throw MSALFailure(
                .internal, internalCode: .cacheCorrupt,
                message: "The token cache partition in \(table) is not a sealed value of this format; it is left as it is")
        }
        let box = AESGCM.Box(
            nonce: Array(bytes[1..<(1 + AESGCM.nonceSize)]), ciphertext: Array(bytes[header...]),
            tag: Array(bytes[(1 + AESGCM.nonceSize)..<header]))
        let authenticated = authenticatedData(partition: key)
        for key in configuration.encryptionKeys {
            if let document = try? AESGCM.open(box, key: key.bytes, authenticatedData: authenticated) { return document }
        }
        throw MSALFailure(
            .internal, internalCode: .cacheCorrupt,
            message:
                "No configured encryption key opens the token cache partition in \(table) (sealed with another key, or changed in the database); it is left as it is"
        )
    }
}
