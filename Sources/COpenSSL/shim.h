#ifndef CURLFIRE_COPENSSL_SHIM_H
#define CURLFIRE_COPENSSL_SHIM_H
/*
 * OpenSSL 3 headers for Curlfire's trust layer, plus wrappers for what Swift cannot import:
 * the safestack macros (sk_X509_num, sk_X509_value, …) are macros over generic OPENSSL_sk_* calls
 * and are not imported; a few other macros likewise. Names are prefixed `cfssl_`.
 */
#include <openssl/ssl.h>
#include <openssl/x509.h>
#include <openssl/x509v3.h>
#include <openssl/pem.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/sha.h>
#include <openssl/pkcs12.h>
#include <openssl/ocsp.h>

static inline int cfssl_sk_X509_num(const STACK_OF(X509) *sk) { return sk_X509_num(sk); }
static inline X509 *cfssl_sk_X509_value(const STACK_OF(X509) *sk, int i) { return sk_X509_value(sk, i); }
static inline STACK_OF(X509) *cfssl_sk_X509_new_null(void) { return sk_X509_new_null(); }
static inline int cfssl_sk_X509_push(STACK_OF(X509) *sk, X509 *x) { return sk_X509_push(sk, x); }
static inline void cfssl_sk_X509_free(STACK_OF(X509) *sk) { sk_X509_free(sk); }
static inline void cfssl_sk_X509_pop_free(STACK_OF(X509) *sk) { sk_X509_pop_free(sk, X509_free); }
static inline int cfssl_sk_GENERAL_NAME_num(const STACK_OF(GENERAL_NAME) *sk) { return sk_GENERAL_NAME_num(sk); }
static inline GENERAL_NAME *cfssl_sk_GENERAL_NAME_value(const STACK_OF(GENERAL_NAME) *sk, int i) { return sk_GENERAL_NAME_value(sk, i); }
static inline void cfssl_GENERAL_NAMES_free(STACK_OF(GENERAL_NAME) *sk) { GENERAL_NAMES_free(sk); }
static inline int cfssl_sk_X509_CRL_num(const STACK_OF(X509_CRL) *sk) { return sk_X509_CRL_num(sk); }

#endif
