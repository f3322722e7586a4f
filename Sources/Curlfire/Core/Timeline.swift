import Foundation
import FoundationNetworking

/// When each stage of a request happened, as in Alamofire 4.
///
/// Times are `TimeInterval`s since the reference date (Alamofire's `CFAbsoluteTime`). The request
/// starts when the attempt is handed to the engine; the initial response is the first byte of the
/// response; completion is the moment libcurl finished the transfer; serialization completion is
/// when the response serializer returned. For a retried request the Timeline belongs to the last
/// attempt.
public struct Timeline: Sendable, Equatable, CustomStringConvertible, CustomDebugStringConvertible {
    /// When the attempt started.
    public let requestStartTime: TimeInterval
    /// When the first response byte arrived (the completion time when none did).
    public let initialResponseTime: TimeInterval
    /// When the transfer completed.
    public let requestCompletedTime: TimeInterval
    /// When the serializer returned (the completion time for a plain `response`).
    public let serializationCompletedTime: TimeInterval
    /// `initialResponseTime - requestStartTime`.
    public let latency: TimeInterval
    /// `requestCompletedTime - requestStartTime`.
    public let requestDuration: TimeInterval
    /// `serializationCompletedTime - requestCompletedTime`.
    public let serializationDuration: TimeInterval
    /// `serializationCompletedTime - requestStartTime`.
    public let totalDuration: TimeInterval

    /// Creates a Timeline; every duration is derived from the four times. All zero by default.
    public init(
        requestStartTime: TimeInterval = 0.0,
        initialResponseTime: TimeInterval = 0.0,
        requestCompletedTime: TimeInterval = 0.0,
        serializationCompletedTime: TimeInterval = 0.0
    ) {
        self.requestStartTime = requestStartTime
        self.initialResponseTime = initialResponseTime
        self.requestCompletedTime = requestCompletedTime
        self.serializationCompletedTime = serializationCompletedTime
        latency = initialResponseTime - requestStartTime
        requestDuration = requestCompletedTime - requestStartTime
        serializationDuration = serializationCompletedTime - requestCompletedTime
        totalDuration = serializationCompletedTime - requestStartTime
    }

    /// The same Timeline with a new serialization completion time.
    func serialized(at time: TimeInterval) -> Timeline {
        Timeline(requestStartTime: requestStartTime, initialResponseTime: initialResponseTime,
                 requestCompletedTime: requestCompletedTime, serializationCompletedTime: time)
    }

    /// `Timeline: { "Latency": 0.428 secs, "Request Duration": 0.428 secs, … }` — durations with
    /// three decimals, as Alamofire 4 prints them.
    public var description: String {
        let timings = [
            "\"Latency\": " + Self.format(latency) + " secs",
            "\"Request Duration\": " + Self.format(requestDuration) + " secs",
            "\"Serialization Duration\": " + Self.format(serializationDuration) + " secs",
            "\"Total Duration\": " + Self.format(totalDuration) + " secs",
        ]
        return "Timeline: { " + timings.joined(separator: ", ") + " }"
    }

    /// The description preceded by the four absolute times.
    public var debugDescription: String {
        let times = [
            "\"Request Start Time\": " + String(requestStartTime),
            "\"Initial Response Time\": " + String(initialResponseTime),
            "\"Request Completed Time\": " + String(requestCompletedTime),
            "\"Serialization Completed Time\": " + String(serializationCompletedTime),
            "\"Latency\": " + Self.format(latency) + " secs",
            "\"Request Duration\": " + Self.format(requestDuration) + " secs",
            "\"Serialization Duration\": " + Self.format(serializationDuration) + " secs",
            "\"Total Duration\": " + Self.format(totalDuration) + " secs",
        ]
        return "Timeline: { " + times.joined(separator: ", ") + " }"
    }

    private static func format(_ value: TimeInterval) -> String { String(format: "%.3f", value) }
}
