import Foundation
import NetCore
import NetTestSupport
import NetTransport
import Testing

/// Query parameters built by Net and decoded by a real server (Hummingbird, on 127.0.0.1), for
/// random keys and values full of the characters that break hand-made query strings.
@Suite("Query parameters round-trip through a real server")
struct QueryServerRoundTripTests {
    /// Characters that mean something in a URL or a query, blanks, controls, non-ASCII text.
    static let alphabet: [String] = ["a", "Z", "0", " ", "+", "&", "=", "?", "#", "%", "%20", "%2B", "/", ";", ",", "'", "\"",
                                     "<", ">", "[", "]", "{", "}", "|", "\\", "^", "`", "~", "\t", "\n", "\r", "é", "ß", "日本",
                                     "🇫🇷", "👩‍👩‍👧", "\u{200B}", "\u{FEFF}", "-", "_", ".", "*", "!", "$", "(", ")", "@", ":"]

    static func randomText(_ generator: inout SeededGenerator) -> String {
        (0..<Int.random(in: 1...12, using: &generator)).map { _ in alphabet.randomElement(using: &generator) ?? "" }.joined()
    }

    @Test("300 requests of random hostile keys and values arrive exactly as given")
    func randomQueriesRoundTrip() async throws {
        let transport = URLSessionTransport()
        var generator = SeededGenerator(seed: 0x5EED)
        var cases: [[NetworkQuery]] = []
        for _ in 0..<300 {
            cases.append((0..<Int.random(in: 1...5, using: &generator)).map { _ in
                NetworkQuery(key: Self.randomText(&generator), value: Self.randomText(&generator))
            })
        }
        let base = try await LoopbackServer.shared.baseURL().absoluteString
        for query in cases {
            let response = try await transport.send(try NetworkRequest(url: base + "/query", query: query))
            let received = try JSONDecoder().decode([[String]].self, from: response.body)
            let expected = query.map { [$0.key, $0.value ?? ""] }
            #expect(received == expected, "sent \(query.map(\.percentEncoded).joined(separator: "&"))")
        }
    }
}
