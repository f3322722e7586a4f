// An LD_PRELOAD shim that counts heap allocations (malloc, calloc, realloc, posix_memalign,
// aligned_alloc, memalign) for the benchmarks' "allocations per request" column
// (docs/Performance.md). It forwards to glibc's own entry points (__libc_malloc and friends), so it
// needs no dlsym bootstrap, and counts per thread in a slot of its own (no shared cache line on the
// hot path); curlfire_bench_allocations() sums the slots. CurlfireBench finds that function with
// dlsym when the shim is loaded and reads it at both ends of the timed window.
//
// Built by scripts/bench.sh (and `make bench-build`): cc -O2 -shared -fPIC -o alloc-counter.so alloc-counter.c
#include <errno.h>
#include <stddef.h>
#include <stdint.h>

extern void *__libc_malloc(size_t size);
extern void *__libc_calloc(size_t count, size_t size);
extern void *__libc_realloc(void *pointer, size_t size);
extern void *__libc_memalign(size_t alignment, size_t size);

#define SLOTS 4096
#define STRIDE 8 /* one 64-byte cache line per slot */
static long counts[SLOTS * STRIDE];
static long overflow; /* threads past SLOTS share this one, atomically */
static int used;
static __thread long *mine __attribute__((tls_model("initial-exec")));

static inline void count(void) {
    if (__builtin_expect(mine == NULL, 0)) {
        int slot = __atomic_fetch_add(&used, 1, __ATOMIC_RELAXED);
        mine = slot < SLOTS ? &counts[slot * STRIDE] : &overflow;
    }
    if (mine == &overflow) {
        __atomic_fetch_add(&overflow, 1, __ATOMIC_RELAXED);
    } else {
        __atomic_store_n(mine, *mine + 1, __ATOMIC_RELAXED); /* only this thread writes its slot */
    }
}

/// Allocations so far, every thread (a thread that exited keeps its slot).
long curlfire_bench_allocations(void) {
    int slots = __atomic_load_n(&used, __ATOMIC_RELAXED);
    if (slots > SLOTS) slots = SLOTS;
    long total = __atomic_load_n(&overflow, __ATOMIC_RELAXED);
    for (int i = 0; i < slots; i++) total += __atomic_load_n(&counts[i * STRIDE], __ATOMIC_RELAXED);
    return total;
}

void *malloc(size_t size) { count(); return __libc_malloc(size); }
void *calloc(size_t n, size_t size) { count(); return __libc_calloc(n, size); }
void *realloc(void *pointer, size_t size) { count(); return __libc_realloc(pointer, size); }
void *memalign(size_t alignment, size_t size) { count(); return __libc_memalign(alignment, size); }
void *aligned_alloc(size_t alignment, size_t size) { count(); return __libc_memalign(alignment, size); }

int posix_memalign(void **out, size_t alignment, size_t size) {
    if (alignment < sizeof(void *) || (alignment & (alignment - 1)) != 0) return EINVAL;
    count();
    void *pointer = __libc_memalign(alignment, size);
    if (pointer == NULL && size != 0) return ENOMEM;
    *out = pointer;
    return 0;
}
