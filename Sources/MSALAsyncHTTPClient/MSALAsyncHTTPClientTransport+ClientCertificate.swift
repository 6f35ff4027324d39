import MSAL
import MSALJOSE
import NIOSSL

extension MSALAsyncHTTPClientTransport {
    /// ``clientCertificateTLSConfiguration`` presenting `certificate`: its chain, its key first, and
    /// its private key, handed to SwiftNIO SSL as PEM text whose copy here is wiped at once.
    func tlsConfiguration(presenting certificate: MSALClientCertificate, host: String) throws -> TLSConfiguration {
        var configuration = clientCertificateTLSConfiguration
        do {
            var identity = try certificate.certificate.tlsIdentityPEM()
            defer { ClientCertificate.wipe(&identity.privateKeyPEM) }
            configuration.certificateChain = try NIOSSLCertificate.fromPEMBytes(identity.certificateChainPEM).map { .certificate($0) }
            configuration.privateKey = .privateKey(try NIOSSLPrivateKey(bytes: identity.privateKeyPEM, format: .pem))
        } catch {
            throw MSALFailure(
                .internal, internalCode: .tlsFailure,
                message: "The client certificate for \(host) could not be prepared for TLS: \(error)",
                underlyingError: MSALSendableErrorDescription(domain: "NIOSSL", code: 0, description: String(describing: error)))
        }
        return configuration
    }
}
