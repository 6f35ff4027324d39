import Foundation
import MSAL
import MSALJOSE

/// A 256-bit key that encrypts token cache partitions at rest (AES-256-GCM through OpenSSL).
///
/// The application provides it (from its secret store, never from the database it protects);
/// ``MSALPostgresTokenCache`` encrypts with the first key of its configuration and decrypts with
/// any of them, so keys can be rotated: add the new key first, keep the old one until every
/// partition was written again or expired.
public struct MSALTokenCacheEncryptionKey: Sendable, Equatable, CustomStringConvertible {
    /// The key's 32 bytes.
    let bytes: [UInt8]

    /// A key of exactly 32 bytes.
    ///
    /// - Throws: ``MSALFailure`` with ``MSALInternalError/internalErrorInvalidParameter`` for any other length.
    public init(bytes: some Collection<UInt8>) throws(MSALFailure) {
        guard bytes.count == AESGCM.keySize else {
            throw MSALFailure(
                .internal, internalCode: .internalErrorInvalidParameter,
                message: "A token cache encryption key is \(AESGCM.keySize) bytes (AES-256), not \(bytes.count)")
        }
        self.bytes = Array(bytes)
    }

    /// A key from its standard base64 text (44 characters), as a secret store or an environment
    /// variable would hold it.
    ///
    /// - Throws: ``MSALFailure`` with ``MSALInternalError/internalErrorInvalidParameter`` when the text is not
    ///   base64 of 32 bytes.
    public init(base64: String) throws(MSALFailure) {
        guard let data = Data(base64Encoded: base64.trimmingCharacters(in: .whitespacesAndNewlines)) else {
            throw MSALFailure(
                .internal, internalCode: .internalErrorInvalidParameter, message: "The token cache encryption key is not base64")
        }
        try self.init(bytes: data)
    }

    /// A new random key from OpenSSL's generator.
    ///
    /// - Throws: ``MSALFailure`` when OpenSSL's generator fails.
    public static func random() throws(MSALFailure) -> MSALTokenCacheEncryptionKey {
        let bytes: [UInt8]
        do {
            bytes = try SecureRandom.bytes(count: AESGCM.keySize)
        } catch {
            throw MSALFailure(.internal, internalCode: .internalErrorUnexpected, message: "No random key: \(error)")
        }
        return try MSALTokenCacheEncryptionKey(bytes: bytes)
    }

    /// The key's base64 text, to keep it in a secret store.
    public var base64: String { Data(bytes).base64EncodedString() }

    /// Never the key itself.
    public var description: String { "MSALTokenCacheEncryptionKey(256 bits)" }
}
