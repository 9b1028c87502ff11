import Foundation
import NetCore

/// Turns one exchange into a HAR entry, with Net's redaction: sensitive header values and
/// secret query values replaced, and those values scrubbed from recorded bodies.
struct HAREntryWriter: Sendable {
    let maximumBodySize: Int
    private let request: HARArchive.Request
    private let secrets: [String]
    /// The credential keys whose values are redacted in URLs and bodies.
    private let keys: Set<String>
    /// Header names the request marks as credentials, besides those Net knows.
    private let secretHeaderNames: Set<String>

    init(request: NetworkRequest, maximumBodySize: Int) {
        self.maximumBodySize = maximumBodySize
        let secrets = NetworkRedaction.secretValues(of: request)
        self.secrets = secrets
        let queryKeys = NetworkRedaction.queryKeys(adding: request.secretQueryKeys)
        keys = queryKeys
        secretHeaderNames = request.secretHeaderNames
        let items = URLComponents(url: request.url, resolvingAgainstBaseURL: false)?.queryItems ?? []
        let (postData, bodySize) = Self.postData(of: request, limit: maximumBodySize, secrets: secrets, keys: queryKeys)
        self.request = HARArchive.Request(
            method: request.httpMethod.rawValue,
            url: NetworkRedaction.redactedURL(request.url, secretQueryKeys: request.secretQueryKeys),
            httpVersion: "HTTP/1.1", cookies: [],
            headers: Self.redacted(request.headers, keys: queryKeys, secretNames: request.secretHeaderNames, secrets: secrets),
            queryString: items.map { item in
                let secret = queryKeys.contains(item.name.lowercased())
                return HARArchive.NameValue(name: item.name, value: secret ? NetworkRedaction.placeholder : item.value ?? "")
            },
            postData: postData, headersSize: -1, bodySize: bodySize)
    }

    /// How an entry's comment begins when its body failed part-way: replay fails it again.
    static let failedMarker = "the body failed after"
    /// How a response content's comment begins when its body was too large to record: replay
    /// fails rather than serve an empty body.
    static let notRecordedMarker = "body of"

    /// The entry for a response whose body ended, failed or was dropped.
    func entry(
        head: NetworkResponseHead, body: Data?, bodySize: Int, started: Date, wait: Duration, receive: Duration,
        complete: Bool, error: (any Error)?
    ) -> HARArchive.Entry {
        var content = HARArchive.Content(size: bodySize, mimeType: head.headers["Content-Type"] ?? "")
        if let body {
            let (text, encoding) = Self.text(body, contentType: head.headers["Content-Type"], secrets: secrets, keys: keys)
            content.text = text
            content.encoding = encoding
        } else {
            content.comment = "\(Self.notRecordedMarker) \(bodySize) bytes not recorded: over \(maximumBodySize) bytes"
        }
        let comment: String? = if let error {
            "\(Self.failedMarker) \(bodySize) bytes: \(Self.describe(error))"
        } else if !complete {
            "the body was not read to its end (\(bodySize) bytes read)"
        } else {
            nil
        }
        let response = HARArchive.Response(
            status: head.statusCode.rawValue, statusText: head.statusCode.reasonPhrase, httpVersion: "HTTP/1.1", cookies: [],
            headers: Self.redacted(head.headers, keys: keys, secretNames: secretHeaderNames, secrets: secrets), content: content,
            redirectURL: head.headers["Location"].map { NetworkRedaction.redactedURL($0, exactKeys: keys) } ?? "",
            headersSize: -1, bodySize: bodySize)
        let timings = HARArchive.Timings(send: 0, wait: Self.milliseconds(wait), receive: Self.milliseconds(receive))
        return HARArchive.Entry(
            startedDateTime: Self.timestamp(started), time: timings.wait + timings.receive, request: request,
            response: response, cache: HARArchive.Cache(), timings: timings, comment: comment)
    }

    /// The entry for an exchange that failed before a response head: status 0, as browsers
    /// record it, with the error in the comment.
    func failedEntry(_ error: any Error, started: Date, after elapsed: Duration) -> HARArchive.Entry {
        let response = HARArchive.Response(
            status: 0, statusText: "", httpVersion: "HTTP/1.1", cookies: [], headers: [],
            content: HARArchive.Content(size: 0, mimeType: ""), redirectURL: "", headersSize: -1, bodySize: -1)
        let timings = HARArchive.Timings(send: 0, wait: Self.milliseconds(elapsed), receive: 0)
        return HARArchive.Entry(
            startedDateTime: Self.timestamp(started), time: timings.wait, request: request, response: response,
            cache: HARArchive.Cache(), timings: timings, comment: Self.describe(error))
    }

    private static func describe(_ error: any Error) -> String {
        (error as? NetworkError)?.description ?? String(describing: error)
    }

    /// Credentials replaced; URLs in `Location`, `Content-Location`, `Link` and `Refresh` with
    /// their secret query values and password redacted, as a redirect or a next page may carry a
    /// token; and in every other value, the request's own credential values scrubbed (a server
    /// may echo them in any field).
    private static func redacted(_ headers: NetworkHeaders, keys: Set<String>, secretNames: Set<String>,
                                 secrets: [String]) -> [HARArchive.NameValue] {
        headers.map { field in
            let name = field.name.lowercased()
            let value = if NetworkRedaction.isSensitiveHeader(name) || NetworkRedaction.isMarkedHeader(name, in: secretNames) {
                NetworkRedaction.redactedCredential(field.value)
            } else if name == "link" {
                NetworkRedaction.scrubbing(Self.redactedLinks(in: field.value, keys: keys), secrets: secrets)
            } else if ["location", "content-location", "refresh"].contains(name) {
                NetworkRedaction.scrubbing(NetworkRedaction.redactedURL(field.value, exactKeys: keys), secrets: secrets)
            } else {
                NetworkRedaction.scrubbing(field.value, secrets: secrets)
            }
            return HARArchive.NameValue(name: field.name, value: value)
        }
    }

    /// A `Link` value with each URL in it (`<…>`) redacted on its own, so the parameters after it
    /// stay; what follows the last complete `<…>` (an unclosed `<…` among it) is redacted as a
    /// URL too, never copied through.
    private static func redactedLinks(in value: String, keys: Set<String>) -> String {
        var result = ""
        var rest = Substring(value)
        while let open = rest.firstIndex(of: "<"), let close = rest[open...].firstIndex(of: ">") {
            result += rest[...open]
            result += NetworkRedaction.redactedURL(String(rest[rest.index(after: open)..<close]), exactKeys: keys)
            rest = rest[close...]
        }
        return result + NetworkRedaction.redactedURL(String(rest), exactKeys: keys)
    }

    /// A body as recorded: UTF-8 text with the request's credential values scrubbed and the
    /// values of credential keys in a form, JSON or multipart form body redacted, or base64 (and
    /// `"base64"`; a multipart form's credential fields redacted first, and the request's
    /// credential values scrubbed from the bytes).
    static func text(_ data: Data, contentType: String?, secrets: [String], keys: Set<String>) -> (String, String?) {
        // A multipart form's credential fields go before the UTF-8 check: a form that also carries
        // a binary file is recorded as base64, redacted.
        let isMultipart = contentType.map { BodyRedaction.mentions($0, "multipart/form-data") } ?? false
        // Copied only where something may change: a multipart form, or a binary body with secrets.
        let recorded = isMultipart ? Data(BodyRedaction.redactingMultipart(Array(data), contentType: contentType, keys: keys)) : data
        guard let text = String(data: recorded, encoding: .utf8) else {
            let scrubbed = secrets.isEmpty ? recorded : Data(NetworkRedaction.scrubbing(Array(recorded), secrets: secrets))
            return (scrubbed.base64EncodedString(), "base64")
        }
        let scrubbed = NetworkRedaction.scrubbing(text, secrets: secrets)
        return (isMultipart ? scrubbed : BodyRedaction.redacting(scrubbed, contentType: contentType, keys: keys), nil)
    }

    /// The request body of `request` as the recorder writes it (for matching on replay).
    static func recordedText(of data: Data, request: NetworkRequest) -> String {
        text(data, contentType: request.headers["Content-Type"], secrets: NetworkRedaction.secretValues(of: request),
             keys: NetworkRedaction.queryKeys(adding: request.secretQueryKeys)).0
    }

    private static func postData(of request: NetworkRequest, limit: Int, secrets: [String], keys: Set<String>) -> (HARArchive.PostData?, Int) {
        let mimeType = request.headers["Content-Type"] ?? ""
        func recorded(_ data: Data) -> HARArchive.PostData {
            let (text, encoding) = text(data, contentType: mimeType, secrets: secrets, keys: keys)
            return HARArchive.PostData(mimeType: mimeType, text: text, encoding: encoding)
        }
        func skipped(_ size: Int?) -> HARArchive.PostData {
            let reason = size.map { "body of \($0) bytes not recorded: over \(limit) bytes" } ?? "a streamed body is not recorded"
            return HARArchive.PostData(mimeType: mimeType, comment: reason)
        }
        switch request.body {
        case .none:
            return (nil, 0)
        case .data(let data):
            return (data.count <= limit ? recorded(data) : skipped(data.count), data.count)
        case .file(let url):
            // A file that cannot be read is said to be so, not described as over the limit.
            func unreadable(_ reason: String) -> HARArchive.PostData {
                HARArchive.PostData(mimeType: mimeType, comment: "the body file could not be read: \(reason)")
            }
            let size: Int
            do {
                guard let known = (try FileManager.default.attributesOfItem(atPath: url.path)[.size] as? NSNumber)?.intValue else {
                    return (unreadable("its size is unknown"), -1)
                }
                size = known
            } catch {
                return (unreadable("\(error)"), -1)
            }
            guard size <= limit else { return (skipped(size), size) }
            do {
                let data = try Data(contentsOf: url)
                return (recorded(data), data.count)
            } catch {
                return (unreadable("\(error)"), size)
            }
        case .stream:
            return (skipped(nil), -1)
        }
    }

    private static func milliseconds(_ duration: Duration) -> Double {
        let (seconds, attoseconds) = duration.components
        return Double(seconds) * 1000 + Double(attoseconds) / 1e15
    }

    /// ISO 8601 in UTC with milliseconds, as HAR's `startedDateTime` is written by browsers.
    private static func timestamp(_ date: Date) -> String {
        Date.ISO8601FormatStyle(includingFractionalSeconds: true).format(date)
    }
}
