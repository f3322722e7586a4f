#ifndef CURLFIRE_CCURL_SHIM_H
#define CURLFIRE_CCURL_SHIM_H
/*
 * Typed wrappers around libcurl's variadic entry points.
 *
 * curl_easy_setopt, curl_easy_getinfo, curl_multi_setopt and curl_share_setopt are C-variadic, and
 * Swift refuses to call C-variadic functions. Each wrapper below fixes one argument kind so the Swift
 * side gets a typed call. They are `static inline`: nothing needs linking beyond libcurl itself.
 * The names are prefixed `cfcurl_` so they never clash with libcurl's own symbols.
 */
#include <curl/curl.h>
#include <stdint.h>
#include <sys/prctl.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/eventfd.h>
#include <sys/select.h>
#include <unistd.h>
#include <sys/syscall.h>
#include <errno.h>

/* --- callback types (named so Swift sees @convention(c) function types) --- */
typedef size_t (*cfcurl_data_cb)(char *buffer, size_t size, size_t nitems, void *userdata);
typedef int (*cfcurl_xferinfo_cb)(void *userdata, curl_off_t dltotal, curl_off_t dlnow,
                                  curl_off_t ultotal, curl_off_t ulnow);
typedef int (*cfcurl_seek_cb)(void *userdata, curl_off_t offset, int origin);
typedef CURLcode (*cfcurl_sslctx_cb)(CURL *curl, void *ssl_ctx, void *userdata);

/* --- curl_easy_setopt, one wrapper per argument kind --- */
static inline CURLcode cfcurl_easy_setopt_long(CURL *h, CURLoption o, long v) { return curl_easy_setopt(h, o, v); }
static inline CURLcode cfcurl_easy_setopt_off_t(CURL *h, CURLoption o, curl_off_t v) { return curl_easy_setopt(h, o, v); }
static inline CURLcode cfcurl_easy_setopt_string(CURL *h, CURLoption o, const char *v) { return curl_easy_setopt(h, o, v); }
static inline CURLcode cfcurl_easy_setopt_ptr(CURL *h, CURLoption o, void *v) { return curl_easy_setopt(h, o, v); }
/* curl_blob options (CURLOPT_CAINFO_BLOB): libcurl copies the bytes (CURL_BLOB_COPY). */
static inline CURLcode cfcurl_easy_setopt_blob(CURL *h, CURLoption o, const void *data, size_t len) {
    struct curl_blob blob = { (void *)data, len, CURL_BLOB_COPY };
    return curl_easy_setopt(h, o, &blob);
}
static inline CURLcode cfcurl_easy_setopt_slist(CURL *h, CURLoption o, struct curl_slist *v) { return curl_easy_setopt(h, o, v); }
static inline CURLcode cfcurl_easy_setopt_data_cb(CURL *h, CURLoption o, cfcurl_data_cb v) { return curl_easy_setopt(h, o, v); }
static inline CURLcode cfcurl_easy_setopt_xferinfo_cb(CURL *h, cfcurl_xferinfo_cb v) { return curl_easy_setopt(h, CURLOPT_XFERINFOFUNCTION, v); }
static inline CURLcode cfcurl_easy_setopt_seek_cb(CURL *h, cfcurl_seek_cb v) { return curl_easy_setopt(h, CURLOPT_SEEKFUNCTION, v); }
static inline CURLcode cfcurl_easy_setopt_sslctx_cb(CURL *h, cfcurl_sslctx_cb v) { return curl_easy_setopt(h, CURLOPT_SSL_CTX_FUNCTION, v); }

/* --- curl_easy_getinfo, one wrapper per result kind --- */
static inline CURLcode cfcurl_easy_getinfo_long(CURL *h, CURLINFO i, long *v) { return curl_easy_getinfo(h, i, v); }
static inline CURLcode cfcurl_easy_getinfo_off_t(CURL *h, CURLINFO i, curl_off_t *v) { return curl_easy_getinfo(h, i, v); }
static inline CURLcode cfcurl_easy_getinfo_string(CURL *h, CURLINFO i, char **v) { return curl_easy_getinfo(h, i, v); }
static inline CURLcode cfcurl_easy_getinfo_ptr(CURL *h, CURLINFO i, void **v) { return curl_easy_getinfo(h, i, v); }
/* CURLINFO_ACTIVESOCKET writes a curl_socket_t (an int), not a long: the WebSocket transport reads the socket of a CONNECT_ONLY handle. */
static inline CURLcode cfcurl_easy_getinfo_socket(CURL *h, curl_socket_t *v) { return curl_easy_getinfo(h, CURLINFO_ACTIVESOCKET, v); }

/* Every value a finished transfer's metrics read (TransferMetrics, Engine/CurlEasy+Metrics.swift), in
 * one call from Swift: seventeen calls through the wrappers above, at the end of every request on the
 * engine thread, cost more in their crossings than libcurl spends answering them. A value libcurl
 * cannot give stays 0 (a string NULL), as each wrapper's caller treats a failure. The strings point
 * into the handle: valid until it is reset, reused or freed. */
typedef struct cfcurl_transfer_info {
    long http_version, local_port, primary_port, redirect_count, request_size, header_size, num_connects;
    curl_off_t namelookup_us, connect_us, appconnect_us, pretransfer_us, starttransfer_us, total_us, redirect_us;
    curl_off_t size_upload, size_download;
    char *effective_url, *local_ip, *primary_ip;
} cfcurl_transfer_info;
static inline void cfcurl_read_transfer_info(CURL *h, cfcurl_transfer_info *out) {
    *out = (cfcurl_transfer_info){0};
    (void)curl_easy_getinfo(h, CURLINFO_HTTP_VERSION, &out->http_version);
    (void)curl_easy_getinfo(h, CURLINFO_LOCAL_PORT, &out->local_port);
    (void)curl_easy_getinfo(h, CURLINFO_PRIMARY_PORT, &out->primary_port);
    (void)curl_easy_getinfo(h, CURLINFO_REDIRECT_COUNT, &out->redirect_count);
    (void)curl_easy_getinfo(h, CURLINFO_REQUEST_SIZE, &out->request_size);
    (void)curl_easy_getinfo(h, CURLINFO_HEADER_SIZE, &out->header_size);
    (void)curl_easy_getinfo(h, CURLINFO_NUM_CONNECTS, &out->num_connects);
    (void)curl_easy_getinfo(h, CURLINFO_NAMELOOKUP_TIME_T, &out->namelookup_us);
    (void)curl_easy_getinfo(h, CURLINFO_CONNECT_TIME_T, &out->connect_us);
    (void)curl_easy_getinfo(h, CURLINFO_APPCONNECT_TIME_T, &out->appconnect_us);
    (void)curl_easy_getinfo(h, CURLINFO_PRETRANSFER_TIME_T, &out->pretransfer_us);
    (void)curl_easy_getinfo(h, CURLINFO_STARTTRANSFER_TIME_T, &out->starttransfer_us);
    (void)curl_easy_getinfo(h, CURLINFO_TOTAL_TIME_T, &out->total_us);
    (void)curl_easy_getinfo(h, CURLINFO_REDIRECT_TIME_T, &out->redirect_us);
    (void)curl_easy_getinfo(h, CURLINFO_SIZE_UPLOAD_T, &out->size_upload);
    (void)curl_easy_getinfo(h, CURLINFO_SIZE_DOWNLOAD_T, &out->size_download);
    (void)curl_easy_getinfo(h, CURLINFO_EFFECTIVE_URL, &out->effective_url);
    (void)curl_easy_getinfo(h, CURLINFO_LOCAL_IP, &out->local_ip);
    (void)curl_easy_getinfo(h, CURLINFO_PRIMARY_IP, &out->primary_ip);
}

/* --- curl_multi_setopt / curl_share_setopt --- */
static inline CURLMcode cfcurl_multi_setopt_long(CURLM *m, CURLMoption o, long v) { return curl_multi_setopt(m, o, v); }
static inline CURLSHcode cfcurl_share_setopt_long(CURLSH *s, CURLSHoption o, long v) { return curl_share_setopt(s, o, v); }

/* --- constants that are macros of a type Swift imports awkwardly --- */
static inline size_t cfcurl_writefunc_pause(void) { return CURL_WRITEFUNC_PAUSE; }
static inline size_t cfcurl_readfunc_pause(void) { return CURL_READFUNC_PAUSE; }
static inline size_t cfcurl_readfunc_abort(void) { return CURL_READFUNC_ABORT; }

/* CURLAUTH_* are unsigned long casts of shifted bits: not imported. */
static inline long cfcurl_auth_basic_digest(void) { return (long)(CURLAUTH_BASIC | CURLAUTH_DIGEST); }
/* Every proxy authentication scheme libcurl has (Basic, Digest, NTLM, Negotiate, …): CURLAUTH_ANY. */
static inline long cfcurl_auth_any(void) { return (long)CURLAUTH_ANY; }

/* curl_multi_info_read returns a struct whose `data` is a union: read the result code here. */
static inline CURLcode cfcurl_msg_result(const CURLMsg *msg) { return msg->data.result; }

/* Names the calling thread (shown in /proc/<pid>/task/<tid>/comm, top, gdb): the engine thread is
 * "curlfire-engine". pthread_setname_np needs _GNU_SOURCE, which Swift's Glibc module does not set. */
static inline void cfcurl_name_current_thread(const char *name) { prctl(PR_SET_NAME, name, 0, 0, 0); }
/* The calling thread's kernel id (its /proc/self/task/<id> entry). */
static inline int cfcurl_current_thread_id(void) { return (int)syscall(SYS_gettid); }

/* --- live connection events (Engine/LiveEvents*.swift), installed only for sessions that want them --- */
typedef int (*cfcurl_resolver_start_cb)(void *resolver_state, void *reserved, void *userdata);
typedef curl_socket_t (*cfcurl_opensocket_cb)(void *clientp, curlsocktype purpose, struct curl_sockaddr *address);
typedef int (*cfcurl_closesocket_cb)(void *clientp, curl_socket_t item);
typedef int (*cfcurl_prereq_cb)(void *clientp, char *primary_ip, char *local_ip, int primary_port, int local_port);
typedef int (*cfcurl_debug_cb)(CURL *handle, curl_infotype type, char *data, size_t size, void *userdata);
static inline CURLcode cfcurl_easy_setopt_resolver_start_cb(CURL *h, cfcurl_resolver_start_cb v) { return curl_easy_setopt(h, CURLOPT_RESOLVER_START_FUNCTION, v); }
static inline CURLcode cfcurl_easy_setopt_opensocket_cb(CURL *h, cfcurl_opensocket_cb v) { return curl_easy_setopt(h, CURLOPT_OPENSOCKETFUNCTION, v); }
static inline CURLcode cfcurl_easy_setopt_closesocket_cb(CURL *h, cfcurl_closesocket_cb v) { return curl_easy_setopt(h, CURLOPT_CLOSESOCKETFUNCTION, v); }
static inline CURLcode cfcurl_easy_setopt_prereq_cb(CURL *h, cfcurl_prereq_cb v) { return curl_easy_setopt(h, CURLOPT_PREREQFUNCTION, v); }
static inline CURLcode cfcurl_easy_setopt_debug_cb(CURL *h, cfcurl_debug_cb v) { return curl_easy_setopt(h, CURLOPT_DEBUGFUNCTION, v); }
/* The numeric address and port of a socket libcurl is about to open (IPv4, IPv6; 0 for others). */
static inline int cfcurl_sockaddr_text(const struct curl_sockaddr *a, char *buf, socklen_t len, int *port) {
    const struct sockaddr *sa = (const struct sockaddr *)&a->addr;
    buf[0] = 0; *port = 0;
    if(a->family == AF_INET) {
        const struct sockaddr_in *in = (const struct sockaddr_in *)sa;
        *port = ntohs(in->sin_port);
        return inet_ntop(AF_INET, &in->sin_addr, buf, len) != NULL;
    }
    if(a->family == AF_INET6) {
        const struct sockaddr_in6 *in6 = (const struct sockaddr_in6 *)sa;
        *port = ntohs(in6->sin6_port);
        return inet_ntop(AF_INET6, &in6->sin6_addr, buf, len) != NULL;
    }
    return 0;
}

/* --- the engine's idle sleep (Engine/Engine+Inline.swift) --- */
/* An eventfd that wakes the engine out of its idle sleep (non-blocking, closed on exec); -1 on failure. */
static inline int cfcurl_wake_fd_make(void) { return eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC); }
static inline void cfcurl_wake_fd_signal(int fd) { uint64_t one = 1; ssize_t n = write(fd, &one, sizeof one); (void)n; }
static inline void cfcurl_wake_fd_drain(int fd) { uint64_t count; ssize_t n = read(fd, &count, sizeof count); (void)n; }

/* Sleeps until `wake_fd` or one of `count` (at most 32) sockets is readable, or `timeout_ms` passes.
 * Returns a mask of the sockets that reported anything (readable, closed, invalid): bit i for sockets[i]. */
static inline uint32_t cfcurl_idle_poll(int wake_fd, const int *sockets, int count, int timeout_ms) {
    struct pollfd fds[33];
    if(count > 32) count = 32;
    fds[0].fd = wake_fd; fds[0].events = POLLIN; fds[0].revents = 0;
    for(int i = 0; i < count; i++) { fds[i + 1].fd = sockets[i]; fds[i + 1].events = POLLIN; fds[i + 1].revents = 0; }
    int ready = poll(fds, (nfds_t)(count + 1), timeout_ms);
    uint32_t mask = 0;
    if(ready > 0) {
        for(int i = 0; i < count; i++) if(fds[i + 1].revents) mask |= (uint32_t)1 << i;
    }
    if(fds[0].revents & POLLIN) cfcurl_wake_fd_drain(wake_fd);
    return mask;
}

/* Whether every socket the multi handle waits on is one of `sockets`, waited on for reading only
 * (curl_multi_fdset), so a sleep that polls those sockets wakes when libcurl has work. 0 when libcurl
 * waits for writing, on another socket, on a descriptor select() cannot hold, or on nothing at all. */
static inline int cfcurl_multi_waits_to_read_only(CURLM *multi, const int *sockets, int count) {
    fd_set readable, writable, failing;
    int highest = -1;
    FD_ZERO(&readable); FD_ZERO(&writable); FD_ZERO(&failing);
    if(curl_multi_fdset(multi, &readable, &writable, &failing, &highest) != CURLM_OK || highest < 0) return 0;
    if(highest >= FD_SETSIZE - 1) return 0;
    for(int fd = 0; fd <= highest; fd++) {
        if(FD_ISSET(fd, &writable)) return 0;
        if(!FD_ISSET(fd, &readable)) continue;
        int watched = 0;
        for(int i = 0; i < count; i++) if(sockets[i] == fd) { watched = 1; break; }
        if(!watched) return 0;
    }
    return 1;
}

#endif
