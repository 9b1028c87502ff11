// Streams SIZE bytes from an in-process server (FaultServer's /flood) through `requestStream` on
// TRANSPORT (urlsession, ahc, or ahc-beside: AsyncHTTPClientTransport with another stream held
// open beside it, so that the measured one takes AsyncHTTPClient's async API) with a consumer
// that stops after its first chunk until the server is either blocked by the client's
// backpressure or done writing, then reads the rest, checking every byte. Prints one JSON line: bytes read, whether every byte was right, the server's events,
// and resident memory (VmHWM, the peak) before the request and at the end. A process of its own,
// so nothing else moves the peak. `download-TRANSPORT` sends the body to a file with
// `requestDownload` instead (the peak taken when the call returns, the file's bytes checked after).
//
//   StreamProbe [download-]TRANSPORT SIZE
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import NetCore
import NetTransport
import Synchronization
#if AsyncHTTPClient
import NetAsyncHTTPClient
#endif

struct Report: Encodable {
    let transport: String, bytes: Int, intact: Bool, events: [String], baselinePeakKB: Int, peakKB: Int
    /// On AsyncHTTPClientTransport, whether the measured stream was sent to the home loop (the
    /// delegate API) rather than through the async API.
    var wentHome: Bool? = nil
}

func peakResidentKB() -> Int {
    let status = (try? String(contentsOfFile: "/proc/self/status", encoding: .utf8)) ?? ""
    let line = status.split(separator: "\n").first { $0.hasPrefix("VmHWM:") } ?? ""
    return Int(line.split(whereSeparator: { $0 == " " || $0 == "\t" }).dropFirst().first ?? "") ?? -1
}

/// Compares `chunk` with the pattern (byte i = i % 251) at `offset`, a period at a time.
let period = [UInt8]((0..<(251 * 2)).map { UInt8($0 % 251) })

func matchesPattern(_ chunk: Data, at offset: Int) -> Bool {
    chunk.withUnsafeBytes { bytes in
        var position = 0
        while position < bytes.count {
            let start = (offset + position) % 251
            let length = min(251, bytes.count - position)
            let same = period.withUnsafeBytes { memcmp(bytes.baseAddress! + position, $0.baseAddress! + start, length) == 0 }  // both non-empty here
            if !same { return false }
            position += length
        }
        return true
    }
}

func run() async throws -> Int32 {
    let arguments = CommandLine.arguments
    guard arguments.count >= 3, let size = Int(arguments[2]) else {
        FileHandle.standardError.write(Data("usage: StreamProbe [download-]urlsession|ahc|ahc-beside SIZE\n".utf8))
        return 2
    }
    if arguments[1] == "raw-urlsession" { return try await rawURLSession(size: size) }
    let downloads = arguments[1].hasPrefix("download-")
    let transport: any Transport
    switch downloads ? String(arguments[1].dropFirst("download-".count)) : arguments[1] {
    case "urlsession": transport = URLSessionTransport()
    #if AsyncHTTPClient
    case "ahc", "ahc-beside": transport = AsyncHTTPClientTransport()
    #endif
    default:
        FileHandle.standardError.write(Data("unknown transport \(arguments[1])\n".utf8))
        return 2
    }
    let client = NetworkClient(transport: transport)
    let key = UUID().uuidString
    _ = try await client.requestData(for: FaultServer.shared.baseURL + "/ok?size=10")  // warm up: threads, pools
    // Held open and never read: the transport is not idle while the measured stream runs.
    let beside = arguments[1] == "ahc-beside"
        ? try await client.requestStream(for: FaultServer.shared.baseURL + "/flood?key=\(key)-beside&size=\(size)") : nil
    if downloads { return try await download(size: size, key: key, client: client, transport: arguments[1]) }
    let baseline = peakResidentKB()
    let homeBefore = sentHome(transport)
    let stream = try await client.requestStream(for: FaultServer.shared.baseURL + "/flood?key=\(key)&size=\(size)")
    var iterator = stream.body.makeAsyncIterator()
    var bytes = 0
    var intact = true
    if let first = try await iterator.next() {
        intact = matchesPattern(first, at: 0)
        bytes = first.count
    }
    // The slow part of the consumer: nothing more is read until the server cannot go on.
    while arguments.count == 3, !FaultServer.shared.events(key).contains(where: { $0 == "blocked" || $0 == "finished" }) {
        try await Task.sleep(for: .milliseconds(10))
    }
    while let chunk = try await iterator.next() {
        intact = intact && matchesPattern(chunk, at: bytes)
        bytes += chunk.count
    }
    var report = Report(transport: arguments[1], bytes: bytes, intact: intact, events: FaultServer.shared.events(key),
                        baselinePeakKB: baseline, peakKB: peakResidentKB())
    if let before = homeBefore, let after = sentHome(transport) { report.wentHome = after > before }
    withExtendedLifetime(beside) {}  // dropped only now: its connection closes
    FileHandle.standardOutput.write(try JSONEncoder().encode(report))
    return 0
}

/// `requestDownload` of the flood to a file in a new temporary directory, then every byte of the
/// file checked against the pattern.
func download(size: Int, key: String, client: NetworkClient, transport: String) async throws -> Int32 {
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent("stream-probe-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: directory) }
    let destination = directory.appendingPathComponent("flood.bin")
    let baseline = peakResidentKB()
    // The call's deadline covers the body: a debug build under a sanitizer may take minutes for 1 GiB.
    let request = try NetworkRequest(url: FaultServer.shared.baseURL + "/flood?key=\(key)&size=\(size)", timeout: .seconds(1_800))
    let response = try await client.requestDownload(for: request, to: destination)
    let peak = peakResidentKB()
    let file = try FileHandle(forReadingFrom: response.url)
    defer { try? file.close() }
    var (bytes, intact) = (0, true)
    while let chunk = try file.read(upToCount: 1 << 20), !chunk.isEmpty {
        intact = intact && matchesPattern(chunk, at: bytes)
        bytes += chunk.count
    }
    let report = Report(transport: transport, bytes: bytes, intact: intact && response.statusCode == 200,
                        events: FaultServer.shared.events(key), baselinePeakKB: baseline, peakKB: peak)
    FileHandle.standardOutput.write(try JSONEncoder().encode(report))
    return 0
}

/// How many exchanges `transport` sent to its home loop so far, on AsyncHTTPClientTransport.
func sentHome(_ transport: any Transport) -> Int? {
    #if AsyncHTTPClient
    return (transport as? AsyncHTTPClientTransport)?.exchangesSentHome
    #else
    return nil
    #endif
}

/// The same body through URLSession with a delegate that only checks and counts the bytes: the
/// figure to compare URLSessionTransport's with.
func rawURLSession(size: Int) async throws -> Int32 {
    final class Counter: NSObject, URLSessionDataDelegate, Sendable {
        let state = Mutex<(bytes: Int, intact: Bool)>((0, true))
        let done = DispatchSemaphore(value: 0)
        func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
            state.withLock { $0 = ($0.bytes + data.count, $0.intact && matchesPattern(data, at: $0.bytes)) }
        }
        func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?) { done.signal() }
    }
    let counter = Counter()
    let session = URLSession(configuration: .default, delegate: counter, delegateQueue: nil)
    let key = UUID().uuidString
    let baseline = peakResidentKB()
    // The URL is built from our own server's address: it is valid.
    session.dataTask(with: URL(string: FaultServer.shared.baseURL + "/flood?key=\(key)&size=\(size)")!).resume()
    await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
        DispatchQueue.global().async {
            counter.done.wait()
            continuation.resume()
        }
    }
    let (bytes, intact) = counter.state.withLock { $0 }
    let report = Report(transport: "raw-urlsession", bytes: bytes, intact: intact, events: FaultServer.shared.events(key),
                        baselinePeakKB: baseline, peakKB: peakResidentKB())
    FileHandle.standardOutput.write(try JSONEncoder().encode(report))
    return 0
}

exit(try await run())
