// libcurl from C: what a hand-written client on the same libcurl achieves (the benchmarks' ceiling).
#define _GNU_SOURCE
#include "rawcurl.h"

#include <curl/curl.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

uint64_t rawcurl_now_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static pthread_once_t global_once = PTHREAD_ONCE_INIT;
static void global_init(void) { curl_global_init(CURL_GLOBAL_ALL); }
static void ensure_global(void) { pthread_once(&global_once, global_init); }

static void record_error(rawcurl_result *result, const char *message) {
    result->errors += 1;
    if (result->error[0] == 0) snprintf(result->error, sizeof result->error, "%s", message);
}

static size_t count_body(char *data, size_t size, size_t count, void *userdata) {
    (void)data;
    *(int64_t *)userdata += (int64_t)(size * count);
    return size * count;
}

/// What every handle of these benchmarks sets: no signals, no proxy from the environment.
static void base_options(CURL *easy, const rawcurl_options *options, int64_t *bytes) {
    curl_easy_setopt(easy, CURLOPT_URL, options->url);
    curl_easy_setopt(easy, CURLOPT_NOSIGNAL, 1L);
    curl_easy_setopt(easy, CURLOPT_PROXY, "");
    curl_easy_setopt(easy, CURLOPT_WRITEFUNCTION, count_body);
    curl_easy_setopt(easy, CURLOPT_WRITEDATA, bytes);
    curl_easy_setopt(easy, CURLOPT_HTTP_VERSION, options->http2 ? CURL_HTTP_VERSION_2TLS : CURL_HTTP_VERSION_1_1);
    if (options->http2) curl_easy_setopt(easy, CURLOPT_PIPEWAIT, 1L);
    if (options->cainfo) {
        curl_easy_setopt(easy, CURLOPT_CAINFO, options->cainfo);
        curl_easy_setopt(easy, CURLOPT_CAPATH, NULL);
    }
}

/// Checks one finished transfer; returns 1 when it succeeded with status 200.
static int check_done(CURL *easy, CURLcode code, rawcurl_result *result) {
    if (code != CURLE_OK) {
        record_error(result, curl_easy_strerror(code));
        return 0;
    }
    long status = 0;
    curl_easy_getinfo(easy, CURLINFO_RESPONSE_CODE, &status);
    if (status != 200 && status != 204) {
        char message[64];
        snprintf(message, sizeof message, "HTTP status %ld", status);
        record_error(result, message);
        return 0;
    }
    return 1;
}

int rawcurl_sequential(const rawcurl_options *options, rawcurl_result *result) {
    ensure_global();
    memset(result, 0, sizeof *result);
    CURL *easy = curl_easy_init();
    if (!easy) return -1;
    int64_t bytes = 0;
    base_options(easy, options, &bytes);
    uint64_t window_start = options->window_start_ns, window_end = options->window_end_ns;
    int64_t window_bytes = 0;
    for (;;) {
        uint64_t now = rawcurl_now_ns();
        if (now >= window_end) break;
        int64_t before = bytes;
        CURLcode code = curl_easy_perform(easy);
        int ok = check_done(easy, code, result);
        now = rawcurl_now_ns();
        if (ok && now >= window_start && now <= window_end) {
            result->completed += 1;
            window_bytes += bytes - before;
        }
        if (result->errors > 100) break;
    }
    result->seconds = (double)(window_end - window_start) / 1e9;
    result->bytes = window_bytes;
    curl_easy_cleanup(easy);
    return 0;
}

int rawcurl_concurrent(const rawcurl_options *options, rawcurl_result *result) {
    ensure_global();
    memset(result, 0, sizeof *result);
    int n = options->concurrency > 0 ? options->concurrency : 1;
    CURLM *multi = curl_multi_init();
    if (!multi) return -1;
    if (options->max_host_connections > 0)
        curl_multi_setopt(multi, CURLMOPT_MAX_HOST_CONNECTIONS, (long)options->max_host_connections);
    CURL **handles = calloc((size_t)n, sizeof *handles);
    int64_t *bytes = calloc((size_t)n, sizeof *bytes);
    for (int i = 0; i < n; i++) {
        handles[i] = curl_easy_init();
        base_options(handles[i], options, &bytes[i]);
        curl_easy_setopt(handles[i], CURLOPT_PRIVATE, (void *)(intptr_t)i);
        curl_multi_add_handle(multi, handles[i]);
    }
    uint64_t window_start = options->window_start_ns, window_end = options->window_end_ns;
    int in_flight = n;
    while (in_flight > 0) {
        int running = 0;
        curl_multi_perform(multi, &running);
        CURLMsg *message;
        int queued = 0;
        while ((message = curl_multi_info_read(multi, &queued))) {
            if (message->msg != CURLMSG_DONE) continue;
            CURL *easy = message->easy_handle;
            CURLcode code = message->data.result;
            int ok = check_done(easy, code, result);
            uint64_t now = rawcurl_now_ns();
            if (ok && now >= window_start && now <= window_end) {
                result->completed += 1;
                long connects = 0;
                curl_easy_getinfo(easy, CURLINFO_NUM_CONNECTS, &connects);
                result->connects += connects;
            }
            curl_multi_remove_handle(multi, easy);
            if (now < window_end && result->errors <= 100) {
                curl_multi_add_handle(multi, easy);
            } else {
                in_flight -= 1;
            }
        }
        if (in_flight > 0) curl_multi_poll(multi, NULL, 0, 100, NULL);
    }
    for (int i = 0; i < n; i++) {
        result->bytes += bytes[i];
        curl_easy_cleanup(handles[i]);
    }
    free(handles);
    free(bytes);
    curl_multi_cleanup(multi);
    result->seconds = (double)(window_end - window_start) / 1e9;
    return 0;
}

int rawcurl_handshakes(const rawcurl_options *options, rawcurl_result *result) {
    ensure_global();
    memset(result, 0, sizeof *result);
    CURL *easy = curl_easy_init();
    if (!easy) return -1;
    int64_t bytes = 0;
    rawcurl_options http1 = *options;
    http1.http2 = 0;
    base_options(easy, &http1, &bytes);
    struct curl_slist *headers = curl_slist_append(NULL, "Connection: close");
    curl_easy_setopt(easy, CURLOPT_HTTPHEADER, headers);
    uint64_t window_start = options->window_start_ns, window_end = options->window_end_ns;
    for (;;) {
        uint64_t now = rawcurl_now_ns();
        if (now >= window_end) break;
        CURLcode code = curl_easy_perform(easy);
        int ok = check_done(easy, code, result);
        now = rawcurl_now_ns();
        if (ok && now >= window_start && now <= window_end) {
            result->completed += 1;
            long connects = 0;
            curl_easy_getinfo(easy, CURLINFO_NUM_CONNECTS, &connects);
            result->connects += connects;
        }
        if (result->errors > 100) break;
    }
    result->seconds = (double)(window_end - window_start) / 1e9;
    result->bytes = bytes;
    curl_slist_free_all(headers);
    curl_easy_cleanup(easy);
    return 0;
}

// MARK: - Files

// The download writes like Curlfire's FileSink (Sources/Curlfire/Downloads/FileSink.swift): no copy,
// each block libcurl delivers from its receive buffer goes to the file with pwrite(2) at the next
// offset, straight from the write callback.
typedef struct file_sink {
    int fd;
    int64_t bytes;
    int failed;
} file_sink;

static size_t write_file(char *data, size_t size, size_t count, void *userdata) {
    file_sink *sink = userdata;
    size_t total = size * count, done = 0;
    while (done < total) {
        ssize_t n = pwrite(sink->fd, data + done, total - done, (off_t)(sink->bytes + (int64_t)done));
        if (n < 0) {
            if (errno == EINTR) continue;
            sink->failed = 1;
            return 0;
        }
        done += (size_t)n;
    }
    sink->bytes += (int64_t)total;
    return total;
}

int rawcurl_download(const char *url, const char *path, rawcurl_result *result) {
    ensure_global();
    memset(result, 0, sizeof *result);
    file_sink sink = { .fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0666) };
    if (sink.fd < 0) {
        record_error(result, strerror(errno));
        return -1;
    }
    CURL *easy = curl_easy_init();
    curl_easy_setopt(easy, CURLOPT_URL, url);
    curl_easy_setopt(easy, CURLOPT_NOSIGNAL, 1L);
    curl_easy_setopt(easy, CURLOPT_PROXY, "");
    curl_easy_setopt(easy, CURLOPT_BUFFERSIZE, 512L * 1024L);
    curl_easy_setopt(easy, CURLOPT_WRITEFUNCTION, write_file);
    curl_easy_setopt(easy, CURLOPT_WRITEDATA, &sink);
    uint64_t start = rawcurl_now_ns();
    CURLcode code = curl_easy_perform(easy);
    int ok = check_done(easy, code, result);
    if (sink.failed && ok) {
        record_error(result, "pwrite failed");
        ok = 0;
    }
    if (close(sink.fd) != 0 && ok) {
        record_error(result, strerror(errno));
        ok = 0;
    }
    result->seconds = (double)(rawcurl_now_ns() - start) / 1e9;
    result->bytes = sink.bytes;
    result->completed = ok ? 1 : 0;
    curl_easy_cleanup(easy);
    return ok ? 0 : -1;
}

typedef struct file_source {
    int fd;
    int64_t bytes;
} file_source;

static size_t read_file(char *buffer, size_t size, size_t count, void *userdata) {
    file_source *source = userdata;
    for (;;) {
        ssize_t n = read(source->fd, buffer, size * count);
        if (n < 0 && errno == EINTR) continue;
        if (n < 0) return CURL_READFUNC_ABORT;
        source->bytes += n;
        return (size_t)n;
    }
}

int rawcurl_upload(const char *url, const char *path, rawcurl_result *result) {
    ensure_global();
    memset(result, 0, sizeof *result);
    file_source source = { .fd = open(path, O_RDONLY | O_CLOEXEC) };
    struct stat st;
    if (source.fd < 0 || fstat(source.fd, &st) != 0) {
        record_error(result, strerror(errno));
        if (source.fd >= 0) close(source.fd);
        return -1;
    }
    CURL *easy = curl_easy_init();
    struct curl_slist *headers = curl_slist_append(NULL, "Expect:");
    headers = curl_slist_append(headers, "Content-Type: application/octet-stream");
    int64_t received = 0;
    curl_easy_setopt(easy, CURLOPT_URL, url);
    curl_easy_setopt(easy, CURLOPT_NOSIGNAL, 1L);
    curl_easy_setopt(easy, CURLOPT_PROXY, "");
    curl_easy_setopt(easy, CURLOPT_POST, 1L);
    curl_easy_setopt(easy, CURLOPT_POSTFIELDSIZE_LARGE, (curl_off_t)st.st_size);
    curl_easy_setopt(easy, CURLOPT_READFUNCTION, read_file);
    curl_easy_setopt(easy, CURLOPT_READDATA, &source);
    curl_easy_setopt(easy, CURLOPT_HTTPHEADER, headers);
    curl_easy_setopt(easy, CURLOPT_WRITEFUNCTION, count_body);
    curl_easy_setopt(easy, CURLOPT_WRITEDATA, &received);
    uint64_t start = rawcurl_now_ns();
    CURLcode code = curl_easy_perform(easy);
    int ok = check_done(easy, code, result);
    result->seconds = (double)(rawcurl_now_ns() - start) / 1e9;
    curl_off_t sent = 0;
    curl_easy_getinfo(easy, CURLINFO_SIZE_UPLOAD_T, &sent);
    result->bytes = (int64_t)sent;
    if (ok && sent != (curl_off_t)st.st_size) {
        record_error(result, "upload ended before the whole file was sent");
        ok = 0;
    }
    result->completed = ok ? 1 : 0;
    curl_slist_free_all(headers);
    curl_easy_cleanup(easy);
    close(source.fd);
    return ok ? 0 : -1;
}

// MARK: - Fetcher

struct rawcurl_fetcher {
    CURL *easy;
    uint8_t *data;
    size_t length;
    size_t capacity;
};

static size_t append_body(char *data, size_t size, size_t count, void *userdata) {
    rawcurl_fetcher *fetcher = userdata;
    size_t total = size * count;
    if (fetcher->length + total > fetcher->capacity) {
        size_t capacity = fetcher->capacity ? fetcher->capacity : 16384;
        while (capacity < fetcher->length + total) capacity *= 2;
        uint8_t *grown = realloc(fetcher->data, capacity);
        if (!grown) return 0;
        fetcher->data = grown;
        fetcher->capacity = capacity;
    }
    memcpy(fetcher->data + fetcher->length, data, total);
    fetcher->length += total;
    return total;
}

rawcurl_fetcher *rawcurl_fetcher_create(void) {
    ensure_global();
    rawcurl_fetcher *fetcher = calloc(1, sizeof *fetcher);
    if (!fetcher) return NULL;
    fetcher->easy = curl_easy_init();
    curl_easy_setopt(fetcher->easy, CURLOPT_NOSIGNAL, 1L);
    curl_easy_setopt(fetcher->easy, CURLOPT_PROXY, "");
    curl_easy_setopt(fetcher->easy, CURLOPT_WRITEFUNCTION, append_body);
    curl_easy_setopt(fetcher->easy, CURLOPT_WRITEDATA, fetcher);
    return fetcher;
}

long rawcurl_fetch(rawcurl_fetcher *fetcher, const char *url, const uint8_t **body, size_t *length, char *error) {
    fetcher->length = 0;
    curl_easy_setopt(fetcher->easy, CURLOPT_URL, url);
    CURLcode code = curl_easy_perform(fetcher->easy);
    if (code != CURLE_OK) {
        snprintf(error, 256, "%s", curl_easy_strerror(code));
        return -1;
    }
    long status = 0;
    curl_easy_getinfo(fetcher->easy, CURLINFO_RESPONSE_CODE, &status);
    *body = fetcher->data;
    *length = fetcher->length;
    return status;
}

void rawcurl_fetcher_destroy(rawcurl_fetcher *fetcher) {
    if (!fetcher) return;
    curl_easy_cleanup(fetcher->easy);
    free(fetcher->data);
    free(fetcher);
}

const char *rawcurl_version(void) { return curl_version(); }
