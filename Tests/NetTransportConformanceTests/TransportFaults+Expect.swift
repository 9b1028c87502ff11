import Foundation
import NetCore
import NetTransport
import Testing

/// A caller's own `Expect: 100-continue` (RFC 9110 §10.1.1), against `FaultServer`'s `/expect`:
/// run with the faults by each transport's fault suite.
extension TransportFaults {
    static let expectations: [Fault] = [
        Fault(name: "a caller's Expect: 100-continue reaches the server; after its 100 Continue the body (200 KB), from memory and from a file, arrives whole and the final response is read") { subject in
            let transport = subject.make()
            // 200 KB: more than a file body's first read, and cheap to checksum in a debug build on
            // a busy machine (the server's checksum and this one are byte loops).
            let body = Data((0..<200_000).map { UInt8(truncatingIfNeeded: $0 &* 7) })
            let file = FileManager.default.temporaryDirectory.appendingPathComponent("net-expect-\(UUID().uuidString)")
            try body.write(to: file)
            defer { try? FileManager.default.removeItem(at: file) }
            for source in [NetworkRequestBody.data(body), .file(file)] {
                let key = UUID().uuidString
                let response = try await transport.send(try NetworkRequest(
                    url: FaultServer.shared.baseURL + "/expect?key=\(key)", httpMethod: .post,
                    headers: [.header(key: "Expect", value: "100-continue")], body: source, timeout: deadline))
                #expect(response.head.statusCode == 200, "\(source)")
                #expect(String(decoding: response.body, as: UTF8.self) == "\(body.count) \(FaultServer.checksum(body))", "\(source)")
                let events = FaultServer.shared.events(key)
                #expect(events.count == 1, "the server saw the expectation once: \(events)")
                print("Expect: 100-continue, \(type(of: transport)), body from \(source): \(events.first ?? "") bytes of the body came before the 100")
            }
        },
        Fault(name: "a caller's Expect: 100-continue answered 417 and a close: the 417 is the response, not an error") { subject in
            // 8 MiB: more than the kernel's buffers take, so a client that sends without waiting
            // is still sending when the 417 comes.
            let body = Data(count: 8 << 20)
            for _ in 0..<2 {  // the second on a fresh connection, the first one having closed
                let response = try await subject.make().send(try NetworkRequest(
                    url: FaultServer.shared.baseURL + "/expect?answer=417", httpMethod: .post,
                    headers: [.header(key: "Expect", value: "100-continue")], body: .data(body), timeout: deadline))
                #expect(response.head.statusCode == 417)
                #expect(response.body == Data("nope".utf8))
            }
            try await expectNoHalfClosedSockets()
        },
    ]
}
