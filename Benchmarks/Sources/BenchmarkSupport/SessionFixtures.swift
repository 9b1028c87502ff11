import Foundation
import Net

/// A session with every default: the protocol's own interceptors (which change nothing).
public actor BareSession: NetworkSession {
    public let transport: any Transport
    public init(transport: any Transport) { self.transport = transport }
}

/// The cheapest possible transport: one canned response, nothing recorded. Beside StubTransport
/// it shows how much of a request's cost is the session layer and how much the stub.
public struct CannedTransport: Transport {
    let head: NetworkResponseHead
    let body: Data

    /// A 200 with `body`, its `contentType` if any, and, when `cacheable`, `Cache-Control: max-age=3600`.
    public init(body: Data = Data("ok".utf8), contentType: String? = nil, cacheable: Bool = false) throws {
        let url = try NetworkRequest(url: "https://api.example.com/items").url
        var fields: [NetworkHeader] = []
        if cacheable { fields.append(.header(key: "Cache-Control", value: "max-age=3600")) }
        if let contentType { fields.append(.header(key: "Content-Type", value: contentType)) }
        let headers = try NetworkHeaders(fields)
        head = NetworkResponseHead(statusCode: 200, headers: headers, url: url)
        self.body = body
    }

    public func exchange(_ request: NetworkRequest, progress: TransportProgressHandler?) async throws -> NetworkStreamResponse {
        NetworkStreamResponse(response: head, body: NetworkResponseBody(body), originalRequest: request)
    }
}
