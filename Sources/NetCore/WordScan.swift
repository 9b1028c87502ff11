/// Finding one byte among many eight bytes at a time, for the checks every header field passes
/// (``HeaderValueScan``, ``HTTPToken``): a cheap test on a whole 64-bit word rules most words out,
/// and only a word it cannot rule out, and the last seven bytes or fewer, are read byte by byte.
enum WordScan {
    /// The first byte of `bytes` that `isWanted` picks, or `nil`. `mayHoldWanted` must answer
    /// `true` for every word holding such a byte (it may answer `true` for others too).
    @inline(__always)
    static func firstByte(
        in bytes: UnsafeRawBufferPointer, where isWanted: (UInt8) -> Bool, wordMayHoldOne mayHoldWanted: (UInt64) -> Bool
    ) -> UInt8? {
        var offset = 0
        while offset + 8 <= bytes.count {
            if mayHoldWanted(bytes.loadUnaligned(fromByteOffset: offset, as: UInt64.self)),
               let wanted = bytes[offset..<offset + 8].first(where: isWanted) {
                return wanted
            }
            offset += 8
        }
        return bytes[offset...].first(where: isWanted)
    }
}
