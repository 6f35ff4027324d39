import COpenSSL

/// Reads OpenSSL's per-thread error queue.
enum OpenSSLErrorQueue {
    /// Removes every queued error and returns them as text, oldest first.
    static func drain() -> [String] {
        var messages: [String] = []
        while true {
            let code = ERR_get_error()
            if code == 0 { break }
            var buffer = [CChar](repeating: 0, count: 256)
            ERR_error_string_n(code, &buffer, buffer.count)
            if messages.count < 16 {
                messages.append(String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self))
            }
        }
        return messages
    }

    /// Forgets queued errors (used after an expected failure such as a signature that does not verify).
    static func clear() {
        ERR_clear_error()
    }

    /// An error with the given code and message, carrying whatever OpenSSL queued.
    static func error(_ code: JOSEError.Code, _ message: String) -> JOSEError {
        JOSEError(code, message, openSSLErrors: drain())
    }
}
