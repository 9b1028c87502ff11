import Foundation
import NetCore

extension NetworkSession {
    /// Downloads `request`'s body to `destination`, continuing from the bytes an earlier,
    /// interrupted call left, and keeping what arrives if this call is interrupted too.
    ///
    /// The body is written to `destination` + `.part` as it arrives, described by
    /// `destination` + `.part.json` (the URL and the response's validator). When the body is
    /// complete it is renamed onto `destination` and both files are gone. When the call fails
    /// (the connection drops, the task is cancelled, the process is killed), they stay, and the
    /// next call for the same URL and destination asks only for the rest:
    /// `Range: bytes=N-` with `If-Range` set to the strong `ETag`, or to the `Last-Modified` date
    /// of a response without an entity tag when that date is strong (a minute or more before the
    /// response's `Date`, RFC 9110 §8.8.2.2).
    ///
    /// The destination never holds a corrupt file:
    /// - a `206` is appended only when its `Content-Range` starts at the partial file's length
    ///   and runs to the end of the representation, and its validator is the recorded one;
    ///   otherwise the download starts over;
    /// - a `200` (the server ignored the range, or the representation changed and `If-Range`
    ///   no longer matches) or a `416` starts over from the first byte;
    /// - a response without such a validator (a weak entity tag, a recent or missing date), or
    ///   with a content coding, can be downloaded but not continued: if such a call fails, its
    ///   partial bytes are removed;
    /// - the whole call, both requests and the body, is bounded by the request's timeout or the
    ///   session's, as ``requestDownload(for:to:progress:)`` is;
    /// - `Accept-Encoding: identity` is sent, so byte offsets count the bytes the file holds.
    ///
    /// Any other status (a 404, a 503) leaves the destination and the partial bytes as they were:
    /// its body goes to a new file in the temporary directory, which the response's `url` names
    /// and which is yours to read or delete.
    ///
    /// - Throws: ``NetworkError/RequestFailure/unresumableMethod(_:)`` for a method other than
    ///   GET; ``NetworkError/TransportFailure/cannotWriteBody(path:reason:)`` before anything is
    ///   sent when `destination`'s name leaves no room for `.part.json` (a file name holds 255
    ///   bytes); otherwise what the call throws, after keeping the partial bytes.
    public nonisolated func requestResumableDownload(
        for request: any NetworkRequestConvertible, to destination: URL, progress: NetworkProgressReporter? = nil
    ) async throws -> NetworkDownloadResponse {
        defer { progress?.finish() }
        let whole = try request.asNetworkRequest()
        let settings = await settings()
        let deadline = CallDeadline(request: whole, timeout: settings.timeout, clock: settings.clock)
        return try await deadline.run { _ in try await self.resumableDownload(whole, to: destination, progress: progress) }
    }

    private nonisolated func resumableDownload(
        _ request: NetworkRequest, to destination: URL, progress: NetworkProgressReporter?
    ) async throws -> NetworkDownloadResponse {
        var whole = request
        guard whole.httpMethod == .get else { throw NetworkError.request(.unresumableMethod(whole.httpMethod.rawValue)) }
        try whole.headers.set(name: "Accept-Encoding", value: "identity")
        let partial = PartialDownload(destination: destination)
        try partial.checkNames()  // before anything is sent
        let writer = PartialBodyWriter(partial: partial, originalRequest: whole, progress: progress)

        if let point = partial.resumePoint(for: whole.url) {
            var ranged = whole
            try ranged.headers.set(name: "Range", value: "bytes=\(point.offset)-")
            try ranged.headers.set(name: "If-Range", value: point.ifRange)
            let response = try await stream(ranged, toFile: true)
            switch response.statusCode.rawValue {
            case 206:
                // The validator must be the one the bytes were recorded with: a server (or a proxy)
                // that honours Range but ignores If-Range would otherwise splice two versions.
                if let range = response.response.headers["Content-Range"].flatMap(ContentRange.init),
                   range.first == point.offset, let complete = range.complete, range.last + 1 == complete,
                   PartialDownload.record(for: response.response, url: whole.url)?.ifRange == point.ifRange {
                    return try await writer.append(response, at: point.offset, complete: complete)
                }
            case 416:
                break
            default:
                return try await writer.receive(response)
            }
            // A range that does not continue these bytes: the response is dropped unread (its
            // connection closed) and the whole representation fetched again.
        }
        return try await writer.receive(try await stream(whole, toFile: true))
    }
}

/// Writes one response of a resumable download where it belongs.
private struct PartialBodyWriter {
    let partial: PartialDownload
    let originalRequest: NetworkRequest
    let progress: NetworkProgressReporter?

    /// A whole response: a `200` starts the partial file over; any other status goes to a
    /// temporary file, leaving the destination and the partial file alone.
    func receive(_ response: NetworkStreamResponse) async throws -> NetworkDownloadResponse {
        guard response.statusCode == 200 else { return try await deliverAsIs(response) }
        let record = PartialDownload.record(for: response.response, url: originalRequest.url)
        let file = try partial.restart(recording: record)
        // A server may encode despite `identity`: its Content-Length then counts encoded bytes,
        // and the transport's framing has checked them; the decoded size is not known.
        let complete = response.response.hasContentCoding ? nil : response.response.expectedContentLength
        return try await write(response, to: file, from: 0, complete: complete, resumable: record != nil)
    }

    /// The rest of the representation, appended to the partial file at `offset`.
    func append(_ response: NetworkStreamResponse, at offset: Int64, complete: Int64) async throws -> NetworkDownloadResponse {
        try await write(response, to: try partial.reopen(at: offset), from: offset, complete: complete, resumable: true)
    }

    private func write(
        _ response: NetworkStreamResponse, to file: FileHandle, from offset: Int64, complete: Int64?, resumable: Bool
    ) async throws -> NetworkDownloadResponse {
        do {
            let report = progress.map { progress in
                { @Sendable (total: Int64) in _ = progress.yield(NetworkProgress(direction: .download, completedBytes: total, expectedBytes: complete)) }
            }
            let written: Int64
            do {
                written = try await response.body.write(to: file, from: offset, path: partial.partURL.path, progress: report)
            } catch {
                try? file.close()
                throw error
            }
            // Checked: a file system that reports a failed write only when the file is closed
            // (NFS, a quota) must not see the part file published as complete.
            do { try file.close() } catch {
                throw NetworkError.transport(.cannotWriteBody(path: partial.partURL.path, reason: "\(error)"))
            }
            if let complete, written != complete {
                throw NetworkError.transport(.connectionLost("the body ended after \(written) of \(complete) bytes"))
            }
        } catch {
            if !resumable { partial.discard() }
            throw error
        }
        try partial.complete()
        var download = NetworkDownloadResponse(url: partial.destination, response: response.response, originalRequest: originalRequest)
        // The metrics of the request that delivered the body, up to its head.
        download.metrics = response.metrics
        return download
    }

    /// Writes the body to a new file in the temporary directory.
    private func deliverAsIs(_ response: NetworkStreamResponse) async throws -> NetworkDownloadResponse {
        let url = NetworkDownloadResponse.newTemporaryFile()
        _ = try await BodyCollector(destination: .file(url), limit: nil, progress: nil).collect(response)
        var download = NetworkDownloadResponse(url: url, response: response.response, originalRequest: originalRequest)
        download.isNetsTemporaryFile = true
        // The metrics of the request that delivered the body, up to its head.
        download.metrics = response.metrics
        return download
    }
}
