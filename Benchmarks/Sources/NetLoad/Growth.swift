import AsyncHTTPClient
import BenchmarkSupport
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// `NetLoad growth <raw-urlsession|raw-ahc> <URL> [calls] [steps] [rotate]`: what a raw client keeps
/// per call over a process's life. Makes `calls` small GETs one after another (20,000 by default),
/// `steps` times (5), printing the heap in use (glibc's `mallinfo2`) and the resident memory after
/// each step. With `rotate`, raw URLSession's session is invalidated after each step
/// (`finishTasksAndInvalidate`) and a new one made, to see whether what it keeps goes with its
/// session. Docs/Linux-notes.md quotes it ("FoundationNetworking keeps memory for every call").
func measureGrowth(client: String, base: URL, calls: Int, steps: Int, rotate: Bool) async throws {
    let url = base.appendingPathComponent("small")
    func report(_ label: String) {
        print("\(client) \(label): heap in use \(HeapSampler.heapInUseBytes() / 1024) KiB, "
              + "resident \(ProcessProbe.residentKiB()) KiB")
    }
    switch client {
    case "raw-urlsession":
        func makeSession() -> URLSession {
            URLSession(configuration: .likeNetsTransport(connectionsPerHost: 8), delegate: NoRedirects(), delegateQueue: nil)
        }
        var session = makeSession()
        report("before any call")
        for step in 1...steps {
            for _ in 0..<calls { _ = try await session.data(from: url) }
            report("after \(step * calls) calls")
            if rotate {
                session.finishTasksAndInvalidate()
                session = makeSession()
            }
        }
    case "raw-ahc":
        let httpClient = HTTPClient(eventLoopGroupProvider: .singleton, configuration: .likeNetsTransport(connectionsPerHost: 8))
        report("before any call")
        for step in 1...steps {
            for _ in 0..<calls {
                let response = try await httpClient.execute(HTTPClientRequest(url: url.absoluteString), timeout: .seconds(60))
                _ = try await response.body.collect(upTo: 1 << 20)
            }
            report("after \(step * calls) calls")
        }
        try await httpClient.shutdown()
    default:
        usage()
    }
}
