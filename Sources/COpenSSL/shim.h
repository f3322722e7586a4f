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

/* sk_X509_CRL_value is a safestack macro too. */
static inline X509_CRL *cfssl_sk_X509_CRL_value(const STACK_OF(X509_CRL) *sk, int i) { return sk_X509_CRL_value(sk, i); }
/* BIO_get_mem_data is a macro over BIO_ctrl. */
static inline long cfssl_BIO_get_mem_data(BIO *b, char **pp) { return BIO_get_mem_data(b, pp); }
/* OPENSSL_free is a macro that passes __FILE__/__LINE__. */
static inline void cfssl_OPENSSL_free(void *p) { OPENSSL_free(p); }
/* XN_FLAG_RFC2253 is an OR of other macros and does not import. */
static inline unsigned long cfssl_XN_FLAG_RFC2253(void) { return XN_FLAG_RFC2253; }
/* SSL_CTX_set_tlsext_status_type is a macro over SSL_CTX_ctrl. */
static inline long cfssl_SSL_CTX_set_tlsext_status_type(SSL_CTX *ctx, int type) { return SSL_CTX_set_tlsext_status_type(ctx, type); }
/* The OCSP status callback setters are macros over SSL_CTX_callback_ctrl / SSL_CTX_ctrl (the callback
 * travels as a generic function pointer, which Swift cannot cast to). The client's callback runs once the
 * server's stapled response (or its absence) is known; a server's callback provides the response. */
static inline long cfssl_SSL_CTX_set_tlsext_status_cb(SSL_CTX *ctx, int (*cb)(SSL *, void *)) { return SSL_CTX_set_tlsext_status_cb(ctx, cb); }
static inline long cfssl_SSL_CTX_set_tlsext_status_arg(SSL_CTX *ctx, void *arg) { return SSL_CTX_set_tlsext_status_arg(ctx, arg); }
/* SSL_get_tlsext_status_ocsp_resp is a macro over SSL_ctrl: the stapled response's DER, or -1 when none. */
static inline long cfssl_SSL_get_tlsext_status_ocsp_resp(SSL *ssl, const unsigned char **resp) { return SSL_get_tlsext_status_ocsp_resp(ssl, resp); }
/* SSL_set_tlsext_status_ocsp_resp is a macro over SSL_ctrl; the SSL takes ownership of a copy made here
 * with OPENSSL_memdup (itself a macro). Used by the tests' in-process stapling server. */
static inline int cfssl_SSL_set_tlsext_status_ocsp_resp_copy(SSL *ssl, const unsigned char *resp, long len) {
    unsigned char *copy = OPENSSL_memdup(resp, (size_t)len);
    if (copy == NULL) return 0;
    if (SSL_set_tlsext_status_ocsp_resp(ssl, copy, len) != 1) { OPENSSL_free(copy); return 0; }
    return 1;
}
/* SSL_CTX_get_ex_new_index is a macro over CRYPTO_get_ex_new_index. */
static inline int cfssl_SSL_CTX_get_ex_new_index(void) { return SSL_CTX_get_ex_new_index(0, NULL, NULL, NULL, NULL); }

/* A caller-owned CRL stack for X509_STORE_CTX_set0_crls (the stack, not the CRLs, is freed). */
static inline STACK_OF(X509_CRL) *cfssl_sk_X509_CRL_new_null(void) { return sk_X509_CRL_new_null(); }
static inline int cfssl_sk_X509_CRL_push(STACK_OF(X509_CRL) *sk, X509_CRL *crl) { return sk_X509_CRL_push(sk, crl); }
static inline void cfssl_sk_X509_CRL_free(STACK_OF(X509_CRL) *sk) { sk_X509_CRL_free(sk); }

#endif
