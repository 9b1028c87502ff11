import Foundation
import FuzzSupport
import NetCore
@testable import NetMultipart

/// SwiftPM's entry point for this executable: libFuzzer's driver on ``fuzz(_:_:)``.
@_cdecl("FuzzMultipartNames_main")
func entryPoint(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>) -> CInt {
    runFuzzer(argc, argv, fuzz)
}

/// A part's name, filename and content type from the input: the encoded header block is either
/// refused with a typed error or is exactly two or three CRLF-terminated lines, so no name or
/// filename can end the block, add a header or break out of its quotes.
func fuzz(_ data: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    let input = FuzzInput(data, count)
    let contentType: String? = input.fields.count > 2 ? input[2] : nil
    let part = MultipartPart(name: input[0], filename: input[1].isEmpty ? nil : input[1], contentType: contentType, body: .data(Data()))
    do {
        let bytes = try PartHeaderEncoding.headerBlock(for: part)
        let block = String(decoding: bytes, as: UTF8.self)
        fuzzCheck(bytes.suffix(4).elementsEqual("\r\n\r\n".utf8), "block does not end with a blank line")
        // Split on bytes: "\r\n" is one Character, so String indexing would blur the count.
        let lines = String(decoding: bytes.dropLast(4), as: UTF8.self).components(separatedBy: "\r\n")
        fuzzCheck(lines.count == (contentType == nil ? 1 : 2), "expected one line per header, got \(lines.count): \(block.debugDescription)")
        fuzzCheck(!lines.contains { $0.contains("\r") || $0.contains("\n") }, "a bare CR or LF inside a line")
        let disposition = lines[0]
        // Quotes come only from the encoder: name="…" and perhaps filename="…".
        let quotes = disposition.utf8.filter { $0 == UInt8(ascii: "\"") }.count
        fuzzCheck(quotes == (part.filename == nil ? 2 : 4), "a quote escaped its parameter: \(disposition.debugDescription)")
    } catch is NetworkError {
        return 0
    } catch {
        fuzzCheck(false, "untyped error \(error)")
    }
    return 0
}
