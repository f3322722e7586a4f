// The floor of a Swift API over a libcurl engine thread: raw libcurl on a thread of its own (one
// multi handle, pooled easy handles, nothing per request but the transfer), with requests
// submitted from other threads and each loop turn's finished requests handed back in one burst.
// What a client built this way cannot go below; Curlfire's own cost is what it adds on top.
#include "rawcurl.h"

#include <curl/curl.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

struct rawcurl_handoff {
    rawcurl_options options;
    rawcurl_handoff_done done;
    rawcurl_handoff_turn_end turn_end;
    void *turn_context;
    CURLM *multi;
    pthread_t thread;
    pthread_mutex_t lock;
    // Submitted contexts, swapped with `taken` under the lock each turn.
    void **pending;
    size_t pending_count, pending_capacity;
    void **taken;
    size_t taken_capacity;
    int sleeping;
    int stopping;
    // Engine-thread only: idle easy handles.
    CURL **idle;
    size_t idle_count, idle_capacity;
    int64_t bytes;
    long in_flight;
    // Engine-thread only: this turn's finished requests, handed back at the end of the turn.
    void **finished;
    int *finished_ok;
    size_t finished_count, finished_capacity;
    // 1: each finished request is handed back as libcurl reports it, not at the end of the turn.
    int each;
    struct curl_slist *headers;
};

static size_t handoff_count_body(char *data, size_t size, size_t count, void *userdata) {
    (void)data;
    *(int64_t *)userdata += (int64_t)(size * count);
    return size * count;
}

static CURL *handoff_take_easy(struct rawcurl_handoff *h) {
    if (h->idle_count > 0) return h->idle[--h->idle_count];
    CURL *easy = curl_easy_init();
    curl_easy_setopt(easy, CURLOPT_URL, h->options.url);
    curl_easy_setopt(easy, CURLOPT_NOSIGNAL, 1L);
    curl_easy_setopt(easy, CURLOPT_PROXY, "");
    curl_easy_setopt(easy, CURLOPT_WRITEFUNCTION, handoff_count_body);
    curl_easy_setopt(easy, CURLOPT_WRITEDATA, &h->bytes);
    curl_easy_setopt(easy, CURLOPT_HTTP_VERSION, h->options.http2 ? CURL_HTTP_VERSION_2TLS : CURL_HTTP_VERSION_1_1);
    if (h->options.http2) curl_easy_setopt(easy, CURLOPT_PIPEWAIT, 1L);
    if (h->headers) curl_easy_setopt(easy, CURLOPT_HTTPHEADER, h->headers);
    if (h->options.cainfo) {
        curl_easy_setopt(easy, CURLOPT_CAINFO, h->options.cainfo);
        curl_easy_setopt(easy, CURLOPT_CAPATH, NULL);
    }
    return easy;
}

static void handoff_recycle(struct rawcurl_handoff *h, CURL *easy) {
    if (h->idle_count == h->idle_capacity) {
        h->idle_capacity = h->idle_capacity ? 2 * h->idle_capacity : 64;
        h->idle = realloc(h->idle, h->idle_capacity * sizeof *h->idle);
    }
    h->idle[h->idle_count++] = easy;
}

static void *handoff_run(void *argument) {
    struct rawcurl_handoff *h = argument;
    for (;;) {
        pthread_mutex_lock(&h->lock);
        void **taken = h->pending;
        size_t count = h->pending_count;
        size_t capacity = h->pending_capacity;
        h->pending = h->taken;
        h->pending_capacity = h->taken_capacity;
        h->pending_count = 0;
        h->taken = taken;
        h->taken_capacity = capacity;
        int stopping = h->stopping;
        pthread_mutex_unlock(&h->lock);
        for (size_t i = 0; i < count; i++) {
            CURL *easy = handoff_take_easy(h);
            curl_easy_setopt(easy, CURLOPT_PRIVATE, taken[i]);
            curl_multi_add_handle(h->multi, easy);
            h->in_flight += 1;
        }
        if (stopping && h->in_flight == 0) break;
        int running = 0;
        curl_multi_perform(h->multi, &running);
        CURLMsg *message;
        int queued = 0;
        int finished = 0;
        while ((message = curl_multi_info_read(h->multi, &queued))) {
            if (message->msg != CURLMSG_DONE) continue;
            CURL *easy = message->easy_handle;
            long status = 0;
            curl_easy_getinfo(easy, CURLINFO_RESPONSE_CODE, &status);
            int ok = message->data.result == CURLE_OK && (status == 200 || status == 204);
            void *context = NULL;
            curl_easy_getinfo(easy, CURLINFO_PRIVATE, (char **)&context);
            curl_multi_remove_handle(h->multi, easy);
            handoff_recycle(h, easy);
            h->in_flight -= 1;
            if (h->each) {
                h->done(context, ok);
                finished = 1;
                continue;
            }
            if (h->finished_count == h->finished_capacity) {
                h->finished_capacity = h->finished_capacity ? 2 * h->finished_capacity : 64;
                h->finished = realloc(h->finished, h->finished_capacity * sizeof *h->finished);
                h->finished_ok = realloc(h->finished_ok, h->finished_capacity * sizeof *h->finished_ok);
            }
            h->finished[h->finished_count] = context;
            h->finished_ok[h->finished_count] = ok;
            h->finished_count += 1;
            finished = 1;
        }
        for (size_t i = 0; i < h->finished_count; i++) h->done(h->finished[i], h->finished_ok[i]);
        h->finished_count = 0;
        if (finished && h->turn_end) h->turn_end(h->turn_context);
        pthread_mutex_lock(&h->lock);
        int more = h->pending_count > 0 || h->stopping;
        h->sleeping = !more;
        pthread_mutex_unlock(&h->lock);
        if (more) continue;
        curl_multi_poll(h->multi, NULL, 0, 100, NULL);
        pthread_mutex_lock(&h->lock);
        h->sleeping = 0;
        pthread_mutex_unlock(&h->lock);
    }
    return NULL;
}

rawcurl_handoff *rawcurl_handoff_create(const rawcurl_options *options, const char *headers, int each,
                                        rawcurl_handoff_done done, rawcurl_handoff_turn_end turn_end,
                                        void *turn_context) {
    curl_global_init(CURL_GLOBAL_ALL);
    struct rawcurl_handoff *h = calloc(1, sizeof *h);
    h->options = *options;
    h->options.url = strdup(options->url);
    h->options.cainfo = options->cainfo ? strdup(options->cainfo) : NULL;
    h->done = done;
    h->turn_end = turn_end;
    h->turn_context = turn_context;
    h->each = each;
    if (headers) {
        char *copy = strdup(headers);
        char *save = NULL;
        for (char *line = strtok_r(copy, "\n", &save); line; line = strtok_r(NULL, "\n", &save))
            h->headers = curl_slist_append(h->headers, line);
        free(copy);
    }
    h->multi = curl_multi_init();
    if (options->max_host_connections > 0)
        curl_multi_setopt(h->multi, CURLMOPT_MAX_HOST_CONNECTIONS, (long)options->max_host_connections);
    pthread_mutex_init(&h->lock, NULL);
    pthread_create(&h->thread, NULL, handoff_run, h);
    return h;
}

void rawcurl_handoff_submit(rawcurl_handoff *h, void *context) {
    pthread_mutex_lock(&h->lock);
    if (h->pending_count == h->pending_capacity) {
        h->pending_capacity = h->pending_capacity ? 2 * h->pending_capacity : 64;
        h->pending = realloc(h->pending, h->pending_capacity * sizeof *h->pending);
    }
    h->pending[h->pending_count++] = context;
    int wake = h->sleeping;
    h->sleeping = 0;
    pthread_mutex_unlock(&h->lock);
    if (wake) curl_multi_wakeup(h->multi);
}

int64_t rawcurl_handoff_destroy(rawcurl_handoff *h) {
    pthread_mutex_lock(&h->lock);
    h->stopping = 1;
    int wake = h->sleeping;
    pthread_mutex_unlock(&h->lock);
    if (wake) curl_multi_wakeup(h->multi);
    pthread_join(h->thread, NULL);
    for (size_t i = 0; i < h->idle_count; i++) curl_easy_cleanup(h->idle[i]);
    curl_multi_cleanup(h->multi);
    int64_t bytes = h->bytes;
    free(h->idle);
    free(h->pending);
    free(h->taken);
    free(h->finished);
    free(h->finished_ok);
    free((char *)h->options.url);
    free((char *)h->options.cainfo);
    curl_slist_free_all(h->headers);
    pthread_mutex_destroy(&h->lock);
    free(h);
    return bytes;
}
