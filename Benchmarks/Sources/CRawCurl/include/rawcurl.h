// The ceiling of the benchmarks: libcurl driven directly from C, with no Swift on the hot path.
//
// Every function runs a whole measurement itself (set-up, warm-up, timed window) so the Swift
// driver only calls in once and reads the result. The timed window is the Swift caller's (absolute
// CLOCK_MONOTONIC times, so the process CPU time it reads covers the same interval): a request
// counts when it completes inside [window_start_ns, window_end_ns].
#pragma once

#include <stddef.h>
#include <stdint.h>

typedef struct rawcurl_result {
    /// Requests (or connections, or transfers) completed inside the timed window.
    long completed;
    /// Failed requests (transport error or unexpected status) during the whole run.
    long errors;
    /// Length of the timed window in seconds (or of the single transfer).
    double seconds;
    /// Body bytes received (downloads) or sent (uploads) inside the window.
    int64_t bytes;
    /// New connections libcurl reported (CURLINFO_NUM_CONNECTS summed) inside the window.
    long connects;
    /// The first failure, for the report.
    char error[256];
} rawcurl_result;

/// Common settings of one measurement.
typedef struct rawcurl_options {
    const char *url;
    /// PEM file of the roots to trust (HTTPS only); CURLOPT_CAPATH is always NULL so libcurl
    /// keeps its cached X509 store across connections.
    const char *cainfo;
    /// 1: HTTP/2 over TLS with PIPEWAIT (multiplexing); 0: HTTP/1.1.
    int http2;
    /// Transfers in flight at once (concurrent scenarios).
    int concurrency;
    /// CURLMOPT_MAX_HOST_CONNECTIONS; 0 leaves libcurl's default (unlimited).
    int max_host_connections;
    /// The timed window, CLOCK_MONOTONIC ns (rawcurl_now_ns); requests before it are the warm-up.
    uint64_t window_start_ns;
    uint64_t window_end_ns;
} rawcurl_options;

/// Sequential GETs on one reused easy handle (one keep-alive connection).
int rawcurl_sequential(const rawcurl_options *options, rawcurl_result *result);

/// `concurrency` GETs always in flight on one multi handle; each finished handle is re-added.
int rawcurl_concurrent(const rawcurl_options *options, rawcurl_result *result);

/// Sequential GETs with `Connection: close` on one easy handle: a new TCP + TLS connection per
/// request (TLS session resumption left at libcurl's default, on).
int rawcurl_handshakes(const rawcurl_options *options, rawcurl_result *result);

/// One GET written to `path` the way Curlfire's FileSink writes a download: each block libcurl
/// delivers from its 512 KiB receive buffer goes straight to the file with pwrite(2) at its offset.
int rawcurl_download(const char *url, const char *path, rawcurl_result *result);

/// One POST of the file at `path` (streamed with read(2)), `Expect:` disabled.
int rawcurl_upload(const char *url, const char *path, rawcurl_result *result);

/// A reusable easy handle that fetches whole bodies into memory (JSON and cold start scenarios).
typedef struct rawcurl_fetcher rawcurl_fetcher;

rawcurl_fetcher *rawcurl_fetcher_create(void);
/// GETs `url`; on success `*body` points at `*length` bytes owned by the fetcher, valid until the
/// next fetch. Returns the HTTP status, or -1 with `error` filled (at least 256 bytes).
long rawcurl_fetch(rawcurl_fetcher *fetcher, const char *url, const uint8_t **body, size_t *length, char *error);
void rawcurl_fetcher_destroy(rawcurl_fetcher *fetcher);

/// CLOCK_MONOTONIC in nanoseconds (the clock the driver and every client measure with).
uint64_t rawcurl_now_ns(void);

/// curl_version(): libcurl and its TLS, HTTP/2 and compression libraries.
const char *rawcurl_version(void);

/// The floor of a Swift API over a libcurl engine thread (rawcurl_handoff.c): libcurl on a thread
/// of its own, requests submitted from any thread, each loop turn's finished requests handed back
/// through `done` (on the engine thread, one call each, at the end of the turn) and then `turn_end`.
typedef struct rawcurl_handoff rawcurl_handoff;
typedef void (*rawcurl_handoff_done)(void *context, int ok);
typedef void (*rawcurl_handoff_turn_end)(void *turn_context);

/// `headers`: header lines separated by newlines, sent with every request (NULL: libcurl's own only).
/// `each`: 1 hands each finished request back as libcurl reports it rather than at the end of the turn.
rawcurl_handoff *rawcurl_handoff_create(const rawcurl_options *options, const char *headers, int each,
                                        rawcurl_handoff_done done, rawcurl_handoff_turn_end turn_end,
                                        void *turn_context);
/// Starts a GET of the handoff's URL; `context` comes back to `done`.
void rawcurl_handoff_submit(rawcurl_handoff *handoff, void *context);
/// Stops the engine once nothing is in flight; returns the body bytes received.
int64_t rawcurl_handoff_destroy(rawcurl_handoff *handoff);
