import Foundation

/// `eventstream`: the server-sent event parser fed a body split at a fuzzed point, with a fuzzed
/// event size limit.
///
/// Invariants: with no effective limit, the events equal those of a String-based model of the
/// WHATWG HTML "interpret an event stream" steps (BOM, CR/LF/CRLF, fields, dispatch), whole or
/// split; with a small limit the parser either throws `eventTooLarge` or gives the same events;
/// nothing traps.
enum EventStreamTarget {
    static func run(_ input: FuzzInput) {
        var input = input
        let split = input.choose(256)
        let limit = 1 + input.choose(64)
        let bytes = input.remaining
        let expected = model(bytes)
        let cut = min(split, bytes.count)
        for pieces in [[bytes[...]], [bytes[..<cut], bytes[cut...]]] {
            var parser = ServerSentEventParser(maximumEventSize: bytes.count + 1)
            var events: [ServerSentEvent] = []
            do {
                for piece in pieces { events += try parser.parse(Data(piece)) }
            } catch {
                FuzzCheck.require(false, "threw \(error) below the limit")
            }
            FuzzCheck.require(events == expected, "\(pieces.count) piece(s), cut at \(cut): \(events) != model \(expected)")
        }
        var small = ServerSentEventParser(maximumEventSize: limit)
        do {
            let events = try small.parse(Data(bytes))
            FuzzCheck.require(events == expected, "limit \(limit) changed the events without throwing")
        } catch CurlfireError.eventStreamFailed(reason: .eventTooLarge(let reported)) {
            FuzzCheck.require(reported == limit, "reported limit \(reported) != \(limit)")
        } catch {
            FuzzCheck.require(false, "unexpected error \(error)")
        }
    }

    /// The standard's steps over decoded text, code point by code point (never by `Character`: a
    /// combining mark after `:` or a space would join it into one grapheme): complete lines only,
    /// fields, dispatch on a blank line.
    static func model(_ bytes: [UInt8]) -> [ServerSentEvent] {
        var body = bytes[...]
        if body.starts(with: [0xEF, 0xBB, 0xBF]) { body = body.dropFirst(3) }
        let scalars = Array(String(decoding: body, as: UTF8.self).unicodeScalars)
        var lines: [[Unicode.Scalar]] = []
        var line: [Unicode.Scalar] = []
        var index = 0
        while index < scalars.count {
            let scalar = scalars[index]
            if scalar == "\r" || scalar == "\n" {
                lines.append(line)
                line = []
                if scalar == "\r", index + 1 < scalars.count, scalars[index + 1] == "\n" { index += 1 }
            } else {
                line.append(scalar)
            }
            index += 1
        }
        func text(_ scalars: ArraySlice<Unicode.Scalar>) -> String {
            var view = String.UnicodeScalarView()
            view.append(contentsOf: scalars)
            return String(view)
        }
        var events: [ServerSentEvent] = []
        var data: [Unicode.Scalar] = []
        var type: [Unicode.Scalar] = []
        var lastID = ""
        var retry: Int?
        for line in lines {
            if line.isEmpty {
                if !data.isEmpty {
                    data.removeLast()
                    events.append(ServerSentEvent(id: lastID.isEmpty ? nil : lastID,
                                                  event: type.isEmpty ? "message" : text(type[...]),
                                                  data: text(data[...]), retry: retry))
                }
                data = []
                type = []
                retry = nil
                continue
            }
            if line[0] == ":" { continue }
            let colon = line.firstIndex(of: ":")
            let field = line[..<(colon ?? line.endIndex)]
            var value = colon.map { line[($0 + 1)...] } ?? []
            if value.first == " " { value = value.dropFirst() }
            if field.elementsEqual("data".unicodeScalars) {
                data += value + ["\n"]
            } else if field.elementsEqual("event".unicodeScalars) {
                type = Array(value)
            } else if field.elementsEqual("id".unicodeScalars) {
                if !value.contains("\u{0}") { lastID = text(value) }
            } else if field.elementsEqual("retry".unicodeScalars),
                      !value.isEmpty, value.allSatisfy({ $0.value >= 0x30 && $0.value <= 0x39 }) {
                retry = value.reduce(0) { total, digit in
                    total > (Int.max - 9) / 10 ? Int.max : total * 10 + Int(digit.value - 0x30)
                }
            }
        }
        return events
    }
}
