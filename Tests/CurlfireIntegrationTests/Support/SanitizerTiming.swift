import Foundation

/// How much slower this test process runs than a plain build: 3 under a sanitizer (the Makefile's
/// `sanitize-*` targets set `CURLFIRE_SANITIZER`; with leak checking on, every allocation unwinds its
/// whole stack, so a TLS handshake alone can take a second or more), 1 otherwise. Time bounds that
/// prove "fast enough", and timeouts that must not fire before the event under test, scale by it.
let sanitizerSlowdown: Double = {
    let sanitizer = ProcessInfo.processInfo.environment["CURLFIRE_SANITIZER"] ?? ""
    return sanitizer.isEmpty ? 1 : 3
}()
