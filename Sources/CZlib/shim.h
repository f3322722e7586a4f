/*
 * CZlib: zlib for permessage-deflate (RFC 7692) in Curlfire's WebSocket client.
 *
 * inflateInit2 / deflateInit2 are macros (they pass ZLIB_VERSION and sizeof(z_stream)), which do
 * not import into Swift: these typed wrappers call the functions underneath. `static inline`:
 * nothing to link beyond libz itself.
 */
#ifndef CURLFIRE_CZLIB_SHIM_H
#define CURLFIRE_CZLIB_SHIM_H
#include <zlib.h>

static inline int cfz_inflate_init_raw(z_stream *s) {
    return inflateInit2_(s, -15, ZLIB_VERSION, (int)sizeof(z_stream));
}
static inline int cfz_deflate_init_raw(z_stream *s, int window_bits) {
    return deflateInit2_(s, Z_DEFAULT_COMPRESSION, Z_DEFLATED, -window_bits, 8, Z_DEFAULT_STRATEGY,
                         ZLIB_VERSION, (int)sizeof(z_stream));
}
#endif
