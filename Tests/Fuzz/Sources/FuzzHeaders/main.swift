import FuzzSupport
import NetCore

/// SwiftPM's entry point for this executable: libFuzzer's driver on ``fuzz(_:_:)``.
@_cdecl("FuzzHeaders_main")
func entryPoint(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>) -> CInt {
    runFuzzer(argc, argv, fuzz)
}

/// A header name and value from the input: `NetworkHeaders` either refuses them with a typed
/// error, exactly when an independent byte-by-byte reading of the rules refuses them, or keeps a
/// field that cannot inject another (a token name; a value without CR, LF, NUL or other controls
/// and without surrounding blanks), and finds it again under any case.
func fuzz(_ data: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    let input = FuzzInput(data, count)
    let name = input[0], value = input[1]
    do {
        let headers = try NetworkHeaders([NetworkHeader(name: name, value: value)])
        guard let field = headers.first else {
            fuzzCheck(false, "a valid field vanished")
            return 0
        }
        fuzzCheck(!field.name.isEmpty && field.name.utf8.allSatisfy { $0 > 0x20 && $0 < 0x7F && !Array("\"(),/:;<=>?@[\\]{}".utf8).contains($0) },
                  "name is not a token: \(field.name.debugDescription)")
        fuzzCheck(!field.value.unicodeScalars.contains { ($0.value < 0x20 && $0 != "\t") || $0.value == 0x7F },
                  "value holds a control character: \(field.value.debugDescription)")
        fuzzCheck(field.value.first != " " && field.value.last != " ", "value keeps surrounding blanks")
        fuzzCheck(headers[name.uppercased()] == field.value || name.uppercased().utf8.count != name.utf8.count, "lookup ignoring case failed")
        _ = headers.description
    } catch is NetworkError {
        // Refused: only a field the rules refuse, read here byte by byte (RFC 9110 §5.6.2 tokens,
        // §5.5 values), apart from the library's eight-bytes-at-a-time scans.
        let tchar = Set("!#$%&'*+-.^_`|~0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ".utf8)
        let nameIsToken = !name.isEmpty && name.utf8.allSatisfy { tchar.contains($0) }
        let valueIsAllowed = !value.utf8.contains { ($0 < 0x20 && $0 != 0x09) || $0 == 0x7F }
        fuzzCheck(!(nameIsToken && valueIsAllowed), "a valid field was refused: \(name.debugDescription): \(value.debugDescription)")
        return 0
    } catch {
        fuzzCheck(false, "untyped error \(error)")
    }
    return 0
}
