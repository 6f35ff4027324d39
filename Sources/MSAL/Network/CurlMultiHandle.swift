import CCurl

/// One libcurl multi handle: the set of transfers ``CurlDriver`` runs on its thread, their connection
/// cache, and the wait for socket activity.
///
/// Owns the handle and frees it in `deinit`. Every method but ``wakeup()`` must be called from the
/// driver's thread; ``wakeup()`` is the one libcurl documents as callable from any thread.
final class CurlMultiHandle {
    private let handle: UnsafeMutableRawPointer
    /// libcurl's functions.
    let curl: LibCurl

    /// Creates a handle; `nil` when libcurl cannot allocate one.
    init?(curl: LibCurl) {
        guard let handle = msal_curl_multi_init(curl.api) else { return nil }
        self.handle = handle
        self.curl = curl
        // At most 6 connections to one host, as browsers do; HTTP/2 multiplexes over one of them.
        _ = msal_curl_multi_setopt_long(curl.api, handle, CURLMOPT_MAX_HOST_CONNECTIONS, 6)
        _ = msal_curl_multi_setopt_long(curl.api, handle, CURLMOPT_MAXCONNECTS, 32)
    }

    deinit {
        msal_curl_multi_cleanup(curl.api, handle)
    }

    /// Adds a transfer; libcurl starts it on the next ``perform()``.
    func add(_ easy: CurlEasyHandle) -> CURLMcode {
        easy.withEasyPointer { msal_curl_multi_add_handle(curl.api, handle, $0) }
    }

    /// Removes a transfer, finished or not (a removed transfer is abandoned; its connection closed
    /// unless it can be reused).
    func remove(_ easy: CurlEasyHandle) {
        _ = easy.withEasyPointer { msal_curl_multi_remove_handle(curl.api, handle, $0) }
    }

    /// Moves every transfer forward as far as it can go without waiting.
    func perform() {
        var running: Int32 = 0
        _ = msal_curl_multi_perform(curl.api, handle, &running)
    }

    /// The next finished transfer: its `CURLOPT_PRIVATE` pointer and its result.
    func nextFinished() -> (UnsafeMutableRawPointer?, CURLcode)? {
        var remaining: Int32 = 0
        while let message = msal_curl_multi_info_read(curl.api, handle, &remaining) {
            guard message.pointee.msg == CURLMSG_DONE, let easy = message.pointee.easy_handle else { continue }
            var context: UnsafeMutablePointer<CChar>? = nil
            _ = msal_curl_easy_getinfo_pointer(curl.api, easy, CURLINFO_PRIVATE, &context)
            return (UnsafeMutableRawPointer(context), message.pointee.data.result)
        }
        return nil
    }

    /// Waits up to `milliseconds` for socket activity, libcurl's own timers, or ``wakeup()``.
    func poll(milliseconds: Int) {
        var ready: Int32 = 0
        _ = msal_curl_multi_poll(curl.api, handle, Int32(clamping: milliseconds), &ready)
    }

    /// Ends a ``poll(milliseconds:)`` in progress (or the next one) at once. Callable from any thread.
    func wakeup() {
        _ = msal_curl_multi_wakeup(curl.api, handle)
    }
}
