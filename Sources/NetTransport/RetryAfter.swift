import Foundation
import NetCore

/// Reads a `Retry-After` value (RFC 9110 §10.2.3): delay-seconds or an HTTP-date in any of the
/// three formats servers send (IMF-fixdate, RFC 850, asctime).
public enum RetryAfter: Sendable {
    /// The wait the value asks for, measured from `now`; a date in the past is zero. `nil` when
    /// the value is neither a number of seconds nor a date.
    public static func delay(from value: String, now: Date = Date()) -> Duration? {
        let trimmed = value.trimmingCharacters(in: .whitespaces)
        if !trimmed.isEmpty, trimmed.allSatisfy(\.isASCII), trimmed.allSatisfy(\.isNumber) {
            // Very long numbers are clamped rather than refused: they all mean "not soon". Leading
            // zeros count for nothing (`0000000000005` is five seconds).
            let digits = trimmed.drop { $0 == "0" }
            return .seconds(digits.count > 12 ? 999_999_999_999 : Int64(digits) ?? 0)
        }
        guard let date = httpDate(trimmed) else { return nil }
        // A date is at most year 9999, but `now` is the caller's: the wait is capped at the
        // longest wait Net keeps so that no `now` can overflow the conversion.
        let seconds = min(date.timeIntervalSince(now), Duration.longestWait.secondsValue)
        return seconds > 0 ? .milliseconds(Int64((seconds * 1000).rounded(.up))) : .zero
    }

    /// Parses an HTTP-date; always GMT.
    public static func httpDate(_ text: String) -> Date? {
        let tokens = text.split(whereSeparator: { $0 == " " || $0 == "," }).map(String.init)
        let day: Int?, month: Int?, year: Int?, time: String
        switch tokens.count {
        case 6 where tokens[5] == "GMT":
            // IMF-fixdate: Sun, 06 Nov 1994 08:49:37 GMT
            (day, month, year, time) = (Int(tokens[1]), monthNumber(tokens[2]), Int(tokens[3]), tokens[4])
        case 4 where tokens[3] == "GMT":
            // RFC 850: Sunday, 06-Nov-94 08:49:37 GMT (two-digit year: 70-99 are 19xx)
            let parts = tokens[1].split(separator: "-").map(String.init)
            guard parts.count == 3, parts[2].count == 2, let shortYear = Int(parts[2]) else { return nil }
            (day, month, year, time) = (Int(parts[0]), monthNumber(parts[1]), shortYear < 70 ? 2000 + shortYear : 1900 + shortYear, tokens[2])
        case 5:
            // asctime: Sun Nov  6 08:49:37 1994
            (day, month, year, time) = (Int(tokens[2]), monthNumber(tokens[1]), Int(tokens[4]), tokens[3])
        default:
            return nil
        }
        let clock = time.split(separator: ":").compactMap { Int($0) }
        // RFC 9110's years have four digits: a longer one from a hostile server would overflow
        // the day count.
        guard let day, let month, let year, (1...9999).contains(year), clock.count == 3, (1...31).contains(day),
              (0...23).contains(clock[0]), (0...59).contains(clock[1]), (0...60).contains(clock[2]) else { return nil }
        let days = CivilDate.daysSinceEpoch(year: year, month: month, day: day)
        return Date(timeIntervalSince1970: Double(days * 86_400 + clock[0] * 3_600 + clock[1] * 60 + clock[2]))
    }

    private static func monthNumber(_ name: String) -> Int? {
        let months = ["jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"]
        return months.firstIndex(of: name.lowercased()).map { $0 + 1 }
    }
}
