#if OpenAPI && AsyncHTTPClient  // the package traits: `swift test --enable-all-traits`
import AsyncHTTPClient
import Foundation
import HTTPTypes
import Net
import NetAsyncHTTPClient
import NetOpenAPI
@_spi(NetInternals) import NetTransport
import OpenAPIAsyncHTTPClient
import OpenAPIRuntime
import OpenAPIURLSession
import Testing
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The generated client's transports: NetOpenAPITransport over each of Net's transports, and the
/// two published ones for comparison.
enum ClientUnderTest: String, CaseIterable, CustomTestStringConvertible, Sendable {
    case netURLSession = "NetOpenAPITransport(URLSessionTransport)"
    case netAsyncHTTPClient = "NetOpenAPITransport(AsyncHTTPClientTransport)"
    case openAPIURLSession = "swift-openapi-urlsession"
    case openAPIAsyncHTTPClient = "swift-openapi-async-http-client"

    static let net: [ClientUnderTest] = [.netURLSession, .netAsyncHTTPClient]

    var testDescription: String { rawValue }

    /// Whether the response body reaches the generated code as it arrives. swift-openapi-urlsession
    /// reads it whole on Linux (no `URLSession.bytes(for:)` there).
    var streamsResponses: Bool { self != .openAPIURLSession }

    /// One transport and its pool for the whole test process, per kind: Net's shared by every test
    /// (their sessions differ), the peers' as their READMEs set them up.
    private static let netURLSessionTransport = NetTransport.URLSessionTransport()
    private static let netAsyncHTTPClientTransport = NetAsyncHTTPClient.AsyncHTTPClientTransport()
    private static let peerURLSession = OpenAPIURLSession.URLSessionTransport()
    private static let peerAsyncHTTPClient = OpenAPIAsyncHTTPClient.AsyncHTTPClientTransport()

    /// Net's transport under this client, for a `NetworkClient` a test builds itself.
    var netTransport: any Transport {
        self == .netURLSession ? Self.netURLSessionTransport : Self.netAsyncHTTPClientTransport
    }

    /// The transport: for Net, a `NetworkClient` with `interceptors` and `cache` on it.
    func transport(interceptors: [any NetworkInterceptor] = [], cache: HTTPCache? = nil) -> any ClientTransport {
        switch self {
        case .netURLSession, .netAsyncHTTPClient:
            NetOpenAPITransport(session: NetworkClient(transport: netTransport, interceptors: interceptors, cache: cache))
        case .openAPIURLSession: Self.peerURLSession
        case .openAPIAsyncHTTPClient: Self.peerAsyncHTTPClient
        }
    }

    /// The generated client against the test server, with `middlewares` before the transport.
    func client(interceptors: [any NetworkInterceptor] = [], cache: HTTPCache? = nil,
                middlewares: [any ClientMiddleware] = []) async throws -> Client {
        Client(serverURL: try await OpenAPITestServer.serverURL(), transport: transport(interceptors: interceptors, cache: cache),
               middlewares: middlewares)
    }
}

/// Remembers the path (with its query) of each request the generated code made, as it handed it
/// to the transport.
final class GeneratedPaths: ClientMiddleware {
    private let paths = Locked<[String]>([])

    var all: [String] { paths.withLock { $0 } }

    func intercept(_ request: HTTPRequest, body: HTTPBody?, baseURL: URL, operationID: String,
                   next: @Sendable (HTTPRequest, HTTPBody?, URL) async throws -> (HTTPResponse, HTTPBody?)) async throws -> (HTTPResponse, HTTPBody?) {
        paths.withLock { $0.append(request.path ?? "") }
        return try await next(request, body, baseURL)
    }
}

/// Adds a header to every request the generated code makes.
struct AddHeader: ClientMiddleware {
    let name: HTTPField.Name
    let value: String

    func intercept(_ request: HTTPRequest, body: HTTPBody?, baseURL: URL, operationID: String,
                   next: @Sendable (HTTPRequest, HTTPBody?, URL) async throws -> (HTTPResponse, HTTPBody?)) async throws -> (HTTPResponse, HTTPBody?) {
        var request = request
        request.headerFields[name] = value
        return try await next(request, body, baseURL)
    }
}
#endif
