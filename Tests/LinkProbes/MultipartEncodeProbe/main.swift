// Encodes a form with one file part and a few fields, draining the body stream as a transport
// would, then prints one JSON line: bytes, seconds, MB/s and the process's peak RSS. The memory
// test runs it as a separate process so nothing else inflates the peak.
import Foundation
import NetCore
import NetMultipart

guard CommandLine.arguments.count == 2 else {
    FileHandle.standardError.write(Data("usage: MultipartEncodeProbe FILE\n".utf8))
    exit(2)
}
let file = URL(fileURLWithPath: CommandLine.arguments[1])
let form = try NetworkMultipartForm(parts: [
    NetworkMultipartFormDataRequest(name: "title", value: "probe"),
    NetworkMultipartFormFileRequest(name: "file", fileURL: file),
    NetworkMultipartFormJsonRequest(name: "meta", value: ["size": "large"]),
])
func drain(_ stream: NetworkBodyStream) async throws -> Int64 {
    var reader = stream.makeReader()
    var total: Int64 = 0
    while let chunk = try await reader.next() { total += Int64(chunk.count) }
    return total
}
let started = ContinuousClock.now
let total = try await drain(form.bodyStream())
let elapsed = ContinuousClock.now - started
let seconds = elapsed.secondsValue
// VmHWM, this process's own peak: getrusage's ru_maxrss carries the spawning process's peak
// across exec on Linux, so a busy test process (hundreds of MiB) showed as the probe's.
let status = (try? String(contentsOfFile: "/proc/self/status", encoding: .utf8)) ?? ""
let peakLine = status.split(separator: "\n").first { $0.hasPrefix("VmHWM:") } ?? ""
let peakKiB = Int(peakLine.split(separator: " ").dropFirst().first ?? "") ?? -1
let megabytes = Double(total) / 1_048_576
print("{\"bytes\":\(total),\"expected\":\(form.contentLength),\"seconds\":\(seconds),\"mbPerSecond\":\(megabytes / seconds),\"peakRSSKiB\":\(peakKiB)}")
