import Foundation
import Testing

/// What a finished process wrote and how it ended.
struct Finished {
    let status: Int32
    let standardOutput: Data
    let standardError: String
    var output: String { String(decoding: standardOutput, as: UTF8.self) }
}

/// Why a test's process could not run.
struct ProcessFailure: Error, CustomStringConvertible {
    let description: String
}

/// Runs programs with `posix_spawn` and reaps them with `waitpid` (Foundation's `Process` on
/// Linux was seen to miss a child's exit). Output goes to files, so no pipe can fill up and stall
/// the child; the blocking wait runs on a Dispatch thread, off Swift's cooperative pool.
enum ProcessRunner {
    /// The directory holding the test bundle, where SwiftPM also puts the `net` executable.
    static let binaryDirectory: URL = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath().deletingLastPathComponent()

    /// The `net` executable built with the tests.
    static var net: String { binaryDirectory.appendingPathComponent("net").path }

    /// Runs `net` with `arguments` and waits for it; with `environment`, that is its whole
    /// environment instead of this process's; with `standardOutput`, its output goes to that path
    /// (a device such as `/dev/full`) and the result's output is empty.
    static func net(_ arguments: [String], environment: [String: String]? = nil,
                    standardOutput: String? = nil) async throws -> Finished {
        try await run(net, arguments, environment: environment, standardOutput: standardOutput)
    }

    /// Runs `program` (looked up on PATH when it has no slash) and waits, killing it after `limit`.
    static func run(_ program: String, _ arguments: [String], limit: Duration = .seconds(60),
                    environment: [String: String]? = nil, standardOutput: String? = nil) async throws -> Finished {
        let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("net-cli-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: scratch) }
        let outputPath = scratch.appendingPathComponent("stdout").path
        let errorPath = scratch.appendingPathComponent("stderr").path
        let pid = try spawn(program, arguments, standardInput: "/dev/null", standardOutput: standardOutput ?? outputPath,
                            standardError: errorPath, environment: environment)
        let status = await wait(pid, limit: limit)
        return Finished(
            status: status,
            standardOutput: standardOutput == nil ? try Data(contentsOf: URL(fileURLWithPath: outputPath)) : Data(),
            standardError: String(decoding: try Data(contentsOf: URL(fileURLWithPath: errorPath)), as: UTF8.self))
    }

    /// Starts `program` with its standard streams opened from the given paths (inherited when a
    /// path is `nil`), then `descriptors` duplicated in the child.
    static func spawn(
        _ program: String, _ arguments: [String],
        standardInput: String?, standardOutput: String?, standardError: String?,
        duplicating descriptors: [(from: Int32, to: Int32)] = [],
        environment: [String: String]? = nil
    ) throws -> pid_t {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        if let standardInput { posix_spawn_file_actions_addopen(&actions, 0, standardInput, O_RDONLY, 0) }
        if let standardOutput { posix_spawn_file_actions_addopen(&actions, 1, standardOutput, O_WRONLY | O_CREAT | O_TRUNC, 0o600) }
        if let standardError { posix_spawn_file_actions_addopen(&actions, 2, standardError, O_WRONLY | O_CREAT | O_TRUNC, 0o600) }
        for (from, to) in descriptors { posix_spawn_file_actions_adddup2(&actions, from, to) }
        // Dispatch's threads block signals and children inherit the mask: reset it, so that
        // SIGTERM reaches the child.
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var none = sigset_t()
        sigemptyset(&none)
        posix_spawnattr_setsigmask(&attributes, &none)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK))

        let argv = ([program] + arguments).map { strdup($0) } + [nil]
        defer { argv.forEach { free($0) } }
        let variables = environment.map { $0.map { strdup("\($0.key)=\($0.value)") } + [nil] }
        defer { variables?.forEach { free($0) } }
        var pid: pid_t = 0
        let result = variables.map { posix_spawnp(&pid, program, &actions, &attributes, argv, $0) }
            ?? posix_spawnp(&pid, program, &actions, &attributes, argv, environ)
        guard result == 0 else {
            throw ProcessFailure(description: "cannot start \(program): \(String(cString: strerror(result)))")
        }
        return pid
    }

    /// Starts a server that prints its port on its first line of output, and returns the port.
    ///
    /// Its standard input is a pipe this process holds open: when the tests exit, the server reads
    /// end of file (or, like `Tests/Peers/tls_peer.py`, sees its parent gone) and exits too, so no
    /// server outlives a run.
    static func startPrintingPort(_ program: String, _ arguments: [String]) throws -> Int {
        var input: [Int32] = [0, 0]
        var output: [Int32] = [0, 0]
        guard pipe(&input) == 0, pipe(&output) == 0 else {
            throw ProcessFailure(description: "pipe: \(String(cString: strerror(errno)))")
        }
        // Close-on-exec: our ends must not stay open in other children. (A `net` started by a
        // parallel test in the instant before this could inherit one; it exits in seconds, and
        // the server sees end of file then.)
        for descriptor in input + output { _ = fcntl(descriptor, F_SETFD, FD_CLOEXEC) }
        _ = try spawn(program, arguments, standardInput: nil, standardOutput: nil, standardError: "/dev/null",
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
                throw ProcessFailure(description: "\(arguments.first ?? program) exited before printing its port (is python3 installed, with Werkzeug?)")
            }
            line.append(contentsOf: buffer[..<count])
        }
        guard let port = Int(String(decoding: line, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)) else {
            throw ProcessFailure(description: "\(arguments.first ?? program) printed \(String(decoding: line, as: UTF8.self)) instead of a port")
        }
        return port
    }

    /// Waits for `pid` on a Dispatch thread; kills it once `limit` has passed. Returns its exit
    /// status, or 128 + the signal that ended it.
    static func wait(_ pid: pid_t, limit: Duration) async -> Int32 {
        let deadline = DispatchWorkItem { kill(pid, SIGKILL) }
        DispatchQueue.global().asyncAfter(deadline: .now() + .milliseconds(Int(limit.components.seconds * 1000)), execute: deadline)
        let status: Int32 = await withCheckedContinuation { continuation in
            DispatchQueue.global().async {
                var raw: Int32 = 0
                while waitpid(pid, &raw, 0) < 0 && errno == EINTR {}
                continuation.resume(returning: raw)
            }
        }
        deadline.cancel()
        // WIFEXITED / WEXITSTATUS / WTERMSIG, which Swift does not import as functions.
        return status & 0x7F == 0 ? (status >> 8) & 0xFF : 128 + (status & 0x7F)
    }
}
