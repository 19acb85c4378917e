#ifndef GRONA_COPENSSL_SHIM_H
#define GRONA_COPENSSL_SHIM_H
#include <stdint.h>
#include <openssl/opensslv.h>
#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/ec.h>
#include <openssl/ecdsa.h>
#include <openssl/bn.h>
#include <openssl/pem.h>
#include <openssl/x509.h>
#include <openssl/x509v3.h>
#include <openssl/err.h>
#include <openssl/rand.h>
#include <openssl/sha.h>
#include <openssl/ssl.h>
#include <openssl/core_names.h>
#include <openssl/param_build.h>

/* The SSL_OP_ options are macros over a cast Swift cannot import: the ones the TLS listener sets, as one value.
 * No compression (CRIME), no renegotiation, the server's cipher order, and a TCP close without close_notify
 * read as the end of the stream (HTTP/1.1 frames its own messages, RFC 9112 §9.8). */
static inline uint64_t grona_ssl_server_options(void) {
    return SSL_OP_NO_COMPRESSION | SSL_OP_NO_RENEGOTIATION | SSL_OP_CIPHER_SERVER_PREFERENCE
        | SSL_OP_IGNORE_UNEXPECTED_EOF;
}
#endif
