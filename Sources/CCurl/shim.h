// libcurl for Swift: the system library (Debian's libcurl4-openssl-dev, found through pkg-config) and
// typed wrappers around its variadic functions, which Swift cannot call directly. Each wrapper passes
// exactly the argument type libcurl documents for the options it is used with.
#ifndef MSAL_CCURL_SHIM_H
#define MSAL_CCURL_SHIM_H

// The typed wrappers below stand in for libcurl's compile-time option checks.
#define CURL_DISABLE_TYPECHECK 1
#include <curl/curl.h>

/// A CURLOPT_WRITEFUNCTION or CURLOPT_HEADERFUNCTION callback.
typedef size_t (*msal_curl_data_callback)(char *data, size_t size, size_t count, void *context);

static inline CURLcode msal_curl_easy_setopt_long(CURL *handle, CURLoption option, long value) {
    return curl_easy_setopt(handle, option, value);
}

static inline CURLcode msal_curl_easy_setopt_off_t(CURL *handle, CURLoption option, curl_off_t value) {
    return curl_easy_setopt(handle, option, value);
}

static inline CURLcode msal_curl_easy_setopt_string(CURL *handle, CURLoption option, const char *value) {
    return curl_easy_setopt(handle, option, value);
}

static inline CURLcode msal_curl_easy_setopt_pointer(CURL *handle, CURLoption option, void *value) {
    return curl_easy_setopt(handle, option, value);
}

static inline CURLcode msal_curl_easy_setopt_slist(CURL *handle, CURLoption option, struct curl_slist *value) {
    return curl_easy_setopt(handle, option, value);
}

static inline CURLcode msal_curl_easy_setopt_data_callback(CURL *handle, CURLoption option, msal_curl_data_callback value) {
    return curl_easy_setopt(handle, option, value);
}

/// Sets a blob option (CURLOPT_SSLCERT_BLOB, CURLOPT_SSLKEY_BLOB, CURLOPT_CAINFO_BLOB): libcurl copies the bytes.
static inline CURLcode msal_curl_easy_setopt_blob_copy(CURL *handle, CURLoption option, const void *data, size_t length) {
    struct curl_blob blob = { (void *)data, length, CURL_BLOB_COPY };
    return curl_easy_setopt(handle, option, &blob);
}

static inline CURLcode msal_curl_easy_getinfo_pointer(CURL *handle, CURLINFO info, char **value) {
    return curl_easy_getinfo(handle, info, value);
}

static inline CURLMcode msal_curl_multi_setopt_long(CURLM *handle, CURLMoption option, long value) {
    return curl_multi_setopt(handle, option, value);
}

#endif
