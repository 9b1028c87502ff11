// Sends GETs to URL through AsyncHTTPClientTransport on both of AsyncHTTPClient's request APIs
// (read whole into memory and streamed on an idle transport: the delegate API; written to a file:
// the async API), with a tracer bootstrapped in `InstrumentationSystem` first, and prints one JSON
// line: the three statuses and the `url.path` attribute of every span the tracer was asked to
// start. A process of its own because the bootstrap is process-wide and once only: in the test
// process it would reach every client any later test creates.
//
//   TracingProbe URL
import Foundation
#if AsyncHTTPClient && Observability
import InMemoryTracing
import Instrumentation
import NetAsyncHTTPClient
import NetCore
import NetTransport
import Tracing

struct Report: Encodable {
    let wholeStatus: Int, streamedStatus: Int, fileStatus: Int, spanPaths: [String]
}

let tracer = InMemoryTracer()
InstrumentationSystem.bootstrap(tracer)
// Made after the bootstrap: AsyncHTTPClient reads the global tracer when its configuration is made.
let transport = AsyncHTTPClientTransport()
let request = try NetworkRequest(url: CommandLine.arguments[1], query: [.secret(key: "api_key", value: "secret")])
let whole = try await transport.send(request, to: .memory)
let streamed = try await transport.exchange(request, progress: nil)
for try await _ in streamed.body {}
let file = FileManager.default.temporaryDirectory.appendingPathComponent("tracing-probe-\(getpid())")
defer { try? FileManager.default.removeItem(at: file) }
let written = try await transport.send(request, to: .file(file))
// Every span started, ended or not ("-" for one without the attribute).
let spanPaths = (tracer.finishedSpans.map(\.attributes) + tracer.activeSpans.map(\.attributes)).map { attributes in
    guard case .string(let path) = attributes.get("url.path") else { return "-" }
    return path
}
let report = Report(wholeStatus: whole.head.statusCode.rawValue, streamedStatus: streamed.response.statusCode.rawValue,
                    fileStatus: written.head.statusCode.rawValue, spanPaths: spanPaths)
print(String(decoding: try JSONEncoder().encode(report), as: UTF8.self))
#else
print("{}")
#endif
