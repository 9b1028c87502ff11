import Foundation
import NetCore
import NetTransport
import Testing

/// Response heads whose fields the rules of ``NetworkHeaders`` refuse, trim or keep, sent as raw
/// bytes by `FaultServer`: whatever the library below does with them (AsyncHTTPClient's parser
/// refuses some responses whole; libcurl passes them on), the caller never holds a field those
/// rules forbid.
extension TransportFaults {
    static let headers: [Fault] = [
        Fault(name: "header values from the wire: spaces and tabs around them removed, a tab inside kept") { subject in
            let response = try await subject.make().send(try request("/odd-header-values"))
            #expect(response.head.headers["X-Padded"] == "padded", "\(response.head.headers)")
            #expect(response.head.headers["X-Inner"] == "a\tb")
            #expect(response.head.headers["X-Trailing"] == "v")
            try await expectNoHalfClosedSockets()
        },
        Fault(name: "a control character in a header value, or a name that is not a token: a typed error, or fields without them") { subject in
            // One transport for every case: each URLSession made and dropped costs the whole
            // suite's URLSession checks time (FoundationNetworking shares its work between them).
            let transport = subject.make()
            // NUL, a bare CR, other controls and DEL inside a value.
            for byte in [0, 1, 0x0D, 0x1F, 0x7F] {
                try await expectAllowedFieldsOrRefusal(transport, "/control-header?byte=\(byte)") { headers in
                    // Where the value is kept, the control is a space (what Net's rules make of it).
                    if let value = headers["X-Ctl"], [1, 0x1F, 0x7F].contains(byte) { #expect(value == "a b", "byte \(byte)") }
                }
            }
            for kind in ["at", "space", "utf8"] {
                try await expectAllowedFieldsOrRefusal(transport, "/bad-name-header?kind=\(kind)") { _ in }
            }
            try await expectNoHalfClosedSockets()
        },
    ]

    /// Sends `target`: its response's fields must all be allowed (token names; values without
    /// controls other than tab, or DEL, and without surrounding spaces or tabs), or the exchange
    /// must fail with a typed transport error that is not the deadline's.
    private static func expectAllowedFieldsOrRefusal(
        _ transport: any Transport, _ target: String, _ more: (NetworkHeaders) -> Void
    ) async throws {
        do {
            let response = try await transport.send(try request(target))
            for field in response.head.headers {
                #expect((try? field.validated()).map { $0.value == field.value } == true, "\(target): \(field.name): \(field.value.debugDescription)")
            }
            more(response.head.headers)
        } catch NetworkError.transport(let failure) {
            if case .timedOut = failure { Issue.record("\(target): timed out instead of a refusal") }
        }
    }
}
