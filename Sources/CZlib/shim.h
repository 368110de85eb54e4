#include <zlib.h>

/// zlib's `inflateInit2` is a macro (it passes the library version and the stream's size), which Swift cannot
/// call: this wrapper does. `windowBits` 15 + 16 reads a gzip stream, -15 raw deflate (a zip entry).
static inline int tripline_inflate_init2(z_stream *stream, int windowBits) {
    return inflateInit2(stream, windowBits);
}

/// `deflateInit2` is a macro too (used by the tests to write gzip and zip files).
static inline int tripline_deflate_init2(z_stream *stream, int level, int windowBits) {
    return deflateInit2(stream, level, Z_DEFLATED, windowBits, 8, Z_DEFAULT_STRATEGY);
}
