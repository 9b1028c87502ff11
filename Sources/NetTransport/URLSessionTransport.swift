import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import NetCore

/// A ``Transport`` on URLSession (FoundationNetworking on Linux), built so that the Linux
/// URLSession bugs measured on Swift 6.3.1 never reach callers:
///
/// - cancellation is bridged by Net itself: the caller gets `CancellationError` at once, and the
///   URLSession task is stopped off-thread only if it has not completed (the async convenience
///   APIs hang or crash when cancelled);
/// - one long-lived session with a session delegate (a 401 without one hangs forever);
/// - redirects are refused here and followed by the pipeline, so 307 and 308 resend their body
///   (URLSession sends 0 bytes);
/// - timeouts are the pipeline's deadline: 0.5 s means 0.5 s, where URLSession truncates to
///   whole seconds;
/// - the body is handed over as it arrives (URLSession's download temp files, never deleted on
///   Linux, are not used), buffered in 1 MiB of memory and then a nameless temporary file,
///   because libcurl cannot pause a transfer; a download to a file is written to it as it
///   arrives, with 256 KiB of memory until its writing begins;
/// - request bodies go out as streams of Net's own with their `Content-Length`, so that libcurl's
///   resend after a reused connection died gets the body from its start, and files are read as
///   libcurl sends them (FoundationNetworking's own file upload can stop the process when stopped
///   mid-send: Docs/Linux-notes.md); streamed bodies up to 1 MiB are sent from memory, larger
///   ones spooled to a temporary file first, which is deleted on every path.
///
/// Create one per process (or per configuration) and share it: it keeps connections alive.
/// Cookies and URLSession's own cache are off, so responses depend only on the request.
///
/// Not fixable here: on Linux, FoundationNetworking keeps a copy of every request's URL for the
/// life of the process (about 0.15 KiB per call with a short URL, 1.15 KiB with a 1,000-byte
/// query; Docs/Linux-notes.md, "Memory kept for every call"). A long-running process that makes
/// many calls should use `AsyncHTTPClientTransport`.
public final class URLSessionTransport: Transport {
    /// The settings this transport was created with.
    public let configuration: Configuration
    private let session: URLSession
    private let delegate: SessionDelegate
    /// Where tasks are created and resumed. FoundationNetworking makes those calls wait (`sync`)
    /// for the session's internal queue, which is busy while libcurl works through many
    /// transfers; made from Swift's cooperative pool (two threads here), those waits stalled every
    /// async task in the process for seconds. A serial Dispatch queue gets a thread of its own, so
    /// only this transport's submissions wait, and the caller's deadline and cancellation hold
    /// meanwhile (``TaskBridge/wait(_:deadline:)``).
    private let taskQueue = DispatchQueue(label: "Net.URLSessionTransport.tasks")
    /// Where tasks are cancelled: `cancel()` waits like the calls above, and must not hold up new
    /// requests behind it.
    private let cancelQueue = DispatchQueue(label: "Net.URLSessionTransport.cancels")

    /// Creates a transport with its own URLSession.
    public init(configuration: Configuration = Configuration()) {
        self.configuration = configuration
        let delegate = SessionDelegate()
        let sessionConfiguration = URLSessionConfiguration.default
        sessionConfiguration.httpCookieStorage = nil
        sessionConfiguration.httpShouldSetCookies = false
        sessionConfiguration.urlCache = nil
        sessionConfiguration.requestCachePolicy = .reloadIgnoringLocalCacheData
        sessionConfiguration.httpMaximumConnectionsPerHost = configuration.maximumConnectionsPerHost
        self.delegate = delegate
        #if canImport(FoundationNetworking)
        let delegateQueue: OperationQueue? = DelegateQueue()
        #else
        let delegateQueue: OperationQueue? = nil
        #endif
        self.session = URLSession(configuration: sessionConfiguration, delegate: delegate, delegateQueue: delegateQueue)
    }

    deinit {
        // URLSession keeps its delegate (and itself) alive until invalidated.
        session.finishTasksAndInvalidate()
    }

    /// Sends `request` and returns as soon as its response head arrives; for a call that reads the
    /// body whole into memory (`requestData`), once the body has ended or passed 64 KiB, so a
    /// small body reaches the caller with its head in one hand-off.
    ///
    /// The body then arrives whether or not it is being read (libcurl cannot pause): up to 1 MiB
    /// waits in memory (256 KiB for a download to a file, whose chunks are written to it where
    /// they arrive once its writing has begun), and the rest in a nameless temporary file in
    /// ``Configuration/temporaryDirectory`` until read, so memory stays bounded.
    public func exchange(_ request: NetworkRequest, progress: TransportProgressHandler?) async throws -> NetworkStreamResponse {
        try request.validate()
        try Task.checkCancellation()
        let headBytes = Self.requestHeadBytes(request)
        guard headBytes <= Self.requestHeadLimit else {
            throw NetworkError.request(.requestHeadTooLarge(bytes: headBytes, limit: Self.requestHeadLimit))
        }
        let upload = try await UploadSource.prepare(request.body, spoolDirectory: configuration.temporaryDirectory)
        let urlRequest = URLRequest(request)
        let sentFile = SentFileCheck(upload)
        let bridge = TaskBridge(request: request, limits: configuration.responseLimits, cancelQueue: cancelQueue,
                                spoolDirectory: configuration.temporaryDirectory,
                                backlogLimit: configuration.maximumSpooledBytes, upload: upload, sentFile: sentFile,
                                progress: progress)
        // libcurl has read a spooled request body by the time the response head arrives.
        defer { upload.removeSpooledFile() }
        guard case .file(let file) = upload else { return try await exchange(urlRequest, upload: upload, bridge: bridge) }
        do {
            let response = try await exchange(urlRequest, upload: upload, bridge: bridge)
            try Self.checkSent(file, sentFile)  // a failure drops the response, which closes its connection
            return response
        } catch is CancellationError {
            throw CancellationError()  // the caller's, or the deadline's: the file is not why it ended
        } catch {
            try Self.checkSent(file, sentFile)
            throw error
        }
    }

    /// Throws why the body file did not go out whole, if it did not: its stream's own failure (a
    /// file that shrank, grew or could not be read), or a change the caller's file went through.
    private static func checkSent(_ file: FileUpload, _ sentFile: SentFileCheck?) throws {
        if let failure = file.recordedFailure { throw failure }
        try sentFile?.check()
    }

    /// The exchange on a URLSession task: its response head, with the body to read.
    @inline(__always)  // into `exchange(_:progress:)`: the call's path keeps its shape
    private func exchange(_ urlRequest: URLRequest, upload: UploadSource, bridge: TaskBridge) async throws -> NetworkStreamResponse {
        let (session, delegate, cancelQueue) = (session, delegate, cancelQueue)
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                bridge.wait(continuation)
                taskQueue.async {
                    guard !bridge.hasEnded else { return }
                    #if canImport(FoundationNetworking)
                    let task = session.dataTask(with: upload.streamedRequest(urlRequest))
                    #else
                    let task: URLSessionTask = switch upload {
                    case .none: session.dataTask(with: urlRequest)
                    case .data(let data): session.uploadTask(with: urlRequest, from: data)
                    case .file(let file): session.uploadTask(with: urlRequest, fromFile: file.url)
                    }
                    #endif
                    delegate.register(bridge, for: task)
                    if !bridge.start(task) {
                        // Ended while the task was being made (which can wait seconds on a busy
                        // work queue). A task never resumed stays in the session's registry,
                        // with its request and body, until it is cancelled; never having run, it
                        // cannot race its own completion, the cancel that can crash.
                        delegate.unregister(task)
                        cancelQueue.async { task.cancel() }
                    }
                }
            }
        } onCancel: {
            bridge.fail(CancellationError())
        }
    }

    /// The response limits from ``Configuration/responseLimits``.
    public var responseLimits: ResponseLimits { configuration.responseLimits }
}

extension URLSessionTransport {
    /// libcurl refuses a request line and headers over 1 MiB with "Out of memory" (measured on
    /// 7.88.1: a 1,048,3xx-byte URL fails, depending on its own headers); 4 KiB stay free for the
    /// headers it adds (User-Agent, Accept-Encoding…).
    static let requestHeadLimit = 1_048_576 - 4_096

    /// The bytes of `request`'s request line and header fields as they go out.
    static func requestHeadBytes(_ request: NetworkRequest) -> Int {
        request.headers.reduce(request.httpMethod.rawValue.utf8.count + request.url.absoluteString.utf8.count + 12) {
            $0 + $1.name.utf8.count + $1.value.utf8.count + 4
        }
    }

    /// How a ``URLSessionTransport`` behaves.
    public struct Configuration: Sendable {
        /// Connections URLSession may open to one host. Eight by default.
        public var maximumConnectionsPerHost: Int
        /// Where streamed bodies are spooled before upload. The system's temporary directory by default.
        public var temporaryDirectory: URL
        /// How large a response body may grow (decompression bombs, bodies held in memory).
        /// ``ResponseLimits/init(maximumInMemoryBodySize:decompression:)``'s defaults by default.
        /// libcurl decodes bodies before Net sees them, so the compression ratio is checked against
        /// the declared `Content-Length`, and every compressed body is also held to the in-memory
        /// limit (a server can overstate its length).
        public var responseLimits: ResponseLimits
        /// The most body bytes that may arrive ahead of the reader: libcurl cannot be paused, so
        /// what the reader has not taken waits in 1 MiB of memory (256 KiB for a download to a
        /// file), then in an unlinked temporary file. Past this backlog the body fails with
        /// ``NetworkError/ResponseBodyLimit/unreadBacklog(bytes:)`` and the task is cancelled,
        /// which closes the connection (against a server sending as fast as loopback allows,
        /// FoundationNetworking's `cancel()` can wait until the body has ended; the bytes are
        /// dropped as they come), so a fast server cannot fill the disk behind a slow reader.
        /// 1 GiB by default; `nil` for no limit. (`requestDownload` and `requestData` read as
        /// fast as bytes come.)
        public var maximumSpooledBytes: Int64?

        /// Creates a configuration; every parameter has the default described on its property.
        public init(
            maximumConnectionsPerHost: Int = 8,
            temporaryDirectory: URL = FileManager.default.temporaryDirectory,
            responseLimits: ResponseLimits = ResponseLimits(),
            maximumSpooledBytes: Int64? = 1 << 30
        ) {
            self.maximumConnectionsPerHost = max(1, maximumConnectionsPerHost)
            self.temporaryDirectory = temporaryDirectory
            self.responseLimits = responseLimits
            self.maximumSpooledBytes = maximumSpooledBytes.map { max(Int64(BodyChannel.streamedWindow), $0) }
        }
    }
}
