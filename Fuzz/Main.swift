import Foundation

/// The fuzz target chosen by `CURLFIRE_FUZZ_TARGET`, resolved once.
nonisolated(unsafe) private var selectedTarget: ((FuzzInput) -> Void)?

/// libFuzzer's entry point: hands the bytes to the target named by `CURLFIRE_FUZZ_TARGET`.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzTestOneInput(_ start: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    let target: (FuzzInput) -> Void
    if let selectedTarget {
        target = selectedTarget
    } else {
        target = FuzzTargets.resolve()
        selectedTarget = target
    }
    let bytes = start.map { Array(UnsafeBufferPointer(start: $0, count: count)) } ?? []
    target(FuzzInput(bytes))
    return 0
}
