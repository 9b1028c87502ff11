import Foundation
import NetCore
import NetTransport
import NetTestSupport
import Testing

/// Bodies in an archive: bounded in all, charged one by one past the total, and replayed as
/// failures whenever what was recorded is not the whole body (unreadable, not base64, failed,
/// cut by a cancelled reader), or as far as it was read.
extension HARTests {
    @Test("the archive's bodies are bounded in all: past the total, entries are kept without their bodies, which replay as failures")
    func boundedInAll() async throws {
        let stub = StubTransport()
        stub.on(.post, "/echo", handler: { request in .status(.ok, body: request.body.data ?? Data()) })
        let recorder = HARRecorder(maximumBodySize: 1_000, maximumTotalBodySize: 3_000)
        let client = NetworkClient(transport: recorder.recording(stub))
        for _ in 0..<3 {
            _ = try await client.requestData(for: try NetworkRequest(url: "https://example.com/echo", httpMethod: .post, httpBody: Data(repeating: 65, count: 800)))
        }
        let entries = recorder.archive.log.entries
        #expect(entries.count == 3 && recorder.droppedEntryCount == 0)
        #expect(entries[0].request.postData?.text?.count == 800 && entries[0].response.content.text?.count == 800)
        // Charged body by body: the second request's 800 bytes fit (2,400), its answer's would not.
        #expect(entries[1].request.postData?.text?.count == 800)
        #expect(entries[1].response.content.text == nil && entries[1].response.content.comment?.contains("800 bytes not recorded") == true)
        #expect(entries[2].request.postData?.text == nil && entries[2].request.postData?.comment?.contains("800 bytes not recorded") == true)
        #expect(entries[2].response.content.text == nil && entries[2].response.content.comment?.contains("800 bytes not recorded") == true)
        for matchingBodies in [false, true] {
            let replay = NetworkClient(transport: StubTransport(replaying: recorder.archive, matchingBodies: matchingBodies))
            let sent = try NetworkRequest(url: "https://example.com/echo", httpMethod: .post, httpBody: Data(repeating: 65, count: 800))
            _ = try await replay.requestData(for: sent)
            await #expect {
                _ = try await replay.requestData(for: sent)
            } throws: { error in
                guard case NetworkError.transport(.other(let message)) = error else { return false }
                return message.contains("no body to replay")
            }
        }
    }

    @Test("past the total, each body is charged on its own: an empty answer is kept whole, a small one fits beside a request that does not")
    func boundedInAllPerSide() async throws {
        let stub = StubTransport()
        stub.on(.post, "/store", respond: .status(.created))
        stub.on(.post, "/small", respond: .text("ok"))
        let recorder = HARRecorder(maximumBodySize: 1_000, maximumTotalBodySize: 900)
        let client = NetworkClient(transport: recorder.recording(stub))
        for path in ["/store", "/store", "/small"] {
            _ = try await client.requestData(for: try NetworkRequest(url: "https://example.com\(path)", httpMethod: .post, httpBody: Data(repeating: 66, count: 800)))
        }
        let entries = recorder.archive.log.entries
        #expect(entries[0].request.postData?.text?.count == 800)
        #expect(entries[1].request.postData?.text == nil && entries[1].response.content.comment == nil)
        #expect(entries[2].request.postData?.text == nil && entries[2].response.content.text == "ok")
    }

    @Test("a request body file that cannot be read is said to be so, not described as over the limit")
    func unreadableBodyFile() async throws {
        let stub = StubTransport()
        stub.on(.post, "/upload", respond: .status(.noContent))
        let recorder = HARRecorder()
        let client = NetworkClient(transport: recorder.recording(stub))
        let missing = URL(fileURLWithPath: "/nonexistent/\(UUID().uuidString).bin")
        _ = try? await client.requestData(for: try NetworkRequest(url: "https://example.com/upload", httpMethod: .post, body: .file(missing)))
        let comment = try #require(recorder.archive.log.entries.first?.request.postData?.comment)
        #expect(comment.hasPrefix("the body file could not be read") && !comment.contains("over"), "\(comment)")
    }

    @Test("a recorded body that is not valid base64 replays as a failure naming it, not as an empty body")
    func damagedBase64() async throws {
        let stub = StubTransport()
        stub.on(.get, "/bin", respond: .status(.ok, body: Data([0, 1, 2, 255])))
        let recorder = HARRecorder()
        _ = try await NetworkClient(transport: recorder.recording(stub)).requestData(for: "https://example.com/bin")
        var archive = recorder.archive
        #expect(archive.log.entries.first?.response.content.encoding == "base64")
        archive.log.entries[0].response.content.text = "not base64 at all!"
        let replay = NetworkClient(transport: StubTransport(replaying: archive))
        await #expect {
            _ = try await replay.requestData(for: "https://example.com/bin")
        } throws: { error in
            guard case NetworkError.transport(.other(let message)) = error else { return false }
            return message.contains("not valid base64") && message.contains("https://example.com/bin")
        }
    }

    @Test("an answer whose body failed part-way, or was too large to record, replays as a failure naming it, not as a whole body")
    func partialBodiesReplayAsFailures() async throws {
        let recorder = HARRecorder(maximumBodySize: 1_000)
        let client = NetworkClient(transport: recorder.recording(URLSessionTransport()))
        // A real server that sends 100 of its 1,000 bytes and resets; and a body over the limit.
        let truncated = try await TransportTest.request("/truncated")
        await #expect(throws: NetworkError.self) { _ = try await client.requestData(for: truncated) }
        let stub = StubTransport()
        stub.on(.get, "/big", respond: .status(.ok, body: Data(repeating: 7, count: 10_000)))
        _ = try await NetworkClient(transport: recorder.recording(stub)).requestData(for: "https://example.com/big")
        let archive = recorder.archive
        #expect(archive.log.entries.first?.comment?.hasPrefix("the body failed after") == true, "\(archive.log.entries.first?.comment ?? "none")")
        let replay = NetworkClient(transport: StubTransport(replaying: archive))
        for (url, expected) in [(truncated.url.absoluteString, "the body failed after"), ("https://example.com/big", "no body to replay")] {
            await #expect {
                _ = try await replay.requestData(for: url)
            } throws: { error in
                guard case NetworkError.transport(.other(let message)) = error else { return false }
                return message.contains(expected) && message.contains(url)
            }
        }
    }

    @Test("a body cut by cancelling its reader replays as a failure, not as a whole body of what had arrived", .timeLimit(.minutes(3)))
    func cancelledReadReplaysAsFailure() async throws {
        let recorder = HARRecorder()
        let client = NetworkClient(transport: recorder.recording(URLSessionTransport()))
        // The server sends 10 of 20 bytes, then waits ten minutes.
        let request = try await TransportTest.request("/stall-body/600000")
        let (firstChunk, chunkRead) = AsyncStream.makeStream(of: Int.self)
        let reader = Task {
            let response = try await client.requestStream(for: request)
            for try await chunk in response.body { chunkRead.yield(chunk.count) }
        }
        var chunks = firstChunk.makeAsyncIterator()
        #expect(await chunks.next() == 10)  // the body is being read
        reader.cancel()
        _ = await reader.result
        #expect(recorder.archive.log.entries.first?.comment?.hasPrefix("the body failed after 10 bytes") == true,
                "\(recorder.archive.log.entries.first?.comment ?? "no entry")")
        let replay = NetworkClient(transport: StubTransport(replaying: recorder.archive))
        await #expect {
            _ = try await replay.requestData(for: request.url.absoluteString)
        } throws: { error in
            guard case NetworkError.transport(.other(let message)) = error else { return false }
            return message.contains("the body failed after")
        }
    }

    @Test("a body the caller left unfinished, without an error, replays as far as it was read", .timeLimit(.minutes(3)))
    func droppedReadReplaysWhatWasRead() async throws {
        let recorder = HARRecorder()
        let client = NetworkClient(transport: recorder.recording(URLSessionTransport()))
        // The server sends 10 of 20 bytes, then waits ten minutes; the caller stops after the first chunk.
        let request = try await TransportTest.request("/stall-body/600000")
        do {
            let response = try await client.requestStream(for: request)
            for try await chunk in response.body {
                #expect(chunk.count == 10)
                break
            }
        }
        // The entry is kept once the dropped body has ended it.
        #expect(await eventually(within: TestTiming.hangGuard) { !recorder.archive.log.entries.isEmpty })
        let entry = try #require(recorder.archive.log.entries.first)
        #expect(entry.comment?.hasPrefix("the body was not read to its end") == true, "\(entry.comment ?? "no comment")")
        let replay = NetworkClient(transport: StubTransport(replaying: recorder.archive))
        let replayed = try await replay.requestData(for: request.url.absoluteString)
        #expect(replayed.data.count == 10)
    }
}
