// Runs one exchange through URLSessionTransport and prints how it ended, for the faults that can
// stop a process inside FoundationNetworking, so the test process survives to check the outcome.
//
//   URLSessionFaultProbe URL
//       one GET (a server closing inside the header block stops the process)
//   URLSessionFaultProbe timed SECONDS URL
//       one GET with that deadline, for a redirect whose body never ends: prints its outcome,
//       how long it took and the growth of the process's peak resident memory over it, then
//       waits to be ended
//   URLSessionFaultProbe upload grow|shrink URL
//       PUTs a sparse 32 MiB file and, at the first upload progress report, grows it by 100 KB
//       or cuts it 2 MiB past what has gone; Net then stops the upload mid-send, which
//       FoundationNetworking's own file source could answer by stopping the process
//       (Docs/Linux-notes.md); Net's stream must not
import Foundation
import NetCore
import NetTransport
import Synchronization

/// The sparse 32 MiB file `upload` sends: no memory to make it.
func sparseFile() throws -> URL {
    let file = FileManager.default.temporaryDirectory.appendingPathComponent("net-probe-upload-\(UUID().uuidString)")
    guard FileManager.default.createFile(atPath: file.path, contents: nil) else { throw CocoaError(.fileWriteUnknown) }
    let sizing = try FileHandle(forWritingTo: file)
    try sizing.truncate(atOffset: 32 << 20)
    try sizing.close()
    return file
}

/// Sends the file to `url`, changing it as `mode` says at the first upload progress report.
func upload(_ mode: String, to url: String) async throws -> TransportResponse {
    let file = try sparseFile()
    defer { try? FileManager.default.removeItem(at: file) }
    let changed = Mutex(false)
    let request = try NetworkRequest(url: url, httpMethod: .put, body: .file(file), timeout: .seconds(3_600))
    return try await URLSessionTransport().send(request) { progress in
        guard progress.direction == .upload, changed.withLock({ done in defer { done = true }; return !done }) else { return }
        guard let handle = try? FileHandle(forUpdating: file) else { return }
        defer { try? handle.close() }
        if mode == "grow" {
            _ = try? handle.seekToEnd()
            try? handle.write(contentsOf: Data(count: 100_000))
        } else {
            try? handle.truncate(atOffset: UInt64(progress.completedBytes) + (2 << 20))
        }
    }
}

/// The process's peak resident memory so far (VmHWM), in KB.
func peakKilobytes() -> Int {
    let status = (try? String(contentsOfFile: "/proc/self/status", encoding: .utf8)) ?? ""
    let line = status.split(separator: "\n").first { $0.hasPrefix("VmHWM:") } ?? ""
    return Int(line.split(separator: " ").dropFirst().first ?? "") ?? 0
}

/// Whether `timed`'s call has ended, for its watchdog on another thread.
final class EndFlag: Sendable {
    let value = Mutex(false)
}

/// One GET with a deadline of `seconds`. Prints one line: its outcome, the seconds it took and
/// the growth of the peak over it (`error … | elapsed 2.003 | peak growth KB 37424`), then stays
/// alive until ended, so that the parent can see which connections the process still holds. If
/// the call has not ended 10 s past its deadline, it says so and exits 1 at once, so that a broken
/// deadline cannot leave it buffering an endless body.
func timed(_ seconds: String, _ url: String) async -> Int32 {
    let deadline = Int(seconds) ?? 5
    let ended = EndFlag()
    // A thread of its own, not Dispatch's: a stuck `cancel()` holds one of Dispatch's threads.
    Thread.detachNewThread {
        Thread.sleep(forTimeInterval: TimeInterval(deadline + 10))
        guard !ended.value.withLock({ $0 }) else { return }
        FileHandle.standardOutput.write(Data("no end \(deadline + 10) s after the call began\n".utf8))
        _exit(1)
    }
    let before = peakKilobytes()
    let start = ContinuousClock.now
    let outcome: String
    do {
        let response = try await URLSessionTransport().send(try NetworkRequest(url: url, timeout: .seconds(deadline)))
        outcome = "response \(response.head.statusCode) \(response.body.count) bytes"
    } catch {
        outcome = "error \(error)"
    }
    let elapsed = ContinuousClock.now - start
    ended.value.withLock { $0 = true }
    let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
    // Written at once (not through stdout's buffer): the parent reads it while this process lives.
    FileHandle.standardOutput.write(Data("\(outcome) | elapsed \(seconds) | peak growth KB \(peakKilobytes() - before)\n".utf8))
    // Ended by the parent; gone by itself after two minutes if the parent is gone.
    try? await Task.sleep(for: .seconds(120))
    return 0
}

func run() async -> Int32 {
    let arguments = Array(CommandLine.arguments.dropFirst())
    if arguments.count == 3 && arguments[0] == "timed" { return await timed(arguments[1], arguments[2]) }
    do {
        let response: TransportResponse
        switch arguments.count {
        case 1:
            response = try await URLSessionTransport().send(try NetworkRequest(url: arguments[0], timeout: .seconds(5)))
        case 3 where arguments[0] == "upload" && ["grow", "shrink"].contains(arguments[1]):
            response = try await upload(arguments[1], to: arguments[2])
        default:
            FileHandle.standardError.write(Data("usage: URLSessionFaultProbe URL | timed SECONDS URL | upload grow|shrink URL\n".utf8))
            return 2
        }
        print("response \(response.head.statusCode) \(response.body.count) bytes")
        return 0
    } catch {
        print("error \(error)")
        return 0
    }
}

exit(await run())
