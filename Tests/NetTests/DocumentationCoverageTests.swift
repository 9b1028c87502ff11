import Foundation
import Testing

/// Every Swift sample in README.md and Docs/ is compiled by a test: each ```swift block must appear,
/// line for line (indentation aside), in one of the test files that compile the documentation.
/// Edit a sample without its test, and this fails; the test then keeps the sample compiling.
///
/// A block that is not Swift a test can compile (a Package.swift fragment) says so in an HTML
/// comment on the line before it: `<!-- not compiled: … -->`.
@Suite("Documentation samples are compiled")
struct DocumentationCoverageTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    /// The pages, and the test files that compile their samples.
    static func pages() throws -> [URL] {
        let docs = root.appendingPathComponent("Docs")
        let pages = try FileManager.default.contentsOfDirectory(at: docs, includingPropertiesForKeys: nil)
            .filter { $0.pathExtension == "md" }
        return [root.appendingPathComponent("README.md")] + pages.sorted { $0.path < $1.path }
    }

    /// The documentation tests of the root package and of the CLI's package (a sample about an
    /// opt-in product is compiled when its trait is on, as `swift test --enable-all-traits` does).
    static func compiledSources() throws -> [(name: String, lines: [String])] {
        var sources: [(String, [String])] = []
        for directory in ["Tests", "Tools/Tests"] {
            let enumerator = FileManager.default.enumerator(at: root.appendingPathComponent(directory), includingPropertiesForKeys: nil)
            while let file = enumerator?.nextObject() as? URL {
                guard file.pathExtension == "swift", file.lastPathComponent.contains("Documentation"),
                    !file.path.contains("/.build") else { continue }
                sources.append((file.lastPathComponent, normalised(try String(contentsOf: file, encoding: .utf8))))
            }
        }
        return sources
    }

    /// Lines trimmed; blank lines and imports (which a test file has once, at its top) dropped.
    static func normalised(_ text: String) -> [String] {
        text.split(separator: "\n", omittingEmptySubsequences: false)
            .map { $0.trimmingCharacters(in: .whitespaces) }
            .filter { !$0.isEmpty && !$0.hasPrefix("import ") }
    }

    /// The ```swift blocks of a page, with their line numbers, except those marked not compiled.
    static func swiftBlocks(in page: URL) throws -> [(line: Int, code: [String])] {
        let lines = try String(contentsOf: page, encoding: .utf8).split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        var blocks: [(Int, [String])] = []
        var index = 0
        while index < lines.count {
            let fence = lines[index].trimmingCharacters(in: .whitespaces)
            guard fence.hasPrefix("```swift") else { index += 1; continue }
            let skipped = index > 0 && lines[index - 1].contains("<!-- not compiled:")
            let start = index + 1
            var end = start
            while end < lines.count && !lines[end].trimmingCharacters(in: .whitespaces).hasPrefix("```") { end += 1 }
            if !skipped { blocks.append((start, normalised(lines[start..<end].joined(separator: "\n")))) }
            index = end + 1
        }
        return blocks
    }

    static func contains(_ haystack: [String], _ needle: [String]) -> Bool {
        guard !needle.isEmpty, needle.count <= haystack.count else { return needle.isEmpty }
        return (0...(haystack.count - needle.count)).contains { start in
            haystack[start..<(start + needle.count)].elementsEqual(needle)
        }
    }

    @Test("Each Swift block of README.md and Docs/*.md appears in a documentation test")
    func everyBlockIsCompiled() throws {
        let sources = try Self.compiledSources()
        var total = 0
        for page in try Self.pages() {
            for block in try Self.swiftBlocks(in: page) {
                total += 1
                let found = sources.contains { Self.contains($0.lines, block.code) }
                #expect(found, "\(page.lastPathComponent):\(block.line): this sample is in no *Documentation*.swift test; copy it into one so it compiles")
            }
        }
        #expect(total > 20, "found only \(total) samples: is the checker reading the pages?")
    }
}
