import Foundation

/// Parses HTTP dates (RFC 9110 §5.6.7) without `DateFormatter`: IMF-fixdate
/// (`Sun, 06 Nov 1994 08:49:37 GMT`), the obsolete RFC 850 form (`Sunday, 06-Nov-94 08:49:37 GMT`)
/// and asctime (`Sun Nov  6 08:49:37 1994`). Anything else is `nil` (an invalid `Expires` then
/// means "already expired", RFC 9111 §5.3).
enum HTTPDate {
    private static let months = ["jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"]

    /// The date, or `nil` when `text` is not an HTTP date.
    static func parse(_ text: String) -> Date? {
        if let date = parseIMFFixdate(text) { return date }
        return parseLeniently(text)
    }

    /// The preferred form, `Sun, 06 Nov 1994 08:49:37 GMT` (exactly 29 bytes), read byte by byte:
    /// it is what servers send, and a cache lookup parses `Date` (and maybe `Expires`,
    /// `Last-Modified`) every time.
    static func parseIMFFixdate(_ text: String) -> Date? {
        var text = text
        return text.withUTF8 { bytes -> Date? in
            guard bytes.count == 29, bytes[3] == 0x2C, bytes[4] == 0x20, bytes[7] == 0x20, bytes[11] == 0x20,
                  bytes[16] == 0x20, bytes[19] == 0x3A, bytes[22] == 0x3A, bytes[25] == 0x20,
                  bytes[26] == 0x47, bytes[27] == 0x4D, bytes[28] == 0x54 else { return nil }
            func number(_ start: Int, _ count: Int) -> Int? {
                var value = 0
                for index in start..<(start + count) {
                    let byte = bytes[index]
                    guard byte >= 0x30, byte <= 0x39 else { return nil }
                    value = value * 10 + Int(byte - 0x30)
                }
                return value
            }
            let name = [bytes[8] | 0x20, bytes[9] | 0x20, bytes[10] | 0x20]
            guard let day = number(5, 2), let year = number(12, 4), let hour = number(17, 2),
                  let minute = number(20, 2), let second = number(23, 2),
                  let monthIndex = months.firstIndex(where: { Array($0.utf8) == name }),
                  (1...31).contains(day), hour < 24, minute < 60, second < 61 else { return nil }
            let days = daysFromCivil(year: year, month: monthIndex + 1, day: day)
            return Date(timeIntervalSince1970: Double(days) * 86_400 + Double(hour * 3600 + minute * 60 + second))
        }
    }

    /// Every form: IMF-fixdate, RFC 850, asctime.
    private static func parseLeniently(_ text: String) -> Date? {
        let tokens = text.split(whereSeparator: { $0 == " " || $0 == "," || $0 == "-" }).map(String.init)
        var day: Int?, month: Int?, year: Int?, time: (Int, Int, Int)?
        for token in tokens.dropFirst() { // the first token is the weekday
            if let parsed = parseTime(token) {
                time = parsed
            } else if let index = months.firstIndex(of: token.lowercased()) {
                month = index + 1
            } else if let number = Int(token), token.utf8.allSatisfy({ $0 >= 48 && $0 <= 57 }) {
                if day == nil, token.count <= 2 { day = number } else { year = number }
            } else if token.uppercased() != "GMT" {
                return nil
            }
        }
        guard let day, let month, var year, let (hour, minute, second) = time,
              (1...31).contains(day), hour < 24, minute < 60, second < 61 else { return nil }
        if year < 100 { year += year < 70 ? 2000 : 1900 } // RFC 850 two-digit years (RFC 9110 §5.6.7)
        guard year <= 9999 else { return nil } // and no arithmetic overflow on absurd years
        let days = daysFromCivil(year: year, month: month, day: day)
        let seconds = Double(days) * 86_400 + Double(hour * 3600 + minute * 60 + second)
        return Date(timeIntervalSince1970: seconds)
    }

    private static func parseTime(_ token: String) -> (Int, Int, Int)? {
        let parts = token.split(separator: ":")
        guard parts.count == 3, let hour = Int(parts[0]), let minute = Int(parts[1]), let second = Int(parts[2]) else {
            return nil
        }
        return (hour, minute, second)
    }

    /// Days since 1970-01-01 of a proleptic Gregorian date (Howard Hinnant's algorithm).
    private static func daysFromCivil(year: Int, month: Int, day: Int) -> Int {
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yearOfEra = y - era * 400
        let dayOfYear = (153 * (month + (month > 2 ? -3 : 9)) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }
}
