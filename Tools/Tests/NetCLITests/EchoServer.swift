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
        var input: [Int32] = [0, 0]
        var output: [Int32] = [0, 0]
        guard pipe(&input) == 0, pipe(&output) == 0 else {
            throw ProcessFailure(description: "pipe: \(String(cString: strerror(errno)))")
        }
        // Close-on-exec: our ends must not stay open in other children. (A `net` started by a
        // parallel test in the instant before this could inherit one; it exits in seconds, and
        // the server sees end of file then.)
        for descriptor in input + output { _ = fcntl(descriptor, F_SETFD, FD_CLOEXEC) }
        _ = try ProcessRunner.spawn(
            "python3", [script], standardInput: nil, standardOutput: nil, standardError: "/dev/null",
            duplicating: [(input[0], 0), (output[1], 1)])
        close(input[0])
        close(output[1])
        defer { close(output[0]) }
        // read(2) returns what has arrived; FileHandle.read(upToCount:) would wait for 64 bytes.
        var line = Data()
        var buffer = [UInt8](repeating: 0, count: 64)
        while !line.contains(UInt8(ascii: "\n")) {
            let count = read(output[0], &buffer, buffer.count)
            if count < 0 && errno == EINTR { continue }
            guard count > 0 else {
                throw ProcessFailure(description: "\(script) exited before printing its port (is python3 installed, with Werkzeug?)")
            }
            line.append(contentsOf: buffer[..<count])
        }
        guard let port = Int(String(decoding: line, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)) else {
            throw ProcessFailure(description: "\(script) printed \(String(decoding: line, as: UTF8.self)) instead of a port")
        }
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
