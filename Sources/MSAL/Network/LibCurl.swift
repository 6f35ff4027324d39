import CCurl

#if canImport(Glibc)
import Glibc
#endif

/// libcurl, loaded into the process (`dlopen`) the first time an ``MSALCurlTransport`` sends a
/// request, and set up once (`curl_global_init`).
///
/// swift-msal does not link libcurl: a process whose tokens all come from the cache (a credential
/// helper run once per command, an app between refreshes) never maps it and the two dozen libraries
/// it links (TLS, Kerberos, LDAP, SSH, IDN…), which cost a `msal token` process a sixth of its memory
/// and part of its start. The functions are called through the shim's `msal_curl_api` table.
final class LibCurl: @unchecked Sendable {
    // @unchecked Sendable: `table` is filled in `load()` before the object exists and only read
    // afterwards; the object is the process's one (`shared`) and is never freed, nor is the table.
    private let table: UnsafeMutablePointer<msal_curl_api>

    /// The process's libcurl, or why it could not be loaded (Swift runs the load once, thread-safely).
    static let shared: Result<LibCurl, LoadFailure> = load()

    /// libcurl could not be loaded or set up.
    struct LoadFailure: Error, Sendable {
        /// What failed: the loader's message, a missing function, or `curl_global_init`'s result.
        let reason: String
    }

    /// The sonames tried in turn: the runtime library, then the development package's link.
    static let libraryNames = ["libcurl.so.4", "libcurl.so"]

    private init(table: UnsafeMutablePointer<msal_curl_api>) {
        self.table = table
    }

    /// The function table, for the shim's wrappers.
    var api: UnsafePointer<msal_curl_api> { UnsafePointer(table) }

    /// libcurl's text for `code`.
    func describe(_ code: CURLcode) -> String {
        String(cString: msal_curl_easy_strerror(api, code))
    }

    /// libcurl's text for a multi handle's `code`.
    func describe(_ code: CURLMcode) -> String {
        String(cString: msal_curl_multi_strerror(api, code))
    }

    private static func load() -> Result<LibCurl, LoadFailure> {
        var library: UnsafeMutableRawPointer?
        var errors: [String] = []
        for name in libraryNames where library == nil {
            library = dlopen(name, RTLD_NOW | RTLD_LOCAL)
            if library == nil { errors.append(dlerror().map { String(cString: $0) } ?? name) }
        }
        guard let library else {
            return .failure(LoadFailure(reason: "libcurl could not be loaded (\(errors.joined(separator: "; ")))"))
        }
        var missing: [String] = []
        func function(_ name: String) -> UnsafeMutableRawPointer? {
            guard let symbol = dlsym(library, name) else {
                missing.append(name)
                return nil
            }
            return symbol
        }
        var api = msal_curl_api()
        api.global_init = function("curl_global_init")
        api.easy_init = function("curl_easy_init")
        api.easy_cleanup = function("curl_easy_cleanup")
        api.easy_setopt = function("curl_easy_setopt")
        api.easy_getinfo = function("curl_easy_getinfo")
        api.easy_strerror = function("curl_easy_strerror")
        api.multi_init = function("curl_multi_init")
        api.multi_cleanup = function("curl_multi_cleanup")
        api.multi_setopt = function("curl_multi_setopt")
        api.multi_add_handle = function("curl_multi_add_handle")
        api.multi_remove_handle = function("curl_multi_remove_handle")
        api.multi_perform = function("curl_multi_perform")
        api.multi_poll = function("curl_multi_poll")
        api.multi_wakeup = function("curl_multi_wakeup")
        api.multi_info_read = function("curl_multi_info_read")
        api.multi_strerror = function("curl_multi_strerror")
        api.slist_append = function("curl_slist_append")
        api.slist_free_all = function("curl_slist_free_all")
        guard missing.isEmpty else {
            // libcurl older than 7.68 has no curl_multi_poll/curl_multi_wakeup.
            return .failure(LoadFailure(reason: "libcurl lacks \(missing.joined(separator: ", ")) (7.68 or later is needed)"))
        }
        let table = UnsafeMutablePointer<msal_curl_api>.allocate(capacity: 1)
        table.initialize(to: api)
        let code = msal_curl_global_init(table, Int(CURL_GLOBAL_DEFAULT))
        guard code == CURLE_OK else {
            return .failure(LoadFailure(reason: "curl_global_init failed (\(code.rawValue))"))
        }
        return .success(LibCurl(table: table))
    }
}
