import Foundation
import NetCore

/// What a call produced: what the interceptors see, and for a stream call the response to hand
/// over. An enum, so that its parts can be moved out by a `switch` (a struct's field read out of
/// it is a copy, which retains each reference the response holds); its cases `indirect`, so that
/// it is one reference: every async function a call returns through keeps room for its result in
/// a frame that lives as long as the call, and inline it took 312 bytes in each.
enum CallOutcome: Sendable {
    indirect case whole(NetworkSessionInterception)
    /// A stream call's response to hand over, and its head as the interceptors saw it.
    indirect case stream(NetworkStreamResponse, head: NetworkSessionInterception)

    /// The outcome of the call's last attempt: its response (a download moved onto its
    /// destination), or its error thrown; carrying the call's finished metrics.
    @inline(never)  // its temporaries stay out of the retry loop's frame
    static func finishing(_ attempted: consuming Result<AttemptOutcome, any Error>, staging: DownloadStaging,
                          metrics: CallMetricsRecorder) throws -> CallOutcome {
        switch consume attempted {
        case .failure(let error):
            _ = try staging.complete(.failure(error))  // throws it, a staging file's name made the caller's
            throw error
        case .success(let outcome):
            let sentMethod = outcome.sent.httpMethod
            var (interception, stream) = try outcome.take()
            interception = try staging.complete(.success(interception), sentMethod: sentMethod)  // before the duration is taken: it includes the move
            let finished = metrics.snapshot(finished: true)
            stream?.metrics = finished
            return CallOutcome(interception: interception.with(finished), stream: stream)
        }
    }

    /// A stream call's outcome when `stream` is given, a call's read whole otherwise.
    init(interception: consuming NetworkSessionInterception, stream: consuming NetworkStreamResponse?) {
        if let stream { self = .stream(stream, head: interception) } else { self = .whole(interception) }
    }

    /// What the interceptors saw.
    var interception: NetworkSessionInterception {
        switch self {
        case .whole(let interception), .stream(_, let interception): interception
        }
    }

    /// A stream call's response, moved out.
    @inline(never)  // its temporaries stay out of the async frame that returns the response
    consuming func streamResponse() throws -> NetworkStreamResponse {
        guard case .stream(let stream, _) = consume self else { throw SessionCall.mismatch }
        return stream
    }

    /// A `requestData` call's response, moved out.
    @inline(never)  // its temporaries stay out of the async frame that returns the response
    consuming func dataResponse() throws -> NetworkDataResponse {
        guard case .whole(.data(let response)) = consume self else { throw SessionCall.mismatch }
        return response
    }

    /// A `requestDownload` call's response, moved out.
    @inline(never)  // as `dataResponse()`
    consuming func downloadResponse() throws -> NetworkDownloadResponse {
        guard case .whole(.download(let response)) = consume self else { throw SessionCall.mismatch }
        return response
    }

    /// An upload's response, moved out.
    @inline(never)  // as `dataResponse()`
    consuming func uploadResponse() throws -> NetworkUploadResponse {
        guard case .whole(.upload(let response)) = consume self else { throw SessionCall.mismatch }
        return response
    }
}
