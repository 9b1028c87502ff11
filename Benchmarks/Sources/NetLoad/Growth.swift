import AsyncHTTPClient
import BenchmarkSupport
import Foundation
import Net
import NetAsyncHTTPClient
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// `NetLoad growth <client> <URL> [calls] [steps] [rotate]`: what a client keeps per call over a
/// process's life. Makes `calls` small GETs one after another (20,000 by default), `steps` times
/// (5), printing the heap in use (glibc's `mallinfo2`) and the resident memory after each step.
/// Clients: `raw-urlsession` (its async `data(from:)`), `raw-urlsession-delegate` (data tasks through
/// a session delegate, as Net's transport drives URLSession), `net-urlsession-client` and
/// `net-ahc-client` (`NetworkClient` on each transport), `raw-ahc`. With `rotate` (raw URLSession
/// only), the session is invalidated after each step (`finishTasksAndInvalidate`) and a new one
/// made. Docs/Linux-notes.md quotes it ("Memory kept for every call").
func measureGrowth(client: String, base: URL, calls: Int, steps: Int, rotate: Bool) async throws {
    let url = base.appendingPathComponent("small")
    let label = rotate ? "\(client) rotate" : client
    func report(_ moment: String) {
        print("\(label) \(moment): heap in use \(HeapSampler.heapInUseBytes() / 1024) KiB, "
              + "resident \(ProcessProbe.residentKiB()) KiB")
    }
    let call: @Sendable () async throws -> Void
    var rotated: (() -> Void)?
    switch client {
    case "raw-urlsession":
        let sessions = Protected(URLSession(configuration: .likeNetsTransport(connectionsPerHost: 8), delegate: NoRedirects(), delegateQueue: nil))
        call = { _ = try await sessions.withLock { $0 }.data(from: url) }
        if rotate {
            rotated = {
                sessions.withLock { session in
                    session.finishTasksAndInvalidate()
                    session = URLSession(configuration: .likeNetsTransport(connectionsPerHost: 8), delegate: NoRedirects(), delegateQueue: nil)
                }
            }
        }
    case "raw-urlsession-delegate":
        let reader = DelegateReader(collects: true)
        let session = URLSession(configuration: .likeNetsTransport(connectionsPerHost: 8), delegate: reader, delegateQueue: nil)
        call = { _ = try await reader.read(session.dataTask(with: URLRequest(url: url))) }
    case "net-urlsession-client":
        let network = NetworkClient(transport: URLSessionTransport())
        call = { _ = try await network.requestData(for: url) }
    case "net-ahc-client":
        let network = NetworkClient(transport: AsyncHTTPClientTransport())
        call = { _ = try await network.requestData(for: url) }
    case "raw-ahc":
        let httpClient = HTTPClient(eventLoopGroupProvider: .singleton, configuration: .likeNetsTransport(connectionsPerHost: 8))
        call = {
            let response = try await httpClient.execute(HTTPClientRequest(url: url.absoluteString), timeout: .seconds(60))
            _ = try await response.body.collect(upTo: 1 << 20)
        }
    default:
        usage()
    }
    guard !rotate || rotated != nil else { usage() }
    report("before any call")
    for step in 1...steps {
        for _ in 0..<calls { try await call() }
        report("after \(step * calls) calls")
        rotated?()
    }
}
