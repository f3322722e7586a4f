#if CLI
import Dispatch
#if canImport(Glibc)
import Glibc
#endif

/// Turns Ctrl-C (SIGINT) into a call of `action` (cancelling the download, so its bytes can be
/// kept) instead of killing the process, until ``stop()``.
final class InterruptHandler {
    private let source: any DispatchSourceSignal

    init(_ action: @escaping @Sendable () -> Void) {
        signal(SIGINT, SIG_IGN)
        source = DispatchSource.makeSignalSource(signal: SIGINT, queue: .global())
        source.setEventHandler(handler: action)
        source.resume()
    }

    /// Restores the default SIGINT behaviour.
    func stop() {
        source.cancel()
        signal(SIGINT, SIG_DFL)
    }
}
#endif
