/// What a call does with a response body, marked on its request for the transport
/// (``NetworkRequest/responseBodyUse``): URLSessionTransport holds a small body back to hand it
/// over with its head when it goes into memory, and keeps less of it in memory when it goes to a
/// file; AsyncHTTPClientTransport picks its API by it.
package enum ResponseBodyUse: Sendable {
    /// Read by the caller as it arrives (`requestStream`), or by the session for an upload's answer.
    case streamed
    /// Read whole into memory (`requestData`).
    case inMemory
    /// Written to a file as it arrives (`requestDownload`, a resumable download,
    /// `Transport.send(to: .file)`).
    case toFile
}
