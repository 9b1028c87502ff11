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

/// Standard output that is a non-blocking pipe (as some shells and supervisors hand down): `net`
/// waits for the reader when the pipe is full instead of failing or losing output.
@Suite("net: a non-blocking standard output")
struct NonBlockingOutputTests {
    @Test("A 3 MB body through a non-blocking pipe arrives whole, exit 0", .timeLimit(.minutes(2)))
    func nonBlockingPipe() async throws {
        let base = try await EchoServer.shared.baseURL()
        var ends: [Int32] = [0, 0]
        try #require(pipe(&ends) == 0)
        // Close-on-exec on both: only the child's descriptor 1 (a duplicate) may outlive the spawn.
        for end in ends { _ = fcntl(end, F_SETFD, FD_CLOEXEC) }
        _ = fcntl(ends[1], F_SETFL, fcntl(ends[1], F_GETFL) | O_NONBLOCK)
        let pid = try ProcessRunner.spawn(ProcessRunner.net, ["get", "-b", "\(base)/bytes/3000000"], standardInput: "/dev/null",
                                          standardOutput: nil, standardError: "/dev/null", duplicating: [(ends[1], 1)])
        close(ends[1])
        let reader = ends[0]
        let output: Data = await withCheckedContinuation { continuation in
            DispatchQueue.global().async {
                var data = Data()
                var buffer = [UInt8](repeating: 0, count: 65_536)
                while true {
                    let count = read(reader, &buffer, buffer.count)
                    if count < 0 && errno == EINTR { continue }
                    guard count > 0 else { break }
                    data.append(contentsOf: buffer[..<count])
                }
                continuation.resume(returning: data)
            }
        }
        close(reader)
        #expect(await ProcessRunner.wait(pid, limit: .seconds(60)) == 0)
        #expect(output.count == 3_000_000)
        // A Bool, not `==` on the values: on failure Swift Testing would diff 3 MB element by element.
        let whole = output.elementsEqual((0..<3_000_000).lazy.map { UInt8($0 % 251) })
        #expect(whole, "the body arrived damaged or cut")
    }
}
