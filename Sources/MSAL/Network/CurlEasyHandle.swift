import CCurl

/// One libcurl easy handle (one transfer), with the error buffer and the header list it points to.
///
/// Owns the handle, and the error buffer and header list libcurl reads through it, and frees all
/// three in `deinit` (the handle first). The raw handle is reachable only inside ``withEasyPointer(_:)``.
/// Not `Sendable`: a handle is configured on one thread and then used by ``CurlDriver``'s thread only.
final class CurlEasyHandle {
    private let handle: UnsafeMutableRawPointer
    /// libcurl's functions.
    let curl: LibCurl
    /// libcurl writes its detailed message for a failed transfer here (`CURLOPT_ERRORBUFFER`).
    private let errorBuffer: UnsafeMutablePointer<CChar>
    /// The request header lines (`CURLOPT_HTTPHEADER`); libcurl reads them during the transfer.
    private var headerList: UnsafeMutablePointer<curl_slist>?

    /// Creates a handle; `nil` when libcurl cannot allocate one.
    init?(curl: LibCurl) {
        guard let handle = msal_curl_easy_init(curl.api) else { return nil }
        self.handle = handle
        self.curl = curl
        self.errorBuffer = .allocate(capacity: Int(CURL_ERROR_SIZE))
        self.errorBuffer.initialize(repeating: 0, count: Int(CURL_ERROR_SIZE))
        _ = msal_curl_easy_setopt_pointer(curl.api, handle, CURLOPT_ERRORBUFFER, errorBuffer)
    }

    deinit {
        msal_curl_easy_cleanup(curl.api, handle)
        msal_curl_slist_free_all(curl.api, headerList)
        errorBuffer.deallocate()
    }

    /// Runs `body` with the raw handle, which must not escape it.
    func withEasyPointer<Result>(_ body: (UnsafeMutableRawPointer) throws -> Result) rethrows -> Result {
        try body(handle)
    }

    /// libcurl's detailed message for the last failure, or an empty string.
    var errorMessage: String {
        String(cString: errorBuffer)
    }

    /// Sets a `long` option.
    func set(_ option: CURLoption, _ value: Int) throws(CurlSetupError) {
        try check(msal_curl_easy_setopt_long(curl.api, handle, option, value), option)
    }

    /// Sets a `curl_off_t` option.
    func set(_ option: CURLoption, offset value: Int64) throws(CurlSetupError) {
        try check(msal_curl_easy_setopt_off_t(curl.api, handle, option, curl_off_t(value)), option)
    }

    /// Sets a string option. libcurl copies every string option but `CURLOPT_POSTFIELDS`, which must
    /// not be set through this method (use `CURLOPT_COPYPOSTFIELDS`).
    func set(_ option: CURLoption, string value: String) throws(CurlSetupError) {
        try check(msal_curl_easy_setopt_string(curl.api, handle, option, value), option)
    }

    /// Sets a blob option; libcurl keeps a copy of the bytes for the handle's life.
    func set(_ option: CURLoption, blob value: [UInt8]) throws(CurlSetupError) {
        try check(value.withUnsafeBytes { msal_curl_easy_setopt_blob_copy(curl.api, handle, option, $0.baseAddress, $0.count) }, option)
    }

    /// Sets a pointer option (callback context, `CURLOPT_PRIVATE`).
    func set(_ option: CURLoption, pointer value: UnsafeMutableRawPointer?) throws(CurlSetupError) {
        try check(msal_curl_easy_setopt_pointer(curl.api, handle, option, value), option)
    }

    /// Sets a data callback (`CURLOPT_WRITEFUNCTION`, `CURLOPT_HEADERFUNCTION`).
    func set(_ option: CURLoption, callback value: msal_curl_data_callback) throws(CurlSetupError) {
        try check(msal_curl_easy_setopt_data_callback(curl.api, handle, option, value), option)
    }

    /// Sets the request header lines, kept alive here until the handle is freed.
    func setHeaderLines(_ lines: [String]) throws(CurlSetupError) {
        var list: UnsafeMutablePointer<curl_slist>? = nil
        for line in lines {
            guard let appended = msal_curl_slist_append(curl.api, list, line) else {
                msal_curl_slist_free_all(curl.api, list)
                throw CurlSetupError(option: CURLOPT_HTTPHEADER, code: CURLE_OUT_OF_MEMORY, text: curl.describe(CURLE_OUT_OF_MEMORY))
            }
            list = appended
        }
        msal_curl_slist_free_all(curl.api, headerList)
        headerList = list
        try check(msal_curl_easy_setopt_slist(curl.api, handle, CURLOPT_HTTPHEADER, list), CURLOPT_HTTPHEADER)
    }

    private func check(_ code: CURLcode, _ option: CURLoption) throws(CurlSetupError) {
        guard code == CURLE_OK else { throw CurlSetupError(option: option, code: code, text: curl.describe(code)) }
    }
}

/// libcurl refused an option while a transfer was being set up.
struct CurlSetupError: Error {
    /// The option.
    var option: CURLoption
    /// libcurl's result.
    var code: CURLcode
    /// libcurl's text for `code`.
    var text: String

    /// What went wrong, with the option number.
    var description: String {
        "libcurl option \(option.rawValue): \(text)"
    }
}
