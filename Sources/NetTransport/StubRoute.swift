import NetCore

/// A method and path pattern a ``StubTransport`` answers: literal segments, `:name` for any one
/// segment, and a final `*` for any rest (including none).
struct StubRoute: Sendable {
    enum Responder: Sendable {
        case sequence([StubResponse])
        case handler(@Sendable (NetworkRequest) async throws -> StubResponse)
    }

    let method: NetworkHttpMethod?
    let segments: [Substring]
    let responder: Responder

    init(method: NetworkHttpMethod?, pattern: String, responder: Responder) {
        self.method = method
        self.segments = pattern.split(separator: "/", omittingEmptySubsequences: true)
        self.responder = responder
    }

    func matches(_ request: NetworkRequest) -> Bool {
        if let method, method != request.httpMethod { return false }
        if segments.count == 1 && segments[0] == "*" { return true }  // any path: no need to decode it
        let path = request.url.path.split(separator: "/", omittingEmptySubsequences: true)
        for (index, segment) in segments.enumerated() {
            if segment == "*" && index == segments.count - 1 { return true }
            guard index < path.count else { return false }
            if segment.hasPrefix(":") { continue }
            if segment != path[index] { return false }
        }
        return path.count == segments.count
    }
}
