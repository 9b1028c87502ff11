import AsyncHTTPClient
import BenchmarkSupport
import Foundation
import Net
import NetAsyncHTTPClient
import NetOpenAPI
import OpenAPIAsyncHTTPClient
import OpenAPIRuntime
import OpenAPIURLSession
import HTTPTypes
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The generated client of Tests/NetOpenAPITests/OpenAPI/openapi.yaml (its files are linked into
/// `OpenAPIGenerated/`) on each transport NetLoad's `openapi` command compares, configured as
/// `LoadClient`'s: 64 connections per host, redirects not followed, no cookies or cache, a 60 s
/// limit per call, the same decompression setting. Net's transports run under a `NetworkClient`
/// with no interceptors.
enum OpenAPILoadClient: String {
    case netAHC = "net-ahc"
    case openAPIAHC = "openapi-ahc"
    case netURLSession = "net-urlsession"
    case openAPIURLSession = "openapi-urlsession"

    /// The generated client on this transport, against `base` (the server's `/api`).
    func client(base: URL) -> Client {
        Client(serverURL: base.appendingPathComponent("api"), transport: transport)
    }

    private var transport: any ClientTransport {
        switch self {
        case .netAHC:
            NetOpenAPITransport(session: NetworkClient(transport: LoadClient.netAHCTransport, redirectPolicy: .doNotFollow))
        case .openAPIAHC:
            OpenAPIAsyncHTTPClient.AsyncHTTPClientTransport(configuration: .init(client: LoadClient.ahc, timeout: .seconds(60)))
        case .netURLSession:
            NetOpenAPITransport(session: NetworkClient(transport: LoadClient.netURLSessionTransport, redirectPolicy: .doNotFollow))
        case .openAPIURLSession:
            // On Linux the runtime reads response bodies whole (no `URLSession.bytes(for:)` there).
            OpenAPIURLSession.URLSessionTransport(configuration: .init(session: LoadClient.urlSession))
        }
    }
}

extension Client {
    /// `listItems`, its JSON decoded; returns the number of items.
    func listOneItem() async throws -> Int {
        try await listItems(query: .init(limit: 1)).ok.body.json.items.count
    }

    /// Downloads `size` bytes through `download`, reading the body chunk by chunk as it arrives;
    /// returns the number of bytes read.
    func download(size: Int64) async throws -> Int {
        var total = 0
        for try await chunk in try await download(path: .init(size: size)).ok.body.binary { total += chunk.count }
        return total
    }
}

/// NetLoad's `openapi` command: `seq` and `par64` call `listItems` `requests` times (one after
/// another, or 64 in flight); `download` reads `requests` MB through `download`, once per run.
func measureOpenAPI(client kind: OpenAPILoadClient, workload: String, base: URL, requests: Int, runs: Int) async throws {
    let client = kind.client(base: base)
    let label = "openapi \(kind.rawValue) \(workload)"
    switch workload {
    case "seq":
        try await measure(label: label, requests: requests, runs: runs) {
            for _ in 0..<requests { _ = try await client.listOneItem() }
        }
    case "par64":
        try await measure(label: label, requests: requests, runs: runs) {
            try await withThrowingTaskGroup(of: Void.self) { group in
                for worker in 0..<64 {
                    group.addTask {
                        for _ in stride(from: worker, to: requests, by: 64) { _ = try await client.listOneItem() }
                    }
                }
                try await group.waitForAll()
            }
        }
    case "download":
        let size = Int64(requests) * 1_000_000
        try await measureThroughput(label: label, bytes: Int(size), runs: runs) {
            let read = try await client.download(size: size)
            guard read == Int(size) else { throw OpenAPILoadError.shortBody(expected: Int(size), read: read) }
        }
    default:
        usage()
    }
}

/// A download that ended early: the figure would not be for the bytes it names.
enum OpenAPILoadError: Error {
    case shortBody(expected: Int, read: Int)
}

/// The generated client's `listItems` without a network, for the `session` command: `openapi-canned`
/// goes through `NetOpenAPITransport` and a `NetworkClient` (no interceptors) on `CannedTransport`,
/// `openapi-bare` through a `ClientTransport` that hands back the same answer itself. The
/// difference is what Net's layer costs a generated call.
enum OpenAPICannedScenario {
    /// NetLoad's server's answer to `listItems`, byte for byte.
    static let itemList = Data(#"{"items":[{"id":1,"name":"kettle","tags":["kitchen"]}],"query":"limit=1"}"#.utf8)

    static func send(_ kind: String) throws -> (@Sendable () async throws -> Void)? {
        let base = URL(string: "http://127.0.0.1:8080/api")!  // a literal: safe
        let transport: any ClientTransport
        switch kind {
        case "openapi-canned":
            let canned = try CannedTransport(body: itemList, contentType: "application/json")
            transport = NetOpenAPITransport(session: NetworkClient(transport: canned, redirectPolicy: .doNotFollow))
        case "openapi-bare":
            transport = CannedClientTransport()
        default:
            return nil
        }
        let client = Client(serverURL: base, transport: transport)
        return { _ = try await client.listOneItem() }
    }
}

/// A `ClientTransport` answering every request with `listItems`' JSON, as a peer's transport
/// would hand it over: a head and a body of known length.
struct CannedClientTransport: ClientTransport {
    func send(_ request: HTTPRequest, body: HTTPBody?, baseURL: URL, operationID: String) async throws -> (HTTPResponse, HTTPBody?) {
        var fields = HTTPFields()
        fields[.contentType] = "application/json"
        fields[.contentLength] = String(OpenAPICannedScenario.itemList.count)
        return (HTTPResponse(status: .ok, headerFields: fields), HTTPBody(OpenAPICannedScenario.itemList))
    }
}
