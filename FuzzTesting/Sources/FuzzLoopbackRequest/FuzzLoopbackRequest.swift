// The loopback redirect listener's request handling: the bytes a browser (or anything else on the
// machine) sends to the listener's port, through the listener's own handlers (size cap, NIO's HTTP
// decoder, the redirect rules and pages) on an EmbeddedChannel; plus the checks on a redirect URL
// an app's web UI captured and on the configured redirect URI (`@_spi(Fuzzing)` entry points).
//
// Input: raw request bytes (also read as a redirect URL and as a redirect URI).
//
// Invariants:
// - The connection gets at most one response: `HTTP/1.1 <status>`, only the listener's own header
//   lines, and no `error`/`error_description` text with markup echoed raw.
// - The listener settles only on a request carrying the expected state, with exactly one of code
//   and error; a request that does not settle it leaves it waiting.
// - Delivering the same bytes in small pieces gives the same response and outcome.
// - A captured redirect that is accepted has the expected state and not both code and error.
// - A redirect URI that parses gives a listener URI that parses back to the same host, port and path.

import Foundation
import FuzzCheck
@_spi(Fuzzing) import MSAL
import NIOCore
import NIOEmbedded

let expectedState = "fuzz-state-4711"
let port = 53123
let ownHeaders: Set<String> = [
    "content-type", "content-length", "connection", "cache-control", "referrer-policy", "x-content-type-options",
    "content-security-policy", "allow",
]

/// libFuzzer's entry point: serves the input as a request to a fresh loopback listener, whole and
/// in pieces, and reads it as a captured redirect URL and as a redirect URI; returns 0.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzLoopbackRequest(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let bytes = fuzzBytes(data, size)
    let whole = serve(bytes, pieceSize: nil)
    check(whole)
    if bytes.count > 1 {
        let pieces = serve(bytes, pieceSize: 7)
        fuzzCheck(pieces.response == whole.response, "the response depends on how the request was split")
        fuzzCheck(pieces.summary == whole.summary, "the outcome depends on how the request was split")
    }
    let text = String(decoding: bytes, as: UTF8.self)
    checkCapturedRedirect(text)
    checkRedirectURI(text)
    return 0
}

struct Served {
    var response: [UInt8]
    var outcome: MSALFuzzingSupport.LoopbackOutcome?
    /// The outcome in comparable form.
    var summary: String {
        switch outcome {
        case nil: "waiting"
        case .redirect(let parameters, let url): "redirect \(parameters.sorted { $0.key < $1.key }) \(url.absoluteString)"
        case .failure(let error): "failure \(String(describing: error.internalCode)) \(error.message)"
        }
    }
}

/// Feeds `bytes` to one new connection of a fresh listener, whole or in pieces of `pieceSize`.
func serve(_ bytes: [UInt8], pieceSize: Int?) -> Served {
    let loop = EmbeddedEventLoop()
    defer { try? loop.syncShutdownGracefully() }
    let exchange: MSALFuzzingSupport.LoopbackExchange
    let channel = EmbeddedChannel(loop: loop)
    do {
        exchange = try MSALFuzzingSupport.loopbackExchange(
            redirectURI: "http://localhost/callback", port: port, expectedState: expectedState, maximumRequestBytes: 4096, eventLoop: loop)
        try channel.pipeline.syncOperations.addHandlers(exchange.connectionHandlers())
        try channel.connect(to: SocketAddress(ipAddress: "127.0.0.1", port: 40000)).wait()
    } catch {
        // The listener and channel are the same for every input: failing here is the harness, not the input.
        fatalError("cannot set up the listener's connection on an EmbeddedChannel: \(error)")
    }
    var offset = 0
    while offset < bytes.count, channel.isActive {
        let end = pieceSize.map { min(offset + $0, bytes.count) } ?? bytes.count
        _ = try? channel.writeInbound(ByteBuffer(bytes: bytes[offset..<end]))
        offset = end
    }
    loop.run()
    var response: [UInt8] = []
    while let part = try? channel.readOutbound(as: IOData.self) {
        if case .byteBuffer(let buffer) = part { response += Array(buffer.readableBytesView) }
    }
    _ = try? channel.finish(acceptAlreadyClosed: true)
    return Served(response: response, outcome: exchange.outcome)
}

func check(_ served: Served) {
    let text = String(decoding: served.response, as: UTF8.self)
    if !served.response.isEmpty {
        fuzzCheck(text.hasPrefix("HTTP/1.1 "), "the response does not start with a status line: \(text.prefix(40).debugDescription)")
        let head = text.components(separatedBy: "\r\n\r\n").first ?? ""
        let lines = head.components(separatedBy: "\r\n")
        let status = lines[0].split(separator: " ")
        fuzzCheck(status.count >= 2 && status[1].count == 3 && Int(status[1]) != nil, "bad status line \(lines[0].debugDescription)")
        for line in lines.dropFirst() {
            let name = line.prefix { $0 != ":" }.lowercased()
            fuzzCheck(ownHeaders.contains(name), "the response carries a header the listener does not write: \(line.debugDescription)")
        }
        fuzzCheck(text.components(separatedBy: "HTTP/1.1 ").count == 2, "the connection got more than one response")
    }
    switch served.outcome {
    case nil:
        break
    case .redirect(let parameters, _):
        fuzzCheck(parameters["state"] == expectedState, "the listener settled on state \(String(describing: parameters["state"]))")
        fuzzCheck((parameters["code"] != nil) != (parameters["error"] != nil), "the listener settled without exactly one of code and error")
        for name in ["error", "error_description"] {
            if let value = parameters[name], value.contains("<") || value.contains("\"") {
                fuzzCheck(!text.contains(value), "the page echoes the redirect's \(name) unescaped")
            }
        }
    case .failure(let error):
        fuzzCheck(error.internalCode == .invalidRedirect, "the listener settled on \(String(describing: error.internalCode))")
    }
}

func checkCapturedRedirect(_ text: String) {
    guard let url = URL(string: text) else { return }
    do throws(MSALFailure) {
        let parameters = try MSALFuzzingSupport.parseCapturedRedirect(url, expectedState: expectedState)
        fuzzCheck(parameters["state"] == expectedState, "a captured redirect was accepted with another state")
        fuzzCheck(parameters["code"] == nil || parameters["error"] == nil, "a captured redirect with both code and error was accepted")
    } catch {
        fuzzCheck(
            error.internalCode == .invalidRedirect || error.internalCode == .internalErrorInvalidState,
            "a captured redirect failed with \(String(describing: error.internalCode))")
    }
}

func checkRedirectURI(_ text: String) {
    do throws(MSALFailure) {
        let parsed = try MSALFuzzingSupport.parseLoopbackRedirectURI(text, boundPort: port)
        let again = try MSALFuzzingSupport.parseLoopbackRedirectURI(parsed.url.absoluteString, boundPort: port)
        fuzzCheck(
            again.host == parsed.host && again.port == (parsed.port ?? port) && again.path == parsed.path,
            "redirect URI \(text.debugDescription) → \(parsed.url.absoluteString) parses back differently")
    } catch {
        fuzzCheck(
            error.internalCode == .internalErrorInvalidRedirectURI, "a redirect URI failed with \(String(describing: error.internalCode))")
    }
}
