@testable import NetTransport
import Testing

@Suite("Content-Range parsing (RFC 9110 §14.4)")
struct ContentRangeTests {
    @Test("well-formed values parse; malformed ones are refused")
    func parsing() {
        #expect(ContentRange("bytes 0-99/100") == ContentRange(first: 0, last: 99, complete: 100))
        #expect(ContentRange("bytes 5-9/*") == ContentRange(first: 5, last: 9, complete: nil))
        #expect(ContentRange(" Bytes 1-1/2 ") == ContentRange(first: 1, last: 1, complete: 2))
        for bad in ["bytes 9-5/100", "bytes 0-100/100", "items 0-1/2", "bytes 0-/100", "bytes -1-5/10", "bytes 0-1", "bytes \u{FF10}-1/2", "bytes */100", ""] {
            #expect(ContentRange(bad) == nil, "\(bad) was accepted")
        }
    }
}
