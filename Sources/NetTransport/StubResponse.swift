import Foundation
import NetCore

/// What a ``StubTransport`` answers: a canned response or a transport failure, after an optional delay.
public struct StubResponse: Sendable {
    /// The answer itself.
    public enum Outcome: Sendable {
        /// A response with this status, these headers and this body.
        case response(status: HTTPCode, headers: [NetworkHeader], body: Data)
        /// The exchange fails with this transport error.
        case failure(NetworkError.TransportFailure)
    }

    /// The answer.
    public var outcome: Outcome
    /// How long the stub waits before answering; cancellation and the request's timeout apply.
    public var delay: Duration

    /// Creates a stub answer.
    public init(_ outcome: Outcome, delay: Duration = .zero) {
        self.outcome = outcome
        self.delay = delay
    }

    /// A response with `status`, optional headers and body.
    public static func status(_ status: HTTPCode, headers: [NetworkHeader] = [], body: Data = Data()) -> StubResponse {
        StubResponse(.response(status: status, headers: headers, body: body))
    }

    /// A UTF-8 text response, labelled `text/plain; charset=utf-8` unless `headers` set another
    /// `Content-Type` (`text/event-stream`, say).
    public static func text(_ text: String, status: HTTPCode = .ok, headers: [NetworkHeader] = []) -> StubResponse {
        .status(status, headers: labelled("text/plain; charset=utf-8", headers), body: utf8Data(text))
    }

    /// A JSON response from JSON text, labelled `application/json` unless `headers` set another
    /// `Content-Type`.
    public static func json(_ json: String, status: HTTPCode = .ok, headers: [NetworkHeader] = []) -> StubResponse {
        .status(status, headers: labelled("application/json", headers), body: utf8Data(json))
    }

    /// The text's UTF-8 bytes, copied at once (`Data(text.utf8)` goes through dynamic casts first:
    /// a handler that answers with `.text(…)` makes one per request).
    private static func utf8Data(_ text: String) -> Data {
        var text = text
        return text.withUTF8 { Data($0) }
    }

    /// `headers`, led by `Content-Type: contentType` when they set none: one field, never two.
    private static func labelled(_ contentType: String, _ headers: [NetworkHeader]) -> [NetworkHeader] {
        headers.contains { NetworkHeaders.sameName($0.name, "Content-Type") } ? headers : [.header(key: "Content-Type", value: contentType)] + headers
    }

    /// A JSON response encoding `value` (keys sorted), labelled `application/json`.
    public static func json<Value: Encodable>(
        encoding value: Value, status: HTTPCode = .ok, headers: [NetworkHeader] = [], encoder: JSONEncoder = NetworkRequest.defaultJSONEncoder()
    ) throws -> StubResponse {
        let body: Data
        do { body = try encoder.encode(value) } catch {
            throw NetworkError.request(.encodeError(type: String(describing: Value.self), description: "\(error)"))
        }
        return .status(status, headers: labelled("application/json", headers), body: body)
    }

    /// A response whose body is a fixture file, read now.
    ///
    /// - Throws: ``NetworkError/RequestFailure/unreadableBodyFile(path:reason:)`` if it cannot be read.
    public static func fixture(_ file: URL, status: HTTPCode = .ok, contentType: String? = nil, headers: [NetworkHeader] = []) throws -> StubResponse {
        let body: Data
        do { body = try Data(contentsOf: file) } catch {
            throw NetworkError.request(.unreadableBodyFile(path: file.path, reason: "\(error)"))
        }
        let typeHeader = contentType.map { [NetworkHeader.header(key: "Content-Type", value: $0)] } ?? []
        return .status(status, headers: typeHeader + headers, body: body)
    }

    /// A transport failure, such as `.timedOut("…")` or `.connectionLost("…")`.
    public static func failure(_ failure: NetworkError.TransportFailure) -> StubResponse {
        StubResponse(.failure(failure))
    }

    /// The same answer, given after `delay`.
    public func delayed(by delay: Duration) -> StubResponse {
        var copy = self
        copy.delay = delay
        return copy
    }
}
