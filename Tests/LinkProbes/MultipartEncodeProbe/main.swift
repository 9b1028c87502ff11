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
var usage = rusage()
getrusage(RUSAGE_SELF.rawValue, &usage)
let megabytes = Double(total) / 1_048_576
print("{\"bytes\":\(total),\"expected\":\(form.contentLength),\"seconds\":\(seconds),\"mbPerSecond\":\(megabytes / seconds),\"peakRSSKiB\":\(usage.ru_maxrss)}")
