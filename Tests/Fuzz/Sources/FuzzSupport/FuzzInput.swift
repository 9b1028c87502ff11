import CFuzzDriver

/// Splits a fuzzer's bytes into fields, so one input can drive several arguments: fields are
/// separated by 0xFF (a byte that never appears in UTF-8), and each is decoded as UTF-8 (invalid
/// sequences become U+FFFD, as they would in any String a caller builds).
public struct FuzzInput {
    /// The fields, in order.
    public let fields: [String]

    /// Reads `count` bytes at `start`.
    public init(_ start: UnsafeRawPointer, _ count: Int) {
        let bytes = UnsafeRawBufferPointer(start: start, count: count)
        fields = bytes.split(separator: 0xFF, omittingEmptySubsequences: false).map { String(decoding: $0, as: UTF8.self) }
    }

    /// Field `index`, or the empty string.
    public subscript(index: Int) -> String { index < fields.count ? fields[index] : "" }
}

/// Stops the process so libFuzzer saves the input: the invariant named by `message` was broken.
public func fuzzCheck(_ condition: Bool, _ message: @autoclosure () -> String) {
    if !condition { fatalError("invariant broken: \(message())") }
}

/// Runs libFuzzer on `test` with the process's arguments (`-runs=N`, corpus directories, …).
public func runFuzzer(
    _ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>,
    _ test: @convention(c) (UnsafePointer<UInt8>?, Int) -> CInt
) -> CInt {
    var count = argc
    var arguments: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>? = argv
    return LLVMFuzzerRunDriver(&count, &arguments, test)
}
