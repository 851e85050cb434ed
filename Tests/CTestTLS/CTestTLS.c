#include "CTestTLS.h"

#include <stdio.h>
#include <string.h>

#if defined(__linux__)

#include <dlfcn.h>
#include <pthread.h>
#include <signal.h>
#include <time.h>

// OpenSSL's numbers, facts of its ABI.
enum {
    EVP_PKEY_EC = 408,
    NID_X9_62_prime256v1 = 415,
    EVP_PKEY_OP_PARAMGEN = 1 << 1,
    EVP_PKEY_OP_KEYGEN = 1 << 2,
    EVP_PKEY_CTRL_EC_PARAMGEN_CURVE_NID = 0x1000 + 1,
    NID_subject_alt_name = 85,
    NID_basic_constraints = 87,
    NID_key_usage = 83,
    MBSTRING_ASC = 0x1000 | 1,
    SSL_FILETYPE_PEM = 1,
    SSL_CTRL_SET_MIN_PROTO_VERSION = 123,
    SSL_CTRL_SET_MAX_PROTO_VERSION = 124,
    SSL_ERROR_WANT_READ = 2,
    SSL_ERROR_WANT_WRITE = 3,
    SSL_ERROR_SYSCALL = 5,
    SSL_ERROR_ZERO_RETURN = 6,
};

static struct {
    void *(*pkey_ctx_new_id)(int, void *);
    int (*pkey_keygen_init)(void *);
    int (*pkey_ctx_ctrl)(void *, int, int, int, int, void *);
    int (*pkey_keygen)(void *, void **);
    void (*pkey_ctx_free)(void *);
    void (*pkey_free)(void *);
    void *(*x509_new)(void);
    void (*x509_free)(void *);
    int (*x509_set_version)(void *, long);
    void *(*x509_get_serial)(void *);
    int (*asn1_integer_set)(void *, long);
    void *(*x509_getm_not_before)(void *);
    void *(*x509_getm_not_after)(void *);
    void *(*x509_gmtime_adj)(void *, long);
    int (*x509_set_pubkey)(void *, void *);
    void *(*x509_get_subject_name)(void *);
    int (*x509_set_issuer_name)(void *, void *);
    int (*x509_name_add_entry_by_txt)(void *, const char *, int, const unsigned char *, int, int, int);
    void *(*x509v3_ext_conf_nid)(void *, void *, int, const char *);
    int (*x509_add_ext)(void *, void *, int);
    void (*x509_extension_free)(void *);
    int (*x509_sign)(void *, void *, const void *);
    const void *(*evp_sha256)(void);
    void *(*bio_new_file)(const char *, const char *);
    int (*bio_free)(void *);
    int (*pem_write_bio_x509)(void *, void *);
    int (*pem_write_bio_private_key)(void *, void *, const void *, unsigned char *, int, void *, void *);
    void *(*pem_read_bio_x509)(void *, void **, void *, void *);
    void *(*pem_read_bio_private_key)(void *, void **, void *, void *);
    unsigned long (*err_get_error)(void);
    void (*err_error_string_n)(unsigned long, char *, size_t);
    const void *(*tls_server_method)(void);
    void *(*ssl_ctx_new)(const void *);
    void (*ssl_ctx_free)(void *);
    int (*ssl_ctx_use_certificate_chain_file)(void *, const char *);
    int (*ssl_ctx_use_private_key_file)(void *, const char *, int);
    long (*ssl_ctx_ctrl)(void *, int, long, void *);
    void (*ssl_ctx_set_security_level)(void *, int);
    int (*ssl_ctx_set_cipher_list)(void *, const char *);
    void *(*ssl_new)(void *);
    int (*ssl_set_fd)(void *, int);
    int (*ssl_accept)(void *);
    int (*ssl_read)(void *, void *, int);
    int (*ssl_write)(void *, const void *, int);
    int (*ssl_new_session_ticket)(void *);
    int (*ssl_do_handshake)(void *);
    int (*ssl_pending)(const void *);
    int (*ssl_get_error)(const void *, int);
    int (*ssl_shutdown)(void *);
    void (*ssl_free)(void *);
} ssl;

static pthread_once_t once = PTHREAD_ONCE_INIT;
static char load_error[512];
static int loaded;

#define LOAD(library, field, name)                                                            \
    do {                                                                                      \
        *(void **)(&ssl.field) = dlsym(library, name);                                        \
        if (!ssl.field) {                                                                     \
            snprintf(load_error, sizeof load_error, "OpenSSL has no %s", name);               \
            return;                                                                           \
        }                                                                                     \
    } while (0)

static void load(void) {
    void *crypto = dlopen("libcrypto.so.3", RTLD_NOW | RTLD_LOCAL);
    void *tls = crypto ? dlopen("libssl.so.3", RTLD_NOW | RTLD_LOCAL) : NULL;
    if (!crypto || !tls) {
        crypto = dlopen("libcrypto.so.1.1", RTLD_NOW | RTLD_LOCAL);
        tls = crypto ? dlopen("libssl.so.1.1", RTLD_NOW | RTLD_LOCAL) : NULL;
    }
    if (!crypto || !tls) {
        snprintf(load_error, sizeof load_error, "OpenSSL (libssl.so.3 or .1.1) could not be loaded");
        return;
    }
    LOAD(crypto, pkey_ctx_new_id, "EVP_PKEY_CTX_new_id");
    LOAD(crypto, pkey_keygen_init, "EVP_PKEY_keygen_init");
    LOAD(crypto, pkey_ctx_ctrl, "EVP_PKEY_CTX_ctrl");
    LOAD(crypto, pkey_keygen, "EVP_PKEY_keygen");
    LOAD(crypto, pkey_ctx_free, "EVP_PKEY_CTX_free");
    LOAD(crypto, pkey_free, "EVP_PKEY_free");
    LOAD(crypto, x509_new, "X509_new");
    LOAD(crypto, x509_free, "X509_free");
    LOAD(crypto, x509_set_version, "X509_set_version");
    LOAD(crypto, x509_get_serial, "X509_get_serialNumber");
    LOAD(crypto, asn1_integer_set, "ASN1_INTEGER_set");
    LOAD(crypto, x509_getm_not_before, "X509_getm_notBefore");
    LOAD(crypto, x509_getm_not_after, "X509_getm_notAfter");
    LOAD(crypto, x509_gmtime_adj, "X509_gmtime_adj");
    LOAD(crypto, x509_set_pubkey, "X509_set_pubkey");
    LOAD(crypto, x509_get_subject_name, "X509_get_subject_name");
    LOAD(crypto, x509_set_issuer_name, "X509_set_issuer_name");
    LOAD(crypto, x509_name_add_entry_by_txt, "X509_NAME_add_entry_by_txt");
    LOAD(crypto, x509v3_ext_conf_nid, "X509V3_EXT_conf_nid");
    LOAD(crypto, x509_add_ext, "X509_add_ext");
    LOAD(crypto, x509_extension_free, "X509_EXTENSION_free");
    LOAD(crypto, x509_sign, "X509_sign");
    LOAD(crypto, evp_sha256, "EVP_sha256");
    LOAD(crypto, bio_new_file, "BIO_new_file");
    LOAD(crypto, bio_free, "BIO_free");
    LOAD(crypto, pem_write_bio_x509, "PEM_write_bio_X509");
    LOAD(crypto, pem_write_bio_private_key, "PEM_write_bio_PrivateKey");
    LOAD(crypto, pem_read_bio_x509, "PEM_read_bio_X509");
    LOAD(crypto, pem_read_bio_private_key, "PEM_read_bio_PrivateKey");
    LOAD(crypto, err_get_error, "ERR_get_error");
    LOAD(crypto, err_error_string_n, "ERR_error_string_n");
    LOAD(tls, tls_server_method, "TLS_server_method");
    LOAD(tls, ssl_ctx_new, "SSL_CTX_new");
    LOAD(tls, ssl_ctx_free, "SSL_CTX_free");
    LOAD(tls, ssl_ctx_use_certificate_chain_file, "SSL_CTX_use_certificate_chain_file");
    LOAD(tls, ssl_ctx_use_private_key_file, "SSL_CTX_use_PrivateKey_file");
    LOAD(tls, ssl_ctx_ctrl, "SSL_CTX_ctrl");
    LOAD(tls, ssl_ctx_set_security_level, "SSL_CTX_set_security_level");
    LOAD(tls, ssl_ctx_set_cipher_list, "SSL_CTX_set_cipher_list");
    LOAD(tls, ssl_new, "SSL_new");
    LOAD(tls, ssl_set_fd, "SSL_set_fd");
    LOAD(tls, ssl_accept, "SSL_accept");
    LOAD(tls, ssl_read, "SSL_read");
    LOAD(tls, ssl_write, "SSL_write");
    LOAD(tls, ssl_new_session_ticket, "SSL_new_session_ticket");
    LOAD(tls, ssl_do_handshake, "SSL_do_handshake");
    LOAD(tls, ssl_pending, "SSL_pending");
    LOAD(tls, ssl_get_error, "SSL_get_error");
    LOAD(tls, ssl_shutdown, "SSL_shutdown");
    LOAD(tls, ssl_free, "SSL_free");
    loaded = 1;
}

int testtls_load(char *error, size_t capacity) {
    pthread_once(&once, load);
    if (loaded) return 0;
    snprintf(error, capacity, "%s", load_error);
    return -1;
}

/// Writes OpenSSL's last error, or `what`, into `error`; returns -1.
static int fail(const char *what, char *error, size_t capacity) {
    unsigned long code = ssl.err_get_error ? ssl.err_get_error() : 0;
    char reason[256] = "";
    if (code) ssl.err_error_string_n(code, reason, sizeof reason);
    snprintf(error, capacity, "%s%s%s", what, code ? ": " : "", reason);
    return -1;
}

static void *new_key(void) {
    void *context = ssl.pkey_ctx_new_id(EVP_PKEY_EC, NULL);
    void *key = NULL;
    if (context && ssl.pkey_keygen_init(context) > 0 &&
        ssl.pkey_ctx_ctrl(context, EVP_PKEY_EC, EVP_PKEY_OP_PARAMGEN | EVP_PKEY_OP_KEYGEN,
                          EVP_PKEY_CTRL_EC_PARAMGEN_CURVE_NID, NID_X9_62_prime256v1, NULL) > 0) {
        ssl.pkey_keygen(context, &key);
    }
    if (context) ssl.pkey_ctx_free(context);
    return key;
}

static int add_extension(void *certificate, int nid, const char *value) {
    void *extension = ssl.x509v3_ext_conf_nid(NULL, NULL, nid, value);
    if (!extension) return 0;
    int added = ssl.x509_add_ext(certificate, extension, -1);
    ssl.x509_extension_free(extension);
    return added;
}

static int write_pem(const char *path, void *certificate, void *key) {
    void *bio = ssl.bio_new_file(path, "w");
    if (!bio) return 0;
    int written = certificate ? ssl.pem_write_bio_x509(bio, certificate)
                              : ssl.pem_write_bio_private_key(bio, key, NULL, NULL, 0, NULL, NULL);
    ssl.bio_free(bio);
    return written;
}

static void *read_pem(const char *path, int is_key) {
    void *bio = ssl.bio_new_file(path, "r");
    if (!bio) return NULL;
    void *object = is_key ? ssl.pem_read_bio_private_key(bio, NULL, NULL, NULL)
                          : ssl.pem_read_bio_x509(bio, NULL, NULL, NULL);
    ssl.bio_free(bio);
    return object;
}

static long next_serial = 1000;

int testtls_make_certificate(const char *certificate_path, const char *key_path, const char *common_name,
                             const char *alt_names, int is_authority, long not_before, long not_after,
                             const char *issuer_certificate, const char *issuer_key, char *error, size_t capacity) {
    if (testtls_load(error, capacity) != 0) return -1;
    void *key = new_key();
    if (!key) return fail("key generation failed", error, capacity);
    void *issuer = issuer_certificate ? read_pem(issuer_certificate, 0) : NULL;
    void *signing_key = issuer_key ? read_pem(issuer_key, 1) : key;
    void *certificate = ssl.x509_new();
    int ok = certificate && (!issuer_certificate || (issuer && signing_key));
    ok = ok && ssl.x509_set_version(certificate, 2);
    ok = ok && ssl.asn1_integer_set(ssl.x509_get_serial(certificate), __atomic_add_fetch(&next_serial, 1, __ATOMIC_SEQ_CST));
    ok = ok && ssl.x509_gmtime_adj(ssl.x509_getm_not_before(certificate), not_before);
    ok = ok && ssl.x509_gmtime_adj(ssl.x509_getm_not_after(certificate), not_after);
    ok = ok && ssl.x509_set_pubkey(certificate, key);
    ok = ok && ssl.x509_name_add_entry_by_txt(ssl.x509_get_subject_name(certificate), "CN", MBSTRING_ASC,
                                              (const unsigned char *)common_name, -1, -1, 0);
    ok = ok && ssl.x509_set_issuer_name(certificate, ssl.x509_get_subject_name(issuer ? issuer : certificate));
    ok = ok && add_extension(certificate, NID_basic_constraints, is_authority ? "critical,CA:TRUE" : "CA:FALSE");
    ok = ok && (!is_authority || add_extension(certificate, NID_key_usage, "critical,keyCertSign,cRLSign"));
    ok = ok && (!alt_names || add_extension(certificate, NID_subject_alt_name, alt_names));
    ok = ok && ssl.x509_sign(certificate, signing_key, ssl.evp_sha256()) > 0;
    ok = ok && write_pem(certificate_path, certificate, NULL) && write_pem(key_path, NULL, key);
    int result = ok ? 0 : fail("making the certificate failed", error, capacity);
    if (certificate) ssl.x509_free(certificate);
    if (issuer) ssl.x509_free(issuer);
    if (signing_key && signing_key != key) ssl.pkey_free(signing_key);
    ssl.pkey_free(key);
    return result;
}

void *testtls_server_context(const char *chain_path, const char *key_path, int minimum, int maximum, char *error,
                             size_t capacity) {
    if (testtls_load(error, capacity) != 0) return NULL;
    void *context = ssl.ssl_ctx_new(ssl.tls_server_method());
    if (!context) {
        fail("SSL_CTX_new failed", error, capacity);
        return NULL;
    }
    if (minimum < TESTTLS_VERSION_1_2) {
        // OpenSSL 3 refuses TLS 1.0 and 1.1 above security level 0.
        ssl.ssl_ctx_set_security_level(context, 0);
        ssl.ssl_ctx_set_cipher_list(context, "DEFAULT:@SECLEVEL=0");
    }
    if (ssl.ssl_ctx_ctrl(context, SSL_CTRL_SET_MIN_PROTO_VERSION, minimum, NULL) != 1 ||
        ssl.ssl_ctx_ctrl(context, SSL_CTRL_SET_MAX_PROTO_VERSION, maximum, NULL) != 1 ||
        ssl.ssl_ctx_use_certificate_chain_file(context, chain_path) != 1 ||
        ssl.ssl_ctx_use_private_key_file(context, key_path, SSL_FILETYPE_PEM) != 1) {
        fail("setting up the server context failed", error, capacity);
        ssl.ssl_ctx_free(context);
        return NULL;
    }
    return context;
}

void testtls_free_context(void *context) {
    if (context) ssl.ssl_ctx_free(context);
}

// OpenSSL writes to the socket with write(2), which raises SIGPIPE when the client has gone (a client that refused
// the certificate, say) and would kill the test process. Around each OpenSSL call, SIGPIPE is blocked on this thread
// and one it raised is taken off again, so the call fails with EPIPE instead.
static void *accept_session(void *context, int fd, char *error, size_t capacity);

typedef struct {
    sigset_t previous;
    int was_pending;
} quiet_pipe;

static quiet_pipe quiet_pipe_begin(void) {
    quiet_pipe state;
    sigset_t pipe, pending;
    sigemptyset(&pipe);
    sigaddset(&pipe, SIGPIPE);
    sigpending(&pending);
    state.was_pending = sigismember(&pending, SIGPIPE);
    pthread_sigmask(SIG_BLOCK, &pipe, &state.previous);
    return state;
}

static void quiet_pipe_end(quiet_pipe state) {
    if (!state.was_pending) {
        sigset_t pipe;
        sigemptyset(&pipe);
        sigaddset(&pipe, SIGPIPE);
        struct timespec zero = {0, 0};
        for (int i = 0; i < 4 && sigtimedwait(&pipe, NULL, &zero) == SIGPIPE; i++) {
        }
    }
    pthread_sigmask(SIG_SETMASK, &state.previous, NULL);
}

void *testtls_accept(void *context, int fd, char *error, size_t capacity) {
    quiet_pipe quiet = quiet_pipe_begin();
    void *session = accept_session(context, fd, error, capacity);
    quiet_pipe_end(quiet);
    return session;
}

static void *accept_session(void *context, int fd, char *error, size_t capacity) {
    void *session = ssl.ssl_new(context);
    if (!session || ssl.ssl_set_fd(session, fd) != 1) {
        fail("SSL_new failed", error, capacity);
        if (session) ssl.ssl_free(session);
        return NULL;
    }
    if (ssl.ssl_accept(session) != 1) {
        fail("the handshake failed", error, capacity);
        ssl.ssl_free(session);
        return NULL;
    }
    return session;
}

int testtls_read(void *session, void *buffer, int capacity) {
    quiet_pipe quiet = quiet_pipe_begin();
    int count = ssl.ssl_read(session, buffer, capacity);
    quiet_pipe_end(quiet);
    if (count > 0) return count;
    int reason = ssl.ssl_get_error(session, count);
    if (reason == SSL_ERROR_ZERO_RETURN) return 0;
    if (reason == SSL_ERROR_WANT_READ || reason == SSL_ERROR_WANT_WRITE) return -2;
    if (reason == SSL_ERROR_SYSCALL && count == 0) return 0;
    return -1;
}

int testtls_pending(void *session) { return ssl.ssl_pending(session); }

int testtls_write(void *session, const void *buffer, int count) {
    quiet_pipe quiet = quiet_pipe_begin();
    int written = ssl.ssl_write(session, buffer, count);
    quiet_pipe_end(quiet);
    return written;
}

int testtls_send_session_ticket(void *session) {
    quiet_pipe quiet = quiet_pipe_begin();
    // TLS 1.3 only: the ticket is queued, and SSL_do_handshake writes it at once.
    int sent = ssl.ssl_new_session_ticket(session) == 1 && ssl.ssl_do_handshake(session) == 1;
    quiet_pipe_end(quiet);
    return sent;
}

void testtls_close(void *session) {
    quiet_pipe quiet = quiet_pipe_begin();
    ssl.ssl_shutdown(session);
    quiet_pipe_end(quiet);
    ssl.ssl_free(session);
}

#else

int testtls_load(char *error, size_t capacity) {
    snprintf(error, capacity, "the TLS test server runs on Linux only");
    return -1;
}
int testtls_make_certificate(const char *certificate_path, const char *key_path, const char *common_name,
                             const char *alt_names, int is_authority, long not_before, long not_after,
                             const char *issuer_certificate, const char *issuer_key, char *error, size_t capacity) {
    return testtls_load(error, capacity);
}
void *testtls_server_context(const char *chain_path, const char *key_path, int minimum, int maximum, char *error,
                             size_t capacity) {
    testtls_load(error, capacity);
    return NULL;
}
void testtls_free_context(void *context) {}
void *testtls_accept(void *context, int fd, char *error, size_t capacity) { return NULL; }
int testtls_read(void *session, void *buffer, int capacity) { return -1; }
int testtls_pending(void *session) { return 0; }
int testtls_write(void *session, const void *buffer, int count) { return -1; }
int testtls_send_session_ticket(void *session) { return 0; }
void testtls_close(void *session) {}

#endif
