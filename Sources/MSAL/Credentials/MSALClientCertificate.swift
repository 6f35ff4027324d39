import Foundation
import MSALJOSE
import MSALSupport

/// A certificate credential of a confidential client: an RSA private key (2048 bits or more) and
/// the certificate, or chain, registered for the application.
///
/// The key and the certificates are read and checked once, when the value is created: a key that
/// no certificate matches, a weak or non-RSA key, or unreadable text throws then, before any
/// request. The value holds the key in OpenSSL's memory; it never writes it anywhere.
public final class MSALClientCertificate: Sendable, CustomStringConvertible {
    /// The largest PEM text or file accepted for the key and for the certificates (64 KiB each).
    public static let maximumSize = ClientCertificate.maximumPEMSize

    /// The checked key and chain.
    package let certificate: ClientCertificate

    /// Reads a private key and its certificate (chain) from PEM text.
    ///
    /// - Parameters:
    ///   - privateKeyPEM: a `PRIVATE KEY`, `RSA PRIVATE KEY` or `ENCRYPTED PRIVATE KEY` block.
    ///   - certificatePEM: one or more `CERTIFICATE` blocks, one of which holds the key's public half.
    ///   - privateKeyPassword: the password of an encrypted key.
    /// - Throws: ``MSALFailure`` with internal code ``MSALInternalError/invalidCredential``,
    ///   ``MSALInternalError/certificateKeyMismatch``, ``MSALInternalError/unsupportedCredentialKey`` or
    ///   ``MSALInternalError/credentialTooLarge``.
    public convenience init(privateKeyPEM: String, certificatePEM: String, privateKeyPassword: String? = nil) throws {
        try self.init(
            privateKey: Array(privateKeyPEM.utf8), certificates: Array(certificatePEM.utf8), password: privateKeyPassword,
            sources: ("the private key text", "the certificate text"))
    }

    /// Reads a private key and its certificate (chain) from PEM files (at most ``maximumSize`` bytes each).
    ///
    /// - Throws: as ``init(privateKeyPEM:certificatePEM:privateKeyPassword:)``, and
    ///   ``MSALInternalError/invalidCredential`` when a file cannot be read.
    public convenience init(privateKeyFile: String, certificateFile: String, privateKeyPassword: String? = nil) throws {
        try self.init(
            privateKey: CredentialFile.read(privateKeyFile, limit: Self.maximumSize),
            certificates: CredentialFile.read(certificateFile, limit: Self.maximumSize), password: privateKeyPassword,
            sources: ("the private key file \(privateKeyFile)", "the certificate file \(certificateFile)"))
    }

    private init(privateKey: [UInt8], certificates: [UInt8], password: String?, sources: (key: String, certificates: String)) throws {
        for (bytes, source) in [(privateKey, sources.key), (certificates, sources.certificates)] where bytes.count > Self.maximumSize {
            throw MSALFailure(
                .internal, internalCode: .credentialTooLarge,
                message: "\(source) holds \(bytes.count) bytes, over the \(Self.maximumSize)-byte limit for a credential")
        }
        do {
            certificate = try ClientCertificate(
                privateKeyPEM: privateKey, certificatePEM: certificates, password: password.map { Array($0.utf8) })
        } catch {
            let source =
                error.code == .certificateKeyMismatch || error.code == .unsupportedCredentialKey
                ? "" : " (\(sources.key), \(sources.certificates))"
            throw MSALFailure(
                .internal, internalCode: error.code == .limitExceeded ? .invalidCredential : MSALInternalError(joseCode: error.code),
                message: "The certificate credential cannot be used: \(error.message)\(source)", underlyingError: error)
        }
    }

    /// The SHA-256 thumbprint of the key's certificate, as lowercase hex (how portals and `openssl
    /// x509 -fingerprint -sha256` show it, without the colons).
    public var sha256Thumbprint: String {
        String(decoding: certificate.sha256Thumbprint.flatMap { [Hex.digit($0 >> 4), Hex.digit($0 & 0x0F)] }, as: UTF8.self)
    }

    /// The certificate's `x5t#S256` (RFC 8705 §3.1): the base64url SHA-256 thumbprint of its DER
    /// encoding, without padding, as a certificate-bound token's `cnf` names it.
    public var x5tS256: String {
        Base64URL.encode(certificate.sha256Thumbprint)
    }

    /// The key size and the certificate's SHA-256 thumbprint; never the key.
    public var description: String {
        "MSALClientCertificate(RSA \(certificate.keyBits) bits, \(certificate.chain.count) certificate(s), SHA-256 \(sha256Thumbprint))"
    }
}
