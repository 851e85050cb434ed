#include "CZlib.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

// zlib's z_stream, as zlib.h declares it (its layout has not changed since zlib 1.0; deflateInit2_ and
// inflateInit2_ check the size passed to them).
typedef struct {
    const uint8_t *next_in;
    unsigned int avail_in;
    unsigned long total_in;
    uint8_t *next_out;
    unsigned int avail_out;
    unsigned long total_out;
    const char *msg;
    void *state;
    void *zalloc;
    void *zfree;
    void *opaque;
    int data_type;
    unsigned long adler;
    unsigned long reserved;
} z_stream;

static struct {
    int (*deflateInit2_)(z_stream *, int, int, int, int, int, const char *, int);
    int (*deflate)(z_stream *, int);
    int (*deflateReset)(z_stream *);
    int (*deflateEnd)(z_stream *);
    int (*inflateInit2_)(z_stream *, int, const char *, int);
    int (*inflate)(z_stream *, int);
    int (*inflateReset)(z_stream *);
    int (*inflateEnd)(z_stream *);
} zlib;

static pthread_once_t load_once = PTHREAD_ONCE_INIT;
static int loaded;
static char load_error[256];
// zlib checks only the major version of the one the caller was built against.
static const char *version = "1.2.11";

static void load(void) {
#if defined(__APPLE__)
    const char *name = "/usr/lib/libz.1.dylib";
#else
    const char *name = "libz.so.1";
#endif
    void *library = dlopen(name, RTLD_NOW | RTLD_LOCAL);
    if (!library) {
        const char *reason = dlerror();
        snprintf(load_error, sizeof load_error, "%s could not be loaded: %s", name, reason ? reason : "unknown");
        return;
    }
#define LOAD(field)                                                                    \
    do {                                                                               \
        *(void **)(&zlib.field) = dlsym(library, #field);                              \
        if (!zlib.field) {                                                             \
            snprintf(load_error, sizeof load_error, "%s has no %s", name, #field);     \
            return;                                                                    \
        }                                                                              \
    } while (0)
    LOAD(deflateInit2_);
    LOAD(deflate);
    LOAD(deflateReset);
    LOAD(deflateEnd);
    LOAD(inflateInit2_);
    LOAD(inflate);
    LOAD(inflateReset);
    LOAD(inflateEnd);
#undef LOAD
    loaded = 1;
}

int nl_zlib_load(void) {
    pthread_once(&load_once, load);
    return loaded;
}

const char *nl_zlib_error(void) { return load_error; }

void *nl_zlib_deflater(int window_bits) {
    if (!nl_zlib_load() || window_bits < 9 || window_bits > 15) return NULL;
    z_stream *stream = calloc(1, sizeof *stream);
    if (!stream) return NULL;
    // Level 6 (zlib's default), DEFLATE, a raw stream (negative bits), memLevel 5, the default strategy. memLevel 5
    // (a 4,096-entry hash, 16 KiB of it beside the window's) instead of zlib's 8 (128 KiB): a connection's deflater
    // holds 32 KiB instead of 144 KiB with a 4 KiB window, and the benchmark's 16 KiB messages took 0.7x the CPU,
    // while a 16 KiB JSON document compressed to 0.7% more bytes (Benchmarks/README.md). Python's websockets chose
    // the same.
    if (zlib.deflateInit2_(stream, 6, 8, -window_bits, 5, 0, version, (int)sizeof *stream) != 0) {
        free(stream);
        return NULL;
    }
    return stream;
}

// An inflater reading `window_bits` as inflateInit2 takes them.
static void *make_inflater(int window_bits) {
    if (!nl_zlib_load()) return NULL;
    z_stream *stream = calloc(1, sizeof *stream);
    if (!stream) return NULL;
    if (zlib.inflateInit2_(stream, window_bits, version, (int)sizeof *stream) != 0) {
        free(stream);
        return NULL;
    }
    return stream;
}

void *nl_zlib_inflater(void) { return make_inflater(-15); }

// 15 + 32: the largest window, and a gzip or zlib header, whichever comes.
void *nl_zlib_inflater_wrapped(void) { return make_inflater(15 + 32); }

int nl_zlib_step(void *opaque, int is_deflater, const uint8_t *input, unsigned input_count, uint8_t *output,
                 unsigned output_count, unsigned *input_left, unsigned *output_left, int flush) {
    z_stream *stream = opaque;
    stream->next_in = input;
    stream->avail_in = input_count;
    stream->next_out = output;
    stream->avail_out = output_count;
    int code = is_deflater ? zlib.deflate(stream, flush) : zlib.inflate(stream, flush);
    *input_left = stream->avail_in;
    *output_left = stream->avail_out;
    stream->next_in = NULL;
    stream->next_out = NULL;
    return code;
}

int nl_zlib_reset(void *stream, int is_deflater) {
    return is_deflater ? zlib.deflateReset(stream) : zlib.inflateReset(stream);
}

void nl_zlib_free(void *stream, int is_deflater) {
    if (!stream) return;
    if (is_deflater) {
        zlib.deflateEnd(stream);
    } else {
        zlib.inflateEnd(stream);
    }
    free(stream);
}
