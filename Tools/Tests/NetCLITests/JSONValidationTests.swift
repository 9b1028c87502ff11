import Foundation
@testable import NetCLI
import Testing

/// `net`'s one-pass JSON check against Foundation's `JSONSerialization` as the independent judge.
@Suite("JSON validation for pretty-printing")
struct JSONValidationTests {
    @Test("Agrees with JSONSerialization on hand-picked documents", arguments: [
        "{}", "[]", "0", "-0.5e+10", "\"a\\u00e9\\n\"", "true", "null", " [1, {\"a\": [false]}] ",
        "{", "{\"a\" 1}", "01", "1.", "-", "\"\\x\"", "tru", "[1] 2", "\"a\u{1}b\"", "",
    ])
    func handPicked(_ text: String) {
        let data = Data(text.utf8)
        let foundation = (try? JSONSerialization.jsonObject(with: data, options: .fragmentsAllowed)) != nil
        #expect(JSONValidation.isJSON(data, maximumDepth: 64) == foundation, "\(text.debugDescription)")
    }

    @Test("Trailing commas: JSONSerialization accepts them, RFC 8259 does not, and net follows the RFC", arguments: ["[1,]", "{\"a\":1,}"])
    func trailingCommas(_ text: String) {
        let data = Data(text.utf8)
        #expect((try? JSONSerialization.jsonObject(with: data, options: .fragmentsAllowed)) != nil)  // Foundation's leniency
        #expect(!JSONValidation.isJSON(data, maximumDepth: 64))
    }

    @Test("Agrees with JSONSerialization on 20,000 random short strings of JSON's alphabet")
    func random() {
        let alphabet = Array("{}[],:\"0123-.eE+tfnrulsa\\ ".utf8)
        var generator = SplitMix64(seed: 16)
        var disagreements: [String] = []
        for _ in 0..<20_000 {
            let bytes = (0..<Int.random(in: 0...10, using: &generator)).map { _ in alphabet.randomElement(using: &generator) ?? 0 }
            let data = Data(bytes)
            let foundation = (try? JSONSerialization.jsonObject(with: data, options: .fragmentsAllowed)) != nil
            if JSONValidation.isJSON(data, maximumDepth: 64) != foundation { disagreements.append(String(decoding: bytes, as: UTF8.self)) }
        }
        #expect(disagreements.isEmpty, "\(disagreements.prefix(10))")
    }

    @Test("Nesting past the limit is not pretty-printed")
    func depth() {
        let deep = Data((String(repeating: "[", count: 65) + String(repeating: "]", count: 65)).utf8)
        #expect(!JSONValidation.isJSON(deep, maximumDepth: 64))
        #expect(JSONValidation.isJSON(deep, maximumDepth: 65))
    }
}

/// A seeded generator, so a disagreement found once is found again.
private struct SplitMix64: RandomNumberGenerator {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
