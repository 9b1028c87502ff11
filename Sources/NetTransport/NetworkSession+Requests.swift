import Foundation
import NetCore

/// Where a session call reports progress: the continuation of an `AsyncStream` you create before
/// the call, so no early event is lost. The session finishes the stream when the call returns.
///
/// ```swift
/// let (events, progress) = AsyncStream.makeStream(of: NetworkProgress.self)
/// async let response = session.requestDownload(for: url, progress: progress)
/// for await event in events { print(event.fractionCompleted ?? 0) }
/// ```
public typealias NetworkProgressReporter = AsyncStream<NetworkProgress>.Continuation

extension NetworkSession {
    /// Sends `request` and returns the response with its body in memory.
    public nonisolated func requestData(for request: any NetworkRequestConvertible, progress: NetworkProgressReporter? = nil) async throws -> NetworkDataResponse {
        let relay = ProgressRelay.make(progress)
        defer { relay?.finish() }
        return try await performCall(request, call: .data, progress: relay?.report).dataResponse()
    }

    /// Sends `request` and writes the response body to a file.
    ///
    /// The body lands at `destination` atomically, replacing any file there, once the response is
    /// final (after interceptors and retries) and successful (2xx) with a body: never a partial
    /// file, never an error page. Another status's body, and the empty body of a 204, a 205 or a
    /// HEAD, goes to a new file in the temporary directory, as it does without a destination: the
    /// response's `url` names it, and it is yours to move or delete (``NetworkResponse/validate(correctRange:errorModel:decoder:)``
    /// removes it when it throws your error model).
    public nonisolated func requestDownload(
        for request: any NetworkRequestConvertible, to destination: URL? = nil, progress: NetworkProgressReporter? = nil
    ) async throws -> NetworkDownloadResponse {
        let relay = ProgressRelay.make(progress)
        defer { relay?.finish() }
        let target = destination ?? NetworkDownloadResponse.newTemporaryFile()
        var response = try await performCall(request, call: .download(target), progress: relay?.report).downloadResponse()
        response.isNetsTemporaryFile = response.url != destination
        return response
    }

    /// Sends `request` with `bodyData` as its body (replacing any body it had). A bare URL or URL
    /// string is sent as a POST; a ``NetworkRequest`` keeps its method.
    public nonisolated func requestUpload(for request: any NetworkRequestConvertible, from bodyData: Data, progress: NetworkProgressReporter? = nil) async throws -> NetworkUploadResponse {
        try await upload(request, body: .data(bodyData), progress: progress)
    }

    /// Sends `request` with the file at `fileURL` as its body, streamed from disk. A bare URL or URL
    /// string is sent as a POST; a ``NetworkRequest`` keeps its method.
    public nonisolated func requestUpload(for request: any NetworkRequestConvertible, fromFile fileURL: URL, progress: NetworkProgressReporter? = nil) async throws -> NetworkUploadResponse {
        try await upload(request, body: .file(fileURL), progress: progress)
    }

    /// Sends `request` with the body it already has (a multipart form, a stream, a file).
    public nonisolated func requestUpload(for request: any NetworkRequestConvertible, progress: NetworkProgressReporter? = nil) async throws -> NetworkUploadResponse {
        try await upload(request, body: nil, progress: progress)
    }

    /// Sends `request` and returns as soon as the response head arrives, with the body to read as
    /// it comes (see ``NetworkResponseBody``).
    ///
    /// Interceptors, retries and redirects apply as to every call; the deadline (the request's
    /// timeout or ``timeout``) ends when the head arrives, so a long stream is not cut off. The
    /// call is finished (its concurrency permit freed) when the body ends, fails or is dropped;
    /// cancel the reading task to stop early.
    ///
    /// ```swift
    /// let stream = try await client.requestStream(for: "https://example.com/events")
    /// for try await chunk in stream.body { print(chunk.count) }
    /// ```
    public nonisolated func requestStream(for request: any NetworkRequestConvertible) async throws -> NetworkStreamResponse {
        try await stream(request, toFile: false)
    }

    /// ``requestStream(for:)``, marked for the transport as a body the caller writes to a file as
    /// it arrives (`toFile`), which a transport may keep less of in memory.
    @inline(__always)  // into its callers: no async frame of its own held while the call runs
    nonisolated func stream(_ request: any NetworkRequestConvertible, toFile: Bool) async throws -> NetworkStreamResponse {
        try await performCall(request, call: .stream(toFile: toFile), progress: nil).streamResponse()
    }

    private nonisolated func upload(_ request: any NetworkRequestConvertible, body: NetworkRequestBody?, progress: NetworkProgressReporter?) async throws -> NetworkUploadResponse {
        let relay = ProgressRelay.make(progress)
        defer { relay?.finish() }
        // A bare address is sent as a POST, by `SessionCall.request(from:)`.
        return try await performCall(request, call: .upload(body), progress: relay?.report).uploadResponse()
    }
}
