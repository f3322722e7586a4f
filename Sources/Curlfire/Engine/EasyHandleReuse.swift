internal import CCurl

/// One libcurl option value an ``AttemptPlan`` wrote on an easy handle.
enum CurlOptionValue: Equatable {
    case long(Int)
    case string(String?)
    case offset(Int64)
    case blob([UInt8])
    /// `CURLOPT_SSL_CTX_FUNCTION` + `CURLOPT_SSL_CTX_DATA` for this trust evaluation (by identity;
    /// the engine keeps every trust bridge alive as long as its multi handle).
    case trust(ObjectIdentifier)
}

/// The options the last plan wrote on a pooled easy handle that was not reset after its attempt,
/// in the order written: the next attempt that writes the same options, in the same order, sets
/// only the values that differ (the URL, usually) instead of `curl_easy_reset` and every option
/// again — libcurl copies each string option, and its reset copies its own defaults back in.
///
/// Only plain attempts keep one (``EasyHandleReuse/isEligible(_:replays:)``): no credentials (libcurl
/// keeps authentication state on a handle), no request body, no progress, no per-attempt host lists,
/// not a replay; and only after an attempt that completed. Engine thread only.
struct EasyHandleRecord {
    var entries: [(option: CURLoption, value: CurlOptionValue)] = []
}

/// How an attempt's plan is written on a pooled handle: again from libcurl's defaults, or only
/// what changed since the handle's last plan.
enum EasyHandleReuse {
    /// Whether an attempt may run on a handle configured for an earlier one without a reset.
    static func isEligible(_ plan: AttemptPlan, replays: Int) -> Bool {
        let options = plan.options
        return replays == 0 && options.credential == nil && !plan.usesBodyCallbacks && !plan.hasBody
            && !options.reportsProgress && options.connectTo.isEmpty && options.resolveEntries.isEmpty
    }

    /// Writes `plan` through `writer` on `easy`. `record` is the handle's record on entry (`nil`:
    /// the handle is new or was reset) and, on return, the record to keep with it (`nil` when the
    /// handle must be reset before it is used again).
    ///
    /// - Returns: Whether the plan was written on a handle at libcurl's defaults (new, reset before,
    ///   or reset here): `false` when the handle kept its earlier options, so what the engine sets
    ///   the same on every attempt of a handle (callbacks, error buffer, share handle) is still set.
    @discardableResult
    static func write<Writer: CurlOptionWriter>(_ plan: AttemptPlan, eligible: Bool, easy: UnsafeMutableRawPointer,
                                                to writer: inout Writer, record: inout EasyHandleRecord?) -> Bool {
        if let previous = record {
            record = nil // `previous` is now the entries' only owner: updating them copies nothing
            if eligible, sameShape(plan, previous) {
                var changed = ChangedOptionWriter(base: writer, record: consume previous)
                plan.write(to: &changed)
                writer = changed.base
                record = changed.record
                return false
            }
            reset(easy) // another shape of request: start again from libcurl's defaults
        }
        guard eligible else {
            plan.write(to: &writer)
            return true
        }
        var recording = RecordingOptionWriter(base: writer)
        plan.write(to: &recording)
        writer = recording.base
        record = recording.record
        return true
    }

    /// Whether `plan` writes the options of `previous`, in its order.
    private static func sameShape(_ plan: AttemptPlan, _ previous: EasyHandleRecord) -> Bool {
        var shape = OptionShapeCheck(entries: previous.entries)
        plan.write(to: &shape)
        return shape.matches
    }

    /// Puts a handle back to libcurl's defaults.
    static func reset(_ easy: UnsafeMutableRawPointer) {
        // libcurl 7.88's reset drops the CURLOPT_COOKIEFILE list without freeing it (17 bytes a
        // request, found by AddressSanitizer); setting the option to NULL frees it first.
        _ = cfcurl_easy_setopt_ptr(easy, CURLOPT_COOKIEFILE, nil)
        curl_easy_reset(easy)
    }

    /// Clears the pointers into a finished attempt from a handle pooled without a reset (its header
    /// list is freed with the attempt); the next attempt sets its own. The error buffer is the
    /// handle's own (PooledEasyHandle.swift) and stays.
    static func park(_ easy: UnsafeMutableRawPointer) {
        _ = cfcurl_easy_setopt_slist(easy, CURLOPT_HTTPHEADER, nil)
        _ = cfcurl_easy_setopt_ptr(easy, CURLOPT_PRIVATE, nil)
    }
}

/// Forwards every option to `base` and records it.
struct RecordingOptionWriter<Base: CurlOptionWriter>: CurlOptionWriter {
    var base: Base
    var record = EasyHandleRecord()

    mutating func long(_ option: CURLoption, _ value: Int) {
        base.long(option, value)
        record.entries.append((option, .long(value)))
    }

    mutating func string(_ option: CURLoption, _ value: String?) {
        base.string(option, value)
        record.entries.append((option, .string(value)))
    }

    mutating func offset(_ option: CURLoption, _ value: Int64) {
        base.offset(option, value)
        record.entries.append((option, .offset(value)))
    }

    mutating func blob(_ option: CURLoption, _ value: [UInt8]) {
        base.blob(option, value)
        record.entries.append((option, .blob(value)))
    }

    mutating func trustEvaluation(_ trust: any TLSContextConfiguring) {
        base.trustEvaluation(trust)
        record.entries.append((CURLOPT_SSL_CTX_FUNCTION, .trust(ObjectIdentifier(trust as AnyObject))))
    }
}

/// Whether a plan writes the same options in the same order as a record (values may differ).
/// Sets nothing and allocates nothing.
struct OptionShapeCheck: CurlOptionWriter {
    let entries: [(option: CURLoption, value: CurlOptionValue)]
    private var index = 0
    private var sameSoFar = true

    init(entries: [(option: CURLoption, value: CurlOptionValue)]) { self.entries = entries }

    /// Whether every option matched and none is missing.
    var matches: Bool { sameSoFar && index == entries.count }

    private mutating func note(_ option: CURLoption, _ sameKind: (CurlOptionValue) -> Bool) {
        guard sameSoFar, index < entries.count, entries[index].option == option, sameKind(entries[index].value) else {
            sameSoFar = false
            return
        }
        index += 1
    }

    mutating func long(_ option: CURLoption, _ value: Int) {
        note(option) { if case .long = $0 { true } else { false } }
    }

    mutating func string(_ option: CURLoption, _ value: String?) {
        note(option) { if case .string = $0 { true } else { false } }
    }

    mutating func offset(_ option: CURLoption, _ value: Int64) {
        note(option) { if case .offset = $0 { true } else { false } }
    }

    mutating func blob(_ option: CURLoption, _ value: [UInt8]) {
        note(option) { if case .blob = $0 { true } else { false } }
    }

    mutating func trustEvaluation(_ trust: any TLSContextConfiguring) {
        note(CURLOPT_SSL_CTX_FUNCTION) { if case .trust = $0 { true } else { false } }
    }
}

/// Sets only the options whose value differs from the record, and updates the record. Used only
/// after ``OptionShapeCheck`` matched, so the n-th option written is the record's n-th.
struct ChangedOptionWriter<Base: CurlOptionWriter>: CurlOptionWriter {
    var base: Base
    var record: EasyHandleRecord
    private var index = 0

    init(base: Base, record: EasyHandleRecord) {
        self.base = base
        self.record = record
    }

    /// Whether the next entry differs from `value`; records `value` when it does.
    private mutating func changes(_ value: CurlOptionValue) -> Bool {
        defer { index += 1 }
        guard record.entries[index].value != value else { return false }
        record.entries[index].value = value
        return true
    }

    mutating func long(_ option: CURLoption, _ value: Int) {
        if changes(.long(value)) { base.long(option, value) }
    }

    mutating func string(_ option: CURLoption, _ value: String?) {
        if changes(.string(value)) { base.string(option, value) }
    }

    mutating func offset(_ option: CURLoption, _ value: Int64) {
        if changes(.offset(value)) { base.offset(option, value) }
    }

    mutating func blob(_ option: CURLoption, _ value: [UInt8]) {
        if changes(.blob(value)) { base.blob(option, value) }
    }

    mutating func trustEvaluation(_ trust: any TLSContextConfiguring) {
        if changes(.trust(ObjectIdentifier(trust as AnyObject))) { base.trustEvaluation(trust) }
    }
}
