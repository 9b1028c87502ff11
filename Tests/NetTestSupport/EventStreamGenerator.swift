/// Random Server-Sent Events streams for property tests: real fields and near misses, values with
/// colons, spaces, NUL, multi-byte characters and bytes that are not UTF-8, every line break, a
/// leading BOM sometimes, and sometimes a last event without its blank line.
package enum EventStreamGenerator {
    package static func stream(using random: inout SeededGenerator) -> [UInt8] {
        var bytes: [UInt8] = Bool.random(using: &random) && Int.random(in: 0..<4, using: &random) == 0 ? [0xEF, 0xBB, 0xBF] : []
        for _ in 0..<Int.random(in: 0...12, using: &random) {
            bytes += line(using: &random)
            bytes += lineBreak(using: &random)
            if Int.random(in: 0..<3, using: &random) == 0 { bytes += lineBreak(using: &random) }
        }
        if Bool.random(using: &random) { bytes += line(using: &random) }
        return bytes
    }

    private static let names = ["data", "data", "data", "event", "id", "retry", "", "dat", "DATA", "data ", "\u{FEFF}data", "événement"]
    private static let values: [[UInt8]] = [
        [], Array("x".utf8), Array(" spaced ".utf8), Array("a:b: c".utf8), Array("1500".utf8), Array("0".utf8), Array("15a".utf8),
        Array("-3".utf8), Array("é🎉".utf8), [0x00], Array("id\u{0}nul".utf8), [0xFF], [0xC3], [0xE2, 0x82], Array("\u{FEFF}".utf8),
        Array("message".utf8), Array("update".utf8), Array(String(repeating: "long", count: 40).utf8),
    ]

    private static func line(using random: inout SeededGenerator) -> [UInt8] {
        if Int.random(in: 0..<8, using: &random) == 0 { return Array(":".utf8) + values.randomElement(using: &random)! }
        let name = Array(names.randomElement(using: &random)!.utf8)
        var value: [UInt8] = []
        for _ in 0..<Int.random(in: 0...2, using: &random) { value += values.randomElement(using: &random)! }
        switch Int.random(in: 0..<4, using: &random) {
        case 0: return name
        case 1: return name + Array(":".utf8) + value
        default: return name + Array(": ".utf8) + value
        }
    }

    private static func lineBreak(using random: inout SeededGenerator) -> [UInt8] {
        [[0x0A], [0x0D], [0x0D, 0x0A]].randomElement(using: &random)!
    }
}
