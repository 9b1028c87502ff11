import Foundation
import Net
import NetAsyncHTTPClient

/// Sends one planned request through Net's public API and prints the outcome.
struct Exchange {
    let options: RequestOptions
    /// `--session`'s cookies, if any.
    var cookieJar: CookieJar? = nil

    /// Sends `plan`; returns the exit status its response earns. Transport failures throw.
    func perform(_ plan: RequestPlan) async throws -> ExitStatus {
        let transport: any Transport = switch options.transport {
        case .urlsession: URLSessionTransport(configuration: .init(responseLimits: options.responseLimits))
        case .ahc: AsyncHTTPClientTransport(configuration: .init(
            responseLimits: options.responseLimits, tls: try options.connection.tlsSettings(),
            proxy: try options.connection.proxyConfiguration()))
        }
        var interceptors: [any NetworkInterceptor] = options.retry > 0 ? [RetryPolicy(maximumRetries: options.retry)] : []
        let timings = options.timings ? TimingsCollector() : nil
        if let timings { interceptors.append(timings) }
        let client = NetworkClient(transport: transport, interceptors: interceptors,
                                   redirectPolicy: options.noFollow ? .doNotFollow : .follow(limit: 10), cookieJar: cookieJar)
        do {
            let status = try await exchange(plan, client: client)
            if let timings { Output.error(await timings.report(bodyEnded: readsBodyItself ? .now : nil)) }
            return status
        } catch {
            if let timings { Output.error(await timings.report()) }
            throw error
        }
    }

    /// Whether the last call's body is read by this command after the call returned.
    private var readsBodyItself: Bool { options.stream || options.continueDownload }

    private func exchange(_ plan: RequestPlan, client: NetworkClient) async throws -> ExitStatus {
        let printer = ResponsePrinter(showsHeaders: options.verbose, bodyOnly: options.body)
        if let download = options.download {
            return try await save(plan, to: URL(fileURLWithPath: download), client: client, printer: printer)
        }
        if options.stream {
            return try await stream(plan, client: client, printer: printer)
        }
        let response = try await client.requestData(for: plan.request)
        try Output.write(printer.head(response.response))
        try Output.write(printer.body(response.data, head: response.response))
        return status(of: response.response)
    }

    /// `--stream`: the head, then each chunk of the body written to standard output as it arrives
    /// (unbuffered writes), as it came, without pretty-printing; a `text/event-stream` body as one
    /// compact JSON object per event instead (``eventLine(_:)``).
    ///
    /// `--timeout` covers the whole exchange here too: the library's deadline for a stream ends
    /// with its head, so the body is read within what is left of it.
    private func stream(_ plan: RequestPlan, client: NetworkClient, printer: ResponsePrinter) async throws -> ExitStatus {
        let deadline = plan.request.timeout.map { ContinuousClock.now + $0 }
        let response = try await client.requestStream(for: plan.request)
        try Output.write(printer.head(response.response))
        let isEventStream = Self.isEventStream(response.response.headers["Content-Type"])
        try await Self.within(deadline, timeout: plan.request.timeout) {
            if isEventStream {
                for try await event in response.body.serverSentEvents() {
                    try Output.write(printer.terminalSafe(Self.eventLine(event)))
                }
            } else {
                for try await chunk in response.body {
                    try Output.write(printer.terminalSafe(chunk))
                }
            }
        }
        return status(of: response.response)
    }

    /// Runs `work`, cancelling it at `deadline` (if any) and then throwing `timedOut`.
    private static func within(_ deadline: ContinuousClock.Instant?, timeout: Duration?,
                               _ work: @escaping @Sendable () async throws -> Void) async throws {
        guard let deadline, let timeout else { return try await work() }
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { try await work() }
            group.addTask {
                try await Task.sleep(until: deadline, clock: .continuous)
                throw NetworkError.transport(.timedOut("the body was still arriving when --timeout (\(timeout)) ran out"))
            }
            defer { group.cancelAll() }
            try await group.next()  // the first to end: the body, or the deadline
        }
    }

    /// `{"event":"…","data":"…","id":"…"}` and a line break; `id` only when the stream has set one.
    static func eventLine(_ event: ServerSentEvent) -> String {
        let id = event.lastEventID.isEmpty ? "" : ",\"id\":\(JSONText.quoted(event.lastEventID))"
        return "{\"event\":\(JSONText.quoted(event.type)),\"data\":\(JSONText.quoted(event.data))\(id)}\n"
    }

    private static func isEventStream(_ contentType: String?) -> Bool {
        let mediaType = contentType?.split(separator: ";", maxSplits: 1).first ?? ""
        return mediaType.trimmingCharacters(in: .whitespaces).lowercased() == "text/event-stream"
    }

    /// The exit status a final response earns, with a note on standard error when the status is
    /// not HTTP or a redirect was not followed, so the user knows why `net` stopped there.
    private func status(of head: NetworkResponseHead) -> ExitStatus {
        let code = head.statusCode.rawValue
        if !(100..<600).contains(code) {
            Output.error("net: the server answered with status \(code), which is not an HTTP status (100–599)\n")
        } else if [301, 302, 303, 307, 308].contains(code), !options.noFollow, let location = head.headers["Location"] {
            // The server's text, on standard error: a terminal's escape sequences in it go as `?`.
            let shown = ResponsePrinter(showsHeaders: false, outputIsTerminal: isatty(STDERR_FILENO) != 0)
                .terminalSafe(NetworkRedaction.redactedURL(location))
            guard let target = URL(string: location, relativeTo: head.url)?.absoluteURL else {
                Output.error("net: not following the redirect: its Location \(shown) is not a URL\n")
                return ExitStatus(statusCode: code)
            }
            let scheme = target.scheme?.lowercased() ?? ""
            if scheme != "http" && scheme != "https" {
                Output.error("net: not following the redirect to \(shown): only http and https redirects are followed\n")
            } else if target.host?.isEmpty ?? true {
                Output.error("net: not following the redirect to \(shown): it names no host\n")
            }
        }
        return ExitStatus(statusCode: code)
    }

    /// `--download`: the body goes to a hidden file beside `destination`, renamed over it only when
    /// the server answered with success, so an error page never replaces the user's file.
    private func save(_ plan: RequestPlan, to destination: URL, client: NetworkClient, printer: ResponsePrinter) async throws -> ExitStatus {
        let staging = RequestOptions.stagingURL(beside: destination.path, unique: "net-\(getpid())")
        defer { try? FileManager.default.removeItem(at: staging) }

        let showsProgress = isatty(STDERR_FILENO) != 0
        let (events, reporter) = AsyncStream.makeStream(of: NetworkProgress.self)
        let drawing = Task {
            var bar = ProgressBar()
            var drew = false
            for await event in events where showsProgress && event.direction == .download {
                bar.draw(event)
                drew = true
            }
            if drew { bar.finish() }
        }
        let response: NetworkDownloadResponse
        do {
            if options.continueDownload {
                response = try await client.requestResumableDownload(for: plan.request, to: destination, progress: reporter)
            } else {
                response = try await client.requestDownload(for: plan.request, to: staging, progress: reporter)
            }
        } catch {
            reporter.finish()
            await drawing.value
            if options.continueDownload {
                Self.notePartial(of: destination)
            } else if case NetworkError.transport(.cannotWriteBody(_, let reason)) = error {
                // The hidden staging file is ours, not the user's: name the file they asked for.
                throw NetworkError.transport(.cannotWriteBody(path: destination.path, reason: reason))
            }
            throw error
        }
        await drawing.value
        if options.continueDownload { return try finishResumable(response, destination: destination, printer: printer) }

        let status = status(of: response.response)
        guard response.statusCode.isSuccess, response.url == staging else {
            // Not a 2xx, or a 2xx without a body (204, 205): the library left the body in a
            // temporary file of its own, the destination as it was. Shown like any response's
            // body, then removed.
            defer { if response.url != staging { try? FileManager.default.removeItem(at: response.url) } }
            try Output.write(printer.head(response.response))
            try printErrorBody(of: response, printer: printer)
            if status == .success { Self.noteNotSaved(destination, status: response.statusCode.rawValue) }
            return status
        }
        let size = (try? staging.resourceValues(forKeys: [.fileSizeKey]))?.fileSize.map(Int64.init)
        guard rename(staging.path, destination.path) == 0 else {
            let reason = String(cString: strerror(errno))
            throw NetworkError.transport(.cannotWriteBody(path: destination.path, reason: reason))
        }
        // The body is saved before the head is shown: output that cannot be written fails the
        // command, but must not take the downloaded file with it.
        let shown = Result { try Output.write(printer.head(response.response)) }
        Output.error("Saved \(size.map(ProgressBar.byteCount) ?? "the body") to \(destination.path)\n")
        try shown.get()
        return status
    }

    /// `--continue`'s outcome: the library has already put a complete body at `destination`; an
    /// error status's body is in a temporary file, printed and removed, the partial bytes kept.
    private func finishResumable(_ response: NetworkDownloadResponse, destination: URL, printer: ResponsePrinter) throws -> ExitStatus {
        try Output.write(printer.head(response.response))
        let status = status(of: response.response)
        guard response.url == destination else {
            defer { try? FileManager.default.removeItem(at: response.url) }
            try printErrorBody(of: response, printer: printer)
            if status == .success { Self.noteNotSaved(destination, status: response.statusCode.rawValue) }
            return status
        }
        let size = (try? destination.resourceValues(forKeys: [.fileSizeKey]))?.fileSize.map(Int64.init)
        let resumed = response.statusCode == 206 ? " (continued from the partial file)" : ""
        Output.error("Saved \(size.map(ProgressBar.byteCount) ?? "the body") to \(destination.path)\(resumed)\n")
        return status
    }

    /// An error status's body, which went to a file as the download asked: printed as any
    /// response's is, if it fits the in-memory limit (`--max-size`); past it, a note says so on
    /// stderr instead of reading a body of any size into memory.
    private func printErrorBody(of response: NetworkDownloadResponse, printer: ResponsePrinter) throws {
        // A size that cannot be read counts as over the limit: the file is not read blind.
        let size = (try? response.url.resourceValues(forKeys: [.fileSizeKey]))?.fileSize.map(Int64.init) ?? .max
        if let limit = options.responseLimits.maximumInMemoryBodySize, size > limit {
            let shown = size == .max ? "of unknown size" : ProgressBar.byteCount(size)
            Output.error("The \(response.statusCode) response's body (\(shown)) is not shown: it is over the in-memory limit of \(ProgressBar.byteCount(limit)) (--max-size)\n")
            return
        }
        try Output.write(printer.body(try response.bodyData(), head: response.response))
    }

    /// A download answered with a status that is not an error and not a 2xx (a 304, a redirect not
    /// followed): `net` exits 0, and says the file was left as it was.
    private static func noteNotSaved(_ destination: URL, status: Int) {
        let why = (200..<300).contains(status) ? "which has no body" : "not a success (2xx)"
        Output.error("net: \(destination.path) was left as it was: the server answered \(status), \(why)\n")
    }

    /// After a failed `--continue` download: says how many bytes wait in `FILE.part`, if any.
    private static func notePartial(of destination: URL) {
        let part = URL(fileURLWithPath: destination.path + ".part")
        guard let size = (try? part.resourceValues(forKeys: [.fileSizeKey]))?.fileSize, size > 0 else { return }
        Output.error("net: \(ProgressBar.byteCount(Int64(size))) kept in \(part.path); run again with --continue to resume\n")
    }
}
