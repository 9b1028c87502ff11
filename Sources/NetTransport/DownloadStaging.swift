import Foundation
import NetCore

/// Where one attempt of a download writes: a hidden file next to the destination, renamed onto
/// it only when the response is final and successful (2xx), so the destination never holds a
/// partial body, a discarded attempt's body or an error page. `rename(2)` in one directory is
/// atomic.
struct DownloadStaging {
    let destination: TransportBodyDestination
    private let finalURL: URL?

    init(call: SessionCall) {
        guard case .download(let url) = call else {
            destination = .memory
            finalURL = nil
            return
        }
        // `.NAME.net-UUID.part` (`BodyFile.stagingURL`, which drops NAME when it would not fit).
        destination = .file(BodyFile.stagingURL(beside: url, unique: "net-\(UUID().uuidString).part"))
        finalURL = url
    }

    /// Removes this attempt's file, if any.
    @inline(never)  // its temporaries stay out of the async frames that call it
    func discard() {
        if case .file(let staging) = destination { BodyFile.remove(staging) }
    }

    /// Returns the final result, moving a downloaded body onto its destination first; `sentMethod`
    /// is the method of the request that was answered (an interceptor may have changed it).
    func complete(_ result: consuming Result<NetworkSessionInterception, any Error>,
                  sentMethod: NetworkHttpMethod? = nil) throws -> NetworkSessionInterception {
        guard case .file(let staging) = destination, let finalURL else {
            // Moved out, not copied: `get()` would retain each reference the response holds.
            switch consume result {
            case .success(let interception): return interception
            case .failure(let error): throw error
            }
        }
        guard case .success(.download(let response)) = result else {
            discard()
            // A full disk or a write error names the file the caller asked for, not our hidden one.
            if case .failure(NetworkError.transport(.cannotWriteBody(staging.path, let reason))) = result {
                throw NetworkError.transport(.cannotWriteBody(path: finalURL.path, reason: reason))
            }
            return try result.get()
        }
        // Another status's body (an error page, a 304's nothing), or the nothing of a success
        // without a body (204, 205, HEAD), must not replace the file the caller had: it goes to a
        // file of its own in the temporary directory, named by the response, as a download
        // without a destination would.
        let replaces = response.response.statusCode.isSuccess
            && !response.response.hasNoBody(answering: sentMethod ?? response.originalRequest.httpMethod)
        let landing = replaces ? finalURL : NetworkDownloadResponse.newTemporaryFile()
        do {
            if landing == finalURL {
                try BodyFile.replace(finalURL, with: staging)
            } else {
                try FileManager.default.moveItem(at: staging, to: landing)  // copies across file systems
            }
        } catch {
            discard()
            throw NetworkError.transport(.cannotWriteBody(path: landing.path, reason: "\(error)"))
        }
        return .download(NetworkDownloadResponse(url: landing, response: response.response, originalRequest: response.originalRequest))
    }
}
