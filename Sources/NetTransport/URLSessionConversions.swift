import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import NetCore

extension NetworkResponseHead {
    /// Reads status, headers and URL from URLSession's response.
    ///
    /// URLSession gives headers as a dictionary, so their order is lost; they are sorted by name
    /// to keep it deterministic. Repeated fields arrive already joined with ", ".
    init(_ response: HTTPURLResponse, fallbackURL: URL) {
        var headers = NetworkHeaders()
        // FoundationNetworking keeps fields in a dictionary; sorted by name (lower-cased once per
        // field, not once per comparison) they come out the same way every time.
        let fields = response.allHeaderFields.compactMap { key, value -> (order: String, name: String, value: String)? in
            guard let name = key as? String else { return nil }
            return (name.lowercased(), name, value as? String ?? "\(value)")
        }.sorted { $0.order < $1.order }
        // libcurl already parsed these lines, so no CR/LF can remain; a field that still fails
        // validation is kept with its control characters replaced rather than lost.
        for (_, name, value) in fields { headers.addReceived(name: name, value: value) }
        self.init(statusCode: HTTPCode(rawValue: response.statusCode), headers: headers, url: response.url ?? fallbackURL)
    }
}

extension URLRequest {
    /// The URLRequest for one exchange; the body is attached by the caller (data or file task).
    ///
    /// `timeoutInterval` (an idle timer on Linux, truncated to whole seconds) is a week: the
    /// pipeline's ``CallDeadline`` keeps every real limit, the same on every transport, and a
    /// streamed body may legitimately stay quiet for long.
    init(_ request: NetworkRequest) {
        self.init(url: request.url)
        // GET is URLRequest's own default; FoundationNetworking's setter compares the new method
        // with its known ones through case-insensitive NSString comparisons (0.7 % of a
        // sequential small GET's CPU samples in `perf`), so the most common method is not set again.
        if request.httpMethod != .get {
            httpMethod = request.httpMethod.rawValue
        }
        timeoutInterval = 604_800
        // URLRequest holds one value per name, so repeated fields go out joined with ", ".
        var written = Set<String>()
        for header in request.headers where written.insert(header.name.lowercased()).inserted {
            setValue(request.headers.values(for: header.name).joined(separator: ", "), forHTTPHeaderField: header.name)
        }
    }
}
