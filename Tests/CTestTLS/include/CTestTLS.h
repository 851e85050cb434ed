// A TLS server and certificate maker for the package's tests, on OpenSSL (libssl.so.3 or .1.1) loaded at run time,
// so that the tests need no OpenSSL headers and no link flag. Linux only; elsewhere every call fails.
#ifndef NETWORKLAYER_CTESTTLS_H
#define NETWORKLAYER_CTESTTLS_H

#include <stddef.h>

/// Protocol versions, as OpenSSL numbers them.
enum {
    TESTTLS_VERSION_1_0 = 0x0301,
    TESTTLS_VERSION_1_1 = 0x0302,
    TESTTLS_VERSION_1_2 = 0x0303,
    TESTTLS_VERSION_1_3 = 0x0304,
};

/// Loads OpenSSL once. Returns 0, or -1 with the reason in `error`.
int testtls_load(char *error, size_t capacity);

/// Makes a P-256 key and a certificate for it, valid from `not_before` to `not_after` seconds from now, and writes
/// both as PEM. `alt_names` is an X.509 subjectAltName such as "IP:127.0.0.1" (NULL for none); `is_authority` makes
/// a CA certificate. It is signed by the certificate and key in `issuer_certificate` and `issuer_key` (PEM files),
/// or by its own key when they are NULL. Returns 0, or -1 with the reason in `error`.
int testtls_make_certificate(const char *certificate_path, const char *key_path, const char *common_name,
                             const char *alt_names, int is_authority, long not_before, long not_after,
                             const char *issuer_certificate, const char *issuer_key, char *error, size_t capacity);

/// A server context for a certificate chain and key (PEM files), speaking versions `minimum` to `maximum`.
void *testtls_server_context(const char *chain_path, const char *key_path, int minimum, int maximum, char *error,
                             size_t capacity);
void testtls_free_context(void *context);

/// Runs the server side of a handshake on a connected socket; returns the session, or NULL (reason in `error`).
void *testtls_accept(void *context, int fd, char *error, size_t capacity);

/// Reads into `buffer`: the count, 0 when the peer closed, -1 on an error, -2 when the socket's timeout passed.
int testtls_read(void *session, void *buffer, int capacity);
/// Bytes decrypted and waiting to be read.
int testtls_pending(void *session);
/// Writes `count` bytes: the count written, or a value below 1 on an error or a timeout.
int testtls_write(void *session, const void *buffer, int count);
/// Sends one more TLS 1.3 session ticket now, as a record of its own; returns 1, or 0 (TLS 1.2 has none).
int testtls_send_session_ticket(void *session);
/// Sends close_notify and frees the session.
void testtls_close(void *session);

#endif
