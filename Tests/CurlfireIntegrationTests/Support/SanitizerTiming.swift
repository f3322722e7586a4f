import Foundation

/// How much slower this test process runs than a plain build, from `CURLFIRE_SANITIZER` (set by the
/// Makefile's `sanitize-*` targets): 15 under `leaks` (`make sanitize-leaks`: every allocation
/// unwinds its whole stack, and the run takes about 5 times as long as the AddressSanitizer one, so
/// a TLS handshake alone can take several seconds), 3 under another sanitizer, 1 otherwise. Time
/// bounds that prove "fast enough", and timeouts that must not fire before the event under test,
/// scale by it.
let sanitizerSlowdown: Double = {
    switch ProcessInfo.processInfo.environment["CURLFIRE_SANITIZER"] ?? "" {
    case "": 1
    case "leaks": 15
    default: 3
    }
}()
