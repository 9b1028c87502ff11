import CFuzzDriver

/// Splits a fuzzer's bytes into fields, so one input can drive several arguments: fields are
/// separated by 0xFF (a byte that never appears in UTF-8), and each is decoded as UTF-8 (invalid
/// sequences become U+FFFD, as they would in any String a caller builds).
public struct FuzzInput {
    /// The fields, in order.
    public let fields: [String]

    /// Reads the `count` bytes libFuzzer passes at `data`.
    public init(_ data: UnsafePointer<UInt8>?, _ count: Int) {
        let bytes = UnsafeBufferPointer(start: data, count: data == nil ? 0 : count)
        fields = bytes.split(separator: 0xFF, omittingEmptySubsequences: false).map { String(decoding: $0, as: UTF8.self) }
    }

    /// Field `index`, or the empty string.
    public subscript(index: Int) -> String { index < fields.count ? fields[index] : "" }
}

/// Stops the process so libFuzzer saves the input: the invariant named by `message` was broken.
public func fuzzCheck(_ condition: Bool, _ message: @autoclosure () -> String) {
    if !condition { fatalError("invariant broken: \(message())") }
}

/// One libFuzzer input: the bytes and their count. Returns 0; a broken invariant stops the process.
public typealias FuzzTest = @convention(c) (UnsafePointer<UInt8>?, Int) -> CInt

/// Runs libFuzzer on `test` with the process's arguments (`-runs=N`, corpus directories, …).
public func runFuzzer(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>, _ test: FuzzTest) -> CInt {
    NetFuzzRun(argc, argv, test)
}
