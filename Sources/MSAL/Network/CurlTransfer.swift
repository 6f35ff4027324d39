import CCurl
import Foundation
import MSALJOSE

/// One request sent by ``MSALCurlTransport``: its easy handle, configured from the request and limits,
/// and the response head parsed from libcurl's header callback.
///
/// `@unchecked Sendable`: a transfer is created and configured on the caller's thread, then handed to
/// ``CurlDriver``'s thread through its locked inbox, and from then on touched only by that thread
/// (libcurl runs the callbacks inside `curl_multi_perform` there). The caller keeps only `id` and
/// `exchange`, which are immutable and `Sendable`.
final class CurlTransfer: @unchecked Sendable {
    /// The driver's key for this transfer, also stored as the handle's `CURLOPT_PRIVATE`.
    let id: Int
    /// Where the outcome goes.
    let exchange: TransportExchange
    /// The handle.
    let easy: CurlEasyHandle

    /// The largest response head accepted, in bytes (all header lines of all interim and final heads).
    static let maximumHeadSize = 256 << 10

    /// The request body, and how much of it libcurl has read.
    private var requestBody: [UInt8] = []
    private var requestBodySent = 0
    private var statusCode: Int?
    private var fields: [MSALHTTPHeaders.Field] = []
    private var headSize = 0
    /// Set once the final (non-1xx) head ended; header lines after it are trailers and are ignored.
    private var headComplete = false
    /// Why a callback stopped the transfer, reported instead of libcurl's write error.
    private(set) var abortReason: MSALFailure?

    /// Creates a transfer for `request`; throws a network failure when libcurl refuses the setup.
    init(
        id: Int, curl: LibCurl, request: MSALHTTPRequest, limits: MSALHTTPLimits, exchange: TransportExchange,
        trustedCertificatesFile: String?
    ) throws {
        self.id = id
        self.exchange = exchange
        guard let easy = CurlEasyHandle(curl: curl) else {
            throw MSALFailure(.internal, internalCode: .networkFailure, message: "libcurl could not create a transfer for \(exchange.host)")
        }
        self.easy = easy
        do {
            try configure(request, limits: limits, trustedCertificatesFile: trustedCertificatesFile)
            if let certificate = request.clientCertificate {
                try presentClientCertificate(certificate, host: exchange.host)
            }
        } catch let error as CurlSetupError {
            throw MSALFailure(
                .internal, internalCode: .networkFailure,
                message: "The request to \(exchange.host) could not be set up: \(error.description)",
                underlyingError: MSALSendableErrorDescription(
                    domain: "libcurl", code: Int(error.code.rawValue), description: error.description))
        }
    }

    /// Gives libcurl the certificate and key for TLS client authentication, as in-memory PEM
    /// copies it keeps for this handle (no file). libcurl matches a connection for reuse by the
    /// client certificate, so this request gets a connection made with it, and no request without
    /// it reuses that connection.
    private func presentClientCertificate(_ certificate: MSALClientCertificate, host: String) throws {
        var identity: (privateKeyPEM: [UInt8], certificateChainPEM: [UInt8])
        do {
            identity = try certificate.certificate.tlsIdentityPEM()
        } catch {
            throw MSALFailure(
                .internal, internalCode: .tlsFailure,
                message: "The client certificate for \(host) could not be prepared: \(error.message)", underlyingError: error)
        }
        defer { ClientCertificate.wipe(&identity.privateKeyPEM) }
        try easy.set(CURLOPT_SSLCERTTYPE, string: "PEM")
        try easy.set(CURLOPT_SSLCERT_BLOB, blob: identity.certificateChainPEM)
        try easy.set(CURLOPT_SSLKEYTYPE, string: "PEM")
        try easy.set(CURLOPT_SSLKEY_BLOB, blob: identity.privateKeyPEM)
    }

    private func configure(
        _ request: MSALHTTPRequest, limits: MSALHTTPLimits, trustedCertificatesFile: String?
    ) throws(CurlSetupError) {
        let context = Unmanaged.passUnretained(self).toOpaque()
        try easy.set(CURLOPT_PRIVATE, pointer: UnsafeMutableRawPointer(bitPattern: id))
        try easy.set(CURLOPT_URL, string: request.url.absoluteString)
        // Plain HTTP only because the pipeline allows it for loopback; nothing else, and no redirects.
        try easy.set(CURLOPT_PROTOCOLS_STR, string: "http,https")
        try easy.set(CURLOPT_FOLLOWLOCATION, 0)
        // No signals: the process is multithreaded (and the resolver is libcurl's threaded one).
        try easy.set(CURLOPT_NOSIGNAL, 1)
        // TLS: the system trust store through OpenSSL, peer and host verified, TLS 1.2 or later.
        try easy.set(CURLOPT_SSL_VERIFYPEER, 1)
        try easy.set(CURLOPT_SSL_VERIFYHOST, 2)
        try easy.set(CURLOPT_SSLVERSION, CURL_SSLVERSION_TLSv1_2)
        if let trustedCertificatesFile {
            // Only these certificates are trusted: the file replaces the bundle, and no directory
            // of certificates is searched.
            try easy.set(CURLOPT_CAINFO, string: trustedCertificatesFile)
            try easy.set(CURLOPT_CAPATH, pointer: nil)
        }
        // The watchdog in `CurlDriver` enforces the limits to the millisecond; these are backstops.
        try easy.set(CURLOPT_CONNECTTIMEOUT_MS, Self.milliseconds(limits.connectTimeout) + 1000)
        try easy.set(CURLOPT_TIMEOUT_MS, Self.milliseconds(max(limits.connectTimeout, limits.totalTimeout)) + 1000)
        // A proxy's CONNECT response is not the server's.
        try easy.set(CURLOPT_SUPPRESS_CONNECT_HEADERS, 1)
        try easy.set(CURLOPT_WRITEFUNCTION, callback: curlWriteCallback)
        try easy.set(CURLOPT_WRITEDATA, pointer: context)
        try easy.set(CURLOPT_HEADERFUNCTION, callback: curlHeaderCallback)
        try easy.set(CURLOPT_HEADERDATA, pointer: context)

        let body = request.body ?? []
        if !body.isEmpty {
            // The body is read through a callback, with no seek callback on purpose. When a reused
            // keep-alive connection turns out closed after the request went out, libcurl resends the
            // request on a new connection, which needs the body rewound: without a way to seek, it
            // fails instead (CURLE_SEND_FAIL_REWIND), so a body is never sent twice. A request whose
            // body did not go out yet, or a GET, may still be resent once.
            requestBody = body
            try easy.set(CURLOPT_POST, 1)
            try easy.set(CURLOPT_POSTFIELDSIZE_LARGE, offset: Int64(body.count))
            try easy.set(CURLOPT_READFUNCTION, callback: curlReadCallback)
            try easy.set(CURLOPT_READDATA, pointer: context)
        } else if request.method == .post {
            try easy.set(CURLOPT_POSTFIELDSIZE_LARGE, offset: 0)
            try easy.set(CURLOPT_COPYPOSTFIELDS, string: "")
        }
        if request.method == .get && body.isEmpty {
            try easy.set(CURLOPT_HTTPGET, 1)
        } else if request.method != .post {
            // Any other method, or a GET with a body, keeps its name; the body (if any) follows.
            try easy.set(CURLOPT_CUSTOMREQUEST, string: request.method.rawValue)
        }

        var lines: [String] = []
        // `MSALHTTPRequest.checkBeforeSending(limits:)` refused line breaks already.
        for field in request.headers {
            // A field with an empty value is written `Name;` (libcurl drops `Name:`).
            lines.append(field.value.isEmpty ? "\(field.name);" : "\(field.name): \(field.value)")
        }
        // No `Expect: 100-continue` round trip for bodies (libcurl's `Accept: */*` stays).
        if !request.headers.contains("Expect") { lines.append("Expect:") }
        try easy.setHeaderLines(lines)
    }

    private static func milliseconds(_ seconds: Double) -> Int {
        guard seconds.isFinite, seconds > 0 else { return 1 }
        return Int(min(seconds * 1000, Double(Int32.max)).rounded(.up))
    }

    /// Copies the next part of the request body into `buffer`; returns the count copied (0 at the end).
    fileprivate func sendBody(into buffer: UnsafeMutableRawBufferPointer) -> Int {
        let count = min(buffer.count, requestBody.count - requestBodySent)
        guard count > 0 else { return 0 }
        requestBody.withUnsafeBytes { body in
            buffer.copyMemory(from: UnsafeRawBufferPointer(rebasing: body[requestBodySent..<(requestBodySent + count)]))
        }
        requestBodySent += count
        return count
    }

    /// A response body fragment. Returns the count consumed; anything else makes libcurl stop.
    fileprivate func receiveBody(_ bytes: UnsafeRawBufferPointer) -> Int {
        guard abortReason == nil else { return 0 }
        if let error = exchange.append(bytes) {
            abortReason = error
            return 0
        }
        return bytes.count
    }

    /// One response header line (status line, field, blank end-of-head line, or trailer field).
    fileprivate func receiveHeaderLine(_ bytes: UnsafeRawBufferPointer) -> Int {
        guard abortReason == nil else { return 0 }
        // Trailer fields after a chunked body carry nothing swift-msal uses; they are ignored.
        if headComplete { return bytes.count }
        headSize += bytes.count
        if headSize > Self.maximumHeadSize {
            abortReason = MSALFailure(
                .internal, internalCode: .networkFailure,
                message: "The response from \(exchange.host) has a head over \(Self.maximumHeadSize) bytes")
            return 0
        }
        exchange.touch()
        // Without its line end, trimmed as bytes ("\r\n" is one Character in Swift).
        var end = bytes.count
        while end > 0, bytes[end - 1] == 0x0D || bytes[end - 1] == 0x0A { end -= 1 }
        let line = Substring(String(decoding: UnsafeRawBufferPointer(rebasing: bytes[..<end]), as: UTF8.self))

        if line.hasPrefix("HTTP/") {
            // "HTTP/1.1 200 OK", "HTTP/2 200": a new head starts (after a 1xx one, or a proxy's).
            let parts = line.split(separator: " ", maxSplits: 2, omittingEmptySubsequences: true)
            statusCode = parts.count >= 2 ? Int(parts[1]) : nil
            fields = []
        } else if line.isEmpty {
            // 1xx heads are interim (another head follows), except 101: no upgrade was asked for, so
            // nothing else follows it and it is the answer.
            guard let status = statusCode, !(100..<200).contains(status) || status == 101 else {
                statusCode = nil
                fields = []
                return bytes.count
            }
            headComplete = true
            let headers = MSALHTTPHeaders(fields)
            if let error = exchange.receive(statusCode: status, headers: headers) {
                abortReason = error
                return 0
            }
        } else if line.first == " " || line.first == "\t" {
            // An obsolete folded continuation of the previous field.
            if !fields.isEmpty {
                fields[fields.count - 1].value += " " + line.trimmingCharacters(in: .whitespaces)
            }
        } else if let colon = line.firstIndex(of: ":") {
            let name = line[..<colon].trimmingCharacters(in: .whitespaces)
            let value = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
            if !name.isEmpty { fields.append(MSALHTTPHeaders.Field(name: name, value: value)) }
        }
        return bytes.count
    }
}

private let curlWriteCallback: msal_curl_data_callback = { data, size, count, context in
    guard let context else { return 0 }
    let transfer = Unmanaged<CurlTransfer>.fromOpaque(context).takeUnretainedValue()
    return transfer.receiveBody(UnsafeRawBufferPointer(start: data, count: size * count))
}

private let curlReadCallback: msal_curl_data_callback = { buffer, size, count, context in
    guard let context, let buffer else { return Int(CURL_READFUNC_ABORT) }
    let transfer = Unmanaged<CurlTransfer>.fromOpaque(context).takeUnretainedValue()
    return transfer.sendBody(into: UnsafeMutableRawBufferPointer(start: buffer, count: size * count))
}

private let curlHeaderCallback: msal_curl_data_callback = { data, size, count, context in
    guard let context else { return 0 }
    let transfer = Unmanaged<CurlTransfer>.fromOpaque(context).takeUnretainedValue()
    return transfer.receiveHeaderLine(UnsafeRawBufferPointer(start: data, count: size * count))
}
