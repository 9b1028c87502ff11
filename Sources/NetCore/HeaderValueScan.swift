/// What one pass over a field value's UTF-8 bytes found: whether ``NetworkHeader/validated()``
/// must refuse it, trim it, or can keep it as it is. Every field of every request and response is
/// scanned, so the pass reads eight bytes at a time (``WordScan``).
enum HeaderValueScan: Equatable {
    /// No forbidden byte, and no space or tab at either end.
    case clean
    /// No forbidden byte, but a space or tab at one end or both (RFC 9110 §5.5's optional whitespace).
    case hasEdgeWhitespace
    /// The first byte ``isForbidden(_:)`` refuses.
    case forbiddenByte(UInt8)

    init(_ bytes: UnsafeBufferPointer<UInt8>) {
        guard let first = bytes.first, let last = bytes.last else {
            self = .clean
            return
        }
        if let forbidden = Self.firstForbiddenByte(in: UnsafeRawBufferPointer(bytes)) {
            self = .forbiddenByte(forbidden)
        } else {
            self = Self.isOptionalWhitespace(first) || Self.isOptionalWhitespace(last) ? .hasEdgeWhitespace : .clean
        }
    }

    init(_ bytes: [UInt8]) {
        self = bytes.withUnsafeBufferPointer(Self.init)
    }

    static func isOptionalWhitespace(_ byte: UInt8) -> Bool { byte == 0x20 || byte == 0x09 }

    /// RFC 9110 §5.5: field values are visible characters, spaces, tabs and non-ASCII text. CR,
    /// LF and NUL would split or end the field; the other controls and DEL are refused as well
    /// because servers and proxies disagree about them.
    static func isForbidden(_ byte: UInt8) -> Bool { byte == 0x7F || (byte < 0x20 && byte != 0x09) }

    static func firstForbiddenByte(in bytes: UnsafeRawBufferPointer) -> UInt8? {
        WordScan.firstByte(in: bytes, where: isForbidden, wordMayHoldOne: mayHoldControl)
    }

    /// Whether any byte of `word` is below 0x20 or is 0x7F. Exact as a yes or no: a byte's
    /// subtraction borrows from the next only when that byte is itself below 0x20, so the flags
    /// it can raise wrongly come with a right one. Tab (0x09) answers yes, and the bytes are then
    /// read one by one.
    @inline(__always)
    static func mayHoldControl(_ word: UInt64) -> Bool {
        let ones: UInt64 = 0x0101_0101_0101_0101
        let highBits: UInt64 = 0x8080_8080_8080_8080
        // Bit 7 of a byte is set when the byte is below 0x20 (and was below 0x80: ~word).
        let belowSpace = (word &- ones &* 0x20) & ~word & highBits
        // A byte of `delete` is zero where `word`'s byte is 0x7F; the same test finds zero bytes.
        let delete = word ^ (ones &* 0x7F)
        let deleteFound = (delete &- ones) & ~delete & highBits
        return (belowSpace | deleteFound) != 0
    }
}
