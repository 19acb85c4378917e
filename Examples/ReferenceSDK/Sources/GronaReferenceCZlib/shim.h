#ifndef GRONA_REFERENCE_CZLIB_SHIM_H
#define GRONA_REFERENCE_CZLIB_SHIM_H
#include <zlib.h>

/* deflateInit2 and inflateInit2 are macros over the versioned functions, which Swift cannot import.
 * windowBits 15 + 16 asks for the gzip wrapper (RFC 1952) rather than zlib's. */
static inline int grona_reference_deflate_init_gzip(z_streamp stream, int level) {
    return deflateInit2(stream, level, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY);
}

static inline int grona_reference_inflate_init_gzip(z_streamp stream) {
    return inflateInit2(stream, 15 + 16);
}
#endif
