import Foundation

/// A failed command, with what it said.
package struct CommandFailed: Error, CustomStringConvertible {
    /// The command, its exit status and its output.
    package let description: String

    /// Wraps a message.
    package init(description: String) { self.description = description }
}

/// A child process started with `posix_spawn` and reaped with `waitpid` by this code alone.
///
/// Foundation's `Process` on Linux (Swift 6.3.1) was seen to miss a child's exit and spin in
/// `waitUntilExit()` at full CPU forever. Standard input comes from a file (or /dev/null) and
/// standard error goes to a file, so the one pipe (standard output) can never deadlock the child.
package final class Subprocess {
    /// The child's process id.
    package let pid: pid_t
    /// The read end of the child's standard output; ``drain(_:_:)`` reads and closes it.
    package let output: Int32
    private let scratch: URL
    private var status: Int32?

    /// Starts `executable` with `arguments`, `input` on its standard input, and `environment`
    /// (the test process's own when `nil`).
    package init(_ executable: String, _ arguments: [String], input: Data? = nil, environment: [String: String]? = nil) throws {
        scratch = FileManager.default.temporaryDirectory.appendingPathComponent("net-subprocess-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
        let inputPath = scratch.appendingPathComponent("stdin").path
        try (input ?? Data()).write(to: URL(fileURLWithPath: inputPath))
        var pipeEnds: [Int32] = [0, 0]
        guard pipe(&pipeEnds) == 0 else { throw CommandFailed(description: "pipe failed: errno \(errno)") }

        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, inputPath, O_RDONLY, 0)
        posix_spawn_file_actions_adddup2(&actions, pipeEnds[1], 1)
        posix_spawn_file_actions_addopen(&actions, 2, scratch.appendingPathComponent("stderr").path, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        posix_spawn_file_actions_addclose(&actions, pipeEnds[0])
        posix_spawn_file_actions_addclose(&actions, pipeEnds[1])
        // Nothing else crosses into the child. libcurl's sockets are not close-on-exec, and a
        // child holding a copy kept connections the tests had closed in CLOSE_WAIT for its whole
        // life (seen: LoadProbe holding two fault-suite sockets, failing every fault check's
        // half-closed-socket check at once).
        // (glibc 2.34+; Swift's Glibc module does not import it, so it is looked up by name.)
        guard let closeFrom = Self.addCloseFrom else {
            throw CommandFailed(description: "posix_spawn_file_actions_addclosefrom_np is missing (glibc 2.34 or later is needed)")
        }
        _ = closeFrom(&actions, 3)

        // Children inherit the signal mask, and libdispatch blocks signals on its threads: without
        // this, a child never sees the SIGTERM that ends it.
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var emptyMask = sigset_t()
        sigemptyset(&emptyMask)
        var allSignals = sigset_t()
        sigfillset(&allSignals)
        posix_spawnattr_setsigmask(&attributes, &emptyMask)
        posix_spawnattr_setsigdefault(&attributes, &allSignals)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))

        let argv = ([executable] + arguments).map { strdup($0) } + [nil]
        defer { argv.forEach { free($0) } }
        let environmentStrings = (environment ?? ProcessInfo.processInfo.environment).map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer { environmentStrings.forEach { free($0) } }
        var child = pid_t()
        let result = posix_spawn(&child, executable, &actions, &attributes, argv, environmentStrings)
        close(pipeEnds[1])
        guard result == 0 else {
            close(pipeEnds[0])
            try? FileManager.default.removeItem(at: scratch)
            throw CommandFailed(description: "posix_spawn \(executable) failed: errno \(result)")
        }
        pid = child
        output = pipeEnds[0]
    }

    /// Reads a child's standard output until it closes, calling `handle` with each chunk, then
    /// closes it. Exactly one reader drains each child.
    package static func drain(_ output: Int32, _ handle: (Data) -> Void) {
        defer { close(output) }
        var buffer = [UInt8](repeating: 0, count: 65536)
        while true {
            let count = read(output, &buffer, buffer.count)
            if count > 0 { handle(Data(buffer[0..<count])); continue }
            if count < 0 && errno == EINTR { continue }
            return
        }
    }

    /// The first line the child writes to standard output (a peer's port), without its newline;
    /// throws with what it wrote to standard error if it exits first. The wait for the child
    /// runs off Swift's cooperative pool (``offPool(_:)``).
    package func firstLine() async throws -> String {
        let output = self.output
        guard let line = await offPool({ Self.readLine(output) }) else {
            throw CommandFailed(description: "the process exited before writing a line: \(standardError)")
        }
        return line
    }

    /// The first line on `descriptor`, without its newline, or `nil` if it closes first. Blocks
    /// the calling thread: call it off Swift's pool (``offPool(_:)``).
    package static func readLine(_ descriptor: Int32) -> String? {
        var line = Data()
        var buffer = [UInt8](repeating: 0, count: 64)
        while !line.contains(UInt8(ascii: "\n")) {
            let count = read(descriptor, &buffer, buffer.count)
            if count < 0 && errno == EINTR { continue }
            guard count > 0 else { return nil }
            line.append(contentsOf: buffer[..<count])
        }
        return String(decoding: line, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// What the child wrote to standard error so far.
    package var standardError: String {
        (try? String(contentsOf: scratch.appendingPathComponent("stderr"), encoding: .utf8)) ?? ""
    }

    private typealias AddCloseFrom = @convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, Int32) -> Int32

    private static let addCloseFrom: AddCloseFrom? = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "posix_spawn_file_actions_addclosefrom_np")
        .map { unsafeBitCast($0, to: AddCloseFrom.self) }

    /// Waits for the child to exit and returns its exit status (128 + signal if killed).
    @discardableResult
    package func wait() -> Int32 {
        if let status { return status }
        var raw: Int32 = 0
        while waitpid(pid, &raw, 0) < 0 && errno == EINTR {}
        let code = Self.exitCode(waitStatus: raw)
        status = code
        return code
    }

    /// The exit status in a `waitpid` status word, or 128 + the signal that killed the child.
    private static func exitCode(waitStatus raw: Int32) -> Int32 {
        raw & 0x7F == 0 ? (raw >> 8) & 0xFF : 128 + (raw & 0x7F)
    }

    /// Whether the child has exited, without waiting for it (its status is then kept for
    /// ``wait()``).
    package var hasExited: Bool {
        if status != nil { return true }
        var raw: Int32 = 0
        guard waitpid(pid, &raw, WNOHANG) == pid else { return false }
        status = Self.exitCode(waitStatus: raw)
        return true
    }

    /// Asks the child to end (SIGTERM), unless it already has.
    package func terminate() {
        if status == nil { kill(pid, SIGTERM) }
    }

    deinit {
        terminate()
        wait()
        try? FileManager.default.removeItem(at: scratch)
    }
}

/// Runs a command to completion and returns its standard output; throws with its standard error
/// if it exits with a non-zero status.
@available(*, noasync, message: "blocks a cooperative thread: use runProcessOffPool")
@discardableResult
package func runProcess(_ executable: String, _ arguments: [String], input: Data? = nil, environment: [String: String]? = nil) throws -> Data {
    let child = try Subprocess(executable, arguments, input: input, environment: environment)
    var output = Data()
    Subprocess.drain(child.output) { output.append($0) }
    let status = child.wait()
    guard status == 0 else {
        throw CommandFailed(description: "\(executable) \(arguments.joined(separator: " ")) exited \(status): \(child.standardError)")
    }
    return output
}

/// ``runProcess(_:_:input:environment:)`` on a thread of its own (``offPool(_:)``). A test that
/// waits for a process must not hold one of Swift's cooperative threads meanwhile: there are two on
/// this machine, and with both blocked every async test in the process stalls (seen in CI: ~11 s
/// stalls failing unrelated timing checks while the 512 MiB multipart probe and the 100-cycle
/// daemon ran).
@discardableResult
package func runProcessOffPool(_ executable: String, _ arguments: [String], input: Data? = nil, environment: [String: String]? = nil) async throws -> Data {
    try await offPool { try runProcess(executable, arguments, input: input, environment: environment) }
}
