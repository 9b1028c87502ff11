import FuzzSupport
import NetCore

/// SwiftPM's entry point for this executable: libFuzzer's driver on ``fuzz(_:_:)``.
@_cdecl("FuzzURLQuery_main")
func entryPoint(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>) -> CInt {
    runFuzzer(argc, argv, fuzz)
}

/// A URL string and query parameters from the input: building the request either fails with a
/// typed `NetworkError` or yields a URL whose last parameters decode to exactly the key and value
/// given, with nothing in the URL that could split it (spaces, controls).
func fuzz(_ data: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    let input = FuzzInput(data, count)
    let base = input.fields.count > 1 ? input[0] : "https://example.com/p"
    let key = input[1], value = input[2]
    do {
        let request = try NetworkRequest(url: base, query: [.query(key: key, value: value), .secret(key: "k", value: value)])
        let text = request.url.absoluteString
        fuzzCheck(!text.unicodeScalars.contains { $0.value <= 0x20 || $0.value >= 0x7F }, "URL has a space, control or non-ASCII: \(text)")
        let query = text.split(separator: "#", maxSplits: 1).first.flatMap { $0.split(separator: "?", maxSplits: 1).dropFirst().first } ?? ""
        let pairs = query.split(separator: "&", omittingEmptySubsequences: false).suffix(2)
        fuzzCheck(pairs.count == 2, "the two parameters are missing from \(text)")
        if let first = pairs.first {
            let halves = first.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            fuzzCheck(halves.count == 2 && decode(halves[0]) == key && decode(halves[1]) == value,
                      "parameter did not round-trip: \(first) for \(key)=\(value)")
        }
        fuzzCheck(!request.description.contains("k=" + (pairs.last.map { String($0.dropFirst(2)) } ?? "")) || value.isEmpty,
                  "a secret parameter's value shows in the description")
    } catch is NetworkError {
        return 0
    } catch {
        fuzzCheck(false, "untyped error \(error)")
    }
    return 0
}

/// Percent-decoding written here, not borrowed from the code under test.
func decode(_ text: Substring) -> String? {
    var bytes: [UInt8] = []
    var iterator = Array(text.utf8).makeIterator()
    while let byte = iterator.next() {
        guard byte == UInt8(ascii: "%") else { bytes.append(byte); continue }
        guard let high = iterator.next(), let low = iterator.next(),
              let value = UInt8(String(decoding: [high, low], as: UTF8.self), radix: 16) else { return nil }
        bytes.append(value)
    }
    return String(validating: bytes, as: UTF8.self)
}
