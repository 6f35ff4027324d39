import COpenSSL

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// Owns an `OSSL_PARAM` array built with `OSSL_PARAM_BLD`, and the values it points to.
final class OpenSSLParameters {
    private let parameters: UnsafeMutablePointer<OSSL_PARAM>

    /// A parameter. Names are `StaticString` because `OSSL_PARAM_BLD` keeps the
    /// name pointer (not a copy) until the array is built.
    enum Value {
        case bigNumber(StaticString, [UInt8])
        case utf8(StaticString, String)
        case octets(StaticString, [UInt8])
    }

    init(_ values: [Value]) throws(JOSEError) {
        guard let builder = OSSL_PARAM_BLD_new() else {
            throw OpenSSLErrorQueue.error(.cryptoFailure, "OSSL_PARAM_BLD_new failed")
        }
        defer { OSSL_PARAM_BLD_free(builder) }
        // The builder keeps pointers to BIGNUMs until OSSL_PARAM_BLD_to_param copies them.
        var numbers: [OpenSSLBigNumber] = []
        // utf8 values are also kept by pointer, so they are copied into C storage freed after the build.
        var texts: [UnsafeMutablePointer<CChar>] = []
        defer { texts.forEach { free($0) } }
        for value in values {
            let pushed: Int32
            switch value {
            case .bigNumber(let name, let bytes):
                let number = try OpenSSLBigNumber(bigEndian: bytes)
                numbers.append(number)
                pushed = number.withBigNumberPointer { OSSL_PARAM_BLD_push_BN(builder, Self.cName(name), $0) }
            case .utf8(let name, let text):
                guard let copy = strdup(text) else {
                    throw JOSEError(.cryptoFailure, "out of memory")
                }
                texts.append(copy)
                pushed = OSSL_PARAM_BLD_push_utf8_string(builder, Self.cName(name), copy, 0)
            case .octets(let name, let bytes):
                pushed = bytes.withUnsafeBytes { OSSL_PARAM_BLD_push_octet_string(builder, Self.cName(name), $0.baseAddress, $0.count) }
            }
            guard pushed == 1 else {
                throw OpenSSLErrorQueue.error(.cryptoFailure, "OSSL_PARAM_BLD_push failed")
            }
        }
        guard let parameters = OSSL_PARAM_BLD_to_param(builder) else {
            throw OpenSSLErrorQueue.error(.cryptoFailure, "OSSL_PARAM_BLD_to_param failed")
        }
        withExtendedLifetime(numbers) {}
        self.parameters = parameters
    }

    private static func cName(_ name: StaticString) -> UnsafePointer<CChar> {
        UnsafeRawPointer(name.utf8Start).assumingMemoryBound(to: CChar.self)
    }

    deinit {
        OSSL_PARAM_free(parameters)
    }

    func withParametersPointer<R, E: Error>(_ body: (UnsafeMutablePointer<OSSL_PARAM>) throws(E) -> R) throws(E) -> R {
        try body(parameters)
    }
}
