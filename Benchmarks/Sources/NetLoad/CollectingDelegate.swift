import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Synchronization

/// Raw URLSession driven through a session delegate, as a hand-written delegate (or Alamofire's)
/// drives it: the head, each body chunk and the completion arrive as delegate callbacks and the
/// body is collected by the caller's code. It is what a client must do on Linux to see a body as
/// it arrives (there is no `bytes(for:)` there), which Net's URLSessionTransport does, so the pair
/// `raw-urlsession` / `raw-urlsession-delegate` measures what the delegate path costs URLSession
/// itself.
final class CollectingDelegate: NSObject, URLSessionDataDelegate, Sendable {
    private struct Collection: Sendable {
        var body = Data()
        var continuation: CheckedContinuation<Data, any Error>
    }

    private let collections = Mutex<[Int: Collection]>([:])

    /// Starts a data task for `request` on `session` (whose delegate this is) and returns the
    /// length of the body once the task completes.
    func get(_ request: URLRequest, on session: URLSession) async throws -> Int {
        try await body(of: session.dataTask(with: request)).count
    }

    /// Uploads the file at `file` with `request` on `session` (whose delegate this is) and returns
    /// the response body.
    func upload(_ request: URLRequest, fromFile file: URL, on session: URLSession) async throws -> Data {
        try await body(of: session.uploadTask(with: request, fromFile: file))
    }

    /// Resumes `task`, made on a session whose delegate this is, and returns its response body.
    private func body(of task: URLSessionTask) async throws -> Data {
        try await withCheckedThrowingContinuation { continuation in
            collections.withLock { $0[task.taskIdentifier] = Collection(continuation: continuation) }
            task.resume()
        }
    }

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive response: URLResponse,
                    completionHandler: @escaping @Sendable (URLSession.ResponseDisposition) -> Void) {
        completionHandler(.allow)
    }

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
        collections.withLock { $0[dataTask.taskIdentifier]?.body.append(data) }
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?) {
        guard let collection = collections.withLock({ $0.removeValue(forKey: task.taskIdentifier) }) else { return }
        if let error {
            collection.continuation.resume(throwing: error)
        } else {
            collection.continuation.resume(returning: collection.body)
        }
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, willPerformHTTPRedirection response: HTTPURLResponse,
                    newRequest request: URLRequest, completionHandler: @escaping @Sendable (URLRequest?) -> Void) {
        completionHandler(nil)
    }
}
