import Foundation
import NetCore
import NetTransport
import NetTestSupport
import Testing

/// Resumable downloads against Werkzeug, whose range and `If-Range` handling is not Net's, and
/// which cuts responses at chosen byte positions.
@Suite("Resumable downloads against Werkzeug")
struct ResumableDownloadTests {
    struct LoggedRequest: Decodable, Equatable {
        var range: String?
        var ifRange: String?
        var acceptEncoding: String?
        var status: Int
    }

    let session = NetworkClient(transport: URLSessionTransport())

    func peer() async throws -> String { try await WerkzeugPeer.shared.baseURL() }

    func log(_ name: String) async throws -> [LoggedRequest] {
        let data = try await session.requestData(for: "\(try await peer())/log/\(name)").data
        return try JSONDecoder().decode([LoggedRequest].self, from: data)
    }

    func content(_ name: String, size: Int) async throws -> Data {
        try await session.requestData(for: "\(try await peer())/content/\(name)?size=\(size)").data
    }

    func scratch() throws -> URL {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("net-resume-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        return directory
    }

    func fileSize(_ url: URL) -> Int64? {
        (try? FileManager.default.attributesOfItem(atPath: url.path)[.size] as? NSNumber)?.int64Value
    }

    @Test("cut at random points and continued each time: the file equals a whole download", arguments: [UInt64(1), 2, 3])
    func cutAndContinued(seed: UInt64) async throws {
        var random = SeededGenerator(seed: seed)
        let size = 1 << 20
        let cuts = (0..<3).map { _ in Int.random(in: 1..<size, using: &random) }.sorted()
        let name = "cut-\(seed)-\(UUID().uuidString.prefix(8))"
        let url = "\(try await peer())/file/\(name)?size=\(size)&cuts=\(cuts.map(String.init).joined(separator: ","))"
        let directory = try scratch()
        defer { try? FileManager.default.removeItem(at: directory) }
        let destination = directory.appendingPathComponent("file.bin")
        let part = URL(fileURLWithPath: destination.path + ".part")

        var offsets: [Int64] = []
        var partModes: [Int] = []
        for attempt in 0...cuts.count {
            offsets.append(fileSize(part) ?? 0)
            do {
                let response = try await session.requestResumableDownload(for: url, to: destination)
                #expect(attempt == Set(cuts).count, "finished after \(attempt) interruptions (cuts: \(cuts))")
                #expect(response.statusCode == (attempt == 0 ? 200 : 206))
                break
            } catch {
                #expect(!FileManager.default.fileExists(atPath: destination.path), "no file at the destination until complete")
                #expect((fileSize(part) ?? 0) > offsets.last ?? 0, "attempt \(attempt) kept its bytes: \(error)")
                partModes.append((try FileManager.default.attributesOfItem(atPath: part.path)[.posixPermissions] as? NSNumber)?.intValue ?? -1)
            }
        }
        #expect(try Data(contentsOf: destination) == (try await content(name, size: size)))
        // URLSessionTransport delivers every byte that arrived: each interruption kept exactly
        // the bytes before its cut (the peer writes up to the cut, then shuts the connection).
        #expect(Array(offsets.dropFirst()) == Set(cuts).sorted().map(Int64.init), "offsets \(offsets), cuts \(cuts)")
        #expect(partModes.allSatisfy { $0 == 0o600 }, "the partial file is owner-only: \(partModes)")
        #expect(!FileManager.default.fileExists(atPath: part.path))
        #expect(!FileManager.default.fileExists(atPath: part.path + ".json"))

        let requests = try await log(name)
        #expect(requests.count == offsets.count)
        for (request, offset) in zip(requests, offsets) {
            #expect(request.acceptEncoding == "identity")
            if offset == 0 {
                #expect(request.range == nil && request.ifRange == nil && request.status == 200)
            } else {
                #expect(request.range == "bytes=\(offset)-" && request.ifRange == "\"\(name)-v0\"" && request.status == 206)
            }
        }
    }

    @Test("the representation changed between calls: If-Range no longer matches, a 200 starts over with the new validator")
    func changedRepresentation() async throws {
        let size = 300_000
        let name = "changed-\(UUID().uuidString.prefix(8))"
        let base = try await peer()
        let url = "\(base)/file/\(name)?size=\(size)&cuts=100000"
        let directory = try scratch()
        defer { try? FileManager.default.removeItem(at: directory) }
        let destination = directory.appendingPathComponent("file.bin")
        await #expect(throws: (any Error).self) { try await session.requestResumableDownload(for: url, to: destination) }
        let old = try await content(name, size: size)
        _ = try await session.requestData(for: try NetworkRequest(url: "\(base)/bump/\(name)", httpMethod: .post))

        // The old bytes are refused by If-Range: the new version comes whole, from byte 0, and is
        // cut at the same point; its bytes replace the old ones, under its own validator.
        await #expect(throws: (any Error).self) { try await session.requestResumableDownload(for: url, to: destination) }
        let response = try await session.requestResumableDownload(for: url, to: destination)
        #expect(response.statusCode == 206)
        let new = try await content(name, size: size)
        #expect(new != old)
        #expect(try Data(contentsOf: destination) == new)
        let requests = try await log(name)
        #expect(requests.map(\.ifRange) == [nil, "\"\(name)-v0\"", "\"\(name)-v1\""])
        #expect(requests.map(\.status) == [200, 200, 206])
    }

    @Test("without an entity tag, a strong Last-Modified date is the If-Range validator")
    func strongDate() async throws {
        let name = "date-\(UUID().uuidString.prefix(8))"
        let url = "\(try await peer())/file/\(name)?size=200000&validator=date&cuts=50000"
        let directory = try scratch()
        defer { try? FileManager.default.removeItem(at: directory) }
        let destination = directory.appendingPathComponent("file.bin")
        await #expect(throws: (any Error).self) { try await session.requestResumableDownload(for: url, to: destination) }
        _ = try await session.requestResumableDownload(for: url, to: destination)
        #expect(try Data(contentsOf: destination) == (try await content(name, size: 200_000)))
        let ifRange = try await log(name).last?.ifRange
        #expect(ifRange?.hasSuffix("GMT") == true, "If-Range was \(ifRange ?? "absent")")
    }

    @Test("a weak entity tag, a Last-Modified within a minute of Date (weak), or no validator at all cannot be continued: an interrupted call leaves no bytes",
          arguments: ["weak", "recentdate", "none"])
    func noValidator(validator: String) async throws {
        let name = "\(validator)-\(UUID().uuidString.prefix(8))"
        let url = "\(try await peer())/file/\(name)?size=200000&validator=\(validator)&cuts=50000"
        let directory = try scratch()
        defer { try? FileManager.default.removeItem(at: directory) }
        let destination = directory.appendingPathComponent("file.bin")
        for _ in 0..<2 {
            await #expect(throws: (any Error).self) { try await session.requestResumableDownload(for: url, to: destination) }
            #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path).isEmpty)
        }
        #expect(try await log(name).map(\.range) == [nil, nil])
    }

    @Test("another status leaves the destination and the partial bytes alone; its body is in a temporary file")
    func otherStatusKeepsPartial() async throws {
        let name = "gone-\(UUID().uuidString.prefix(8))"
        let base = try await peer()
        let directory = try scratch()
        defer { try? FileManager.default.removeItem(at: directory) }
        let destination = directory.appendingPathComponent("file.bin")
        await #expect(throws: (any Error).self) {
            try await session.requestResumableDownload(for: "\(base)/file/\(name)?size=200000&cuts=50000", to: destination)
        }
        let kept = fileSize(URL(fileURLWithPath: destination.path + ".part"))
        let response = try await session.requestResumableDownload(for: "\(base)/missing/\(name)", to: destination)
        #expect(response.statusCode == 404)
        #expect(response.url != destination && !FileManager.default.fileExists(atPath: destination.path))
        #expect(try String(contentsOf: response.url, encoding: .utf8) == "not found")
        try? FileManager.default.removeItem(at: response.url)
        #expect(kept != nil && fileSize(URL(fileURLWithPath: destination.path + ".part")) == kept)
    }

    @Test("the whole call is bounded by the timeout: a body that stalls ends in timedOut, its bytes kept only if resumable")
    func stalledBodyTimesOut() async throws {
        // The loopback server sends the head and 10 bytes, then waits 3 s: the body, not the head, stalls.
        let base = try await LoopbackServer.shared.baseURL()
        let directory = try scratch()
        defer { try? FileManager.default.removeItem(at: directory) }
        let request = try NetworkRequest(url: base.appendingPathComponent("stall-body/3000"), timeout: .milliseconds(500))
        // Without the deadline the server would finish at 3 s and the call succeed.
        await #expect {
            try await session.requestResumableDownload(for: request, to: directory.appendingPathComponent("file"))
        } throws: { error in
            guard case NetworkError.transport(.timedOut) = error else { return false }
            return true
        }
        // That server sends no validator: nothing can be continued, so nothing is kept.
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path).isEmpty)
    }

    @Test("a method other than GET is refused, typed, before anything is sent")
    func onlyGET() async throws {
        let request = try NetworkRequest(url: "\(try await peer())/file/post", httpMethod: .post)
        let destination = try scratch().appendingPathComponent("x")
        await #expect {
            try await session.requestResumableDownload(for: request, to: destination)
        } throws: { error in
            guard case NetworkError.request(.unresumableMethod("POST")) = error else { return false }
            return true
        }
    }
}
