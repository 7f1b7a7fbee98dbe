#ifndef MEDIANODE_CCURL_SHIM_H
#define MEDIANODE_CCURL_SHIM_H
#include <curl/curl.h>

// curl_easy_setopt and curl_easy_getinfo are variadic, which Swift cannot call: one typed wrapper per
// argument type the transfer code passes.

/// Wrapper for curl_easy_setopt with a long argument.
static inline CURLcode mn_curl_set_long(CURL *easy, CURLoption option, long value) {
    return curl_easy_setopt(easy, option, value);
}

/// Wrapper for curl_easy_setopt with a curl_off_t argument (sizes and offsets).
static inline CURLcode mn_curl_set_offset(CURL *easy, CURLoption option, curl_off_t value) {
    return curl_easy_setopt(easy, option, value);
}

/// Wrapper for curl_easy_setopt with a string, which libcurl copies.
static inline CURLcode mn_curl_set_string(CURL *easy, CURLoption option, const char *value) {
    return curl_easy_setopt(easy, option, value);
}

/// Wrapper for curl_easy_setopt with a pointer libcurl keeps (callback data, the error buffer).
static inline CURLcode mn_curl_set_pointer(CURL *easy, CURLoption option, const void *value) {
    return curl_easy_setopt(easy, option, value);
}

/// Wrapper for curl_easy_setopt with a header list (kept alive by the caller until the transfer ends).
static inline CURLcode mn_curl_set_list(CURL *easy, CURLoption option, struct curl_slist *list) {
    return curl_easy_setopt(easy, option, list);
}

/// Wrapper for curl_easy_setopt with a body or header callback (CURLOPT_WRITEFUNCTION, CURLOPT_HEADERFUNCTION).
static inline CURLcode mn_curl_set_data_callback(CURL *easy, CURLoption option, curl_write_callback callback) {
    return curl_easy_setopt(easy, option, callback);
}

/// Wrapper for curl_easy_getinfo of a long (the response code, the redirect count).
static inline CURLcode mn_curl_get_long(CURL *easy, CURLINFO info, long *value) {
    return curl_easy_getinfo(easy, info, value);
}

/// Wrapper for curl_easy_getinfo of a string owned by the handle (the effective URL).
static inline CURLcode mn_curl_get_string(CURL *easy, CURLINFO info, char **value) {
    return curl_easy_getinfo(easy, info, value);
}

/// Wrapper for curl_multi_setopt with a long argument.
static inline CURLMcode mn_curl_multi_set_long(CURLM *multi, CURLMoption option, long value) {
    return curl_multi_setopt(multi, option, value);
}

/// CURL_GLOBAL_ALL, a macro of macros.
static inline CURLcode mn_curl_global_init(void) { return curl_global_init(CURL_GLOBAL_ALL); }

/// The finished transfer's result: CURLMsg keeps it in an anonymous union.
static inline CURLcode mn_curl_message_result(const CURLMsg *message) { return message->data.result; }

#endif
