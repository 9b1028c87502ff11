import Foundation

/// `Tests/Peers/werkzeug_peer.py`, one per test process, on a free loopback port: range requests,
/// `If-Range`, connection cuts and cookies answered by Werkzeug, not by Net. The script exits
/// when this process is gone.
package actor WerkzeugPeer {
    /// The peer of this test process.
    package static let shared = WerkzeugPeer()

    private var process: Subprocess?
    /// The peer's first line (its port), read once on a thread of its own: Python takes a while to
    /// start on a busy machine, and every caller waits for the same read without holding one of
    /// Swift's cooperative threads.
    private var firstLine: Task<String?, Never>?

    /// `http://127.0.0.1:PORT`, starting the peer on first use.
    package func baseURL() async throws -> String {
        let reading: Task<String?, Never>
        if let firstLine {
            reading = firstLine
        } else {
            let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
                .deletingLastPathComponent().appendingPathComponent("Peers/werkzeug_peer.py").path
            let child = try Subprocess("/usr/bin/env", ["python3", script])
            process = child
            let output = child.output
            reading = Task { await offPool { Subprocess.readLine(output) } }
            firstLine = reading
        }
        let line = await reading.value
        guard let line, let port = Int(line) else {
            // Not kept: the next caller starts a new peer, as before the first one's failure.
            let failure = line.map { "werkzeug_peer.py printed \($0) instead of a port" }
                ?? "werkzeug_peer.py exited before writing its port: \(process?.standardError ?? "")"
            if firstLine == reading {
                process?.terminate()
                process = nil
                firstLine = nil
            }
            throw CommandFailed(description: failure)
        }
        return "http://127.0.0.1:\(port)"
    }
}
