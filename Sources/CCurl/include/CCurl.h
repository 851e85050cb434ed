// The part of libcurl's C API that NetworkLayer's CurlTransport uses, loaded at run time with dlopen so that the
// package needs no libcurl headers and no link flag. Numbers below are libcurl's documented ABI values.
#ifndef NETWORKLAYER_CCURL_H
#define NETWORKLAYER_CCURL_H

#include <stddef.h>
#include <stdint.h>

#if defined(__linux__)

// Option types are offsets: long 0, object pointer 10000, function pointer 20000, curl_off_t 30000.
enum {
    NLCURLOPT_WRITEDATA = 10001,
    NLCURLOPT_READDATA = 10009,
    NLCURLOPT_READFUNCTION = 20012,
    NLCURLOPT_POST = 47,
    NLCURLOPT_URL = 10002,
    NLCURLOPT_ERRORBUFFER = 10010,
    NLCURLOPT_WRITEFUNCTION = 20011,
    NLCURLOPT_HTTPHEADER = 10023,
    NLCURLOPT_HEADERDATA = 10029,
    NLCURLOPT_SSLVERSION = 32,
    NLCURLOPT_CUSTOMREQUEST = 10036,
    NLCURLOPT_NOPROGRESS = 43,
    NLCURLOPT_NOBODY = 44,
    NLCURLOPT_FOLLOWLOCATION = 52,
    NLCURLOPT_SSL_VERIFYPEER = 64,
    NLCURLOPT_CAINFO = 10065,
    NLCURLOPT_CAPATH = 10097,
    NLCURLOPT_FRESH_CONNECT = 74,
    NLCURLOPT_HEADERFUNCTION = 20079,
    NLCURLOPT_HTTPGET = 80,
    NLCURLOPT_SSL_VERIFYHOST = 81,
    NLCURLOPT_HTTP_VERSION = 84,
    NLCURLOPT_BUFFERSIZE = 98,
    NLCURLOPT_UPLOAD_BUFFERSIZE = 280,
    NLCURLOPT_NOSIGNAL = 99,
    NLCURLOPT_CONNECT_ONLY = 141,
    NLCURLOPT_HTTPPROXYTUNNEL = 61,
    NLCURLOPT_CONNECTTIMEOUT_MS = 156,
    NLCURLOPT_ACCEPT_ENCODING = 10102,
    NLCURLOPT_POSTFIELDSIZE_LARGE = 30120,
    NLCURLOPT_SOCKOPTFUNCTION = 20148,
    NLCURLOPT_SOCKOPTDATA = 10149,
    NLCURLOPT_COPYPOSTFIELDS = 10165,
    NLCURLOPT_SEEKFUNCTION = 20167,
    NLCURLOPT_SEEKDATA = 10168,
    NLCURLOPT_PROTOCOLS = 181,
    NLCURLOPT_PIPEWAIT = 237,
    NLCURLOPT_SUPPRESS_CONNECT_HEADERS = 265,
    NLCURLOPT_CAINFO_BLOB = 40309,
    NLCURLOPT_PREREQFUNCTION = 20312,
    NLCURLOPT_PREREQDATA = 10313,
};

enum {
    NLCURLMOPT_PIPELINING = 3,
    NLCURLMOPT_MAXCONNECTS = 6,
    NLCURLMOPT_MAX_HOST_CONNECTIONS = 7,
};

// Info types are offsets too: string 0x100000, long 0x200000.
enum {
    NLCURLINFO_NUM_CONNECTS = 0x20001A,
};

/// What waits unread on an idle TLS connection, as ``nl_curl_tls_idle_input`` finds it.
enum {
    /// Nothing but TLS records that are no application data (session tickets, key updates): OpenSSL has taken them.
    NLCURL_TLS_IDLE_NO_DATA = 0,
    /// Application data, a close, a partial record, or records OpenSSL refused.
    NLCURL_TLS_IDLE_DATA = 1,
    /// An HTTP/2 connection, where the server may send frames at any time.
    NLCURL_TLS_IDLE_MULTIPLEXED = 2,
    /// The connection's TLS cannot be looked into (not OpenSSL 1.1 or later).
    NLCURL_TLS_IDLE_UNKNOWN = 3,
};

enum {
    NLCURL_GLOBAL_ALL = 3,
    NLCURLPROTO_HTTP = 1,
    NLCURLPROTO_HTTPS = 2,
    NLCURL_HTTP_VERSION_2TLS = 4,
    NLCURL_HTTP_VERSION_1_1 = 2,
    NLCURL_SSLVERSION_TLSv1_2 = 6,
    NLCURL_SSLVERSION_TLSv1_3 = 7,
    NLCURLPIPE_MULTIPLEX = 2,
    NLCURL_ERROR_SIZE = 256,
    NLCURL_WRITEFUNC_ERROR = 0,
    NLCURL_VERSION_HTTP2 = 1 << 16,
    NLCURL_VERSION_LIBZ = 1 << 3,
    NLCURL_VERSION_ASYNCHDNS = 1 << 7,
    NLCURL_VERSION_BROTLI = 1 << 23,
    NLCURL_VERSION_ZSTD = 1 << 26,
};

/// Loads libcurl.so.4 and every function used, once. Returns 0, or -1 with the reason in `error`.
int nl_curl_load(char *error, size_t capacity);

/// The libcurl version as 0xXXYYZZ, its version text, and its feature bits.
unsigned int nl_curl_version_number(void);
const char *nl_curl_version_text(void);
int nl_curl_features(void);
const char *nl_curl_ssl_version(void);

void *nl_curl_easy_init(void);
void nl_curl_easy_cleanup(void *easy);
void nl_curl_easy_reset(void *easy);
int nl_curl_easy_setopt_long(void *easy, int option, long value);
int nl_curl_easy_setopt_pointer(void *easy, int option, const void *value);
int nl_curl_easy_setopt_offset(void *easy, int option, int64_t value);
int nl_curl_easy_setopt_callback(void *easy, int option, size_t (*callback)(char *, size_t, size_t, void *));
/// Sets a blob option (libcurl 7.77.0 and later) to bytes that libcurl does not copy: they must outlive every
/// transfer of the handle until the option is reset.
int nl_curl_easy_setopt_blob(void *easy, int option, const void *data, size_t length);
/// Sets `CURLOPT_PREREQFUNCTION` (libcurl 7.80.0 and later): called once the connection is there, fresh or reused,
/// before the request is sent; it returns 0 to send it, 1 to fail the transfer with CURLE_ABORTED_BY_CALLBACK.
int nl_curl_easy_setopt_prereq(void *easy, int (*callback)(void *, char *, char *, int, int));
/// Sets `CURLOPT_SOCKOPTFUNCTION`: called with each socket libcurl opens for the transfer, before it connects; it
/// returns 0 to go on.
int nl_curl_easy_setopt_sockopt(void *easy, int (*callback)(void *, int, int));

/// Sets CURLOPT_SEEKFUNCTION: libcurl asks to rewind an upload body (to send it again on a fresh connection); the
/// callback returns 0 (done), 1 (failed) or 2 (cannot seek).
int nl_curl_easy_setopt_seek(void *easy, int (*callback)(void *, int64_t, int));
int nl_curl_easy_getinfo_long(void *easy, int info, long *value);
/// curl_easy_perform: runs a transfer on the calling thread, blocking (a CONNECT_ONLY one ends once connected).
int nl_curl_easy_perform(void *easy);
/// curl_easy_send and curl_easy_recv on a CONNECT_ONLY connection, which never block: CURLE_AGAIN (81) when the socket
/// cannot take or give bytes now; a receive of 0 bytes with CURLE_OK is the end of the connection.
int nl_curl_easy_send(void *easy, const void *buffer, size_t length, size_t *sent);
int nl_curl_easy_recv(void *easy, void *buffer, size_t length, size_t *received);
/// The socket of a CONNECT_ONLY connection (CURLINFO_ACTIVESOCKET), or -1.
int nl_curl_easy_active_socket(void *easy);
const char *nl_curl_easy_strerror(int code);

void *nl_curl_slist_append(void *list, const char *line);
void nl_curl_slist_free_all(void *list);

void *nl_curl_multi_init(void);
int nl_curl_multi_cleanup(void *multi);
int nl_curl_multi_setopt_long(void *multi, int option, long value);
int nl_curl_multi_add_handle(void *multi, void *easy);
int nl_curl_multi_remove_handle(void *multi, void *easy);
/// curl_multi_timeout: milliseconds until libcurl's timer wants NLCURL_SOCKET_TIMEOUT, 0 for now, -1 for never.
long nl_curl_multi_timeout(void *multi);
#define NLCURL_SOCKET_TIMEOUT (-1)

/// An epoll set that a multi handle's socket callback keeps up to date, with an eventfd of its own to wake a wait:
/// any thread may change the set while another waits on it.
typedef struct nl_curl_poller nl_curl_poller;
/// Makes the set and installs it as `multi`'s CURLMOPT_SOCKETFUNCTION; NULL if a system call or libcurl fails.
nl_curl_poller *nl_curl_poller_create(void *multi);
/// Closes the set; only after `curl_multi_cleanup`, which may still tell it about sockets.
void nl_curl_poller_free(nl_curl_poller *poller);
/// Waits up to `timeout_ms` (-1: no limit) for sockets to be ready or for a wake-up; writes up to `capacity`
/// ready sockets and their NLCURL_CSELECT_ bits (IN 1, OUT 2, ERR 4). Returns how many, or -1 (after a pause of
/// 10 ms, so that a broken set costs no spin).
int nl_curl_poller_wait(nl_curl_poller *poller, int timeout_ms, int *sockets, int *actions, int capacity);
/// Makes libcurl open the connection sockets of `easy` through `poller` (with close-on-exec, marked as sockets that
/// may rest in its set) and close them through it (it first takes them out of its set).
int nl_curl_easy_open_sockets_through(void *easy, nl_curl_poller *poller);
/// The serial the poller gave the socket it opened as `socket` (a count of the sockets it opened, wrapping after 2^32
/// and never 0), or 0 once libcurl has closed it, or for a number it did not open. Only by whoever drives the multi
/// handle.
unsigned int nl_curl_poller_socket_serial(nl_curl_poller *poller, int socket);
/// An easy handle one of whose sockets could not be added to the set (so it would wait for ever), or NULL; each
/// once. Only by whoever drives the multi handle.
void *nl_curl_poller_next_unwatched(nl_curl_poller *poller);
/// Whether more easy handles than ``nl_curl_poller_next_unwatched`` can tell had a socket that could not be added
/// since the last call.
int nl_curl_poller_take_overflow(nl_curl_poller *poller);
/// Lets libcurl act on `socket`, which the wait found ready for `actions` (NLCURL_CSELECT_ bits), or on its timer
/// (`socket` NLCURL_SOCKET_TIMEOUT, `actions` 0); a socket libcurl stopped watching, which rests in the set, is taken
/// out of it instead. Only by whoever drives the multi handle.
int nl_curl_poller_act(nl_curl_poller *poller, int socket, int actions);
/// Ends the current or the next wait at once; callable from any thread.
void nl_curl_poller_wake(nl_curl_poller *poller);

/// curl_easy_pause: NLCURLPAUSE_CONT lets a transfer its write callback paused go on.
int nl_curl_easy_pause(void *easy, int bitmask);
#define NLCURLPAUSE_CONT 0
/// What a write callback returns to pause the transfer, keeping the bytes it was given (CURL_WRITEFUNC_PAUSE).
#define NLCURL_WRITEFUNC_PAUSE 0x10000001
/// What a read callback returns to pause the upload until curl_easy_pause (CURL_READFUNC_PAUSE), or to end the
/// transfer with an error (CURL_READFUNC_ABORT).
#define NLCURL_READFUNC_PAUSE 0x10000001
#define NLCURL_READFUNC_ABORT 0x10000000

/// The CA bundle libcurl uses when told nothing (libcurl 7.84.0 and later), copied into `path`; returns 0, or -1.
int nl_curl_default_ca_bundle(char *path, size_t capacity);
/// The directory of hashed CA certificates libcurl uses by default (CURLINFO_CAPATH, 7.84.0 and later); 0 if known.
int nl_curl_default_ca_path(char *path, size_t capacity);

/// Looks at what waits unread at `socket`, the TLS connection of `easy` (during its pre-request callback; libcurl
/// 7.88 answers no CURLINFO_ACTIVESOCKET there, so the caller finds the socket itself): lets
/// OpenSSL read and process the records there, through a socket BIO of its own for the call, and peeks at whether
/// any of them is application data. Returns one of the NLCURL_TLS_IDLE_ values.
int nl_curl_tls_idle_input(void *easy, int socket);

/// The next finished transfer of a multi handle: returns its easy handle and sets `result`, or returns NULL.
void *nl_curl_multi_next_done(void *multi, int *result);

#endif  // __linux__

/// Whether this platform has the loader at all (Linux only); it also keeps the C file from being empty elsewhere.
int nl_curl_is_supported(void);

#endif  // NETWORKLAYER_CCURL_H
