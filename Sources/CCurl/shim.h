// libcurl for Swift: its header (Debian's libcurl4-openssl-dev) for the types and constants, and
// typed wrappers that call its functions through `msal_curl_api`, a table of the functions looked up
// at run time (`LibCurl` in MSAL: `dlopen` the first time a transport sends a request), so that a
// process that never sends one — a command answered from the token cache — never maps libcurl and
// the two dozen libraries it links. The wrappers also stand in for its variadic functions, which
// Swift cannot call: each passes exactly the argument type libcurl documents for its options.
#ifndef MSAL_CCURL_SHIM_H
#define MSAL_CCURL_SHIM_H

// The typed wrappers below stand in for libcurl's compile-time option checks.
#define CURL_DISABLE_TYPECHECK 1
#include <curl/curl.h>

/// The libcurl functions this package calls, as `dlsym` found them (each non-NULL once loaded).
typedef struct msal_curl_api {
    void *global_init;
    void *easy_init;
    void *easy_cleanup;
    void *easy_setopt;
    void *easy_getinfo;
    void *easy_strerror;
    void *multi_init;
    void *multi_cleanup;
    void *multi_setopt;
    void *multi_add_handle;
    void *multi_remove_handle;
    void *multi_perform;
    void *multi_poll;
    void *multi_wakeup;
    void *multi_info_read;
    void *multi_strerror;
    void *slist_append;
    void *slist_free_all;
} msal_curl_api;

static inline CURLcode msal_curl_global_init(const msal_curl_api *api, long flags) {
    return ((CURLcode (*)(long))api->global_init)(flags);
}

static inline CURL *msal_curl_easy_init(const msal_curl_api *api) {
    return ((CURL * (*)(void)) api->easy_init)();
}

static inline void msal_curl_easy_cleanup(const msal_curl_api *api, CURL *handle) {
    ((void (*)(CURL *))api->easy_cleanup)(handle);
}

static inline const char *msal_curl_easy_strerror(const msal_curl_api *api, CURLcode code) {
    return ((const char *(*)(CURLcode))api->easy_strerror)(code);
}

static inline CURLM *msal_curl_multi_init(const msal_curl_api *api) {
    return ((CURLM * (*)(void)) api->multi_init)();
}

static inline CURLMcode msal_curl_multi_cleanup(const msal_curl_api *api, CURLM *handle) {
    return ((CURLMcode (*)(CURLM *))api->multi_cleanup)(handle);
}

static inline CURLMcode msal_curl_multi_add_handle(const msal_curl_api *api, CURLM *multi, CURL *easy) {
    return ((CURLMcode (*)(CURLM *, CURL *))api->multi_add_handle)(multi, easy);
}

static inline CURLMcode msal_curl_multi_remove_handle(const msal_curl_api *api, CURLM *multi, CURL *easy) {
    return ((CURLMcode (*)(CURLM *, CURL *))api->multi_remove_handle)(multi, easy);
}

static inline CURLMcode msal_curl_multi_perform(const msal_curl_api *api, CURLM *multi, int *running) {
    return ((CURLMcode (*)(CURLM *, int *))api->multi_perform)(multi, running);
}

static inline CURLMcode msal_curl_multi_poll(const msal_curl_api *api, CURLM *multi, int timeout, int *ready) {
    return ((CURLMcode (*)(CURLM *, struct curl_waitfd *, unsigned int, int, int *))api->multi_poll)(multi, NULL, 0, timeout, ready);
}

static inline CURLMcode msal_curl_multi_wakeup(const msal_curl_api *api, CURLM *multi) {
    return ((CURLMcode (*)(CURLM *))api->multi_wakeup)(multi);
}

static inline CURLMsg *msal_curl_multi_info_read(const msal_curl_api *api, CURLM *multi, int *remaining) {
    return ((CURLMsg * (*)(CURLM *, int *)) api->multi_info_read)(multi, remaining);
}

static inline const char *msal_curl_multi_strerror(const msal_curl_api *api, CURLMcode code) {
    return ((const char *(*)(CURLMcode))api->multi_strerror)(code);
}

static inline struct curl_slist *msal_curl_slist_append(const msal_curl_api *api, struct curl_slist *list, const char *line) {
    return ((struct curl_slist * (*)(struct curl_slist *, const char *)) api->slist_append)(list, line);
}

static inline void msal_curl_slist_free_all(const msal_curl_api *api, struct curl_slist *list) {
    ((void (*)(struct curl_slist *))api->slist_free_all)(list);
}

/// A CURLOPT_WRITEFUNCTION or CURLOPT_HEADERFUNCTION callback.
typedef size_t (*msal_curl_data_callback)(char *data, size_t size, size_t count, void *context);

static inline CURLcode msal_curl_easy_setopt_long(const msal_curl_api *api, CURL *handle, CURLoption option, long value) {
    return ((CURLcode (*)(CURL *, CURLoption, ...))api->easy_setopt)(handle, option, value);
}

static inline CURLcode msal_curl_easy_setopt_off_t(const msal_curl_api *api, CURL *handle, CURLoption option, curl_off_t value) {
    return ((CURLcode (*)(CURL *, CURLoption, ...))api->easy_setopt)(handle, option, value);
}

static inline CURLcode msal_curl_easy_setopt_string(const msal_curl_api *api, CURL *handle, CURLoption option, const char *value) {
    return ((CURLcode (*)(CURL *, CURLoption, ...))api->easy_setopt)(handle, option, value);
}

static inline CURLcode msal_curl_easy_setopt_pointer(const msal_curl_api *api, CURL *handle, CURLoption option, void *value) {
    return ((CURLcode (*)(CURL *, CURLoption, ...))api->easy_setopt)(handle, option, value);
}

static inline CURLcode msal_curl_easy_setopt_slist(const msal_curl_api *api, CURL *handle, CURLoption option, struct curl_slist *value) {
    return ((CURLcode (*)(CURL *, CURLoption, ...))api->easy_setopt)(handle, option, value);
}

static inline CURLcode msal_curl_easy_setopt_data_callback(const msal_curl_api *api, CURL *handle, CURLoption option, msal_curl_data_callback value) {
    return ((CURLcode (*)(CURL *, CURLoption, ...))api->easy_setopt)(handle, option, value);
}

/// Sets a blob option (CURLOPT_SSLCERT_BLOB, CURLOPT_SSLKEY_BLOB, CURLOPT_CAINFO_BLOB): libcurl copies the bytes.
static inline CURLcode msal_curl_easy_setopt_blob_copy(const msal_curl_api *api, CURL *handle, CURLoption option, const void *data, size_t length) {
    struct curl_blob blob = { (void *)data, length, CURL_BLOB_COPY };
    return ((CURLcode (*)(CURL *, CURLoption, ...))api->easy_setopt)(handle, option, &blob);
}

static inline CURLcode msal_curl_easy_getinfo_pointer(const msal_curl_api *api, CURL *handle, CURLINFO info, char **value) {
    return ((CURLcode (*)(CURL *, CURLINFO, ...))api->easy_getinfo)(handle, info, value);
}

static inline CURLMcode msal_curl_multi_setopt_long(const msal_curl_api *api, CURLM *handle, CURLMoption option, long value) {
    return ((CURLMcode (*)(CURLM *, CURLMoption, ...))api->multi_setopt)(handle, option, value);
}

#endif
