import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The one delegate of a ``URLSessionTransport``'s session: routes callbacks to each task's bridge.
///
/// A session-level delegate is required on Linux: without one a 401 carrying `WWW-Authenticate`
/// hangs forever (Swift 6.3.1), and per-task delegates never hear about redirects or completion.
final class SessionDelegate: NSObject, URLSessionDataDelegate, Sendable {
    private let bridges = Locked<[Int: TaskBridge]>([:])
    /// Where an authentication challenge is answered. Callbacks run on FoundationNetworking's work
    /// queue (``DelegateQueue``), and its challenge handler cancels the task with `cancel()`, which
    /// waits for that same queue: answered in place, the process would trap.
    private let challengeQueue = DispatchQueue(label: "Net.URLSessionTransport.challenges")

    func register(_ bridge: TaskBridge, for task: URLSessionTask) {
        bridges.withLock { $0[task.taskIdentifier] = bridge }
    }

    func unregister(_ task: URLSessionTask) {
        _ = bridges.withLock { $0.removeValue(forKey: task.taskIdentifier) }
    }

    private func bridge(for task: URLSessionTask) -> TaskBridge? {
        bridges.withLock { $0[task.taskIdentifier] }
    }

    func urlSession(
        _ session: URLSession, dataTask: URLSessionDataTask, didReceive response: URLResponse,
        completionHandler: @escaping @Sendable (URLSession.ResponseDisposition) -> Void
    ) {
        bridge(for: dataTask)?.receive(response)
        completionHandler(.allow)
    }

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
        bridge(for: dataTask)?.receive(data)
    }

    func urlSession(
        _ session: URLSession, task: URLSessionTask, didSendBodyData bytesSent: Int64,
        totalBytesSent: Int64, totalBytesExpectedToSend: Int64
    ) {
        bridge(for: task)?.sent(total: totalBytesSent, expected: totalBytesExpectedToSend)
    }

    #if canImport(FoundationNetworking)
    /// libcurl resends a request whose reused connection died before any answer, and asks for its
    /// body again from the start (`UploadSource.makeStream()`). Answered in place: FoundationNetworking
    /// waits for it (up to 7 s) on the session's work queue, which every transfer shares, and
    /// without a new stream it would resend from the spent one. A bridge is removed only when its
    /// task completes or never started, so a resend always finds one.
    func urlSession(_ session: URLSession, task: URLSessionTask, needNewBodyStream completionHandler: @escaping @Sendable (InputStream?) -> Void) {
        completionHandler(bridge(for: task)?.newBodyStream())
    }
    #endif

    func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?) {
        let bridge = bridges.withLock { $0.removeValue(forKey: task.taskIdentifier) }
        bridge?.complete(with: error)
    }

    /// Redirects are followed by ``URLSessionTransport`` itself, so 307/308 resend their body.
    func urlSession(
        _ session: URLSession, task: URLSessionTask, willPerformHTTPRedirection response: HTTPURLResponse,
        newRequest request: URLRequest, completionHandler: @escaping @Sendable (URLRequest?) -> Void
    ) {
        completionHandler(nil)
    }

    func urlSession(
        _ session: URLSession, task: URLSessionTask, didReceive challenge: URLAuthenticationChallenge,
        completionHandler: @escaping @Sendable (URLSession.AuthChallengeDisposition, URLCredential?) -> Void
    ) {
        // Server trust keeps the system's checks. HTTP authentication (401 + WWW-Authenticate)
        // belongs to the caller's interceptors, so the 401 itself is the answer. On Linux
        // (Swift 6.3.1) no disposition delivers it: default handling with no stored credential
        // never completes, rejecting cancels the task, and `.useCredential` with nil crashes. So
        // the bridge completes with the challenge's response head (its body cannot be had) and
        // the challenge is cancelled, which ends the URLSession task.
        guard challenge.protectionSpace.authenticationMethod != "NSURLAuthenticationMethodServerTrust" else {
            challengeQueue.async { completionHandler(.performDefaultHandling, nil) }
            return
        }
        if let response = challenge.failureResponse, let bridge = bridge(for: task) {
            bridge.completeWithoutBody(response)
        }
        challengeQueue.async { completionHandler(.cancelAuthenticationChallenge, nil) }
    }

    func urlSession(
        _ session: URLSession, dataTask: URLSessionDataTask, willCacheResponse proposedResponse: CachedURLResponse,
        completionHandler: @escaping @Sendable (CachedURLResponse?) -> Void
    ) {
        // Caching is a session-level concern in Net, not URLSession's.
        completionHandler(nil)
    }
}
