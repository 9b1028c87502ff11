/// A set of HTTP status codes, used to say which responses are acceptable.
///
/// Unlike a `Range<Int>` it can hold any shape: `HTTPCodes(200..<300).union([304])`,
/// `HTTPCodes.success.subtracting([204])`, or `[200, 201]`. It matches with `~=` in `switch`,
/// `if case` and `guard`, against an ``HTTPCode`` or a plain `Int`:
///
/// ```swift
/// switch response.statusCode {
/// case .success: print("fine")
/// case .clientError: print("our fault")
/// default: print("something else")
/// }
/// ```
public struct HTTPCodes: Sendable, Hashable, ExpressibleByArrayLiteral, CustomStringConvertible {
    /// Sorted, non-overlapping, non-adjacent closed intervals: one canonical form per set,
    /// so synthesised equality is set equality.
    private var intervals: [ClosedRange<Int>]

    private init(normalizing ranges: [ClosedRange<Int>]) {
        var merged: [ClosedRange<Int>] = []
        for range in ranges.sorted(by: { $0.lowerBound < $1.lowerBound }) {
            if let last = merged.last, range.lowerBound <= last.upperBound &+ 1 {
                merged[merged.count - 1] = last.lowerBound...max(last.upperBound, range.upperBound)
            } else {
                merged.append(range)
            }
        }
        intervals = merged
    }

    /// The empty set.
    public init() { intervals = [] }

    /// The codes in a half-open range, such as `200..<300`.
    public init(_ range: Range<Int>) {
        self.init(normalizing: range.isEmpty ? [] : [range.lowerBound...(range.upperBound - 1)])
    }

    /// The codes in a closed range, such as `200...299`.
    public init(_ range: ClosedRange<Int>) { self.init(normalizing: [range]) }

    /// The listed codes.
    public init<S: Sequence>(_ codes: S) where S.Element == HTTPCode {
        self.init(normalizing: codes.map { $0.rawValue...$0.rawValue })
    }

    /// The listed codes, written as integers.
    public init<S: Sequence>(_ codes: S) where S.Element == Int {
        self.init(normalizing: codes.map { $0...$0 })
    }

    /// Allows `let accepted: HTTPCodes = [200, 201, 204]`.
    public init(arrayLiteral elements: HTTPCode...) { self.init(elements) }

    /// 1xx.
    public static let informational = HTTPCodes(100..<200)
    /// 2xx: the default for `validate()`.
    public static let success = HTTPCodes(200..<300)
    /// 3xx.
    public static let redirection = HTTPCodes(300..<400)
    /// 4xx.
    public static let clientError = HTTPCodes(400..<500)
    /// 5xx.
    public static let serverError = HTTPCodes(500..<600)

    /// `true` when the set holds no code.
    public var isEmpty: Bool { intervals.isEmpty }

    /// Whether `code` is in the set.
    public func contains(_ code: HTTPCode) -> Bool { contains(code.rawValue) }

    /// Whether `code` is in the set.
    public func contains(_ code: Int) -> Bool {
        intervals.contains { $0.contains(code) }
    }

    /// The codes in either set.
    public func union(_ other: HTTPCodes) -> HTTPCodes {
        HTTPCodes(normalizing: intervals + other.intervals)
    }

    /// The codes of this set that are not in `other`.
    public func subtracting(_ other: HTTPCodes) -> HTTPCodes {
        var remaining = intervals
        for cut in other.intervals {
            remaining = remaining.flatMap { interval -> [ClosedRange<Int>] in
                guard interval.overlaps(cut) else { return [interval] }
                var pieces: [ClosedRange<Int>] = []
                if interval.lowerBound < cut.lowerBound { pieces.append(interval.lowerBound...(cut.lowerBound - 1)) }
                if interval.upperBound > cut.upperBound { pieces.append((cut.upperBound + 1)...interval.upperBound) }
                return pieces
            }
        }
        return HTTPCodes(normalizing: remaining)
    }

    /// Lists the intervals, such as `200...299, 304`.
    public var description: String {
        if intervals.isEmpty { return "[]" }
        return intervals.map { $0.lowerBound == $0.upperBound ? String($0.lowerBound) : "\($0.lowerBound)...\($0.upperBound)" }
            .joined(separator: ", ")
    }

    /// Lets a set of codes be a pattern for an ``HTTPCode``.
    public static func ~= (pattern: HTTPCodes, value: HTTPCode) -> Bool { pattern.contains(value) }

    /// Lets a set of codes be a pattern for a plain integer status.
    public static func ~= (pattern: HTTPCodes, value: Int) -> Bool { pattern.contains(value) }
}
