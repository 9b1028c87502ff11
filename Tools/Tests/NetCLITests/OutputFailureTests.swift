import Foundation
import Testing

/// Output that cannot be written: `/dev/full` refuses every write with ENOSPC, as a full disk does.
/// `net` must not exit 0 with its output lost.
@Suite("net: standard output that cannot be written")
struct OutputFailureTests {
    private static let fullDevice = "/dev/full"

    @Test("A response that cannot be printed exits 1 with one line on stderr", arguments: [
        ["get"], ["get", "--stream"], ["get", "--transport", "ahc"], ["get", "--stream", "--transport", "ahc"],
    ])
    func responseNotWritten(_ command: [String]) async throws {
        let base = try await EchoServer.shared.baseURL()
        let result = try await ProcessRunner.net(command + ["\(base)/bytes/100000"], standardOutput: Self.fullDevice)
        #expect(result.status == 1, "\(command): \(result.standardError)")
        #expect(result.standardError == "net: cannot write to standard output: \(String(cString: strerror(ENOSPC)))\n",
                "\(command): \(result.standardError)")
    }

    @Test("An error status whose page cannot be printed still exits 1, not 4")
    func errorPageNotWritten() async throws {
        let base = try await EchoServer.shared.baseURL()
        let result = try await ProcessRunner.net(["get", "\(base)/status/404"], standardOutput: Self.fullDevice)
        #expect(result.status == 1, "\(result.standardError)")
        #expect(result.standardError.contains("cannot write to standard output"), "\(result.standardError)")
    }

    @Test("--download saves the file before the head is shown: output that fails keeps the file")
    func downloadKept() async throws {
        let base = try await EchoServer.shared.baseURL()
        let scratch = try ScratchDirectory()
        let destination = scratch.path("out.bin")
        let result = try await ProcessRunner.net(["get", "\(base)/bytes/300000", "--download", destination],
                                                 standardOutput: Self.fullDevice)
        #expect(result.status == 1, "\(result.standardError)")
        #expect(result.standardError.contains("Saved 300.0 kB to \(destination)\n"), "\(result.standardError)")
        #expect(result.standardError.hasSuffix("net: cannot write to standard output: \(String(cString: strerror(ENOSPC)))\n"),
                "\(result.standardError)")
        let expected = try scratch.file("expected.bin", count: 300_000)
        #expect(try await sha256(ofFile: destination) == (try await sha256(ofFile: expected)))
        #expect(try scratch.contents() == ["expected.bin", "out.bin"])
    }

    @Test("--help and --curl that cannot be printed exit 1", arguments: [
        ["--help"], ["get", "--curl", "http://127.0.0.1:9/"],
    ])
    func textNotWritten(_ arguments: [String]) async throws {
        let result = try await ProcessRunner.net(arguments, standardOutput: Self.fullDevice)
        #expect(result.status == 1, "\(arguments): \(result.standardError)")
        #expect(result.standardError.contains("cannot write to standard output"), "\(arguments): \(result.standardError)")
    }
}
