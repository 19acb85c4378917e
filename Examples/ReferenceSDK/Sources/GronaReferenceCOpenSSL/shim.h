#ifndef GRONA_REFERENCE_COPENSSL_SHIM_H
#define GRONA_REFERENCE_COPENSSL_SHIM_H
/* What the reference SDK verifies with: P-256 public keys from SubjectPublicKeyInfo DER, ECDSA signatures
 * rebuilt from their raw R||S form, and SHA-256. libcrypto only: the SDK needs no TLS of its own. */
#include <openssl/bn.h>
#include <openssl/core_names.h>
#include <openssl/crypto.h>
#include <openssl/ec.h>
#include <openssl/ecdsa.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/x509.h>
#endif
