import Foundation

/// A Python server script, one per test process, on a free loopback port: `echo-server.py`
/// (Python's http.server) or the root package's Werkzeug peer (`Tests/Peers/werkzeug_peer.py`:
/// ranges, cuts and cookies).
///
/// Its standard input is a pipe this process holds open: when the tests exit, the server reads
/// end of file and exits too, so no server outlives a run.
actor EchoServer {
    static let shared = EchoServer(script: URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("echo-server.py").path)
    static let werkzeug = EchoServer(script: URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .appendingPathComponent("../../../Tests/Peers/werkzeug_peer.py").standardized.path)

    private let script: String
    private var port: Int?

    private init(script: String) { self.script = script }

    /// `http://127.0.0.1:PORT`, starting the server on first use.
    func baseURL() throws -> String {
        if let port { return "http://127.0.0.1:\(port)" }
        let port = try ProcessRunner.startPrintingPort("python3", [script])
        self.port = port
        return "http://127.0.0.1:\(port)"
    }
}

/// One request as the echo server saw it.
struct EchoedRequest: Decodable, Equatable {
    struct Part: Decodable, Equatable {
        let name: String?
        let filename: String?
        let contentType: String?
        let length: Int
        let sha256: String
    }

    let method: String
    let path: String
    let query: String
    let headers: [[String]]
    let bodyLength: Int
    let bodySHA256: String
    let body: String?
    let parts: [Part]?

    /// The values of header `name`, case-insensitively.
    func header(_ name: String) -> [String] {
        headers.filter { $0.first?.lowercased() == name.lowercased() }.compactMap { $0.last }
    }

    /// Decodes the JSON the server answered, after `net`'s status line.
    init(netOutput: String) throws {
        guard let brace = netOutput.firstIndex(of: "{") else {
            throw ProcessFailure(description: "no JSON body in: \(netOutput)")
        }
        self = try JSONDecoder().decode(Self.self, from: Data(netOutput[brace...].utf8))
    }
}
