#ifndef SWIFT_MSAL_COPENSSL_SHIM_H
#define SWIFT_MSAL_COPENSSL_SHIM_H

// Only the OpenSSL 3 EVP-level API is used by swift-msal. Deprecated low-level
// RSA_* / EC_KEY_* calls are hidden so that any use of them fails to compile.
#define OPENSSL_API_COMPAT 30000
#define OPENSSL_NO_DEPRECATED 1

#include <openssl/bio.h>
#include <openssl/bn.h>
#include <openssl/core_names.h>
#include <openssl/crypto.h>
#include <openssl/ec.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/param_build.h>
#include <openssl/params.h>
#include <openssl/pem.h>
#include <openssl/rand.h>
#include <openssl/rsa.h>
#include <openssl/opensslv.h>
#include <openssl/x509.h>

// Wrappers for what OpenSSL defines as macros, which Swift cannot call.

static inline int shim_BN_num_bytes(const BIGNUM *bn) {
    return BN_num_bytes(bn);
}

static inline void shim_OPENSSL_free(void *pointer) {
    OPENSSL_free(pointer);
}

static inline int shim_ERR_GET_LIB(unsigned long error) {
    return ERR_GET_LIB(error);
}

static inline int shim_ERR_GET_REASON(unsigned long error) {
    return ERR_GET_REASON(error);
}

// ERR_peek_last_error's reason for "no further PEM block" (PEM_R_NO_START_LINE in the PEM library).
static inline int shim_ERR_is_PEM_no_start_line(unsigned long error) {
    return ERR_GET_LIB(error) == ERR_LIB_PEM && ERR_GET_REASON(error) == PEM_R_NO_START_LINE;
}

static inline const char *shim_OPENSSL_VERSION_TEXT(void) {
    return OPENSSL_VERSION_TEXT;
}

// Key selections for EVP_PKEY_fromdata (composite macros in OpenSSL).
static inline int shim_EVP_PKEY_PUBLIC_KEY(void) {
    return EVP_PKEY_PUBLIC_KEY;
}

static inline int shim_EVP_PKEY_KEYPAIR(void) {
    return EVP_PKEY_KEYPAIR;
}

#endif
