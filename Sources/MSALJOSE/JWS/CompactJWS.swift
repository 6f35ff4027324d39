import MSALJSON

/// The three segments of a compact JWS (RFC 7515 §7.1), split and decoded with caps.
///
/// Parsing checks structure only: exactly three non-empty segments (header and
/// signature; the payload may be empty only for detached content, which JWTs
/// never use, so it is rejected too), strict base64url, a JSON-object header
/// with a string `alg` on the allow-list and no unknown `crit`.
struct CompactJWS {
    /// Largest compact token accepted, in bytes.
    static var defaultMaximumSize: Int { JWTVerifier.defaultMaximumTokenSize }

    let header: JSONDocument
    let algorithm: JWSAlgorithm
    let signature: [UInt8]
    /// Offsets of the two dots in the token's UTF-8.
    let firstDot: Int
    let secondDot: Int

    /// Splits `token` and finds the dots; throws for anything that is not three segments.
    static func locateDots(_ utf8: UnsafeBufferPointer<UInt8>, maximumSize: Int) throws(JOSEError) -> (Int, Int) {
        guard utf8.count <= maximumSize else {
            throw JOSEError(.limitExceeded, "token of \(utf8.count) bytes exceeds the \(maximumSize)-byte limit")
        }
        guard !utf8.isEmpty else {
            throw JOSEError(.malformedToken, "token is empty")
        }
        if utf8[0] == UInt8(ascii: "{") {
            throw JOSEError(.malformedToken, "token uses the JWS JSON serialization; a compact JWS is required")
        }
        var dots: (Int, Int) = (-1, -1)
        var found = 0
        // memchr jumps from dot to dot with wide loads; a byte-at-a-time loop over a
        // ~1 KB token cost about as much as parsing the header's JSON.
        var nextDot = Self.dot(in: utf8, from: 0)
        while let index = nextDot {
            nextDot = Self.dot(in: utf8, from: index + 1)
            found += 1
            switch found {
            case 1: dots.0 = index
            case 2: dots.1 = index
            default:
                var total = found
                for rest in (index + 1)..<max(index + 1, utf8.count) where utf8[rest] == UInt8(ascii: ".") {
                    total += 1
                    if total > 4 { break }
                }
                if total == 4 {
                    throw JOSEError(.malformedToken, "token has five segments (a JWE); a signed compact JWS is required")
                }
                throw JOSEError(.malformedToken, "token has more than three segments")
            }
        }
        guard found == 2 else {
            throw JOSEError(.malformedToken, "token has \(found + 1) segment\(found == 0 ? "" : "s"); a compact JWS has three")
        }
        guard dots.0 > 0 else { throw JOSEError(.malformedToken, "token header segment is empty") }
        guard dots.1 > dots.0 + 1 else { throw JOSEError(.malformedToken, "token payload segment is empty") }
        guard dots.1 < utf8.count - 1 else { throw JOSEError(.malformedToken, "token signature segment is empty") }
        return dots
    }

    /// Offset of the first "." at or after `start`, or nil.
    private static func dot(in utf8: UnsafeBufferPointer<UInt8>, from start: Int) -> Int? {
        guard start < utf8.count, let base = utf8.baseAddress,
            let hit = memchr(base + start, Int32(UInt8(ascii: ".")), utf8.count - start)
        else { return nil }
        return UnsafeRawPointer(base).distance(to: UnsafeRawPointer(hit))
    }

    /// Decodes one segment with its own error wording.
    static func decodeSegment(_ utf8: UnsafeBufferPointer<UInt8>, _ range: Range<Int>, name: String) throws(JOSEError) -> [UInt8] {
        do throws(JOSEError) {
            return try Base64URL.decode(UnsafeBufferPointer(rebasing: utf8[range]), padding: .acceptCanonical)
        } catch {
            throw JOSEError(.invalidBase64URL, "token \(name) segment: \(error.message)")
        }
    }

    /// Parses a decoded segment as a JSON object; JSON failures are reported with `code`
    /// (``JOSEError/Code/invalidHeader`` or ``JOSEError/Code/invalidPayload``), caps as `limitExceeded`.
    static func parseObject(_ bytes: [UInt8], segment: String, code: JOSEError.Code) throws(JOSEError) -> JSONDocument {
        let document: JSONDocument
        do throws(JOSEError) {
            document = try JSONDocument.parsed(bytes, limits: .token)
        } catch {
            throw JOSEError(error.code == .invalidJSON ? code : error.code, "token \(segment): \(error.message)")
        }
        guard document.root.kind == .object else {
            throw JOSEError(code, "token \(segment) is not a JSON object")
        }
        return document
    }

    /// Parses the header bytes and checks `alg` and `crit`.
    static func parseHeader(_ bytes: [UInt8]) throws(JOSEError) -> (JSONDocument, JWSAlgorithm) {
        let header = try parseObject(bytes, segment: "header", code: .invalidHeader)
        guard let algValue = header.root["alg"] else {
            throw JOSEError(.invalidHeader, "token header has no alg")
        }
        guard let alg = algValue.string else {
            throw JOSEError(.invalidHeader, "token header alg is not a string")
        }
        let algorithm = try JWSAlgorithm.fromHeader(alg)
        if let crit = header.root["crit"] {
            // RFC 7515 §4.1.11: no extension is understood here, so any listed one is fatal.
            guard crit.kind == .array, crit.count > 0, crit.elements.allSatisfy({ $0.kind == .string }) else {
                throw JOSEError(.invalidHeader, "token header crit must be a non-empty array of strings")
            }
            let names = crit.elements.compactMap { $0.string.map { String($0.prefix(32)) } }.joined(separator: ", ")
            throw JOSEError(.unsupportedCriticalHeader, "token header marks extensions as critical that are not understood: \(names)")
        }
        return (header, algorithm)
    }

    init(utf8: UnsafeBufferPointer<UInt8>, maximumSize: Int) throws(JOSEError) {
        (firstDot, secondDot) = try Self.locateDots(utf8, maximumSize: maximumSize)
        let headerBytes = try Self.decodeSegment(utf8, 0..<firstDot, name: "header")
        (header, algorithm) = try Self.parseHeader(headerBytes)
        signature = try Self.decodeSegment(utf8, (secondDot + 1)..<utf8.count, name: "signature")
    }
}

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
