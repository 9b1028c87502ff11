import Foundation
import NetCore

extension StubTransport {
    /// A stub that answers with the exchanges of a HAR archive (one ``HARRecorder`` wrote, or a
    /// browser exported), so code recorded once against a real server can be tested offline.
    ///
    /// A request is answered by the entries with its method and URL (compared after Net's
    /// redaction, as the recorder wrote them) and, with `matchingBodies`, its body: the first
    /// such entry first, then the next, the last repeating, so a recorded sequence (a 503 then a
    /// 200) plays back in order. An entry recorded as a failure (status 0) fails again, as
    /// `NetworkError.transport(.other)`, and so does one whose body ``HARRecorder`` recorded as
    /// failing part-way or as too large to keep (rather than serve part of a body, or none, as if
    /// it were whole); a request the archive does not hold fails the same way, naming it. Bodies
    /// are served decoded, as recorded, without their recorded `Content-Encoding` or
    /// `Content-Length`; a body a browser's archive does not hold is empty, and one the caller
    /// dropped unfinished while recorded (an event stream left early) is served as far as it was
    /// read. A body cut by a cancellation or a deadline was recorded as failing, and fails.
    public convenience init(replaying archive: HARArchive, matchingBodies: Bool = false) {
        self.init()
        let entries = archive.log.entries
        let served = Locked([Int: Int]())
        on(nil, "*") { request in
            let url = NetworkRedaction.redactedURL(request.url, secretQueryKeys: request.secretQueryKeys)
            let body = matchingBodies ? try Self.recordedText(of: request) : nil
            let candidates = entries.indices.filter { index in
                let recorded = entries[index].request
                guard recorded.method == request.httpMethod.rawValue, recorded.url == url else { return false }
                guard matchingBodies else { return true }
                // A body the recorder did not keep matches any: the entry then replays as the
                // failure that says so, not as another entry's answer.
                if let postData = recorded.postData, postData.text == nil,
                   postData.comment?.hasPrefix(HAREntryWriter.notRecordedMarker) == true { return true }
                return (recorded.postData?.text ?? "") == (body ?? "")
            }
            guard let first = candidates.first else {
                return .failure(.other("the HAR archive holds no exchange for \(request.httpMethod.rawValue) \(url)"))
            }
            let position = served.withLock { served in
                defer { served[first, default: 0] += 1 }
                return served[first, default: 0]
            }
            return Self.replay(entries[candidates[min(position, candidates.count - 1)]])
        }
    }

    /// A stub replaying the HAR file at `fileURL`; see ``init(replaying:matchingBodies:)``.
    ///
    /// - Throws: ``HARError`` when the file cannot be read or is not a HAR log.
    public convenience init(replaying fileURL: URL, matchingBodies: Bool = false) throws {
        let data: Data
        do { data = try Data(contentsOf: fileURL) } catch {
            throw HARError.unreadable(path: fileURL.path, reason: "\(error)")
        }
        self.init(replaying: try HARArchive(data: data), matchingBodies: matchingBodies)
    }

    private static func replay(_ entry: HARArchive.Entry) -> StubResponse {
        guard entry.response.status > 0 else { return .failure(.other(entry.comment ?? "a recorded failure")) }
        let exchange = "\(entry.request.method) \(entry.request.url)"
        if let comment = entry.comment, comment.hasPrefix(HAREntryWriter.failedMarker) {
            return .failure(.other("the recorded answer to \(exchange) failed: \(comment)"))
        }
        if entry.response.content.text == nil, let comment = entry.response.content.comment,
           comment.hasPrefix(HAREntryWriter.notRecordedMarker) {
            return .failure(.other("the recorded answer to \(exchange) has no body to replay: \(comment)"))
        }
        let framing: Set<String> = ["content-length", "content-encoding", "transfer-encoding"]
        let headers = entry.response.headers
            .filter { !framing.contains($0.name.lowercased()) }
            .map { NetworkHeader(name: $0.name, value: $0.value) }
        let content = entry.response.content
        let body: Data
        switch (content.text, content.encoding) {
        case (let text?, "base64"?):
            // A damaged body is replayed as a failure naming it, not as an empty body.
            guard let decoded = Data(base64Encoded: text) else {
                return .failure(.other("the recorded body of \(entry.request.method) \(entry.request.url) is not valid base64"))
            }
            body = decoded
        case (let text?, _): body = Data(text.utf8)
        case (nil, _): body = Data()
        }
        return .status(HTTPCode(rawValue: entry.response.status), headers: headers, body: body)
    }

    /// The request body as the recorder writes it, for matching.
    private static func recordedText(of request: NetworkRequest) throws -> String {
        let data: Data
        switch request.body {
        case .none: return ""
        case .data(let bytes): data = bytes
        case .file(let url): data = (try? Data(contentsOf: url)) ?? Data()
        case .stream: return ""
        }
        return HAREntryWriter.recordedText(of: data, request: request)
    }
}
