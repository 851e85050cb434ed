// zlib, loaded at run time (libz.so.1 on Linux, the system's libz on Apple platforms), for WebSocket
// permessage-deflate (RFC 7692) and the gzip and deflate content codings of HTTP bodies: no header file and no
// link-time dependency.
#ifndef NL_CZLIB_H
#define NL_CZLIB_H

#include <stddef.h>
#include <stdint.h>

/// Loads zlib once; 1 when it is usable, 0 otherwise (then `nl_zlib_error` says why).
int nl_zlib_load(void);
/// Why zlib could not be loaded, or an empty string.
const char *nl_zlib_error(void);

/// A raw DEFLATE compressor with a window of 2^window_bits bytes (9 to 15), or NULL.
void *nl_zlib_deflater(int window_bits);
/// A raw DEFLATE decompressor with the largest window (2^15), which reads any window, or NULL.
void *nl_zlib_inflater(void);
/// A decompressor of a gzip (RFC 1952) or zlib (RFC 1950) stream, whichever header comes, with the largest window,
/// for an HTTP body's content coding; or NULL. Freed and stepped as an inflater.
void *nl_zlib_inflater_wrapped(void);

/// One call of zlib's deflate (is_deflater 1) or inflate (0) over `input` into `output`. On return `*input_left` and
/// `*output_left` are the bytes not consumed and the room not filled. `flush` is zlib's (0 none, 2 sync). Returns
/// zlib's code: 0 Z_OK, 1 Z_STREAM_END, -5 Z_BUF_ERROR (no progress possible), other negatives errors.
int nl_zlib_step(void *stream, int is_deflater, const uint8_t *input, unsigned input_count, uint8_t *output,
                 unsigned output_count, unsigned *input_left, unsigned *output_left, int flush);
/// Forgets the stream's window and state, as a new message without context takeover needs.
int nl_zlib_reset(void *stream, int is_deflater);
/// Frees a stream made by `nl_zlib_deflater`, `nl_zlib_inflater` or `nl_zlib_inflater_wrapped`.
void nl_zlib_free(void *stream, int is_deflater);

#endif
