#include "CCurl.h"

#if defined(__linux__)

#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>

// libcurl's variadic entry points are called through pointers of their own variadic type: the arguments are then
// passed exactly as curl.h's prototypes pass them, on every ABI (x86_64 and aarch64 differ for variadic calls).
typedef int (*easy_setopt_fn)(void *, int, ...);
typedef int (*easy_getinfo_fn)(void *, int, ...);
typedef int (*multi_setopt_fn)(void *, int, ...);

// The first fields of curl_version_info_data, stable since its first version.
typedef struct {
    int age;
    const char *version;
    unsigned int version_num;
    const char *host;
    int features;
    const char *ssl_version;
} version_info;

// CURLMsg: a message kind, the easy handle, then a union whose CURLcode shares the first bytes.
typedef struct {
    int msg;
    void *easy_handle;
    union {
        void *whatever;
        int result;
    } data;
} multi_message;

static struct {
    int (*global_init)(long);
    version_info *(*version_info)(int);
    void *(*easy_init)(void);
    void (*easy_cleanup)(void *);
    void (*easy_reset)(void *);
    easy_setopt_fn easy_setopt;
    easy_getinfo_fn easy_getinfo;
    int (*easy_pause)(void *, int);
    const char *(*easy_strerror)(int);
    void *(*slist_append)(void *, const char *);
    void (*slist_free_all)(void *);
    void *(*multi_init)(void);
    int (*multi_cleanup)(void *);
    multi_setopt_fn multi_setopt;
    int (*multi_add_handle)(void *, void *);
    int (*multi_remove_handle)(void *, void *);
    int (*multi_perform)(void *, int *);
    int (*multi_poll)(void *, void *, unsigned int, int, int *);
    int (*multi_wakeup)(void *);
    multi_message *(*multi_info_read)(void *, int *);
} curl;

// The OpenSSL 1.1+ calls that look into an idle TLS connection, found among libcurl's own dependencies (so they are
// the OpenSSL libcurl uses); all NULL when libcurl uses another TLS library.
static struct {
    int (*peek)(void *, void *, int);
    int (*get_error)(const void *, int);
    int (*has_pending)(const void *);
    void *(*get_rbio)(const void *);
    void *(*get_wbio)(const void *);
    void (*set0_rbio)(void *, void *);
    void (*set0_wbio)(void *, void *);
    void (*get0_alpn_selected)(const void *, const unsigned char **, unsigned int *);
    void *(*bio_new_socket)(int, int);
    int (*bio_up_ref)(void *);
    void (*err_clear_error)(void);
} tls;
static int tls_loaded;

static pthread_once_t load_once = PTHREAD_ONCE_INIT;
static char load_error[512];
static version_info *info;

#define LOAD(field, name)                                                                                     \
    do {                                                                                                      \
        *(void **)(&curl.field) = dlsym(library, name);                                                       \
        if (!curl.field) {                                                                                    \
            snprintf(load_error, sizeof load_error, "libcurl.so.4 has no %s (it is older than 7.68.0)", name); \
            return;                                                                                           \
        }                                                                                                     \
    } while (0)

#define LOAD_TLS(field, name)                                  \
    do {                                                       \
        *(void **)(&tls.field) = dlsym(library, name);         \
        if (!tls.field) return;                                \
    } while (0)

static void load_tls(void *library) {
    LOAD_TLS(peek, "SSL_peek");
    LOAD_TLS(get_error, "SSL_get_error");
    LOAD_TLS(has_pending, "SSL_has_pending");
    LOAD_TLS(get_rbio, "SSL_get_rbio");
    LOAD_TLS(get_wbio, "SSL_get_wbio");
    LOAD_TLS(set0_rbio, "SSL_set0_rbio");
    LOAD_TLS(set0_wbio, "SSL_set0_wbio");
    LOAD_TLS(get0_alpn_selected, "SSL_get0_alpn_selected");
    LOAD_TLS(bio_new_socket, "BIO_new_socket");
    LOAD_TLS(bio_up_ref, "BIO_up_ref");
    LOAD_TLS(err_clear_error, "ERR_clear_error");
    tls_loaded = 1;
}

static void load(void) {
    void *library = dlopen("libcurl.so.4", RTLD_NOW | RTLD_LOCAL);
    if (!library) {
        const char *reason = dlerror();
        snprintf(load_error, sizeof load_error, "libcurl.so.4 could not be loaded: %s", reason ? reason : "unknown");
        return;
    }
    LOAD(global_init, "curl_global_init");
    LOAD(version_info, "curl_version_info");
    LOAD(easy_init, "curl_easy_init");
    LOAD(easy_cleanup, "curl_easy_cleanup");
    LOAD(easy_reset, "curl_easy_reset");
    LOAD(easy_setopt, "curl_easy_setopt");
    LOAD(easy_getinfo, "curl_easy_getinfo");
    LOAD(easy_strerror, "curl_easy_strerror");
    LOAD(slist_append, "curl_slist_append");
    LOAD(slist_free_all, "curl_slist_free_all");
    LOAD(multi_init, "curl_multi_init");
    LOAD(multi_cleanup, "curl_multi_cleanup");
    LOAD(multi_setopt, "curl_multi_setopt");
    LOAD(multi_add_handle, "curl_multi_add_handle");
    LOAD(multi_remove_handle, "curl_multi_remove_handle");
    LOAD(multi_perform, "curl_multi_perform");
    LOAD(multi_poll, "curl_multi_poll");
    LOAD(multi_wakeup, "curl_multi_wakeup");
    LOAD(easy_pause, "curl_easy_pause");
    LOAD(multi_info_read, "curl_multi_info_read");
    // dlsym on libcurl's handle searches its dependencies too.
    load_tls(library);
    // curl_global_init is reference counted; FoundationNetworking calls it too. CURLVERSION_FIRST (0) asks for
    // the fields every version has.
    if (curl.global_init(NLCURL_GLOBAL_ALL) != 0) {
        snprintf(load_error, sizeof load_error, "curl_global_init failed");
        return;
    }
    info = curl.version_info(0);
    if (!info || info->version_num < 0x074400) {
        snprintf(load_error, sizeof load_error, "libcurl %s is older than 7.68.0, which CurlTransport needs",
                 info && info->version ? info->version : "(unknown)");
        info = NULL;
    }
}

int nl_curl_load(char *error, size_t capacity) {
    pthread_once(&load_once, load);
    if (info) return 0;
    snprintf(error, capacity, "%s", load_error);
    return -1;
}

unsigned int nl_curl_version_number(void) { return info->version_num; }
const char *nl_curl_version_text(void) { return info->version; }
int nl_curl_features(void) { return info->features; }
const char *nl_curl_ssl_version(void) { return info->ssl_version ? info->ssl_version : ""; }

void *nl_curl_easy_init(void) { return curl.easy_init(); }
void nl_curl_easy_cleanup(void *easy) { curl.easy_cleanup(easy); }
void nl_curl_easy_reset(void *easy) { curl.easy_reset(easy); }
int nl_curl_easy_setopt_long(void *easy, int option, long value) { return curl.easy_setopt(easy, option, value); }
int nl_curl_easy_setopt_pointer(void *easy, int option, const void *value) {
    return curl.easy_setopt(easy, option, value);
}
int nl_curl_easy_setopt_offset(void *easy, int option, int64_t value) {
    return curl.easy_setopt(easy, option, value);
}
int nl_curl_easy_setopt_callback(void *easy, int option, size_t (*callback)(char *, size_t, size_t, void *)) {
    return curl.easy_setopt(easy, option, callback);
}
int nl_curl_easy_setopt_blob(void *easy, int option, const void *data, size_t length) {
    // struct curl_blob: the bytes, their length, and CURL_BLOB_NOCOPY (0): libcurl points at the caller's bytes.
    struct {
        const void *data;
        size_t len;
        unsigned int flags;
    } blob = {data, length, 0};
    return curl.easy_setopt(easy, option, &blob);
}

/// Copies a string libcurl answers for a fresh easy handle (a default it was built with) into `path`.
static int default_string(int info, char *path, size_t capacity) {
    void *easy = curl.easy_init();
    const char *value = NULL;
    int code = easy ? curl.easy_getinfo(easy, info, &value) : -1;
    int found = code == 0 && value && snprintf(path, capacity, "%s", value) < (int)capacity;
    if (easy) curl.easy_cleanup(easy);
    return found ? 0 : -1;
}

// CURLINFO_CAINFO and CURLINFO_CAPATH: string type (0x100000) + 61 and + 62.
int nl_curl_default_ca_bundle(char *path, size_t capacity) { return default_string(0x100000 + 61, path, capacity); }
int nl_curl_default_ca_path(char *path, size_t capacity) { return default_string(0x100000 + 62, path, capacity); }

int nl_curl_easy_setopt_prereq(void *easy, int (*callback)(void *, char *, char *, int, int)) {
    return curl.easy_setopt(easy, NLCURLOPT_PREREQFUNCTION, callback);
}

int nl_curl_easy_setopt_sockopt(void *easy, int (*callback)(void *, int, int)) {
    return curl.easy_setopt(easy, NLCURLOPT_SOCKOPTFUNCTION, callback);
}

int nl_curl_easy_setopt_seek(void *easy, int (*callback)(void *, int64_t, int)) {
    return curl.easy_setopt(easy, NLCURLOPT_SEEKFUNCTION, callback);
}

int nl_curl_tls_idle_input(void *easy, int socket) {
    // struct curl_tlssessioninfo: the TLS library (CURLSSLBACKEND_OPENSSL is 1) and its SSL pointer.
    struct {
        int backend;
        void *internals;
    } *session = NULL;
    // CURLINFO_TLS_SSL_PTR: pointer type (0x400000) + 45.
    if (!tls_loaded || curl.easy_getinfo(easy, 0x400000 + 45, &session) != 0 || !session || session->backend != 1 ||
        !session->internals) {
        return NLCURL_TLS_IDLE_UNKNOWN;
    }
    void *ssl = session->internals;
    const unsigned char *protocol = NULL;
    unsigned int length = 0;
    tls.get0_alpn_selected(ssl, &protocol, &length);
    if (length == 2 && memcmp(protocol, "h2", 2) == 0) return NLCURL_TLS_IDLE_MULTIPLEXED;
    // libcurl's BIOs read and write through its connection filters, which only work inside libcurl's own calls:
    // for this one, OpenSSL reads and writes the socket itself (BIO_NOCLOSE is 0), and libcurl's BIOs are put back.
    void *own = tls.bio_new_socket(socket, 0);
    if (!own) return NLCURL_TLS_IDLE_DATA;
    void *read_bio = tls.get_rbio(ssl);
    void *write_bio = tls.get_wbio(ssl);
    tls.bio_up_ref(read_bio);
    tls.bio_up_ref(write_bio);
    tls.bio_up_ref(own);  // one reference for each of the two slots
    tls.set0_rbio(ssl, own);
    tls.set0_wbio(ssl, own);
    tls.err_clear_error();
    char byte;
    int peeked = tls.peek(ssl, &byte, 1);
    // SSL_ERROR_WANT_READ (2): every complete record was taken and none was application data.
    int nothing_more = peeked <= 0 && tls.get_error(ssl, peeked) == 2 && !tls.has_pending(ssl);
    tls.err_clear_error();
    tls.set0_rbio(ssl, read_bio);
    tls.set0_wbio(ssl, write_bio);
    return nothing_more ? NLCURL_TLS_IDLE_NO_DATA : NLCURL_TLS_IDLE_DATA;
}

int nl_curl_easy_getinfo_long(void *easy, int info_id, long *value) {
    return curl.easy_getinfo(easy, info_id, value);
}
const char *nl_curl_easy_strerror(int code) { return curl.easy_strerror(code); }

void *nl_curl_slist_append(void *list, const char *line) { return curl.slist_append(list, line); }
void nl_curl_slist_free_all(void *list) { curl.slist_free_all(list); }

void *nl_curl_multi_init(void) { return curl.multi_init(); }
int nl_curl_multi_cleanup(void *multi) { return curl.multi_cleanup(multi); }
int nl_curl_multi_setopt_long(void *multi, int option, long value) {
    return curl.multi_setopt(multi, option, value);
}
int nl_curl_multi_add_handle(void *multi, void *easy) { return curl.multi_add_handle(multi, easy); }
int nl_curl_multi_remove_handle(void *multi, void *easy) { return curl.multi_remove_handle(multi, easy); }
int nl_curl_multi_perform(void *multi, int *running) { return curl.multi_perform(multi, running); }
int nl_curl_multi_poll(void *multi, int timeout_ms, int *ready) {
    return curl.multi_poll(multi, NULL, 0, timeout_ms, ready);
}
int nl_curl_multi_wakeup(void *multi) { return curl.multi_wakeup(multi); }

int nl_curl_easy_pause(void *easy, int bitmask) { return curl.easy_pause(easy, bitmask); }

void *nl_curl_multi_next_done(void *multi, int *result) {
    int queued = 0;
    multi_message *message;
    while ((message = curl.multi_info_read(multi, &queued)) != NULL) {
        if (message->msg == 1) {  // CURLMSG_DONE
            *result = message->data.result;
            return message->easy_handle;
        }
    }
    return NULL;
}

int nl_curl_is_supported(void) { return 1; }

#else

int nl_curl_is_supported(void) { return 0; }

#endif
