/// An ordered list of header fields with case-insensitive lookup.
///
/// Repeated fields are kept in order (`values(for:)` returns them all), and every field is
/// validated on the way in, so a `NetworkHeaders` value can always be put on the wire as it is.
///
/// ```swift
/// var headers = NetworkHeaders()
/// try headers.add(name: "Accept", value: "application/json")
/// try headers.add(name: "Accept", value: "text/plain")
/// headers["accept"]              // "application/json"
/// headers.values(for: "ACCEPT")  // ["application/json", "text/plain"]
/// ```
public struct NetworkHeaders: Sendable, Hashable, RandomAccessCollection, CustomStringConvertible {
    private var fields: [NetworkHeader]

    /// No fields.
    public init() { fields = [] }

    /// Validates and keeps the fields in order; throws on the first invalid one.
    public init<S: Sequence>(_ headers: S) throws where S.Element == NetworkHeader {
        fields = try headers.map { try $0.validated() }
    }

    /// Validates and keeps the fields in order; throws on the first invalid one.
    ///
    /// The same for an array: called from another module, the generic initialiser runs
    /// unspecialised (every response a transport builds passes here).
    public init(_ headers: [NetworkHeader]) throws {
        var fields: [NetworkHeader] = []
        fields.reserveCapacity(headers.count)
        for header in headers { fields.append(try header.validated()) }
        self.fields = fields
    }

    /// The position of the first field.
    public var startIndex: Int { fields.startIndex }
    /// The position after the last field.
    public var endIndex: Int { fields.endIndex }
    /// The field at `position`.
    public subscript(position: Int) -> NetworkHeader { fields[position] }

    /// The first value of the field called `name` (any case), or `nil`.
    public subscript(name: String) -> String? {
        // The name's length once, and each field read in place: a pipeline looks up three fields
        // of every response (its framing and coding), most of them absent.
        let length = name.utf8.count
        for index in fields.indices where fields[index].name.utf8.count == length && Self.sameName(fields[index].name, name) {
            return fields[index].value
        }
        return nil
    }

    /// Every value of the field called `name` (any case), in order.
    public func values(for name: String) -> [String] {
        fields.filter { Self.sameName($0.name, name) }.map(\.value)
    }

    /// Whether a field called `name` (any case) is present.
    public func contains(name: String) -> Bool {
        fields.contains { Self.sameName($0.name, name) }
    }

    /// Appends a field, keeping any existing field of the same name.
    public mutating func add(name: String, value: String) throws {
        try add(NetworkHeader(name: name, value: value))
    }

    /// Appends a field, keeping any existing field of the same name.
    public mutating func add(_ header: NetworkHeader) throws {
        fields.append(try header.validated())
    }

    /// Appends a field as a response carried it. A value the rules refuse (a control character
    /// the library below let through: HTTP/2 forbids only NUL, CR and LF) is kept with each such
    /// character replaced by a space, as on every transport, rather than lost; a name that is not
    /// a token, which no HTTP version lets through, is dropped.
    package mutating func addReceived(name: String, value: String) {
        if (try? add(name: name, value: value)) != nil { return }
        let cleaned = String(String.UnicodeScalarView(value.unicodeScalars.map { NetworkHeader.isForbiddenInValue($0) ? " " : $0 }))
        try? add(name: name, value: cleaned)
    }

    /// Makes room for `count` fields in all, so that filling it from another library's fields
    /// grows its storage once.
    package mutating func reserveCapacity(_ count: Int) {
        fields.reserveCapacity(count)
    }

    /// Appends a field that another library has already held to the same rules (a token name;
    /// a value without controls other than tab and without surrounding whitespace), such as a
    /// swift-http-types `HTTPField`: every header of every request would otherwise be scanned twice.
    package mutating func appendPrevalidated(name: String, value: String) {
        fields.append(NetworkHeader(name: name, value: value))
    }

    /// Replaces every field called `name` (any case) with one field, at the position of the first.
    public mutating func set(name: String, value: String) throws {
        let header = try NetworkHeader(name: name, value: value).validated()
        guard let first = fields.firstIndex(where: { Self.sameName($0.name, name) }) else {
            fields.append(header)
            return
        }
        fields = fields.indices.compactMap { index in
            if index == first { return header }
            return Self.sameName(fields[index].name, name) ? nil : fields[index]
        }
    }

    /// Removes every field called `name` (any case).
    public mutating func remove(name: String) {
        fields.removeAll { Self.sameName($0.name, name) }
    }

    /// One `Name: value` line per field.
    public var description: String { fields.map(\.description).joined(separator: "\n") }

    /// Equal when the same fields appear in the same order; names compare without case.
    public static func == (lhs: NetworkHeaders, rhs: NetworkHeaders) -> Bool {
        lhs.count == rhs.count
            && zip(lhs.fields, rhs.fields).allSatisfy { sameName($0.name, $1.name) && $0.value == $1.value }
    }

    /// Hashes names without case, consistently with `==`.
    public func hash(into hasher: inout Hasher) {
        for field in fields {
            hasher.combine(Self.lowercased(field.name))
            hasher.combine(field.value)
        }
    }

    /// Compared byte by byte, folding ASCII case, without building lower-cased copies: every
    /// lookup of every request and response comes here.
    package static func sameName(_ lhs: String, _ rhs: String) -> Bool {
        guard lhs.utf8.count == rhs.utf8.count else { return false }
        // Over the contiguous bytes where both strings have them (native and small strings do):
        // every lookup of every field by name passes here, and stepping two UTF-8 views in
        // lockstep cost several times as much.
        let compared = lhs.utf8.withContiguousStorageIfAvailable { left in
            rhs.utf8.withContiguousStorageIfAvailable { right in
                for index in left.indices where folded(left[index]) != folded(right[index]) { return false }
                return true
            }
        }
        if let compared = compared ?? nil { return compared }
        return zip(lhs.utf8, rhs.utf8).allSatisfy { folded($0) == folded($1) }
    }

    private static func folded(_ byte: UInt8) -> UInt8 {
        byte &- 65 < 26 ? byte | 0x20 : byte  // A–Z to a–z: the unsigned difference wraps for bytes below A
    }

    /// Header names are ASCII tokens, so ASCII folding is exact and avoids locale rules.
    static func lowercased(_ name: String) -> String {
        String(decoding: name.utf8.map { (65...90).contains($0) ? $0 + 32 : $0 }, as: UTF8.self)
    }
}
