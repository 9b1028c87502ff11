import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Synchronization

/// Raw URLSession driven through a session delegate, as a hand-written delegate (or Alamofire's)
/// drives it: the head, each body chunk and the completion arrive as delegate callbacks, and the
/// caller's code collects the body (NetLoad's `raw-urlsession-delegate`, beside Net's calls that
/// read whole) or counts each chunk and drops it (§7's stream). It is what a client must do on
/// Linux to see a body as it arrives (there is no `bytes(for:)` there), as Net's URLSessionTransport
/// does, so it measures what the delegate path costs URLSession itself. Redirects are not followed.
public final class DelegateReader: NSObject, URLSessionDataDelegate, Sendable {
    private struct Reading: Sendable {
        var body = Data()
        var count = 0
        var continuation: CheckedContinuation<Int, any Error>
    }

    private let collects: Bool
    private let readings = Mutex<[Int: Reading]>([:])

    /// A delegate that keeps each task's body in memory (`collects`) or only counts its bytes.
    public init(collects: Bool) {
        self.collects = collects
    }

    /// Resumes `task`, made on a session whose delegate this is, and returns the length of its
    /// response body once it completes.
    public func read(_ task: URLSessionDataTask) async throws -> Int {
        try await withCheckedThrowingContinuation { continuation in
            readings.withLock { $0[task.taskIdentifier] = Reading(continuation: continuation) }
            task.resume()
        }
    }

    /// Lets every response through to its body.
    public func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive response: URLResponse,
                           completionHandler: @escaping @Sendable (URLSession.ResponseDisposition) -> Void) {
        completionHandler(.allow)
    }

    /// Keeps or counts a chunk of the body as it arrives.
    public func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
        readings.withLock { readings in
            if collects {
                readings[dataTask.taskIdentifier]?.body.append(data)
            } else {
                readings[dataTask.taskIdentifier]?.count += data.count
            }
        }
    }

    /// Hands the body's length, or the error, to the caller of ``read(_:)``.
    public func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?) {
        guard let reading = readings.withLock({ $0.removeValue(forKey: task.taskIdentifier) }) else { return }
        if let error {
            reading.continuation.resume(throwing: error)
        } else {
            reading.continuation.resume(returning: collects ? reading.body.count : reading.count)
        }
    }

    /// Declines every redirect, as Net's transports do.
    public func urlSession(_ session: URLSession, task: URLSessionTask, willPerformHTTPRedirection response: HTTPURLResponse,
                           newRequest request: URLRequest, completionHandler: @escaping @Sendable (URLRequest?) -> Void) {
        completionHandler(nil)
    }
}
