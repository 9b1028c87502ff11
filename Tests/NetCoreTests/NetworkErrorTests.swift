import Foundation
import NetCore
import Testing

@Suite("NetworkError descriptions")
struct NetworkErrorTests {
    @Test("Request failures name the offending input", arguments: [
        (NetworkError.RequestFailure.invalidMethod("GE T"), "\"GE T\""),
        (.invalidHeader(name: "X-A", reason: .emptyName), "\"X-A\""),
        (.invalidHeader(name: "Bad Name", reason: .invalidNameCharacter(" ")), "U+0020"),
        (.encodeError(type: "Film", description: "NaN"), "Film"),
        (.invalidTimeout(.seconds(-1)), "-1"),
        (.unreadableBodyFile(path: "/tmp/x", reason: "No such file or directory"), "/tmp/x"),
        (.bodyLengthMismatch(expected: 10, actual: 7), "10 bytes but produced 7"),
        (.invalidURL("https://a b", reason: .containsWhitespaceOrControlCharacter), "\"https://a b\""),
        (.invalidURL("x\ny", reason: .containsWhitespaceOrControlCharacter), "\"xU+000Ay\""),
    ])
    func requestFailures(failure: NetworkError.RequestFailure, fragment: String) {
        let description = NetworkError.request(failure).description
        #expect(description.hasPrefix("Invalid request: "))
        #expect(description.contains(fragment), "\(description)")
    }

    @Test("Transport failures say what happened", arguments: [
        (NetworkError.TransportFailure.cannotConnect("connection refused to 127.0.0.1:9"), "cannot connect: connection refused to 127.0.0.1:9"),
        (.timedOut("after 0.5 s"), "timed out: after 0.5 s"),
        (.connectionLost("12 bytes missing"), "connection lost: 12 bytes missing"),
        (.cancelled, "cancelled"),
        (.tls("certificate expired"), "TLS failure: certificate expired"),
        (.other("weird"), "weird"),
    ])
    func transportFailures(failure: NetworkError.TransportFailure, expected: String) {
        #expect(NetworkError.transport(failure).description == "Transport failure: \(expected)")
    }

    @Test("Response failures name the status and the URL, and carry the response")
    func responseFailures() throws {
        let request = try NetworkRequest(url: "https://api.test/films")
        let response = NetworkDataResponse(data: Data(), response: NetworkResponseHead(statusCode: 503, url: request.url), originalRequest: request)
        let failure = NetworkError.ResponseFailure.invalidStatusCode(response, 503)
        #expect(NetworkError.responseData(failure).description == "Data response: unacceptable status 503 Service Unavailable from https://api.test/films")
        #expect(failure.response.statusCode == 503)
        let contentType = NetworkError.ResponseFailure.invalidContentType(response, expected: ["application/json"], actual: nil)
        #expect(contentType.description.contains("(none)") && contentType.description.contains("application/json"))
    }

    @Test("Errors cross task boundaries")
    func sendable() async throws {
        let error = NetworkError.transport(.cancelled)
        let description = await Task.detached { error.description }.value
        #expect(description == "Transport failure: cancelled")
    }
}
