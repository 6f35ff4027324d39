#ifndef SWIFT_MSAL_BENCHMARKS_CBASELINEOPENSSL_H
#define SWIFT_MSAL_BENCHMARKS_CBASELINEOPENSSL_H

// The few OpenSSL 3 headers the EVP_DigestVerify baseline needs: PEM loading,
// EVP digests and keys, and ECDSA_SIG for turning a JWS R||S signature into DER.
#define OPENSSL_API_COMPAT 30000
#define OPENSSL_NO_DEPRECATED 1

#include <openssl/bn.h>
#include <openssl/bio.h>
#include <openssl/ec.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/pem.h>

#endif
