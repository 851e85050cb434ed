#include "CCurl.h"

#if defined(__linux__)

#include <dlfcn.h>
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <unistd.h>

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
    int (*multi_socket_action)(void *, int, int, int *);
    int (*multi_timeout)(void *, long *);
    multi_message *(*multi_info_read)(void *, int *);
    int (*easy_perform)(void *);
    int (*easy_send)(void *, const void *, size_t, size_t *);
    int (*easy_recv)(void *, void *, size_t, size_t *);
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
    LOAD(multi_socket_action, "curl_multi_socket_action");
    LOAD(multi_timeout, "curl_multi_timeout");
    LOAD(easy_pause, "curl_easy_pause");
    LOAD(multi_info_read, "curl_multi_info_read");
    LOAD(easy_perform, "curl_easy_perform");
    LOAD(easy_send, "curl_easy_send");
    LOAD(easy_recv, "curl_easy_recv");
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

int nl_curl_easy_perform(void *easy) { return curl.easy_perform(easy); }

int nl_curl_easy_send(void *easy, const void *buffer, size_t length, size_t *sent) {
    return curl.easy_send(easy, buffer, length, sent);
}

int nl_curl_easy_recv(void *easy, void *buffer, size_t length, size_t *received) {
    return curl.easy_recv(easy, buffer, length, received);
}

int nl_curl_easy_active_socket(void *easy) {
    // CURLINFO_ACTIVESOCKET (CURLINFO_SOCKET + 44) answers a curl_socket_t, an int here.
    int socket = -1;
    return curl.easy_getinfo(easy, 0x500000 + 44, &socket) == 0 ? socket : -1;
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

// MARK: The poller: libcurl's socket interface on an epoll set of the loop's own

struct nl_curl_poller {
    void *multi;
    int epoll;
    int wake;  // an eventfd in the set, written to wake the wait
    // For each socket number below `capacity`, what the set holds (SOCKET_ABSENT, SOCKET_WATCHED, or SOCKET_RESTING:
    // libcurl no longer watches it, but it stays in the set, so that a kept-alive connection's next request costs
    // one EPOLL_CTL_MOD instead of an EPOLL_CTL_DEL and an EPOLL_CTL_ADD), SOCKET_MAY_REST for the sockets
    // ``open_socket`` opened, and their serials. Touched only by whoever drives the loop.
    struct socket_slot *sockets;
    int capacity;
    // The serial of the last socket ``open_socket`` opened; never 0, the serial of no socket.
    unsigned int last_serial;
    // The easy handles whose socket could not be watched (epoll_ctl failed), for the driver to fail, and whether
    // more failed than fit: the socket callback returns 0 regardless, since -1 would make libcurl give up on every
    // transfer of the multi handle.
    void *unwatched[64];
    int unwatched_count;
    int unwatched_overflow;
};

enum { SOCKET_ABSENT = 0, SOCKET_WATCHED = 1, SOCKET_RESTING = 2, SOCKET_STATE = 3, SOCKET_MAY_REST = 4 };

// What the poller knows of one socket number: its state in the set, and the serial ``open_socket`` gave the socket
// it opened under that number, which ``close_socket`` clears (0) when libcurl closes it.
struct socket_slot {
    unsigned char flags;
    unsigned int serial;
};

/// The entry for `socket`, growing the table as needed; NULL past a million sockets or without memory (then the
/// socket is added and removed each time, and has no serial).
static struct socket_slot *socket_entry(struct nl_curl_poller *poller, int socket) {
    if (socket < 0 || socket >= (1 << 20)) return NULL;
    if (socket >= poller->capacity) {
        int capacity = poller->capacity ? poller->capacity : 256;
        while (capacity <= socket) capacity *= 2;
        struct socket_slot *grown = realloc(poller->sockets, (size_t)capacity * sizeof *grown);
        if (!grown) return NULL;
        memset(grown + poller->capacity, 0, (size_t)(capacity - poller->capacity) * sizeof *grown);
        poller->sockets = grown;
        poller->capacity = capacity;
    }
    return &poller->sockets[socket];
}

/// The entry for `socket` if the table has one, without growing it.
static struct socket_slot *known_entry(struct nl_curl_poller *poller, int socket) {
    return socket >= 0 && socket < poller->capacity ? &poller->sockets[socket] : NULL;
}

static void set_state(struct socket_slot *entry, int state) {
    if (entry) entry->flags = (unsigned char)((entry->flags & ~SOCKET_STATE) | state);
}

// What libcurl's socket callback asks for a socket (curl.h's CURL_POLL_ values), and what a socket's readiness is
// told to it in (CURL_CSELECT_ values).
enum { CURL_POLL_IN = 1, CURL_POLL_OUT = 2, CURL_POLL_REMOVE = 4 };
enum { CURL_CSELECT_IN = 1, CURL_CSELECT_OUT = 2, CURL_CSELECT_ERR = 4 };

// CURLMOPT_SOCKETFUNCTION: libcurl says which sockets to watch for what (CURL_POLL_IN, OUT, both, or REMOVE). epoll_ctl may be called from any thread, also while another waits on the set.
//
// Only a connection's socket that ``open_socket`` opened may rest in the set once libcurl stops watching it: it
// leaves the set when it turns ready (a kept-alive connection closed, or sent something unasked: see
// ``nl_curl_poller_act``) or when libcurl closes it (``close_socket``); and since it was opened with SOCK_CLOEXEC,
// no child process keeps it open, and so in the set, when libcurl closes it without the callback (a connection
// attempt that lost or timed out). Every other socket (the threaded resolver's socket pair, say) leaves the set at
// once. A failed MOD (the number belonged to a socket closed without the callback) becomes an ADD.
static int watch_socket(void *easy, int socket, int what, void *user, void *assigned) {
    (void)assigned;
    struct nl_curl_poller *poller = user;
    struct socket_slot *entry = socket_entry(poller, socket);
    int state = entry ? (entry->flags & SOCKET_STATE) : SOCKET_ABSENT;
    if (what == CURL_POLL_REMOVE) {
        if (entry && state == SOCKET_WATCHED && (entry->flags & SOCKET_MAY_REST)) {
            set_state(entry, SOCKET_RESTING);
        } else {
            epoll_ctl(poller->epoll, EPOLL_CTL_DEL, socket, NULL);
            set_state(entry, SOCKET_ABSENT);
        }
        return 0;
    }
    struct epoll_event event = {0};
    event.events = ((what & CURL_POLL_IN) ? EPOLLIN : 0) | ((what & CURL_POLL_OUT) ? EPOLLOUT : 0);
    event.data.fd = socket;
    int done = state != SOCKET_ABSENT && epoll_ctl(poller->epoll, EPOLL_CTL_MOD, socket, &event) == 0;
    if (!done && epoll_ctl(poller->epoll, EPOLL_CTL_ADD, socket, &event) != 0 &&
        (errno != EEXIST || epoll_ctl(poller->epoll, EPOLL_CTL_MOD, socket, &event) != 0)) {
        set_state(entry, SOCKET_ABSENT);
        if (easy && poller->unwatched_count < (int)(sizeof poller->unwatched / sizeof *poller->unwatched)) {
            poller->unwatched[poller->unwatched_count++] = easy;
        } else {
            poller->unwatched_overflow = 1;
        }
        return 0;
    }
    set_state(entry, SOCKET_WATCHED);
    return 0;
}

// struct curl_sockaddr, as libcurl hands it to an open-socket callback.
struct socket_address {
    int family;
    int socktype;
    int protocol;
    unsigned int addrlen;
};

// CURLOPT_OPENSOCKETFUNCTION: opens a connection's socket as libcurl would, but with SOCK_CLOEXEC, marks it as one
// that may rest in the set, and gives it the next serial. Returns CURL_SOCKET_BAD (-1) when the socket cannot be
// made.
static int open_socket(void *user, int purpose, struct socket_address *address) {
    (void)purpose;
    struct nl_curl_poller *poller = user;
    int socket_number = socket(address->family, address->socktype | SOCK_CLOEXEC, address->protocol);
    if (socket_number < 0) return -1;
    struct socket_slot *entry = socket_entry(poller, socket_number);
    if (entry) {
        entry->flags = SOCKET_ABSENT | SOCKET_MAY_REST;
        if (++poller->last_serial == 0) poller->last_serial = 1;
        entry->serial = poller->last_serial;
    }
    return socket_number;
}

// CURLOPT_CLOSESOCKETFUNCTION: libcurl closes a connection's socket (libcurl keeps the callback with each
// connection, and closes the last ones in curl_multi_cleanup, before the poller is freed). A socket at rest is
// still in the set: it is taken out first.
static int close_socket(void *user, int socket) {
    struct nl_curl_poller *poller = user;
    struct socket_slot *entry = known_entry(poller, socket);
    if (!entry || (entry->flags & SOCKET_STATE) != SOCKET_ABSENT) epoll_ctl(poller->epoll, EPOLL_CTL_DEL, socket, NULL);
    if (entry) *entry = (struct socket_slot){0};
    return close(socket);
}

// A connection's socket that libcurl has not closed since ``open_socket`` opened it keeps its serial. libcurl 7.88
// closes every connection's socket through ``close_socket``, failed attempts' too; only a socket it never handed to
// a connection (one that lost the race between address families) it closes itself, and that one is never looked up.
// A socket without an entry (the table could not grow) has serial 0, and its connection goes unchecked.
unsigned int nl_curl_poller_socket_serial(struct nl_curl_poller *poller, int socket) {
    struct socket_slot *entry = known_entry(poller, socket);
    return entry ? entry->serial : 0;
}

// CURLOPT_OPENSOCKETFUNCTION 20163, CURLOPT_OPENSOCKETDATA 10164, CURLOPT_CLOSESOCKETFUNCTION 20208,
// CURLOPT_CLOSESOCKETDATA 10209.
int nl_curl_easy_open_sockets_through(void *easy, struct nl_curl_poller *poller) {
    int code = curl.easy_setopt(easy, 20163, open_socket);
    if (code == 0) code = curl.easy_setopt(easy, 10164, poller);
    if (code == 0) code = curl.easy_setopt(easy, 20208, close_socket);
    return code != 0 ? code : curl.easy_setopt(easy, 10209, poller);
}

void *nl_curl_poller_next_unwatched(struct nl_curl_poller *poller) {
    return poller->unwatched_count > 0 ? poller->unwatched[--poller->unwatched_count] : NULL;
}

int nl_curl_poller_take_overflow(struct nl_curl_poller *poller) {
    int overflow = poller->unwatched_overflow;
    poller->unwatched_overflow = 0;
    return overflow;
}

// CURLMOPT_SOCKETFUNCTION 20001, CURLMOPT_SOCKETDATA 10002.
struct nl_curl_poller *nl_curl_poller_create(void *multi) {
    struct nl_curl_poller *poller = calloc(1, sizeof *poller);
    if (!poller) return NULL;
    poller->multi = multi;
    poller->epoll = epoll_create1(EPOLL_CLOEXEC);
    poller->wake = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
    struct epoll_event event = {0};
    event.events = EPOLLIN;
    event.data.fd = poller->wake;
    if (poller->epoll < 0 || poller->wake < 0 || epoll_ctl(poller->epoll, EPOLL_CTL_ADD, poller->wake, &event) != 0 ||
        curl.multi_setopt(multi, 20001, watch_socket) != 0 || curl.multi_setopt(multi, 10002, poller) != 0) {
        if (poller->epoll >= 0) close(poller->epoll);
        if (poller->wake >= 0) close(poller->wake);
        free(poller);
        return NULL;
    }
    return poller;
}

void nl_curl_poller_free(struct nl_curl_poller *poller) {
    close(poller->epoll);
    close(poller->wake);
    free(poller->sockets);
    free(poller);
}

int nl_curl_poller_act(struct nl_curl_poller *poller, int socket, int actions) {
    struct socket_slot *entry = known_entry(poller, socket);
    if (entry && (entry->flags & SOCKET_STATE) == SOCKET_RESTING) {
        epoll_ctl(poller->epoll, EPOLL_CTL_DEL, socket, NULL);
        set_state(entry, SOCKET_ABSENT);
        return 0;
    }
    int running = 0;
    return curl.multi_socket_action(poller->multi, socket, actions, &running);
}

int nl_curl_poller_wait(struct nl_curl_poller *poller, int timeout_ms, int *sockets, int *actions, int capacity) {
    struct epoll_event events[64];
    int ready = epoll_wait(poller->epoll, events, capacity < 64 ? capacity : 64, timeout_ms);
    if (ready < 0) {
        if (errno == EINTR) return 0;
        // The set itself is broken (its descriptor closed behind our back): waiting again at once would spin.
        usleep(10000);
        return -1;
    }
    int count = 0;
    for (int index = 0; index < ready; index++) {
        if (events[index].data.fd == poller->wake) {
            uint64_t value;
            (void)!read(poller->wake, &value, sizeof value);
            continue;
        }
        uint32_t flags = events[index].events;
        // A hang-up is read as input, where libcurl finds the end.
        sockets[count] = events[index].data.fd;
        actions[count] = ((flags & (EPOLLIN | EPOLLHUP | EPOLLRDHUP)) ? CURL_CSELECT_IN : 0) |
                         ((flags & EPOLLOUT) ? CURL_CSELECT_OUT : 0) | ((flags & EPOLLERR) ? CURL_CSELECT_ERR : 0);
        count++;
    }
    return count;
}

void nl_curl_poller_wake(struct nl_curl_poller *poller) {
    uint64_t one = 1;
    (void)!write(poller->wake, &one, sizeof one);
}

long nl_curl_multi_timeout(void *multi) {
    long timeout = -1;
    return curl.multi_timeout(multi, &timeout) == 0 ? timeout : -1;
}

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
