import Foundation

/// A directory of the test's own, removed when the value goes away.
final class ScratchDirectory {
    let url = FileManager.default.temporaryDirectory.appendingPathComponent("net-cli-test-\(UUID().uuidString)")

    init() throws { try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true) }

    deinit { try? FileManager.default.removeItem(at: url) }

    func path(_ name: String) -> String { url.appendingPathComponent(name).path }

    /// Writes `count` bytes (byte i is i % 251, as the server's /bytes route sends) to `name`.
    func file(_ name: String, count: Int) throws -> String {
        try Data((0..<count).map { UInt8($0 % 251) }).write(to: url.appendingPathComponent(name))
        return path(name)
    }

    /// Names of everything in the directory.
    func contents() throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: url.path).sorted()
    }
}

/// The hex SHA-256 of a file, computed by `sha256sum` (coreutils), a peer we did not write.
func sha256(ofFile path: String) async throws -> String {
    let result = try await ProcessRunner.run("sha256sum", [path])
    guard result.status == 0, let digest = result.output.split(separator: " ").first else {
        throw ProcessFailure(description: "sha256sum \(path) failed: \(result.standardError)")
    }
    return String(digest)
}
